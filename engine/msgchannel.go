package engine

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"weak"
)

// messagesChan is the channel of a key reduced by add_messages. It behaves
// as a binop with AddMessagesReducer but keeps the cost of a superstep
// independent of the thread's length:
//
//   - Messages are appended in place. The spare capacity of the channel's
//     array is written only by the channel that owns it: every value handed
//     out (get, checkpoint) is clipped to its length, elements below a
//     length are never written again (a replacement or removal copies the
//     list first), so a checkpoint's list stays valid while runs go on
//     appending.
//   - Ownership of an array's spare capacity is recorded in its arrayClaim.
//     A run gives it back when it ends, so the next run restored from the
//     thread's newest checkpoint (a thread that grows turn by turn) takes it
//     and appends in place too. A run restored from an older checkpoint (a
//     fork), or one whose list the graph no longer remembers, copies the
//     list once.
//   - IDs are found through an index that outlives the run: an immutable
//     id → position map for the first n messages (idIndex), shared with the
//     checkpoints the channel takes and with the channels later restored
//     from them, plus a small map of the positions appended since.
//   - A message a task of a run without a checkpointer wrote without an ID
//     has a fresh ID the run made up (mintState): it is appended without
//     looking its ID up, and its position is indexed only when a later
//     lookup needs it (gap). W1's graph (256 tool messages, then END)
//     never builds an index.
//
// Short lists are scanned instead; their maps would cost more than they
// save.
type messagesChan struct {
	key  string
	msgs []Message
	// boxed is view() as an any, made when msgs changes: get is called
	// for every reader, concurrently, and boxing a slice allocates (views
	// cuts the boxes from blocks)
	boxed any
	views viewSlab
	// idx covers msgs[:idx.n]; delta maps the IDs of msgs[idx.n:] (or of
	// all msgs when idx is nil and the list is long) to their positions.
	idx   *idIndex
	delta map[string]int
	// gap, when idx is set, is the first position of msgs that may be
	// missing from delta (appended without a lookup: see mintState), noGap
	// when none is; find tracks them before it looks an ID up.
	gap int
	// mint, set for the channels of a run without a checkpointer, tells
	// the IDs that run made up for its tasks' messages (see mintState);
	// a fork's points at its own copy, forkMint
	mint     *mintState
	forkMint mintState
	// parentDelta is the delta of the channel this one was forked from
	// for a fresh read, read only.
	parentDelta map[string]int
	// prefix counts the leading messages unchanged since the last
	// checkpoint (see Checkpoint.ListPrefix).
	prefix int
	// claim records who may write the spare capacity of msgs's array;
	// owned says this channel does (msgs then reaches it). A fork for a
	// fresh read is owned with no claim: it borrows its parent's capacity.
	claim *arrayClaim
	owned bool
	// hint, when set, describes a long list the run's input is about to
	// add (see listHint); the channel's first add consumes it.
	hint *listHint
}

// arrayClaim is the shared record of who may write a message array beyond
// the lengths already handed out: positions below end are taken. The
// owner takes every spare position at once (end = cap) and gives back
// those it did not use when its run ends.
type arrayClaim struct {
	full []Message // the array, len = cap
	end  atomic.Int64
}

// newClaim returns the claim of a new array, owned by its maker.
func newClaim(msgs []Message) *arrayClaim {
	cl := &arrayClaim{full: msgs[:cap(msgs)]}
	cl.end.Store(int64(cap(msgs)))
	return cl
}

// sameArray reports whether msgs is a view of the claim's array.
func (cl *arrayClaim) sameArray(msgs []Message) bool {
	return cl != nil && cap(msgs) > 0 && &msgs[:1][0] == &cl.full[0]
}

// idIndex maps message IDs to positions in the first n messages of a
// list. It is never modified once built, so channels and checkpoints of
// several runs share it.
type idIndex struct {
	pos map[string]int
	n   int
}

// listIndex is what the graph remembers of a message array: the newest
// ID index taken over it and its claim. The index serves every list on
// that array, whatever its length: elements below a list's length never
// change, so the index's positions below it are right, and find checks a
// position against the list before it trusts it.
type listIndex struct {
	idx   *idIndex
	claim *arrayClaim
}

// listCache keeps the ID indexes and array claims of the message lists a
// graph's runs checkpointed, so a run restored from a checkpoint whose
// saver kept the list itself (Memory) finds IDs without indexing the whole
// thread again and may append to the list in place. Entries are keyed by a
// weak pointer to the list's array; it holds the listCacheSize most
// recently used (an array stays alive while its claim is held here).
type listCache struct {
	mu      sync.Mutex
	entries map[weak.Pointer[Message]]listIndex
	order   []weak.Pointer[Message] // oldest first
}

