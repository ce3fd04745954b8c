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
// superstep for a saver that takes them (SnapshotSaver) in four
// allocations, three of them without pointers for the garbage collector
// to follow, where the checkpoint's public shape takes five maps and their
// entries; Checkpoint builds that shape when someone reads the
// checkpoint. A snapshot never changes once made, so a saver may keep it
// as it is and share it between readers.
type CheckpointSnapshot struct {
	g  *Graph
	ts time.Time
	// vers is a copy of the run's versions when the snapshot was taken
	vers versions
	// vals[c] is channel c's value; state[c] says whether there is one
	// (noValue) and the channel's list prefix (noPrefix: none)
	vals    []any
	state   []int64
	updated []string
}

const (
	noPrefix = -1
	noValue  = -2
)

// Checkpoint returns the snapshot in the public shape, without an ID. Its
// maps and slices are new on every call and the caller's to change;
// channel values are shared.
func (s *CheckpointSnapshot) Checkpoint() *Checkpoint {
	g := s.g
	values := make(map[string]any, len(s.vals))
	var prefix map[string]int
	for c, st := range s.state {
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
	return &Checkpoint{
		V:               4,
		TS:              s.ts.Format(time.RFC3339Nano),
		ChannelValues:   values,
		ChannelVersions: s.vers.channelVersions(g),
		VersionsSeen:    s.vers.versionsSeen(g, nil),
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
	g := r.g
	n := len(r.chans)
	s := &CheckpointSnapshot{g: g, vals: make([]any, n)}
	s.state = s.vers.copyFrom(r.vers, n)
	for c, ch := range r.chans {
		s.state[c] = noValue
		if _, has := r.vers.get(c); !has {
			continue
		}
		v, ok := ch.checkpoint()
		if !ok {
			continue
		}
		s.vals[c], s.state[c] = v, noPrefix
		switch ch := ch.(type) {
		case *binop:
			if ch.prefix >= 0 {
				s.state[c] = int64(ch.prefix)
			}
			ch.resetPrefix()
		case *messagesChan:
			s.state[c] = int64(ch.prefix)
			ch.resetPrefix()
			r.rememberList(c, ch)
		}
	}
	s.ts = g.clock.Now().UTC()
	s.updated = r.updatedChannels()
	return s
}

// copyFrom makes v a copy of w that shares nothing that w changes, and
// returns extra more numbers from the same allocation.
func (v *versions) copyFrom(w *versions, extra int) []int64 {
	ints := make([]int64, len(w.cur)+len(w.seen)+extra)
	flags := make([]bool, len(w.has)+len(w.seenHas)+len(w.rowHas))
	*v = versions{nCh: w.nCh, max: w.max}
	v.cur = ints[:copy(ints, w.cur):len(w.cur)]
	v.seen = ints[len(w.cur) : len(w.cur)+len(w.seen) : len(w.cur)+len(w.seen)]
	copy(v.seen, w.seen)
	v.has = flags[:copy(flags, w.has):len(w.has)]
	rest := flags[len(w.has):]
	v.seenHas = rest[:copy(rest, w.seenHas):len(w.seenHas)]
	v.rowHas = rest[len(w.seenHas):]
	copy(v.rowHas, w.rowHas)
	if w.extraCur != nil {
		v.extraCur = maps.Clone(w.extraCur)
	}
	if w.extraSeen != nil {
		v.extraSeen = make(map[string]map[string]int64, len(w.extraSeen))
		for node, m := range w.extraSeen {
			v.extraSeen[node] = maps.Clone(m)
		}
	}
	return ints[len(w.cur)+len(w.seen):]
}
