package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agenteval/agenteval/eval"
	"github.com/agenteval/agenteval/report/evalreport"
)

func newReportCompareCmd() *cobra.Command {
	var (
		thresholds []string
		format     string
	)
	cmd := &cobra.Command{
		Use:   "compare [flags] BASE.json NEW.json",
		Short: "Compare two eval reports: pass rate, cost and latency per scenario and overall",
		Long: `compare pairs the cells (scenario, case and variant) of two eval JSON reports
and prints, per cell and per variant overall, the change in pass rate over
the effective trials (copies count once, errored trials apart) with its 95%
interval, the p-value of a two-sided test fit for small samples (Barnard's
unconditional exact test; overall, Cochran–Mantel–Haenszel stratified by
scenario: see the note under the table) and the minimum detectable effect,
the Hodges–Lehmann shift in cost, tokens and latency with a Mann-Whitney U
test, and the change in the mean of each named score (expectations' and
graders') with a Mann-Whitney U test. Both reports' statistics are
recomputed from their trials first. "~" marks a change that is not
significant after Benjamini–Hochberg over every test listed.

--threshold sets a limit, METRIC[SCOPE]:AGGREGATE OP NUMBER, with METRIC
pass_rate, cost_usd, tokens or latency_ms; SCOPE a scenario, "scenario ×
variant" or "*" (no scope: each variant overall); AGGREGATE lower or upper
(pass_rate: a one-sided 95% bound of the change, e.g. the non-inferiority
check 'pass_rate:lower>=-0.05'), delta or ratio (break only on evidence:
a one-sided test against the limit, Holm-corrected over the checks; a
hold is not proof, so each prints its MDE), or new or base (point
estimates). It exits 1 when a threshold is broken, 2 on a usage error or a
threshold that matches nothing.`,
		Example: `  agenteval report compare reports/eval-base.json reports/eval.json
  agenteval report compare --threshold 'pass_rate:delta>=-0.05' base.json new.json
  agenteval report compare --threshold 'pass_rate:lower>=-0.05' base.json new.json
  agenteval report compare --threshold 'pass_rate[*]:delta>=-0.2' --threshold 'cost_usd:ratio<=1.1' base.json new.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return &usageError{err: errors.New("report compare: give BASE.json and NEW.json\nrun 'agenteval report compare --help' for usage")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat("report compare", format, "text", "json"); err != nil {
				return err
			}
			var ths []eval.Threshold
			for _, t := range thresholds {
				th, err := eval.ParseThreshold(t)
				if err != nil {
					return &usageError{err: fmt.Errorf("report compare: --threshold: %w", err)}
				}
				ths = append(ths, th)
			}
			base, err := readEvalReport(args[0])
			if err != nil {
				return &usageError{err: fmt.Errorf("report compare: %w", err)}
			}
			cur, err := readEvalReport(args[1])
			if err != nil {
				return &usageError{err: fmt.Errorf("report compare: %w", err)}
			}
			c := eval.Compare(base, cur, args[0], args[1])
			res, err := eval.Check(c, ths)
			if err != nil {
				return &usageError{err: fmt.Errorf("report compare: %w", err)}
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				err = evalreport.WriteJSONValue(out, struct {
					Comparison evalreport.Comparison    `json:"comparison"`
					Thresholds []evalreport.CheckResult `json:"thresholds,omitempty"`
				}{c, res})
			} else {
				err = evalreport.WriteComparison(out, c)
				if err == nil && len(res) > 0 {
					fmt.Fprintln(out)
					err = evalreport.WriteChecks(out, res)
				}
			}
			if err != nil {
				return err
			}
			for _, r := range res {
				if !r.Pass {
					setExit(cmd, exitFailed)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&thresholds, "threshold", nil, "a limit such as 'pass_rate:delta>=-0.05' (repeatable)")
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}

// mergeEvalReports joins eval shards' JSON reports and prints the merged
// report; the merged statistics are those of an unsharded run.
func mergeEvalReports(cmd *cobra.Command, paths []string, format, reportDir string) error {
	var reps []*evalreport.Report
	for _, p := range paths {
		r, err := readEvalReport(p)
		if err != nil {
			return &usageError{err: fmt.Errorf("report merge: %w", err)}
		}
		reps = append(reps, r)
	}
	merged, err := eval.Merge(reps...)
	if err != nil {
		return &usageError{err: fmt.Errorf("report merge: %w", err)}
	}
	if err := evalWriters[format](cmd.OutOrStdout(), merged); err != nil {
		return err
	}
	if reportDir != "" {
		if err := evalreport.WriteDir(reportDir, merged); err != nil {
			return err
		}
	}
	if merged.Failed() {
		setExit(cmd, exitFailed)
	}
	return nil
}

// firstIsEvalReport reports whether the first file is an eval report.
func firstIsEvalReport(paths []string) bool {
	if len(paths) == 0 {
		return false
	}
	data, err := os.ReadFile(paths[0])
	return err == nil && isEvalReport(bytes.TrimSpace(data))
}
