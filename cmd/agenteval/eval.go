package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/eval"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
)

// evalWriters print an eval report on stdout, by --format.
var evalWriters = map[string]func(io.Writer, *evalreport.Report) error{
	"text":     evalreport.WriteText,
	"json":     evalreport.WriteJSON,
	"junit":    evalreport.WriteJUnit,
	"markdown": evalreport.WriteMarkdown,
}

func newEvalCmd() *cobra.Command {
	var (
		cassettes, mode, shard, format, reportDir, baseline string
		parallel, trials, maxTrials                         int
		maxCost, failUnder, planEffect, planBase            float64
		overwrite, shardFromEnv, noTiming                   bool
		thresholds, limitArgs                               []string
	)
	cmd := &cobra.Command{
		Use:   "eval [flags] EVAL.yaml",
		Short: "Run a scenario set under variants, many trials each, with statistics",
		Long: `eval runs every scenario of an eval file under each of its variants, trials
times each (scenario × variant × trial), in parallel, and prints the pass rate
of every scenario × variant with its Wilson 95% interval, each variant's macro
pass rate over the suite with a clustered interval, the mean of each grader's
score with its bootstrap interval (the JSON, Markdown and HTML reports give
every named score: expectations and invariants 1 or 0, graders their own),
and each variant against the control (Barnard's exact test for pass rates,
stratified by scenario overall; Mann-Whitney U with the Hodges–Lehmann shift
for cost, tokens and latency), each with its minimum detectable effect and
its flags corrected by Benjamini–Hochberg. Copies (a deterministic agent's
identical trials, byte-identical trial cassettes) count once: the report
gives each cell's effective n. --plan EFFECT says how many trials a change
of EFFECT from --plan-base needs, without running anything. Datasets (CSV, JSONL or inline
rows) fill a scenario template's {{variables}}, one case per row. docs/eval.md
is the tour; the eval file format, the trial cassette layout and every
formula are in "go doc github.com/agenteval/agenteval/eval".

Every trial is its own conversation. A trial that calls a provider model (the
agent's, or an LLM judge's) replays trial k of a scenario from
<cassettes>/<scenario>[/<case>]/<variant>/trial-<k>.yaml; --mode
replay-or-record records only the trials whose cassette is missing. Scripted
trials need no cassettes. The JSON report is the same at any --parallel,
timings aside (--no-timing leaves them out).

--max-cost USD and --max-trials N stop launching trials when the budget is
spent and say so in the report. --shard k/n runs a deterministic part of the
trials; join the shards' JSON with "agenteval report merge".

It exits 0 when every threshold held (the file's, --fail-under's and, with
--baseline, --threshold's), 1 when one broke or a trial could not run, and 2
on a usage or eval file error.`,
		Example: `  agenteval eval evals/suite.yaml
  agenteval eval --parallel 8 --format json evals/suite.yaml > eval.json
  agenteval eval --mode replay-or-record --max-cost 2.50 evals/providers.yaml
  agenteval eval --fail-under 0.9 --report-dir reports/ evals/suite.yaml
  agenteval eval --baseline reports/eval-base.json --threshold 'pass_rate:delta>=-0.05' evals/suite.yaml
  agenteval eval --baseline reports/eval-base.json --threshold 'pass_rate:lower>=-0.1' evals/suite.yaml
  agenteval eval --plan 0.2 --plan-base 0.85 evals/suite.yaml
  agenteval eval --shard 2/4 --format json evals/suite.yaml > shard2.json
  agenteval eval --no-timing --format json evals/suite.yaml > reports/eval/suite.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{err: errors.New("eval: give one eval file\nrun 'agenteval eval --help' for usage")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := cassette.ParseMode(mode)
			if err != nil {
				return &usageError{err: fmt.Errorf("eval: --mode: %w", err)}
			}
			if err := checkFormat("eval", format, "text", "json", "junit", "markdown"); err != nil {
				return err
			}
			sh, err := parseShard(shard, shardFromEnv, os.LookupEnv)
			if err != nil {
				return &usageError{err: fmt.Errorf("eval: %w", err)}
			}
			var ths []eval.Threshold
			for _, t := range thresholds {
				th, err := eval.ParseThreshold(t)
				if err != nil {
					return &usageError{err: fmt.Errorf("eval: --threshold: %w", err)}
				}
				ths = append(ths, th)
			}
			if len(ths) > 0 && baseline == "" {
				return &usageError{err: errors.New("eval: --threshold compares with a baseline: give --baseline BASE.json")}
			}
			var base *evalreport.Report
			if baseline != "" {
				if base, err = readEvalReport(baseline); err != nil {
					return &usageError{err: fmt.Errorf("eval: --baseline: %w", err)}
				}
			}
			limits, err := parseLimits("eval", limitArgs, false)
			if err != nil {
				return err
			}
			f, err := eval.LoadWithin(args[0], limits)
			if err != nil {
				return &usageError{err: err}
			}
			if trials > 0 {
				f.Trials = trials
			}
			if cmd.Flags().Changed("plan") {
				if !(planEffect > 0 && planEffect < 1) || !(planBase >= 0 && planBase <= 1) {
					return &usageError{err: errors.New("eval: --plan takes a change in pass rate in (0, 1), --plan-base a rate in [0, 1]")}
				}
				return eval.WritePlan(cmd.OutOrStdout(), f, planBase, planEffect)
			}
			plan, err := eval.Prepare(f)
			if err != nil {
				return &usageError{err: err}
			}
			opts := eval.Options{CassetteDir: cassettes, Mode: m, Overwrite: overwrite, Parallel: parallel, Shard: sh,
				MaxCostUSD: maxCost, MaxTrials: maxTrials, FailUnder: failUnder}
			stderr := cmd.ErrOrStderr()
			for _, w := range plan.Warnings() {
				fmt.Fprintln(stderr, "warning: "+w)
			}
			if isTerminal(stderr) {
				opts.Progress = func(done, total int) { fmt.Fprintf(stderr, "\r%d/%d trials", done, total) }
			}
			rep := eval.Run(ctxOf(cmd), plan, opts)
			if opts.Progress != nil {
				fmt.Fprintln(stderr)
			}
			if noTiming {
				rep = evalreport.StripTiming(rep)
			}
			out := cmd.OutOrStdout()
			if err := evalWriters[format](out, rep); err != nil {
				return err
			}
			failed := rep.Failed()
			if base != nil {
				c := eval.Compare(base, rep, baseline, args[0])
				w := out
				if format != "text" {
					w = stderr
				}
				fmt.Fprintln(w)
				if err := evalreport.WriteComparison(w, c); err != nil {
					return err
				}
				res, err := eval.Check(c, ths)
				if err != nil {
					return &usageError{err: fmt.Errorf("eval: --threshold: %w", err)}
				}
				if err := evalreport.WriteChecks(w, res); err != nil {
					return err
				}
				for _, r := range res {
					failed = failed || !r.Pass
				}
			}
			if reportDir != "" {
				if err := evalreport.WriteDir(reportDir, rep); err != nil {
					return err
				}
			}
			if failed {
				setExit(cmd, exitFailed)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&cassettes, "cassettes", "", "the trial cassette folder (default: the eval file's cassettes, relative to it)")
	fl.StringVar(&mode, "mode", "replay", "cassette mode for provider variants: replay, record, replay-or-record or live")
	fl.BoolVar(&overwrite, "overwrite", false, "let --mode record replace existing trial cassettes")
	fl.IntVar(&parallel, "parallel", 0, "trials run at once (0: GOMAXPROCS)")
	fl.IntVar(&trials, "trials", 0, "trials per scenario × variant, replacing the file's")
	fl.Float64Var(&maxCost, "max-cost", 0, "stop launching trials before the cost (USD) could pass this")
	fl.IntVar(&maxTrials, "max-trials", 0, "run at most this many trials")
	fl.Float64Var(&failUnder, "fail-under", 0, "exit 1 when a variant's macro pass rate is below this")
	fl.StringVar(&shard, "shard", "", "run only shard k of n of the trials (k/n, 1-based)")
	fl.BoolVar(&shardFromEnv, "shard-from-env", false, "read the shard from JOB_COMPLETION_INDEX/JOB_COMPLETION_COUNT or CI_NODE_INDEX/CI_NODE_TOTAL")
	fl.StringVar(&format, "format", "text", "what to print on stdout: text, json, junit or markdown")
	fl.StringVar(&reportDir, "report-dir", "", "also write eval.json, eval-junit.xml, eval.md and eval.html here")
	fl.BoolVar(&noTiming, "no-timing", false, "leave the wall-clock data out of the report, e.g. for a committed baseline")
	fl.StringVar(&baseline, "baseline", "", "compare with this eval JSON report")
	fl.StringArrayVar(&thresholds, "threshold", nil, "with --baseline: a threshold such as 'pass_rate:delta>=-0.05' (breaks on evidence, Holm-corrected) or 'pass_rate:lower>=-0.05' (non-inferiority) (repeatable)")
	fl.Float64Var(&planEffect, "plan", 0, "print how many trials per cell find this change in pass rate 80% of the time, and run nothing")
	fl.Float64Var(&planBase, "plan-base", 0.5, "with --plan: the pass rate the change is from (0.5, the default, needs the most trials)")
	addLimitFlag(cmd, &limitArgs, limitUsage)
	return cmd
}

// readEvalReport reads the eval report at path (evalreport.ReadJSON),
// refusing one that holds a credential.
func readEvalReport(path string) (*evalreport.Report, error) {
	data, err := readReportData(path)
	if err != nil {
		return nil, err
	}
	r, err := evalreport.ReadJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// readRunReport reads the run report at path (report.ReadJSON),
// refusing one that holds a credential.
func readRunReport(path string) (*report.Report, error) {
	data, err := readReportData(path)
	if err != nil {
		return nil, err
	}
	r, err := report.ReadJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// readReportData reads a report file and refuses it when it holds a
// credential, naming the line: agenteval writes no report with one
// (harness scrubs them), so one found there was put by hand or by an
// older version, and merging or comparing would carry it on.
func readReportData(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if kind, at, ok := cassette.FindCredential(string(data)); ok {
		return nil, fmt.Errorf("%s:%d: holds %s: a report never holds a credential; remove it", path, 1+bytes.Count(data[:at], []byte("\n")), kind)
	}
	return data, nil
}

// isEvalReport tells an eval report from a run report by its schema line.
func isEvalReport(data []byte) bool {
	return strings.Contains(string(data[:min(len(data), 200)]), `"schema": "`+evalreport.Schema+`"`)
}
