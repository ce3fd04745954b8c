package engine

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// fanOut calls do(i) for every i in [0, n), at most limit at a time (0: no
// cap), and returns when every call has returned. The calls are claimed in
// index order by workers the invocation owns: the calling goroutine is the
// first, and each worker runs calls until none is left, so no goroutine
// outlives fanOut.
//
// Each worker, when it claims its first call and calls are left after it,
// sends a spare worker on its way: one for a started worker, one per
// processor (GOMAXPROCS) for the caller, as long as fewer than min(n,
// limit) workers have started. So every spare that claims a call sends the
// next, and while calls are left some worker has not yet claimed its
// first one (or min(n, limit) workers run): a call is never left waiting
// behind calls that block. So:
//
//   - calls that do not block run on the caller and the few spares that
//     find a free processor; the spares still on their way when the calls
//     are all claimed find none and end: no goroutine start per call,
//     about GOMAXPROCS+1 workers whatever n;
//   - calls that block fan out fully, on as many chains of spares as there
//     are processors: a worker blocked in its call has already sent the
//     next worker on its way, which runs on the processor the blocked one
//     freed, claims the next call and sends the next, so N calls that each
//     wait run on N workers at once. With a single chain (one spare on its way at a time) the spare sat in its
//     processor's next slot, which another processor steals only after a
//     wait, so the calls started one after another on one processor;
//   - whatever the scheduling, there are at most min(n, limit) workers, as
//     a goroutine per call had n.
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
	width := n
	if limit > 0 && limit < n {
		width = limit
	}
	f := &fan{n: int64(n), width: int64(width), do: do}
	f.spare = func() {
		f.work(1)
		f.wg.Done()
	}
	f.workers.Store(1)
	f.work(runtime.GOMAXPROCS(0))
	f.wg.Wait()
	return int(f.workers.Load())
}

// fan is the shared state of one fanOut.
type fan struct {
	n     int64 // calls
	width int64 // at most this many workers: min(n, limit)
	do    func(i int)
	// spare is a spare worker's goroutine: work(1), then done. One func
	// value serves every spare (go f.work(1) would make a closure for
	// each).
	spare func()
	// claimed is set once every call is claimed: a worker whose call
	// returns after that ends without touching next
	claimed atomic.Bool
	// workers counts the workers started, the caller included
	workers atomic.Int64
	wg      sync.WaitGroup
	next    atomic.Int64 // the next index to claim
}

// work claims and runs calls until none is left; after its first claim it
// sends up to spares spare workers on their way.
func (f *fan) work(spares int) {
	for i := f.claim(spares); i < f.n; i = f.claimNext() {
		f.do(int(i))
	}
}

// claim is a worker's first claim: when it got a call, it sends up to
// spares spare workers on their way.
func (f *fan) claim(spares int) int64 {
	i := f.claimNext()
	if i < f.n {
		f.sendSpares(spares)
	}
	return i
}

// claimNext claims the next call: its index, or n or more when every
// call is claimed. Whoever claims the last sets claimed.
func (f *fan) claimNext() int64 {
	if f.claimed.Load() {
		return f.n
	}
	i := f.next.Add(1) - 1
	if i >= f.n-1 {
		f.claimed.Store(true)
	}
	return i
}

// sendSpares starts up to k spare workers while calls are left unclaimed
// and fewer than width workers have started.
func (f *fan) sendSpares(k int) {
	for k > 0 {
		w := f.workers.Load()
		if w >= f.width || f.next.Load() >= f.n {
			return
		}
		if !f.workers.CompareAndSwap(w, w+1) {
			continue
		}
		k--
		f.wg.Add(1)
		go f.spare()
	}
}