const listCacheSize = 16

func newListCache() *listCache {
	return &listCache{entries: map[weak.Pointer[Message]]listIndex{}}
}

// put remembers the index and claim of the channel's list (nothing when
// it has neither).
func (lc *listCache) put(c *messagesChan) {
	if lc == nil || len(c.msgs) == 0 || (c.idx == nil && c.claim == nil) {
		return
	}
	key := weak.Make(&c.msgs[0])
	li := listIndex{idx: c.idx, claim: c.claim}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	old, ok := lc.entries[key]
	if li.idx == nil {
		li.idx = old.idx
	}
	if !ok && len(lc.order) == listCacheSize {
		delete(lc.entries, lc.order[0])
		lc.order = append(lc.order[:0], lc.order[1:]...)
	}
	lc.entries[key] = li
	lc.touch(key)
}

// touch moves key to the back of the order (most recently used).
func (lc *listCache) touch(key weak.Pointer[Message]) {
	if i := slices.Index(lc.order, key); i >= 0 {
		lc.order = append(lc.order[:i], lc.order[i+1:]...)
	}
	lc.order = append(lc.order, key)
}

// get returns the index remembered for the list v, if any.
func (lc *listCache) get(v any) listIndex {
	msgs, ok := v.([]Message)
	if lc == nil || !ok || len(msgs) == 0 {
		return listIndex{}
	}
	key := weak.Make(&msgs[0])
	lc.mu.Lock()
	li, ok := lc.entries[key]
	if ok {
		lc.touch(key)
	}
	lc.mu.Unlock()
	return li
}

const (
	// scanMax is the longest list searched without an index.
	scanMax = 32
	// deltaMax is how many appended positions the channel tracks in its
	// own map before it builds a new shared index (amortized: one index of
	// M entries per deltaMax appends).
	deltaMax = 64
)

// noGap is messagesChan.gap when every position is tracked.
const noGap = int(^uint(0) >> 1)

func newMessagesChan(key string) *messagesChan {
	c := &messagesChan{key: key, gap: noGap}
	c.set([]Message{})
	return c
}

// emptyList is the boxed empty list every empty channel hands out (no
// holder can write it: it has no capacity).
var emptyList any = []Message{}

// set makes msgs the channel's list.
func (c *messagesChan) set(msgs []Message) {
	c.msgs = msgs
	if len(msgs) == 0 {
		c.boxed = emptyList
		return
	}
	// the views the array may still have: one per length up to its
	// capacity, when the channel appends in place
	c.boxed = c.views.box(c.view(), cap(msgs)-len(msgs)+1)
}

// viewSlab boxes the views of a channel's list with their slice headers
// cut from a block, each header written once and then boxed in place
// (boxAt): a list boxed after every add (W3: three times a cycle) costs
// an allocation per block, not per add. A block holds views of one array
// only (another array starts a new block), so a view that outlives the
// channel keeps alive nothing its own array does not, but the block's
// few headers; and a block is sized by the views its array may still
// have (room), so a list that cannot grow in place boxes as before.
type viewSlab struct {
	first *Message    // the array the block's views are of
	free  [][]Message // the block's unused headers
}

// viewBlockMax is the most headers a block holds (24 bytes each).
const viewBlockMax = 16

// box returns any(v) for a view v of at least one message; room bounds
// how many more views of v's array are to come.
func (s *viewSlab) box(v []Message, room int) any {
	if first := &v[0]; first != s.first || len(s.free) == 0 {
		s.first, s.free = first, make([][]Message, min(max(room, 1), viewBlockMax))
	}
	p := &s.free[0]
	s.free = s.free[1:]
	*p = v
	return boxMessages(p)
}

func (c *messagesChan) get() (any, bool)        { return c.boxed, true }
func (c *messagesChan) consume() bool           { return false }
func (c *messagesChan) finish() bool            { return false }
func (c *messagesChan) checkpoint() (any, bool) { return c.boxed, true }

// view is the value as others see it: clipped, so an append by its holder
// copies instead of writing into the channel's spare capacity.
func (c *messagesChan) view() []Message { return c.msgs[:len(c.msgs):len(c.msgs)] }

func (c *messagesChan) restore(v any, ok bool) channel {
	return c.restoreIndexed(v, ok, listIndex{})
}

