package engine_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// editPlan is what one node of mintGraph writes: new messages without an
// ID, and edits of messages it was given, chosen by position.
type editPlan struct {
	fresh     int
	edits     []edit
	removeAll bool
	freshLast bool // the new messages after the edits
}

type edit struct {
	at     int // position in the node's list, modulo its length
	remove bool
}

// mintGraph runs one node per plan in sequence over a messages key. On
// a run without a checkpointer the messages a node writes without an ID
// get IDs the run makes up, which the channel appends without looking
// them up (mintState); the nodes after it replace and remove some of
// them by ID.
func mintGraph(t interface{ Fatalf(string, ...any) }, plans []editPlan, saver engine.Checkpointer) *engine.Graph {
	g := engine.NewStateGraph(engine.MessagesField("messages"))
	prev := engine.Start
	for i, p := range plans {
		name := fmt.Sprintf("n%d", i)
		g.AddNode(name, func(_ context.Context, s engine.State) (any, error) {
			msgs := s.Messages("messages")
			var fresh, edits []engine.Message
			for k := range p.fresh {
				fresh = append(fresh, engine.ToolMessage(engine.Text(fmt.Sprintf("%s new %d", name, k)), "t", fmt.Sprintf("c%d", k)))
			}
			for k, e := range p.edits {
				if len(msgs) == 0 {
					break
				}
				m := msgs[e.at%len(msgs)]
				if e.remove {
					edits = append(edits, engine.RemoveMessage(m.ID))
					continue
				}
				m.Content = engine.Text(fmt.Sprintf("%s edit %d of %s", name, k, m.Text()))
				edits = append(edits, m)
			}
			out := append(fresh, edits...)
			if p.freshLast {
				out = append(edits, fresh...)
			}
			if p.removeAll {
				out = append([]engine.Message{engine.RemoveMessage(engine.RemoveAllMessages)}, out...)
			}
			return engine.State{"messages": out}, nil
		})
		g.AddEdge(prev, name)
		prev = name
	}
	g.AddEdge(prev, engine.End)
	c, err := g.Compile(engine.CompileOptions{Checkpointer: saver})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return c
}

// renderShape is a run's messages without their IDs (a run with a
// checkpointer makes up other IDs), and whether its IDs are distinct.
func renderShape(res *engine.Result, err error) []string {
	if err != nil {
		return []string{"error"}
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range res.Values.Messages("messages") {
		out = append(out, fmt.Sprintf("%s %q", m.Type, m.Text()))
		if seen[m.ID] {
			out = append(out, "(its ID twice)")
		}
		seen[m.ID] = true
	}
	return out
}

// TestPropMadeUpIDsRunAsWithACheckpointer: on a run without a
// checkpointer the messages channel appends the messages its tasks wrote
// without an ID as they come (their IDs are new by construction) and
// indexes them only when a later write looks an ID up. Whatever later
// nodes do to them (replace, remove, RemoveAll, many at once, on short
// lists and long indexed ones), the result must be the one the same
// graph gives with a Memory checkpointer, whose IDs are hashed and looked
// up one by one: same messages in the same order, no ID twice.
func TestPropMadeUpIDsRunAsWithACheckpointer(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		plans := make([]editPlan, rapid.IntRange(1, 4).Draw(t, "nodes"))
		for i := range plans {
			p := &plans[i]
			p.fresh = rapid.SampledFrom([]int{0, 1, 3, 40, 150}).Draw(t, "new")
			for range rapid.IntRange(0, 6).Draw(t, "edits") {
				p.edits = append(p.edits, edit{at: rapid.IntRange(0, 1000).Draw(t, "at"), remove: rapid.IntRange(0, 3).Draw(t, "remove") == 0})
			}
			p.removeAll = rapid.IntRange(0, 9).Draw(t, "remove all") == 0
			p.freshLast = rapid.Bool().Draw(t, "new last")
		}
		var input []engine.Message
		for i := range rapid.SampledFrom([]int{0, 1, 5, 100}).Draw(t, "input length") {
			m := engine.HumanMessage(fmt.Sprintf("input %d", i))
			if rapid.IntRange(0, 4).Draw(t, "input id") > 0 {
				m.ID = fmt.Sprintf("in%d", i)
			}
			input = append(input, m)
		}
		if rapid.Bool().Draw(t, "input with many tool calls") {
			// W1's input: one AI message whose calls make the seed cache
			// keep it (the second run resumes the seed, and its channel
			// adopts the list)
			calls := make([]engine.ToolCall, 70)
			for k := range calls {
				calls[k] = engine.ToolCall{Name: "t", Args: engine.NewObject("i", k), ID: fmt.Sprintf("c%d", k)}
			}
			input = append(input, engine.AIMessage("", calls...))
		}
		in := engine.State{"messages": input}
		want := renderShape(mintGraph(t, plans, checkpoint.NewMemory()).Invoke(ctx, in, engine.Config{ThreadID: "t"}))
		g := mintGraph(t, plans, nil)
		for run := range 2 {
			got := renderShape(g.Invoke(ctx, in, engine.Config{}))
			if !slices.Equal(got, want) {
				t.Fatalf("run %d without a checkpointer:\n got %q\nwant %q", run, got, want)
			}
		}
	})
}

// TestParallelFreshReadsOfMadeUpIDs: two tasks of one superstep write
// messages without an ID and route on their fresh read, concurrently.
// Each fork of the messages channel appends the IDs its run made up with
// its own copy of the channel's mintState: each router must see the
// list with its own node's messages and not the other's, and the run
// must end as it does with a checkpointer. Run with -race: forks sharing
// the channel's state race on it.
func TestParallelFreshReadsOfMadeUpIDs(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	build := func(saver engine.Checkpointer, seen map[string][]string) *engine.Graph {
		g := engine.NewStateGraph(engine.MessagesField("messages"))
		for _, name := range []string{"a", "b"} {
			g.AddNode(name, func(context.Context, engine.State) (any, error) {
				var out []engine.Message
				for k := range 3 {
					out = append(out, engine.AIMessage(fmt.Sprintf("%s %d", name, k)))
				}
				return engine.State{"messages": out}, nil
			})
			g.AddEdge(engine.Start, name)
			g.AddConditionalEdges(name, func(_ context.Context, s engine.State) (any, error) {
				var texts []string
				for _, m := range s.Messages("messages") {
					texts = append(texts, m.Text())
				}
				mu.Lock()
				seen[name] = texts
				mu.Unlock()
				return engine.End, nil
			}, engine.End)
		}
		c, err := g.Compile(engine.CompileOptions{Checkpointer: saver})
		if err != nil {
			t.Fatalf("Compile: %v", err)
		}
		return c
	}
	var input []engine.Message
	for i := range 40 { // past the lengths a list is scanned
		input = append(input, engine.HumanMessage(fmt.Sprintf("in %d", i)))
	}
	in := engine.State{"messages": input}
	wantSeen := map[string][]string{}
	want := renderShape(build(checkpoint.NewMemory(), wantSeen).Invoke(ctx, in, engine.Config{ThreadID: "t"}))
	for run := range 20 {
		seen := map[string][]string{}
		got := renderShape(build(nil, seen).Invoke(ctx, in, engine.Config{}))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("run %d without a checkpointer mismatch (-want +got):\n%s", run, diff)
		}
		if diff := cmp.Diff(wantSeen, seen); diff != "" {
			t.Fatalf("run %d: fresh reads mismatch (-want +got):\n%s", run, diff)
		}
	}
}
