package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agenteval/agenteval/engine"
)

// maxPuts is the number of puts one thread can take: the counter fills the
// first 48 bits of an ID.
const maxPuts = 1<<48 - 1

// Memory is an in-memory engine.Checkpointer (LangGraph's InMemorySaver).
// The zero value is an empty checkpointer ready to use. It is safe for
// concurrent use.
type Memory struct {
	mu      sync.Mutex
	threads map[threadKey]*thread
	// nss lists the namespaces of each thread ID that has checkpoints
	nss map[string][]string
	// last is the thread of the last put, which a run's next put is
	// likely to name again
	last *thread
}

// threadKey addresses one thread's checkpoints.
type threadKey struct {
	id, ns string
}

// thread is one thread's history.
type thread struct {
	puts uint64
	// saves holds the thread's checkpoints in ascending order of their
	// IDs: a put finds its parent, the thread's newest, at the end, and
	// any other by binary search (a map hashed every 36-byte ID twice per
	// put and grew with the thread)
	saves []*saved
	// roots counts the checkpoints put without a parent, orphans those
	// put under a parent the thread does not hold (saved.children counts
	// the others), for the conflict check
	roots   int
	orphans map[string]*int
	key     threadKey
	// idTail ends every checkpoint ID of the thread (checkpointID), once
	// hasTail
	idTail  [23]byte
	hasTail bool
	// first is how many records and IDs the thread makes room for at its
	// first put (see Memory.thread)
	first int
	// slab holds records not used yet, made a few at a time (newSaved)
	slab []saved
	// idBlock holds the IDs of puts idFirst, idFirst+1, ... one after
	// another, made a few at a time (nextID)
	idBlock string
	idFirst uint64
	// chans names the channels of the records' inline writes
	// (saved.wch), up to 256 (chanBuf holds the first few)
	chans   []string
	chanBuf [4]string
}

// chanCode returns the number of channel ch in t.chans, added when
// missing, and false when the table is full.
func (t *thread) chanCode(ch string) (uint8, bool) {
	for i, c := range t.chans {
		if c == ch {
			return uint8(i), true
		}
	}
	if len(t.chans) == 256 {
		return 0, false
	}
	if t.chans == nil {
		t.chans = t.chanBuf[:0]
	}
	t.chans = append(t.chans, ch)
	return uint8(len(t.chans) - 1), true
}

// saved is one stored checkpoint: its ID, the snapshot a run put (snap)
// or the checkpoint a caller put (more.cp), its metadata and parent, and
// its pending writes by task in the order each task first wrote. A thread
// keeps one per superstep of each run, so what only a few need is behind
// more, and the channels of its inline writes are numbers in a table of
// the thread's: 112 bytes (it was 232).
type saved struct {
	id   string
	snap *engine.CheckpointSnapshot
	// parent is the record of the parent when the thread held it at the
	// put (records live as long as their thread), more.parent names it
	// otherwise
	parent *saved
	// parents is the metadata's Parents, step its Step (more.step when
	// src has stepInMore), src its Source (a source code, or more.source)
	parents map[string]string
	// children counts the checkpoints put under this one
	children int
	step     int32
	src      uint8
	// inline is 1 + the number of writes in w when the checkpoint's
	// writes are those of one call of PutWrites, by task, of at most two
	// writes in slots of their own: most checkpoints get the writes of
	// one task, and most tasks write one or two channels. 0 when the
	// writes are more.writes (or none). Write i of w is to channel
	// thread.chans[wch[i]], in slot engine.WriteSlot(channel, i).
	inline uint8
	wch    [2]uint8
	more   *savedMore
	task   string
	w      [2]any
}

// savedMore is the part of a stored checkpoint few have.
type savedMore struct {
	// cp is the checkpoint a caller put (Put), when snap is nil
	cp *engine.Checkpoint
	// source is the metadata's Source when it has no source code
	source string
	// parent is the parent's ID when the thread did not hold it at the
	// put
	parent string
	// step is the metadata's Step when it does not fit saved.step
	step int
	// writes are the checkpoint's writes by task, unless they are
	// inline
	writes []taskWrites
}

