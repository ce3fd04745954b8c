package conformance

import "github.com/agenteval/agenteval/engine"

// buildHITL builds HumanInTheLoopMiddleware from vector options.
func buildHITL(_ *engine.Object, _ map[string]engine.ChatModel) (engine.Middleware, error) {
	return nil, &unsupportedError{reason: "middleware HumanInTheLoopMiddleware is not implemented yet"}
}
