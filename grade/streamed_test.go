package grade

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/engine"
)

// streamedAI is an AI message streamed by node in the chunks' texts, the
// calls on the last chunk.
func streamedAI(node string, ns []string, pieces []string, calls ...string) Streamed {
	s := Streamed{Node: node, Namespace: ns}
	for i, p := range pieces {
		c := engine.Message{Type: engine.TypeAI, ID: "ai1", Content: engine.Text(p)}
		if i == len(pieces)-1 {
			for _, name := range calls {
				c.ToolCalls = append(c.ToolCalls, engine.ToolCall{Name: name, Args: engine.NewObject(), ID: "c_" + name})
			}
		}
		s.Chunks = append(s.Chunks, c)
	}
	return s
}

func TestCheckStreamed(t *testing.T) {
	t.Parallel()
	answer := streamedAI("agent", nil, []string{"It i", "s su", "nny."})
	call := streamedAI("agent", []string{"researcher:1f0c"}, []string{""}, "search")
	tool := Streamed{Node: "tools", Chunks: []engine.Message{{Type: engine.TypeTool, ID: "t1", Content: engine.Text("sunny"), ToolCallID: "c1"}}}
	tests := []struct {
		name   string
		reason string
		want   []StreamedExpect
		got    []Streamed
		result Result
	}{
		{
			name:   "all-fields-hold",
			reason: "every field an entry sets holds, in order",
			want: []StreamedExpect{
				{Node: "agent", Namespace: expPtr("researcher"), Type: "ai", ToolCalls: &[]string{"search"}, Chunks: expPtr(1)},
				{Node: "tools", Type: "tool", ID: "t1", Text: &TextMatch{Equals: expPtr("sunny")}},
				{Namespace: expPtr(""), Text: &TextMatch{Contains: []string{"sunny"}}, Chunks: expPtr(3), Pieces: []string{"It i", "s su", "nny."}, ToolCalls: &[]string{}},
			},
			got:    []Streamed{call, tool, answer},
			result: Result{Name: "streamed", Passed: true},
		},
		{
			name:   "none-expected",
			reason: `"streamed: []" passes when nothing was streamed`,
			want:   []StreamedExpect{},
			result: Result{Name: "streamed", Passed: true},
		},
		{
			name:   "chunk-boundaries",
			reason: "the same text broken elsewhere fails pieces, and the message names the pieces and the message",
			want:   []StreamedExpect{{Text: &TextMatch{Equals: expPtr("It is sunny.")}, Pieces: []string{"It is ", "sunny."}}},
			got:    []Streamed{answer},
			result: Result{Name: "streamed",
				Message: `streamed: message 1 (ai ai1 from agent): pieces ["It i" "s su" "nny."], want ["It is " "sunny."]`,
				Diff:    "- text=\"It is sunny.\" pieces=[\"It is \" \"sunny.\"]\n+ text=\"It is sunny.\" pieces=[\"It i\" \"s su\" \"nny.\"]\n"},
		},
		{
			name:   "several-failures",
			reason: "every failed field of the first failing entry is named, the subgraph with the node",
			want:   []StreamedExpect{{Node: "tools", Namespace: expPtr(""), Chunks: expPtr(2)}},
			got:    []Streamed{call},
			result: Result{Name: "streamed",
				Message: `streamed: message 1 (ai ai1 from researcher › agent): node "agent", want "tools"; namespace "researcher", want ""; 1 chunk, want 2`,
				Diff:    "- namespace=\"\" node=tools chunks=2\n+ namespace=\"researcher\" node=agent chunks=1\n"},
		},
		{
			name:   "count",
			reason: "more messages than entries: the extra ones show in full in the diff",
			want:   []StreamedExpect{{Type: "ai"}},
			got:    []Streamed{call, tool},
			result: Result{Name: "streamed",
				Message: "streamed: want 1 streamed message, got 2",
				Diff:    "  type=ai\n+ namespace=\"\" node=tools type=tool chunks=1 pieces=[\"sunny\"] tool_calls=[]\n"},
		},
		{
			name:   "text-match",
			reason: "text is a TextMatch: its failure reads like final's, without the prefix",
			want:   []StreamedExpect{{Text: &TextMatch{NotContains: []string{"sun"}}}},
			got:    []Streamed{answer},
			result: Result{Name: "streamed",
				Message: `streamed: message 1 (ai ai1 from agent): want text not containing "sun", got "It is sunny."`,
				Diff:    "- text={not_contains [\"sun\"]}\n+ text=\"It is sunny.\"\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := CheckExpect(Expect{Streamed: &tt.want}, &Observed{Streamed: tt.got})
			if diff := cmp.Diff([]Result{tt.result}, got, passFailScores); diff != "" {
				t.Errorf("CheckExpect(streamed %s) mismatch (-want +got):\n%s\n(%s)", tt.name, diff, tt.reason)
			}
		})
	}
}