// restoreIndexed is restore with the index a checkpoint kept for v.
func (c *messagesChan) restoreIndexed(v any, ok bool, li listIndex) channel {
	n := newMessagesChan(c.key)
	if !ok {
		n.prefix = 0
		return n
	}
	msgs, err := MessagesFromValue(v)
	if err != nil {
		// not a message list: keep it as a plain reducer channel does,
		// so the error shows where the value is used
		return newBinop(c.key, AddMessagesReducer{}).restore(v, true)
	}
	if msgs == nil {
		msgs = []Message{}
	}
	n.prefix = len(msgs)
	if li.idx != nil || li.claim != nil {
		// a list a channel made: its messages have IDs
		n.set(msgs[:len(msgs):len(msgs)])
		if li.claim.sameArray(msgs) {
			n.claim = li.claim
		}
		if n.idx = li.idx; n.idx != nil {
			for i := n.idx.n; i < len(msgs); i++ {
				n.track(msgs[i].ID, i)
			}
		}
		return n
	}
	// add_messages gives the messages of its left side IDs too
	msgs = withIDs(msgs, "left", 0)
	n.set(msgs[:len(msgs):len(msgs)])
	return n
}

// fork returns a copy for a fresh read. With inPlace the copy appends into
// this channel's spare capacity: only for a superstep's single task, whose
// writes the superstep later applies here in the same order, so the
// messages written there are the ones this channel writes again.
func (c *messagesChan) fork(inPlace bool) *messagesChan {
	return c.forkInto(new(messagesChan), inPlace)
}

// forkInto is fork into n, whatever n held before (all of it is
// replaced): a task's fresh read forks into a channel the task keeps for
// it, instead of allocating one per read.
func (c *messagesChan) forkInto(n *messagesChan, inPlace bool) *messagesChan {
	// the fork's boxes come from its own blocks (it boxes on its task's
	// goroutine), kept from one fork into n to the next
	*n = messagesChan{key: c.key, boxed: c.boxed, msgs: c.view(), idx: c.idx, gap: c.gap, prefix: c.prefix, views: n.views}
	if c.mint != nil {
		// forks run on their tasks' goroutines: each appends the IDs the
		// run made up with a copy of the channel's state (see mintState),
		// instead of looking every ID up (a scan of the list, or an index
		// of it built for every fresh read once it is long)
		n.forkMint = *c.mint
		n.mint = &n.forkMint
	}
	if inPlace && c.owned {
		if len(c.msgs) == cap(c.msgs) && c.claim != nil {
			// no room left for the fork's appends: the channel takes the
			// array its own add would grow into now, so that the fork and
			// then the superstep append into one new array instead of
			// each growing its own (W3: one array of 12 messages a run).
			// Its value, the messages below its length, stays the same.
			c.msgs = grow(c.msgs, 1)
			c.claim = newClaim(c.msgs)
		}
		n.msgs, n.owned = c.msgs, true
	}
	n.parentDelta = c.delta
	return n
}

func (c *messagesChan) resetPrefix() { c.prefix = len(c.msgs) }

// acquire takes the spare capacity of the array of a restored list, if
// nobody took it since the list was handed out; otherwise the first append
// copies the list.
func (c *messagesChan) acquire() {
	if c.owned || c.claim == nil {
		return
	}
	n := len(c.msgs)
	if n < cap(c.claim.full) && c.claim.end.CompareAndSwap(int64(n), int64(cap(c.claim.full))) {
		c.msgs, c.owned = c.claim.full[:n], true
		return
	}
	c.claim = nil
}

// commit makes msgs the channel's list after a successful add that
// started from before. An array the add made (by growing or copying) is
// the channel's own.
func (c *messagesChan) commit(msgs, before []Message) {
	c.set(msgs)
	made := cap(msgs) > 0 && (cap(before) == 0 || &msgs[:1][0] != &before[:1][0])
	switch {
	case !made:
	case c.owned && c.claim == nil:
		// a fork outgrew its parent's array: nobody restores from a fork,
		// so the new array needs no claim
	default:
		c.claim, c.owned = newClaim(msgs), true
	}
}

// release gives back the spare capacity the channel did not use, when its
// run ends.
func (c *messagesChan) release() {
	if c.owned && c.claim != nil && c.claim.sameArray(c.msgs) {
		c.claim.end.Store(int64(len(c.msgs)))
	}
	c.owned = false
	c.msgs = c.view()
}

func (c *messagesChan) track(id string, i int) {
	if c.delta == nil {
		c.delta = make(map[string]int, 8)
	}
	c.delta[id] = i
}

