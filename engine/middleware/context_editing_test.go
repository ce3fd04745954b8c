package middleware

import (
	"context"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
)

// editView renders messages as type:content lines, with cleared tool
// inputs and editing metadata.
func editView(msgs []engine.Message) []string {
	var out []string
	for _, m := range msgs {
		s := string(m.Type) + ":" + m.Text()
		for _, tc := range m.ToolCalls {
			s += " " + tc.ID + engine.PyRepr(tc.Args)
		}
		if m.ResponseMetadata != nil {
			s += " " + engine.PyRepr(m.ResponseMetadata)
		}
		out = append(out, s)
	}
	return out
}

func toolTurn(id, name, args, result string) []engine.Message {
	return []engine.Message{
		engine.AIMessage("", engine.ToolCall{Name: name, Args: engine.NewObject("q", args), ID: id}),
		engine.ToolMessage(engine.Text(result), name, id),
	}
}

func conversation(turns ...[]engine.Message) []engine.Message {
	out := []engine.Message{engine.HumanMessage("go")}
	for _, t := range turns {
		out = append(out, t...)
	}
	return out
}

func TestClearToolUsesApply(t *testing.T) {
	t.Parallel()
	const cleared = " {'context_editing': {'cleared': True, 'strategy': 'clear_tool_uses'}}"
	long := strings.Repeat("lorem ", 40)
	three := conversation(toolTurn("c1", "fetch", "a", "A"+long), toolTurn("c2", "echo", "b", "B"), toolTurn("c3", "fetch", "c", "C"+long))
	twoCalls := []engine.Message{
		engine.HumanMessage("go"),
		engine.AIMessage("", engine.ToolCall{Name: "fetch", Args: engine.NewObject("q", "a"), ID: "c1"}, engine.ToolCall{Name: "fetch", Args: engine.NewObject("q", "b"), ID: "c2"}),
		engine.ToolMessage(engine.Text("A"), "fetch", "c1"),
		engine.ToolMessage(engine.Text("B"), "fetch", "c2"),
	}
	alreadyCleared := conversation(toolTurn("c1", "fetch", "a", "[cleared]"), toolTurn("c2", "fetch", "b", "B"+long), toolTurn("c3", "fetch", "c", "C"))
	alreadyCleared[2].ResponseMetadata = engine.NewObject("context_editing", engine.NewObject("cleared", true, "strategy", "clear_tool_uses"))
	orphan := []engine.Message{engine.HumanMessage("go"), engine.ToolMessage(engine.Text("X"), "fetch", "zz"), engine.AIMessage("done")}
	tests := []struct {
		name, reason string
		edit         ClearToolUses
		msgs         []engine.Message
		want         []string
	}{
		{
			name: "default trigger", reason: "the default trigger (100000 tokens) is far away",
			msgs: three, want: editView(three),
		},
		{
			name: "keep one", reason: "all but the newest result are cleared; arguments stay",
			edit: ClearToolUses{Trigger: 10, Keep: Messages(1)}, msgs: three,
			want: []string{"human:go", "ai: c1{'q': 'a'}", "tool:[cleared]" + cleared, "ai: c2{'q': 'b'}", "tool:[cleared]" + cleared, "ai: c3{'q': 'c'}", "tool:C" + long},
		},
		{
			name: "exclude and inputs", reason: "excluded tools keep their results; cleared calls lose their arguments",
			edit: ClearToolUses{Trigger: 10, Keep: Messages(1), ExcludeTools: []string{"echo"}, ClearToolInputs: true, Placeholder: "[gone]"}, msgs: three,
			want: []string{"human:go", "ai: c1{} {'context_editing': {'cleared_tool_inputs': ['c1']}}", "tool:[gone]" + cleared, "ai: c2{'q': 'b'}", "tool:B", "ai: c3{'q': 'c'}", "tool:C" + long},
		},
		{
			name: "keep zero", reason: "keep ('messages', 0) clears every result",
			edit: ClearToolUses{Trigger: 10, Keep: Messages(0)}, msgs: three,
			want: []string{"human:go", "ai: c1{'q': 'a'}", "tool:[cleared]" + cleared, "ai: c2{'q': 'b'}", "tool:[cleared]" + cleared, "ai: c3{'q': 'c'}", "tool:[cleared]" + cleared},
		},
		{
			name: "clear at least", reason: "clearing stops once enough tokens were reclaimed (the first result is ~60 tokens)",
			edit: ClearToolUses{Trigger: 10, Keep: Messages(0), ClearAtLeast: 30}, msgs: three,
			want: []string{"human:go", "ai: c1{'q': 'a'}", "tool:[cleared]" + cleared, "ai: c2{'q': 'b'}", "tool:B", "ai: c3{'q': 'c'}", "tool:C" + long},
		},
		{
			name: "keep characters", reason: "('tokens', n) keeps the newest results whose contents fit in n characters, at least one",
			edit: ClearToolUses{Trigger: 10, Keep: Tokens(5)}, msgs: three,
			want: []string{"human:go", "ai: c1{'q': 'a'}", "tool:[cleared]" + cleared, "ai: c2{'q': 'b'}", "tool:[cleared]" + cleared, "ai: c3{'q': 'c'}", "tool:C" + long},
		},
		{
			name: "inputs of one message", reason: "two results of one AI message: both inputs cleared, IDs listed sorted",
			edit: ClearToolUses{Trigger: 1, Keep: Messages(0), ClearToolInputs: true}, msgs: twoCalls,
			want: []string{"human:go", "ai: c1{} c2{} {'context_editing': {'cleared_tool_inputs': ['c1', 'c2']}}", "tool:[cleared]" + cleared, "tool:[cleared]" + cleared},
		},
		{
			name: "already cleared", reason: "a result cleared before is left alone",
			edit: ClearToolUses{Trigger: 10, Keep: Messages(1), Placeholder: "[again]"}, msgs: alreadyCleared,
			want: []string{"human:go", "ai: c1{'q': 'a'}", "tool:[cleared]" + cleared, "ai: c2{'q': 'b'}", "tool:[again]" + cleared, "ai: c3{'q': 'c'}", "tool:C"},
		},
		{
			name: "orphan", reason: "a tool message without the AI call it answers is not touched",
			edit: ClearToolUses{Trigger: 1, Keep: Messages(0)}, msgs: orphan, want: editView(orphan),
		},
		{
			name: "and group", reason: "an AND group needs all its sizes: 7 messages but not 10000 tokens",
			edit: ClearToolUses{Conditions: [][]ContextSize{{Messages(7), Tokens(10000)}}, Keep: Messages(0)}, msgs: three, want: editView(three),
		},
		{
			name: "or groups", reason: "any group is enough",
			edit: ClearToolUses{Conditions: [][]ContextSize{{Tokens(10000)}, {Messages(7)}}, Keep: Messages(2)}, msgs: three,
			want: []string{"human:go", "ai: c1{'q': 'a'}", "tool:[cleared]" + cleared, "ai: c2{'q': 'b'}", "tool:B", "ai: c3{'q': 'c'}", "tool:C" + long},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.edit.Validate(); err != nil {
				t.Fatal(err)
			}
			msgs := make([]engine.Message, len(tt.msgs))
			for i, m := range tt.msgs {
				msgs[i] = m.Clone()
			}
			before := editView(tt.msgs)
			tt.edit.Apply(msgs, CountTokensApproximately)
			if d := cmp.Diff(tt.want, editView(msgs)); d != "" {
				t.Errorf("Apply(%s) mismatch (-want +got) — %s:\n%s", tt.name, tt.reason, d)
			}
			if d := cmp.Diff(before, editView(tt.msgs)); d != "" {
				t.Errorf("Apply(%s) changed messages it was not given (-before +after):\n%s", tt.name, d)
			}
		})
	}
}

