package grade

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
)

func expPtr[T any](v T) *T { return &v }

// hitlPayload is a HumanInTheLoopMiddleware interrupt value.
func hitlPayload(tool, city string) any {
	return engine.NewObject(
		"action_requests", []any{engine.NewObject("name", tool, "args", engine.NewObject("city", city), "description", "Tool execution requires approval")},
		"review_configs", []any{engine.NewObject("action_name", tool, "allowed_decisions", []any{"approve", "edit", "reject"})},
	)
}

func TestCheckExpect(t *testing.T) {
	t.Parallel()
	weatherSchema := engine.NewObject(
		"title", "Weather",
		"type", "object",
		"properties", engine.NewObject("city", engine.NewObject("type", "string"), "temp", engine.NewObject("type", "number")),
		"required", []any{"city", "temp"},
	)
	structured := engine.NewObject("city", "Paris", "temp", jnum("21.5"), "tags", []any{"sunny", "warm"})
	recursion := fmt.Errorf("step 25: %w", &engine.Error{Kind: "GraphRecursionError", Message: "Recursion limit of 25 reached without hitting a stop condition."})
	tests := []struct {
		name   string
		reason string
		e      Expect
		o      Observed
		want   []Result
	}{
		{
			name:   "nothing-set",
			reason: "no set field, no entry; a failed run is the runner's to report",
			o:      Observed{Err: errors.New("boom")},
			want:   nil,
		},
		{
			name:   "final-contains",
			reason: "the message quotes what was wanted and what the text was",
			e:      Expect{Final: &TextMatch{Contains: []string{"sunny"}}},
			o:      Observed{Final: "It is raining."},
			want:   []Result{{Name: "final", Message: `final: want text containing "sunny", got "It is raining."`}},
		},
		{
			name:   "final-all-hold",
			reason: "every set field holds: pass",
			e:      Expect{Final: &TextMatch{Equals: expPtr("It is sunny in Paris."), Contains: []string{"sunny", "Paris"}, Regex: `^It is \w+`, NotContains: []string{"rain"}}},
			o:      Observed{Final: "It is sunny in Paris."},
			want:   []Result{{Name: "final", Passed: true}},
		},
		{
			name:   "final-several-fail",
			reason: "every failed condition is listed, in field order",
			e:      Expect{Final: &TextMatch{Contains: []string{"sunny", "rain"}, Regex: `^\d+$`, NotContains: []string{"It"}}},
			o:      Observed{Final: "It is raining."},
			want:   []Result{{Name: "final", Message: `final: want text containing "sunny" and matching regex "^\\d+$" and not containing "It", got "It is raining."`}},
		},
		{
			name:   "final-equals",
			reason: "equals fails with a line diff of the texts",
			e:      Expect{Final: &TextMatch{Equals: expPtr("Sunny.\n21 degrees.")}},
			o:      Observed{Final: "Sunny.\n19 degrees."},
			want: []Result{{Name: "final", Message: `final: want text equal to "Sunny.\n21 degrees.", got "Sunny.\n19 degrees."`,
				Diff: "  Sunny.\n- 21 degrees. (no newline at end)\n+ 19 degrees. (no newline at end)\n"}},
		},
		{
			name:   "final-bad-regex",
			reason: "a regex RE2 cannot compile fails with the compiler's error",
			e:      Expect{Final: &TextMatch{Regex: `a(b`}},
			o:      Observed{Final: "ab"},
			want:   []Result{{Name: "final", Message: "final: regex \"a(b\": error parsing regexp: missing closing ): `a(b`"}},
		},
		{
			name:   "structured-missing",
			reason: "no structured_response key fails",
			e:      Expect{StructuredResponse: &StructuredExpect{Values: engine.NewObject("city", "Paris")}},
			o:      Observed{},
			want:   []Result{{Name: "structured_response", Message: "structured_response: the run set no structured_response"}},
		},
		{
			name:   "structured-pass",
			reason: "a response valid for the schema with the expected values as a subset passes; 21.5 compares as a number",
			e:      Expect{StructuredResponse: &StructuredExpect{Schema: weatherSchema, Values: engine.NewObject("temp", jnum("21.50"), "tags", []any{"sunny", "warm"})}},
			o:      Observed{Structured: structured, HasStructured: true},
			want:   []Result{{Name: "structured_response", Passed: true}},
		},
		{
			name:   "structured-schema",
			reason: "a response the schema rejects fails with the validator's reason on one line",
			e:      Expect{StructuredResponse: &StructuredExpect{Schema: weatherSchema}},
			o:      Observed{Structured: engine.NewObject("city", "Paris"), HasStructured: true},
			want:   []Result{{Name: "structured_response", Message: "structured_response: does not match the schema: at '': missing property 'temp'"}},
		},
		{
			name:   "structured-values",
			reason: "a value that differs is named by its path, and the diff shows the response cut to the expected keys",
			e:      Expect{StructuredResponse: &StructuredExpect{Values: engine.NewObject("city", "Lyon", "tags", []any{"sunny", "warm"})}},
			o:      Observed{Structured: structured, HasStructured: true},
			want: []Result{{Name: "structured_response", Message: `structured_response: at $.city: want "Lyon", got "Paris"`,
				Diff: "  {\n-   \"city\": \"Lyon\",\n+   \"city\": \"Paris\",\n    \"tags\": [\n      \"sunny\",\n      \"warm\"\n    ]\n  }\n"}},
		},
		{
			name:   "structured-list-length",
			reason: "lists match element-wise and must have the same length",
			e:      Expect{StructuredResponse: &StructuredExpect{Values: engine.NewObject("tags", []any{"sunny"})}},
			o:      Observed{Structured: structured, HasStructured: true},
			want: []Result{{Name: "structured_response", Message: `structured_response: at $.tags: want a list of 1, got 2`,
				Diff: "  {\n    \"tags\": [\n-     \"sunny\"\n+     \"sunny\",\n+     \"warm\"\n    ]\n  }\n"}},
		},
		{
			name:   "interrupts-none-expected",
			reason: "interrupts: [] asserts that none was raised",
			e:      Expect{Interrupts: &[]any{}},
			o:      Observed{Interrupts: []any{hitlPayload("send_email", "Paris")}},
			want: []Result{{Name: "interrupts", Message: "interrupts: want 0 interrupts, got 1",
				Diff: "- []\n+ [\n+   {\n+     \"action_requests\": [\n+       {\n+         \"name\": \"send_email\",\n+         \"args\": {\n+           \"city\": \"Paris\"\n+         },\n+         \"description\": \"Tool execution requires approval\"\n+       }\n+     ],\n+     \"review_configs\": [\n+       {\n+         \"action_name\": \"send_email\",\n+         \"allowed_decisions\": [\n+           \"approve\",\n+           \"edit\",\n+           \"reject\"\n+         ]\n+       }\n+     ]\n+   }\n+ ]\n"}},
		},
		{
			name:   "interrupts-hitl-subset",
			reason: "a HITL payload matches on the keys given, down into the action requests",
			e: Expect{Interrupts: &[]any{engine.NewObject("action_requests", []any{
				engine.NewObject("name", "send_email", "args", engine.NewObject("city", "Paris")),
			})}},
			o:    Observed{Interrupts: []any{hitlPayload("send_email", "Paris")}},
			want: []Result{{Name: "interrupts", Passed: true}},
		},
		{
			name:   "interrupts-differ",
			reason: "the message names the interrupt and the path of the difference",
			e: Expect{Interrupts: &[]any{engine.NewObject("action_requests", []any{
				engine.NewObject("args", engine.NewObject("city", "Lyon")),
			})}},
			o: Observed{Interrupts: []any{hitlPayload("send_email", "Paris")}},
			want: []Result{{Name: "interrupts", Message: `interrupts: interrupt 1: at $.action_requests[0].args.city: want "Lyon", got "Paris"`,
				Diff: "  [\n    {\n      \"action_requests\": [\n        {\n          \"args\": {\n-           \"city\": \"Lyon\"\n+           \"city\": \"Paris\"\n          }\n        }\n      ]\n    }\n  ]\n"}},
		},
		{
			name:   "interrupts-scalar",
			reason: "a plain interrupt(value) payload compares as a value",
			e:      Expect{Interrupts: &[]any{"approve?", "really?"}},
			o:      Observed{Interrupts: []any{"approve?"}},
			want: []Result{{Name: "interrupts", Message: "interrupts: want 2 interrupts, got 1",
				Diff: "  [\n-   \"approve?\",\n-   \"really?\"\n+   \"approve?\"\n  ]\n"}},
		},
		{
			name:   "limits",
			reason: "a limit holds at equality and fails above it, saying how much was used",
			e:      Expect{MaxModelCalls: expPtr(3), MaxToolCalls: expPtr(1), MaxSteps: expPtr(7), MaxTokens: expPtr(100)},
			o:      Observed{Usage: Usage{ModelCalls: 3, ToolCalls: 2, Steps: 7, TotalTokens: 250}},
			want: []Result{
				{Name: "max_model_calls", Passed: true},
				{Name: "max_tool_calls", Message: "max_tool_calls: 2 tool calls, want at most 1"},
				{Name: "max_steps", Passed: true},
				{Name: "max_tokens", Message: "max_tokens: 250 tokens, want at most 100"},
			},
		},
		{
			name:   "cost-over",
			reason: "a known cost above the limit fails",
			e:      Expect{MaxCost: expPtr(0.01)},
			o:      Observed{Usage: Usage{CostUSD: 0.0125, CostKnown: true}},
			want:   []Result{{Name: "max_cost", Message: "max_cost: cost $0.0125, want at most $0.01"}},
		},
		{
			name:   "cost-unknown",
			reason: "an unknown cost cannot be checked and fails",
			e:      Expect{MaxCost: expPtr(1.0)},
			o:      Observed{Usage: Usage{CostUSD: 0, CostKnown: false}},
			want:   []Result{{Name: "max_cost", Message: "max_cost: cost unknown: a model's price is not in the price table"}},
		},
		{
			name:   "cost-pass",
			reason: "a known cost within the limit passes",
			e:      Expect{MaxCost: expPtr(0.01)},
			o:      Observed{Usage: Usage{CostUSD: 0.01, CostKnown: true}},
			want:   []Result{{Name: "max_cost", Passed: true}},
		},
		{
			name:   "error-succeeded",
			reason: "an expected error that did not happen fails",
			e:      Expect{Error: &ErrorExpect{Type: "GraphRecursionError"}},
			want:   []Result{{Name: "error", Message: "error: expected an error (GraphRecursionError), the run succeeded"}},
		},
		{
			name:   "error-matches",
			reason: "the kind compares with engine.ErrorKind and the text with the unwrapped message",
			e:      Expect{Error: &ErrorExpect{Type: "GraphRecursionError", Contains: "Recursion limit of 25"}},
			o:      Observed{Err: recursion},
			want:   []Result{{Name: "error", Passed: true}},
		},
		{
			name:   "error-contains-wrapping",
			reason: "Contains may also match the context the engine wraps around the message",
			e:      Expect{Error: &ErrorExpect{Contains: "step 25"}},
			o:      Observed{Err: recursion},
			want:   []Result{{Name: "error", Passed: true}},
		},
		{
			name:   "error-differs",
			reason: "a different error says what was wanted and what came",
			e:      Expect{Error: &ErrorExpect{Type: "ValueError", Contains: "bad input"}},
			o:      Observed{Err: recursion},
			want: []Result{{Name: "error", Message: `error: want a ValueError and an error containing "bad input", ` +
				`got GraphRecursionError: "Recursion limit of 25 reached without hitting a stop condition."`}},
		},
		{
			name:   "field-order",
			reason: "entries come in Expect's field order, and a failed run still has its other fields checked",
			e: Expect{
				Error: &ErrorExpect{}, MaxCost: expPtr(1.0), MaxTokens: expPtr(1), MaxSteps: expPtr(1), MaxToolCalls: expPtr(1), MaxModelCalls: expPtr(1),
				Interrupts: &[]any{}, StructuredResponse: &StructuredExpect{}, Final: &TextMatch{}, Trajectory: &Trajectory{},
				Golden: true, Streamed: &[]StreamedExpect{},
			},
			o: Observed{Err: errors.New("boom"), HasStructured: true, Usage: Usage{CostKnown: true}},
			want: []Result{
				{Name: "trajectory", Passed: true}, {Name: "final", Passed: true}, {Name: "structured_response", Passed: true},
				{Name: "interrupts", Passed: true}, {Name: "max_model_calls", Passed: true}, {Name: "max_tool_calls", Passed: true},
				{Name: "max_steps", Passed: true}, {Name: "max_tokens", Passed: true}, {Name: "max_cost", Passed: true},
				{Name: "error", Passed: true}, {Name: "streamed", Passed: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := CheckExpect(tt.e, &tt.o)
			if diff := cmp.Diff(tt.want, got, passFailScores); diff != "" {
				t.Errorf("CheckExpect(%s) mismatch (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

func TestCheckExpectNilObserved(t *testing.T) {
	t.Parallel()
	got := CheckExpect(Expect{Final: &TextMatch{Contains: []string{"x"}}}, nil)
	want := []Result{{Name: "final", Message: `final: want text containing "x", got ""`}}
	if diff := cmp.Diff(want, got, passFailScores); diff != "" {
		t.Errorf("CheckExpect(nil) mismatch (-want +got):\n%s", diff)
	}
}

func TestQuoteTextCuts(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("aé", 100) // byte 200 is inside an é
	got := quoteText(long)
	want := `"` + long[:199] + `"... (300 bytes)`
	if diff := cmp.Diff(want, got, passFailScores); diff != "" {
		t.Errorf("quoteText mismatch (-want +got):\n%s", diff)
	}
}
