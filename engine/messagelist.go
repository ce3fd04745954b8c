package engine

import (
	"encoding/json"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
)

// MessageList is an immutable list of messages that shares its messages
// with the lists it was made from. Appending to a list, or adding
// messages to it as add_messages does (Add), makes a new list in time
// proportional to what is added, not to the list's length: a thread's
// checkpoints, its forks and the turns that continue it hold one copy of
// the messages they have in common, and a fork from a long thread does
// not copy the thread.
//
// A list is a chain of nodes, each holding the messages one append added,
// newest last. Appends merge a new node with the ones before it while it
// is at least half their size, so node sizes halve (at least) towards the
// end of the list: a list of n messages has at most log₂(n)+1 nodes, a
// message is copied O(log n) times over the appends that follow it
// (amortized), and a short append onto a long list never copies the long
// part. Position and ID lookups walk the nodes from the end.
//
// The zero value is the empty list. A MessageList is safe for concurrent
// use; its methods never modify it.
type MessageList struct{ n *listNode }

// listNode is one append of a MessageList. Its fields never change once
// the node is made, except the caches, which are set once.
type listNode struct {
	prev  *listNode
	off   int       // the length of prev: the position of items[0]
	items []Message // never written once the node is made
	// flags caches what chainFlags finds (flagsKnown once it has).
	flags atomic.Uint32
	// dupIDs says an ID is there twice among items (known once ids is);
	// beside flags, the two share a word
	dupIDs atomic.Bool
	// ids maps the IDs of items to their position in items (the last one
	// for an ID present twice). It is built on the first lookup, for nodes
	// longer than scanMax.
	ids atomic.Pointer[map[string]int]
	// flat is the whole list as one slice, built on the first Slice.
	flat atomic.Pointer[[]Message]
	// ext is where the Slices of the lists that follow this node are cut
	// from (see extendFlat), made on the first of them
	ext atomic.Pointer[flatExt]
	// seed is the hash state after the chain's messages (see hashList).
	seed atomic.Pointer[nodeSeed]
	// hist holds the prebuilt agent's history scan after the chain's
	// messages (a *historyScan: see historyCache), set once, for lists
	// of at least historyCacheMin messages; a pointer to the interface
	// is 8 bytes where an atomic.Value is 16
	hist atomic.Pointer[any]
	// front, for a node over the front of another node's messages (a
	// Prefix), is that node: its index serves this one when its IDs are
	// distinct (dupIDs unset once ids is built)
	front *listNode
}

// NewMessageList returns a list of a copy of msgs.
func NewMessageList(msgs ...Message) MessageList {
	return MessageList{}.Append(msgs...)
}

// MarshalJSON writes the list as a JSON array of messages, as a
// []Message is written.
func (l MessageList) MarshalJSON() ([]byte, error) {
	msgs := l.Slice()
	if msgs == nil {
		msgs = []Message{}
	}
	return json.Marshal(msgs)
}

// UnmarshalJSON reads a JSON array of messages into a new list.
func (l *MessageList) UnmarshalJSON(data []byte) error {
	var msgs []Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		return err
	}
	*l = MessageList{}.appendOwned(msgs)
	return nil
}

// Len returns the number of messages.
func (l MessageList) Len() int {
	if l.n == nil {
		return 0
	}
	return l.n.off + len(l.n.items)
}

// At returns the message at position i. It panics when i is out of range,
// as indexing a slice does.
func (l MessageList) At(i int) Message {
	if i >= 0 {
		for n := l.n; n != nil; n = n.prev {
			if i >= n.off {
				if i-n.off < len(n.items) {
					return n.items[i-n.off]
				}
				break
			}
		}
	}
	panic(fmt.Sprintf("engine: MessageList index %d out of range [0:%d]", i, l.Len()))
}

// Last returns the last message, and false for an empty list.
func (l MessageList) Last() (Message, bool) {
	if l.n == nil {
		return Message{}, false
	}
	return l.n.items[len(l.n.items)-1], true
}

// All iterates over the positions and messages of the list, in order.
func (l MessageList) All() iter.Seq2[int, Message] {
	return func(yield func(int, Message) bool) {
		var stack [64]*listNode
		nodes := stack[:0]
		for n := l.n; n != nil; n = n.prev {
			nodes = append(nodes, n)
		}
		for k := len(nodes) - 1; k >= 0; k-- {
			n := nodes[k]
			for i, m := range n.items {
				if !yield(n.off+i, m) {
					return
				}
			}
		}
	}
}

