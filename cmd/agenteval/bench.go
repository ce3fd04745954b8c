package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/agenteval/agenteval/bench"
	"github.com/spf13/cobra"
)

func newBenchCmd() *cobra.Command {
	var (
		workloads   []string
		count       int
		quick       bool
		format      string
		asJSON      bool
		out         string
		sampleTime  time.Duration
		warmup      time.Duration
		loadTime    time.Duration
		injectDelay time.Duration
	)
	cmd := &cobra.Command{
		Use:   "bench [flags]",
		Short: "Measure how fast the engine fans tool calls out and how cost grows with work",
		Long: `bench runs the engine's performance workloads and prints, for every case, the
median of repeated samples with its 95% confidence interval:

  W1  ToolNode with N calls of a trivial tool: ns, allocations and bytes per
      call, calls/s (N = 1, 8, 64, 256, 1024)
  W2  ToolNode with tools that wait (fixed, uniform, lognormal; 10 ms mean):
      wall per invocation, effective parallelism N·L/wall against the ideal,
      max_concurrency caps 1, 8, 64 and none; open load (fixed arrival rate,
      latency from each batch's scheduled start, so coordinated omission
      cannot hide stalls) and closed load (N workers back to back)
  W3  agent loop: K cycles of model → tool → model, µs per cycle, with no
      checkpointer, the in-memory one and SQLite
  W4  one turn on a thread of 10, 100, 1,000 and 10,000 messages, forked
      from one checkpoint or continuing the thread: time and bytes per
      superstep per checkpointer, with the fitted growth
  W5  replay throughput: generated create_react_agent scenarios per second

Each case is warmed up, then sampled --count times. W1, W3, W4 and W5 also
report the process's CPU time per unit (cpu_ns_per_call, ...), which other
jobs on a shared machine do not inflate: compare those in CI. Tables show
"median ± x%", the larger side of the interval ("± ∞" when too few samples
give 95% confidence); latency tables show p50, p90, p99, p99.9, max and a
histogram. The text output ends with the same samples as go test -bench
lines, which benchstat reads. --format json prints the report (schema
agenteval.bench/v1) instead; --json, its former spelling, still works but
is deprecated. --out DIR also writes report.json, report.txt, bench.txt
(go test -bench lines), machine.txt and SVG charts into DIR.

Progress goes to stderr when it is a terminal. Exit codes: 0 measured, 1 a
workload failed, 2 usage error.`,
		Example: `  agenteval bench --quick
  agenteval bench --workload W1,W3 --count 20
  agenteval bench --format json --out reports/bench > /dev/null
  agenteval bench compare reports/bench/report.json new.json --threshold 'W1.cpu_ns_per_call:ratio<=1.5'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &usageError{err: fmt.Errorf("bench: unexpected argument %q (did you mean 'agenteval bench compare'?)\nrun 'agenteval bench --help' for usage", args[0])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				if cmd.Flags().Changed("format") && format != "json" {
					return &usageError{err: fmt.Errorf("bench: --json means --format json, not --format %s", format)}
				}
				format = "json"
				fmt.Fprintln(cmd.ErrOrStderr(), "agenteval: bench: --json is deprecated: use --format json")
			}
			if err := checkFormat("bench", format, "text", "json"); err != nil {
				return err
			}
			var selected []string
			for _, w := range workloads {
				for p := range strings.SplitSeq(w, ",") {
					if p = strings.ToUpper(strings.TrimSpace(p)); p != "" {
						selected = append(selected, p)
					}
				}
			}
			opts := bench.Options{
				Workloads: selected, Count: count, Quick: quick,
				SampleTime: sampleTime, Warmup: warmup, LoadTime: loadTime, ToolDelay: injectDelay,
			}
			if err := opts.Validate(); err != nil {
				return &usageError{err: fmt.Errorf("bench: %w", err)}
			}
			stderr := cmd.ErrOrStderr()
			if isTerminal(stderr) {
				opts.Progress = progressPrinter(stderr)
			}
			rep, err := bench.Run(ctxOf(cmd), opts)
			if err != nil {
				return fmt.Errorf("bench: %w", err)
			}
			stdout := cmd.OutOrStdout()
			if format == "json" {
				err = rep.WriteJSON(stdout)
			} else {
				err = rep.WriteTextAndGoBench(stdout)
			}
			if err != nil {
				return err
			}
			if out != "" {
				if err := bench.WriteDir(out, rep); err != nil {
					return fmt.Errorf("bench: %w", err)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&workloads, "workload", nil, "workloads to run (W1,W2,W3,W4,W5), comma-separated; default all")
	f.IntVar(&count, "count", 0, "samples per case (default 10; 6 with --quick)")
	f.BoolVar(&quick, "quick", false, "short samples and trimmed sweeps: all workloads in well under a minute")
	f.StringVar(&format, "format", "text", "output format: text (tables, then go test -bench lines) or json (the report, schema agenteval.bench/v1)")
	f.BoolVar(&asJSON, "json", false, "deprecated: use --format json")
	_ = f.MarkHidden("json")
	f.StringVar(&out, "out", "", "also write report.json, report.txt, bench.txt, machine.txt and SVG charts into `DIR`")
	f.DurationVar(&sampleTime, "sample-time", 0, "duration of one sample (default 200ms; 20ms with --quick)")
	f.DurationVar(&warmup, "warmup", 0, "warm-up per case (default 100ms; 10ms with --quick)")
	f.DurationVar(&loadTime, "load-time", 0, "duration of one W2 open/closed load sample (default 500ms; 100ms with --quick)")
	f.DurationVar(&injectDelay, "inject-delay", 0, "busy-wait this long in every trivial tool call: a deliberately slowed build for testing compare")
	_ = f.MarkHidden("inject-delay")
	cmd.AddCommand(newBenchCompareCmd())
	return cmd
}
