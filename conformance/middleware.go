package conformance

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// middlewareBuilder builds one middleware from a vector's
// {"type", "options"}; models holds the vector's named scripted models.
type middlewareBuilder func(opts *engine.Object, models map[string]engine.ChatModel) (engine.Middleware, error)

// builders maps every langchain middleware class the vectors use to its
// builder; langchain is the version that recorded the vector.
func builders(langchain string) map[string]middlewareBuilder {
	optsOnly := func(f func(*engine.Object) (engine.Middleware, error)) middlewareBuilder {
		return func(opts *engine.Object, _ map[string]engine.ChatModel) (engine.Middleware, error) { return f(opts) }
	}
	return map[string]middlewareBuilder{
		"HumanInTheLoopMiddleware": buildHITL,
		"TodoListMiddleware": optsOnly(func(opts *engine.Object) (engine.Middleware, error) {
			return buildTodoList(opts, langchain)
		}),
		"ModelCallLimitMiddleware":  optsOnly(buildModelCallLimit),
		"ToolCallLimitMiddleware":   optsOnly(buildToolCallLimit),
		"ToolRetryMiddleware":       buildToolRetry,
		"ModelRetryMiddleware":      buildModelRetry,
		"ModelFallbackMiddleware":   buildModelFallback,
		"PIIMiddleware":             buildPII,
		"SummarizationMiddleware":   buildSummarization,
		"ContextEditingMiddleware":  buildContextEditing,
		"LLMToolSelectorMiddleware": buildToolSelector,
		"LLMToolEmulator":           buildToolEmulator,
	}
}

// buildMiddleware builds the vector's middleware list. A class this build
// does not know fails the vector, naming the classes it knows.
func buildMiddleware(raw any, models map[string]engine.ChatModel, langchain string) ([]engine.Middleware, error) {
	list, _ := raw.([]any)
	known := builders(langchain)
	var out []engine.Middleware
	for i, e := range list {
		spec, ok := e.(*engine.Object)
		if !ok {
			return nil, fmt.Errorf("middleware[%d]: expected an object", i)
		}
		typ := getStr(spec, "type")
		b, ok := known[typ]
		if !ok {
			return nil, fmt.Errorf("middleware[%d]: unknown middleware class %q; known: %s", i, typ, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
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
