package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/checkpoint/checkpointtest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestPropSQLiteCheckpointsMatchMemory: a generated agent run (see
// prop_react_test.go) leaves the same checkpoints in SQLite as in Memory:
// every tuple of the thread — IDs, parents, metadata, channel values,
// versions, ListPrefix and pending writes (by task: tasks are stored in
// the order they finished) — reads back equal under checkpointtest.Equal,
// with the engine's real values (message lists, Sends with
// ToolCallWithContext, interrupts, errors).
func TestPropSQLiteCheckpointsMatchMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("what a run stores, not concurrency: .ci/run runs it without -race (see race_test.go)")
	}
	t.Parallel()
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) { propSQLiteCheckpointsMatchMemory(rt, dir) })
}

// FuzzSQLiteCheckpointsMatchMemory feeds the same property from the
// fuzzer.
func FuzzSQLiteCheckpointsMatchMemory(f *testing.F) {
	addPropSeeds(f)
	dir := f.TempDir()
	f.Fuzz(rapid.MakeFuzz(func(rt *rapid.T) { propSQLiteCheckpointsMatchMemory(rt, dir) }))
}

func propSQLiteCheckpointsMatchMemory(t *rapid.T, dir string) {
	ctx := context.Background()
	sc := drawScenario(t)
	f, err := openTemp(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mem := runScenarioOn(t, sc, 0, checkpoint.NewMemory())
	lite := runScenarioOn(t, sc, 0, f)
	want, err := mem.saver.List(ctx, engine.CheckpointConfig{ThreadID: mem.thread}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := lite.saver.List(ctx, engine.CheckpointConfig{ThreadID: lite.thread}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// tasks' writes are stored in the order the tasks finished, which
	// the scheduler decides: compare them by task
	for _, list := range [][]*engine.CheckpointTuple{want, got} {
		for _, tup := range list {
			slices.SortStableFunc(tup.PendingWrites, func(a, b engine.PendingWrite) int { return strings.Compare(a.TaskID, b.TaskID) })
		}
	}
	if d := cmp.Diff(want, got, checkpointtest.Equal()); d != "" {
		t.Fatalf("SQLite's checkpoints differ from Memory's (-memory +sqlite):\n%s", d)
	}
}

// openTemp opens a fresh SQLite file in dir.
func openTemp(dir string) (*checkpoint.SQLite, error) {
	f, err := newTempName(dir)
	if err != nil {
		return nil, err
	}
	return checkpoint.OpenSQLite(context.Background(), f, checkpoint.SQLiteOptions{})
}

// newTempName returns a file name in dir that does not exist yet.
func newTempName(dir string) (string, error) {
	d, err := os.MkdirTemp(dir, "prop")
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "agenteval.db"), nil
}
