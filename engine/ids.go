package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agenteval/agenteval/engine/value"
)

// IDs the engine makes up, all in this file. Every one is derived from a
// hash, never from time or chance, so a run's IDs are the same on every
// machine: checkpoint, task and update IDs (uuidFromHash), interrupt IDs
// (hashHex), IDs of messages that came without one (withIDs). seedOf
// keeps the IDs of runs without a checkpointer apart.

// seedOf distinguishes runs without a checkpointer so the IDs they make up
// do not collide with IDs in their own input. It is the first 32 hex
// digits of the SHA-256 of thread + "|" + the input's JSON (as
// MarshalValue(valueForJSON(input)) writes it, or fmt.Sprint(input) when
// that fails), computed once per run: the IDs made from it hash a short
// string however large the input is.
//
// The JSON is streamed into the hash one message (or scalar) at a time,
// so a long thread's input is never held as one JSON text or one value
// tree. A graph's runs go through its seedCache, which hashes only the
// messages a long list has beyond one it hashed before.
func seedOf(thread string, input any) string {
	var c *seedCache
	return c.seed(thread, input)
}

// seed is seedOf, resuming the hash of a long message list from where an
// earlier run left it (see seedCache); a nil cache hashes everything. It
// hashes a MessageList only from the last of its nodes that an earlier
// seed hashed (see hashList).
func (c *seedCache) seed(thread string, input any) string {
	h := sha256.New()
	h.Write([]byte(thread + "|"))
	var buf bytes.Buffer
	if err := c.hashJSON(h, &buf, input); err != nil {
		h.Reset()
		h.Write([]byte(thread + "|" + fmt.Sprint(input)))
	}
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:16])
}

// hashJSON writes value.WriteJSON(valueForJSON(v)) to h. Containers valueForJSON
// only rebuilds (states, maps, lists, message lists) are walked here;
// anything else is encoded into buf and written.
func (c *seedCache) hashJSON(h hash.Hash, buf *bytes.Buffer, v any) error {
	object := func(keys []string, valueOf func(k string) any) error {
		h.Write([]byte{'{'})
		for i, k := range keys {
			buf.Reset()
			if i > 0 {
				buf.WriteByte(',')
			}
			_ = value.WriteJSON(buf, k) // a string cannot fail
			buf.WriteByte(':')
			h.Write(buf.Bytes())
			if err := c.hashJSON(h, buf, valueOf(k)); err != nil {
				return err
			}
		}
		h.Write([]byte{'}'})
		return nil
	}
	list := func(n int, elem func(i int) error) error {
		h.Write([]byte{'['})
		for i := range n {
			if i > 0 {
				h.Write([]byte{','})
			}
			if err := elem(i); err != nil {
				return err
			}
		}
		h.Write([]byte{']'})
		return nil
	}
	switch t := v.(type) {
	case State:
		return object(sortedKeys(t), func(k string) any { return t[k] })
	case map[string]any:
		return object(sortedKeys(t), func(k string) any { return t[k] })
	case []any:
		return list(len(t), func(i int) error { return c.hashJSON(h, buf, t[i]) })
	case MessageList:
		return hashList(h, buf, t)
	case []Message:
		if c != nil && seedCached(t) {
			return c.hashMessages(h, buf, t)
		}
		return list(len(t), func(i int) error {
			buf.Reset()
			if err := t[i].writeJSON(buf); err != nil {
				return err
			}
			h.Write(buf.Bytes())
			return nil
		})
	}
	buf.Reset()
	if err := value.WriteJSON(buf, valueForJSON(v)); err != nil {
		return err
	}
	h.Write(buf.Bytes())
	return nil
}