// The codes of the metadata sources a run puts, in saved.src.
const (
	srcEmpty = iota
	srcInput
	srcLoop
	srcUpdate
	srcFork
	srcOther // more.source
	// stepInMore, in saved.src, says the step is more.step
	stepInMore = 0x80
)

var sourceNames = [...]string{srcEmpty: "", srcInput: "input", srcLoop: "loop", srcUpdate: "update", srcFork: "fork"}

// setCheckpoint makes s the record of checkpoint cp or snap with meta,
// put under parent (p, or the ID parent when the thread does not hold
// it), keeping its ID, children and writes.
func (s *saved) setCheckpoint(cp *engine.Checkpoint, snap *engine.CheckpointSnapshot, meta engine.CheckpointMetadata, p *saved, parent string) {
	s.snap, s.parent, s.step, s.parents = snap, p, int32(meta.Step), meta.Parents
	s.src = srcOther
	for code, name := range sourceNames {
		if name == meta.Source {
			s.src = uint8(code)
			break
		}
	}
	if s.more != nil {
		s.more.cp, s.more.source, s.more.parent, s.more.step = nil, "", "", 0
	}
	bigStep := int(s.step) != meta.Step
	orphan := p == nil && parent != ""
	if cp != nil || s.src == srcOther || bigStep || orphan {
		if s.more == nil {
			s.more = &savedMore{}
		}
		s.more.cp = cp
		if s.src == srcOther {
			s.more.source = meta.Source
		}
		if bigStep {
			s.more.step = meta.Step
			s.src |= stepInMore
		}
		if orphan {
			s.more.parent = parent
		}
	}
}

// parentID returns the ID of the checkpoint s was put under, "" for none.
func (s *saved) parentID() string {
	if s.parent != nil {
		return s.parent.id
	}
	if s.more != nil {
		return s.more.parent
	}
	return ""
}

// cp returns the checkpoint a caller put, nil for a snapshot.
func (s *saved) cp() *engine.Checkpoint {
	if s.more == nil {
		return nil
	}
	return s.more.cp
}

// source returns the metadata's Source.
func (s *saved) source() string {
	if code := s.src &^ stepInMore; code != srcOther {
		return sourceNames[code]
	}
	return s.more.source
}

// meta returns the metadata, its Parents map shared.
func (s *saved) meta() engine.CheckpointMetadata {
	step := int(s.step)
	if s.src&stepInMore != 0 {
		step = s.more.step
	}
	return engine.CheckpointMetadata{Source: s.source(), Step: step, Parents: s.parents}
}

type taskWrites struct {
	task   string
	writes []slotWrite
}

// slotWrite is a write of its task (taskWrites.task) and its
// engine.WriteSlot.
type slotWrite struct {
	channel string
	value   any
	slot    int
}

// NewMemory returns an empty in-memory checkpointer.
func NewMemory() *Memory {
	return &Memory{threads: map[threadKey]*thread{}}
}

var _ engine.SnapshotSaver = (*Memory)(nil)

// Put stores cp as a child of cfg.CheckpointID and returns the config that
// addresses it. It keeps cp's maps and slices, and meta's, which the
// caller handed over (engine.Checkpointer). A checkpoint without an ID
// gets the thread's next one (see the package doc); cp itself is not
// changed.
func (m *Memory) Put(_ context.Context, cfg engine.CheckpointConfig, cp *engine.Checkpoint, meta engine.CheckpointMetadata) (engine.CheckpointConfig, error) {
	if cfg.ThreadID == "" {
		return engine.CheckpointConfig{}, errors.New("put checkpoint: thread ID is empty")
	}
	if cp == nil {
		return engine.CheckpointConfig{}, fmt.Errorf("put checkpoint in thread %q: checkpoint is nil", cfg.ThreadID)
	}
	// the caller hands cp over (engine.Checkpointer): Memory keeps its
	// maps as they are, in a struct of its own so the ID it gives is not
	// written into cp
	own := *cp
	return m.put(cfg, cp.ID, &own, nil, meta)
}

