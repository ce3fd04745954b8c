//go:build unix

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
)

// crashChildEnv makes the test binary a crashing child: "seed k path"
// runs scenario seed on the SQLite file at path and kills the process with
// SIGKILL right after the k-th checkpoint is stored.
const crashChildEnv = "AGENTEVAL_CRASH_CHILD"

// killAfter kills the process right after its k-th Put committed: no
// deferred function, no Close, no flush runs.
type killAfter struct {
	engine.Checkpointer
	mu   sync.Mutex
	k    int
	puts int
}

func (c *killAfter) Put(ctx context.Context, cfg engine.CheckpointConfig, cp *engine.Checkpoint, meta engine.CheckpointMetadata) (engine.CheckpointConfig, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out, err := c.Checkpointer.Put(ctx, cfg, cp, meta)
	c.puts++
	if err == nil && c.puts == c.k {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
	return out, err
}

// TestCrashResumeSQLiteKill: for seeded scenarios, a child process
// (this test binary again) runs the scenario on a SQLite file and is
// killed with SIGKILL right after each superstep's checkpoint in turn;
// the parent resumes the thread from the file with nil input and the
// final transcript must be byte-identical to an uninterrupted run's.
// Seeds are taken until 100 runs are killed (about 13 scenarios).
func TestCrashResumeSQLiteKill(t *testing.T) {
	if spec := os.Getenv(crashChildEnv); spec != "" {
		crashChild(t, spec)
		return
	}
	if raceEnabled {
		t.Skip("what a run stores, not concurrency: .ci/run runs it without -race (see race_test.go)")
	}
	if testing.Short() {
		t.Skip("starts about 100 processes")
	}
	t.Parallel()
	const runs = 100
	type job struct {
		sc   crashScenario
		k    int
		want string
	}
	var jobs []job
	for seed := uint64(0); len(jobs) < runs; seed++ {
		sc := newCrashScenario(seed)
		want, puts := sc.uninterrupted(t)
		for k := 1; k <= puts; k++ {
			jobs = append(jobs, job{sc, k, want})
		}
	}
	dir := t.TempDir()
	work := make(chan job)
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range work {
				path := filepath.Join(dir, fmt.Sprintf("seed%d-k%d.db", j.sc.seed, j.k))
				cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestCrashResumeSQLiteKill$", "-test.count=1")
				cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %d %s", crashChildEnv, j.sc.seed, j.k, path))
				out, err := cmd.CombinedOutput()
				var exit *exec.ExitError
				if !errors.As(err, &exit) || !exit.Sys().(syscall.WaitStatus).Signaled() || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
					t.Errorf("seed %d, kill after checkpoint %d: child ended with %v, want SIGKILL; output:\n%s", j.sc.seed, j.k, err, out)
					continue
				}
				s, err := checkpoint.OpenSQLite(context.Background(), path, checkpoint.SQLiteOptions{})
				if err != nil {
					t.Errorf("seed %d, kill after checkpoint %d: reopen: %v", j.sc.seed, j.k, err)
					continue
				}
				got := j.sc.resume(t, s, "t")
				if err := s.Close(); err != nil {
					t.Error(err)
				}
				if got != j.want {
					t.Errorf("seed %d (%s), killed after checkpoint %d: resumed transcript differs: %s", j.sc.seed, j.sc.version, j.k, firstDifference(j.want, got))
				}
			}
		})
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	t.Logf("%d runs killed and resumed", len(jobs))
}

// crashChild runs the scenario spec names and kills itself after its
// checkpoint; it returns only when the run ended first, which is a
// failure.
func crashChild(t *testing.T, spec string) {
	var seed uint64
	var k int
	var path string
	if _, err := fmt.Sscanf(spec, "%d %d %s", &seed, &k, &path); err != nil {
		t.Fatalf("%s=%q: %v", crashChildEnv, spec, err)
	}
	s, err := checkpoint.OpenSQLite(context.Background(), path, checkpoint.SQLiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc := newCrashScenario(seed)
	g := sc.agent(t, &killAfter{Checkpointer: s, k: k}, sc.responses)
	_, err = g.Invoke(context.Background(), sc.input(), engine.Config{ThreadID: "t"})
	t.Fatalf("the run ended (error %v) before checkpoint %d was stored", err, k)
}
