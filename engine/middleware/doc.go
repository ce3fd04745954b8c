// Package middleware holds langchain v1's built-in agent middleware for
// engine.CreateAgent, each a value with the hooks it needs (before_model,
// after_model, wrap_model_call, wrap_tool_call, extra tools and state
// keys), reproducing langchain 1.1.3's behaviour and texts. It imports only
// package engine.
package middleware
