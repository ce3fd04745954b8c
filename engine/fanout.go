package engine

import (
	"sync"
	"sync/atomic"
)

// fanOut calls do(i) for every i in [0, n), at most limit at a time (0: no
// cap), and returns when every call has returned. The calls are claimed in
// index order by workers the invocation owns: the calling goroutine is the
// first, and each worker runs calls until none is left, so no goroutine
// outlives fanOut.
//
// A worker about to run a call makes sure one more worker is on its way
// (a spare), unless one already is, no call is left for it, or limit
// workers have started; the spare, once it runs, is a worker like the
// others and makes the next spare when it claims its first call. So:
//
//   - calls that do not block run on the caller and one or two workers
//     (the spare takes a processor that is free, and the one it leaves
//     behind finds the calls taken): no goroutine start per call, and the
//     caller's stack is already grown. W1 (256 calls of a trivial tool)
//     used to start about ten workers, one at a time, each waited for by
//     the caller until it had claimed a call;
//   - calls that block still fan out fully, as fast as goroutines start:
//     a worker blocked in its call has already sent the next worker on its
//     way, which runs on the processor the blocked one freed, claims the
//     next call and sends the next, so N calls that each wait run on N
//     workers at once (W2: 1,024 calls of 10 ms). The caller used to start
//     every worker itself and wait for each to claim its call, which made
//     the last call start about 3 ms after the first on 2 loaded cores;
//   - whatever the scheduling, the worst case is one worker per call, as a
//     goroutine per call was.
//
// Which worker runs which call, and how many workers there are, depends on
// scheduling; do must therefore write its result to its own slot, which is
// how every caller merges results in call order.
func fanOut(n, limit int, do func(i int)) { fanOutWorkers(n, limit, do) }

// fanOutWorkers is fanOut; it returns how many workers ran, the caller
// included.
func fanOutWorkers(n, limit int, do func(i int)) int {
	if n <= 0 {
		return 0
	}
	f := &fan{n: int64(n), limit: int64(limit), do: do}
	f.workers.Store(1)
	f.work()
	f.wg.Wait()
	return int(f.workers.Load())
}

// fan is the shared state of one fanOut.
type fan struct {
	n, limit int64
	do       func(i int)
	next     atomic.Int64 // the next index to claim
	workers  atomic.Int64 // workers started, the caller included
	spare    atomic.Bool  // a worker is on its way and has not claimed yet
	wg       sync.WaitGroup
}

// work claims and runs calls until none is left.
func (f *fan) work() {
	for {
		i := f.next.Add(1) - 1
		if i >= f.n {
			return
		}
		f.sendSpare(i)
		f.do(int(i))
	}
}

// spareWork is work on a goroutine of its own, started as the spare.
func (f *fan) spareWork() {
	defer f.wg.Done()
	f.spare.Store(false)
	f.work()
}

// sendSpare starts a spare worker, after the claim of call i, when calls
// are left after it, none is on its way and the limit allows one more.
func (f *fan) sendSpare(i int64) {
	if i+1 >= f.n || f.spare.Load() || !f.spare.CompareAndSwap(false, true) {
		return
	}
	if f.limit > 0 && f.workers.Load() >= f.limit {
		f.spare.Store(false)
		return
	}
	f.workers.Add(1)
	f.wg.Add(1)
	go f.spareWork()
}