// find returns the position of the message with id in msgs, a list that
// starts with the channel's current messages.
func (c *messagesChan) find(msgs []Message, id string) (int, bool) {
	if c.idx == nil && len(msgs) <= scanMax {
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].ID == id {
				return i, true
			}
		}
		return 0, false
	}
	if c.idx == nil {
		c.reindex(msgs)
	}
	if c.gap < len(msgs) {
		// positions appended without a lookup (mintState)
		for i := c.gap; i < len(msgs); i++ {
			c.track(msgs[i].ID, i)
		}
		c.gap = noGap
	}
	at := func(i int, ok bool) bool { return ok && i < len(msgs) && msgs[i].ID == id }
	if i, ok := c.delta[id]; at(i, ok) {
		return i, true
	}
	if i, ok := c.parentDelta[id]; at(i, ok) {
		return i, true
	}
	if i, ok := c.idx.pos[id]; at(i, ok) && i < c.idx.n {
		return i, true
	}
	return 0, false
}

// grow returns msgs in a new array with room for at least n more. Long
// lists grow by an eighth (append's quarter is memory that every copy of a
// forked thread zeroes and the GC scans); the growth stays geometric, so
// appends stay amortized O(1). Short lists that grow by a few messages
// double, as append does; one that a batch larger than itself makes grow
// (W1's 256 tool messages after one AI message) gets an eighth too, not
// room for the batch again that nothing fills. A long batch onto an empty
// list (a thread prefilled at once) keeps its eighth for the turns after.
func grow(msgs []Message, n int) []Message {
	want := len(msgs) + n
	extra := max(want/8, 4)
	if want < 1024 && n <= len(msgs) {
		extra = max(want, 4)
	}
	// make of a length, then copy: the compiler turns the pair into one
	// runtime call (makeslicecopy) whose write barriers, while the GC
	// marks, shade only the source's pointers; make with a capacity and
	// copy shade the destination's too (bulkBarrierPreWrite: 15% of W4's
	// CPU with Memory forked at 10,000 messages)
	out := make([]Message, want+extra)
	copy(out, msgs)
	return out[:len(msgs)]
}

// reindex builds a new shared index over the channel's messages; msgs
// starts with them, and its further messages (appended by an add under
// way) are tracked in delta, so a failed add leaves no trace in the index.
func (c *messagesChan) reindex(msgs []Message) {
	n := len(c.msgs)
	pos := make(map[string]int, len(msgs))
	for i, m := range msgs[:n] {
		pos[m.ID] = i
	}
	c.idx = &idIndex{pos: pos, n: n}
	c.delta, c.parentDelta, c.gap = nil, nil, noGap
	for i := n; i < len(msgs); i++ {
		c.track(msgs[i].ID, i)
	}
}

