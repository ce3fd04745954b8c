package middleware

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/agenteval/agenteval/engine"
)

// DefaultToolSelectorPrompt is the selector model's default system prompt.
const DefaultToolSelectorPrompt = "Your goal is to select the most relevant tools for answering the user's query."

// toolSelectionName names the structured output the selector model fills.
const toolSelectionName = "ToolSelectionResponse"

// LLMToolSelectorOptions configures LLMToolSelector. The zero value lets
// the agent's own model choose among all tools, without a limit.
type LLMToolSelectorOptions struct {
	// Model chooses the tools; nil means the model of the request (the
	// agent's).
	Model engine.ChatModel `json:"-"`
	// SystemPrompt instructs the selector; "" means
	// DefaultToolSelectorPrompt.
	SystemPrompt string `json:"system_prompt,omitempty"`
	// MaxTools keeps only the first MaxTools valid choices; 0 means no
	// limit. The prompt tells the selector about the limit.
	MaxTools int `json:"max_tools,omitempty"`
	// AlwaysInclude names tools given to the model whatever the selector
	// says; they are not offered to it and do not count against MaxTools.
	AlwaysInclude []string `json:"always_include,omitempty"`
}

// Validate reports options LLMToolSelector cannot use.
func (o LLMToolSelectorOptions) Validate() error {
	var errs []error
	if o.MaxTools < 0 {
		errs = append(errs, fmt.Errorf("max_tools: expected a positive limit (or 0 for none), got %d", o.MaxTools))
	}
	for i, n := range o.AlwaysInclude {
		if n == "" {
			errs = append(errs, fmt.Errorf("always_include[%d]: empty tool name", i))
		}
	}
	return errors.Join(errs...)
}

// LLMToolSelector is langchain's LLMToolSelectorMiddleware
// (langchain/agents/middleware/tool_selection.py). Before every model
// call with tools it asks a selector model — with its system prompt
// (plus, under MaxTools, "IMPORTANT: List the tool names in order of
// relevance, ...") and the last human message — to fill
// ToolSelectionResponse {"tools": [names]} through a tool call
// (tool_choice "any"), each offered name a constant described by its
// tool's description. The model then sees only the chosen tools, in the
// agent's order, followed by AlwaysInclude. A name that is not offered
// fails the run ("Model selected invalid tools: [...]"), as does an
// AlwaysInclude name the request does not have.
//
// Options (LLMToolSelectorOptions): model, system_prompt, max_tools,
// always_include.
type LLMToolSelector struct {
	opts   LLMToolSelectorOptions
	prompt string
}

// NewLLMToolSelector returns the middleware for opts, or every problem
// with them.
func NewLLMToolSelector(opts LLMToolSelectorOptions) (*LLMToolSelector, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("tool selector middleware: %w", err)
	}
	s := &LLMToolSelector{opts: opts, prompt: opts.SystemPrompt}
	if s.prompt == "" {
		s.prompt = DefaultToolSelectorPrompt
	}
	s.opts.AlwaysInclude = slices.Clone(opts.AlwaysInclude)
	return s, nil
}

// Name is "LLMToolSelectorMiddleware".
func (s *LLMToolSelector) Name() string { return "LLMToolSelectorMiddleware" }

