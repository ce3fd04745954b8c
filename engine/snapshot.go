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
// superstep for a saver that takes them (SnapshotSaver) in two
// allocations for a graph of up to eight channels (three beyond), one of
// them without pointers for the garbage collector to follow, where the
// checkpoint's public shape takes five maps and their entries;
// Checkpoint builds that shape when someone reads the checkpoint. A
// snapshot never changes once made, so a saver may keep it as it is and
// share it between readers.
type CheckpointSnapshot struct {
	g  *Graph
	ts time.Time
	// nums holds the channel versions (nCh), the seen table (rows × nCh),
	// each channel's state (nCh: noValue, noPrefix or its list prefix),
	// then as bits whether each version, each seen entry and each row is
	// there (the versions table's has, seenHas and rowHas)
	nums      []int64
	rows      int
	max       int64
	extraCur  map[string]int64
	extraSeen map[string]map[string]int64
	// vals[c] is channel c's value, in valsBuf for a small graph
	vals    []any
	valsBuf [8]any
	updated []string
}

const (
	noPrefix = -1
	noValue  = -2
)

// parts returns the parts of nums.
func (s *CheckpointSnapshot) parts() (cur, seen, state []int64, bits []int64) {
	n := len(s.vals)
	cur = s.nums[:n]
	seen = s.nums[n : n+s.rows*n]
	state = s.nums[n+s.rows*n : 2*n+s.rows*n]
	return cur, seen, state, s.nums[2*n+s.rows*n:]
}

// snapshotWords is the length of nums for n channels and rows rows.
func snapshotWords(n, rows int) int {
	flags := n + rows*n + rows
	return 2*n + rows*n + (flags+63)/64
}

func getBit(bits []int64, i int) bool { return bits[i/64]&(1<<(i%64)) != 0 }
func setBit(bits []int64, i int)      { bits[i/64] |= 1 << (i % 64) }

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

// snapshot is the checkpoint of the run's channels and versions as a
// snapshot; it resets the channels' list prefixes as checkpoint does.
func (r *run) snapshot() *CheckpointSnapshot {
	g, w := r.g, r.vers
	n, rows := len(r.chans), len(w.rowHas)
	s := &CheckpointSnapshot{g: g, rows: rows, max: w.max, nums: make([]int64, snapshotWords(n, rows))}
	if n <= len(s.valsBuf) {
		s.vals = s.valsBuf[:n:n]
	} else {
		s.vals = make([]any, n)
	}
	cur, seen, state, bits := s.parts()
	copy(cur, w.cur)
	copy(seen, w.seen)
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
	for c, ch := range r.chans {
		state[c] = noValue
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
	s.ts = g.clock.Now().UTC()
	s.updated = r.updatedChannels()
	return s
}