// PutSnapshot stores a run's checkpoint as the snapshot it is
// (engine.SnapshotSaver): GetTuple and List build its maps, which they
// would copy otherwise. It is Put(ctx, cfg, snap.Checkpoint(), meta).
func (m *Memory) PutSnapshot(_ context.Context, cfg engine.CheckpointConfig, snap *engine.CheckpointSnapshot, meta engine.CheckpointMetadata) (engine.CheckpointConfig, error) {
	if cfg.ThreadID == "" {
		return engine.CheckpointConfig{}, errors.New("put checkpoint: thread ID is empty")
	}
	if snap == nil {
		return engine.CheckpointConfig{}, fmt.Errorf("put checkpoint in thread %q: checkpoint is nil", cfg.ThreadID)
	}
	return m.put(cfg, "", nil, snap, meta)
}

// put stores checkpoint cp or snap with meta in cfg's thread, as a child
// of cfg.CheckpointID, under the ID id, or the thread's next one when it
// is empty. The record is filled where it lives: a record made and then
// copied there cost a sixth of put.
func (m *Memory) put(cfg engine.CheckpointConfig, id string, cp *engine.Checkpoint, snap *engine.CheckpointSnapshot, meta engine.CheckpointMetadata) (engine.CheckpointConfig, error) {
	key := threadKey{cfg.ThreadID, cfg.CheckpointNS}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.last
	if t == nil || t.key != key {
		t = m.thread(key)
	}
	if !cfg.Fork {
		if err := t.checkTip(key, cfg.CheckpointID, id); err != nil {
			return engine.CheckpointConfig{}, err
		}
	}
	if t.puts >= maxPuts {
		return engine.CheckpointConfig{}, fmt.Errorf("put checkpoint in thread %q: the thread has taken %d checkpoints, the most IDs can count", cfg.ThreadID, t.puts)
	}
	t.puts++
	if id == "" {
		id = t.nextID(key, t.puts)
		if cp != nil {
			cp.ID = id
		}
	}
	var s *saved
	i, found := t.search(id)
	if found {
		// the record of the ID takes the new checkpoint, in place (a
		// slab's record is never freed alone); its children and writes
		// belong to the checkpoint's ID, not to one put of it
		s = t.saves[i]
		if s.parent != nil {
			s.parent.children--
		} else {
			*t.childrenOf(s.parentID())--
		}
	} else {
		s = t.newSaved()
		s.id = id
		if i == len(t.saves) {
			t.saves = append(t.saves, s)
		} else {
			t.saves = slices.Insert(t.saves, i, s)
		}
	}
	if !found && t.orphans != nil {
		// children put before their parent
		if n := t.orphans[id]; n != nil {
			s.children = *n
			delete(t.orphans, id)
		}
	}
	var p *saved
	if parent := cfg.CheckpointID; parent != "" {
		p = t.get(parent)
	}
	s.setCheckpoint(cp, snap, meta, p, cfg.CheckpointID)
	if p != nil {
		p.children++
	} else {
		*t.childrenOf(cfg.CheckpointID)++
	}
	return engine.CheckpointConfig{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS, CheckpointID: id}, nil
}

// search returns the position of the checkpoint id in t.saves, or where
// it would go, and whether it is there. The thread's newest, which a run
// names as its next put's parent and its writes' checkpoint, is looked
// at first, then the one before it (the parent, once the put is in).
func (t *thread) search(id string) (int, bool) {
	n := len(t.saves)
	if n == 0 {
		return 0, false
	}
	switch last := t.saves[n-1].id; {
	case last == id:
		return n - 1, true
	case last < id:
		return n, false
	case n >= 2 && t.saves[n-2].id == id:
		return n - 2, true
	}
	return slices.BinarySearchFunc(t.saves[:n-1], id, func(s *saved, id string) int { return strings.Compare(s.id, id) })
}

