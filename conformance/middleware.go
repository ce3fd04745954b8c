package conformance

import (
	"errors"
	"fmt"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
)

// buildMiddleware builds the vector's middleware list, each
// {"type", "options"} with middleware.Build; models holds the vector's
// named scripted models ("model" is the agent's) and langchain is the
// release that recorded the vector. A class this build does not know
// fails the vector, naming the classes it knows.
func buildMiddleware(raw any, models map[string]engine.ChatModel, langchain string) ([]engine.Middleware, error) {
	list, _ := raw.([]any)
	bo := middleware.BuildOptions{Models: models, LangChain: langchain}
	var out []engine.Middleware
	for i, e := range list {
		spec, ok := e.(*engine.Object)
		if !ok {
			return nil, fmt.Errorf("middleware[%d]: expected an object", i)
		}
		typ := getStr(spec, "type")
		m, err := middleware.Build(typ, getObj(spec, "options"), bo)
		switch {
		case errors.Is(err, middleware.ErrUnknownClass):
			return nil, fmt.Errorf("middleware[%d]: %w", i, err)
		case err != nil:
			return nil, fmt.Errorf("middleware[%d] (%s): %w", i, typ, err)
		}
		out = append(out, m)
	}
	return out, nil
}
