package engine_test

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/agenteval/agenteval/engine"
)

// TestToolCallsKeepStartingStacks: the calls of a ToolNode that block run
// on workers whose stacks do not grow: under a tool that waits as W2's
// does (a timer and a select on the context), the node's frames and the
// tool's fit a new goroutine's starting stack, and so do the frames that
// shape the tool's answer once it returns. A stack that grows is copied,
// frame by frame, and the growth of the 1,024 workers' stacks doubled the
// time it took to start W2's calls.
//
// The calls wait in two waves on as many workers as there are calls in a
// wave (MaxConcurrency), so the workers of the second wave have run a
// call of the first to its end. Each call checks that its stack did not
// move while it waited (a stack that grows moves), and each call of the
// second wave that its worker still runs on its starting stack
// (onStartingStack). The caller's goroutine, whose stack is its own, runs
// a call of each wave. (The node's frames under a call before callBatch,
// about 850 bytes, fail it; so do the message literals that made
// shapeResult's frame 1.1 kB, whose growth comes after the tool
// returned.)
func TestToolCallsKeepStartingStacks(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation makes every frame larger")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// new goroutines start with the average stack the last GC scanned:
	// scanned among many idle goroutines (as in W2's runs, where they are
	// the calls waiting), that is the runtime's smallest, 2 KiB
	idle := make(chan struct{})
	var idlers sync.WaitGroup
	for range 1000 {
		idlers.Go(func() { <-idle })
	}
	runtime.GC()
	close(idle)
	idlers.Wait()
	start := []metrics.Sample{{Name: "/gc/stack/starting-size:bytes"}}
	metrics.Read(start)
	if size := start[0].Value.Uint64(); size != startingStack {
		t.Skipf("new goroutines start with %d bytes of stack here, not 2 KiB: no call's stack would grow", size)
	}

	const n = 64 // calls in a wave
	var arrived atomic.Int32
	release := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	var moved, grown [2]atomic.Int32
	// W2's tool (a timer and a select on one more channel), waiting
	// until the n calls of its wave wait rather than for a time
	wait := func(context.Context, engine.ToolInvocation) (any, error) {
		var mark byte
		at := uintptr(unsafe.Pointer(&mark))
		tm := time.NewTimer(time.Hour)
		k := arrived.Add(1)
		wave := (k - 1) / n
		if k%n == 0 {
			close(release[wave])
		}
		select {
		case <-tm.C:
		case <-release[wave]:
		}
		tm.Stop()
		switch {
		case uintptr(unsafe.Pointer(&mark)) != at:
			moved[wave].Add(1)
		case wave == 1 && !onStartingStack():
			grown[wave].Add(1)
		}
		return "ok", nil
	}
	tool := engine.NewTool(engine.ToolDef{Name: "wait", Parameters: engine.NewObject("type", "object",
		"properties", engine.NewObject("i", engine.NewObject("type", "integer")), "required", []any{"i"})}, wait)
	tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{MaxConcurrency: n})
	if err != nil {
		t.Fatal(err)
	}
	input := engine.State{"messages": []engine.Message{engine.AIMessage("", callsOf("wait", 2*n)...)}}
	out, err := tn.Invoke(context.Background(), input)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range toolMessages(t, out) {
		if m.Status != engine.StatusSuccess {
			t.Fatalf("call %s: %s", m.ToolCallID, m.Text())
		}
	}
	for wave := range 2 {
		// one call of each wave may run on the caller's goroutine, and a
		// few take deeper ways through the runtime (a span to refill, a
		// lock to wait for) that grow even a stack the node leaves room on
		if mv, gr := moved[wave].Load(), grown[wave].Load(); mv+gr > n/2 {
			t.Errorf("wave %d: of %d calls, %d moved their worker's stack while they waited, %d ran on a stack that had grown", wave+1, n, mv, gr)
		}
	}
}

// startingStack is the runtime's smallest starting stack, 2 KiB. Stacks
// that small come from pools of blocks aligned to their size.
const startingStack = 2048

// onStartingStack reports whether its goroutine still runs on a starting
// stack of 2 KiB: it takes as much stack as such a stack has left, and
// some, and sees whether the stack moved (grew). On a stack that grew to
// 4 KiB or more the same use leaves room: the stack does not move.
func onStartingStack() bool {
	var mark byte
	at := uintptr(unsafe.Pointer(&mark))
	// on a 2 KiB stack at is that many bytes above its bottom, of which
	// the runtime keeps the lowest 928 (the guard; 800 for small frames)
	room := int(at%startingStack) - 800
	if room < 0 {
		return false // deeper than a starting stack would have let it go
	}
	useStack(room/64 + 4)
	return uintptr(unsafe.Pointer(&mark)) != at
}

// useStack takes at least 64 bytes of stack for each of levels calls.
func useStack(levels int) byte {
	var buf [64]byte
	buf[levels%64] = byte(levels)
	if levels <= 0 {
		return buf[0]
	}
	return useStack(levels-1) + buf[levels%64]
}