// Backward iterates over the positions and messages of the list from its
// last message to its first.
func (l MessageList) Backward() iter.Seq2[int, Message] {
	return func(yield func(int, Message) bool) {
		for n := l.n; n != nil; n = n.prev {
			for i := len(n.items) - 1; i >= 0; i-- {
				if !yield(n.off+i, n.items[i]) {
					return
				}
			}
		}
	}
}

// Slice returns the list's messages as one slice, which the caller must
// not modify (its capacity is its length, so appending to it copies). A
// list of one node returns its messages without copying; a longer one
// builds the slice once and returns it again on later calls. The slices
// of lists that grow one from another share one array (see extendFlat),
// so a run that asks for its thread as one slice every step (create_agent's
// model node, a provider) copies each message about once, not once a
// step.
func (l MessageList) Slice() []Message {
	n := l.n
	switch {
	case n == nil:
		return nil
	case n.prev == nil:
		return n.items[:len(n.items):len(n.items)]
	}
	if p := n.flat.Load(); p != nil {
		return *p
	}
	out := n.prev.extendFlat(n.items)
	n.flat.CompareAndSwap(nil, &out)
	return *n.flat.Load()
}

// flatExt is a node's array for the Slices of the lists that follow it:
// the node's chain's messages, then those of src (an array a channel
// appends to: the lists that follow the node are it and ever longer
// prefixes of it) as far as a Slice asked, with room to grow.
type flatExt struct {
	mu  sync.Mutex
	src *Message // src's array (its first place)
	buf []Message
}

// arrayOf is the identity of s's array: the address of its first place,
// nil when s has no places (a list with nothing to share).
func arrayOf(s []Message) *Message {
	if cap(s) == 0 {
		return nil
	}
	return &s[:1][0]
}

