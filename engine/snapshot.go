package engine

import (
	"context"
	"encoding/binary"
	"maps"
	"math"
	"math/bits"
	"slices"
	"time"
	"unsafe"
)

// CheckpointSnapshot is a checkpoint in the form a run holds it: the
// channel values and versions by channel number, the versions each node
// saw in a table by node and channel, and the time. A run makes one per
// superstep for a saver that takes them (SnapshotSaver), cut from a few
// slabs it allocates for several snapshots at a time (snapArena), its
// numbers in as few bytes each as all of them fit in and without pointers
// for the garbage collector to follow, where the checkpoint's public
// shape takes five maps and their entries; Checkpoint builds that shape
// when someone reads the checkpoint. A snapshot never changes once made,
// so a saver may keep it as it is and share it between readers.
//
// A saver such as checkpoint.Memory keeps every snapshot of a thread, so
// its size is what a superstep costs to keep: 48 bytes here, the values
// that are there and a byte per number in most runs (it was 144 bytes,
// a value for every channel and 4 bytes per number). Its numbers and
// values are pointers to their first element, their lengths following
// from the numbers (a slice's length and capacity took 32 bytes).
type CheckpointSnapshot struct {
	g *Graph
	// ts is the time in nanoseconds since 1970 (UTC), unless rare holds
	// it (a time past what 64 bits of nanoseconds reach)
	ts int64
	// nums is the first byte of the numbers: their width, 1, 2, 4 or 8
	// bytes, the fewest all of them fit in as signed numbers (numWidth);
	// then the channel versions (nCh), the seen table (rows × nCh, the
	// graph's seenRows) and each channel's state (nCh: noValue, noPrefix
	// or its list prefix), each a little-endian number of that width;
	// then as bits, 8 to a byte, whether each version, each seen entry
	// and each row is there (the versions table's has, seenHas and
	// rowHas). See snapshotLayout.
	nums *byte
	// vals is the first of the values of the channels that have one
	// (their state is not noValue), in channel order; nil when none has
	vals *any
	// updated has bit c set when the last superstep updated channel c,
	// for graphs of up to 64 channels (rare.updated lists them
	// otherwise)
	updated uint64
	// rare holds what few snapshots have: nil for most
	rare *snapRare
}

// snapRare is the part of a snapshot few runs have.
type snapRare struct {
	// extraCur and extraSeen are the versions table's entries for
	// channels or nodes the graph does not have (from a checkpoint of
	// another graph)
	extraCur  map[string]int64
	extraSeen map[string]map[string]int64
	// time is the snapshot's time when it is not ts
	time    time.Time
	hasTime bool
	// updated lists the updated channels of a graph of more than 64
	updated []string
}

const (
	noPrefix = -1
	noValue  = -2
)

// snapshotLayout returns the numbers of channels, of rows and of numbers
// of the snapshot, the width of each, and the bytes of the numbers and
// the bits after them.
func (s *CheckpointSnapshot) snapshotLayout() (n, rows, count, width int, nums []byte) {
	n, rows = len(s.g.chanNames), s.g.seenRows()
	count, width = 2*n+rows*n, int(*s.nums)
	return n, rows, count, width, unsafe.Slice(s.nums, 1+width*count+flagBytes(n, rows))[1:]
}

// snapshotBytes is the length of a snapshot's numbers of width bytes,
// their width and their bits, for n channels and rows rows.
func snapshotBytes(n, rows, width int) int { return 1 + width*(2*n+rows*n) + flagBytes(n, rows) }

// flagBytes is the number of bytes the bits of a snapshot of n channels
// and rows rows take.
func flagBytes(n, rows int) int { return (n + rows*n + rows + 7) / 8 }

// numWidth is the fewest bytes, 1, 2, 4 or 8, that every number from lo
// to hi fits in as a signed number.
func numWidth(lo, hi int64) int {
	switch {
	case lo >= math.MinInt8 && hi <= math.MaxInt8:
		return 1
	case lo >= math.MinInt16 && hi <= math.MaxInt16:
		return 2
	case lo >= math.MinInt32 && hi <= math.MaxInt32:
		return 4
	}
	return 8
}

// putNum writes x in width bytes at b.
func putNum(b []byte, width int, x int64) {
	switch width {
	case 1:
		b[0] = byte(x)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(x))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(x))
	default:
		binary.LittleEndian.PutUint64(b, uint64(x))
	}
}

