package engine_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"pgregory.net/rapid"
)

// inputListGraph is a graph without a checkpointer that runs two nodes
// over its "messages" key. Each node appends a message without an ID and,
// depending on the list's length, also replaces or removes one of the
// messages it was given, so the run looks IDs up in the input's list.
func inputListGraph(t interface{ Fatalf(string, ...any) }) *engine.Graph {
	node := func(name string) engine.NodeFunc {
		return func(_ context.Context, s engine.State) (any, error) {
			msgs := s.Messages("messages")
			out := []engine.Message{engine.AIMessage(fmt.Sprintf("%s saw %d", name, len(msgs)))}
			if len(msgs) > 0 {
				switch m := msgs[len(msgs)/2]; len(msgs) % 3 {
				case 0:
					m.Content = engine.Text(name + " replaced this")
					out = append(out, m)
				case 1:
					out = append(out, engine.RemoveMessage(m.ID))
				}
			}
			return engine.State{"messages": out}, nil
		}
	}
	g := engine.NewStateGraph(engine.MessagesField("messages"))
	g.AddNode("a", node("a")).AddNode("b", node("b"))
	g.AddEdge(engine.Start, "a").AddEdge("a", "b").AddEdge("b", engine.End)
	c, err := g.Compile(engine.CompileOptions{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return c
}

// plainInput is the input {"messages": msgs} with the list as a []any:
// the same JSON (so the same seed and IDs), but not a message list the
// seed cache remembers, so the run takes the plain path (normalizeWrite,
// the channel's add message by message).
func plainInput(msgs []engine.Message) engine.State {
	list := make([]any, len(msgs))
	for i, m := range msgs {
		list[i] = m
	}
	return engine.State{"messages": list}
}

// renderRun is a run's messages as comparable lines: type, ID, text.
func renderRun(res *engine.Result, err error) []string {
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	var out []string
	for _, m := range res.Values.Messages("messages") {
		out = append(out, fmt.Sprintf("%s %s %q", m.Type, m.ID, m.Text()))
	}
	return out
}

// TestPropLongInputRunsAsOnAFreshGraph: a graph without a checkpointer
// remembers the long message lists its runs were given (seed cache) and
// lets a run's channel take over its normalized input list with the
// remembered ID index (listHint). Whatever a sequence of runs does to the
// list between runs (the same list again, a longer one, a copy, a message
// replaced in place, a cut, an ID twice, a removal, messages without an
// ID), every run's result must be the one a freshly compiled graph gives
// for the same input on the plain path (plainInput): same messages, same
// IDs.
func TestPropLongInputRunsAsOnAFreshGraph(t *testing.T) {
	rapid.Check(t, propLongInputRunsAsOnAFreshGraph)
}

func FuzzLongInputRunsAsOnAFreshGraph(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propLongInputRunsAsOnAFreshGraph))
}

func propLongInputRunsAsOnAFreshGraph(t *rapid.T) {
	ctx := context.Background()
	shared := inputListGraph(t)
	serial := 0
	// one message in withoutID comes without an ID (none when 0)
	withoutID := rapid.SampledFrom([]int{0, 10, 3}).Draw(t, "one in n without an ID")
	newMsg := func() engine.Message {
		serial++
		m := engine.HumanMessage(fmt.Sprintf("message %d", serial))
		if withoutID == 0 || rapid.IntRange(1, withoutID).Draw(t, "no id") > 1 {
			m.ID = fmt.Sprintf("m%d", serial)
		}
		return m
	}
	var msgs []engine.Message
	for range rapid.IntRange(60, 200).Draw(t, "prefill") {
		msgs = append(msgs, newMsg())
	}
	for range rapid.IntRange(1, 8).Draw(t, "runs") {
		switch rapid.IntRange(0, 7).Draw(t, "op") {
		case 0, 1: // a turn: the thread grows
			for range rapid.IntRange(1, 80).Draw(t, "new") {
				msgs = append(msgs, newMsg())
			}
		case 2: // a copy in a new array
			msgs = slices.Clone(msgs)
		case 3: // a message replaced in place
			msgs[rapid.IntRange(0, len(msgs)-1).Draw(t, "at")] = newMsg()
		case 4: // cut back and grow differently
			msgs = msgs[:rapid.IntRange(1, len(msgs)).Draw(t, "cut")]
			for range rapid.IntRange(0, 8).Draw(t, "new") {
				msgs = append(msgs, newMsg())
			}
		case 5: // an ID twice
			i, j := rapid.IntRange(0, len(msgs)-1).Draw(t, "at"), rapid.IntRange(0, len(msgs)-1).Draw(t, "same id as")
			msgs[i].ID = msgs[j].ID
		case 6: // a removal in the input
			msgs = append(msgs, engine.RemoveMessage(msgs[rapid.IntRange(0, len(msgs)-1).Draw(t, "removed")].ID))
		default: // the same list again
		}
		input := engine.State{"messages": msgs}
		got := renderRun(shared.Invoke(ctx, input, engine.Config{}))
		want := renderRun(inputListGraph(t).Invoke(ctx, plainInput(msgs), engine.Config{}))
		if !slices.Equal(got, want) {
			t.Fatalf("run on the shared graph:\n got %q\nwant %q", got, want)
		}
	}
}

// TestLongInputConcurrentRuns: runs of one graph given the same long list
// at the same time share its seed entry and ID index; each gets what the
// plain path gives (run with -race).
func TestLongInputConcurrentRuns(t *testing.T) {
	ctx := context.Background()
	var msgs []engine.Message
	for i := range 300 {
		m := engine.HumanMessage(fmt.Sprintf("message %d", i))
		m.ID = fmt.Sprintf("m%d", i)
		msgs = append(msgs, m)
	}
	msgs = append(msgs, engine.HumanMessage("no id yet"))
	input := engine.State{"messages": msgs}
	want := renderRun(inputListGraph(t).Invoke(ctx, plainInput(msgs), engine.Config{}))
	shared := inputListGraph(t)
	var wg sync.WaitGroup
	results := make([][]string, 8)
	for i := range results {
		wg.Go(func() {
			for range 3 {
				results[i] = renderRun(shared.Invoke(ctx, input, engine.Config{}))
			}
		})
	}
	wg.Wait()
	for i, got := range results {
		if !slices.Equal(got, want) {
			t.Errorf("run %d on the shared graph:\n got %q\nwant %q", i, got, want)
		}
	}
}