// get returns the checkpoint id, nil when the thread does not hold it.
func (t *thread) get(id string) *saved {
	if i, ok := t.search(id); ok {
		return t.saves[i]
	}
	return nil
}

// newSaved returns a zero record of the thread's, cut from a slab of a
// few (two, then as many as the thread holds, up to eight): records live
// as long as their thread, so a slab is freed with the thread's last
// record and a put costs no allocation of its own.
func (t *thread) newSaved() *saved {
	if len(t.slab) == 0 {
		k := min(max(len(t.saves), 2), 8)
		if len(t.saves) == 0 {
			k = max(k, t.first)
		}
		t.slab = make([]saved, k)
	}
	s := &t.slab[0]
	t.slab = t.slab[1:]
	return s
}

// thread returns the thread of key, made when missing, and makes it the
// last one used; the caller holds the lock.
func (m *Memory) thread(key threadKey) *thread {
	if m.threads == nil {
		m.threads = map[threadKey]*thread{}
	}
	t := m.threads[key]
	if t == nil {
		// a new thread probably takes as many checkpoints as the last
		// one put in the same namespace (a run of the same graph), up to
		// 32; a subgraph's namespace, new for every call, is another
		// namespace than its parent's
		first := 2
		if l := m.last; l != nil && l.key.ns == key.ns {
			first = min(max(len(l.saves), 2), 32)
		}
		t = &thread{key: key, saves: make([]*saved, 0, max(first, 8)), first: first}
		m.threads[key] = t
		if m.nss == nil {
			m.nss = map[string][]string{}
		}
		m.nss[key.id] = append(m.nss[key.id], key.ns)
	}
	m.last = t
	return t
}

// childrenOf returns the counter of the checkpoints put under parent;
// the caller holds the lock.
func (t *thread) childrenOf(parent string) *int {
	if parent == "" {
		return &t.roots
	}
	if p := t.get(parent); p != nil {
		return &p.children
	}
	if t.orphans == nil {
		t.orphans = map[string]*int{}
	}
	n := t.orphans[parent]
	if n == nil {
		n = new(int)
		t.orphans[parent] = n
	}
	return n
}

// checkTip returns a *engine.CheckpointConflictError when a checkpoint
// other than self was put under parent; the caller holds the lock.
func (t *thread) checkTip(key threadKey, parent, self string) error {
	n := *t.childrenOf(parent)
	if self != "" {
		if s := t.get(self); s != nil && s.parentID() == parent {
			n--
		}
	}
	if n <= 0 {
		return nil
	}
	conflict := &engine.CheckpointConflictError{ThreadID: key.id, Namespace: key.ns, Expected: parent, Head: t.saves[len(t.saves)-1].id}
	for _, s := range t.saves {
		if s.id != self && s.parentID() == parent {
			conflict.Child = s.id
			break
		}
	}
	return fmt.Errorf("put checkpoint: %w", conflict)
}

// checkpointID returns the ID of put number n of a thread: n in the first
// 48 bits, then the version nibble 6, the RFC 4122 variant and a hash of
// the thread.
func checkpointID(key threadKey, n uint64) string {
	h := sha256.Sum256([]byte(key.id + "\x00" + key.ns))
	a := binary.BigEndian.Uint16(h[0:2]) & 0x0fff
	b := binary.BigEndian.Uint16(h[2:4])&0x3fff | 0x8000
	c := binary.BigEndian.Uint64(h[8:16]) & 0xffffffffffff
	return fmt.Sprintf("%08x-%04x-6%03x-%04x-%012x", n>>16, n&0xffff, a, b, c)
}

// checkpointID is checkpointID(key, n) with the part that hashes the
// thread made once per thread: a superstep used to hash it and format the
// whole ID with fmt.
func (t *thread) checkpointID(key threadKey, n uint64) string {
	id := t.idText(key, n)
	return string(id[:])
}