// getNum reads the number of width bytes at b.
func getNum(b []byte, width int) int64 {
	switch width {
	case 1:
		return int64(int8(b[0]))
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(b)))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	}
	return int64(binary.LittleEndian.Uint64(b))
}

// parts returns the numbers of nums, widened, and its bits.
func (s *CheckpointSnapshot) parts() (cur, seen, state []int64, bits []byte) {
	n, rows, count, width, nums := s.snapshotLayout()
	all := make([]int64, count)
	for i := range all {
		all[i] = getNum(nums[i*width:], width)
	}
	return all[:n], all[n : n+rows*n], all[n+rows*n:], nums[width*count:]
}

func getBit(bits []byte, i int) bool { return bits[i/8]&(1<<(i%8)) != 0 }
func setBit(bits []byte, i int)      { bits[i/8] |= 1 << (i % 8) }

// versions returns the versions table the snapshot was taken of, new
// (its extra maps are the snapshot's: read them only), without its
// highest version, which no reader of a snapshot needs.
func (s *CheckpointSnapshot) versions() *versions {
	cur, seen, _, bits := s.parts()
	n := len(cur)
	v := newVersions(s.g)
	copy(v.cur, cur)
	copy(v.seen, seen)
	for c := range n {
		v.has[c] = getBit(bits, c)
	}
	for i := range v.seenHas {
		v.seenHas[i] = getBit(bits, n+i)
	}
	for r := range v.rowHas {
		v.rowHas[r] = getBit(bits, n+len(v.seenHas)+r)
	}
	if s.rare != nil {
		v.extraCur, v.extraSeen = s.rare.extraCur, s.rare.extraSeen
	}
	return v
}

// time returns the snapshot's time.
func (s *CheckpointSnapshot) time() time.Time {
	if s.rare != nil && s.rare.hasTime {
		return s.rare.time
	}
	return time.Unix(0, s.ts).UTC()
}

// updatedChannels returns the channels the last superstep updated,
// sorted, in a new slice (never nil).
func (s *CheckpointSnapshot) updatedChannels() []string {
	if s.rare != nil && s.rare.updated != nil {
		return slices.Clone(s.rare.updated)
	}
	upd := make([]string, 0, bits.OnesCount64(s.updated))
	for m := s.updated; m != 0; m &= m - 1 {
		upd = append(upd, s.g.chanNames[bits.TrailingZeros64(m)])
	}
	slices.Sort(upd)
	return upd
}

// Checkpoint returns the snapshot in the public shape, without an ID. Its
// maps and slices are new on every call and the caller's to change;
// channel values are shared.
func (s *CheckpointSnapshot) Checkpoint() *Checkpoint {
	g := s.g
	_, _, state, _ := s.parts()
	have := 0
	for _, st := range state {
		if st != noValue {
			have++
		}
	}
	vals := unsafe.Slice(s.vals, have)
	values := make(map[string]any, have)
	var prefix map[string]int
	next := 0
	for c, st := range state {
		if st == noValue {
			continue
		}
		name := g.chanNames[c]
		values[name] = vals[next]
		next++
		if st >= 0 {
			if prefix == nil {
				prefix = map[string]int{}
			}
			prefix[name] = int(st)
		}
	}
	v := s.versions()
	return &Checkpoint{
		V:               4,
		TS:              s.time().Format(time.RFC3339Nano),
		ChannelValues:   values,
		ChannelVersions: v.channelVersions(g),
		VersionsSeen:    v.versionsSeen(g, nil),
		UpdatedChannels: s.updatedChannels(),
		ListPrefix:      prefix,
	}
}

// SnapshotSaver is a Checkpointer that also takes a run's checkpoints as
// snapshots, which it keeps as they are instead of storing maps: an
// in-memory saver (checkpoint.Memory), whose GetTuple and List build the
// public shape of what they return anyway. A run uses PutSnapshot for
// every checkpoint it takes when its saver has it.
type SnapshotSaver interface {
	Checkpointer
	// PutSnapshot is Put(ctx, cfg, s.Checkpoint(), meta): it stores the
	// snapshot with a new ID under cfg.CheckpointID, with the same
	// conflict check. The saver keeps s and meta's map, which the caller
	// hands over and changes no more.
	PutSnapshot(ctx context.Context, cfg CheckpointConfig, s *CheckpointSnapshot, meta CheckpointMetadata) (CheckpointConfig, error)
}

