package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/checkpoint/checkpointtest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// putOnly hides a saver's PutSnapshot: a run gives it every checkpoint
// as maps (Checkpointer.Put), as it gives SQLite and Postgres.
type putOnly struct{ engine.Checkpointer }

// TestPropSnapshotsStoreWhatMapsStore: a run whose saver takes snapshots
// (engine.SnapshotSaver: Memory) stores the same thread as a run giving
// the same saver every checkpoint as maps. Whatever create_react_agent
// scenario runs (interrupts before and after nodes, resumes, failing and
// panicking tools, parallel calls as Sends or one tools task), and then a
// second run forked from one of its checkpoints, List returns the same
// tuples with both: IDs, parents, metadata, channel values and versions,
// versions seen, updated channels, list prefixes, timestamps and pending
// writes (of each task: tasks of a superstep store theirs as they finish).
func TestPropSnapshotsStoreWhatMapsStore(t *testing.T) {
	if raceEnabled {
		t.Skip("what a run stores, not concurrency: .ci/run runs it without -race (see race_test.go)")
	}
	t.Parallel()
	rapid.Check(t, propSnapshotsStoreWhatMapsStore)
}

// FuzzSnapshotsStoreWhatMapsStore feeds the same property from the fuzzer.
func FuzzSnapshotsStoreWhatMapsStore(f *testing.F) {
	addPropSeeds(f)
	f.Fuzz(rapid.MakeFuzz(propSnapshotsStoreWhatMapsStore))
}

func propSnapshotsStoreWhatMapsStore(t *rapid.T) {
	ctx := context.Background()
	sc := drawScenario(t)
	snaps, maps := checkpoint.NewMemory(), checkpoint.NewMemory()
	a := runScenarioOn(t, sc, 0, snaps)
	b := runScenarioOn(t, sc, 0, putOnly{maps})
	list := func(s engine.Checkpointer) []*engine.CheckpointTuple {
		tuples, err := s.List(ctx, engine.CheckpointConfig{ThreadID: "t"}, engine.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tp := range tuples {
			// tasks of one superstep finish, and so store their writes,
			// in any order: each task's own writes keep theirs
			slices.SortStableFunc(tp.PendingWrites, func(a, b engine.PendingWrite) int { return strings.Compare(a.TaskID, b.TaskID) })
		}
		return tuples
	}
	compare := func(when string) {
		if d := cmp.Diff(list(maps), list(snaps), checkpointtest.Equal()); d != "" {
			t.Fatalf("%s: the thread stored from snapshots differs from the one stored from maps (-maps +snapshots):\n%s", when, d)
		}
	}
	compare("after the run")
	if fmt.Sprint(a.err) != fmt.Sprint(b.err) {
		t.Fatalf("the runs ended differently: %v with snapshots, %v with maps", a.err, b.err)
	}
	hist := list(snaps)
	from := hist[rapid.IntRange(0, len(hist)-1).Draw(t, "fork_from")].Config.CheckpointID
	for _, s := range []engine.Checkpointer{snaps, putOnly{maps}} {
		newPropRun(t, sc, sc.responses, s, 0).invoke(t, nil, from)
	}
	compare("after a run forked from " + from)
}

// TestSnapshotsStoreWhatMapsStoreOnHistoryCases runs the graphs of
// TestCheckpointHistoryGolden (Sends, join edges, routers, ephemeral and
// reducer channels, interrupts and resumes, UpdateState and forks, a
// subgraph) on Memory once taking snapshots and once taking maps: the
// stored histories print the same.
func TestSnapshotsStoreWhatMapsStoreOnHistoryCases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range historyCases() {
		dump := func(s engine.Checkpointer, list *checkpoint.Memory) string {
			var out strings.Builder
			nss, err := c.run(ctx, s)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			for _, ns := range append([]string{""}, nss...) {
				if err := dumpHistory(ctx, &out, list, "t", ns); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
			}
			return out.String()
		}
		snaps, maps := checkpoint.NewMemory(), checkpoint.NewMemory()
		want, got := dump(putOnly{maps}, maps), dump(snaps, snaps)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: history stored from snapshots mismatch (-maps +snapshots):\n%s", c.name, d)
		}
	}
}
