package engine

import (
	"context"
	"sync"
	"testing"
	"unsafe"
)

// TestTaskFrameSizes: a task's frame is one allocation per task, the
// most frequent of a superstep; the frame of a node that does not read
// its Runtime every time (most) must stay in the 80-byte size class, and
// one with its Runtime in it in the 192-byte class (they were 256 bytes
// both). A field added to the scratchpad or the frame that pushes them
// into the next class fails this: put it behind a pointer if only rare
// paths need it (as interrupts and owned lists are).
func TestTaskFrameSizes(t *testing.T) {
	for _, tc := range []struct {
		name string
		size uintptr
		max  uintptr
	}{
		{"taskFrame", unsafe.Sizeof(taskFrame{}), 80},
		{"taskFrameRT", unsafe.Sizeof(taskFrameRT{}), 192},
	} {
		if tc.size > tc.max {
			t.Errorf("%s is %d bytes, want at most %d (its malloc size class)", tc.name, tc.size, tc.max)
		}
	}
}

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
