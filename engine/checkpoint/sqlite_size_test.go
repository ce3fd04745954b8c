package checkpoint_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/checkpoint/checkpointtest"
)

// agentThread writes a ReAct thread to a SQLite checkpointer the way the
// engine does for a version-2 agent: every superstep appends one message
// (an AI message with a tool call, then its tool message), bumps the
// versions of what it changed, sets ListPrefix, and, after an AI message,
// holds the tool call as a Send carrying the state in the task channel and
// in the task's pending writes.
type agentThread struct {
	s      *checkpoint.SQLite
	thread string
	msgs   engine.MessageList
	parent string
	step   int
}

// newAgentThread puts a first checkpoint holding n messages.
func newAgentThread(tb testing.TB, s *checkpoint.SQLite, thread string, n int) *agentThread {
	tb.Helper()
	a := &agentThread{s: s, thread: thread, msgs: engine.NewMessageList(checkpointtest.SampleMessages(n)...)}
	cp := &engine.Checkpoint{V: 4, ChannelValues: map[string]any{"messages": a.msgs}, ChannelVersions: map[string]int64{"messages": 1}, VersionsSeen: map[string]map[string]int64{}}
	put, err := s.Put(context.Background(), engine.CheckpointConfig{ThreadID: thread}, cp, engine.CheckpointMetadata{Source: "input", Step: -1})
	if err != nil {
		tb.Fatal(err)
	}
	a.parent = put.CheckpointID
	return a
}

// stepLists are the message lists of one superstep: the checkpoint's,
// and the one in its pending write (the checkpoint's plus one message).
type stepLists struct {
	msgs, withNext engine.MessageList
}

// lists returns the lists of the superstep after prev: prev plus message i
// (an AI message with a call, then a tool message, alternately, the same
// whatever the thread's length), each sharing prev's messages as the
// messages channel's lists do.
func lists(prev engine.MessageList, i int) stepLists {
	msg := checkpointtest.SampleMessage(1 + i%2)
	msg.ID = fmt.Sprint("step-", i)
	msgs := prev.Append(msg)
	next := checkpointtest.SampleMessage(1)
	next.ID = fmt.Sprint("write-", i)
	return stepLists{msgs: msgs, withNext: msgs.Append(next)}
}

// superstep puts the checkpoint of one superstep and its task's writes.
func (a *agentThread) superstep(ctx context.Context, l stepLists) error {
	a.step++
	prev := a.msgs
	a.msgs = l.msgs
	msg, _ := l.msgs.Last()
	v := int64(a.step + 1)
	cp := &engine.Checkpoint{
		V:               4,
		TS:              "2025-11-01T00:00:00Z",
		ChannelValues:   map[string]any{"messages": a.msgs, "remaining_steps": 25},
		ChannelVersions: map[string]int64{"messages": v, "remaining_steps": 1, "branch:to:agent": v},
		VersionsSeen:    map[string]map[string]int64{"agent": {"messages": v - 1}, "tools": {"__pregel_tasks": v - 1}},
		UpdatedChannels: []string{"messages"},
		ListPrefix:      map[string]int{"messages": prev.Len()},
	}
	state := engine.State{"messages": a.msgs, "remaining_steps": 25}
	if msg.Type == engine.TypeAI {
		cp.ChannelValues["__pregel_tasks"] = []any{engine.Send{Node: "tools", Arg: engine.ToolCallWithContext{Call: msg.ToolCalls[0], State: state}}}
		cp.ChannelVersions["__pregel_tasks"] = v
	} else {
		cp.ChannelValues["branch:to:agent"] = nil
	}
	put, err := a.s.Put(ctx, engine.CheckpointConfig{ThreadID: a.thread, CheckpointID: a.parent}, cp, engine.CheckpointMetadata{Source: "loop", Step: a.step, Parents: map[string]string{}})
	if err != nil {
		return err
	}
	a.parent = put.CheckpointID
	next, _ := l.withNext.Last()
	writes := []engine.PendingWrite{
		{Channel: "messages", Value: []engine.Message{next}},
		{Channel: "__pregel_tasks", Value: engine.Send{Node: "tools", Arg: engine.ToolCallWithContext{Call: next.ToolCalls[0], State: engine.State{"messages": l.withNext, "remaining_steps": 24}}}},
	}
	return a.s.PutWrites(ctx, put, writes, fmt.Sprint("task-", a.step))
}

// perStep runs steps supersteps on a thread of n messages and returns the
// payload bytes and pages written per superstep.
func perStep(tb testing.TB, n, steps int) (bytes, pages float64) {
	tb.Helper()
	ctx := context.Background()
	s := openSQLite(tb, checkpoint.SQLiteOptions{})
	a := newAgentThread(tb, s, "t", n)
	before, err := s.Stats()
	if err != nil {
		tb.Fatal(err)
	}
	for i := range steps {
		if err := a.superstep(ctx, lists(a.msgs, i)); err != nil {
			tb.Fatal(err)
		}
	}
	after, err := s.Stats()
	if err != nil {
		tb.Fatal(err)
	}
	return float64(after.PayloadBytes-before.PayloadBytes) / float64(steps), float64(after.PagesWritten-before.PagesWritten) / float64(steps)
}

// TestSQLiteBytesPerStepStayFlat: a superstep on a thread of 10,000
// messages writes at most twice the bytes of one on a thread of 10
// (the "state cost per step stays flat as the thread grows").
func TestSQLiteBytesPerStepStayFlat(t *testing.T) {
	t.Parallel()
	const steps = 40
	small, smallPages := perStep(t, 10, steps)
	large, largePages := perStep(t, 10000, steps)
	t.Logf("per superstep: %.0f bytes, %.1f pages at 10 messages; %.0f bytes, %.1f pages at 10,000", small, smallPages, large, largePages)
	if large > 2*small {
		t.Errorf("a superstep writes %.0f bytes at 10,000 messages, more than twice the %.0f at 10", large, small)
	}
	if largePages > 2*smallPages {
		t.Errorf("a superstep writes %.1f pages at 10,000 messages, more than twice the %.1f at 10", largePages, smallPages)
	}
}

// BenchmarkSQLitePut measures one superstep of a version-2 agent (a Put
// and the task's PutWrites, see agentThread) on threads of 10 to 10,000
// messages, and reports the payload bytes and database pages it writes.
// The thread forks back to its first checkpoint every 10 steps so its
// length stays within 10 of n; the message lists of those 10 steps are
// made before the clock starts (building them is the engine's work, not
// the checkpointer's).
func BenchmarkSQLitePut(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			ctx := context.Background()
			s := openSQLite(b, checkpoint.SQLiteOptions{})
			a := newAgentThread(b, s, "t", n)
			root, base, baseStep := a.parent, a.msgs, a.step
			var segment []stepLists
			for j := range 10 {
				prev := base
				if j > 0 {
					prev = segment[j-1].msgs
				}
				segment = append(segment, lists(prev, j))
			}
			before, err := s.Stats()
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				if i%10 == 0 {
					a.parent, a.msgs, a.step = root, base, baseStep+i
				}
				if err := a.superstep(ctx, segment[i%10]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			after, err := s.Stats()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(after.PayloadBytes-before.PayloadBytes)/float64(i), "B/step")
			b.ReportMetric(float64(after.PagesWritten-before.PagesWritten)/float64(i), "pages/step")
		})
	}
}
