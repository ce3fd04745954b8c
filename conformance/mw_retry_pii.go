package conformance

import "github.com/agenteval/agenteval/engine"

// buildRetryPII builds ToolRetryMiddleware, ModelRetryMiddleware,
// ModelFallbackMiddleware and PIIMiddleware from vector options.
func buildRetryPII(typ string) middlewareBuilder {
	return func(_ *engine.Object, _ map[string]engine.ChatModel) (engine.Middleware, error) {
		return nil, &unsupportedError{reason: "middleware " + typ + " is not implemented yet"}
	}
}
