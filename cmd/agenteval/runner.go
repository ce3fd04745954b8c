package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/store"
)

// runner runs scenarios for the run command and writes what it found.
type runner struct {
	cmd               *cobra.Command
	root              string
	limits            harness.Limits // bound the scenario files
	tags              []string
	opts              harness.Options
	format, reportDir string
	noReports         bool
	rerun             string // the command that reruns scenarios, without paths
	store             string // the results store's DSN, "" for none (--store)
	suite             string // the paths run, as the store names the suite
}

// load loads the scenarios under paths and keeps those with the run's
// tags; no scenario to run is a usage error that says why.
func (r *runner) load(paths []string) ([]*harness.Scenario, error) {
	scenarios, err := r.limits.LoadDir(r.root, paths...)
	if err != nil {
		return nil, &usageError{err: err}
	}
	if len(scenarios) == 0 {
		return nil, &usageError{err: fmt.Errorf("run: no scenarios in %s", strings.Join(paths, ", "))}
	}
	tagged := harness.WithTags(scenarios, r.tags)
	if len(tagged) == 0 {
		return nil, &usageError{err: noTagMatch(r.tags, scenarios, paths)}
	}
	return tagged, nil
}

// noTagMatch explains that no scenario carries one of tags, naming the
// tags the scenarios do carry.
func noTagMatch(tags []string, scenarios []*harness.Scenario, paths []string) error {
	var have []string
	for _, s := range scenarios {
		for _, t := range s.Tags {
			if !slices.Contains(have, t) {
				have = append(have, t)
			}
		}
	}
	slices.Sort(have)
	msg := fmt.Sprintf("run: --tag %s: none of the %d scenarios in %s has that tag", strings.Join(tags, ","), len(scenarios), strings.Join(paths, ", "))
	if len(have) == 0 {
		return fmt.Errorf("%s; they have no tags", msg)
	}
	return fmt.Errorf("%s; their tags are %s", msg, strings.Join(have, ", "))
}

// once runs the scenarios under paths and writes the report: on stdout in
// the run's format, into the report folder, and to GitHub Actions when
// the run is one of its steps.
func (r *runner) once(paths []string) (*report.Report, error) {
	scenarios, err := r.load(paths)
	if err != nil {
		return nil, err
	}
	return r.runScenarios(scenarios)
}

// runScenarios runs scenarios and writes the report.
func (r *runner) runScenarios(scenarios []*harness.Scenario) (*report.Report, error) {
	cmd := r.cmd
	stderr := cmd.ErrOrStderr()
	opts := r.opts
	if isTerminal(stderr) {
		opts.Progress = finishedPrinter(stderr, time.Now)
	}
	started := nowOf(cmd)()
	rep := harness.Run(ctxOf(cmd), scenarios, opts)
	if err := r.print(rep); err != nil {
		return nil, err
	}
	if r.store != "" {
		if err := appendToStore(cmd, r.store, store.Entry{Started: started, Suite: r.suite, Run: rep}); err != nil {
			return nil, err
		}
	}
	if !r.noReports {
		if err := report.WriteDir(r.reportDir, rep); err != nil {
			return nil, err
		}
		if r.format == "text" {
			fmt.Fprintf(stderr, "reports written to %s\n", r.reportDir)
		}
	}
	if err := reportToGitHub(stderr, rep, envOf(cmd)); err != nil {
		return nil, err
	}
	return rep, nil
}

// print writes the report on stdout in the run's format; text is
// coloured on a terminal and ends with the command to rerun what failed.
func (r *runner) print(rep *report.Report) error {
	out := r.cmd.OutOrStdout()
	if r.format != "text" {
		return reportWriters[r.format](out, rep)
	}
	return report.WriteTextWith(out, rep, report.TextOptions{
		Color: colorFor(isTerminal(out), envOf(r.cmd)),
		Rerun: r.rerun,
	})
}

// rerunFlags are the run flags that a command rerunning some scenarios
// keeps: those that say where things are and how to replay them, not
// which scenarios to pick (--tag, --shard) or what to print.
var rerunFlags = []string{"root", "cassettes", "golden", "mode", "state-dir"}

// rerunCommand is "agenteval run" with the rerunFlags the user set.
func rerunCommand(cmd *cobra.Command) string {
	parts := []string{"agenteval", "run"}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if slices.Contains(rerunFlags, f.Name) {
			parts = append(parts, "--"+f.Name, shellQuote(f.Value.String()))
		}
	})
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and "-_./:=@%+,".
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
