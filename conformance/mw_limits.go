package conformance

import "github.com/agenteval/agenteval/engine"

// buildLimits builds ModelCallLimitMiddleware, ToolCallLimitMiddleware and
// TodoListMiddleware from vector options.
func buildLimits(typ string) middlewareBuilder {
	return func(_ *engine.Object, _ map[string]engine.ChatModel) (engine.Middleware, error) {
		return nil, &unsupportedError{reason: "middleware " + typ + " is not implemented yet"}
	}
}
