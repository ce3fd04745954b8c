package checkpoint

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"pgregory.net/rapid"
)

// TestPropMemorySharingReturnsWhatCopiesWould: Memory keeps the maps and
// slices of the checkpoints it is handed (the caller changes them no more,
// engine.Checkpointer), sharing them with the caller and, where the caller
// passed a parent's again, with the parent. Whatever checkpoints are put,
// under whichever parents, and whatever callers then do to the tuples they
// got, GetTuple returns exactly what a store that deep-copied every
// checkpoint on the way in returns, and Put leaves the checkpoint it was
// given as it was.
func TestPropMemorySharingReturnsWhatCopiesWould(t *testing.T) {
	rapid.Check(t, propMemorySharingReturnsWhatCopiesWould)
}

func FuzzMemorySharingReturnsWhatCopiesWould(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propMemorySharingReturnsWhatCopiesWould))
}

func propMemorySharingReturnsWhatCopiesWould(t *rapid.T) {
	ctx := context.Background()
	m := NewMemory()
	want := map[string]*engine.Checkpoint{} // deep copies, by ID
	var ids []string
	nodes := []string{"__start__", "agent", "tools", "__input__"}
	channels := []string{"messages", "branch:to:agent", "branch:to:tools"}
	intMap := func(keys []string, label string) map[string]int64 {
		switch rapid.IntRange(0, 5).Draw(t, label+" kind") {
		case 0:
			return nil
		case 1:
			return map[string]int64{}
		}
		out := map[string]int64{}
		for _, k := range keys {
			if rapid.Bool().Draw(t, label+" has "+k) {
				out[k] = int64(rapid.IntRange(1, 3).Draw(t, label+" "+k))
			}
		}
		return out
	}
	for i := range rapid.IntRange(1, 12).Draw(t, "puts") {
		parent := ""
		var base *engine.Checkpoint
		if len(ids) > 0 && rapid.IntRange(0, 4).Draw(t, "root") > 0 {
			parent = ids[rapid.IntRange(0, len(ids)-1).Draw(t, "parent")]
			base = deepCopy(want[parent])
		} else {
			base = &engine.Checkpoint{V: 4, ChannelValues: map[string]any{}, ChannelVersions: map[string]int64{}, VersionsSeen: map[string]map[string]int64{}}
		}
		// a child: each part kept from the parent or changed; the maps
		// passed again are the parent's own (a run passes the unchanged
		// maps of its previous checkpoint again)
		cp := deepCopy(base)
		if parent != "" && rapid.Bool().Draw(t, "pass the parent's maps again") {
			if tup, err := m.GetTuple(ctx, engine.CheckpointConfig{ThreadID: "t", CheckpointID: parent}); err == nil && tup != nil {
				cp = tup.Checkpoint
				cp.ChannelValues = maps.Clone(cp.ChannelValues)
			}
		}
		cp.ID = ""
		cp.ChannelValues["messages"] = fmt.Sprint("v", i)
		if rapid.Bool().Draw(t, "change versions") {
			cp.ChannelVersions = intMap(channels, "versions")
		}
		for _, n := range nodes {
			if rapid.IntRange(0, 2).Draw(t, "change seen") == 0 {
				if rapid.Bool().Draw(t, "drop seen") {
					delete(cp.VersionsSeen, n)
				} else if cp.VersionsSeen != nil {
					cp.VersionsSeen[n] = intMap(channels, "seen")
				}
			}
		}
		switch rapid.IntRange(0, 3).Draw(t, "updated") {
		case 0:
			cp.UpdatedChannels = nil
		case 1:
			cp.UpdatedChannels = []string{}
		case 2:
			cp.UpdatedChannels = []string{channels[rapid.IntRange(0, 2).Draw(t, "channel")]}
		}
		if rapid.Bool().Draw(t, "change prefix") {
			cp.ListPrefix = intMapInt(intMap([]string{"messages"}, "prefix"))
		}
		cfg, err := m.Put(ctx, engine.CheckpointConfig{ThreadID: "t", CheckpointID: parent, Fork: true}, cp, engine.CheckpointMetadata{Source: "loop", Step: i})
		if err != nil {
			t.Fatal(err)
		}
		if cp.ID != "" {
			t.Fatalf("Put wrote ID %q into the checkpoint it was given", cp.ID)
		}
		stored := deepCopy(cp)
		stored.ID = cfg.CheckpointID
		want[cfg.CheckpointID] = stored
		ids = append(ids, cfg.CheckpointID)
		// every stored checkpoint reads back as its deep copy, and a
		// caller changing what it read changes nothing stored
		for _, id := range ids {
			tup, err := m.GetTuple(ctx, engine.CheckpointConfig{ThreadID: "t", CheckpointID: id})
			if err != nil || tup == nil {
				t.Fatalf("GetTuple(%s) = %v, %v", id, tup, err)
			}
			if !reflect.DeepEqual(tup.Checkpoint, want[id]) {
				t.Fatalf("checkpoint %s:\n got %+v\nwant %+v", id, tup.Checkpoint, want[id])
			}
			scribble(tup.Checkpoint)
		}
	}
}