// idText is the text of t.checkpointID(key, n).
func (t *thread) idText(key threadKey, n uint64) [36]byte {
	if !t.hasTail {
		t.idTail, t.hasTail = idTail(key), true
	}
	var id [36]byte
	const digits = "0123456789abcdef"
	for i := 11; i >= 0; i-- {
		d := digits[n&0xf]
		n >>= 4
		if i >= 8 {
			id[i+1] = d // the last four digits, after the dash
		} else {
			id[i] = d
		}
	}
	id[8] = '-'
	copy(id[13:], t.idTail[:])
	return id
}

// idTail is "-6aaa-bbbb-cccccccccccc" of checkpointID(key, 0), without
// fmt (a thread per run of W3 formatted it).
func idTail(key threadKey) [23]byte {
	var stack [128]byte
	in := append(append(append(stack[:0], key.id...), 0), key.ns...)
	h := sha256.Sum256(in)
	var tail [23]byte
	putHex := func(dst []byte, v uint64) {
		for i := len(dst) - 1; i >= 0; i-- {
			dst[i] = "0123456789abcdef"[v&0xf]
			v >>= 4
		}
	}
	tail[0], tail[1], tail[5], tail[10] = '-', '6', '-', '-'
	putHex(tail[2:5], uint64(binary.BigEndian.Uint16(h[0:2])&0x0fff))
	putHex(tail[6:10], uint64(binary.BigEndian.Uint16(h[2:4])&0x3fff|0x8000))
	putHex(tail[11:23], binary.BigEndian.Uint64(h[8:16])&0xffffffffffff)
	return tail
}

// idsPerBlock is the number of IDs nextID makes at a time.
const idsPerBlock = 8

// nextID is t.checkpointID(key, n), cut from a string of the IDs of puts
// n, n+1, ... made a few at a time: a thread's puts take IDs one after
// another, so a string's IDs are all used unless the thread ends or puts
// checkpoints with IDs of their own.
func (t *thread) nextID(key threadKey, n uint64) string {
	if n >= t.idFirst && n-t.idFirst < uint64(len(t.idBlock)/36) {
		i := int(n-t.idFirst) * 36
		return t.idBlock[i : i+36]
	}
	// as many as the thread took so far, from two up to eight
	k := min(max(n, 2), idsPerBlock)
	if n == 1 {
		k = max(k, uint64(t.first))
	}
	// written where the string is: a []byte made into one was copied
	var block strings.Builder
	block.Grow(int(k) * 36)
	for i := range k {
		id := t.idText(key, n+i)
		block.Write(id[:])
	}
	t.idBlock, t.idFirst = block.String(), n
	return t.idBlock[:36]
}

// GetTuple returns the checkpoint cfg.CheckpointID names, or the thread's
// newest when it is empty; nil, nil when there is none.
func (m *Memory) GetTuple(_ context.Context, cfg engine.CheckpointConfig) (*engine.CheckpointTuple, error) {
	if cfg.ThreadID == "" {
		return nil, errors.New("get checkpoint: thread ID is empty")
	}
	key := threadKey{cfg.ThreadID, cfg.CheckpointNS}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.threads[key]
	if t == nil || len(t.saves) == 0 {
		return nil, nil
	}
	s := t.saves[len(t.saves)-1]
	if cfg.CheckpointID != "" {
		if s = t.get(cfg.CheckpointID); s == nil {
			return nil, nil
		}
	}
	return t.tuple(key, s), nil
}

