package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/harness"
)

// signalWriter keeps what is written and signals every line that says the
// run is watching again, so that a test waits for each run to end.
type signalWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf.Write(p)
	w.mu.Unlock()
	if bytes.Contains(p, []byte("watching for changes")) {
		w.ready <- struct{}{}
	}
	return len(p), nil
}

func (w *signalWriter) take() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.buf.String()
	w.buf.Reset()
	return s
}

// TestRunWatch drives run --watch's loop with changes of its own: it runs
// everything first, then only the scenario whose file changed.
func TestRunWatch(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(withEnv(context.Background(), envMap()))
	defer cancel()
	cmd := newRunCmd()
	cmd.SetContext(ctx)
	out := &signalWriter{ready: make(chan struct{})}
	errs := &signalWriter{ready: make(chan struct{})}
	cmd.SetOut(out)
	cmd.SetErr(errs)
	r := &runner{cmd: cmd, root: "testdata/run", format: "text", noReports: true, rerun: "agenteval run",
		opts: harness.Options{GoldenDir: t.TempDir()}}
	events := make(chan string)
	done := make(chan error)
	go func() {
		done <- r.watchEvents(ctx, []string{"testdata/run/pass", "testdata/run/fail"}, events, quietAtOnce)
	}()

	<-errs.ready
	if got := out.take(); !strings.Contains(got, "  fail/weather_wrong\n") || !strings.Contains(got, "  pass/weather\n") {
		t.Errorf("first run: want both scenarios:\n%s", got)
	}
	events <- filepath.Join("testdata", "run", "fail", "weather_wrong.yaml")
	<-errs.ready
	if got := out.take(); !strings.Contains(got, "FAIL  fail/weather_wrong\n") || strings.Contains(got, "pass/weather") {
		t.Errorf("after a change to fail/weather_wrong: want it alone rerun:\n%s", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("watch after Ctrl-C: %v, want nil", err)
	}
}

// quietAtOnce is a clock whose quiet periods are over as soon as they
// start: each batch of paths runs as it arrives.
func quietAtOnce(time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	c <- time.Time{}
	return c
}

// TestRunWatchDebouncesACheckout: a git checkout removes a golden file and
// writes it back; the watch reruns once the paths are quiet, in the end
// state, and never prints the "golden file ... is missing" of the state in
// between (issue 36). The quiet period is timed by a clock the test fires.
func TestRunWatchDebouncesACheckout(t *testing.T) {
	t.Parallel()
	golden := t.TempDir()
	if code, _, errOut := runCLI("run", "--root", "testdata/run", "--golden", golden, "--no-reports", "--update", "testdata/run/pass"); code != exitOK {
		t.Fatalf("writing the golden file: exit %d\n%s", code, errOut)
	}
	goldenFile := filepath.Join(golden, "pass", "weather.golden")
	transcript, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(withEnv(context.Background(), envMap()))
	defer cancel()
	cmd := newRunCmd()
	cmd.SetContext(ctx)
	out := &signalWriter{ready: make(chan struct{})}
	errs := &signalWriter{ready: make(chan struct{})}
	cmd.SetOut(out)
	cmd.SetErr(errs)
	r := &runner{cmd: cmd, root: "testdata/run", format: "text", noReports: true, rerun: "agenteval run",
		opts: harness.Options{GoldenDir: golden}}
	timers := make(chan chan time.Time)
	after := func(time.Duration) <-chan time.Time {
		c := make(chan time.Time, 1)
		timers <- c
		return c
	}
	events := make(chan string)
	done := make(chan error)
	go func() { done <- r.watchEvents(ctx, []string{"testdata/run/pass"}, events, after) }()
	<-errs.ready
	if got := out.take(); !strings.Contains(got, "  pass/weather\n") {
		t.Fatalf("first run: want pass/weather passed:\n%s", got)
	}

	// the checkout: the golden file goes, then comes back
	if err := os.Remove(goldenFile); err != nil {
		t.Fatal(err)
	}
	events <- goldenFile
	<-timers
	if err := os.WriteFile(goldenFile, transcript, 0o644); err != nil {
		t.Fatal(err)
	}
	events <- goldenFile
	(<-timers) <- time.Time{}
	<-errs.ready
	if got := out.take() + errs.take(); strings.Contains(got, "missing") || !strings.Contains(got, "  pass/weather\n") {
		t.Errorf("after a checkout that removed and rewrote the golden file: want pass/weather passed, nothing missing:\n%s", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("watch after Ctrl-C: %v, want nil", err)
	}
}

// TestWatchRootsFollowTheProgram: run --watch over an example's command
// scenarios watches the agent's program, ../agent.mjs from scenarios/,
// once, besides the usual folders.
func TestWatchRootsFollowTheProgram(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "examples", "langgraph-react", "scenarios")
	scenarios, err := harness.LoadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{root: root, opts: harness.Options{CassetteDir: "cassettes", GoldenDir: "golden"}}
	program, err := filepath.Abs(filepath.Join("..", "..", "examples", "langgraph-react", "agent.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{root, "cassettes", "golden", program}
	if diff := cmp.Diff(want, r.watchRoots(nil, scenarios)); diff != "" {
		t.Errorf("watchRoots mismatch (-want +got):\n%s", diff)
	}
}
