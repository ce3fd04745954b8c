package engine

import (
	"context"
	"sync"
)

// scratchpad is a task's private bookkeeping: its step window and the
// resume values for its interrupts (LangGraph's PregelScratchpad). It is
// part of every task's frame (see taskFrame): what only an interrupt or a
// ToolNode's own list uses lies behind a pointer, made when first needed.
type scratchpad struct {
	step, stop int

	mu      sync.Mutex
	nullIdx int // the null task's resume write in run.pending, or -1
	// intr holds the task's interrupt count and resume values (nil: no
	// resume values and no interrupt yet)
	intr *interrupts
	// task is the scratchpad's task; run is where its resume values live,
	// nil for a task made by UpdateState, which has none
	run  *run
	task *task
	// own is the message list the task's node made for its output alone
	// (nil: none), see ownList
	own *ownedList
}

// interrupts is a task's count of interrupt calls and the resume values
// they are matched to, in order.
type interrupts struct {
	n      int
	resume []any
}

// ownedList is a message list a node made for its output alone (a
// ToolNode's answers), which the task may give IDs in place as a
// nodeUpdate's (see ownList), and, when set, room, the array it lies in
// (see listRoom).
type ownedList struct {
	msgs []Message
	room *listRoom
}

// ownList says msgs is a list the node made for its output alone, so the
// task's write of exactly that list may get its messages' IDs in place
// rather than in a copy (normalizeOne). LangGraph's add_messages sets the
// IDs on the message objects the node returned, in place, too.
// room, when not nil, is the array with room in front that msgs lies in.
func (sp *scratchpad) ownList(msgs []Message, room *listRoom) {
	own := &ownedList{msgs: msgs, room: room}
	sp.mu.Lock()
	sp.own = own
	sp.mu.Unlock()
}

// mayTakeRoom reports whether a messages channel of the task's run may
// take a list's array (see listRoom): it does so only for messages whose
// IDs the run made up, in a run without a checkpointer (see mintState).
func (sp *scratchpad) mayTakeRoom() bool {
	return sp != nil && sp.run != nil && sp.run.saver == nil
}

// roomOf returns the room of v when v is the list ownList named with one.
func (sp *scratchpad) roomOf(v any) *listRoom {
	msgs, ok := v.([]Message)
	if !ok {
		return nil
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.own == nil || !sp.own.room.holds(msgs) {
		return nil
	}
	return sp.own.room
}

// owns reports whether v is the list ownList named.
func (sp *scratchpad) owns(v any) bool {
	msgs, ok := v.([]Message)
	if !ok || len(msgs) == 0 {
		return false
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.own != nil && len(sp.own.msgs) == len(msgs) && &sp.own.msgs[0] == &msgs[0]
}

// taskNS is the task's namespace, name:id (LangGraph's checkpoint_ns of
// the task), which interrupt IDs hash.
func (sp *scratchpad) taskNS() string {
	if sp.run != nil && sp.run.nest != nil {
		return sp.run.nest.ns + nsSep + sp.task.name + ":" + sp.task.taskID()
	}
	return sp.task.name + ":" + sp.task.taskID()
}

type scratchpadKey struct{}

func scratchpadFrom(ctx context.Context) *scratchpad {
	sp, _ := ctx.Value(scratchpadKey{}).(*scratchpad)
	return sp
}

// Interrupt pauses the run at this point of a node, LangGraph's
// interrupt(value). The first time, it returns an *InterruptError that the
// node must return (possibly wrapped); the run stops with value in its
// interrupts. When the run is resumed with Command{Resume: x}, the node runs
// again from the start and this call returns x. A node may interrupt
// several times; resume values are matched to calls in order.
//
// Interrupt needs a checkpointer to resume, and must be called from inside
// a node (it returns an error otherwise).
func Interrupt(ctx context.Context, value any) (any, error) {
	sp := scratchpadFrom(ctx)
	if sp == nil {
		return nil, NewError("RuntimeError", "interrupt() called outside of a graph node")
	}
	sp.mu.Lock()
	in := sp.intr
	if in == nil {
		in = &interrupts{}
		sp.intr = in
	}
	idx := in.n
	in.n++
	if idx < len(in.resume) {
		v := in.resume[idx]
		sp.recordWrite(write{channel: chResume, value: append([]any(nil), in.resume...)})
		sp.mu.Unlock()
		return v, nil
	}
	if v, ok := sp.nullResume(true); ok {
		in.resume = append(in.resume, v)
		sp.recordWrite(write{channel: chResume, value: append([]any(nil), in.resume...)})
		sp.mu.Unlock()
		return v, nil
	}
	sp.mu.Unlock()
	return nil, &InterruptError{Interrupts: []InterruptValue{{Value: value, ID: hashHex(sp.taskNS())}}}
}
