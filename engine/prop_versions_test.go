package engine

import (
	"context"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

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
// another (cut from shared slabs, their numbers in 1, 2, 4 or 8 bytes
// each, the fewest all fit in) each read back as the checkpoint a run in
// the same state makes as maps (run.checkpoint), whatever came in
// between: versions and versions seen small, at the edges of each width
// or past 2^62, negative ones (from a stored checkpoint), versions of
// channels and nodes the graph does not have, channel values and list
// prefixes of up to 130 messages, updated channels in graphs of up to
// and of more than 64 channels, times in and past the years 64 bits of
// nanoseconds reach; and however many snapshots share a slab.
func TestPropSnapshotsKeepTheirVersions(t *testing.T) {
	rapid.Check(t, propSnapshotsKeepTheirVersions)
}

func FuzzSnapshotsKeepTheirVersions(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propSnapshotsKeepTheirVersions))
}

// snapClock is a clock that reads t.
type snapClock struct{ t *time.Time }

func (c snapClock) Now() time.Time                             { return *c.t }
func (c snapClock) Sleep(context.Context, time.Duration) error { return nil }

func propSnapshotsKeepTheirVersions(t *rapid.T) {
	var now time.Time
	fields := []Field{MessagesField("messages"), ValueField("x")}
	if rapid.Bool().Draw(t, "more than 64 channels") {
		for i := range 70 {
			fields = append(fields, ValueField(fmt.Sprintf("f%02d", i)))
		}
	}
	g, err := NewStateGraph(fields...).
		AddNode("agent", func(context.Context, State) (any, error) { return nil, nil }).
		AddNode("tools", func(context.Context, State) (any, error) { return nil, nil }).
		AddEdge(Start, "agent").AddEdge("agent", "tools").
		Compile(CompileOptions{Clock: snapClock{&now}})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	edges := func(w int64) *rapid.Generator[int64] { return rapid.Int64Range(w-2, w+2) }
	version := rapid.OneOf(rapid.Int64Range(0, 40), edges(math.MaxInt8), edges(math.MaxInt16), edges(math.MaxInt32),
		edges(math.MinInt8), edges(math.MinInt16), edges(math.MinInt32), rapid.Int64Range(-5, 5),
		rapid.Int64Range(math.MaxInt64-2, math.MaxInt64), rapid.Int64Range(math.MinInt64, math.MinInt64+2), rapid.Int64Range(0, 1<<62))
	when := rapid.OneOf(rapid.Int64Range(-1<<62, 1<<62), rapid.Int64Range(-1<<40, 1<<40))
	// two runs in the same state: one takes snapshots, the other
	// checkpoints as maps
	values := func() *Checkpoint {
		cp := &Checkpoint{ChannelValues: map[string]any{}}
		if n := rapid.SampledFrom([]int{-1, 0, 1, 2, 126, 127, 128, 130}).Draw(t, "messages"); n >= 0 {
			msgs := make([]Message, n)
			for i := range msgs {
				msgs[i] = HumanMessage(fmt.Sprint(i))
				msgs[i].ID = fmt.Sprint("m", i)
			}
			cp.ChannelValues["messages"] = msgs
		}
		if rapid.Bool().Draw(t, "x") {
			cp.ChannelValues["x"] = "x"
		}
		return cp
	}()
	runs := [2]*run{}
	for i := range runs {
		runs[i] = &run{g: g, vers: newVersions(g), chans: g.channelsFrom(values)}
		runs[i].updated = make([]bool, len(g.chanNames))
	}
	r, ref := runs[0], runs[1]
	var snaps []*CheckpointSnapshot
	var wants []*Checkpoint
	for range rapid.IntRange(1, 20).Draw(t, "snapshots") {
		for range rapid.IntRange(0, 4).Draw(t, "changes") {
			c := rapid.IntRange(0, len(g.chanNames)-1).Draw(t, "channel")
			switch rapid.IntRange(0, 5).Draw(t, "change") {
			case 0:
				row, n := rapid.IntRange(0, len(r.vers.rowHas)-1).Draw(t, "row"), version.Draw(t, "seen version")
				r.vers.markSeen(row, c, n)
				ref.vers.markSeen(row, c, n)
			case 1:
				n := version.Draw(t, "version")
				r.vers.set(c, n)
				ref.vers.set(c, n)
			case 2:
				ch, n := rapid.SampledFrom([]string{"gone", "old"}).Draw(t, "extra channel"), version.Draw(t, "extra version")
				for _, run := range runs {
					if run.vers.extraCur == nil {
						run.vers.extraCur = map[string]int64{}
					}
					run.vers.extraCur[ch] = n
				}
			case 3:
				node, n := rapid.SampledFrom([]string{"removed", "agent"}).Draw(t, "extra node"), version.Draw(t, "extra seen")
				for _, run := range runs {
					if run.vers.extraSeen == nil {
						run.vers.extraSeen = map[string]map[string]int64{}
					}
					if run.vers.extraSeen[node] == nil {
						run.vers.extraSeen[node] = map[string]int64{}
					}
					run.vers.extraSeen[node]["gone"] = n
				}
			case 4:
				known, u := rapid.Bool().Draw(t, "updated known"), rapid.Bool().Draw(t, "updated")
				for _, run := range runs {
					run.updatedKnown, run.updated[c] = known, u
				}
			case 5:
				now = time.Unix(0, when.Draw(t, "time")).Add(time.Duration(rapid.IntRange(-1, 1).Draw(t, "centuries")) * 100 * 365 * 24 * time.Hour)
				now = now.AddDate(rapid.IntRange(-300, 300).Draw(t, "years"), 0, 0)
			}
		}
		snaps = append(snaps, r.snapshot())
		want := ref.checkpoint()
		if rapid.Bool().Draw(t, "read now") {
			// reading a snapshot changes neither it nor what comes next
			if got := snaps[len(snaps)-1].Checkpoint(); !reflect.DeepEqual(got, want) {
				t.Fatalf("snapshot %d read at once:\n got %+v\nwant %+v", len(snaps)-1, got, want)
			}
		}
		wants = append(wants, deepCopyCheckpoint(want))
	}
	for i, s := range snaps {
		if got := s.Checkpoint(); !reflect.DeepEqual(got, wants[i]) {
			t.Fatalf("snapshot %d:\n got %+v\nwant %+v", i, got, wants[i])
		}
	}
}

// deepCopyCheckpoint copies cp's maps and slices: a run's next
// checkpoint may share those of the last.
func deepCopyCheckpoint(cp *Checkpoint) *Checkpoint {
	c := *cp
	c.ChannelValues = maps.Clone(cp.ChannelValues)
	c.ChannelVersions = maps.Clone(cp.ChannelVersions)
	if cp.VersionsSeen != nil {
		c.VersionsSeen = map[string]map[string]int64{}
		for k, v := range cp.VersionsSeen {
			c.VersionsSeen[k] = maps.Clone(v)
		}
	}
	c.UpdatedChannels = slices.Clone(cp.UpdatedChannels)
	c.ListPrefix = maps.Clone(cp.ListPrefix)
	return &c
}