func (c *messagesChan) update(values []any) (bool, error) {
	if len(values) == 0 {
		return false, nil
	}
	for _, v := range values {
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

// add is add_messages of right into the channel (see addMessages). The
// channel changes only when it succeeds.
func (c *messagesChan) add(right []Message) error {
	if h := c.hint; h != nil {
		c.hint = nil
		if len(c.msgs) == 0 && h.is(right) {
			c.adopt(h)
			return nil
		}
	}
	right = withIDs(right, "right", len(c.msgs))
	for i := len(right) - 1; i >= 0; i-- {
		if m := right[i]; m.Type == TypeRemove && m.ID == RemoveAllMessages {
			c.commit(append([]Message{}, right[i+1:]...), c.msgs)
			c.idx, c.delta, c.parentDelta, c.gap = nil, nil, nil, noGap
			c.mint.see(right[i+1:])
			c.prefix = 0
			return nil
		}
	}
	c.acquire()
	msgs := c.msgs
	kept := len(msgs)
	copied := false
	var remove map[string]bool
	for k := 0; k < len(right); k++ {
		m := &right[k]
		if c.mint.fresh(m) {
			// IDs this run made up for a task's messages, new to the
			// list: the run of them appended at once (one bulk copy),
			// untracked (find tracks them when it must)
			j := k + 1
			for j < len(right) && c.mint.fresh(&right[j]) {
				j++
			}
			if len(msgs)+j-k > cap(msgs) {
				msgs = grow(msgs, len(right)-k)
			}
			if c.idx != nil {
				c.gap = min(c.gap, len(msgs))
			}
			msgs = append(msgs, right[k:j]...)
			k = j - 1
			continue
		}
		if i, ok := c.find(msgs, m.ID); ok {
			kept = min(kept, i)
			if m.Type == TypeRemove {
				if remove == nil {
					remove = map[string]bool{}
				}
				remove[m.ID] = true
				continue
			}
			delete(remove, m.ID)
			if !copied {
				// elements below the length are shared with the values
				// handed out: copy before writing one
				msgs = append(make([]Message, 0, cap(msgs)), msgs...)
				copied = true
			}
			msgs[i] = *m
			continue
		}
		if m.Type == TypeRemove {
			return NewError("ValueError", fmt.Sprintf("Attempting to delete a message with an ID that doesn't exist ('%s')", m.ID))
		}
		if len(msgs) == cap(msgs) {
			msgs = grow(msgs, len(right)-k)
		}
		msgs = append(msgs, *m)
		if c.idx != nil {
			// the position is tracked now so later messages of right find
			// it; a failed add leaves it past the length, where find
			// ignores it
			c.track(m.ID, len(msgs)-1)
		}
	}
	if len(remove) > 0 {
		rest := make([]Message, 0, len(msgs))
		for _, m := range msgs {
			if !remove[m.ID] {
				rest = append(rest, m)
			}
		}
		c.commit(rest, c.msgs)
		c.idx, c.delta, c.parentDelta, c.gap = nil, nil, nil, noGap
		c.prefix = min(c.prefix, kept)
		return nil
	}
	c.commit(msgs, c.msgs)
	c.prefix = min(c.prefix, kept)
	if c.idx != nil && len(c.delta) > deltaMax {
		c.reindex(c.msgs)
	}
	return nil
}

// listHint is what a run knows of a long message list in its input once
// it has given the list's messages their IDs (normalizeKnownList): the
// list is full, an array the run made and nobody else writes, and idx and
// delta map every ID in it to its position. Its IDs are all set and
// distinct and it removes nothing, so add_messages of the list into an
// empty channel is the list itself: the channel adopts the array, the
// index and the spare capacity instead of copying the list and indexing
// it message by message.
type listHint struct {
	full  []Message
	idx   *idIndex
	delta map[string]int
}

// is reports whether msgs is the hint's list (its array and length).
func (h *listHint) is(msgs []Message) bool {
	return h != nil && len(msgs) > 0 && len(msgs) == len(h.full) && &msgs[0] == &h.full[0]
}

// adopt makes the hint's list the channel's, as add(h.full) on the empty
// channel would.
func (c *messagesChan) adopt(h *listHint) {
	c.set(h.full)
	c.claim, c.owned = newClaim(h.full), true
	c.idx, c.delta, c.parentDelta, c.gap = h.idx, h.delta, nil, noGap
	c.prefix = 0
	if len(c.delta) > deltaMax {
		c.reindex(c.msgs)
	}
}

// normalizeKnownList is AddMessagesReducer.normalizeWrite of a long list
// that the run's seed cache recognised (k), with one copy of the list and
// no index built for it: idx, the seed entry's index of the list's
// leading messages, serves the channel that adopts the list. It returns
// the normalized list (clipped, as every value handed out is) and, when
// the list qualifies, the hint for the messages channel its key feeds.
func normalizeKnownList(k knownList, newID func() string) ([]Message, *listHint) {
	n := len(k.list)
	idx := k.entry.index(k.snap, n)
	full := grow(k.list, 1)
	for i := range full {
		if full[i].ID == "" {
			full[i].ID = newID()
		}
	}
	out := full[:n:n]
	// the messages after those idx covers: IDs neither in idx nor twice
	from := min(idx.n, n)
	delta := make(map[string]int, n-from)
	for i := from; i < n; i++ {
		m := &full[i]
		if m.Type == TypeRemove {
			return out, nil
		}
		if j, ok := idx.pos[m.ID]; ok && j < from && full[j].ID == m.ID {
			return out, nil
		}
		if _, ok := delta[m.ID]; ok {
			return out, nil
		}
		delta[m.ID] = i
	}
	return out, &listHint{full: full, idx: idx, delta: delta}
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
// A fork for a fresh read starts from a copy of its channel's state
// (forks run concurrently on their tasks' goroutines): its list is the
// channel's, so the channel's max holds for it, and its own appends go
// through fresh. Channels restored from a checkpoint have none (runs with
// a checkpointer make hashed IDs).
type mintState struct {
	key [2]uint64
	max uint64
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
func (r *run) armMint() {
	if r.saver != nil {
		return
	}
	for _, c := range r.chans {
		if mc, ok := c.(*messagesChan); ok && len(mc.msgs) == 0 {
			mc.mint = &mintState{key: r.idKey}
		}
	}
}
