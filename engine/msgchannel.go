package engine

import (
	"fmt"
	"sync/atomic"
)

// messagesChan is the channel of a key reduced by add_messages. It behaves
// as a binop with AddMessagesReducer but keeps the cost of a superstep
// independent of the thread's length. Its value is a MessageList, which
// shares its messages with the values the channel handed out before:
//
//   - The channel's list is base, a MessageList, followed by tail, the
//     messages appended since, in an array the channel owns and appends to
//     in place. Every change makes the list handed out (get, checkpoint) a
//     node over the tail's current length; elements below a length handed
//     out are never written again (a replacement copies the tail, or the
//     list), so a checkpoint's list stays valid while the run appends.
//   - When the tail reaches half the size of base's last node, the channel
//     takes that node's messages into a new tail, so a list's nodes stay
//     O(log n) (see MessageList).
//   - A short tail that is full when an add appends becomes a node of
//     base, and the appends go on in a new array twice its size (a chunk):
//     a run's thread grows without copying its messages into ever larger
//     arrays, and the chunks, each twice the one before, keep the chain
//     O(log n) (see nextChunk).
//   - A channel restored from a checkpoint starts from the checkpoint's
//     list as its base: a run that continues a thread, or forks from any
//     of its checkpoints, appends without copying the thread. IDs are
//     found through the list's nodes, which index themselves once (and
//     keep the index for every list that shares them), and a small map of
//     the tail's positions when the tail is long.
//   - A message a task of a run without a checkpointer wrote without an ID
//     has a fresh ID the run made up (mintState): it is appended without
//     looking its ID up, and its position is indexed only when a later
//     lookup needs it (tailIdx): a graph that only appends such messages
//     never builds an index.
type messagesChan struct {
	key  string
	base MessageList
	tail []Message
	// list is base followed by tail, as handed out
	list MessageList
	// tailIDs maps the IDs of tail[:tailIdx] to their positions in tail,
	// once the tail is longer than scanMax and an ID is looked up; a
	// position is trusted only if it is within the tail and holds the ID
	tailIDs map[string]int
	tailIdx int
	// parentIDs, in a fork for a fresh read, is its channel's tailIDs,
	// read only: it covers the fork's tail[:parentIdx], and the fork
	// indexes only what comes after (its tailIdx starts there)
	parentIDs map[string]int
	parentIdx int
	// mint, set for the channels of a run without a checkpointer, tells
	// the IDs that run made up for its tasks' messages (see mintState)
	mint *mintState
	// prefix counts the leading messages unchanged since the last
	// checkpoint (see Checkpoint.ListPrefix).
	prefix int
	// room, when set, is a task's own list among the values of one
	// update (see listRoom)
	room *listRoom
	// forkMint is a fresh-read fork's copy of its channel's mintState
	forkMint mintState
	// chunk says the tail is a chunk that followed a full one (see
	// nextChunk): it is not merged with base's last node, that chunk
	chunk bool
	// own says the run built the list from empty so far: it is all in
	// arrays the channel grew itself, the first one sized by hint
	own bool
	// owner, in a fork in place (see forkInto), is the channel whose
	// tail the fork appends to; spare, in that channel, is the chunk its
	// fork started when that tail was full, which the channel's own add
	// of the same messages then takes (see nextChunk)
	owner *messagesChan
	spare []Message
	// hint, on a channel the graph made for a run (not one restored from
	// a checkpoint), is how long the graph's last runs built their lists
	// from empty (see sizeHint)
	hint *sizeHint
	// placed is the place after the tail where the superstep's single
	// task put the message it writes (see reserveMessage), until the
	// channel's next update
	placed *Message
	// forked, in a channel, is the last node a fork in place of it made
	// over its tail (commitTail): the superstep's single task read fresh
	// (the prebuilt agent's router), its fork appended the task's writes
	// where the channel then appends them, and the channel's node over
	// them is the fork's when it has the same predecessor and items and
	// no cache yet (bare): one list node (112 bytes) less per superstep
	// that reads fresh.
	forked *listNode
}

