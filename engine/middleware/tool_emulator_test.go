package middleware

import (
	"context"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
)

func TestLLMToolEmulator(t *testing.T) {
	t.Parallel()
	weather := engine.NewTool(engine.ToolDef{Name: "get_weather", Description: "Get the weather for a city."}, nil)
	tests := []struct {
		name, reason string
		tools        []string
		tool         engine.Tool
		call         engine.ToolCall
		want         string // the tool message content
		wantPrompt   string // "" when the model is not asked
	}{
		{
			name: "all", reason: "nil tools emulates every tool", tool: weather, call: weatherCall("c1", "Paris"), want: "EMULATED",
			wantPrompt: "You are emulating a tool call for testing purposes.\n\nTool: get_weather\nDescription: Get the weather for a city.\nArguments: {'city': 'Paris'}\n\nGenerate a realistic response that this tool would return given these arguments.\nReturn ONLY the tool's output, no explanation or preamble. Introduce variation into your responses.",
		},
		{
			name: "listed", reason: "a listed tool is emulated", tools: []string{"get_weather"}, tool: weather, call: weatherCall("c1", "Paris"), want: "EMULATED",
			wantPrompt: EmulatorPrompt(weatherCall("c1", "Paris"), "Get the weather for a city."),
		},
		{
			name: "not listed", reason: "other tools run for real", tools: []string{"search"}, tool: weather, call: weatherCall("c1", "Paris"), want: "REAL",
		},
		{
			name: "none", reason: "an empty list emulates nothing", tools: []string{}, tool: weather, call: weatherCall("c1", "Paris"), want: "REAL",
		},
		{
			name: "unknown tool", reason: "a tool the agent does not have is emulated without a description",
			call: engine.ToolCall{Name: "ghost", ID: "c9"}, want: "EMULATED",
			wantPrompt: EmulatorPrompt(engine.ToolCall{Name: "ghost"}, "No description available"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := &fakeModel{answer: engine.AIMessage("EMULATED")}
			e, err := NewLLMToolEmulator(LLMToolEmulatorOptions{Model: model, Tools: tt.tools})
			if err != nil {
				t.Fatal(err)
			}
			real := func(_ context.Context, req engine.ToolCallRequest) (any, error) {
				return engine.ToolMessage(engine.Text("REAL"), req.Call.Name, req.Call.ID), nil
			}
			res, err := e.WrapToolCall(context.Background(), engine.ToolCallRequest{Call: tt.call, Tool: tt.tool}, real)
			if err != nil {
				t.Fatal(err)
			}
			msg := res.(engine.Message)
			want := engine.ToolMessage(engine.Text(tt.want), tt.call.Name, tt.call.ID)
			wantJSON, _ := engine.MarshalValue(want.ToValue())
			gotJSON, _ := engine.MarshalValue(msg.ToValue())
			if d := cmp.Diff(string(wantJSON), string(gotJSON)); d != "" {
				t.Errorf("WrapToolCall(%s) mismatch (-want +got) — %s:\n%s", tt.name, tt.reason, d)
			}
			var wantPrompts []string
			if tt.wantPrompt != "" {
				wantPrompts = []string{tt.wantPrompt}
			}
			if d := cmp.Diff(wantPrompts, model.prompts()); d != "" {
				t.Errorf("WrapToolCall(%s) prompts mismatch (-want +got):\n%s", tt.name, d)
			}
		})
	}
}

func TestLLMToolEmulatorErrors(t *testing.T) {
	t.Parallel()
	if _, err := NewLLMToolEmulator(LLMToolEmulatorOptions{}); err == nil {
		t.Error("NewLLMToolEmulator without a model should fail")
	}
	model := &fakeModel{err: engine.NewError("RuntimeError", "overloaded")}
	e, err := NewLLMToolEmulator(LLMToolEmulatorOptions{Model: model})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.WrapToolCall(context.Background(), engine.ToolCallRequest{Call: weatherCall("c1", "Paris")}, nil)
	if engine.ErrorKind(err) != "RuntimeError" || engine.ErrorMessage(err) != "overloaded" {
		t.Errorf("a failing emulator call should fail the tool call with the model's error, got %v", err)
	}
}
