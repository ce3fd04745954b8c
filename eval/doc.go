// Package eval runs a scenario set under variants, many independent trials
// each, and says with statistics how well each variant does and whether two
// runs or two variants differ. It uses package harness to run one trial;
// harness does not import it. The CLI is "agenteval eval" and "agenteval
// report compare".
//
// This doc is the contract: the eval file format, the trial cassette layout,
// the statistics with their formulas and the report's schema.
//
// # Eval files
//
// An eval file is one YAML document, with the conventions of scenario files:
// a JSON Schema (SchemaJSON, $id SchemaID) and every problem reported at once
// as "file:line:col: field: message" (*LoadError). Relative paths in it are
// relative to the file's folder.
//
//	name: suite                  # default: the file's base name
//	root: ../scenarios           # the scenario root; default "scenarios"
//	scenarios: [react, tools/error_handled.yaml]   # below root; default all of it
//	tags: [smoke]                # only scenarios with one of these tags
//	cassettes: cassettes         # trial cassettes; default "cassettes"
//	labels: labels.csv           # human labels of the judges' verdicts (see Judge calibration)
//	trials: 10                   # per scenario × case × variant; default 10
//	seed: 0                      # seeds the bootstrap intervals
//	control: baseline            # compared with the others; default the first variant
//	thresholds:                  # every scenario × variant must meet these
//	  pass_rate: {min: 0.8}
//	  pass_at: {k: 3, min: 0.95} # pass@3
//	  pass_hat: {k: 3, min: 0.5} # pass^3
//	scenario_thresholds:         # replace thresholds for one scenario
//	  react/multi_step: {pass_rate: {min: 0.5}}
//	variants:
//	  - name: baseline           # [A-Za-z0-9][A-Za-z0-9_.-]*; names cassette folders
//	  - name: terse
//	    prompt: Answer in one word.          # the system prompt
//	    model: openai:gpt-4.1-mini           # scripted, or provider:model
//	    base_url: http://127.0.0.1:8080/v1   # for openai-compatible
//	    params: {temperature: 0.2}           # set on every request of the agent's model
//	    recursion_limit: 6
//	    tools:                               # by name: description and/or parameters
//	      - {name: get_weather, description: Weather for a city.}
//	    middleware:                          # options set key by key on the scenario's middleware of that type (the agent's and each graph node's)
//	      - {type: ModelCallLimitMiddleware, options: {run_limit: 3}}
//	    script: {responses: [...]}           # replaces the scripted model's script
//	  - name: flaky
//	    stochastic: {p: 0.5, seed: 7, wrong: "I don't know."}
//	datasets:
//	  - scenario: react/weather_template     # a scenario whose strings hold {{city}}
//	    file: cities.csv                     # .csv with a header row, or .jsonl objects
//	    rows: [{city: Paris}]                # and/or inline rows
//	    name: "{{city}}"                     # case names; default case-1, case-2, ...
//
// A variant changes only what it sets. Skipped scenarios are left out. A
// trial never compares a golden transcript (it is a sample, not a
// transcript): golden: true is ignored.
//
// A stochastic variant is a seeded stochastic scripted model: trial k of a
// scenario answers with the scenario's script when u < p, and otherwise with
// one AI message whose content is wrong (default "I don't know."), u uniform
// in [0, 1) drawn by ChaCha8 seeded with SHA-256(seed, scenario[case],
// variant, k). It makes
// simulated evals end to end whose true pass probability is known.
//
// An eval file is read within harness.Limits, as a scenario file is: its
// size, UTF-8, the nesting of its values (checked before the YAML parser
// runs) and the values and text it expands to, aliases counted each time
// they are used. LoadWithin takes other limits ("agenteval eval --limit
// name=N"); they bound the scenario files Prepare loads and the trial
// cassettes Run reads too. docs/limits.md lists every limit.
//
// # Datasets
//
// A dataset turns its scenario into a template: every row is a case, the
// scenario with each {{name}} in every string (turns, script, tool results,
// expectations, prompt, ...) replaced by the row's value. A case is named by
// the name template, appears as "scenario[case]" in reports, and has its
// own trials and cassettes. A {{name}} the row lacks is an error naming the
// case and its row.
//
// Rows come from the dataset's file, then its inline rows:
//
//   - .csv: the first row names the variables (spaces around a name and
//     a UTF-8 byte order mark are dropped); every other row is a case,
//     its fields as they are. A quoted field may span lines.
//   - .jsonl: one JSON object per line, its values strings, numbers
//     (kept as written: 18.50 stays "18.50"), booleans or null ("");
//     blank lines are skipped.
//   - rows: objects in the eval file, with the same kinds of values.
//
// Problems are reported all at once, each at the file:line:col of its row
// (the dataset file's, or the eval file's for an inline row) and, when it
// concerns one, the column or key: a line that is not JSON or not an
// object, a nested value, a key twice in a row, a CSV row with another
// number of fields than the header, a bad quote, a missing or repeated
// column name, an empty file, a row the name template cannot name, a case
// name that cannot name a folder, and two rows (in one dataset, or in two
// datasets of one scenario) with the same case name:
//
//	cities.jsonl:3:10: city: values are strings, numbers, booleans or null, not an object
//	cities.csv:4:1: wrong number of fields
//	cities.csv:5:1: case name "Paris" is also the row's at cities.csv:2 (datasets[0].name)
//
// # Trials
//
// A trial is one run of a scenario (case) under a variant: a new agent,
// new threads, a new virtual clock and scripted models from their first
// answer, so no state passes between trials; live trials are independent
// samples. Trial k of a cell that calls a provider model (the agent's,
// or a judge's behind a scripted agent) replays its own cassette,
//
//	<cassettes>/<scenario path>[/<case>]/<variant>/trial-<k>.yaml
//
// (the scenario path is its file's path below the root, without extension).
// Replay never touches the network, and a missing cassette fails that trial
// with an error naming it ("react/weather × gpt trial 3: ..."); a
// replay-or-record run records exactly the trials whose cassette is
// missing. Cells with scripted models only need no cassettes. Trials run
// in this order, up to Options.Parallel at once: trial 1 of every cell
// (scenario × case × variant, sorted), then trial 2, and so on, so that a
// budget that runs out leaves the cells balanced. The report is the same
// at any parallelism, timings aside.
//
// A trial's outcome is its status (pass: every expectation, grader and
// invariant held; fail; error: it could not run, or a grader could not
// grade), one named score in [0, 1] per expectation and invariant (1 held,
// 0 did not) and per grader (the score it gave: a judge's, a
// trajectory_score's alignment, an args or answer matcher's, an order's,
// a Go or command grader's), named as harness names them ("final",
// "trajectory", "invariant: message ids unique", "graders[0] (judge)" or
// the grader's own name), its usage (tokens, cost from the cassette's
// usage and the price table) and its wall-clock latency. Go graders come
// from Options.Graders.
//
// To say why trials failed and what each variant answered, a trial also
// keeps its final answer, the name, message and diff of each
// expectation that did not hold (cut to evalreport's bounds), and, for
// the evalreport.DetailTrials failed and as many passed trials of lowest
// index per cell, its transcript and sequence diagram: while trials run,
// a cell holds at most that many details, whatever order they finish in,
// so memory grows with the cells, not the trials. Each cell's report
// lists its failing expectations, most often first with an example, and
// its distinct answers (evalreport.SummarizeWhy).
//
// # Budget and shards
//
// Options.MaxTrials stops launching after that many trials.
// Options.MaxCostUSD launches a trial only if the cost spent plus, for each
// running trial and the new one, the largest cost a trial has had so far
// stays within it; until a first trial has finished, trials run one at a
// time. A run therefore never passes the budget unless a trial costs more
// than every trial before it. The report's Budget says how many trials ran,
// what they cost and why it stopped.
//
// Options.Shard keeps the trials whose key (scenario[case], variant, k)
// hashes (FNV-1a) to the shard. Merge joins shards' reports; since every
// statistic is recomputed from the trials (Recompute), a merged report's
// statistics are those of an unsharded run.
//
// # Statistics
//
// All intervals are at 95%. For a cell of n trials, c of which passed:
//
//   - pass rate c/n with the Wilson score interval (stats.Wilson):
//     (p̂ + z²/2n ± z√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n). Errored trials
//     count as not passed.
//   - pass@k = 1 − C(n−c, k)/C(n, k) and pass^k = C(c, k)/C(n, k) for k in
//     1, 3, 5, 10 up to n, the unbiased estimators (stats.PassAtK,
//     stats.PassHatK).
//   - the mean of each named score over the trials that have it (errored
//     trials have none) with a percentile bootstrap interval, 2,000
//     resamples seeded by the file's seed and FNV-1a of the cell and
//     score (stats.BootstrapMeanCI).
//   - cost, tokens and latency: median and 90th percentile (linear
//     interpolation between order statistics).
//
// For a variant over the suite: the macro pass rate, the mean over its cells
// of their pass rates, with the cluster-robust interval (stats.ClusteredMeanCI:
// mean ∓ t_{S−1}·√(Σ(m_s − mean)²/(S(S−1))), clipped to [0, 1]), since
// trials of one scenario are not independent; with one cell, its Wilson
// interval.
//
// # Comparisons
//
// Compare (report compare, eval --baseline) pairs the cells of two reports
// by scenario, case and variant; inside one report each variant is compared
// with the control by scenario and case. Per cell:
//
//   - the change in pass rate with Newcombe's hybrid score interval and
//     the two-sided p-value of Barnard's unconditional exact test
//     (stats.CompareProportions). Barnard's test is chosen over Fisher's
//     because the trials per side are fixed by design and the number of
//     passes is not: Fisher's test conditions on both margins and is
//     conservative at the small n of evals, Barnard's conditions only on
//     the trials and is more powerful at the same level (0.5 against 0.8
//     at n = 50: found in 89% of runs against 85%). Past 2²² tables it
//     gives way to Fisher's, whose conservatism fades with n.
//   - the change in median cost, tokens and (across reports with timings)
//     latency, with a two-sided Mann-Whitney U test.
//   - the change in the mean of each named score both cells have, with a
//     two-sided Mann-Whitney U test on the per-trial scores (a rank test:
//     scores are bounded, often tied and far from normal at the trials an
//     eval runs; stats.MannWhitneyU corrects for ties).
//
// Overall, per variant: the change in macro pass rate, the mean over cells
// of d_s = new_s − base_s, with the paired t test over scenarios (t =
// mean(d)/(sd(d)/√S), S−1 degrees of freedom), which respects the
// clustering of trials in scenarios; with one cell, that cell's Barnard
// test. A change is significant when p < 0.05; text output prints "~"
// otherwise.
//
// Thresholds on a comparison are METRIC[SCOPE]:AGGREGATE OP NUMBER (see
// Threshold), such as pass_rate:delta>=-0.05. As in bench compare, a delta
// or ratio threshold that breaks while the change is not significant holds.
//
// # Judge calibration
//
// A labels file (the eval file's labels key, or agenteval eval --labels,
// which replaces it) holds people's verdicts on what the LLM judges
// graded, so that a judge's agreement with them is measured from the
// replayed trials, spending nothing. It is a .csv with a header row or a
// .jsonl file of objects, one row per label, with these columns (keys):
//
//	scenario  the trial's scenario (required)
//	case      its dataset case, if any
//	variant   its variant; default the control
//	trial     its number, from 1 (required)
//	grader    the judge's name; needed only when the trial has several judges
//	rater     who labelled it; one name per person
//	label     pass or fail, compared with whether the judge's score reached its threshold
//	score     or a score in [0, 1], compared with the judge's score
//
//	scenario,variant,trial,rater,label
//	packing,local,8,ann,fail
//
// A row has exactly one of label and score. Every problem is reported at
// once at its file:line and column name, before any trial runs: an
// unknown column, a missing scenario or trial, a trial that is not a
// whole number from 1, a label other than pass or fail, a score outside
// [0, 1], both or neither of label and score, and one rater labelling a
// trial's judge twice; after the run, a label that names a trial the
// report lacks, a trial that could not run, or a judge the trial lacks
// (labels never silently drop out). The file is read within the dataset
// limits. Labels name trials of the whole run, so they are refused with
// --shard.
//
// Calibrate groups the labels by judge and kind (pass/fail or score) and
// reports, per rater, the share of trials on which rater and judge agree
// and Cohen's κ (stats.CohenKappa: κ = (Po − Pe)/(1 − Pe), each distinct
// verdict or score a category) with its 95% interval κ ∓ 1.96·SE, SE
// Fleiss, Cohen and Everitt's (1969) large-sample standard error; and
// Krippendorff's α over the judge and every rater as raters of the same
// trials (nominal for pass/fail, interval for scores; stats.
// KrippendorffAlpha), with a percentile bootstrap interval over the
// labelled trials, 2,000 resamples seeded by the file's seed. Both
// intervals are asymptotic or resampled and approximate with few labelled
// trials; an agreement that is undefined (every verdict the same) says so
// instead of a number. To see how a judge re-recorded with another model
// agrees, run the eval on its cassettes with the same labels and read the
// two reports' calibration sections side by side (report compare does not
// compare them).
//
// # Verdicts and exit codes
//
// A cell's verdict is "error" when a trial could not run, "fail" when one
// of its thresholds is broken (pass@k with k > n is broken: it cannot be
// estimated), else "pass". The run fails (Report.Failed; agenteval exits 1)
// when a cell does not pass or a variant's macro pass rate is under
// --fail-under; usage and file errors exit 2.
//
// # Report
//
// Run returns, and Merge and Recompute fill, an evalreport.Report: every
// trial and the statistics above. Package report/evalreport holds its
// types, its JSON layout ("agenteval.eval/v1") and its writers (text,
// Markdown, HTML, JUnit, and report compare's table); this package
// computes what goes in it.
package eval