// sizeHint is a compiled graph's note, one per messages key, of the
// lengths the lists of its last two runs grew to from empty, in the
// arrays the channel grew itself: the next run's first array takes the
// smaller of the two, so a thread that a run builds to about the same
// length as the runs before (the prebuilt agent's loop) is one array,
// not a short first tail followed by chunks twice its size. The prebuilt
// agent's 22 messages took 35 places in three arrays (7.5 kB, 2.8 kB of
// it never written); with the hint they take 22 in one. The smaller of
// two, so that one long run does not make the next short ones allocate
// (and a saver keep) its length each: runs that alternate long and short
// ones grow in chunks from the short length, as without a hint. It
// changes only the arrays' capacities, never what a list holds, so runs
// that share a graph may race on it (atomically) without changing their
// output. A run whose list was set whole (a MessageList as input, a
// node's list taken as a node: see listRoom), or replaced (a removal, a
// replacement), notes nothing: what its arrays held says nothing of the
// next run's.
type sizeHint struct {
	// n holds the last run's length in its low 32 bits, the one before
	// in its high 32
	n atomic.Uint64
}

// get returns the number of places for a run's first array.
func (h *sizeHint) get() int {
	n := h.n.Load()
	return int(min(n>>32, n&(1<<32-1)))
}

// note records the length a run built its list to (at most maxChunk).
// Runs that end at once may lose one's note: the hint is only a guess.
func (h *sizeHint) note(n int) {
	h.n.Store(h.n.Load()<<32 | uint64(min(n, maxChunk)))
}

// listRoom is a list a node made for its output alone, a ToolNode's
// answers in a graph: nobody writes its array once the node returned it
// (the node hands it out clipped, and the task's IDs are given in place
// before the superstep applies it). A messages channel of a run without a
// checkpointer that appends the whole list, every message with an ID the
// run made up (so none replaces one of the list: see mintState), takes
// the list as a node of its own list instead of copying it.
type listRoom struct {
	full []Message
	// taken says a channel took the list: a list written to two channels
	// is in one of them only
	taken bool
	// minted says the task gave every message of the list its ID, in
	// order, in one pass (task.mintInPlace), none of them a removal: the
	// IDs are the task's next len(full) IDs, so a channel checks the
	// first and the last for all of them (mintState.freshRun)
	minted bool
}

// make returns a list of n messages, which r describes from then on.
func (r *listRoom) make(n int) []Message {
	r.full = make([]Message, n)
	return r.full[:n:n]
}

// holds reports whether msgs is r's list, all of it.
func (r *listRoom) holds(msgs []Message) bool {
	return r != nil && len(msgs) > 0 && len(msgs) == len(r.full) && &msgs[0] == &r.full[0]
}

const (
	// scanMax is the longest run of messages searched without an index.
	scanMax = 32
)

func newMessagesChan(key string) *messagesChan {
	return &messagesChan{key: key}
}

// len is the number of messages in the channel.
func (c *messagesChan) len() int { return c.list.Len() }

func (c *messagesChan) get() (any, bool)        { return c.list, true }
func (c *messagesChan) consume() bool           { return false }
func (c *messagesChan) finish() bool            { return false }
func (c *messagesChan) checkpoint() (any, bool) { return c.list, true }

// view is the channel's messages as one slice (see MessageList.Slice).
func (c *messagesChan) view() []Message { return c.list.Slice() }

// setList makes l the channel's list, with an empty tail.
func (c *messagesChan) setList(l MessageList) {
	c.base, c.tail, c.list, c.own, c.forked = l, nil, l, false, nil
	c.tailIDs, c.tailIdx, c.parentIDs, c.parentIdx = nil, 0, nil, 0
	c.chunk, c.spare = false, nil
}

