package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/stats"
)

// The Benchmark functions run the workloads of `agenteval bench` under go
// test, for profiling (-cpuprofile, -memprofile) and for benchstat:
//
//	go test -run '^$' -bench 'W1' -count 10 ./bench/ | tee new.txt
//	benchstat old.txt new.txt

// BenchmarkW1ToolNode is W1: one AI message with N calls of the trivial
// tool through ToolNode.Invoke.
func BenchmarkW1ToolNode(b *testing.B) {
	for _, n := range W1Sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			run, err := ToolNodeOp(n, 0)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := run(ctx); err != nil {
					b.Fatal(err)
				}
			}
			perCall := float64(b.Elapsed().Nanoseconds()) / float64(b.N*n)
			b.ReportMetric(perCall, "ns/call")
			b.ReportMetric(1e9/perCall, "calls/s")
		})
	}
}

// BenchmarkW2ToolLatency is W2's fan-out: N calls that wait (10 ms by
// default) under each distribution and max_concurrency cap.
func BenchmarkW2ToolLatency(b *testing.B) {
	for _, c := range W2Cases(false) {
		b.Run(c.Params().String(), func(b *testing.B) {
			run, delays, _, err := W2Op(c)
			if err != nil {
				b.Fatal(err)
			}
			var sum time.Duration
			for _, d := range delays {
				sum += d
			}
			ctx := context.Background()
			for b.Loop() {
				if err := run(ctx); err != nil {
					b.Fatal(err)
				}
			}
			wall := float64(b.Elapsed()) / float64(b.N)
			b.ReportMetric(wall/1e6, "ms/invocation")
			b.ReportMetric(float64(sum)/wall, "parallelism")
			b.ReportMetric(float64(IdealWall(delays, c.Cap))/wall, "ideal/wall")
		})
	}
}

// BenchmarkW2Load is W2's open and closed load: b.N batches' worth of
// time at the case's arrival rate or worker count; it reports the
// coordinated-omission-correct p99.
func BenchmarkW2Load(b *testing.B) {
	for _, c := range LoadCases(false) {
		b.Run(c.Params().String(), func(b *testing.B) {
			tn, input, err := LoadToolNode(c)
			if err != nil {
				b.Fatal(err)
			}
			d := 100 * time.Millisecond
			if c.Mode == "open" {
				d = time.Duration(b.N) * time.Second / time.Duration(c.Rate)
			}
			b.ResetTimer()
			r, err := RunLoad(context.Background(), c, tn, input, d)
			if err != nil {
				b.Fatal(err)
			}
			p := stats.PercentilesOf(r.Latencies)
			b.ReportMetric(p.P99/1e3, "p99-ms")
			b.ReportMetric(float64(r.Batches)/r.Elapsed.Seconds(), "batches/s")
		})
	}
}

// BenchmarkW3AgentLoop is W3: K agent cycles per run, with each
// checkpointer.
func BenchmarkW3AgentLoop(b *testing.B) {
	for _, kind := range Checkpointers {
		for _, k := range W3Cycles {
			b.Run(fmt.Sprintf("checkpointer=%s/k=%d", kind, k), func(b *testing.B) {
				p, err := AgentLoopOp(context.Background(), k, kind, b.TempDir(), 0)
				if err != nil {
					b.Fatal(err)
				}
				defer p.close()
				benchOp(b, p, "us/cycle")
			})
		}
	}
}

