package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestPropMemoryRecordsKeepWhatWasPut: Memory keeps a checkpoint's
// metadata source as a code when it is one a run puts (the source itself
// otherwise), its step in 32 bits when it fits, its parent as the
// parent's record when the thread holds it (the ID otherwise), and the
// first writes of a checkpoint, of one task, in the record when they are
// at most two in slots of their own, moving them out when more come.
// Whatever checkpoints are put (new IDs, or an ID again, which replaces
// the checkpoint, metadata and parent and keeps the writes; under a
// parent held, one not held yet, or none; forks or not), with whatever
// sources and steps, and whatever writes of whichever tasks follow (none,
// one, two, three; ordinary and special channels, the same slot twice in
// one call), GetTuple and List (filtered by source) return what a plain
// model of the savers' rules holds: each task's writes in the order it
// first wrote, an ordinary slot keeping its first value and a special
// slot its last; and a put that is not a fork fails with a conflict
// exactly when another checkpoint has its parent.
func TestPropMemoryRecordsKeepWhatWasPut(t *testing.T) {
	rapid.Check(t, propMemoryRecordsKeepWhatWasPut)
}

func FuzzMemoryRecordsKeepWhatWasPut(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propMemoryRecordsKeepWhatWasPut))
}

// modelWrite is a write of the model: its slot (engine.WriteSlot).
type modelWrite struct {
	w    engine.PendingWrite
	slot int
}

// modelRecord is what the model holds of a checkpoint.
type modelRecord struct {
	meta   engine.CheckpointMetadata
	parent string
	step   int
	id     string
	tasks  []string
	writes map[string][]modelWrite
}

// put applies one call of PutWrites as the savers' rules say.
func (r *modelRecord) put(task string, writes []engine.PendingWrite) {
	if r.writes == nil {
		r.writes = map[string][]modelWrite{}
	}
	if _, ok := r.writes[task]; !ok {
		r.tasks = append(r.tasks, task)
		r.writes[task] = nil
	}
	for i, w := range writes {
		mw := modelWrite{engine.PendingWrite{TaskID: task, Channel: w.Channel, Value: w.Value}, engine.WriteSlot(w.Channel, i)}
		at := -1
		for j, old := range r.writes[task] {
			if old.slot == mw.slot {
				at = j
			}
		}
		switch {
		case at < 0:
			r.writes[task] = append(r.writes[task], mw)
		case mw.slot < 0:
			r.writes[task][at] = mw
		}
	}
}

// pending is the tuple's PendingWrites.
func (r *modelRecord) pending() []engine.PendingWrite {
	var out []engine.PendingWrite
	for _, task := range r.tasks {
		for _, w := range r.writes[task] {
			out = append(out, w.w)
		}
	}
	return out
}