// commitTail makes tail (which starts with the channel's tail, or is a
// copy of it) the channel's tail, and the list handed out base + tail.
// When the tail has reached half the size of base's last node, that node
// is taken into the tail (one copy), so the chain stays short.
func (c *messagesChan) commitTail(tail []Message) {
	if b := c.base.n; b != nil && cap(c.tail) > 0 && arrayOf(tail) == arrayOf(c.tail) {
		// appended in place: a fork in place of a failed attempt may have
		// written (and sliced) other messages there (see forgetFlatPast)
		b.forgetFlatPast(tail, len(c.tail))
	}
	if len(tail) == 0 {
		c.tail, c.list = tail, c.base
		return
	}
	if b := c.base.n; b != nil && !c.chunk && 2*len(tail) >= len(b.items) {
		merged := make([]Message, len(b.items)+len(tail), len(b.items)+len(tail)+max(len(tail)/2, 4))
		copy(merged, b.items)
		copy(merged[len(b.items):], tail)
		if b.prev != nil && len(b.items) > 0 {
			b.prev.rekeyFlat(b.items, merged, len(b.items))
		}
		// positions move by the node's length: index again when asked
		// (a fork's read of its channel's index too)
		c.tailIDs, c.tailIdx, c.parentIDs, c.parentIdx = nil, 0, nil, 0
		c.base, tail = MessageList{n: b.prev}, merged
	}
	c.tail = tail
	if f := c.forked; f != nil && f.prev == c.base.n && len(f.items) == len(tail) && arrayOf(f.items) == arrayOf(tail) && f.bare() {
		// the node a fork in place made over the same places: the same
		// node as the one made here would be (see forked)
		c.list, c.forked = MessageList{n: f}, nil
		return
	}
	c.list = MessageList{n: newListNode(c.base.n, tail[:len(tail):len(tail)])}
	if o := c.owner; o != nil {
		o.forked = c.list.n
	}
}

func (c *messagesChan) restore(v any, ok bool) channel {
	n := newMessagesChan(c.key)
	if !ok {
		return n
	}
	if l, isList := v.(MessageList); isList && l.n.chainFlags()&flagMissingID == 0 {
		// a list a channel made (or a caller's list whose messages all
		// have IDs): kept as it is
		n.setList(l)
		n.prefix = l.Len()
		return n
	}
	msgs, err := MessagesFromValue(v)
	if err != nil {
		// not a message list: keep it as a plain reducer channel does,
		// so the error shows where the value is used
		return newBinop(c.key, AddMessagesReducer{}).restore(v, true)
	}
	// add_messages gives the messages of its left side IDs too
	msgs = withIDs(msgs, "left", 0)
	n.setList(MessageList{}.appendOwned(append([]Message(nil), msgs...)))
	n.prefix = len(msgs)
	return n
}

// forkInto returns n made a copy of the channel for a fresh read,
// whatever n held before (all of it is replaced): a task's fresh read
// forks into a channel the task keeps for it, instead of allocating one
// per read. With inPlace the copy appends into this channel's spare
// capacity, and a chunk it starts when that is full becomes the
// channel's next one (nextChunk): only for a superstep's single task,
// whose writes the superstep later applies here in the same order, so
// the messages written there are the ones this channel writes again.
func (c *messagesChan) forkInto(n *messagesChan, inPlace bool) *messagesChan {
	// the fork's own tail index starts empty: its appends must not write
	// into the channel's, which it reads (parentIDs)
	*n = messagesChan{key: c.key, base: c.base, tail: c.tail[:len(c.tail):len(c.tail)], list: c.list, prefix: c.prefix, chunk: c.chunk}
	if c.tailIDs != nil {
		// the channel's index of its tail serves the fork, which does
		// not write it (forks of one superstep read it at once; the
		// channel changes only when the superstep applies its writes)
		n.parentIDs, n.parentIdx, n.tailIdx = c.tailIDs, c.tailIdx, c.tailIdx
	}
	if inPlace {
		n.tail, n.owner = c.tail, c
	}
	if c.mint != nil {
		// a copy of the channel's mintState: the fork appends the IDs
		// the run made up without looking them up, and forks of one
		// superstep run at once on their tasks' goroutines
		n.forkMint = *c.mint
		n.mint = &n.forkMint
	}
	return n
}

// resetPrefix is called when a checkpoint takes the channel's list: the
// list's messages are unchanged from then on. It also seals the tail
// (see seal).
func (c *messagesChan) resetPrefix() {
	c.prefix = c.len()
	c.seal()
}

