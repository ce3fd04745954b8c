package engine

import (
	"context"
	"maps"
	"time"
)

// CheckpointSnapshot is a checkpoint in the form a run holds it: the
// channel values and versions by channel number, the versions each node
// saw in a table by node and channel, and the time. A run makes one per
// superstep for a saver that takes them (SnapshotSaver), where the
// checkpoint's public shape takes five maps and their entries; Checkpoint
// builds that shape when someone reads the checkpoint. A snapshot never
// changes once made, so a saver may keep it as it is and share it between
// readers.
type CheckpointSnapshot struct {
	g    *Graph
	time time.Time
	// nums is a copy of the run's versions table (without its highest
	// version, which no reader of a snapshot needs), then each channel's
	// state: cur (a version per channel), seen (a version per row and
	// channel), state (per channel: noValue, noPrefix or the length of
	// its list prefix, see messagesChan.prefix). flags is the table's
	// has, seenHas and rowHas, one after the other. Their lengths follow
	// from the graph's channels and rows (seenRows).
	nums  []int64
	flags []bool
	// extraCur and extraSeen are copies of the table's entries for
	// channels and nodes the graph does not have
	extraCur  map[string]int64
	extraSeen map[string]map[string]int64
	// vals holds the values of the channels that have one (their state is
	// not noValue), in channel order
	vals []any
	// updated lists the channels the last superstep updated, sorted; the
	// run shares it between snapshots, and nobody writes it
	updated []string
}

const (
	noPrefix = -1
	noValue  = -2
)

// versions returns a copy of the versions table the snapshot was taken
// of (its extra maps are the snapshot's: read them only).
func (s *CheckpointSnapshot) versions() *versions {
	v := newVersions(s.g)
	n, table := len(v.cur), len(v.cur)+len(v.seen)
	copy(v.cur, s.nums[:n])
	copy(v.seen, s.nums[n:table])
	copy(v.has, s.flags[:n])
	copy(v.seenHas, s.flags[n:n+len(v.seenHas)])
	copy(v.rowHas, s.flags[n+len(v.seenHas):])
	v.extraCur, v.extraSeen = s.extraCur, s.extraSeen
	return v
}

// states returns each channel's state (see nums).
func (s *CheckpointSnapshot) states() []int64 {
	n := len(s.g.chanNames)
	return s.nums[n+s.g.seenRows()*n:]
}

// updatedChannels returns the channels the last superstep updated,
// sorted, in a new slice (never nil).
func (s *CheckpointSnapshot) updatedChannels() []string {
	return append(make([]string, 0, len(s.updated)), s.updated...)
}

// Checkpoint returns the snapshot in the public shape, without an ID. Its
// maps and slices are new on every call and the caller's to change;
// channel values are shared.
func (s *CheckpointSnapshot) Checkpoint() *Checkpoint {
	g := s.g
	values := make(map[string]any, len(s.vals))
	var prefix map[string]int
	next := 0
	for c, st := range s.states() {
		if st == noValue {
			continue
		}
		name := g.chanNames[c]
		values[name] = s.vals[next]
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
		TS:              s.time.Format(time.RFC3339Nano),
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

// snapArena is where a run takes its snapshots from: slabs of a few
// snapshots, of their numbers, flags and values, each made for as many
// snapshots as the run took so far, from two up to eight. A run's
// snapshots go to one thread of one saver, which keeps them all as long
// as it keeps the thread, so a slab is freed with its last snapshot, and a
// superstep's snapshot needs no allocation of its own most of the time.
type snapArena struct {
	snaps []CheckpointSnapshot
	ints  []int64
	flags []bool
	vals  []any
	taken int
}

// next returns a zero snapshot and room for nInts numbers and nFlags
// flags, each clipped to its length.
func (a *snapArena) next(nInts, nFlags int) (s *CheckpointSnapshot, ints []int64, flags []bool) {
	k := min(max(a.taken, 2), 8)
	a.taken++
	if len(a.snaps) == 0 {
		a.snaps = make([]CheckpointSnapshot, k)
	}
	s, a.snaps = &a.snaps[0], a.snaps[1:]
	if len(a.ints) < nInts {
		a.ints = make([]int64, k*nInts)
	}
	ints, a.ints = a.ints[:nInts:nInts], a.ints[nInts:]
	if len(a.flags) < nFlags {
		a.flags = make([]bool, k*nFlags)
	}
	flags, a.flags = a.flags[:nFlags:nFlags], a.flags[nFlags:]
	return s, ints, flags
}

// values returns room for n values of the snapshot next returned last,
// clipped to its length.
func (a *snapArena) values(n int) []any {
	if len(a.vals) < n {
		a.vals = make([]any, min(max(a.taken, 2), 8)*n)
	}
	vals := a.vals[:n:n]
	a.vals = a.vals[n:]
	return vals
}

// snapshot is the checkpoint of the run's channels and versions as a
// snapshot; it resets the channels' list prefixes as checkpoint does.
func (r *run) snapshot() *CheckpointSnapshot {
	g, w := r.g, r.vers
	n := len(r.chans)
	var valBuf [8]any
	vals := valBuf[:0]
	table := len(w.cur) + len(w.seen)
	s, nums, flags := r.snaps.next(table+n, len(w.has)+len(w.seenHas)+len(w.rowHas))
	s.g, s.nums, s.flags = g, nums, flags
	copy(nums, w.cur)
	copy(nums[len(w.cur):], w.seen)
	copy(flags, w.has)
	copy(flags[len(w.has):], w.seenHas)
	copy(flags[len(w.has)+len(w.seenHas):], w.rowHas)
	state := nums[table:]
	for c, ch := range r.chans {
		state[c] = noValue
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
	if len(vals) > 0 {
		s.vals = r.snaps.values(len(vals))
		copy(s.vals, vals)
	}
	s.time = g.clock.Now().UTC()
	s.updated = r.updatedChannels()
	if w.extraCur != nil {
		s.extraCur = maps.Clone(w.extraCur)
	}
	if w.extraSeen != nil {
		s.extraSeen = make(map[string]map[string]int64, len(w.extraSeen))
		for node, m := range w.extraSeen {
			s.extraSeen[node] = maps.Clone(m)
		}
	}
	return s
}