// List returns the thread's checkpoints newest first: only the one
// cfg.CheckpointID names when it is set, only those older than
// opts.Before, only those whose metadata source is opts.Source, at most
// opts.Limit of them.
func (m *Memory) List(_ context.Context, cfg engine.CheckpointConfig, opts engine.ListOptions) ([]*engine.CheckpointTuple, error) {
	if cfg.ThreadID == "" {
		return nil, errors.New("list checkpoints: thread ID is empty")
	}
	if opts.Limit < 0 {
		return nil, fmt.Errorf("list checkpoints of thread %q: limit %d is negative", cfg.ThreadID, opts.Limit)
	}
	key := threadKey{cfg.ThreadID, cfg.CheckpointNS}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.threads[key]
	if t == nil {
		return nil, nil
	}
	var out []*engine.CheckpointTuple
	for i := len(t.saves) - 1; i >= 0; i-- {
		if opts.Limit > 0 && len(out) == opts.Limit {
			break
		}
		s := t.saves[i]
		if cfg.CheckpointID != "" && s.id != cfg.CheckpointID {
			continue
		}
		if opts.Before != "" && s.id >= opts.Before {
			continue
		}
		if opts.Source != "" && s.source() != opts.Source {
			continue
		}
		out = append(out, t.tuple(key, s))
	}
	return out, nil
}

// PutWrites stores a task's writes against the checkpoint cfg names,
// replacing the task's earlier writes there (the task keeps its place in
// the order). Each write's TaskID is set to taskID.
func (m *Memory) PutWrites(_ context.Context, cfg engine.CheckpointConfig, writes []engine.PendingWrite, taskID string) error {
	if cfg.ThreadID == "" {
		return errors.New("put writes: thread ID is empty")
	}
	if cfg.CheckpointID == "" {
		return fmt.Errorf("put writes of task %q in thread %q: checkpoint ID is empty; writes belong to a checkpoint", taskID, cfg.ThreadID)
	}
	key := threadKey{cfg.ThreadID, cfg.CheckpointNS}
	m.mu.Lock()
	defer m.mu.Unlock()
	var s *saved
	t := m.last
	if t == nil || t.key != key {
		t = m.threads[key]
	}
	if t != nil {
		s = t.get(cfg.CheckpointID)
	}
	if s == nil {
		return fmt.Errorf("put writes of task %q in thread %q: no checkpoint %q", taskID, cfg.ThreadID, cfg.CheckpointID)
	}
	if s.inline == 0 && (s.more == nil || s.more.writes == nil) && len(writes) <= 2 &&
		(len(writes) < 2 || engine.WriteSlot(writes[0].Channel, 0) != engine.WriteSlot(writes[1].Channel, 1)) {
		// the checkpoint's first writes, in slots of their own
		var codes [2]uint8
		fits := true
		for i, w := range writes {
			var ok bool
			codes[i], ok = t.chanCode(w.Channel)
			fits = fits && ok
		}
		if fits {
			s.task, s.inline, s.wch = taskID, uint8(1+len(writes)), codes
			for i, w := range writes {
				s.w[i] = w.Value
			}
			return nil
		}
	}
	all := t.spill(s)
	pos := -1
	for i := range all {
		if all[i].task == taskID {
			pos = i
		}
	}
	if pos < 0 {
		all = append(all, taskWrites{task: taskID})
		s.more.writes = all
		pos = len(all) - 1
	}
	tw := &all[pos]
	for i, w := range writes {
		slot := engine.WriteSlot(w.Channel, i)
		found := -1
		for j, old := range tw.writes {
			if old.slot == slot {
				found = j
			}
		}
		sw := slotWrite{channel: w.Channel, value: w.Value, slot: slot}
		switch {
		case found >= 0 && slot >= 0:
			// a task's ordinary writes keep the first value put
		case found >= 0:
			tw.writes[found] = sw
		default:
			if tw.writes == nil {
				tw.writes = make([]slotWrite, 0, len(writes))
			}
			tw.writes = append(tw.writes, sw)
		}
	}
	return nil
}