// seal makes the list handed out the channel's base when the tail has an
// index (a long tail), so that index, which covers the node the list ends
// with, can become that node's own: the runs restored from the checkpoint
// (a thread continued or forked) find IDs without indexing the node
// again. Appends go on in a new tail.
func (c *messagesChan) seal() {
	if len(c.tail) == 0 || c.tailIDs == nil {
		// a tail without an index (a short one) goes on in its array:
		// the list handed out is clipped to its length
		return
	}
	c.sealTail()
	c.chunk, c.spare = false, nil
}

// sealTail makes the list handed out, which ends with a node over the
// whole tail, the channel's base, and the tail empty. A complete index of
// the tail becomes the node's own.
func (c *messagesChan) sealTail() {
	if ids := c.tailIDs; ids != nil && c.parentIDs == nil && c.tailIdx <= len(c.tail) {
		for ; c.tailIdx < len(c.tail); c.tailIdx++ {
			ids[c.tail[c.tailIdx].ID] = c.tailIdx
		}
		if len(ids) == len(c.tail) {
			// no ID twice (the map has one entry per message)
			c.list.n.ids.CompareAndSwap(nil, &ids)
		}
	}
	c.base, c.tail, c.tailIDs, c.tailIdx, c.parentIDs, c.parentIdx = c.list, nil, nil, 0, nil, 0
}

// find returns the position of the message with id in the list base +
// tail, where tail is the add's working tail (it starts with the
// channel's).
func (c *messagesChan) find(tail []Message, id string) (int, bool) {
	nb := c.base.Len()
	if len(tail) <= scanMax {
		for i := len(tail) - 1; i >= 0; i-- {
			if tail[i].ID == id {
				return nb + i, true
			}
		}
	} else {
		if c.tailIDs == nil {
			c.tailIDs = make(map[string]int, 2*(len(tail)-c.tailIdx))
		}
		for ; c.tailIdx < len(tail); c.tailIdx++ {
			c.tailIDs[tail[c.tailIdx].ID] = c.tailIdx
		}
		if i, ok := c.tailIDs[id]; ok && i < len(tail) && tail[i].ID == id {
			return nb + i, true
		}
		if i, ok := c.parentIDs[id]; ok && i < c.parentIdx && i < len(tail) && tail[i].ID == id {
			return nb + i, true
		}
	}
	if i := c.base.Index(id); i >= 0 {
		return i, true
	}
	return 0, false
}

func (c *messagesChan) update(values []any) (bool, error) {
	defer func() { c.room = nil }()
	if len(values) == 0 {
		return false, nil
	}
	if p := c.placedAt(); p != nil {
		values = c.takePlaced(values, p)
	}
	for _, v := range values {
		if l, ok := v.(MessageList); ok && c.len() == 0 && l.isSet() {
			// add_messages of such a list into an empty one is the list
			c.setList(l)
			c.prefix = 0
			c.mint.seeList(l)
			continue
		}
		right, err := MessagesFromValue(v)
		if err != nil {
			return false, fmt.Errorf("at key '%s': %w", c.key, err)
		}
		if err := c.add(right); err != nil {
			return false, fmt.Errorf("at key '%s': %w", c.key, err)
		}
	}
	return true, nil
}