// seedCache lets the seed of a run cost O(new input) rather than
// O(thread) when the input is a long message list that an earlier run's
// input began with: a run without a checkpointer gets the whole thread as
// its input every turn, and hashing all of it made a turn's cost grow
// with the thread. A short list whose messages carry many tool calls is
// served too (seedCached): its JSON is as long as a long thread's.
//
// SHA-256 is a streaming hash whose state can be saved and restored
// (encoding.BinaryMarshaler), so an entry keeps the state just before a
// list's '[' (pre), a snapshot of the list's messages, the state after
// every seedStride of them (marks) and after the last (post). A later list
// hashed from the same state pre whose first messages equal the snapshot
// restores post and hashes only the messages after them; one that leaves
// the snapshot after j messages restores the last mark at or before j.
// The bytes hashed are the same, so the seed is the one seedOf computes
// from scratch (TestPropSeedCacheMatchesSeedOf). Leaving the snapshot is
// what a thread without a checkpointer does from turn to turn: the caller
// hands back the run's result, where the messages that came without an ID
// have one; before marks, such a turn hashed the whole thread again
// (4.2-4.7 ms of CPU per step at 10,000 messages, against 1.3-1.4 ms
// with them).
//
// Comparing a message with the snapshot is shallow, and cheap (a few ns
// against 1.8 µs to encode and hash it): strings, the elements of the
// tool call, invalid tool call and content block lists (the snapshot
// holds copies of those lists, so an element replaced in place is seen),
// and the identity of pointers and other values. What a message refers to
// (argument objects, the objects in content blocks, metadata) is treated
// as immutable once a run has read it, as the engine does everywhere
// (values are shared, not copied: see the package doc).
//
// A MessageList input needs none of this: its nodes never change, so each
// keeps the hash state after its last message (hashList).
type seedCache struct {
	mu      sync.Mutex
	entries []*seedEntry // least recently used first
}

type seedEntry struct {
	pre, post []byte
	snap      []Message
	// marks[i] is the hash state after the first (i+1)·seedStride
	// messages of snap
	marks [][]byte
}

const (
	// seedCacheMin is the shortest list the cache serves, counted in
	// messages or in their tool calls and content blocks (seedCached):
	// below it the snapshot would cost more than the hashing it saves.
	seedCacheMin = 64
	// seedCacheSize is how many lists a graph remembers.
	seedCacheSize = 8
	// seedStride is how often an entry keeps the hash state within its
	// list (about 110 bytes per 64 messages), so a list that leaves the
	// snapshot resumes at most seedStride-1 messages before that point.
	seedStride = 64
)

func newSeedCache() *seedCache { return &seedCache{} }

// seedCached reports whether the seed cache serves the list msgs: a long
// one, or a short one whose messages hold at least seedCacheMin tool
// calls and content blocks in all (an AI message with hundreds of calls
// takes as long to write and hash as a thread of as many messages).
func seedCached(msgs []Message) bool {
	if len(msgs) >= seedCacheMin {
		return true
	}
	parts := 0
	for i := range msgs {
		m := &msgs[i]
		parts += 1 + len(m.ToolCalls) + len(m.InvalidToolCalls) + len(m.Content.blocks)
	}
	return parts >= seedCacheMin
}

// hashMessages writes the JSON of msgs to h as hashJSON does, resuming
// from a remembered state when it can.
//
// The entry chosen is the one hashed from the same state whose snapshot
// shares the longest prefix with msgs. When msgs begins with the whole
// snapshot the hash resumes after it (post); when it leaves the snapshot
// after j messages (a fork, or the thread handed back by a run without a
// checkpointer: its messages without an ID have one now) it resumes from
// the state kept after the last multiple of seedStride up to j.
func (c *seedCache) hashMessages(h hash.Hash, buf *bytes.Buffer, msgs []Message) error {
	pre, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return err
	}
	var cands [seedCacheSize]seedView
	n := 0
	c.mu.Lock()
	for i := len(c.entries) - 1; i >= 0; i-- {
		if e := c.entries[i]; bytes.Equal(e.pre, pre) {
			cands[n] = seedView{e: e, snap: e.snap, post: e.post, marks: e.marks}
			n++
		}
	}
	c.mu.Unlock()
	// compared outside the lock: positions below a snapshot's length are
	// never written again
	var best seedView
	j := 0
	for _, cd := range cands[:n] {
		if p := commonPrefix(cd.snap, msgs); p > j || best.e == nil {
			best, j = cd, p
		}
	}
	k := 0
	switch {
	case best.e != nil && j == len(best.snap):
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(best.post); err != nil {
			return err
		}
		k = j
	case best.e != nil && j >= seedStride:
		r := j / seedStride
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(best.marks[r-1]); err != nil {
			return err
		}
		k = r * seedStride
	default:
		h.Write([]byte{'['})
	}
	var marks [][]byte
	for i := k; i < len(msgs); i++ {
		buf.Reset()
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := msgs[i].writeJSON(buf); err != nil {
			return err
		}
		h.Write(buf.Bytes())
		if (i+1)%seedStride == 0 {
			m, err := h.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				return err
			}
			marks = append(marks, m)
		}
	}
	end, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return err
	}
	h.Write([]byte{']'})
	if best.e != nil && k == len(msgs) && j == len(best.snap) {
		c.touch(best.e)
		return nil
	}
	if best.e == nil {
		j = 0
	}
	c.remember(best, j, k, pre, end, msgs, marks)
	return nil
}

