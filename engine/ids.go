package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"sync"
	"unsafe"

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
// earlier run left it (see seedCache); a nil cache hashes everything.
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
	case []Message:
		if c != nil && len(t) >= seedCacheMin {
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
// its input every turn, and hashing its JSON was 78% of W4's CPU at
// 10,000 messages (2.2 of 2.8 s in a CPU profile; 1.8 µs per message).
//
// SHA-256 is a streaming hash whose state can be saved and restored
// (encoding.BinaryMarshaler), so an entry keeps the state just before a
// list's '[' (pre), a snapshot of the list's messages and the state after
// the last of them (post). A later list hashed from the same state pre
// whose first messages equal the snapshot restores post and hashes only
// the messages after them: the bytes hashed are the same, so the seed is
// the one seedOf computes from scratch (TestPropSeedCacheMatchesSeedOf).
//
// Comparing a message with the snapshot is shallow, and cheap (a few ns
// against 1.8 µs to encode and hash it): strings, the elements of the
// tool call, invalid tool call and content block lists (the snapshot
// holds copies of those lists, so an element replaced in place is seen),
// and the identity of pointers and other values. What a message refers to
// (argument objects, the objects in content blocks, metadata) is treated
// as immutable once a run has read it, as the engine does everywhere
// (values are shared, not copied: see the package doc).
type seedCache struct {
	mu      sync.Mutex
	entries []*seedEntry // least recently used first
}

type seedEntry struct {
	pre, post []byte
	snap      []Message
}

const (
	// seedCacheMin is the shortest list the cache serves: below it the
	// snapshot would cost more than the hashing it saves.
	seedCacheMin = 64
	// seedCacheSize is how many lists a graph remembers.
	seedCacheSize = 8
)

func newSeedCache() *seedCache { return &seedCache{} }

// hashMessages writes the JSON of msgs to h as hashJSON does, resuming
// from a remembered state when it can.
func (c *seedCache) hashMessages(h hash.Hash, buf *bytes.Buffer, msgs []Message) error {
	pre, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return err
	}
	c.mu.Lock()
	var found *seedEntry
	var snap []Message
	var post []byte
	for i := len(c.entries) - 1; i >= 0 && found == nil; i-- {
		e := c.entries[i]
		if len(e.snap) <= len(msgs) && bytes.Equal(e.pre, pre) {
			found, snap, post = e, e.snap, e.post
		}
		if found != nil && !sameMessages(snap, msgs) {
			found = nil
		}
	}
	c.mu.Unlock()
	k := 0
	if found != nil {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(post); err != nil {
			return err
		}
		k = len(snap)
	} else {
		h.Write([]byte{'['})
	}
	for i := k; i < len(msgs); i++ {
		buf.Reset()
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := msgs[i].writeJSON(buf); err != nil {
			return err
		}
		h.Write(buf.Bytes())
	}
	end, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return err
	}
	h.Write([]byte{']'})
	if found != nil && k == len(msgs) {
		c.touch(found)
		return nil
	}
	c.remember(found, k, pre, end, msgs)
	return nil
}

// remember records that msgs hashed from pre ends in state end; found,
// when set, is the entry whose k messages msgs began with.
func (c *seedCache) remember(found *seedEntry, k int, pre, end []byte, msgs []Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if found != nil && len(found.snap) == k && c.index(found) >= 0 {
		// extend the entry in place: positions below its length are
		// never written again, so lookups under way still see theirs
		for _, m := range msgs[k:] {
			found.snap = append(found.snap, snapshotMessage(m))
		}
		found.post = end
		c.touchLocked(found)
		return
	}
	e := &seedEntry{pre: pre, post: end, snap: make([]Message, 0, len(msgs)+len(msgs)/8)}
	if found != nil {
		e.snap = append(e.snap, found.snap[:k]...)
	} else {
		k = 0
	}
	for _, m := range msgs[k:] {
		e.snap = append(e.snap, snapshotMessage(m))
	}
	if len(c.entries) == seedCacheSize {
		c.entries = append(c.entries[:0], c.entries[1:]...)
	}
	c.entries = append(c.entries, e)
}