// extendFlat returns the messages of p's chain followed by items, in one
// slice clipped to its length. Items are the messages of a node that
// follows p: items of the node last asked for, or a longer prefix of the
// same array, reuse and extend p's array (in place while it has room, by
// doubling when not); other items start it anew. The part of the array
// a slice returned covers is never written again: items below a length
// handed out are never written (see messagesChan).
func (p *listNode) extendFlat(items []Message) []Message {
	e := p.ext.Load()
	if e == nil {
		p.ext.CompareAndSwap(nil, new(flatExt))
		e = p.ext.Load()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	base, want := p.off+len(p.items), p.off+len(p.items)+len(items)
	if e.buf == nil {
		if taken := p.takeFlat(); taken != nil {
			// p's chain, taken from the node before p: go on after it
			e.src, e.buf = arrayOf(items), taken
		}
	}
	switch have := len(e.buf) - base; {
	case e.buf == nil || e.src != arrayOf(items):
		head := MessageList{n: p}.Slice()
		buf := make([]Message, want, want+max(want/2, 4))
		copy(buf, head)
		copy(buf[base:], items)
		e.src, e.buf = arrayOf(items), buf
	case len(items) > have:
		// beyond the array's length, where no slice returned reaches;
		// append moves to a larger array when it has no room
		e.buf = append(e.buf, items[have:]...)
	}
	return e.buf[:want:want]
}

// takeFlat returns the array of the node before p when it holds p's
// chain and nothing after it, with room to grow, or nil. The node before
// p keeps it clipped to its length, so only p's array grows into its
// room: a list's slices go on in one array when a checkpoint makes p, the
// node over a channel's tail, the base of the lists after it (seal).
func (p *listNode) takeFlat() []Message {
	q := p.prev
	if q == nil || len(p.items) == 0 {
		return nil
	}
	pe := q.ext.Load()
	if pe == nil {
		return nil
	}
	pe.mu.Lock()
	defer pe.mu.Unlock()
	base := p.off + len(p.items)
	if pe.src != arrayOf(p.items) || len(pe.buf) != base || cap(pe.buf) == base {
		return nil
	}
	buf := pe.buf
	pe.buf = pe.buf[:base:base]
	return buf
}

// rekeyFlat tells p's array that src's first n messages, which it may
// hold after p's chain, are now also the first n of dst (a channel copied
// its tail into a larger array, or merged it after another node's
// messages): the lists over dst go on in p's array rather than starting
// one anew. What it holds of src past n is forgotten (see forgetFlatPast).
func (p *listNode) rekeyFlat(src, dst []Message, n int) {
	e := p.ext.Load()
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.src != arrayOf(src) || e.buf == nil {
		return
	}
	if keep := p.off + len(p.items) + n; len(e.buf) > keep {
		e.buf = e.buf[:keep]
	}
	e.src = arrayOf(dst)
}

// forgetFlatPast forgets what p's array holds of src (an array that
// follows p) beyond its first n messages: a channel (or a fork in place)
// has just written the places after them (commitTail, nextChunk taking a
// spare chunk), which the fork of an earlier attempt of the same task may
// have written, and sliced, with other messages. Like that fork's own list, a slice it was handed may then
// show the new messages: the earlier attempt's, read no more. It is
// rekeyFlat to the same array.
func (p *listNode) forgetFlatPast(src []Message, n int) { p.rekeyFlat(src, src, n) }

// listOf returns a list of msgs without copying them: msgs must never be
// written again (a channel's view, or a slice the caller just made).
func listOf(msgs []Message) MessageList {
	if len(msgs) == 0 {
		return MessageList{}
	}
	return MessageList{n: newListNode(nil, msgs[:len(msgs):len(msgs)])}
}

// Append returns the list with msgs (copied) added at its end.
func (l MessageList) Append(msgs ...Message) MessageList {
	if len(msgs) == 0 {
		return l
	}
	return l.appendOwned(append([]Message(nil), msgs...))
}

// appendOwned is Append of items that nothing else holds: the new node
// keeps them.
func (l MessageList) appendOwned(items []Message) MessageList {
	if len(items) == 0 {
		return l
	}
	prev := l.n
	// merge with the nodes before while the new one is at least half their
	// size: sizes halve towards the end, so the chain stays O(log n) long
	for prev != nil && 2*len(items) >= len(prev.items) {
		merged := make([]Message, len(prev.items)+len(items))
		copy(merged, prev.items)
		copy(merged[len(prev.items):], items)
		items = merged
		prev = prev.prev
	}
	return MessageList{n: newListNode(prev, items)}
}

// newListNode returns the node that extends prev with items.
func newListNode(prev *listNode, items []Message) *listNode {
	n := &listNode{prev: prev, items: items}
	if prev != nil {
		n.off = prev.off + len(prev.items)
	}
	return n
}

// depthAtLeast reports whether the chain that ends with n has at least
// k nodes. A node does not keep its depth: a thread keeps a node per
// checkpoint, and 96 bytes is a size class below 112.
func (n *listNode) depthAtLeast(k int) bool {
	for ; n != nil && k > 0; n = n.prev {
		k--
	}
	return k <= 0
}

// bare reports whether none of n's caches is set: n is then what
// newListNode(n.prev, n.items) makes, and may stand for it.
func (n *listNode) bare() bool {
	return n.front == nil && n.flags.Load() == 0 && !n.dupIDs.Load() && n.ids.Load() == nil && n.flat.Load() == nil &&
		n.ext.Load() == nil && n.seed.Load() == nil && n.hist.Load() == nil
}

const (
	flagsKnown = 1 << iota
	// flagMissingID: a message of the chain has no ID (a list made by
	// NewMessageList from messages without one); Add gives them theirs
	// as add_messages does with its left side
	flagMissingID
	// flagNotSet: the chain is not what add_messages of it into an empty
	// list gives: an ID is missing or present twice, or a RemoveMessage
	// is in it
	flagNotSet
)

// chainFlags returns the flags of the chain that ends with n, computed
// once per node (in time proportional to its items, and to the chain's
// depth for each ID it looks up).
func (n *listNode) chainFlags() uint32 {
	if n == nil {
		return flagsKnown
	}
	if f := n.flags.Load(); f&flagsKnown != 0 {
		return f
	}
	f := uint32(flagsKnown)
	if n.prev != nil {
		f |= n.prev.chainFlags() &^ flagsKnown
	}
	for i := range n.items {
		m := &n.items[i]
		switch {
		case m.ID == "":
			f |= flagMissingID | flagNotSet
		case f&flagNotSet != 0:
		case m.Type == TypeRemove:
			f |= flagNotSet
		default:
			if j, ok := n.find(m.ID); ok && j != i {
				f |= flagNotSet
			} else if n.prev != nil && (MessageList{n: n.prev}).Index(m.ID) >= 0 {
				f |= flagNotSet
			}
		}
	}
	n.flags.Store(f)
	return f
}

// isSet reports whether add_messages of the list into an empty list is
// the list itself: every message has an ID, no ID is there twice, and no
// message is a RemoveMessage.
func (l MessageList) isSet() bool { return l.n.chainFlags()&flagNotSet == 0 }

// Since returns a copy of the messages at positions from k on.
func (l MessageList) Since(k int) []Message {
	k = max(k, 0)
	if k >= l.Len() {
		return nil
	}
	out := make([]Message, l.Len()-k)
	for n := l.n; n != nil; n = n.prev {
		if end := n.off + len(n.items); end > k {
			from := max(k, n.off)
			copy(out[from-k:], n.items[from-n.off:])
		}
		if n.off <= k {
			break
		}
	}
	return out
}

// Prefix returns the list of the first n messages (n is clamped to the
// list's length). It shares the list's nodes: a prefix that ends inside a
// node gets a node over the front of that node's messages, which looks
// IDs up through that node's index when its IDs are distinct.
func (l MessageList) Prefix(n int) MessageList {
	if n >= l.Len() {
		return l
	}
	if n <= 0 {
		return MessageList{}
	}
	x := l.n
	for x.off >= n {
		x = x.prev
	}
	if end := x.off + len(x.items); end == n {
		return MessageList{n: x}
	}
	p := newListNode(x.prev, x.items[:n-x.off:n-x.off])
	p.front = x
	return MessageList{n: p}
}

// SharedPrefix returns how many leading messages l and o share by
// construction: the messages of the nodes they have in common, or of the
// front of one node's array that both hold. It does not compare messages,
// so lists equal by value but made apart share none.
func (l MessageList) SharedPrefix(o MessageList) int {
	for x := l.n; x != nil; x = x.prev {
		for y := o.n; y != nil && y.off+len(y.items) > x.off; y = y.prev {
			switch {
			case x == y:
				return x.off + len(x.items)
			case x.off == y.off && x.prev == y.prev && len(x.items) > 0 && len(y.items) > 0 && &x.items[0] == &y.items[0]:
				return x.off + min(len(x.items), len(y.items))
			}
		}
	}
	return 0
}

// Index returns the position of the last message with the given ID, or -1.
func (l MessageList) Index(id string) int {
	for n := l.n; n != nil; n = n.prev {
		if i, ok := n.find(id); ok {
			return n.off + i
		}
	}
	return -1
}

// find returns the position in the node's items of its last message with
// id.
func (n *listNode) find(id string) (int, bool) {
	if len(n.items) <= scanMax {
		for i := len(n.items) - 1; i >= 0; i-- {
			if n.items[i].ID == id {
				return i, true
			}
		}
		return 0, false
	}
	if f := n.front; f != nil {
		if fp := f.index(); !f.dupIDs.Load() {
			// the front node's positions below this node's length are
			// this node's; its IDs are distinct, so one found past the
			// length is not among these
			i, ok := (*fp)[id]
			return i, ok && i < len(n.items)
		}
	}
	i, ok := (*n.index())[id]
	return i, ok
}

// index returns the node's ID index, built on first use.
func (n *listNode) index() *map[string]int {
	p := n.ids.Load()
	if p == nil {
		ids := make(map[string]int, len(n.items))
		dup := false
		for i := range n.items {
			if _, seen := ids[n.items[i].ID]; seen {
				dup = true
			}
			ids[n.items[i].ID] = i
		}
		if dup {
			n.dupIDs.Store(true)
		}
		n.ids.CompareAndSwap(nil, &ids)
		p = n.ids.Load()
	}
	return p
}

// Add merges right into the list as the add_messages reducer does
// (AddMessages): a message whose ID is in the list replaces it, a
// RemoveMessage deletes the message with its ID, one with
// RemoveAllMessages drops everything before it, and other messages are
// appended; messages without an ID get the deterministic ID AddMessages
// gives them. The list itself is unchanged. When right only appends (the
// usual case), the result shares the list's messages and Add costs time
// in proportion to right; a replacement or a removal copies the list.
func (l MessageList) Add(right []Message) (MessageList, error) {
	// the messages channel's own add_messages, on a channel holding l
	c := newMessagesChan("").restore(l, true).(*messagesChan)
	if err := c.add(right); err != nil {
		return MessageList{}, err
	}
	return c.list, nil
}