// seedView is an entry as a lookup saw it: its snapshot, end state and
// marks at the time (an entry only grows, in place).
type seedView struct {
	e     *seedEntry
	snap  []Message
	post  []byte
	marks [][]byte
}

// commonPrefix returns how many leading messages msgs shares with the
// snapshot snap.
func commonPrefix(snap, msgs []Message) int {
	n := min(len(snap), len(msgs))
	for i := range n {
		if !sameMessage(&snap[i], &msgs[i]) {
			return i
		}
	}
	return n
}

// remember records that msgs, hashed from pre, ends in state end, with
// marks the states kept past k (where hashing resumed). found is the
// entry whose first j messages msgs began with (none when found.e is
// nil). It returns the entry whose snapshot now begins with msgs, and
// that snapshot.
func (c *seedCache) remember(found seedView, j, k int, pre, end []byte, msgs []Message, marks [][]byte) (*seedEntry, []Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := found.e; f != nil && j == len(found.snap) && len(f.snap) == j && c.indexOf(f) >= 0 {
		// extend the entry in place: positions below its length are
		// never written again, so lookups under way still see theirs
		for _, m := range msgs[j:] {
			f.snap = append(f.snap, snapshotMessage(m))
		}
		f.marks = append(f.marks, marks...)
		f.post = end
		c.touchLocked(f)
		return f, f.snap
	}
	e := &seedEntry{pre: pre, post: end, snap: make([]Message, 0, len(msgs)+len(msgs)/8)}
	if f := found.e; f != nil {
		// a new entry that shares the first j messages with found: its
		// snapshot, its marks up to k and the index of those messages
		e.snap = append(e.snap, found.snap[:j]...)
		e.marks = append(e.marks, found.marks[:k/seedStride]...)
	}
	for _, m := range msgs[j:] {
		e.snap = append(e.snap, snapshotMessage(m))
	}
	e.marks = append(e.marks, marks...)
	if i := c.indexOf(found.e); i >= 0 && 2*j >= len(found.snap) {
		// the same thread gone on differently (a thread handed back
		// with IDs on its new messages, a fork): the new entry takes the
		// old one's place, so a thread holds one snapshot, not eight. A
		// list that goes back to the old one resumes from a mark of the
		// new entry.
		c.entries = append(append(c.entries[:i], c.entries[i+1:]...), e)
		return e, e.snap
	}
	if len(c.entries) == seedCacheSize {
		c.entries = append(c.entries[:0], c.entries[1:]...)
	}
	c.entries = append(c.entries, e)
	return e, e.snap
}

func (c *seedCache) indexOf(e *seedEntry) int {
	if e == nil {
		return -1
	}
	for i, x := range c.entries {
		if x == e {
			return i
		}
	}
	return -1
}

func (c *seedCache) touch(e *seedEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.touchLocked(e)
}

// touchLocked moves e to the back (most recently used), if it is still
// cached.
func (c *seedCache) touchLocked(e *seedEntry) {
	if i := c.indexOf(e); i >= 0 {
		c.entries = append(append(c.entries[:i], c.entries[i+1:]...), e)
	}
}

// snapshotMessage copies m with its own copies of the lists whose
// elements a caller could replace in place.
func snapshotMessage(m Message) Message {
	// slices.Clone keeps a nil list nil and an empty one empty
	m.ToolCalls = slices.Clone(m.ToolCalls)
	m.InvalidToolCalls = slices.Clone(m.InvalidToolCalls)
	m.Content.blocks = slices.Clone(m.Content.blocks)
	return m
}

// sameMessage compares a snapshot with a message shallowly (see
// seedCache).
func sameMessage(a, b *Message) bool {
	if a.Type != b.Type || a.ID != b.ID || a.Name != b.Name || a.ToolCallID != b.ToolCallID || a.Status != b.Status ||
		a.Content.text != b.Content.text || a.Content.isList != b.Content.isList ||
		a.UsageMetadata != b.UsageMetadata || a.AdditionalKwargs != b.AdditionalKwargs || a.ResponseMetadata != b.ResponseMetadata ||
		!sameRef(a.Artifact, b.Artifact) ||
		len(a.ToolCalls) != len(b.ToolCalls) || len(a.InvalidToolCalls) != len(b.InvalidToolCalls) || len(a.Content.blocks) != len(b.Content.blocks) {
		return false
	}
	// nil and empty lists encode alike only where ToValue says so: keep
	// them apart
	if (a.ToolCalls == nil) != (b.ToolCalls == nil) || (a.InvalidToolCalls == nil) != (b.InvalidToolCalls == nil) || (a.Content.blocks == nil) != (b.Content.blocks == nil) {
		return false
	}
	for i := range a.ToolCalls {
		if a.ToolCalls[i] != b.ToolCalls[i] {
			return false
		}
	}
	for i := range a.InvalidToolCalls {
		if a.InvalidToolCalls[i] != b.InvalidToolCalls[i] {
			return false
		}
	}
	for i := range a.Content.blocks {
		if !sameRef(a.Content.blocks[i], b.Content.blocks[i]) {
			return false
		}
	}
	return true
}

