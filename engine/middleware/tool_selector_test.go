package middleware

import (
	"context"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
)

var selectorTools = []engine.ToolSchema{
	{Name: "get_weather", Description: "Get the weather for a city."},
	{Name: "get_time", Description: "Get the local time in a city."},
	{Name: "search", Description: "Search the web."},
	{Name: "echo", Description: "Echo the arguments back."},
}

func selection(names ...any) engine.Message {
	return engine.AIMessage("", engine.ToolCall{Name: "ToolSelectionResponse", Args: engine.NewObject("tools", names), ID: "s1"})
}

func toolNames(ts []engine.ToolSchema) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestLLMToolSelector(t *testing.T) {
	t.Parallel()
	human := []engine.Message{engine.HumanMessage("first"), engine.AIMessage("ok"), engine.HumanMessage("what time is it?"), engine.AIMessage("thinking")}
	tests := []struct {
		name, reason string
		opts         LLMToolSelectorOptions
		tools        []engine.ToolSchema
		msgs         []engine.Message
		answer       engine.Message
		want         []string // tools the model sees; nil: the selector fails
		wantErr      string
		wantOffered  []string // tools offered to the selector; nil: not called
	}{
		{
			name: "agent order", reason: "chosen tools keep the agent's order, not the selector's",
			tools: selectorTools, msgs: human, answer: selection("echo", "get_weather"),
			want: []string{"get_weather", "echo"}, wantOffered: []string{"get_weather", "get_time", "search", "echo"},
		},
		{
			name: "max tools", reason: "only the first max_tools valid choices count; duplicates are ignored; always_include comes last and is not offered",
			opts:  LLMToolSelectorOptions{MaxTools: 2, AlwaysInclude: []string{"get_weather"}},
			tools: selectorTools, msgs: human, answer: selection("echo", "echo", "get_time", "search"),
			want: []string{"get_time", "echo", "get_weather"}, wantOffered: []string{"get_time", "search", "echo"},
		},
		{
			name: "provider tools", reason: "dict tools are never offered, nor counted for always_include, and are kept after the selection (_process_selection_response's provider_tools)",
			opts:  LLMToolSelectorOptions{AlwaysInclude: []string{"search"}},
			tools: append([]engine.ToolSchema{{Name: "web_search_preview", Provider: engine.NewObject("type", "web_search_preview")}}, selectorTools...), msgs: human, answer: selection("get_time"),
			want: []string{"get_time", "search", "web_search_preview"}, wantOffered: []string{"get_weather", "get_time", "echo"},
		},
		{
			name: "invalid", reason: "a name that was not offered fails with langchain's text",
			opts:  LLMToolSelectorOptions{AlwaysInclude: []string{"search"}},
			tools: selectorTools, msgs: human, answer: selection("search", "nope", 3.0),
			wantErr: "Model selected invalid tools: ['search', 'nope', 3.0]", wantOffered: []string{"get_weather", "get_time", "echo"},
		},
		{
			name: "no selection", reason: "an answer without the structured call is not a dict",
			tools: selectorTools, msgs: human, answer: engine.AIMessage("get_time please"),
			wantErr: "Expected dict response, got <class 'NoneType'>", wantOffered: []string{"get_weather", "get_time", "search", "echo"},
		},
		{
			name: "missing always", reason: "always_include must name tools of the request",
			opts:  LLMToolSelectorOptions{AlwaysInclude: []string{"zzz", "echo"}},
			tools: selectorTools, msgs: human,
			wantErr: "Tools in always_include not found in request: ['zzz']. Available tools: ['echo', 'get_time', 'get_weather', 'search']",
		},
		{
			name: "nothing to choose", reason: "when every tool is always included the selector is not asked",
			opts:  LLMToolSelectorOptions{AlwaysInclude: []string{"search", "echo"}},
			tools: selectorTools[2:], msgs: human, want: []string{"search", "echo"},
		},
		{
			name: "no tools", reason: "a request without tools goes through",
			msgs: human, want: []string{},
		},
		{
			name: "no human", reason: "the selector needs a user message",
			tools: selectorTools, msgs: []engine.Message{engine.AIMessage("hi")},
			wantErr: "No user message found in request messages",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := &fakeModel{answer: tt.answer}
			tt.opts.Model = model
			s, err := NewLLMToolSelector(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var seen []engine.ToolSchema
			_, err = s.WrapModelCall(context.Background(), engine.AgentModelRequest{Messages: tt.msgs, Tools: tt.tools}, func(_ context.Context, r engine.AgentModelRequest) (*engine.AgentModelResponse, error) {
				seen = r.Tools
				return &engine.AgentModelResponse{}, nil
			})
			switch {
			case tt.wantErr != "":
				if err == nil || engine.ErrorMessage(err) != tt.wantErr {
					t.Errorf("WrapModelCall(%s) error = %v, want %q (%s)", tt.name, err, tt.wantErr, tt.reason)
				}
			case err != nil:
				t.Fatalf("WrapModelCall(%s): %v", tt.name, err)
			default:
				if d := cmp.Diff(tt.want, toolNames(seen)); d != "" {
					t.Errorf("WrapModelCall(%s) tools mismatch (-want +got) — %s:\n%s", tt.name, tt.reason, d)
				}
			}
			var offered []string
			if len(model.reqs) > 0 {
				req := model.reqs[0]
				if req.ToolChoice != "any" || len(req.Tools) != 1 || req.Tools[0].Name != "ToolSelectionResponse" {
					t.Errorf("the selector must be bound to ToolSelectionResponse with tool_choice any, got %v %q", toolNames(req.Tools), req.ToolChoice)
				}
				if last := req.Messages.At(req.Messages.Len() - 1); last.Text() != "what time is it?" {
					t.Errorf("the selector sees %q, want the last human message", last.Text())
				}
				offered = offeredNames(req.Tools[0])
			}
			if d := cmp.Diff(tt.wantOffered, offered); d != "" {
				t.Errorf("WrapModelCall(%s) offered tools mismatch (-want +got):\n%s", tt.name, d)
			}
		})
	}
}

