package engine

import (
	"context"
	"sync"
	"testing"
)

// frameFor is a frame of a task of node "n" at step 3 of 10 in a bare run.
func frameFor(clock Clock) *taskFrame {
	r := &run{g: &Graph{clock: clock}, ctx: context.Background(), cfg: Config{ThreadID: "th", MaxConcurrency: 2}}
	return &taskFrame{sp: scratchpad{step: 3, stop: 10, run: r, nullIdx: -1}, node: &pregelNode{name: "n"}}
}

// TestTaskFrameRuntimeMadeOnce: goroutines that ask a fresh frame for its
// Runtime at the same moment all get the same one. A Runtime stored
// without a compare-and-swap (each first asker storing its own) fails
// this on a machine with two cores or more.
func TestTaskFrameRuntimeMadeOnce(t *testing.T) {
	const askers, frames = 8, 2000
	for range frames {
		f := frameFor(SystemClock{})
		var got [askers]*Runtime
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range askers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				got[i] = RuntimeFrom(f)
			}()
		}
		close(start)
		wg.Wait()
		for i, rt := range got {
			if rt == nil || rt != got[0] {
				t.Fatalf("asker %d got Runtime %p, asker 0 %p: want one Runtime per task", i, rt, got[0])
			}
		}
		if got[0] != f.runtime() || got[0].Node != "n" || got[0].Step != 3 || got[0].RemainingSteps != 7 || got[0].ThreadID != "th" || got[0].MaxConcurrency != 2 {
			t.Fatalf("Runtime %+v, want node n at step 3 with 7 steps left on thread th", *got[0])
		}
	}
}

// stepClock is a Clock of its own, told apart from the system clock.
type stepClock struct{ SystemClock }

// TestClockFromMakesNoRuntime: ClockFrom, which emulated latency and
// retry backoff call on every wait, answers with the graph's clock
// without making the task's Runtime; once the Runtime is made, with its
// clock (the same one).
func TestClockFromMakesNoRuntime(t *testing.T) {
	clock := &stepClock{}
	f := frameFor(clock)
	if got := ClockFrom(f); got != clock {
		t.Fatalf("ClockFrom = %v, want the graph's clock", got)
	}
	if f.rt.Load() != nil {
		t.Fatal("ClockFrom made the task's Runtime")
	}
	if rt := RuntimeFrom(f); rt.Clock != clock || ClockFrom(f) != clock {
		t.Fatalf("Runtime clock %v, ClockFrom %v, want the graph's clock", rt.Clock, ClockFrom(f))
	}
	if _, ok := ClockFrom(context.Background()).(SystemClock); !ok {
		t.Fatal("ClockFrom outside a task is not the system clock")
	}
	if _, ok := ClockFrom(frameFor(nil)).(SystemClock); !ok {
		t.Fatal("ClockFrom of a run without a clock is not the system clock")
	}
}