// sameRef reports whether two values a message refers to are the same
// as far as the seed cache can tell without encoding them: the same
// pointer (what content blocks hold, *Object), equal comparable values,
// or the same map, or slice of the same array and length. Whatever they
// refer to is treated as immutable once a run has read it (see
// seedCache). It never panics on values == would refuse.
func sameRef(a, b any) bool {
	if pa, ok := a.(*Object); ok {
		pb, ok := b.(*Object)
		return ok && pa == pb
	}
	if a == nil || b == nil {
		return a == b
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() {
		return false
	}
	if va.Comparable() {
		return a == b
	}
	switch va.Kind() {
	case reflect.Map:
		return va.Pointer() == vb.Pointer()
	case reflect.Slice:
		return va.Pointer() == vb.Pointer() && va.Len() == vb.Len()
	}
	return false
}

// withIDs gives messages without IDs a deterministic one based on their
// content and position; it copies the slice only when it has to.
func withIDs(msgs []Message, side string, offset int) []Message {
	var out []Message
	for i, m := range msgs {
		if m.ID != "" {
			continue
		}
		if out == nil {
			out = append([]Message(nil), msgs...)
		}
		// MarshalValue(m.ToValue())'s text, "" when it fails
		var b bytes.Buffer
		if err := m.writeJSON(&b); err != nil {
			b.Reset()
		}
		out[i].ID = uuidFromHash(side, strconv.Itoa(offset+i), b.String())
	}
	if out == nil {
		return msgs
	}
	return out
}

// uuidFromHash returns a UUID-shaped string (version 8, "custom") from the
// SHA-256 of the parts. The engine uses it for every ID it makes up, so IDs
// are stable across runs and machines.
func uuidFromHash(parts ...string) string { return uuidFromHashIn(nil, parts...) }

// uuidFromHashIn is uuidFromHash, made in arena when it is not nil.
func uuidFromHashIn(arena *idArena, parts ...string) string {
	sum := hashParts(parts...)
	if arena != nil {
		return arena.uuid((*[16]byte)(sum[:16]))
	}
	return formatUUID((*[16]byte)(sum[:16]))
}

// hashParts is the SHA-256 of parts, each followed by a NUL, hashed in
// one call: a short input stays in a stack buffer.
func hashParts(parts ...string) [32]byte {
	var stack [256]byte
	buf := stack[:0]
	for _, p := range parts {
		buf = append(buf, p...)
		buf = append(buf, 0)
	}
	return sha256.Sum256(buf)
}

// formatUUID writes 16 bytes as a UUID of version 8 ("custom") with the
// RFC 4122 variant, overwriting those bits of sum.
func formatUUID(sum *[16]byte) string {
	var out [36]byte
	writeUUID(out[:], sum)
	return string(out[:])
}

// writeUUID is formatUUID into out, which holds 36 bytes: the 32 hex
// digits of sum in the groups 8-4-4-4-12.
func writeUUID(out []byte, sum *[16]byte) {
	sum[6] = (sum[6] & 0x0f) | 0x80 // version 8
	sum[8] = (sum[8] & 0x3f) | 0x80 // RFC 4122 variant
	out = out[:36]
	hex.Encode(out[0:8], sum[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], sum[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], sum[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], sum[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], sum[10:16])
}

// idArena writes the IDs a task makes up into one growing strings.Builder
// and cuts each from it: a Builder never changes the bytes it has handed
// out as a string, so each ID stays valid (and keeps its buffer alive).
// A buffer holds from one ID up to 64 before the next is started, so a
// task that writes one message makes one ID's worth, and one that writes
// hundreds (a tool node's messages) makes a few buffers, not one string
// per message.
type idArena struct {
	b    strings.Builder // the current buffer
	next int             // IDs in the next buffer
}

// uuid is formatUUID of sum, in the arena.
func (a *idArena) uuid(sum *[16]byte) string {
	if a.b.Cap()-a.b.Len() < 36 {
		a.next = min(max(2*a.next, 1), 64)
		a.b = strings.Builder{}
		a.b.Grow(36 * a.next)
	}
	var out [36]byte
	writeUUID(out[:], sum)
	start := a.b.Len()
	a.b.Write(out[:])
	return a.b.String()[start:]
}

// hashHex returns the first 32 hex digits of the SHA-256 of s (interrupt
// IDs; LangGraph uses xxh3-128 here).
func hashHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}