// snapArena is where a run cuts its snapshots from: slabs of a few
// snapshots, of their values and of their numbers, each made for as many
// snapshots as the run took so far, from two up to eight. A run's
// snapshots go to one thread of one saver, which keeps them all as long
// as it keeps the thread, so a slab is freed with its last snapshot; a
// superstep's snapshot then costs no allocation of its own (it cost two:
// W3 puts 23 checkpoints per run).
type snapArena struct {
	snaps []CheckpointSnapshot
	vals  []any
	nums  []byte
	taken int
}

// next returns a zero snapshot with n values and words bytes of
// numbers, and those.
func (a *snapArena) next(n, words int) (s *CheckpointSnapshot, vals []any, nums []byte) {
	k := min(max(a.taken, 2), 8)
	a.taken++
	if len(a.snaps) == 0 {
		a.snaps = make([]CheckpointSnapshot, k)
	}
	s = &a.snaps[0]
	a.snaps = a.snaps[1:]
	if n > 0 {
		if len(a.vals) < n {
			a.vals = make([]any, k*n)
		}
		vals, a.vals = a.vals[:n:n], a.vals[n:]
		s.vals = &vals[0]
	}
	if len(a.nums) < words {
		a.nums = make([]byte, k*words)
	}
	nums, a.nums = a.nums[:words:words], a.nums[words:]
	s.nums = &nums[0]
	return s, vals, nums
}

// snapshot is the checkpoint of the run's channels and versions as a
// snapshot; it resets the channels' list prefixes as checkpoint does.
func (r *run) snapshot() *CheckpointSnapshot {
	g, w := r.g, r.vers
	// the table has the graph's rows (newVersions)
	n, rows := len(r.chans), len(w.rowHas)
	// the states are list prefixes (lengths) and the negative markers;
	// the values those of the channels that have one
	var stateBuf [8]int64
	var valBuf [8]any
	state, vals := stateBuf[:0], valBuf[:0]
	if n > len(stateBuf) {
		state = make([]int64, 0, n)
	}
	for c, ch := range r.chans {
		state = append(state, noValue)
		if _, has := w.get(c); !has {
			continue
		}
		v, ok := ch.checkpoint()
		if !ok {
			continue
		}
		vals, state[c] = append(vals, v), noPrefix
		switch ch := ch.(type) {
		case *binop:
			if ch.prefix >= 0 {
				state[c] = int64(ch.prefix)
			}
			ch.resetPrefix()
		case *messagesChan:
			state[c] = int64(ch.prefix)
			ch.resetPrefix()
		}
	}
	lo, hi := int64(noValue), int64(0)
	for _, part := range [][]int64{w.cur, w.seen, state} {
		for _, x := range part {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	width := numWidth(lo, hi)
	count := 2*n + rows*n
	s, into, nums := r.snaps.next(len(vals), snapshotBytes(n, rows, width))
	copy(into, vals)
	s.g = g
	nums[0] = byte(width)
	nums = nums[1:]
	i := 0
	for _, part := range [][]int64{w.cur, w.seen, state} {
		for _, x := range part {
			putNum(nums[i:], width, x)
			i += width
		}
	}
	bits := nums[width*count:]
	for c, h := range w.has {
		if h {
			setBit(bits, c)
		}
	}
	for i, h := range w.seenHas {
		if h {
			setBit(bits, n+i)
		}
	}
	for row, h := range w.rowHas {
		if h {
			setBit(bits, n+len(w.seenHas)+row)
		}
	}
	t := g.clock.Now().UTC()
	s.ts = t.UnixNano()
	timeFits := time.Unix(0, s.ts).Equal(t)
	if n <= 64 {
		if r.updatedKnown {
			for c, u := range r.updated {
				if u {
					s.updated |= 1 << c
				}
			}
		}
	} else {
		s.rare = &snapRare{updated: r.updatedChannels()}
	}
	if w.extraCur == nil && w.extraSeen == nil && timeFits {
		return s
	}
	if s.rare == nil {
		s.rare = &snapRare{}
	}
	if !timeFits {
		// before 1678 or after 2262
		s.rare.time, s.rare.hasTime = t, true
	}
	if w.extraCur != nil {
		s.rare.extraCur = maps.Clone(w.extraCur)
	}
	if w.extraSeen != nil {
		s.rare.extraSeen = make(map[string]map[string]int64, len(w.extraSeen))
		for node, m := range w.extraSeen {
			s.rare.extraSeen[node] = maps.Clone(m)
		}
	}
	return s
}