// add is add_messages of right into the channel (see AddMessages). The
// channel changes only when it succeeds.
func (c *messagesChan) add(right []Message) error {
	if c.takeRoom(right) {
		// every message of right has an ID the run made up, new to the
		// list: none is a removal, none needs an ID
		return nil
	}
	right = withIDs(right, "right", c.len())
	for i := len(right) - 1; i >= 0; i-- {
		if m := right[i]; m.Type == TypeRemove && m.ID == RemoveAllMessages {
			rest := right[i+1:]
			c.setList(MessageList{}.appendOwned(append([]Message(nil), rest...)))
			c.mint.see(rest)
			c.prefix = 0
			return nil
		}
	}
	c.nextChunk(right)
	nb := c.base.Len()
	tail := c.tail
	kept := c.len()
	copied := false
	var (
		replaced map[int]Message // positions in base
		remove   map[string]bool
	)
	for k := 0; k < len(right); k++ {
		m := &right[k]
		if c.mint.fresh(m) {
			// IDs this run made up for a task's messages, new to the
			// list: the run of them appended at once, untracked (find
			// indexes them when it must)
			j := k + 1
			for j < len(right) && c.mint.fresh(&right[j]) {
				j++
			}
			if len(tail)+j-k > cap(tail) {
				tail = c.grow(tail, len(right)-k)
			}
			tail = append(tail, right[k:j]...)
			k = j - 1
			continue
		}
		if i, ok := c.find(tail, m.ID); ok {
			kept = min(kept, i)
			if m.Type == TypeRemove {
				if remove == nil {
					remove = map[string]bool{}
				}
				remove[m.ID] = true
				continue
			}
			delete(remove, m.ID)
			if i < nb {
				if replaced == nil {
					replaced = map[int]Message{}
				}
				replaced[i] = *m
				continue
			}
			if !copied {
				// elements below the length are shared with the values
				// handed out: copy before writing one
				tail = append(make([]Message, 0, cap(tail)), tail...)
				copied = true
			}
			tail[i-nb] = *m
			continue
		}
		if m.Type == TypeRemove {
			if c.tailIDs != nil && c.tailIdx > len(c.tail) {
				c.tailIDs, c.tailIdx, c.parentIDs, c.parentIdx = nil, 0, nil, 0
			}
			return NewError("ValueError", fmt.Sprintf("Attempting to delete a message with an ID that doesn't exist ('%s')", m.ID))
		}
		if len(tail) == cap(tail) {
			tail = c.grow(tail, len(right)-k)
		}
		tail = append(tail, *m)
	}
	if len(replaced) > 0 || len(remove) > 0 {
		// a replacement in base, or a removal: the list is copied once
		out := rebuild(c.base, replaced, tail, remove)
		c.setList(MessageList{})
		c.commitTail(out)
		c.prefix = min(c.prefix, kept)
		return nil
	}
	if copied || len(tail) != len(c.tail) {
		c.commitTail(tail)
	}
	c.prefix = min(c.prefix, kept)
	return nil
}

// reserveMessage puts m in the place where the messages channel of key
// appends next and returns the node output that writes it there
// (messageUpdateIn), or nil when it cannot: the task must be its
// superstep's only one (whose writes are the superstep's, in order), the
// channel's tail must have room, and the list written must be the one
// kept (updates not streamed, which would show the list as the node
// wrote it, without the ID the run gives it in place: normalizeOne).
//
// With a saver, the task's write (PutWrites) then shares the message
// with the channel's list, which appends it without copying it
// (takePlaced): the prebuilt agent held each message twice, in the
// node's output (256 bytes) and in the channel's array (216). No one
// writes the place again: the channel's update takes the message there
// only when it is the first value of the update and only appends, and
// otherwise clips its tail so that no append writes the place; below the
// tail's length nothing is written (see messagesChan). A task's writes
// are kept (and streamed) only once it succeeded, and its superstep then
// applies them, or ends the run; a retry puts its message in the same
// place as the failed attempt, which nothing kept.
func (r *run) reserveMessage(key string, m Message) *placedMessage {
	if len(r.tasks) != 1 || r.modes.has(StreamUpdates) {
		return nil
	}
	i, ok := r.g.chanIdx[key]
	if !ok {
		return nil
	}
	c, ok := r.chans[i].(*messagesChan)
	if !ok {
		return nil
	}
	place := c.place(m)
	if place == nil {
		return nil
	}
	// the graph's name of the channel: a key of 16 bytes less
	return &placedMessage{list: place, key: &r.g.chanNames[i]}
}

// place puts m in the place after the tail and returns the list of it
// alone, or nil when the tail is full (see reserveMessage).
func (c *messagesChan) place(m Message) []Message {
	n := len(c.tail)
	if n == cap(c.tail) {
		return nil
	}
	place := c.tail[n : n+1 : n+1]
	place[0] = m
	c.placed = &place[0]
	return place
}

// placedAt returns the place of the message a node put after the
// tail (reserveMessage): the channel's, or, for a fork in place, its
// channel's, whose tail the fork appends to.
func (c *messagesChan) placedAt() *Message {
	if c.owner != nil {
		return c.owner.placed
	}
	return c.placed
}