// IDs of runs without a checkpointer. Nothing stores them, and a superstep
// made up to three SHA-256 UUIDs per task (the task's, its messages' and
// the checkpoint's): a tool node's graph spent as long on the IDs of its
// tool messages as on running trivial calls. Such a run derives them instead from a 128-bit key taken from its seed
// (fastIDKey) and the numbers that tell them apart, mixed by a bijection of
// 64 bits for each half of the UUID:
//
//   - the task at position ord of the superstep at step s (its task ID,
//     made when something asks for it: an interrupt, a subgraph's
//     namespace, a retry's jitter);
//   - the n-th message without an ID that task wrote (n from 1).
//
// Two IDs of one run differ in their numbers, so in the mixed bits of each
// half; the version and variant bits written over six of them leave two
// IDs of a run alike with a chance of about 2^-122, as for hashed IDs. IDs
// of different runs differ by their keys (the seed hashes the thread and
// the input). They are as deterministic as the hashed ones: the same input
// gives the same IDs at any concurrency, since the numbers come from the
// superstep's task order and each task's own write order. Such a run
// makes up no checkpoint IDs: nothing would read them.
const (
	idTask = iota + 1
	idMessage
)

// fastIDKey is the key of a run's fast IDs: the seed's 32 hex digits.
func fastIDKey(seed string) [2]uint64 {
	var b [16]byte
	if _, err := hex.Decode(b[:], []byte(seed)); err != nil {
		sum := sha256.Sum256([]byte(seed))
		copy(b[:], sum[:16])
	}
	return [2]uint64{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

// fastID returns the ID of kind for the numbers a, b and c (see idTask):
// the run's key mixed with the numbers packed into 64 bits. Numbers that
// do not fit (a step or a task position of 2^20 and more, a message
// counter of 2^20 and more) take a hashed ID instead.
func (r *run) fastID(kind int, a, b, c int) string { return r.fastIDIn(nil, kind, a, b, c) }

// fastIDIn is fastID, made in arena when it is not nil.
func (r *run) fastIDIn(arena *idArena, kind int, a, b, c int) string {
	a++ // the input's step is -1
	if a < 0 || a >= 1<<22 || b < 0 || b >= 1<<20 || c < 0 || c >= 1<<20 {
		var key [16]byte
		binary.BigEndian.PutUint64(key[:8], r.idKey[0])
		binary.BigEndian.PutUint64(key[8:], r.idKey[1])
		return uuidFromHash(hex.EncodeToString(key[:]), strconv.Itoa(kind), strconv.Itoa(a), strconv.Itoa(b), strconv.Itoa(c))
	}
	p := uint64(kind)<<62 | uint64(a)<<40 | uint64(b)<<20 | uint64(c)
	var sum [16]byte
	binary.BigEndian.PutUint64(sum[:8], r.idKey[0]^mix64(p^fastIDSalt))
	binary.BigEndian.PutUint64(sum[8:], r.idKey[1]^mix64(p))
	if arena != nil {
		return arena.uuid(&sum)
	}
	return formatUUID(&sum)
}

// fastIDSalt tells the first half of a fast ID from the second.
const fastIDSalt = 0x9e3779b97f4a7c15

// parseFastMessageID returns the packed numbers of id when it is the fast
// ID of a message (kind idMessage) made with key, as fastIDIn writes it:
// the inverse of fastIDIn for the IDs it does not hash. Six bits of the
// UUID are version and variant, so the second half leaves four
// candidates for the packed numbers; the first half (60 bits) must match
// the candidate's, so another string parses with a chance of about 2^-58.
func parseFastMessageID(key [2]uint64, id string) (uint64, bool) {
	if len(id) != 36 || id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-' {
		return 0, false
	}
	var digits [32]byte
	copy(digits[0:8], id[0:8])
	copy(digits[8:12], id[9:13])
	copy(digits[12:16], id[14:18])
	copy(digits[16:20], id[19:23])
	copy(digits[20:32], id[24:36])
	var sum [16]byte
	if _, err := hex.Decode(sum[:], digits[:]); err != nil {
		return 0, false
	}
	for _, c := range digits {
		if 'A' <= c && c <= 'F' {
			return 0, false // writeUUID writes lowercase digits only
		}
	}
	first := binary.BigEndian.Uint64(sum[:8])
	second := binary.BigEndian.Uint64(sum[8:])
	if second>>62 != 2 || (first>>12)&0xf != 8 {
		return 0, false // not version 8 with the RFC 4122 variant
	}
	for top := range uint64(4) {
		p := unmix64((second&^(3<<62) | top<<62) ^ key[1])
		if p>>62 != idMessage {
			continue
		}
		f := key[0] ^ mix64(p^fastIDSalt)
		if f&^(0xf<<12)|8<<12 == first {
			return p, true
		}
	}
	return 0, false
}

// unmix64 is the inverse of mix64: each xorshift by 33 is its own
// inverse, each multiplication undone by the multiplier's inverse modulo
// 2^64.
func unmix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0x9cb4b2f8129337db // 0xc4ceb9fe1a85ec53⁻¹
	x ^= x >> 33
	x *= 0x4f74430c22a54005 // 0xff51afd7ed558ccd⁻¹
	x ^= x >> 33
	return x
}