// spill moves the inline writes of checkpoint s, if any, to more.writes
// and returns those: the writes of a second call of PutWrites, or of one
// of more than two writes.
func (t *thread) spill(s *saved) []taskWrites {
	if s.more == nil {
		s.more = &savedMore{}
	}
	if s.inline > 0 {
		tw := taskWrites{task: s.task, writes: make([]slotWrite, 0, max(int(s.inline-1), 2))}
		for i, v := range s.w[:s.inline-1] {
			ch := t.chans[s.wch[i]]
			tw.writes = append(tw.writes, slotWrite{channel: ch, value: v, slot: engine.WriteSlot(ch, i)})
		}
		s.more.writes = append(s.more.writes, tw)
		s.task, s.inline, s.w = "", 0, [2]any{}
	}
	return s.more.writes
}

// Threads returns the IDs of the threads that have checkpoints (in any
// namespace), sorted.
func (m *Memory) Threads() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for k := range m.threads {
		ids = append(ids, k.id)
	}
	sort.Strings(ids)
	return slices.Compact(ids)
}

// DeleteThread removes every checkpoint and write of the thread, in every
// namespace. Deleting a thread that has none is not an error.
func (m *Memory) DeleteThread(_ context.Context, threadID string) error {
	if threadID == "" {
		return errors.New("delete thread: thread ID is empty")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// the thread's namespaces, not every thread: a bench deletes
	// thousands of threads one after another
	for _, ns := range m.nss[threadID] {
		delete(m.threads, threadKey{threadID, ns})
	}
	delete(m.nss, threadID)
	if m.last != nil && m.last.key.id == threadID {
		m.last = nil
	}
	return nil
}

// tuple returns a copy of checkpoint s with its parent and writes; the
// caller holds the lock.
func (t *thread) tuple(key threadKey, s *saved) *engine.CheckpointTuple {
	var cp *engine.Checkpoint
	if s.snap != nil {
		// new maps already: nothing to copy
		cp = s.snap.Checkpoint()
		cp.ID = s.id
	} else {
		cp = copyCheckpoint(s.cp())
	}
	tup := &engine.CheckpointTuple{
		Config:     engine.CheckpointConfig{ThreadID: key.id, CheckpointNS: key.ns, CheckpointID: s.id},
		Checkpoint: cp,
		Metadata:   copyMetadata(s.meta()),
	}
	if parent := s.parentID(); parent != "" {
		tup.ParentConfig = &engine.CheckpointConfig{ThreadID: key.id, CheckpointNS: key.ns, CheckpointID: parent}
	}
	if s.inline > 0 {
		for i, v := range s.w[:s.inline-1] {
			tup.PendingWrites = append(tup.PendingWrites, engine.PendingWrite{TaskID: s.task, Channel: t.chans[s.wch[i]], Value: v})
		}
		return tup
	}
	if s.more == nil {
		return tup
	}
	for _, tw := range s.more.writes {
		for _, w := range tw.writes {
			tup.PendingWrites = append(tup.PendingWrites, engine.PendingWrite{TaskID: tw.task, Channel: w.channel, Value: w.value})
		}
	}
	return tup
}

// copyCheckpoint copies cp's maps and slices (channel values themselves
// are shared), keeping nil maps nil.
func copyCheckpoint(cp *engine.Checkpoint) *engine.Checkpoint {
	c := *cp
	c.ChannelValues = maps.Clone(cp.ChannelValues)
	c.ChannelVersions = maps.Clone(cp.ChannelVersions)
	if cp.VersionsSeen != nil {
		c.VersionsSeen = make(map[string]map[string]int64, len(cp.VersionsSeen))
		for node, seen := range cp.VersionsSeen {
			c.VersionsSeen[node] = maps.Clone(seen)
		}
	}
	c.UpdatedChannels = slices.Clone(cp.UpdatedChannels)
	c.ListPrefix = maps.Clone(cp.ListPrefix)
	return &c
}

// copyMetadata copies meta's parents map, keeping a nil map nil.
func copyMetadata(meta engine.CheckpointMetadata) engine.CheckpointMetadata {
	meta.Parents = maps.Clone(meta.Parents)
	return meta
}