func TestContextEditingLeavesStateAlone(t *testing.T) {
	t.Parallel()
	c, err := NewContextEditing(ContextEditingOptions{Edits: []ContextEdit{ClearToolUses{Trigger: 1, Keep: Messages(0)}}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := conversation(toolTurn("c1", "fetch", "a", "A"))
	req := engine.AgentModelRequest{Messages: msgs}
	var seen []engine.Message
	_, err = c.WrapModelCall(context.Background(), req, func(_ context.Context, r engine.AgentModelRequest) (*engine.AgentModelResponse, error) {
		seen = r.Messages
		return &engine.AgentModelResponse{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := seen[2].Text(); got != DefaultToolPlaceholder {
		t.Errorf("the model saw %q, want the placeholder", got)
	}
	if got := msgs[2].Text(); got != "A" {
		t.Errorf("the request's (the state's) messages were edited: %q", got)
	}
}

// countingModel counts every message as 100 tokens.
type countingModel struct{ *fakeModel }

func (*countingModel) CountTokens(_ context.Context, msgs []engine.Message, _ []engine.ToolSchema) (int, error) {
	return 100 * len(msgs), nil
}

func TestContextEditingTokenCountMethod(t *testing.T) {
	t.Parallel()
	msgs := conversation(toolTurn("c1", "fetch", "a", "A"), toolTurn("c2", "fetch", "b", "B"))
	c, err := NewContextEditing(ContextEditingOptions{TokenCountMethod: CountModel, Edits: []ContextEdit{ClearToolUses{Trigger: 550, Keep: Messages(1)}}})
	if err != nil {
		t.Fatal(err)
	}
	var seen []engine.Message
	next := func(_ context.Context, r engine.AgentModelRequest) (*engine.AgentModelResponse, error) {
		seen = r.Messages
		return &engine.AgentModelResponse{}, nil
	}
	// 5 messages + the system message = 600 model tokens > 550
	sys := engine.SystemMessage("be brief")
	if _, err := c.WrapModelCall(context.Background(), engine.AgentModelRequest{Model: &countingModel{&fakeModel{}}, Messages: msgs, SystemMessage: &sys}, next); err != nil {
		t.Fatal(err)
	}
	if got := seen[2].Text(); got != DefaultToolPlaceholder {
		t.Errorf("with the system message counted the edit should run; the model saw %q", got)
	}
	_, err = c.WrapModelCall(context.Background(), engine.AgentModelRequest{Model: &fakeModel{}, Messages: msgs}, next)
	if err == nil || !strings.Contains(err.Error(), "does not count tokens") {
		t.Errorf("a model that cannot count tokens: error = %v", err)
	}
}

func TestNewContextEditingErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reason string
		opts         ContextEditingOptions
		want         string
	}{
		{"method", "only approximate and model", ContextEditingOptions{TokenCountMethod: "exact"}, `token_count_method: "exact"`},
		{"keep", "keep may not be negative", ContextEditingOptions{Edits: []ContextEdit{ClearToolUses{Keep: Messages(-1)}}}, "edits[0]: keep: values must be non-negative"},
		{"fraction", "fractions need the window", ContextEditingOptions{Edits: []ContextEdit{ClearToolUses{Keep: Fraction(0.5)}}}, "MaxInputTokens"},
		{"empty group", "an empty AND group means nothing", ContextEditingOptions{Edits: []ContextEdit{ClearToolUses{Conditions: [][]ContextSize{{}}}}}, "empty AND groups"},
		{"nil", "a nil edit cannot run", ContextEditingOptions{Edits: []ContextEdit{nil}}, "edits[0]: nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewContextEditing(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewContextEditing(%s) error = %v, want it to say %q (%s)", tt.name, err, tt.want, tt.reason)
			}
		})
	}
}