// mix64 is MurmurHash3's 64-bit finalizer, a bijection.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// messageID is the ID of the n-th message without one that task t wrote:
// hashed from the checkpoint and the task when a saver keeps them (the IDs
// golden transcripts show), cut from the run's arena (tasks of a superstep
// write one message each, mostly); a fast ID cut from the task's arena
// otherwise. The caller holds t.mu.
func (r *run) messageID(t *task, n int) string {
	if r.saver == nil {
		return r.fastIDIn(&t.ids, idMessage, t.scratch.step, t.ord, n)
	}
	sum := hashParts(r.cpID, t.id, strconv.Itoa(n))
	r.msgIDsMu.Lock()
	defer r.msgIDsMu.Unlock()
	return r.msgIDs.uuid((*[16]byte)(sum[:16]))
}

// noteMinted says in the task's room, when msgs is that room's list,
// that the task gave every message of it its next ID in order, none of
// them a removal (normalizeWrite): the channel then checks the list by
// its first and last IDs (mintState.freshRun). msgs is a list the task's
// node made for its output alone (see scratchpad.ownList). The caller
// holds t.mu.
func (t *task) noteMinted(msgs []Message) {
	sp := t.scratch
	if sp == nil {
		return
	}
	sp.mu.Lock()
	if own := sp.own; own != nil && own.room.holds(msgs) {
		own.room.minted = true
	}
	sp.mu.Unlock()
}

// nodeSeed is the SHA-256 state after a list's messages up to the end of
// one of its nodes, hashed from the state pre (just before the list's
// '['), in the form encoding.BinaryMarshaler gives.
type nodeSeed struct {
	pre, post []byte
}

// hashList writes the JSON of l to h as hashJSON writes a []Message with
// the same messages, resuming after the last node of l whose messages an
// earlier seed hashed from the same state: a run's input that extends a
// list an earlier input held (a conversation handed back turn after turn,
// or the same input again) costs what it adds. Every node hashed keeps its
// state for the next.
func hashList(h hash.Hash, buf *bytes.Buffer, l MessageList) error {
	if l.n == nil {
		h.Write([]byte("[]"))
		return nil
	}
	pre, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return err
	}
	var stack [64]*listNode
	todo := stack[:0]
	n := l.n
	for ; n != nil; n = n.prev {
		if s := n.seed.Load(); s != nil && bytes.Equal(s.pre, pre) {
			if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(s.post); err != nil {
				return err
			}
			break
		}
		todo = append(todo, n)
	}
	if n == nil {
		h.Write([]byte{'['})
	}
	for k := len(todo) - 1; k >= 0; k-- {
		t := todo[k]
		for i := range t.items {
			buf.Reset()
			if t.off+i > 0 {
				buf.WriteByte(',')
			}
			if err := t.items[i].writeJSON(buf); err != nil {
				return err
			}
			h.Write(buf.Bytes())
		}
		post, err := h.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			return err
		}
		t.seed.Store(&nodeSeed{pre: pre, post: post})
	}
	h.Write([]byte{']'})
	return nil
}