// BenchmarkCreateAgentLoop is W3's loop in create_agent, whose model node
// reads the thread as one []Message every step (AgentModelRequest): its
// B/op shows whether those slices share one array (MessageList.Slice).
func BenchmarkCreateAgentLoop(b *testing.B) {
	for _, k := range W3Cycles {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			agent, err := engine.CreateAgent(engine.AgentConfig{Model: newCycleModel(k), Tools: []engine.Tool{trivialTool(0)}})
			if err != nil {
				b.Fatal(err)
			}
			input := engine.State{"messages": []any{"go"}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := agent.Invoke(context.Background(), input, engine.Config{RecursionLimit: 2*k + 5}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkW4ThreadGrowth is W4: one turn (4 supersteps) on a thread of
// M messages, with each checkpointer, forked from the same checkpoint or
// continuing the thread.
func BenchmarkW4ThreadGrowth(b *testing.B) {
	for _, kf := range w4Kinds {
		kind, from := kf[0], kf[1]
		for _, m := range W4Lengths {
			b.Run(fmt.Sprintf("checkpointer=%s/from=%s/messages=%d", kind, from, m), func(b *testing.B) {
				p, err := ThreadGrowthOp(context.Background(), m, kind, from, b.TempDir(), 0)
				if err != nil {
					b.Fatal(err)
				}
				defer p.close()
				benchOp(b, p, "us/step")
			})
		}
	}
}

// BenchmarkW4HandedBack is W4 without a checkpointer as a conversation
// runs it: every turn's input is the previous turn's MessageList plus a
// question, so the thread grows by 4 messages a turn and its messages
// that came without an ID come back with one (W4's own case gives every
// turn the same input). The thread is M messages again every w4Turns
// turns, off the clock.
func BenchmarkW4HandedBack(b *testing.B) {
	for _, m := range W4Lengths {
		b.Run(fmt.Sprintf("messages=%d", m), func(b *testing.B) {
			agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: newCycleModel(1), Tools: []engine.Tool{trivialTool(0)}})
			if err != nil {
				b.Fatal(err)
			}
			hist := engine.NewMessageList(History(m)...)
			thread := hist
			p := &op{units: 4, resetEvery: w4Turns}
			p.reset = func(context.Context) error { thread = hist; return nil }
			p.run = func(ctx context.Context) error {
				input := thread.Append(engine.HumanMessage("And tomorrow?"))
				res, err := agent.Invoke(ctx, engine.State{"messages": input}, engine.Config{})
				if err != nil {
					return err
				}
				thread = res.Values.List("messages")
				if thread.Len() != input.Len()+3 {
					return fmt.Errorf("turn ended with %d messages, want %d", thread.Len(), input.Len()+3)
				}
				return nil
			}
			benchOp(b, p, "us/step")
		})
	}
}

// BenchmarkW5Replay is W5: the generated corpus replayed by 1 and
// GOMAXPROCS workers.
func BenchmarkW5Replay(b *testing.B) {
	corpus := Corpus(W5Scenarios, 1)
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			run := ReplayOp(corpus, workers)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := run(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(corpus))/b.Elapsed().Seconds(), "scenarios/s")
		})
	}
}

// benchOp runs an op for b.N iterations and reports µs per unit. A reset
// of the op (emptying its checkpointer) happens every 1,000 runs, or every
// resetEvery runs when the op sets it, off the clock.
func benchOp(b *testing.B, p *op, unit string) {
	ctx := context.Background()
	if p.reset != nil {
		if err := p.reset(ctx); err != nil {
			b.Fatal(err)
		}
	}
	every := 1000
	if p.resetEvery > 0 {
		every = p.resetEvery
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := p.run(ctx); err != nil {
			b.Fatal(err)
		}
		if i++; i%every == 0 && p.reset != nil {
			b.StopTimer()
			if err := p.reset(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/(float64(b.N)*p.units), unit)
}

// BenchmarkBaselineGoroutines is the floor the issue compares against:
// N bare goroutines with a WaitGroup, doing nothing (as W1) or sleeping
// 10 ms each (as W2 at N=1024), without any engine.
func BenchmarkBaselineGoroutines(b *testing.B) {
	for _, n := range []int{256, 1024} {
		b.Run(fmt.Sprintf("trivial/n=%d", n), func(b *testing.B) {
			out := make([]string, n)
			for b.Loop() {
				var wg sync.WaitGroup
				for i := range n {
					wg.Add(1)
					go func() { defer wg.Done(); out[i] = "ok" }()
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
		})
	}
	b.Run("sleep10ms/n=1024", func(b *testing.B) {
		for b.Loop() {
			var wg sync.WaitGroup
			for range 1024 {
				wg.Add(1)
				go func() { defer wg.Done(); time.Sleep(10 * time.Millisecond) }()
			}
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed())/float64(b.N)/1e6, "ms/invocation")
	})
}

// BenchmarkBaselineListCopy is the floor W4 meets when a turn forks the
// thread (from=fork) or is given the whole thread as its input (no
// checkpointer): a thread is one contiguous []engine.Message (what
// ModelRequest.Messages and the state hand out), and the positions after
// the thread's last message are held by another branch or by the
// caller's list, so such a turn copies the thread once. Here the copy
// alone: one M-message list per turn with W4's spare eighth, kept alive
// for w4Turns turns as Memory keeps a fork's checkpoints, in W4's unit (a
// turn is 4 steps). Compare with W4 at the same M and at 10 messages.
func BenchmarkBaselineListCopy(b *testing.B) {
	for _, m := range W4Lengths {
		b.Run(fmt.Sprintf("messages=%d", m), func(b *testing.B) {
			hist := History(m)
			kept := make([][]engine.Message, w4Turns)
			i := 0
			for b.Loop() {
				out := make([]engine.Message, m+1+(m+1)/8)
				copy(out, hist)
				kept[i%w4Turns] = out[:m]
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/(float64(b.N)*4), "us/step")
		})
	}
}
