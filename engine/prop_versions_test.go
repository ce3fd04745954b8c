package engine

import (
	"context"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// versionsGraph is a graph with a few channels and nodes for the versions
// table's properties.
func versionsGraph(t *rapid.T) *Graph {
	g, err := NewStateGraph(MessagesField("messages"), ValueField("x")).
		AddNode("agent", func(context.Context, State) (any, error) { return nil, nil }).
		AddNode("tools", func(context.Context, State) (any, error) { return nil, nil }).
		AddEdge(Start, "agent").AddEdge("agent", "tools").
		Compile(CompileOptions{})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return g
}

// TestPropVersionsRoundTrip: a stored checkpoint's channel versions and
// versions seen, read into a run's slices (versions.load) and made into a
// checkpoint's maps again, are the maps stored, whatever they hold:
// channels and nodes the graph has, ones it does not, the
// "__interrupt__" entry, nodes with an empty map (never a nil one: no
// engine stores one, it makes a node's map when it first marks it). A run
// that takes a checkpoint from one it loaded stores what it does not know
// as it was.
func TestPropVersionsRoundTrip(t *testing.T) {
	rapid.Check(t, propVersionsRoundTrip)
}

func FuzzVersionsRoundTrip(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propVersionsRoundTrip))
}

func propVersionsRoundTrip(t *rapid.T) {
	g := versionsGraph(t)
	channel := rapid.SampledFrom([]string{"messages", "x", Start, "branch:to:agent", "branch:to:tools", chTasks, "gone", "old:channel"})
	node := rapid.SampledFrom([]string{Start, "agent", "tools", chInterrupt, "removed", inputName})
	cur := map[string]int64{}
	for range rapid.IntRange(0, 8).Draw(t, "versions") {
		cur[channel.Draw(t, "channel")] = rapid.Int64Range(0, 40).Draw(t, "version")
	}
	seen := map[string]map[string]int64{}
	for range rapid.IntRange(0, 6).Draw(t, "nodes") {
		m := map[string]int64{}
		for range rapid.IntRange(0, 4).Draw(t, "entries") {
			m[channel.Draw(t, "seen channel")] = rapid.Int64Range(0, 40).Draw(t, "seen version")
		}
		seen[node.Draw(t, "node")] = m
	}
	cp := &Checkpoint{V: 4, ChannelVersions: cur, VersionsSeen: seen}
	v := newVersions(g)
	v.load(g, cp)
	if got := v.channelVersions(g); !reflect.DeepEqual(got, cur) {
		t.Fatalf("channel versions:\n got %v\nwant %v", got, cur)
	}
	if got := v.versionsSeen(g, nil); !reflect.DeepEqual(got, seen) {
		t.Fatalf("versions seen:\n got %v\nwant %v", got, seen)
	}
	// rows shared with the previous checkpoint are its own maps
	if got := v.versionsSeen(g, seen); !reflect.DeepEqual(got, seen) {
		t.Fatalf("versions seen sharing rows:\n got %v\nwant %v", got, seen)
	}
	var highest int64
	for _, n := range cur {
		highest = max(highest, n)
	}
	if v.next() != highest+1 {
		t.Fatalf("next version %d, want %d (one above %v)", v.next(), highest+1, cur)
	}
}

// TestPropFastIDsDistinct: the IDs a run without a saver makes up differ
// for different numbers (kind, step, task position, counter), within the
// packed range and past it (hashed), and are the same for the same ones.
func TestPropFastIDsDistinct(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := &run{idKey: fastIDKey(rapid.StringMatching(`[0-9a-f]{32}`).Draw(t, "seed"))}
		type nums struct{ kind, a, b, c int }
		seen := map[string]nums{}
		for range rapid.IntRange(1, 200).Draw(t, "ids") {
			n := nums{
				kind: rapid.IntRange(idTask, idMessage).Draw(t, "kind"),
				a:    rapid.OneOf(rapid.IntRange(-1, 30), rapid.IntRange(1<<22-3, 1<<22+3)).Draw(t, "step"),
				b:    rapid.OneOf(rapid.IntRange(0, 30), rapid.IntRange(1<<20-2, 1<<20+2)).Draw(t, "ord"),
				c:    rapid.OneOf(rapid.IntRange(0, 30), rapid.IntRange(1<<20-2, 1<<20+2)).Draw(t, "n"),
			}
			id := r.fastID(n.kind, n.a, n.b, n.c)
			if prev, ok := seen[id]; ok && prev != n {
				t.Fatalf("fastID%v = fastID%v = %s", prev, n, id)
			}
			seen[id] = n
			var arena idArena
			if again := r.fastIDIn(&arena, n.kind, n.a, n.b, n.c); again != id {
				t.Fatalf("fastID%v = %s, again in an arena %s", n, id, again)
			}
			if len(id) != 36 || id[14] != '8' {
				t.Fatalf("fastID%v = %s: not a UUID of version 8", n, id)
			}
		}
	})
}

// TestPropSnapshotsKeepTheirVersions: the snapshots a run takes one after
// another (cut from shared slabs, their numbers in 32 bits each when all
// fit and in 64 otherwise) each give back the versions and versions seen
// the run had when it took them, whatever versions, small or past 2^31,
// came in between, and however many snapshots share a slab.
func TestPropSnapshotsKeepTheirVersions(t *testing.T) {
	rapid.Check(t, propSnapshotsKeepTheirVersions)
}

func FuzzSnapshotsKeepTheirVersions(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propSnapshotsKeepTheirVersions))
}

func propSnapshotsKeepTheirVersions(t *rapid.T) {
	g := versionsGraph(t)
	version := rapid.OneOf(rapid.Int64Range(0, 40), rapid.Int64Range(1<<31-2, 1<<31+2), rapid.Int64Range(0, 1<<62))
	r := &run{g: g, vers: newVersions(g), chans: g.channelsFrom(&Checkpoint{})}
	r.updated = make([]bool, len(g.chanNames))
	type want struct {
		cur  map[string]int64
		seen map[string]map[string]int64
	}
	var snaps []*CheckpointSnapshot
	var wants []want
	for range rapid.IntRange(1, 20).Draw(t, "snapshots") {
		for range rapid.IntRange(0, 4).Draw(t, "changes") {
			c := rapid.IntRange(0, len(g.chanNames)-1).Draw(t, "channel")
			if rapid.Bool().Draw(t, "seen") {
				r.vers.markSeen(rapid.IntRange(0, len(r.vers.rowHas)-1).Draw(t, "row"), c, version.Draw(t, "seen version"))
			} else {
				r.vers.set(c, version.Draw(t, "version"))
			}
		}
		snaps = append(snaps, r.snapshot())
		wants = append(wants, want{r.vers.channelVersions(g), r.vers.versionsSeen(g, nil)})
	}
	for i, s := range snaps {
		cp := s.Checkpoint()
		if !reflect.DeepEqual(cp.ChannelVersions, wants[i].cur) {
			t.Fatalf("snapshot %d: channel versions\n got %v\nwant %v", i, cp.ChannelVersions, wants[i].cur)
		}
		if !reflect.DeepEqual(cp.VersionsSeen, wants[i].seen) {
			t.Fatalf("snapshot %d: versions seen\n got %v\nwant %v", i, cp.VersionsSeen, wants[i].seen)
		}
	}
}
