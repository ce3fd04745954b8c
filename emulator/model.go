package emulator

import (
	"context"
	"fmt"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
)

// Middleware returns LangChain's LLMToolEmulator for create_agent: calls
// of the named tools (every tool when tools is nil) are answered by model
// with the emulator's prompt; other tools run.
func Middleware(model engine.ChatModel, tools []string) (*middleware.LLMToolEmulator, error) {
	return middleware.NewLLMToolEmulator(middleware.LLMToolEmulatorOptions{Model: model, Tools: tools})
}

// Wrapper returns the same emulation as a ToolNode wrapper, for
// create_react_agent (engine.ToolNodeOptions.Wrap): the tool messages are
// those the middleware makes. A wrapper already set can be chained with
// Chain.
func Wrapper(model engine.ChatModel, tools []string) (engine.ToolCallWrapper, error) {
	m, err := Middleware(model, tools)
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	return m.WrapToolCall, nil
}

// Chain runs outer around inner: outer sees every call first and calls
// inner as its next step. A nil wrapper is skipped.
func Chain(outer, inner engine.ToolCallWrapper) engine.ToolCallWrapper {
	switch {
	case outer == nil:
		return inner
	case inner == nil:
		return outer
	}
	return func(ctx context.Context, req engine.ToolCallRequest, next engine.ToolCallExecutor) (any, error) {
		return outer(ctx, req, func(ctx context.Context, req engine.ToolCallRequest) (any, error) {
			return inner(ctx, req, next)
		})
	}
}