func (c *seedCache) index(e *seedEntry) int {
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
	if i := c.index(e); i >= 0 {
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

// sameMessages reports whether msgs begins with the snapshot snap.
func sameMessages(snap, msgs []Message) bool {
	for i := range snap {
		if !sameMessage(&snap[i], &msgs[i]) {
			return false
		}
	}
	return true
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

// sameRef reports whether two interface values hold the same dynamic type
// and the same data word: the same pointer, or the same boxed value (a
// boxed value never changes). It never panics on values == would refuse.
func sameRef(a, b any) bool {
	type eface struct{ typ, data unsafe.Pointer }
	ea, eb := (*eface)(unsafe.Pointer(&a)), (*eface)(unsafe.Pointer(&b))
	return *ea == *eb
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
func uuidFromHash(parts ...string) string {
	// parts joined with NUL terminators, hashed in one call: a short input
	// stays in this stack buffer, so the ID costs one allocation
	var stack [256]byte
	buf := stack[:0]
	for _, p := range parts {
		buf = append(buf, p...)
		buf = append(buf, 0)
	}
	sum := sha256.Sum256(buf)
	return formatUUID((*[16]byte)(sum[:16]))
}

// formatUUID writes 16 bytes as a UUID of version 8 ("custom") with the
// RFC 4122 variant, overwriting those bits of sum.
func formatUUID(sum *[16]byte) string {
	var out [36]byte
	writeUUID(out[:], sum)
	return string(out[:])
}

// writeUUID is formatUUID into out, which holds 36 bytes.
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

// idArena hands out the IDs a task makes up as strings cut from a few
// larger allocations: the bytes of an ID are written once, before the
// string over them exists, and never again, so the strings stay valid
// (and keep their chunk alive). Chunks double from one ID to 64, so a
// task that writes one message still allocates one ID's worth, and one
// that writes 256 (W1's tool node) allocates 9 times, not 256.
type idArena struct {
	buf  []byte // the unused rest of the current chunk
	next int    // IDs in the next chunk
}

// uuid is formatUUID of sum, in the arena.
func (a *idArena) uuid(sum *[16]byte) string {
	if len(a.buf) < 36 {
		a.next = min(max(2*a.next, 1), 64)
		a.buf = make([]byte, 36*a.next)
	}
	out := a.buf[:36:36]
	a.buf = a.buf[36:]
	writeUUID(out, sum)
	return unsafe.String(&out[0], 36)
}

// hashHex returns the first 32 hex digits of the SHA-256 of s (interrupt
// IDs; LangGraph uses xxh3-128 here).
func hashHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}

// IDs of runs without a checkpointer. Nothing stores them, and a superstep
// made up to three SHA-256 UUIDs per task (the task's, its messages' and
// the checkpoint's, about 240 ns each): W1's graph of 256 tool calls spent
// as long on the IDs of its tool messages as on running the calls. Such a
// run derives them instead from a 128-bit key taken from its seed
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
	binary.BigEndian.PutUint64(sum[:8], r.idKey[0]^mix64(p^0x9e3779b97f4a7c15))
	binary.BigEndian.PutUint64(sum[8:], r.idKey[1]^mix64(p))
	if arena != nil {
		return arena.uuid(&sum)
	}
	return formatUUID(&sum)
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
// golden transcripts show), a fast ID otherwise, cut from the task's
// arena. The caller holds t.mu.
func (r *run) messageID(t *task, n int) string {
	if r.saver == nil {
		return r.fastIDIn(&t.ids, idMessage, t.scratch.step, t.ord, n)
	}
	return uuidFromHash(r.cpID, t.id, strconv.Itoa(n))
}