// takePlaced appends the message at p, the place after the tail, without
// copying it, when the first of values is the list of it alone and
// add_messages only appends it; it returns the values left to apply.
// Otherwise it clips the tail, so that the appends of values go to a new
// array and the place keeps its message, which the task's write may
// hold. The channel forgets p either way (a fork leaves it to its
// channel).
func (c *messagesChan) takePlaced(values []any, p *Message) []any {
	if c.owner == nil {
		c.placed = nil
	}
	n := len(c.tail)
	if n == cap(c.tail) {
		return values
	}
	if msgs, ok := values[0].([]Message); ok && len(msgs) == 1 && &msgs[0] == p && &c.tail[:n+1][n] == p &&
		p.ID != "" && c.appendsOnly(msgs) {
		c.mint.see(msgs)
		c.commitTail(c.tail[:n+1])
		return values[1:]
	}
	c.tail = c.tail[:n:n]
	return values
}

// maxChunk is the longest tail that nextChunk seals: a longer one grows
// by an eighth (growTail), so a thread built in one run does not keep up
// to half its length in spare capacity.
const maxChunk = 1024

// nextChunk starts a new tail, twice the size of the full one, when the
// tail is full, shorter than maxChunk, and add_messages of right into the
// list only appends (no message of right is a removal or has the ID of
// one in the list): the full tail becomes a node of base (sealTail), its
// messages not copied. growTail would copy them into an array twice as
// large, and a checkpoint's list would keep the old array alive beside
// the new one: a run of the prebuilt agent to 22 messages copied 17 and
// allocated 43 places for them; in chunks it allocates 35 and copies
// none.
//
// Chunks start on an empty base and double, so they make O(log n) nodes;
// a chunk is not merged with the node before it (commitTail), which is
// the tail it followed. Once a checkpoint seals the tail (seal), or on a
// list restored from one, tails merge into base's last node as before, so
// the nodes on top of the chunks stay O(log n) too. A replacement of a
// message in base would copy the whole list (rebuild): such an add grows
// the tail as before.
func (c *messagesChan) nextChunk(right []Message) {
	n := len(c.tail)
	if n == 0 || n != cap(c.tail) || n >= maxChunk || c.base.n != nil && !c.chunk {
		// chunks start on an empty base (a thread built in the run) and
		// go on while each one fills; a tail over a base it did not
		// start merges into base's last node (commitTail), which keeps
		// the nodes on top of the chunks logarithmic
		return
	}
	if !c.appendsOnly(right) {
		return
	}
	full := c.tail
	chunk := c.spare
	if cap(chunk) != 2*n {
		chunk = make([]Message, 0, 2*n)
	} else {
		// the fork's places are written again (its attempt may have
		// failed, with other messages): see forgetFlatPast
		c.list.n.forgetFlatPast(chunk, 0)
	}
	c.sealTail()
	c.tail, c.chunk, c.spare = chunk[:0], true, nil
	if o := c.owner; o != nil && len(o.tail) == n && cap(o.tail) == n && &o.tail[0] == &full[0] {
		// a fork in place starts the chunk its channel starts when it
		// applies the same writes (forkInto): the channel takes this
		// one, whose places it writes with the messages written here
		o.spare = chunk
	}
}

// appendsOnly reports whether add_messages of right into the list
// appends every message of it: none is a removal or has the ID of one in
// the list. It leaves the channel's mintState as it found it.
func (c *messagesChan) appendsOnly(right []Message) bool {
	if c.mint != nil {
		max := c.mint.max
		defer func() { c.mint.max = max }()
	}
	for k := range right {
		m := &right[k]
		if m.Type == TypeRemove {
			return false
		}
		if c.mint.fresh(m) {
			continue
		}
		if _, found := c.find(c.tail, m.ID); found {
			return false
		}
	}
	return true
}

// rebuild returns l's messages with those at the positions of replaced
// replaced, followed by tail, without the messages whose ID is in remove:
// add_messages of a write that replaces or removes messages, in one copy.
func rebuild(l MessageList, replaced map[int]Message, tail []Message, remove map[string]bool) []Message {
	out := make([]Message, 0, l.Len()+len(tail))
	for i, m := range l.All() {
		if r, ok := replaced[i]; ok {
			m = r
		}
		out = append(out, m)
	}
	out = append(out, tail...)
	if len(remove) > 0 {
		kept := out[:0]
		for _, m := range out {
			if !remove[m.ID] {
				kept = append(kept, m)
			}
		}
		out = kept
	}
	return out
}

