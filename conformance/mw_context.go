package conformance

import "github.com/agenteval/agenteval/engine"

// buildContext builds SummarizationMiddleware, ContextEditingMiddleware,
// LLMToolSelectorMiddleware and LLMToolEmulator from vector options.
func buildContext(typ string) middlewareBuilder {
	return func(_ *engine.Object, _ map[string]engine.ChatModel) (engine.Middleware, error) {
		return nil, &unsupportedError{reason: "middleware " + typ + " is not implemented yet"}
	}
}
