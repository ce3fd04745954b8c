package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"pgregory.net/rapid"
)

// seenRuntime is what one RuntimeFrom call saw.
type seenRuntime struct {
	rt                   *engine.Runtime
	node, thread         string
	step, remaining, max int
	context              any
	clock                engine.Clock
}

func sawRuntime(ctx context.Context) seenRuntime {
	rt := engine.RuntimeFrom(ctx)
	if rt == nil {
		return seenRuntime{}
	}
	return seenRuntime{rt: rt, node: rt.Node, thread: rt.ThreadID, step: rt.Step, remaining: rt.RemainingSteps,
		max: rt.MaxConcurrency, context: rt.Context, clock: engine.ClockFrom(ctx)}
}

// TestPropRuntimeFromKeptContext: a node's context may outlive the node
// (a goroutine it started keeps it), and may be asked for its Runtime
// from several goroutines at once, before or after the node returned,
// while the run goes on with other tasks. Every ask of one task's context
// gets the same Runtime, the one of that task: its node, step, remaining
// steps, thread, context, concurrency and clock. Under -race this fails a
// Runtime made on the first ask without a compare-and-swap, a frame that
// a later task reuses, and a Runtime rewritten per attempt; without
// -race, the frame reused or the Runtime made twice show as a wrong step
// or two different Runtimes.
func TestPropRuntimeFromKeptContext(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 5).Draw(t, "nodes")
		limit := rapid.IntRange(n+1, 40).Draw(t, "limit")
		withThread := rapid.Bool().Draw(t, "checkpointer")
		type plan struct {
			inside, later int // asks while the node runs, goroutines after
		}
		plans := make([]plan, n)
		for i := range plans {
			plans[i] = plan{inside: rapid.IntRange(0, 3).Draw(t, "inside"), later: rapid.IntRange(0, 4).Draw(t, "later")}
		}
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			seen = map[string][]seenRuntime{}
		)
		record := func(node string, s seenRuntime) {
			mu.Lock()
			seen[node] = append(seen[node], s)
			mu.Unlock()
		}
		g := engine.NewStateGraph(engine.ValueField("x"))
		prev := engine.Start
		for i := range n {
			name := fmt.Sprintf("n%d", i)
			p := plans[i]
			g.AddNode(name, func(ctx context.Context, s engine.State) (any, error) {
				// the goroutines start first: some ask while others ask
				// inside the node, and all of them may ask after it returned
				start := make(chan struct{})
				for range p.later {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						record(name, sawRuntime(ctx))
					}()
				}
				close(start)
				for range p.inside {
					record(name, sawRuntime(ctx))
				}
				return engine.State{"x": i}, nil
			})
			g.AddEdge(prev, name)
			prev = name
		}
		clock := &sleepClock{}
		copts := engine.CompileOptions{Clock: clock}
		cfg := engine.Config{Context: "rc", RecursionLimit: limit, MaxConcurrency: 3}
		if withThread {
			copts.Checkpointer = checkpoint.NewMemory()
			cfg.ThreadID = "th"
		}
		graph, err := g.Compile(copts)
		if err != nil {
			t.Fatal(err)
		}
		_, err = graph.Invoke(context.Background(), engine.State{"x": -1}, cfg)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range plans {
			name := fmt.Sprintf("n%d", i)
			got := seen[name]
			if len(got) != p.inside+p.later {
				t.Fatalf("%s: %d asks recorded, want %d", name, len(got), p.inside+p.later)
			}
			// START runs at step 0, the chain's i-th node at step i+1
			want := seenRuntime{node: name, thread: cfg.ThreadID, step: i + 1, remaining: limit - (i + 1), max: 3, context: "rc", clock: clock}
			for k, s := range got {
				if s.rt == nil {
					t.Fatalf("%s: ask %d got no Runtime", name, k)
				}
				if s.rt != got[0].rt {
					t.Errorf("%s: ask %d got another Runtime than ask 0", name, k)
				}
				s.rt = nil
				if s != want {
					t.Errorf("%s: ask %d saw %+v, want %+v", name, k, s, want)
				}
			}
		}
	})
}

// TestRuntimeFromKeptContextAcrossRetries: the context of a failed
// attempt, kept by a goroutine that still asks for the Runtime while the
// next attempt runs, shows the same task's Runtime as the retry does
// (the Runtime used to be rebuilt in place for every attempt, a data race
// with such a goroutine).
func TestRuntimeFromKeptContextAcrossRetries(t *testing.T) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		seen  []seenRuntime
		calls int
	)
	g := engine.NewStateGraph(engine.ValueField("x"))
	g.AddNode("work", func(ctx context.Context, s engine.State) (any, error) {
		calls++
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					s := sawRuntime(ctx)
					mu.Lock()
					seen = append(seen, s)
					mu.Unlock()
				}
			}()
		}
		if calls < 3 {
			return nil, engine.Errorf("ConnectionError", "attempt %d failed", calls)
		}
		return engine.State{"x": calls}, nil
	}, engine.WithRetryPolicy(engine.DefaultRetryPolicy()))
	g.AddEdge(engine.Start, "work")
	clock := &sleepClock{}
	graph, err := g.Compile(engine.CompileOptions{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	_, err = graph.Invoke(context.Background(), engine.State{}, engine.Config{RecursionLimit: 10})
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 || len(seen) != 3*3*20 {
		t.Fatalf("%d attempts and %d asks, want 3 and %d", calls, len(seen), 3*3*20)
	}
	want := seenRuntime{node: "work", step: 1, remaining: 9, clock: clock}
	for i, s := range seen {
		if s.rt == nil {
			t.Fatalf("ask %d got no Runtime", i)
		}
		s.rt = nil
		if s != want {
			t.Fatalf("ask %d saw %+v, want %+v", i, s, want)
		}
	}
}

// TestToolKeepsContextAfterReturn: a ReAct agent's tool that keeps its
// context in a goroutine asks for the Runtime after it returned, while
// the agent goes on: the answer is its own task's (the tools node's, at
// the step it ran), the one its invocation carried.
func TestToolKeepsContextAfterReturn(t *testing.T) {
	const k = 4
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		got  = map[int][]*engine.Runtime{}
		told = map[int]*engine.Runtime{}
		runs int
	)
	tool := engine.NewTool(engine.ToolDef{Name: "t", Description: "counts", Parameters: engine.NewObject("type", "object")},
		func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
			mu.Lock()
			i := runs
			runs++
			told[i] = inv.Runtime
			mu.Unlock()
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rt := engine.RuntimeFrom(ctx)
					mu.Lock()
					got[i] = append(got[i], rt)
					mu.Unlock()
				}()
			}
			return "ok", nil
		})
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: loopModel{k: k}, Tools: []engine.Tool{tool}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = agent.Invoke(context.Background(), engine.State{"messages": []any{"go"}}, engine.Config{})
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if runs != k {
		t.Fatalf("%d tool runs, want %d", runs, k)
	}
	for i := range k {
		// agent at 1, tools at 2, agent at 3, tools at 4, ...
		want := 2 * (i + 1)
		if told[i] == nil || told[i].Node != "tools" || told[i].Step != want {
			t.Fatalf("tool run %d was given Runtime %+v, want the tools node's at step %d", i, told[i], want)
		}
		for _, rt := range got[i] {
			if rt != told[i] || rt.Step != want {
				t.Errorf("tool run %d: its kept context gave %+v, want the Runtime it was given (step %d)", i, rt, want)
			}
		}
	}
}
