package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agenteval/agenteval/harness"
)

// Files are the files a scenario's result depends on, cleaned and
// absolute: its scenario file, cassette and golden transcript, and a
// command agent's program (Program) when it has one.
func Files(s *harness.Scenario, opts harness.Options) []string {
	opts = opts.WithDefaults()
	files := []string{abs(s.File), abs(harness.CassettePath(opts.CassetteDir, s)), abs(harness.GoldenPath(opts.GoldenDir, s))}
	if p := Program(s); p != "" {
		files = append(files, p)
	}
	return files
}

// Program is the program file of a "command" agent, cleaned and absolute:
// the first argument of agent.command, the program's name included, that
// is a relative path to an existing regular file from the agent's working
// directory (agent.dir, relative to the scenario file's folder). In
// [node, ../agent.mjs] it is ../agent.mjs; in [./agent.sh] it is
// ./agent.sh. Absolute paths (/usr/bin/python3) and names looked up on
// PATH (node) are the system's, not the project's, and are not followed.
// Program is "" for other agents or when no argument names such a file.
func Program(s *harness.Scenario) string {
	if s.Agent.Kind != "command" {
		return ""
	}
	dir := filepath.Join(filepath.Dir(s.File), s.Agent.Dir)
	for _, arg := range s.Agent.Command {
		if arg == "" || filepath.IsAbs(arg) || arg[0] == '-' {
			continue
		}
		p := filepath.Join(dir, arg)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return abs(p)
		}
	}
	return ""
}

// abs is path made absolute and clean; a path that cannot be made
// absolute is only cleaned.
func abs(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return filepath.Clean(path)
}

// Affected returns, in their order, the scenarios that depend on one of
// the changed paths (see Files).
func Affected(scenarios []*harness.Scenario, opts harness.Options, changed []string) []*harness.Scenario {
	set := map[string]bool{}
	for _, c := range changed {
		set[abs(c)] = true
	}
	var out []*harness.Scenario
	for _, s := range scenarios {
		if slices.ContainsFunc(Files(s, opts), func(f string) bool { return set[f] }) {
			out = append(out, s)
		}
	}
	return out
}

// Config says what Loop loads and how it runs scenarios.
type Config struct {
	// Load loads the watched scenarios, afresh at every call. An error
	// is passed to LoadError, and the scenarios it returns with it (those
	// that did load) are watched.
	Load func() ([]*harness.Scenario, error)
	// Options locate the scenarios' cassettes and golden files.
	Options harness.Options
	// Run runs a batch of scenarios: all of them first, then those a
	// change affects.
	Run func(ctx context.Context, scenarios []*harness.Scenario)
	// LoadError reports an error of Load; nil ignores it.
	LoadError func(error)
	// Debounce is how long the paths must stay quiet before Loop acts on
	// a batch: every path that arrives within Debounce of the last one
	// joins the batch, so a burst of writes (a git checkout removing and
	// rewriting golden files, an editor's save through a temporary file)
	// is one rerun of its end state, never of a state in the middle.
	// Zero acts on each batch as soon as it arrives.
	Debounce time.Duration
	// After returns a channel that receives once d has passed, as
	// time.After does, which nil means; tests inject a clock of their own.
	After func(d time.Duration) <-chan time.Time
}

// Loop runs every scenario Config.Load returns, then waits for changed
// paths on events and, for each batch of them (the paths waiting on the
// channel when one arrives, and those that follow it until the paths are
// quiet for Config.Debounce), reloads the scenarios and runs those
// Affected by the batch, plus the scenarios that are new. It returns
// ctx's error when ctx is done, and nil when events is closed.
func Loop(ctx context.Context, events <-chan string, c Config) error {
	known := c.load()
	if len(known) > 0 {
		c.Run(ctx, known)
	}
	for {
		batch, ok := c.nextBatch(ctx, events)
		if !ok {
			return ctx.Err()
		}
		scenarios := c.load()
		todo := Affected(scenarios, c.Options, batch)
		for _, s := range scenarios {
			if !slices.ContainsFunc(known, func(k *harness.Scenario) bool { return abs(k.File) == abs(s.File) }) && !slices.Contains(todo, s) {
				todo = append(todo, s)
			}
		}
		known = scenarios
		if len(todo) > 0 {
			c.Run(ctx, todo)
		}
	}
}

// load calls Load and reports its error.
func (c Config) load() []*harness.Scenario {
	scenarios, err := c.Load()
	if err != nil && c.LoadError != nil {
		c.LoadError(err)
	}
	return scenarios
}

// nextBatch waits for a changed path and returns it with every path
// already waiting behind it and, with a Debounce, every path that arrives
// before the paths have been quiet for Debounce; false when ctx is done
// or events closed before a path arrived.
func (c Config) nextBatch(ctx context.Context, events <-chan string) ([]string, bool) {
	batch, ok := pending(ctx, events)
	if !ok || c.Debounce <= 0 {
		return batch, ok
	}
	after := c.After
	if after == nil {
		after = time.After
	}
	for {
		// each path restarts the quiet period: a timer from before it
		// is dropped unread
		quiet := after(c.Debounce)
		select {
		case <-ctx.Done():
			return nil, false
		case p, ok := <-events:
			if !ok {
				return batch, true
			}
			batch = append(batch, p)
		case <-quiet:
			return batch, true
		}
	}
}

// pending waits for a changed path and returns it with every path
// already waiting behind it; false when ctx is done or events closed.
func pending(ctx context.Context, events <-chan string) ([]string, bool) {
	var batch []string
	select {
	case <-ctx.Done():
		return nil, false
	case p, ok := <-events:
		if !ok {
			return nil, false
		}
		batch = append(batch, p)
	}
	for {
		select {
		case p, ok := <-events:
			if !ok {
				return batch, true
			}
			batch = append(batch, p)
		default:
			return batch, true
		}
	}
}