func offeredNames(s engine.ToolSchema) []string {
	props, _ := s.Parameters.Get("properties")
	tools, _ := props.(*engine.Object).Get("tools")
	items, _ := tools.(*engine.Object).Get("items")
	io := items.(*engine.Object)
	var out []string
	if c, ok := io.Get("const"); ok {
		return []string{c.(string)}
	}
	anyOf, _ := io.Get("anyOf")
	for _, e := range anyOf.([]any) {
		c, _ := e.(*engine.Object).Get("const")
		out = append(out, c.(string))
	}
	return out
}

func TestToolSelectionSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reason string
		tools        []engine.ToolSchema
		want         string
	}{
		{"one", "a union of one literal is the literal itself", selectorTools[:1],
			`{"properties": {"tools": {"description": "Tools to use. Place the most relevant tools first.", "items": {"const": "get_weather", "description": "Get the weather for a city.", "type": "string"}, "type": "array"}}, "required": ["tools"], "type": "object"}`},
		{"two", "several literals are an anyOf, keys sorted as pydantic writes them", selectorTools[2:],
			`{"properties": {"tools": {"description": "Tools to use. Place the most relevant tools first.", "items": {"anyOf": [{"const": "search", "description": "Search the web.", "type": "string"}, {"const": "echo", "description": "Echo the arguments back.", "type": "string"}]}, "type": "array"}}, "required": ["tools"], "type": "object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := ToolSelectionSchema(tt.tools)
			got, err := engine.PyJSON(s.Parameters)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ToolSelectionSchema(%s) mismatch (-want +got) — %s:\n%s", tt.name, tt.reason, d)
			}
			if s.Name != "ToolSelectionResponse" || s.Description != "Use to select relevant tools." {
				t.Errorf("schema named %q / %q", s.Name, s.Description)
			}
		})
	}
}

func TestNewLLMToolSelectorErrors(t *testing.T) {
	t.Parallel()
	if _, err := NewLLMToolSelector(LLMToolSelectorOptions{MaxTools: -1, AlwaysInclude: []string{""}}); err == nil {
		t.Error("a negative max_tools and an empty name should be refused")
	}
}

// TestLLMToolSelectorSystemPrompt checks the selector's system message:
// system_prompt replaces the default, and max_tools appends langchain's
// instruction (tool_selection.py, wrap_model_call's system_message).
func TestLLMToolSelectorSystemPrompt(t *testing.T) {
	t.Parallel()
	const important = "\nIMPORTANT: List the tool names in order of relevance, with the most relevant first. If you exceed the maximum number of tools, only the first 2 will be used."
	tests := []struct {
		name, reason string
		opts         LLMToolSelectorOptions
		want         string
	}{
		{"default", "no system_prompt: DEFAULT_SYSTEM_PROMPT", LLMToolSelectorOptions{}, DefaultToolSelectorPrompt},
		{"custom", "system_prompt replaces the default", LLMToolSelectorOptions{SystemPrompt: "Pick tools for a travel agent."}, "Pick tools for a travel agent."},
		{"custom with max tools", "max_tools appends its instruction to the custom prompt", LLMToolSelectorOptions{SystemPrompt: "Pick tools.", MaxTools: 2}, "Pick tools." + important},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := &fakeModel{answer: selection("get_time")}
			tt.opts.Model = model
			s, err := NewLLMToolSelector(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			msgs := []engine.Message{engine.HumanMessage("what time is it?")}
			if _, err := s.WrapModelCall(context.Background(), engine.AgentModelRequest{Messages: msgs, Tools: selectorTools}, func(context.Context, engine.AgentModelRequest) (*engine.AgentModelResponse, error) {
				return &engine.AgentModelResponse{}, nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(model.reqs) != 1 || model.reqs[0].Messages.Len() == 0 {
				t.Fatalf("the selector was not asked once: %d requests", len(model.reqs))
			}
			first := model.reqs[0].Messages.At(0)
			if first.Type != engine.TypeSystem || first.Text() != tt.want {
				t.Errorf("selector system message = %s %q, want system %q (%s)", first.Type, first.Text(), tt.want, tt.reason)
			}
		})
	}
}