// takeRoom appends right as a node of the channel's list, without
// copying it, when right is the update's room (see listRoom) and every
// message of it has an ID the run made up and no message of the list has.
// A room whose task minted every ID (listRoom.minted) is checked by its
// first and last IDs (freshRun); another, message by message.
func (c *messagesChan) takeRoom(right []Message) bool {
	r := c.room
	if r == nil || r.taken || c.mint == nil || !r.holds(right) || c.list.n.depthAtLeast(maxRoomDepth) {
		// a list whose nodes rooms made one after another takes the
		// next one by copying (the add's merges keep its chain short)
		return false
	}
	if !r.minted || !c.mint.freshRun(right) {
		max := c.mint.max
		for k := range right {
			if !c.mint.fresh(&right[k]) {
				c.mint.max = max
				return false
			}
		}
	}
	r.taken = true
	c.setList(MessageList{n: newListNode(c.list.n, right)})
	return true
}

// maxRoomDepth is the longest chain a taken room may extend.
const maxRoomDepth = 24

// grow is growTail for add's working tail, which starts with the
// channel's: the slices of the lists over the tail go on in the same
// array after the copy (see rekeyFlat).
func (c *messagesChan) grow(tail []Message, n int) []Message {
	if len(tail) == 0 && c.base.n == nil && c.hint != nil {
		// the first array of a list the run builds from empty
		c.own = true
		if h := c.hint.get(); h > n {
			return make([]Message, 0, h)
		}
	}
	out := growTail(tail, n)
	if b := c.base.n; b != nil && cap(c.tail) > 0 && arrayOf(tail) == arrayOf(c.tail) {
		b.rekeyFlat(c.tail, out, len(c.tail))
	}
	return out
}

// growTail returns tail in a new array with room for at least n more: it
// doubles short tails, as append does, and grows long ones by an eighth
// (append's quarter is memory that the GC scans for nothing).
func growTail(tail []Message, n int) []Message {
	want := len(tail) + n
	extra := max(want/8, 4)
	if want < 1024 && n <= len(tail) {
		extra = max(want, 4)
	}
	// make of a length, then copy: the compiler turns the pair into one
	// runtime call (makeslicecopy) whose write barriers shade only the
	// source's pointers
	out := make([]Message, want+extra)
	copy(out, tail)
	return out[:len(tail)]
}

// noteSizes notes in the graph's hints the lengths its messages channels
// built their lists to from empty in the run (see sizeHint). It is
// called when the run ends, however it ends.
func (r *run) noteSizes() {
	for _, c := range r.chans {
		if mc, ok := c.(*messagesChan); ok {
			mc.noteSize()
		}
	}
}

// noteSize notes the channel's length in its hint when the run built its
// list from empty in arrays of its own.
func (c *messagesChan) noteSize() {
	if c.hint != nil && c.own {
		c.hint.note(c.len())
	}
}

// mintState lets a messages channel of a run without a checkpointer
// append the messages the run's tasks wrote without an ID as they are,
// without looking their IDs up: add_messages appends a message whose ID
// is not in the list, and such an ID is new by construction.
//
// The run made it up as a fast ID (see fastID): key and the numbers
// step, task and counter, packed in one integer that a lookup recovers
// from the ID (parseFastMessageID). The channel keeps max, the largest
// packed integer among the IDs it appended, and every ID in its list
// that parses as one of the run's has a packed integer ≤ max:
//
//   - the list starts with none: it starts empty (no checkpointer), its
//     input's messages have IDs the caller gave or ones hashed from the
//     seed (seededIDs), and an input cannot hold an ID made up from the
//     key, since the key is the SHA-256 of the input itself (seedOf);
//   - every message appended goes through fresh, which raises max to the
//     packed integer of an ID that parses, and a RemoveAll's survivors
//     through see.
//
// So an ID that parses above max is in no message of the list, and
// appending it is what add_messages does; fresh says so for it (and
// raises max). Any other ID is looked up as before: one at or below max
// (the same ID written again to replace its message), one of another
// run, a caller's. The numbers grow with the superstep and with a task's
// own counter, so the messages a task wrote without an ID take the short
// way; only those of a task that a superstep applies after a task of a
// higher position (task order is by name and path) are looked up.
//
// Forks for a fresh read have no mintState (they run concurrently on
// their tasks' goroutines and are short-lived); nor do channels restored
// from a checkpoint (runs with a checkpointer make hashed IDs).
type mintState struct {
	key [2]uint64
	max uint64
	// input holds the last nodes of the MessageLists of the run's input:
	// their messages cannot hold an ID made up from the key (see above),
	// so seeList does not read the nodes of their chains
	input []*listNode
}