func propMemoryRecordsKeepWhatWasPut(t *rapid.T) {
	ctx := context.Background()
	m := NewMemory()
	model := map[string]*modelRecord{}
	var ids []string
	source := rapid.SampledFrom([]string{"input", "loop", "update", "fork", "", "Loop", "other"})
	channel := rapid.SampledFrom([]string{"messages", "branch:to:tools", "__error__", "__interrupt__", "__resume__", "__scheduled__"})
	task := rapid.SampledFrom([]string{"a", "b", "c", ""})
	value := 0
	// IDs sort before those Memory gives (a digit or a letter a-f
	// first): a thread may hold both
	ghosts := rapid.SampledFrom([]string{"0-ghost", "0-spirit"})
	for range rapid.IntRange(1, 30).Draw(t, "ops") {
		switch op := rapid.IntRange(0, 3).Draw(t, "op"); {
		case op == 0 || len(ids) == 0:
			// a new checkpoint, or one of an ID again
			parent := ""
			switch rapid.IntRange(0, 3).Draw(t, "parent kind") {
			case 1, 2:
				if len(ids) > 0 {
					parent = ids[rapid.IntRange(0, len(ids)-1).Draw(t, "parent")]
				}
			case 3:
				// a checkpoint the thread does not hold (yet)
				parent = ghosts.Draw(t, "ghost parent")
			}
			step := rapid.OneOf(rapid.IntRange(-1, 5), rapid.IntRange(math.MaxInt32-1, math.MaxInt32+1), rapid.IntRange(math.MinInt32-1, math.MinInt32+1)).Draw(t, "step")
			cp := &engine.Checkpoint{V: 4, ChannelValues: map[string]any{"step": step}}
			switch rapid.IntRange(0, 5).Draw(t, "id") {
			case 0:
				if len(ids) > 0 {
					cp.ID = ids[rapid.IntRange(0, len(ids)-1).Draw(t, "id again")]
				}
			case 1:
				cp.ID = ghosts.Draw(t, "ghost id")
			}
			meta := engine.CheckpointMetadata{Source: source.Draw(t, "source"), Step: step}
			if rapid.Bool().Draw(t, "parents") {
				meta.Parents = map[string]string{"outer": fmt.Sprint("p", step)}
			}
			fork := rapid.Bool().Draw(t, "fork")
			conflict := false
			for _, rec := range model {
				conflict = conflict || (rec.parent == parent && rec.id != cp.ID)
			}
			cfg, err := m.Put(ctx, engine.CheckpointConfig{ThreadID: "t", CheckpointID: parent, Fork: fork}, cp, meta)
			if !fork && conflict != errors.Is(err, engine.ErrCheckpointConflict) {
				t.Fatalf("put under %q (id %q): error %v, want a conflict: %v", parent, cp.ID, err, conflict)
			}
			if !fork && conflict {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			rec := model[cfg.CheckpointID]
			if rec == nil {
				rec = &modelRecord{id: cfg.CheckpointID}
				model[cfg.CheckpointID] = rec
				ids = append(ids, cfg.CheckpointID)
			}
			rec.meta, rec.parent, rec.step = engine.CheckpointMetadata{Source: meta.Source, Step: meta.Step, Parents: maps.Clone(meta.Parents)}, parent, step
		default:
			id := ids[rapid.IntRange(0, len(ids)-1).Draw(t, "writes to")]
			tk := task.Draw(t, "task")
			var writes []engine.PendingWrite
			for range rapid.IntRange(0, 3).Draw(t, "writes") {
				value++
				writes = append(writes, engine.PendingWrite{TaskID: "ignored", Channel: channel.Draw(t, "channel"), Value: value})
			}
			if err := m.PutWrites(ctx, engine.CheckpointConfig{ThreadID: "t", CheckpointID: id}, writes, tk); err != nil {
				t.Fatal(err)
			}
			model[id].put(tk, writes)
			// the caller reuses its array (engine.Checkpointer)
			for i := range writes {
				writes[i] = engine.PendingWrite{Channel: "reused", Value: -1}
			}
		}
		for _, id := range ids {
			want := model[id]
			tup, err := m.GetTuple(ctx, engine.CheckpointConfig{ThreadID: "t", CheckpointID: id})
			if err != nil || tup == nil {
				t.Fatalf("GetTuple(%s) = %v, %v", id, tup, err)
			}
			if d := cmp.Diff(want.meta, tup.Metadata); d != "" {
				t.Fatalf("checkpoint %s: metadata mismatch (-want +got):\n%s", id, d)
			}
			if d := cmp.Diff(want.pending(), tup.PendingWrites); d != "" {
				t.Fatalf("checkpoint %s: pending writes mismatch (-want +got):\n%s", id, d)
			}
			parent := ""
			if tup.ParentConfig != nil {
				parent = tup.ParentConfig.CheckpointID
			}
			if parent != want.parent || tup.Checkpoint.ChannelValues["step"] != want.step {
				t.Fatalf("checkpoint %s: parent %q, step %v, want %q, %d", id, parent, tup.Checkpoint.ChannelValues["step"], want.parent, want.step)
			}
			// a caller changing what it read changes nothing stored
			for k := range tup.Metadata.Parents {
				tup.Metadata.Parents[k] = "scribbled"
			}
			for i := range tup.PendingWrites {
				tup.PendingWrites[i].Value = "scribbled"
			}
		}
		src := source.Draw(t, "list source")
		list, err := m.List(ctx, engine.CheckpointConfig{ThreadID: "t"}, engine.ListOptions{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, rec := range model {
			if src == "" || rec.meta.Source == src {
				n++
			}
		}
		if len(list) != n {
			t.Fatalf("List(source %q) returned %d checkpoints, want %d", src, len(list), n)
		}
		for _, tup := range list {
			if src != "" && tup.Metadata.Source != src {
				t.Fatalf("List(source %q) returned %s of source %q", src, tup.Config.CheckpointID, tup.Metadata.Source)
			}
		}
	}
}

// TestMemoryWritesPastTheChannelTable: a thread numbers the channels of
// its checkpoints' first writes, up to 256 of them; the writes to
// channels past those are kept as well, and every write reads back with
// its channel.
func TestMemoryWritesPastTheChannelTable(t *testing.T) {
	ctx := t.Context()
	m := NewMemory()
	const n = 300
	want := func(i int) []engine.PendingWrite {
		writes := []engine.PendingWrite{{Channel: fmt.Sprintf("a%03d", i), Value: i}}
		if i%2 == 0 {
			writes = append(writes, engine.PendingWrite{Channel: fmt.Sprintf("b%03d", i), Value: -i})
		}
		return writes
	}
	ids := make([]string, n)
	for i := range n {
		cfg, err := m.Put(ctx, engine.CheckpointConfig{ThreadID: "t", CheckpointID: ids[max(i-1, 0)]}, &engine.Checkpoint{V: 4}, engine.CheckpointMetadata{Source: "loop", Step: i})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = cfg.CheckpointID
		// two channels on even checkpoints, one on odd ones: the table
		// fills with the first write of checkpoint 170, the second does
		// not fit, and the one write of checkpoint 171 would be the
		// 257th channel
		writes := want(i)
		if err := m.PutWrites(ctx, cfg, writes, fmt.Sprint("task", i)); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range ids {
		tup, err := m.GetTuple(ctx, engine.CheckpointConfig{ThreadID: "t", CheckpointID: id})
		if err != nil {
			t.Fatal(err)
		}
		want := want(i)
		for j := range want {
			want[j].TaskID = fmt.Sprint("task", i)
		}
		if d := cmp.Diff(want, tup.PendingWrites); d != "" {
			t.Fatalf("checkpoint %d: pending writes mismatch (-want +got):\n%s", i, d)
		}
	}
}
