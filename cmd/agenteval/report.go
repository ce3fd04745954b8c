package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agenteval/agenteval/report"
)

func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Work with run reports and eval reports",
		Long: `report works on the JSON reports that "agenteval run" and "agenteval eval"
write (agenteval.json, eval.json).

  merge    joins the reports of a suite's or an eval's shards (run or eval reports)
  compare  compares two eval reports, variant by variant`,
	}
	var reportDir, format string
	merge := &cobra.Command{
		Use:   "merge [flags] REPORT.json...",
		Short: "Join the JSON reports of a suite's or an eval's shards into one report",
		Long: `merge joins the JSON reports of "agenteval run --shard k/n" runs into one
report, printed on stdout as JSON (--format json, the default) or in
another of run's formats (text, junit, markdown); with --report-dir it also
writes the JSON, JUnit, Markdown and HTML reports of the whole suite. A
scenario that appears in two reports is an error. It exits 1 when the
merged suite has a failure.

Given the eval reports of "agenteval eval --shard k/n" (the first file
decides which kind all are), it joins them into one eval report whose
statistics are recomputed from the trials, equal to an unsharded eval's,
printed in the same formats; --report-dir writes eval.json, eval-junit.xml,
eval.md and eval.html. Shards of another eval or configuration, a shard
given twice or a trial in two reports is an error. It exits 1 when the
merged eval has a trial that could not run or a broken threshold
(--fail-under).`,
		Example: `  agenteval report merge shard-*/agenteval.json > agenteval.json
  agenteval report merge --report-dir reports/ shard1.json shard2.json
  agenteval report merge --format text shard-*/agenteval.json
  agenteval report merge shard-*/eval.json > eval.json     # the shards of an eval`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{err: errors.New("report merge: give the JSON reports to merge\nrun 'agenteval report merge --help' for usage")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat("report merge", format, "json", "text", "junit", "markdown"); err != nil {
				return err
			}
			if firstIsEvalReport(args) {
				return mergeEvalReports(cmd, args, format, reportDir)
			}
			var reps []*report.Report
			for _, path := range args {
				r, err := readRunReport(path)
				if err != nil {
					return &usageError{err: fmt.Errorf("report merge: %w", err)}
				}
				reps = append(reps, r)
			}
			merged, err := report.Merge(reps...)
			if err != nil {
				return &usageError{err: fmt.Errorf("report merge: %w", err)}
			}
			if err := reportWriters[format](cmd.OutOrStdout(), merged); err != nil {
				return err
			}
			if reportDir != "" {
				if err := report.WriteDir(reportDir, merged); err != nil {
					return err
				}
			}
			if merged.Failed > 0 || merged.Errored > 0 {
				setExit(cmd, exitFailed)
			}
			return nil
		},
	}
	merge.Flags().StringVar(&reportDir, "report-dir", "", "also write the four reports of the merged suite here")
	merge.Flags().StringVar(&format, "format", "json", "what to print on stdout: json, text, junit or markdown")
	cmd.AddCommand(merge)
	cmd.AddCommand(newReportCompareCmd())
	return cmd
}
