package middleware

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agenteval/agenteval/engine"
)

// LLMToolEmulatorOptions configures LLMToolEmulator. Model is required.
type LLMToolEmulatorOptions struct {
	// Model invents the tool results. langchain defaults to Claude Sonnet
	// 4.5 at temperature 1; pass the agent's model to emulate with it.
	Model engine.ChatModel `json:"-"`
	// Tools names the tools to emulate: nil emulates every tool, an empty
	// (non-nil) list none. Other tools run for real.
	Tools []string `json:"tools"`
}

// Validate reports options LLMToolEmulator cannot use.
func (o LLMToolEmulatorOptions) Validate() error {
	var errs []error
	if o.Model == nil {
		errs = append(errs, errors.New("model: required: the chat model that emulates the tools (langchain's default is anthropic:claude-sonnet-4-5-20250929)"))
	}
	for i, n := range o.Tools {
		if n == "" {
			errs = append(errs, fmt.Errorf("tools[%d]: empty tool name", i))
		}
	}
	return errors.Join(errs...)
}

// LLMToolEmulator is langchain's LLMToolEmulator
// (langchain/agents/middleware/tool_emulator.py), for testing agents
// without their tools' side effects. It wraps every tool call: a call of
// an emulated tool is not run; the model is asked instead, with one human
// message
//
//	You are emulating a tool call for testing purposes.
//
//	Tool: <name>
//	Description: <description, or "No description available">
//	Arguments: <the arguments as a Python dict repr>
//
//	Generate a realistic response ...
//
// and its answer's content becomes the tool message's content (status
// success). Calls of other tools go on to the tool. A failing emulator
// call fails the tool call.
//
// Options (LLMToolEmulatorOptions): tools (nil: all) and model.
type LLMToolEmulator struct {
	model engine.ChatModel
	all   bool
	names []string
}

// NewLLMToolEmulator returns the middleware for opts, or every problem
// with them.
func NewLLMToolEmulator(opts LLMToolEmulatorOptions) (*LLMToolEmulator, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("tool emulator middleware: %w", err)
	}
	return &LLMToolEmulator{model: opts.Model, all: opts.Tools == nil, names: slices.Clone(opts.Tools)}, nil
}

// Name is "LLMToolEmulator".
func (e *LLMToolEmulator) Name() string { return "LLMToolEmulator" }

// EmulatorPrompt is the prompt LLMToolEmulator sends for a call of a tool
// with the given description.
func EmulatorPrompt(call engine.ToolCall, description string) string {
	args := call.Args
	if args == nil {
		args = &engine.Object{}
	}
	return "You are emulating a tool call for testing purposes.\n\n" +
		"Tool: " + call.Name + "\n" +
		"Description: " + description + "\n" +
		"Arguments: " + engine.PyRepr(args) + "\n\n" +
		"Generate a realistic response that this tool would return given these arguments.\n" +
		"Return ONLY the tool's output, no explanation or preamble. Introduce variation into your responses."
}

// WrapToolCall answers calls of emulated tools with the model's text.
func (e *LLMToolEmulator) WrapToolCall(ctx context.Context, req engine.ToolCallRequest, next engine.ToolCallExecutor) (any, error) {
	if !e.all && !slices.Contains(e.names, req.Call.Name) {
		return next(ctx, req)
	}
	description := "No description available"
	if req.Tool != nil {
		description = req.Tool.Definition().Description
	}
	out, err := engine.Generate(ctx, e.model, engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage(EmulatorPrompt(req.Call, description)))})
	if err != nil {
		return nil, fmt.Errorf("emulate tool %q: %w", req.Call.Name, err)
	}
	return engine.Message{Type: engine.TypeTool, Content: out.Content, Name: req.Call.Name, ToolCallID: req.Call.ID, Status: engine.StatusSuccess}, nil
}
