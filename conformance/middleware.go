package conformance

import (
	"fmt"

	"github.com/agenteval/agenteval/engine"
)

// middlewareBuilder builds one middleware from a vector's
// {"type", "options"}; models holds the vector's named scripted models.
type middlewareBuilder func(opts *engine.Object, models map[string]engine.ChatModel) (engine.Middleware, error)

// builderFor returns the builder for a langchain middleware class.
func builderFor(typ, langchain string) middlewareBuilder {
	switch typ {
	case "HumanInTheLoopMiddleware":
		return buildHITL
	case "TodoListMiddleware":
		return func(opts *engine.Object, _ map[string]engine.ChatModel) (engine.Middleware, error) {
			return buildTodoList(opts, langchain)
		}
	case "ModelCallLimitMiddleware", "ToolCallLimitMiddleware":
		return buildLimits(typ)
	case "ToolRetryMiddleware", "ModelRetryMiddleware", "ModelFallbackMiddleware", "PIIMiddleware":
		return buildRetryPII(typ)
	case "SummarizationMiddleware", "ContextEditingMiddleware", "LLMToolSelectorMiddleware", "LLMToolEmulator":
		return buildContext(typ)
	}
	return nil
}

// buildMiddleware builds the vector's middleware list. Middleware classes
// this build does not have make the vector unsupported (skipped).
func buildMiddleware(raw any, models map[string]engine.ChatModel, langchain string) ([]engine.Middleware, error) {
	list, _ := raw.([]any)
	var out []engine.Middleware
	for i, e := range list {
		spec, ok := e.(*engine.Object)
		if !ok {
			return nil, fmt.Errorf("middleware[%d]: expected an object", i)
		}
		typ := getStr(spec, "type")
		b := builderFor(typ, langchain)
		if b == nil {
			return nil, &unsupportedError{reason: fmt.Sprintf("middleware %s is not implemented yet", typ)}
		}
		opts := getObj(spec, "options")
		if opts == nil {
			opts = &engine.Object{}
		}
		m, err := b(opts, models)
		if err != nil {
			return nil, fmt.Errorf("middleware[%d] (%s): %w", i, typ, err)
		}
		out = append(out, m)
	}
	return out, nil
}