// WrapModelCall narrows the request's tools to the selector's choice.
func (s *LLMToolSelector) WrapModelCall(ctx context.Context, req engine.AgentModelRequest, next engine.ModelCallHandler) (*engine.AgentModelResponse, error) {
	if len(req.Tools) == 0 {
		return next(ctx, req)
	}
	// provider tools (dicts) are never offered for selection and always
	// kept, after the selected ones (_prepare_selection_request's
	// base_tools, _process_selection_response's provider_tools)
	var base, providers []engine.ToolSchema
	for _, t := range req.Tools {
		if t.Provider != nil {
			providers = append(providers, t)
		} else {
			base = append(base, t)
		}
	}
	if len(s.opts.AlwaysInclude) > 0 {
		have := map[string]bool{}
		var names []any
		for _, t := range base {
			have[t.Name] = true
		}
		for n := range have {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { return names[i].(string) < names[j].(string) })
		var missing []any
		for _, n := range s.opts.AlwaysInclude {
			if !have[n] {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			return nil, engine.NewError("ValueError", fmt.Sprintf("Tools in always_include not found in request: %s. Available tools: %s", engine.PyRepr(missing), engine.PyRepr(names)))
		}
	}
	var available []engine.ToolSchema
	for _, t := range base {
		if !slices.Contains(s.opts.AlwaysInclude, t.Name) {
			available = append(available, t)
		}
	}
	if len(available) == 0 {
		return next(ctx, req)
	}
	system := s.prompt
	if s.opts.MaxTools > 0 {
		system += fmt.Sprintf("\nIMPORTANT: List the tool names in order of relevance, with the most relevant first. If you exceed the maximum number of tools, only the first %d will be used.", s.opts.MaxTools)
	}
	last := -1
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Type == engine.TypeHuman {
			last = i
			break
		}
	}
	if last < 0 {
		return nil, engine.NewError("AssertionError", "No user message found in request messages")
	}
	model := s.opts.Model
	if model == nil {
		model = req.Model
	}
	out, err := engine.Generate(ctx, model, engine.ModelRequest{
		Messages:   engine.NewMessageList(engine.SystemMessage(system), req.Messages[last]),
		Tools:      []engine.ToolSchema{ToolSelectionSchema(available)},
		ToolChoice: "any",
	})
	if err != nil {
		return nil, fmt.Errorf("tool selector: %w", err)
	}
	chosen, err := s.parseSelection(out, available)
	if err != nil {
		return nil, err
	}
	var tools []engine.ToolSchema
	for _, t := range available {
		if slices.Contains(chosen, t.Name) {
			tools = append(tools, t)
		}
	}
	for _, t := range base {
		if slices.Contains(s.opts.AlwaysInclude, t.Name) {
			tools = append(tools, t)
		}
	}
	req.Tools = append(tools, providers...)
	return next(ctx, req)
}

// parseSelection reads the selector's answer the way with_structured_output
// (first ToolSelectionResponse call) and _process_selection_response do.
func (s *LLMToolSelector) parseSelection(out engine.Message, available []engine.ToolSchema) ([]string, error) {
	var args *engine.Object
	found := false
	for _, tc := range out.ToolCalls {
		if tc.Name == toolSelectionName {
			args, found = tc.Args, true
			break
		}
	}
	if !found {
		return nil, engine.NewError("AssertionError", "Expected dict response, got <class 'NoneType'>")
	}
	if args == nil {
		args = &engine.Object{}
	}
	raw, ok := args.Get("tools")
	if !ok {
		return nil, engine.NewError("KeyError", "'tools'")
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, engine.NewError("TypeError", fmt.Sprintf("the selector's \"tools\" must be a list of tool names, got %s", engine.PyRepr(raw)))
	}
	var chosen []string
	var invalid []any
	for _, v := range list {
		name, _ := v.(string)
		if !slices.ContainsFunc(available, func(t engine.ToolSchema) bool { return t.Name == name }) || name == "" {
			invalid = append(invalid, v)
			continue
		}
		if !slices.Contains(chosen, name) && (s.opts.MaxTools == 0 || len(chosen) < s.opts.MaxTools) {
			chosen = append(chosen, name)
		}
	}
	if len(invalid) > 0 {
		return nil, engine.NewError("ValueError", "Model selected invalid tools: "+engine.PyRepr(invalid))
	}
	return chosen, nil
}

// ToolSelectionSchema is the tool the selector model fills: pydantic's
// JSON schema of ToolSelectionResponse (a TypedDict with "tools", a list
// of literal tool names each described by its tool's description), as
// LangChain binds it for structured output: title and description moved
// to the tool's name and description.
func ToolSelectionSchema(tools []engine.ToolSchema) engine.ToolSchema {
	literal := func(t engine.ToolSchema) *engine.Object {
		o := engine.NewObject("const", t.Name)
		if t.Description != "" {
			o.Set("description", t.Description)
		}
		o.Set("type", "string")
		return o
	}
	var items *engine.Object
	if len(tools) == 1 {
		items = literal(tools[0])
	} else {
		anyOf := make([]any, len(tools))
		for i, t := range tools {
			anyOf[i] = literal(t)
		}
		items = engine.NewObject("anyOf", anyOf)
	}
	params := engine.NewObject(
		"properties", engine.NewObject("tools", engine.NewObject(
			"description", "Tools to use. Place the most relevant tools first.",
			"items", items,
			"type", "array",
		)),
		"required", []any{"tools"},
		"type", "object",
	)
	return engine.ToolSchema{Name: toolSelectionName, Description: "Use to select relevant tools.", Parameters: params}
}
