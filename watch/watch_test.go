package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/harness"
)

const scenarioFile = `script: {responses: [{content: hi}]}
turns: [{user: hello}]
expect: {final: {contains: [hi]}}
`

// fixture writes a scenario root with two scenarios and returns the root
// and the options that place cassettes and golden files beside it.
func fixture(t *testing.T) (string, harness.Options) {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "scenarios")
	for _, name := range []string{"a.yaml", "sub/b.yaml"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(scenarioFile), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, harness.Options{CassetteDir: filepath.Join(dir, "cassettes"), GoldenDir: filepath.Join(dir, "golden")}
}

func names(ss []*harness.Scenario) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}

// TestLoop drives Loop with changes of its own, one batch at a time, and
// checks which scenarios each batch reruns.
func TestLoop(t *testing.T) {
	root, opts := fixture(t)
	dir := filepath.Dir(root)
	events := make(chan string)
	runs := make(chan []string)
	loadErrs := make(chan error, 10)
	cfg := Config{
		Load:      func() ([]*harness.Scenario, error) { return harness.LoadDir(root) },
		Options:   opts,
		Run:       func(_ context.Context, ss []*harness.Scenario) { runs <- names(ss) },
		LoadError: func(err error) { loadErrs <- err },
	}
	done := make(chan error)
	go func() { done <- Loop(t.Context(), events, cfg) }()

	if diff := cmp.Diff([]string{"a", "sub/b"}, <-runs); diff != "" {
		t.Fatalf("first run mismatch (-want +got):\n%s", diff)
	}
	steps := []struct {
		reason  string
		prepare func()
		changed []string
		want    []string
	}{
		{"an edited scenario file reruns that scenario", nil, []string{filepath.Join(root, "sub", "b.yaml")}, []string{"sub/b"}},
		{"a changed cassette reruns its scenario", nil, []string{filepath.Join(opts.CassetteDir, "a.yaml")}, []string{"a"}},
		{"a changed golden file reruns its scenario, whatever the path's spelling", nil, []string{filepath.Join(dir, "golden", ".", "sub", "b.golden")}, []string{"sub/b"}},
		{"a new scenario file runs", func() {
			if err := os.WriteFile(filepath.Join(root, "c.yaml"), []byte(scenarioFile), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{filepath.Join(root, "c.yaml")}, []string{"c"}},
	}
	for _, st := range steps {
		if st.prepare != nil {
			st.prepare()
		}
		for _, c := range st.changed {
			events <- c
		}
		if diff := cmp.Diff(st.want, <-runs); diff != "" {
			t.Errorf("%s: rerun mismatch (-want +got):\n%s", st.reason, diff)
		}
	}
	// a file nothing depends on reruns nothing; a broken file is reported,
	// and the next change still reruns what it affects
	events <- filepath.Join(dir, "README.md")
	if err := os.WriteFile(filepath.Join(root, "a.yaml"), []byte("turns: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	events <- filepath.Join(root, "a.yaml")
	if err := <-loadErrs; err == nil {
		t.Error("a broken scenario file: no load error reported")
	}
	events <- filepath.Join(root, "c.yaml")
	if diff := cmp.Diff([]string{"c"}, <-runs); diff != "" {
		t.Errorf("after a broken file: rerun mismatch (-want +got):\n%s", diff)
	}
	close(events)
	if err := <-done; err != nil {
		t.Errorf("Loop after events closed: %v, want nil", err)
	}
}

// TestLoopStopsWithContext: Loop returns when its context ends.
func TestLoopStopsWithContext(t *testing.T) {
	root, opts := fixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan struct{})
	cfg := Config{Load: func() ([]*harness.Scenario, error) { return harness.LoadDir(root) }, Options: opts,
		Run: func(context.Context, []*harness.Scenario) { close(ran) }}
	done := make(chan error)
	go func() { done <- Loop(ctx, make(chan string), cfg) }()
	<-ran
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Loop after cancel: %v, want context.Canceled", err)
	}
}

// fakeClock is Config.After under the test's control: each call hands the
// test the channel it returned, which the test fires when it wants.
type fakeClock struct{ timers chan chan time.Time }

func (c fakeClock) After(time.Duration) <-chan time.Time {
	t := make(chan time.Time, 1)
	c.timers <- t
	return t
}

// TestLoopDebounces: paths that arrive before the quiet period ends join
// one batch, each path restarts the period (a timer from before it is
// ignored), and the batch runs once when its last timer fires.
func TestLoopDebounces(t *testing.T) {
	root, opts := fixture(t)
	clock := fakeClock{timers: make(chan chan time.Time)}
	events := make(chan string)
	runs := make(chan []string)
	cfg := Config{
		Load:     func() ([]*harness.Scenario, error) { return harness.LoadDir(root) },
		Options:  opts,
		Run:      func(_ context.Context, ss []*harness.Scenario) { runs <- names(ss) },
		Debounce: time.Second,
		After:    clock.After,
	}
	done := make(chan error)
	go func() { done <- Loop(t.Context(), events, cfg) }()
	<-runs // the first run of everything
	// timer is the quiet period Loop starts; a run instead is a batch
	// run before its paths were quiet
	timer := func() chan time.Time {
		t.Helper()
		select {
		case got := <-runs:
			t.Fatalf("ran %v without waiting for the paths to be quiet", got)
			return nil
		case c := <-clock.timers:
			return c
		}
	}

	events <- filepath.Join(root, "a.yaml")
	stale := timer()
	events <- filepath.Join(root, "sub", "b.yaml")
	_ = timer()
	stale <- time.Time{}
	select {
	case got := <-runs:
		t.Fatalf("a timer restarted by a later path ran %v", got)
	case events <- filepath.Join(opts.CassetteDir, "a.yaml"):
	}
	timer() <- time.Time{}
	if diff := cmp.Diff([]string{"a", "sub/b"}, <-runs); diff != "" {
		t.Errorf("debounced batch: rerun mismatch (-want +got):\n%s", diff)
	}
	close(events)
	if err := <-done; err != nil {
		t.Errorf("Loop after events closed: %v, want nil", err)
	}
}

// TestProgram: a command agent's program is the first relative argument
// of agent.command that names a file from its working directory.
func TestProgram(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"agent.mjs", "bin/run.sh", "scenarios/local.py"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "scenarios", "s.yaml")
	tests := []struct {
		agent  harness.Agent
		want   string
		reason string
	}{
		{harness.Agent{Kind: "command", Command: []string{"node", "../agent.mjs"}}, filepath.Join(dir, "agent.mjs"), "an interpreter on PATH is skipped, its script followed"},
		{harness.Agent{Kind: "command", Command: []string{"../bin/run.sh", "--fast"}}, filepath.Join(dir, "bin", "run.sh"), "the program's own name counts"},
		{harness.Agent{Kind: "command", Command: []string{"python3", "-u", "local.py"}}, filepath.Join(dir, "scenarios", "local.py"), "flags are skipped"},
		{harness.Agent{Kind: "command", Dir: "..", Command: []string{"node", "agent.mjs"}}, filepath.Join(dir, "agent.mjs"), "paths resolve from agent.dir"},
		{harness.Agent{Kind: "command", Command: []string{filepath.Join(dir, "agent.mjs")}}, "", "an absolute path is the system's, not followed"},
		{harness.Agent{Kind: "command", Command: []string{"node", "missing.mjs"}}, "", "no argument names a file"},
		{harness.Agent{Kind: "command", Command: []string{"ls", "."}}, "", "a folder is not a program"},
		{harness.Agent{Command: []string{"node", "../agent.mjs"}}, "", "only command agents have a program"},
	}
	for _, tt := range tests {
		s := &harness.Scenario{File: file, Agent: tt.agent}
		if got := Program(s); got != tt.want {
			t.Errorf("Program(%q in %q) = %q, want %q (%s)", tt.agent.Command, tt.agent.Dir, got, tt.want, tt.reason)
		}
	}
}

// TestLoopFollowsTheProgram: editing a command agent's program reruns
// the scenarios that run it, and only those.
func TestLoopFollowsTheProgram(t *testing.T) {
	root, opts := fixture(t)
	program := filepath.Join(filepath.Dir(root), "agent.py")
	if err := os.WriteFile(program, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmdScenario := "agent: {kind: command, command: [python3, ../agent.py]}\n" + scenarioFile
	if err := os.WriteFile(filepath.Join(root, "cmd.yaml"), []byte(cmdScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	events := make(chan string)
	runs := make(chan []string)
	cfg := Config{
		Load:    func() ([]*harness.Scenario, error) { return harness.LoadDir(root) },
		Options: opts,
		Run:     func(_ context.Context, ss []*harness.Scenario) { runs <- names(ss) },
	}
	done := make(chan error)
	go func() { done <- Loop(t.Context(), events, cfg) }()
	if diff := cmp.Diff([]string{"a", "cmd", "sub/b"}, <-runs); diff != "" {
		t.Fatalf("first run mismatch (-want +got):\n%s", diff)
	}
	events <- program
	if diff := cmp.Diff([]string{"cmd"}, <-runs); diff != "" {
		t.Errorf("after the program changed: rerun mismatch (-want +got):\n%s", diff)
	}
	close(events)
	if err := <-done; err != nil {
		t.Errorf("Loop after events closed: %v, want nil", err)
	}
}
