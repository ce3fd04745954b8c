package engine

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestPropFanOutRunsEachCallOnce: fanOut calls do once for every index,
// never more than limit at a time, on at most min(n, limit) workers, and
// returns only when every call has returned, whatever mix of calls that
// spin and calls that block it gets. When the calls of a batch wait for
// each other (a barrier of min(limit, n) calls), fanOut must give each its
// own worker: a pool that only grew with the processors would deadlock.
func TestPropFanOutRunsEachCallOnce(t *testing.T) {
	rapid.Check(t, propFanOutRunsEachCallOnce)
}

func FuzzFanOutRunsEachCallOnce(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propFanOutRunsEachCallOnce))
}

func propFanOutRunsEachCallOnce(t *rapid.T) {
	n := rapid.IntRange(0, 300).Draw(t, "n")
	limit := rapid.IntRange(0, 40).Draw(t, "limit")
	barrier := rapid.Bool().Draw(t, "barrier")
	blocking := rapid.SliceOfN(rapid.Bool(), n, n).Draw(t, "blocking")
	width := n
	if limit > 0 && limit < n {
		width = limit
	}
	var running, peak, returned atomic.Int32
	calls := make([]atomic.Int32, n)
	arrived := 0
	var mu sync.Mutex
	release := make(chan struct{})
	workers := fanOutWorkers(n, limit, func(i int) {
		r := running.Add(1)
		for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
		}
		calls[i].Add(1)
		switch {
		case barrier && i < width:
			// the first width calls wait until all of them have started
			mu.Lock()
			arrived++
			if arrived == width {
				close(release)
			}
			mu.Unlock()
			select {
			case <-release:
			case <-time.After(20 * time.Second):
				t.Errorf("call %d: the first %d calls never ran at once (fan-out stalled)", i, width)
			}
		case blocking[i]:
			time.Sleep(time.Microsecond)
		default:
			s := 0
			for k := range 200 {
				s += k * i
			}
			_ = s
		}
		running.Add(-1)
		returned.Add(1)
	})
	if got := returned.Load(); int(got) != n {
		t.Fatalf("fanOut returned after %d of %d calls", got, n)
	}
	for i := range calls {
		if c := calls[i].Load(); c != 1 {
			t.Fatalf("call %d ran %d times", i, c)
		}
	}
	if limit > 0 && int(peak.Load()) > limit {
		t.Fatalf("peak concurrency %d above the limit %d", peak.Load(), limit)
	}
	if workers > width || (n > 0 && workers < 1) {
		t.Fatalf("%d workers for %d calls at most %d at a time", workers, n, width)
	}
}
