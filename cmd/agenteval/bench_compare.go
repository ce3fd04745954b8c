package main

import (
	"fmt"

	"github.com/agenteval/agenteval/bench"
	"github.com/spf13/cobra"
)

func newBenchCompareCmd() *cobra.Command {
	var thresholds []string
	var format string
	cmd := &cobra.Command{
		Use:   "compare [flags] OLD.json NEW.json",
		Short: "Compare two bench reports with significance tests and thresholds",
		Long: `compare pairs the results of two reports written by 'agenteval bench
--format json' by workload, parameters and metric and prints, like
benchstat, the old and new medians with their 95% intervals and the change,
or "~" when a two-sided Mann-Whitney U test does not find it significant at
α = 0.05, with a geomean row per metric.

--threshold adds k6-style pass/fail criteria, checked per matching case:

  W1.ns_per_call<=600                 new median of every W1 case
  W1[n=256].allocs_per_call<4         one case, selected by its parameters
  W1.ns_per_call:ratio<=1.5           new median / old median
  W3[checkpointer=memory].us_per_cycle:ci_high<20
  *.calls_per_s:ratio>=0.8            every workload with that metric

Aggregates are median (default), ci_low, ci_high and ratio. A ratio
threshold is broken only when the change is also significant, so noise on
a shared machine cannot break it alone; compare ratios, not absolute
times, in CI. A threshold that matches no result is an error.

Exit codes: 0 every threshold holds, 1 a threshold is broken, 2 usage or
input error.`,
		Example: `  agenteval bench --format json > new.json
  agenteval bench compare reports/bench/report.json new.json
  agenteval bench compare --threshold 'W1.cpu_ns_per_call:ratio<=1.5' --threshold 'W3.cpu_us_per_cycle:ratio<=1.5' old.json new.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return &usageError{err: fmt.Errorf("bench compare: expected OLD.json and NEW.json, got %d argument(s)\nrun 'agenteval bench compare --help' for usage", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat("bench compare", format, "text"); err != nil {
				return err
			}
			var ts []bench.Threshold
			for _, s := range thresholds {
				t, err := bench.ParseThreshold(s)
				if err != nil {
					return &usageError{err: fmt.Errorf("bench compare: %w", err)}
				}
				ts = append(ts, t)
			}
			old, err := bench.ReadReportFile(args[0])
			if err != nil {
				return &usageError{err: fmt.Errorf("bench compare: %w", err)}
			}
			cur, err := bench.ReadReportFile(args[1])
			if err != nil {
				return &usageError{err: fmt.Errorf("bench compare: %w", err)}
			}
			c := bench.Compare(old, cur)
			stdout := cmd.OutOrStdout()
			if err := c.WriteText(stdout); err != nil {
				return err
			}
			if len(ts) == 0 {
				return nil
			}
			results, err := bench.Check(c, cur, ts)
			if err != nil {
				return &usageError{err: fmt.Errorf("bench compare: %w", err)}
			}
			if err := bench.WriteCheck(stdout, results); err != nil {
				return err
			}
			if bench.Broken(results) > 0 {
				setExit(cmd, exitFailed)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&thresholds, "threshold", nil, "pass/fail criterion such as 'W1.ns_per_call:ratio<=1.5' (repeatable)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text (a comparison has no JSON form: compare the reports' JSON instead)")
	return cmd
}