// deepCopy copies cp's maps and slices, independently of the code under
// test.
func deepCopy(cp *engine.Checkpoint) *engine.Checkpoint {
	c := *cp
	c.ChannelValues = maps.Clone(cp.ChannelValues)
	c.ChannelVersions = maps.Clone(cp.ChannelVersions)
	if cp.VersionsSeen != nil {
		c.VersionsSeen = map[string]map[string]int64{}
		for k, v := range cp.VersionsSeen {
			c.VersionsSeen[k] = maps.Clone(v)
		}
	}
	if cp.UpdatedChannels != nil {
		c.UpdatedChannels = append(make([]string, 0, len(cp.UpdatedChannels)), cp.UpdatedChannels...)
	}
	c.ListPrefix = maps.Clone(cp.ListPrefix)
	return &c
}

func intMapInt(m map[string]int64) map[string]int {
	if m == nil {
		return nil
	}
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = int(v)
	}
	return out
}

// scribble changes every map and slice of cp in place.
func scribble(cp *engine.Checkpoint) {
	for k := range maps.Keys(cp.ChannelVersions) {
		cp.ChannelVersions[k] = -1
	}
	for _, seen := range cp.VersionsSeen {
		for k := range seen {
			seen[k] = -1
		}
		if seen != nil {
			seen["scribbled"] = -1
		}
	}
	for i := range cp.UpdatedChannels {
		cp.UpdatedChannels[i] = "scribbled"
	}
	for k := range cp.ListPrefix {
		cp.ListPrefix[k] = -1
	}
}

// TestPropCheckpointIDFormattedAsBefore: the thread's cached ID tail and
// the hex digits of the put count give the ID fmt gave, for any thread,
// namespace and count.
func TestPropCheckpointIDFormattedAsBefore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := threadKey{rapid.String().Draw(t, "thread"), rapid.String().Draw(t, "ns")}
		th := &thread{}
		for range rapid.IntRange(1, 4).Draw(t, "puts") {
			n := rapid.Uint64Range(0, maxPuts).Draw(t, "n")
			if got, want := th.checkpointID(key, n), checkpointID(key, n); got != want {
				t.Fatalf("checkpointID(%q, %d) = %s, want %s", key, n, got, want)
			}
		}
	})
}

// TestPropNextIDIsCheckpointID: IDs cut from the thread's block of IDs
// are the ones checkpointID formats, for puts that follow one another,
// that skip ahead or go back (a put with an ID of its own takes a number
// too), up to the last number IDs can count.
func TestPropNextIDIsCheckpointID(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := threadKey{rapid.String().Draw(t, "thread"), rapid.String().Draw(t, "ns")}
		th := &thread{}
		n := rapid.Uint64Range(1, maxPuts).Draw(t, "first")
		for range rapid.IntRange(1, 40).Draw(t, "puts") {
			if got, want := th.nextID(key, n), checkpointID(key, n); got != want {
				t.Fatalf("nextID(%q, %d) = %s, want %s", key, n, got, want)
			}
			switch rapid.IntRange(0, 5).Draw(t, "next") {
			case 0:
				n = rapid.Uint64Range(1, maxPuts).Draw(t, "jump")
			case 1:
				n = min(n+rapid.Uint64Range(0, 20).Draw(t, "skip"), maxPuts)
			default:
				n = min(n+1, maxPuts)
			}
		}
	})
}
