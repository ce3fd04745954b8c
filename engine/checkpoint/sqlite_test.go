package checkpoint_test

import (
	"path/filepath"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/checkpoint/checkpointtest"
)

// openSQLite opens a fresh database in the test's temporary directory
// and closes it when the test ends.
func openSQLite(t testing.TB, opts checkpoint.SQLiteOptions) *checkpoint.SQLite {
	t.Helper()
	s, err := checkpoint.OpenSQLite(t.Context(), filepath.Join(t.TempDir(), "agenteval.db"), opts)
	if err != nil {
		t.Fatalf("OpenSQLite: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// TestSQLiteConformance runs the shared checkpointer and store suites
// against SQLite; a small MaxListDepth makes the chained message lists of
// the suite reach the depth where a list is written whole.
func TestSQLiteConformance(t *testing.T) {
	t.Parallel()
	checkpointtest.Run(t, func(t *testing.T) engine.Checkpointer {
		return openSQLite(t, checkpoint.SQLiteOptions{MaxListDepth: 2})
	})
	checkpointtest.RunStore(t, func(t *testing.T, clock engine.Clock) engine.Store {
		return openSQLite(t, checkpoint.SQLiteOptions{Clock: clock}).Store()
	})
}

// TestSQLiteIDsMatchMemory: the same puts give the same IDs as Memory's,
// so transcripts do not depend on the checkpointer.
func TestSQLiteIDsMatchMemory(t *testing.T) {
	t.Parallel()
	s := openSQLite(t, checkpoint.SQLiteOptions{})
	m := checkpoint.NewMemory()
	for _, thread := range []string{"t1", "t2"} {
		for _, ns := range []string{"", "sub"} {
			parentS, parentM := "", ""
			for i := range 5 {
				c := engine.CheckpointConfig{ThreadID: thread, CheckpointNS: ns}
				c.CheckpointID = parentS
				gotS, err := s.Put(t.Context(), c, step(i), loop(i))
				if err != nil {
					t.Fatal(err)
				}
				c.CheckpointID = parentM
				gotM, err := m.Put(t.Context(), c, step(i), loop(i))
				if err != nil {
					t.Fatal(err)
				}
				if gotS != gotM {
					t.Errorf("put %d in thread %s ns %q: SQLite config %+v, Memory %+v", i, thread, ns, gotS, gotM)
				}
				parentS, parentM = gotS.CheckpointID, gotM.CheckpointID
			}
		}
	}
}

func checkpointtestMessages(n int) []engine.Message { return checkpointtest.SampleMessages(n) }
