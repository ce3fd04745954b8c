// Package evalreport is the record that "agenteval eval" writes and
// "agenteval report compare" and "agenteval report merge" read: the eval
// report (schema "agenteval.eval/v1"), the comparison of two runs, and
// their writers for programs (JSON) and for people (text, Markdown, HTML,
// JUnit). Package eval fills a Report (it runs the trials and computes
// every statistic); this package only holds and writes it, so it imports
// nothing of agenteval but report (for the run report's Status and
// Usage) and the standard library.
//
// # The JSON report
//
// WriteJSON writes it indented by two spaces, ReadJSON reads it back
// strictly (unknown fields or another Schema are errors). It holds the
// eval's name, trials per cell, seed, control and variants (with what
// each overrides); the cells, sorted by scenario and case and then
// variant in file order, each with
//
//   - n, passed, errored, pass_rate {value, lo, hi} (Wilson 95%),
//     pass_at and pass_hat [{k, value}];
//   - scores [{name, grader, n, value, lo, hi}]: the mean over the
//     trials of each named score with its bootstrap 95% interval — every
//     expectation and invariant (1 held, 0 did not) and every grader
//     (its score in [0, 1]; grader names its kind: judge,
//     trajectory_score, order, args, answer, go, command); n counts the
//     trials that have the score (a trial that could not run has none);
//   - cost_usd and tokens {median, p90}, thresholds, verdict;
//   - every trial {index, status, message, scores [{name, value,
//     grader}], final, usage, cassette, failures [{name, message,
//     diff}], detail {trajectory, exchanges}}: failures are the
//     expectations, invariants and graders that did not hold, in check
//     order, message cut to MaxFailureMessage runes and diff to
//     MaxFailureDiff bytes; detail is the trial's transcript (the run
//     report's trajectory steps) and sequence diagram (its exchanges),
//     kept only for the DetailTrials (10) failed or errored and the
//     DetailTrials passed trials of lowest index in each cell, so a
//     report grows with its cells, not with its trials' transcripts;
//   - failing [{name, trials, example {trial, message, diff}}]: the
//     expectations that failed in the cell, most often first, each with
//     its failure in the first trial that had it; answers [{final,
//     trials, passed, first_trial}]: the distinct final answers of the
//     trials that ran, most often first, at most MaxAnswers (10), and
//     other_answers the trials that gave another. SummarizeWhy computes
//     them from the trials, so a merged report has them as an unsharded
//     run would;
//
// suite (one entry per variant: cells, trials, macro_pass_rate,
// cost_usd); labels and calibration when the judges were calibrated
// against human labels (see Calibration: per judge and kind, each
// rater's n, agreement and kappa {value, lo, hi}, and alpha over the
// judge and all raters); comparisons with the control (see Comparison: per cell the
// pass rate, cost, tokens and each named score); thresholds checked;
// budget and shards when set. The wall-clock data, and nothing else,
// sits in "timing" objects (the run's, each cell's latency and each
// trial's), which StripTiming removes: everything else is byte-identical
// for the same eval at any parallelism. NaNs are never written.
//
// # Writers for people
//
// Their layout may change between versions; parse the JSON instead. All
// are byte-stable for the same Report (golden files under testdata).
//
//   - WriteText: the scenario × variant grid of pass rates with their
//     Wilson intervals, each variant's macro pass rate and cost, the
//     graders' mean scores with their intervals, the comparisons with
//     the control, the trials that could not run, the thresholds and the
//     budget; after the scores, the judges' calibration against human
//     labels (when given), why trials failed (per cell, the three
//     expectations that failed most, with the first failure's message)
//     and the final answers side by side (per scenario, each distinct
//     answer on one line with, per variant, the trials that gave it and
//     how many passed).
//   - WriteMarkdown: a pull-request comment: a headline, the grid
//     (broken thresholds ❌, significant drops against the control 🔻),
//     the graders' mean scores, the expectations' and invariants' mean
//     scores folded in a <details>, why trials failed and the answers
//     side by side (each folded, as in the text), the comparisons,
//     broken thresholds and the budget.
//   - WriteHTML: one page with no external resource and no script: the
//     grid and the scores with interval bars, the thresholds, why
//     trials failed (every failing expectation of every cell with its
//     first failure and diff), the answers side by side (in full), and
//     every trial folded in a <details>: one click shows its failures,
//     sequence diagram, final answer and transcript, rendered by
//     report.DetailHTML as the run report renders a scenario (a trial
//     whose detail was not kept shows its failures and answer only).
//   - WriteJUnit: one test suite per variant, one test case per scenario
//     × variant whose verdict is its thresholds, the pass rate and the
//     graders' mean scores in system-out.
//   - WriteComparison and WriteChecks: report compare's table (per cell
//     and overall; a second table for the named scores) and its
//     thresholds, one line each.
package evalreport
