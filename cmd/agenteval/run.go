package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
)

// reportWriters print a run's report on stdout, by --format.
var reportWriters = map[string]func(io.Writer, *report.Report) error{
	"text":     report.WriteText,
	"json":     report.WriteJSON,
	"junit":    report.WriteJUnit,
	"markdown": report.WriteMarkdown,
}

func newRunCmd() *cobra.Command {
	var (
		root, cassettes, golden, reportDir, mode, shard, format, stateDir string
		parallel                                                          int
		timeout                                                           time.Duration
		update, shardFromEnv, noReports, overwrite, watch                 bool
		tags, limitArgs                                                   []string
	)
	cmd := &cobra.Command{
		Use:   "run [flags] [PATH...]",
		Short: "Replay scenarios against their cassettes and check their expectations",
		Long: `run loads the scenario files under PATH (default: the scenario root,
"scenarios/"), runs each one against the engine with its cassette
(<cassettes>/<scenario path>.yaml) and checks its expectations, golden
transcript (<golden>/<scenario path>.golden) and the invariants that always
hold: every tool call answered exactly once before the next model call,
message ids unique, remaining_steps never negative.

Scenarios run in parallel; the results are the same at any --parallel. It
prints one line per scenario and the diff of each failure, writes the JSON,
JUnit XML, Markdown and HTML reports into --report-dir, and exits 0 when every
scenario passed, 1 when one failed or could not run (a cassette miss, a
missing Go tool), 2 when a scenario file or a flag is wrong (every
problem is printed as file:line:col: field: message).

When something failed, the text ends with the list of what failed, each at
its file:line, and the command that reruns just those. On a terminal the
verdicts are coloured (unless NO_COLOR is set) and a counter shows the
progress. In a GitHub Actions step (GITHUB_ACTIONS=true) every failure is
also an "::error file=...,line=..." annotation on stderr, and the Markdown
summary is appended to $GITHUB_STEP_SUMMARY.

--watch runs the scenarios, then waits for changes and reruns the
scenarios whose file, cassette or golden transcript changed, until
interrupted (Ctrl-C).

Replay (the default --mode) never opens a network connection. record writes
fresh cassettes (a scenario whose cassette exists fails unless --overwrite
is given), replay-or-record records only what is missing, live talks to the
providers and writes nothing.

--state-dir DIR keeps every scenario's threads in a SQLite database under
DIR, started afresh by each run, so that "agenteval resume" can continue an
interrupted thread later, in another process.

--shard k/n runs the k-th of n deterministic parts of the suite (by a hash
of each scenario's name); --shard-from-env reads k and n from
JOB_COMPLETION_INDEX/JOB_COMPLETION_COUNT (Kubernetes Indexed Jobs, 0-based
index) or CI_NODE_INDEX/CI_NODE_TOTAL (1-based). Join the shards' JSON
reports with "agenteval report merge".`,
		Example: `  agenteval run
  agenteval run scenarios/hitl scenarios/react/weather.yaml
  agenteval run --parallel 8 --report-dir out/
  agenteval run --update                      # rewrite golden transcripts that changed
  agenteval run --mode replay-or-record       # record the scenarios that have no cassette yet
  agenteval run --shard 2/4 --format json > shard2.json
  agenteval run --watch scenarios/react       # rerun what changes, as you edit
  agenteval run --limit file_bytes=16MiB --limit recursion_limit=200000
  agenteval run --limit cassette_body_bytes=256MiB   # a recording with a body larger than 64 MiB`,
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := cassette.ParseMode(mode)
			if err != nil {
				return &usageError{err: fmt.Errorf("run: --mode: %w", err)}
			}
			if err := checkFormat("run", format, "text", "json", "junit", "markdown"); err != nil {
				return err
			}
			sh, err := parseShard(shard, shardFromEnv, envOf(cmd))
			if err != nil {
				return &usageError{err: fmt.Errorf("run: %w", err)}
			}
			if len(args) == 0 {
				args = []string{root}
			}
			limits, err := parseLimits("run", limitArgs, false)
			if err != nil {
				return err
			}
			opts := harness.Options{CassetteDir: cassettes, GoldenDir: golden, Mode: m, Parallel: parallel, Update: update, Shard: sh, StateDir: stateDir, Overwrite: overwrite, Timeout: timeout,
				CassetteLimits: limits.Cassette()}
			if err := opts.Validate(); err != nil {
				return &usageError{err: fmt.Errorf("run: %w", err)}
			}
			r := &runner{cmd: cmd, root: root, limits: limits, tags: tags, opts: opts, format: format, reportDir: reportDir, noReports: noReports, rerun: rerunCommand(cmd)}
			if watch {
				return r.watch(args)
			}
			rep, err := r.once(args)
			if err != nil {
				return err
			}
			if rep.Failed > 0 || rep.Errored > 0 {
				setExit(cmd, exitFailed)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&root, "root", "scenarios", "the scenario root: scenario names and cassette/golden paths are relative to it")
	f.StringVar(&cassettes, "cassettes", "cassettes", "the cassette folder")
	f.StringVar(&golden, "golden", "golden", "the golden transcript folder")
	f.StringVar(&reportDir, "report-dir", "reports", "where to write agenteval.json, junit.xml, summary.md and report.html")
	f.BoolVar(&noReports, "no-reports", false, "write no report files")
	f.StringVar(&mode, "mode", "replay", "cassette mode: replay, record, replay-or-record or live")
	f.BoolVar(&overwrite, "overwrite", false, "let --mode record replace existing cassettes")
	f.IntVar(&parallel, "parallel", 0, "scenarios run at once (0: GOMAXPROCS)")
	f.BoolVar(&update, "update", false, "rewrite golden transcripts that differ or are missing")
	f.StringVar(&shard, "shard", "", "run only shard k of n (k/n, 1-based)")
	f.BoolVar(&shardFromEnv, "shard-from-env", false, "read the shard from JOB_COMPLETION_INDEX/JOB_COMPLETION_COUNT or CI_NODE_INDEX/CI_NODE_TOTAL")
	f.StringVar(&format, "format", "text", "what to print on stdout: text, json, junit or markdown")
	f.StringSliceVar(&tags, "tag", nil, "run only scenarios with one of these tags")
	f.DurationVar(&timeout, "timeout", 0, "how long each scenario may run unless its file sets timeout (0: no limit); a Go tool that ignores the cancellation is abandoned after a grace period")
	addLimitFlag(cmd, &limitArgs, limitUsage)
	f.BoolVar(&watch, "watch", false, "keep running: rerun the scenarios whose files, cassettes or golden files change")
	f.StringVar(&stateDir, "state-dir", "", "keep each scenario's threads in a SQLite database here (<dir>/<scenario path>.db), for agenteval resume")
	return cmd
}

// parseShard reads --shard k/n, or the CI's variables with fromEnv.
func parseShard(s string, fromEnv bool, lookup func(string) (string, bool)) (harness.Shard, error) {
	if s != "" && fromEnv {
		return harness.Shard{}, errors.New("--shard and --shard-from-env exclude each other")
	}
	if fromEnv {
		if i, ok := lookup("JOB_COMPLETION_INDEX"); ok {
			n, _ := lookup("JOB_COMPLETION_COUNT")
			k, err1 := strconv.Atoi(i)
			c, err2 := strconv.Atoi(n)
			if err1 != nil || err2 != nil || k < 0 || c < 1 || k >= c {
				return harness.Shard{}, fmt.Errorf("--shard-from-env: JOB_COMPLETION_INDEX=%q JOB_COMPLETION_COUNT=%q: expected 0 <= index < count", i, n)
			}
			return harness.Shard{K: k + 1, N: c}, nil
		}
		if i, ok := lookup("CI_NODE_INDEX"); ok {
			n, _ := lookup("CI_NODE_TOTAL")
			return parseShard(i+"/"+n, false, lookup)
		}
		return harness.Shard{}, errors.New("--shard-from-env: neither JOB_COMPLETION_INDEX nor CI_NODE_INDEX is set")
	}
	if s == "" {
		return harness.Shard{}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return harness.Shard{}, fmt.Errorf("shard %q: expected k/n with 1 <= k <= n", s)
	}
	return harness.Shard{K: k, N: n}, nil
}