// fresh reports whether m's ID is one the run made up for a task's
// message and no message of the list has (see mintState), and notes it.
// A nil state reports false.
func (s *mintState) fresh(m *Message) bool {
	if s == nil || m.Type == TypeRemove {
		return false
	}
	p, ok := parseFastMessageID(s.key, m.ID)
	if !ok {
		return false
	}
	if p > s.max {
		s.max = p
		return true
	}
	return false
}

// freshRun is fresh for every message of msgs, whose IDs are the next
// len(msgs) IDs a task made up, given in order (listRoom.minted): a task's
// message IDs are fast IDs of consecutive packed integers (its counter in
// the low bits) while its counter is below 2^20, and hashed ones after
// that. So when the first parses above max and the last parses as the
// first plus len(msgs)-1, every one between is a fast ID above max and
// below the last, and no two are alike: each is fresh, and max becomes
// the last's. It reports false, and notes nothing, otherwise.
func (s *mintState) freshRun(msgs []Message) bool {
	n := len(msgs)
	if s == nil || n == 0 {
		return false
	}
	p, ok := parseFastMessageID(s.key, msgs[0].ID)
	if !ok || p <= s.max {
		return false
	}
	q, ok := parseFastMessageID(s.key, msgs[n-1].ID)
	if !ok || q-p != uint64(n-1) {
		return false
	}
	s.max = q
	return true
}

// see notes the IDs of msgs, added to the list without fresh.
func (s *mintState) see(msgs []Message) {
	if s == nil {
		return
	}
	for i := range msgs {
		if p, ok := parseFastMessageID(s.key, msgs[i].ID); ok && p > s.max {
			s.max = p
		}
	}
}

// armMint gives the messages channels of a run without a checkpointer
// the key of the IDs the run makes up (see mintState). It is called once
// the run has its key and its (empty) channels.
func (r *run) armMint(input any) {
	if r.saver != nil {
		return
	}
	var lists []*listNode
	for _, c := range r.chans {
		if mc, ok := c.(*messagesChan); ok && mc.len() == 0 {
			if lists == nil {
				lists = inputLists(input)
			}
			mc.mint = &mintState{key: r.idKey, input: lists}
		}
	}
}

// seeList notes the IDs of l, which became the channel's list without
// fresh.
func (s *mintState) seeList(l MessageList) {
	if s == nil {
		return
	}
	for n := l.n; n != nil && !s.fromInput(n); n = n.prev {
		for i := range n.items {
			if p, ok := parseFastMessageID(s.key, n.items[i].ID); ok && p > s.max {
				s.max = p
			}
		}
	}
}

// fromInput reports whether n is a node of one of the input's lists.
func (s *mintState) fromInput(n *listNode) bool {
	for _, in := range s.input {
		for x := in; x != nil && x.off+len(x.items) >= n.off+len(n.items); x = x.prev {
			if x == n {
				return true
			}
		}
	}
	return false
}

// inputLists returns the last nodes of the MessageLists among the values
// of a run's input (a State or a map), never nil.
func inputLists(input any) []*listNode {
	out := []*listNode{}
	add := func(v any) {
		if l, ok := v.(MessageList); ok && l.n != nil {
			out = append(out, l.n)
		}
	}
	switch in := input.(type) {
	case State:
		for _, v := range in {
			add(v)
		}
	case map[string]any:
		for _, v := range in {
			add(v)
		}
	}
	return out
}
