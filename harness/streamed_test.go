package harness

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/engine"
)

// chunkOf is a "messages" chunk of message id with text, produced by the
// task taskNS ("node:id", levels joined by "|") at step, with a pull path
// (push when push ≥ 0).
func chunkOf(taskNS string, step, push int, id, text string) streamedChunk {
	levels := strings.Split(taskNS, "|")
	node, _, _ := strings.Cut(levels[len(levels)-1], ":")
	path := []any{"__pregel_pull", node}
	if push >= 0 {
		path = []any{"__pregel_push", json.Number(fmt.Sprint(push))}
	}
	meta := engine.NewObject("langgraph_step", json.Number(fmt.Sprint(step)), "langgraph_node", node, "langgraph_path", path,
		"langgraph_checkpoint_ns", taskNS, "checkpoint_ns", taskNS)
	var ns []string
	if len(levels) > 1 {
		ns = levels[:len(levels)-1]
	}
	return streamedChunk{ns: ns, chunk: engine.MessageChunk{Message: engine.Message{Type: engine.TypeAI, ID: id, Content: engine.Text(text)}, Metadata: meta}}
}

// TestStreamedMessagesOrder: chunks are gathered per task and message,
// and messages are ordered by their tasks as the graph orders them, not
// by which parallel task streamed first.
func TestStreamedMessagesOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		chunks []streamedChunk
		pos    map[string]taskPos
		want   []string
	}{
		{
			name:   "parallel-tasks-by-checkpoint",
			reason: "two tool tasks of one step that finished in reverse order come in the order the checkpoint lists them",
			chunks: []streamedChunk{
				chunkOf("agent:a1", 1, -1, "ai1", "Check"), chunkOf("agent:a1", 1, -1, "ai1", "ing"),
				chunkOf("tools:t2", 2, 1, "tm2", "rainy"), chunkOf("tools:t1", 2, 0, "tm1", "sunny"),
				chunkOf("agent:a3", 3, -1, "ai2", "Done"),
			},
			pos:  map[string]taskPos{"a1": {1, 0}, "t1": {2, 0}, "t2": {2, 1}, "a3": {3, 0}},
			want: []string{`agent ["Check" "ing"]`, `tools ["sunny"]`, `tools ["rainy"]`, `agent ["Done"]`},
		},
		{
			name:   "parallel-tasks-by-path",
			reason: "without checkpoints (no checkpointer) the tasks of a step are ordered by langgraph_path, push tasks by index",
			chunks: []streamedChunk{
				chunkOf("tools:t11", 2, 11, "tm11", "b"), chunkOf("tools:t2", 2, 2, "tm2", "a"),
			},
			want: []string{`tools ["a"]`, `tools ["b"]`},
		},
		{
			name:   "one-task-keeps-its-order",
			reason: "the messages of one task (a model call and then a message the node wrote) keep the order they streamed in",
			chunks: []streamedChunk{
				chunkOf("agent:a1", 1, -1, "ai1", "x"), chunkOf("agent:a1", 1, -1, "n1", "y"), chunkOf("agent:a1", 1, -1, "ai1", "z"),
			},
			pos:  map[string]taskPos{"a1": {1, 0}},
			want: []string{`agent ["x" "z"]`, `agent ["y"]`},
		},
		{
			name:   "subgraph-levels",
			reason: "a subgraph's messages are ordered by its parent task first, then by its own tasks; its parent node's own message comes after them",
			chunks: []streamedChunk{
				chunkOf("writer:w|model:m1", 1, -1, "ai3", "draft"),
				chunkOf("researcher:r|tools:t1", 2, 0, "tm1", "found"),
				chunkOf("researcher:r|agent:a1", 1, -1, "ai1", "search"),
				chunkOf("researcher:r", 1, -1, "h1", "note"),
			},
			pos:  map[string]taskPos{"r": {1, 0}, "w": {2, 0}, "a1": {1, 0}, "t1": {2, 0}, "m1": {1, 0}},
			want: []string{`researcher › agent ["search"]`, `researcher › tools ["found"]`, `researcher ["note"]`, `writer › model ["draft"]`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, m := range streamedMessages(0, tt.chunks, tt.pos) {
				where := m.Node
				if p := m.Path(); p != "" {
					where = p + " › " + where
				}
				got = append(got, fmt.Sprintf("%s %q", where, m.Pieces()))
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("streamedMessages(%s) mismatch (-want +got):\n%s\n(%s)", tt.name, d, tt.reason)
			}
		})
	}
}
