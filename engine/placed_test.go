package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// keepSaver keeps what a run puts, as Memory does: checkpoints and the
// writes' values as they are. It loads nothing (every run starts a new
// thread).
type keepSaver struct {
	mu     sync.Mutex
	cps    []*Checkpoint
	writes []PendingWrite
}

func (s *keepSaver) GetTuple(context.Context, CheckpointConfig) (*CheckpointTuple, error) {
	return nil, nil
}

func (s *keepSaver) List(context.Context, CheckpointConfig, ListOptions) ([]*CheckpointTuple, error) {
	return nil, nil
}

func (s *keepSaver) Put(_ context.Context, cfg CheckpointConfig, cp *Checkpoint, _ CheckpointMetadata) (CheckpointConfig, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cp.ID == "" {
		cp.ID = fmt.Sprintf("cp%03d", len(s.cps))
	}
	s.cps = append(s.cps, cp)
	cfg.CheckpointID = cp.ID
	return cfg, nil
}

func (s *keepSaver) PutWrites(_ context.Context, _ CheckpointConfig, writes []PendingWrite, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, writes...)
	return nil
}

// TestPlacedMessagesShareTheThread: with a saver, the prebuilt agent's
// model and tools nodes put the message they write where the messages
// channel appends next (reserveMessage), and the write the saver keeps
// holds the very message of the thread's list, not a copy beside it
// (256 bytes a message in W3). On a graph's third run (the size hint
// makes its thread one array with room for every message) every
// one-message write of a lone task shares, in every stream mode but
// updates, which shows the list as the node wrote it (none shares);
// tool tasks that run at once put nothing in place. Either way the
// writes read back as the thread's messages. Mutants: reserveMessage
// returning nil, or takePlaced always clipping (nothing shares);
// reserveMessage without its single-task condition (two tool tasks put
// their answers in one place: a tool message is lost, and -race reports
// the writes). The channel property checks that nothing changes a kept
// write (its case 9).
func TestPlacedMessagesShareTheThread(t *testing.T) {
	for _, tc := range []struct {
		name  string
		modes []StreamMode
		// calls is the number of tool calls per turn
		calls int
		// shared is how many of the k+1 answers and k*calls tool
		// messages (one write each) share their message with the thread
		shared int
		reason string
	}{
		{"invoke", nil, 1, 13, "the kept writes are the nodes' lists, in place in the thread"},
		{"updates streamed", []StreamMode{StreamUpdates}, 1, 0, "the streamed list is as the node wrote it: the thread holds a copy"},
		{"messages streamed", []StreamMode{StreamMessages, StreamValues}, 1, 13, "tasks run on their own goroutines (-race), the streamed messages are copies"},
		{"debug streamed", []StreamMode{StreamDebug}, 1, 13, "task results show the kept lists, which nothing writes again"},
		{"two calls a turn", nil, 2, 7, "two tool tasks run at once: only the model's answers are put in place"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const k = 6
			model := ChatModelFunc(func(_ context.Context, req ModelRequest) (Message, error) {
				done := 0
				for _, m := range req.Messages.All() {
					if m.Type == TypeTool {
						done++
					}
				}
				if done >= k*tc.calls {
					return AIMessage("done"), nil
				}
				var calls []ToolCall
				for i := range tc.calls {
					calls = append(calls, ToolCall{Name: "t", Args: NewObject("i", done+i), ID: fmt.Sprintf("c%d", done+i)})
				}
				return AIMessage("", calls...), nil
			})
			tool := NewTool(ToolDef{Name: "t", Description: "echo", Parameters: NewObject("type", "object")},
				func(context.Context, ToolInvocation) (any, error) { return "ok", nil })
			saver := &keepSaver{}
			agent, err := CreateReactAgent(ReactAgentConfig{Model: model, Tools: []Tool{tool}, Checkpointer: saver})
			if err != nil {
				t.Fatal(err)
			}
			var thread MessageList
			for run := range 3 {
				saver.cps, saver.writes = nil, nil
				cfg := Config{ThreadID: fmt.Sprint("t", run)}
				input := State{"messages": []any{"go"}}
				if tc.modes != nil {
					for _, err := range agent.Stream(context.Background(), input, cfg, tc.modes...) {
						if err != nil {
							t.Fatal(err)
						}
					}
				} else if _, err := agent.Invoke(context.Background(), input, cfg); err != nil {
					t.Fatal(err)
				}
				thread = saver.cps[len(saver.cps)-1].ChannelValues["messages"].(MessageList)
			}
			if got, want := thread.Len(), 2+k+k*tc.calls; got != want {
				t.Fatalf("thread of %d messages, want %d", got, want)
			}
			// where each message of the thread lies
			places := map[string]*Message{}
			for n := thread.n; n != nil; n = n.prev {
				for i := range n.items {
					places[n.items[i].ID] = &n.items[i]
				}
			}
			shared, written := 0, 0
			for _, w := range saver.writes {
				msgs, ok := w.Value.([]Message)
				if w.Channel != "messages" || !ok || len(msgs) != 1 || msgs[0].Type == TypeHuman {
					// the input's write: no node wrote it
					continue
				}
				written++
				p := places[msgs[0].ID]
				if p == nil {
					t.Fatalf("kept write %s is not in the thread", msgs[0].ID)
				}
				if got, want := renderMsgs(msgs), renderMsgs([]Message{*p}); got[0] != want[0] {
					t.Fatalf("kept write reads %v, the thread %v", got, want)
				}
				if p == &msgs[0] {
					shared++
				}
			}
			if written != k+1+k*tc.calls || shared != tc.shared {
				t.Fatalf("%d of %d one-message writes share the thread's message, want %d of %d (%s)", shared, written, tc.shared, k+1+k*tc.calls, tc.reason)
			}
		})
	}
}
