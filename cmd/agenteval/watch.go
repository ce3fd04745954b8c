package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/watch"
)

// watchDebounce is how long the watched files must stay quiet before a
// rerun: long enough for a git checkout or an editor's save to finish
// writing, short enough to feel immediate.
const watchDebounce = 200 * time.Millisecond

// watch runs the scenarios under paths, then reruns those whose files
// change until the command's context ends (Ctrl-C). It returns nil then:
// the last run's verdicts were printed, and a watch is not a CI gate.
// Besides the scenario root, cassettes and golden files, it watches the
// folder of each command agent's program (watch.Program) among the
// scenarios loaded at the start.
func (r *runner) watch(paths []string) error {
	ctx := ctxOf(r.cmd)
	scenarios, err := r.load(paths)
	if err != nil {
		return err
	}
	stderr := r.cmd.ErrOrStderr()
	events, err := watch.FSEvents(ctx, r.watchRoots(paths, scenarios), func(err error) { printErr(stderr, err) })
	if err != nil {
		return err
	}
	return r.watchEvents(ctx, paths, events, time.After)
}

// watchRoots are what watch watches: the scenario root, the cassette and
// golden folders, the paths given, and each command agent's program
// (FSEvents watches a file through its folder).
func (r *runner) watchRoots(paths []string, scenarios []*harness.Scenario) []string {
	roots := append([]string{r.root, r.opts.CassetteDir, r.opts.GoldenDir}, paths...)
	for _, s := range scenarios {
		if p := watch.Program(s); p != "" && !slices.Contains(roots, p) {
			roots = append(roots, p)
		}
	}
	return roots
}

// watchEvents is watch with the changed paths coming from events and the
// quiet period (watchDebounce) timed by after, so that tests drive it.
func (r *runner) watchEvents(ctx context.Context, paths []string, events <-chan string, after func(time.Duration) <-chan time.Time) error {
	stderr := r.cmd.ErrOrStderr()
	cfg := watch.Config{
		Load: func() ([]*harness.Scenario, error) {
			scenarios, err := r.limits.LoadDir(r.root, paths...)
			return harness.WithTags(scenarios, r.tags), err
		},
		Options: r.opts,
		Run: func(ctx context.Context, scenarios []*harness.Scenario) {
			if _, err := r.runScenarios(scenarios); err != nil {
				printErr(stderr, err)
			}
			fmt.Fprintf(stderr, "watching for changes (Ctrl-C to stop)\n")
		},
		LoadError: func(err error) { printErr(stderr, err) },
		Debounce:  watchDebounce,
		After:     after,
	}
	if err := watch.Loop(ctx, events, cfg); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}
