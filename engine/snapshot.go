package engine

import (
	"context"
	"maps"
	"slices"
	"time"
)

// CheckpointSnapshot is a checkpoint in the form a run holds it: the
// channel values and versions by channel number, the versions each node
// saw in a table by node and channel, and the time. A run makes one per
// superstep for a saver that takes them (SnapshotSaver), cut from a few
// slabs it allocates for several snapshots at a time (snapArena), its
// numbers in 32 bits each when they fit and without pointers for the
// garbage collector to follow, where the checkpoint's public shape takes
// five maps and their entries; Checkpoint builds that shape when someone
// reads the checkpoint. A snapshot never changes once made, so a saver
// may keep it as it is and share it between readers.
type CheckpointSnapshot struct {
	g  *Graph
	ts time.Time
	// nums holds the channel versions (nCh), the seen table (rows × nCh)
	// and each channel's state (nCh: noValue, noPrefix or its list
	// prefix), each in one int32 when all of them fit (wide is false),
	// in two otherwise (the low half first); then as bits, 32 to an
	// int32, whether each version, each seen entry and each row is there
	// (the versions table's has, seenHas and rowHas)
	nums      []int32
	wide      bool
	rows      int
	max       int64
	extraCur  map[string]int64
	extraSeen map[string]map[string]int64
	// vals[c] is channel c's value
	vals    []any
	updated []string
}

const (
	noPrefix = -1
	noValue  = -2
)

// parts returns the numbers of nums, widened, and its bits.
func (s *CheckpointSnapshot) parts() (cur, seen, state []int64, bits []int32) {
	n := len(s.vals)
	count := 2*n + s.rows*n
	all := make([]int64, count)
	width := 1
	if s.wide {
		width = 2
	}
	for i := range all {
		if s.wide {
			all[i] = int64(uint32(s.nums[2*i])) | int64(s.nums[2*i+1])<<32
		} else {
			all[i] = int64(s.nums[i])
		}
	}
	return all[:n], all[n : n+s.rows*n], all[n+s.rows*n:], s.nums[width*count:]
}

// snapshotWords is the length of nums for n channels and rows rows, its
// numbers wide or not.
func snapshotWords(n, rows int, wide bool) int {
	count := 2*n + rows*n
	if wide {
		count *= 2
	}
	flags := n + rows*n + rows
	return count + (flags+31)/32
}

func getBit(bits []int32, i int) bool { return bits[i/32]&(1<<(i%32)) != 0 }
func setBit(bits []int32, i int)      { bits[i/32] |= 1 << (i % 32) }

// versions returns the versions table the snapshot was taken of, new
// (its extra maps are the snapshot's: read them only).
func (s *CheckpointSnapshot) versions() *versions {
	n := len(s.vals)
	v := newVersionsSized(n, s.rows)
	cur, seen, _, bits := s.parts()
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
	v.max, v.extraCur, v.extraSeen = s.max, s.extraCur, s.extraSeen
	return v
}

// Checkpoint returns the snapshot in the public shape, without an ID. Its
// maps and slices are new on every call and the caller's to change;
// channel values are shared.
func (s *CheckpointSnapshot) Checkpoint() *Checkpoint {
	g := s.g
	_, _, state, _ := s.parts()
	values := make(map[string]any, len(s.vals))
	var prefix map[string]int
	for c, st := range state {
		if st == noValue {
			continue
		}
		name := g.chanNames[c]
		values[name] = s.vals[c]
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
		TS:              s.ts.Format(time.RFC3339Nano),
		ChannelValues:   values,
		ChannelVersions: v.channelVersions(g),
		VersionsSeen:    v.versionsSeen(g, nil),
		UpdatedChannels: slices.Clone(s.updated),
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
	nums  []int32
	taken int
}

// next returns a zero snapshot with n values and words numbers.
func (a *snapArena) next(n, words int) *CheckpointSnapshot {
	k := min(max(a.taken, 2), 8)
	a.taken++
	if len(a.snaps) == 0 {
		a.snaps = make([]CheckpointSnapshot, k)
	}
	s := &a.snaps[0]
	a.snaps = a.snaps[1:]
	if len(a.vals) < n {
		a.vals = make([]any, k*n)
	}
	s.vals, a.vals = a.vals[:n:n], a.vals[n:]
	if len(a.nums) < words {
		a.nums = make([]int32, k*words)
	}
	s.nums, a.nums = a.nums[:words:words], a.nums[words:]
	return s
}

// fits32 reports whether every number of nums fits in an int32.
func fits32(nums ...[]int64) bool {
	for _, ns := range nums {
		for _, x := range ns {
			if x != int64(int32(x)) {
				return false
			}
		}
	}
	return true
}

// snapshot is the checkpoint of the run's channels and versions as a
// snapshot; it resets the channels' list prefixes as checkpoint does.
func (r *run) snapshot() *CheckpointSnapshot {
	g, w := r.g, r.vers
	n, rows := len(r.chans), len(w.rowHas)
	// the states are list prefixes (lengths) and the negative markers
	var stateBuf [8]int64
	state := stateBuf[:0]
	if n > len(stateBuf) {
		state = make([]int64, 0, n)
	}
	for range n {
		state = append(state, noValue)
	}
	s := r.snaps.next(n, snapshotWords(n, rows, false))
	s.g, s.rows, s.max = g, rows, w.max
	for c, ch := range r.chans {
		if _, has := w.get(c); !has {
			continue
		}
		v, ok := ch.checkpoint()
		if !ok {
			continue
		}
		s.vals[c], state[c] = v, noPrefix
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
	s.wide = !fits32(w.cur, w.seen, state)
	if s.wide {
		// rare: a version or a prefix of 2^31 or more
		s.nums = make([]int32, snapshotWords(n, rows, true))
	}
	nums, count := s.nums, 0
	for _, part := range [][]int64{w.cur, w.seen, state} {
		for _, x := range part {
			if s.wide {
				nums[2*count], nums[2*count+1] = int32(uint32(x)), int32(x>>32)
			} else {
				nums[count] = int32(x)
			}
			count++
		}
	}
	if s.wide {
		count *= 2
	}
	bits := nums[count:]
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
	if w.extraCur != nil {
		s.extraCur = maps.Clone(w.extraCur)
	}
	if w.extraSeen != nil {
		s.extraSeen = make(map[string]map[string]int64, len(w.extraSeen))
		for node, m := range w.extraSeen {
			s.extraSeen[node] = maps.Clone(m)
		}
	}
	s.ts = g.clock.Now().UTC()
	s.updated = r.updatedChannels()
	return s
}
