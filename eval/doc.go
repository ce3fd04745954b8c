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
//	trials: 10                   # per scenario × case × variant; default 10
//	seed: 0                      # kept in the report; no statistic resamples now
//	control: baseline            # compared with the others; default the first variant
//	thresholds:                  # every scenario × variant must meet these (see Gates)
//	  pass_rate: {min: 0.8}      # breaks on evidence of a rate under 0.8; {lower: 0.8} asks for proof
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
//	  - name: short-answers                  # for a command agent's program
//	    model: openai:gpt-4.1-mini
//	    env: {AGENT_STYLE: short}            # merged over agent.env, key by key
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
// Nothing a file sets is silently ignored. Unknown keys anywhere (variants,
// thresholds, scenario_thresholds, datasets) are problems with a "did you
// mean", a scenario_thresholds key must name a selected scenario and a
// tag must be one some scenario under the root carries. What
// a variant sets must reach each scenario it runs, or Prepare reports it at
// the variant's field:
//
//   - A command agent's program builds its agent itself: prompt, params,
//     recursion_limit, tools and middleware cannot reach it. Pass them
//     through env and read them in the program. The program gets the
//     variant's model name as AGENTEVAL_MODEL and the variant's name as
//     AGENTEVAL_VARIANT (see package harness, kind "command"); env is for
//     a command agent only.
//   - A scripted model answers from its script whatever the prompt, the
//     model parameters or a tool's description say: a variant that sets
//     one of them and runs only scripted models (a stochastic one
//     included) cannot differ from the control by it, and that is an
//     error. A Go agent counts as reading them (its code gets the prompt
//     and tools).
//   - A middleware option the middleware does not take (the variant's
//     options built with the scenario's, as the run will) is an error at
//     the variant's options, not of every trial.
//   - A base_url with a scripted model reaches nothing, and an
//     openai-compatible model needs one (the variant's or the
//     scenario's).
//
// A variant's base_url is honoured in every mode, for every agent kind: a
// record run sends the agent's requests to it and to no other host (a
// command agent's through the recording proxy, package harness).
//   - A scenario template (a {{name}} in its strings, package harness)
//     that no dataset fills is an error: it would run with its
//     placeholders as text. agenteval run skips templates.
//
// A variant that runs every scenario exactly as the control, or an
// earlier variant, does (the scenario as the variant leaves it, its params
// and its stochastic model alike) is a warning, not an error: its trials sample the same agent, so
// it can differ from the control only by chance, which an A/A comparison
// of a provider model measures on purpose. Plan.Warnings lists such
// variants before the run ("agenteval eval" prints them on stderr) and the
// report carries each on its variant (VariantInfo.Warning).
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
// All intervals are at 95%. Every estimator and test below cites its
// formula in package stats, where it is checked against scipy, R or
// hand-derived values; the coverage of every interval a report prints is
// measured below ("Coverage").
//
// Errored trials (the trial could not run, or a grader could not grade)
// measure nothing about the agent: they are left out of pass rates,
// pass@k and every test, and counted apart (Cell.Errored, "+2 errored").
//
// Effective n. Copies are not evidence. Trials that replay byte-identical
// cassettes (one Trial.CassetteSHA256, the SHA-256 of the cassette's
// bytes) count once; in a cell of a variant that is not stochastic, trials
// without cassettes whose outcomes (status, message, final answer, scores,
// usage) are all identical are a deterministic agent repeating itself and
// count as one trial. Cell.EffectiveN and EffectivePassed are what is
// left, Cell.Copies says why; intervals and tests use them. The bundled
// suite's scripted control has an effective n of 1 in 9 of its 10 cells.
//
// For a cell of effective n trials, c of which passed:
//
//   - pass rate c/n with the Clopper–Pearson interval (stats.ClopperPearson;
//     Clopper & Pearson 1934): [B(α/2; c, n−c+1), B(1−α/2; c+1, n−c)], B
//     the Beta quantile. Wilson's interval, used before, covers under 0.93
//     near 0 and 1 at small n (0.904 at n = 5, p = 0.98; see Coverage).
//   - pass@k = 1 − C(n−c, k)/C(n, k) and pass^k = C(c, k)/C(n, k) for k in
//     1, 3, 5, 10 up to n, the unbiased estimators (stats.PassAtK,
//     stats.PassHatK), over the completed trials: a deterministic agent's
//     repetitions give its one outcome, as they should.
//   - the mean of each named score in [0, 1] over the trials that have it,
//     with the binomialized Clopper–Pearson interval over the effective
//     trials: the interval above with c = Σ scores (a bounded variable's
//     variance is at most μ(1−μ), so it is conservative). It replaced a
//     percentile bootstrap that covered 0.64 for a 0/1 score at n = 10
//     and gave a constant score the interval [1, 1].
//   - cost, tokens and latency: median (stats.Median: the mean of the two
//     middle values at an even count) and 90th percentile (linear
//     interpolation between order statistics, Hyndman & Fan type 7). Cost
//     is over the trials whose cost is known: a model missing from the
//     price table has none, counted in Cell.CostUnknown, never $0.
//
// For a variant over the suite, over its cells that ran (those that did
// not are counted in NotRun and print "not run"): the macro pass rate, the
// mean m of the cells' rates, with the hull of two intervals: the MOVER
// interval of a mean of independent rates (stats.MoverSum; Zou & Donner
// 2008, eq. 4: m ∓ √(Σ (1/S)²(p_s − l_s)²) from the cells' Clopper–Pearson
// limits: the suite's scenarios as they are) and the cluster-robust one
// (stats.ClusteredMeanCI: m ∓ t_{S−1}·√(Σ(m_s − m)²/(S(S−1))): scenarios as
// a sample). It is never narrower than the cells' own evidence: ten
// cells at 10/10 give [0.90, 1.00] and no longer [1.00, 1.00].
//
// # Comparisons
//
// Compare (report compare, eval --baseline) pairs the cells of two reports
// by scenario, case and variant; inside one report each variant is compared
// with the control by scenario and case. Per cell, on the effective
// trials:
//
//   - the change in pass rate with Newcombe's hybrid score interval and
//     the two-sided p-value of Barnard's unconditional exact test
//     (stats.CompareProportions). Barnard's test is chosen over Fisher's
//     because the trials per side are fixed by design and the number of
//     passes is not: Fisher's test conditions on both margins and is
//     conservative at the small n of evals, Barnard's conditions only on
//     the trials and is more powerful at the same level (0.5 against 0.8
//     at n = 50: found in 89% of runs against 85%). Past 2²² tables it
//     gives way to Fisher's, whose conservatism fades with n. A side with
//     no effective trial is "not tested".
//   - the minimum detectable effect (MDE): the smallest change from the
//     base rate found 80% of the time at the two sides' trials (two-sided,
//     α = 0.05; stats.MinimumDetectableEffect, Fleiss, Levin & Paik 2003
//     §4.2 with the continuity correction). At 10 trials a side from 1.0
//     it is 0.64: a cell that holds is not proof of no regression.
//   - cost, tokens and (across reports with timings) latency: the medians,
//     and the Hodges–Lehmann shift new − base (the median of the pairwise
//     differences) with its interval [D₍ₖ₎, D₍ₙ₁ₙ₂₊₁₋ₖ₎], k =
//     ⌊n₁n₂/2 − z√(n₁n₂(n₁+n₂+1)/12)⌋ (stats.HodgesLehmann; Bauer 1972),
//     what the two-sided Mann-Whitney U test beside it tests. Unknown
//     costs are left out and counted; a side with none is not tested.
//   - the change in the mean of each named score both cells have, with a
//     two-sided Mann-Whitney U test on the per-trial scores (a rank test:
//     scores are bounded, often tied and far from normal at the trials an
//     eval runs; stats.MannWhitneyU corrects for ties).
//
// Overall, per variant, over the scenarios both sides ran: the change in
// macro pass rate, the mean over cells of new_s − base_s, with the MOVER
// interval of that mean from each cell's Wilson limits (Newcombe's
// interval extended to S differences with coefficients ±1/S), and the
// Cochran–Mantel–Haenszel test stratified by scenario
// (stats.CochranMantelHaenszel, with the continuity correction, as R's
// mantelhaen.test): χ² = (|Σ(a_s − E_s)| − ½)²/ΣV_s, E_s = n₁ₛmₛ/Tₛ, V_s =
// n₁ₛn₂ₛmₛ(Tₛ−mₛ)/(Tₛ²(Tₛ−1)). Each scenario is compared only with
// itself; two scenarios going 10/10 → 9/10 give p = 0.48, not the paired
// t's p = 0. With one cell, that cell's Barnard test.
//
// Multiplicity. Every test of a report's comparisons is one family: its
// p-values are adjusted by Benjamini–Hochberg (stats.BenjaminiHochberg,
// R's p.adjust "BH") into q, and a change is flagged (Significant; text
// prints "~" otherwise) when q < 0.05. Comparison.Multiplicity states the
// family's size, how many had p < 0.05 and how many remain flagged.
//
// # Gates
//
// Gates decide the exit code, so a healthy run must not fail by chance:
//
//   - pass_rate {min: x} in the eval file breaks only on evidence: the
//     one-sided exact binomial p-value that the rate is at least x
//     (stats.BinomialBelowP, R's binom.test(alternative = "less")), after
//     Holm's correction over every such gate of the report
//     (stats.Holm), is under 0.05. Report.Gates counts them. It used to
//     compare the point estimate: 20 cells truly at 0.85 with min 0.8 then
//     failed 98% of runs.
//   - pass_rate {lower: x} asks for proof: the Clopper–Pearson lower bound
//     must reach x (no correction: each must be shown on its own).
//   - pass@k and pass^k thresholds and --fail-under compare point
//     estimates (their reports say so).
//   - --threshold on a comparison (Threshold): lower/upper bound the change
//     (non-inferiority: 'pass_rate:lower>=-0.05'); delta and ratio break
//     on evidence, Holm over the run's checks. A hold is not proof: each
//     check prints the comparison's MDE.
//
// --plan EFFECT [--plan-base P] prints the trials per cell that find a
// change of EFFECT from P 80% of the time (PlanTrials: the smallest n with
// Φ((δ − (1/n) − z_{1−α/2}√(2p̄q̄/n))/√((p₁q₁ + p₂q₂)/n)) ≥ 0.8, Fleiss'
// continuity-corrected normal approximation) and what the file's trials
// find.
//
// Measured (TestSimulatedGates, 1,000 seeded runs each): 20 cells truly at
// 0.85, 10 trials each, min 0.8: the run fails in 0.2% of runs (point
// estimates: 97.7%); a drop 0.85 → 0.65 at --plan's 83 trials a side is
// caught by Barnard's test in 86.1% of runs.
//
// # Coverage
//
// The coverage of every interval a report prints, over n ∈ {5, 10, 20,
// 50, 100} trials and true values near 0, ½ and 1. Exact (enumerating
// the binomial outcomes) for the pass rate and its change, pinned by
// TestCoverageOfEveryPrintedInterval; by 1,000 seeded simulations for
// the rest, pinned by TestSimulatedCoverage. No interval covers under 0.93
// at n ≥ 10.
//
//	pass rate, Clopper–Pearson     p=0.02  p=0.1   p=0.5   p=0.9   p=0.98
//	  n=5                          0.996   0.991   1.000   0.991   0.996
//	  n=10                         0.984   0.987   0.979   0.987   0.984
//	  n=20                         0.993   0.989   0.959   0.989   0.993
//	  n=50                         0.982   0.970   0.967   0.970   0.982
//	  n=100                        0.985   0.956   0.965   0.956   0.985
//	  (Wilson, replaced: 0.904 at n=5 and p=0.98, 0.922 at n=50 and p=0.02)
//
//	Δ pass rate, Newcombe          .5→.5   .9→.7   .98→.98 .98→.78 .02→.02
//	  n=5                          0.939   0.982   1.000   0.998   1.000
//	  n=10                         0.958   0.953   1.000   0.976   1.000
//	  n=20                         0.957   0.961   1.000   0.975   1.000
//	  n=50                         0.943   0.954   0.998   0.962   0.998
//	  n=100                        0.944   0.951   0.984   0.958   0.984
//
//	score mean, binomialized C–P  Beta(.5,10) Beta(2,2) Beta(10,.5) {0,½,1} 0/1 at .98
//	  n=5                          1.000       1.000     1.000       1.000   0.998
//	  n=10                         1.000       1.000     1.000       0.998   0.991
//	  n=20                         1.000       1.000     1.000       0.989   0.993
//	  n=50                         1.000       1.000     1.000       0.988   0.987
//	  n=100                        1.000       1.000     1.000       0.992   0.984
//	  (conservative for continuous scores, whose variance is well under
//	  μ(1−μ); the percentile bootstrap it replaced covered 0.64 for a 0/1
//	  score at n = 10)
//
//	suite of 10 scenarios, true rates 0.5 … 1, each 0.1 lower on the new side
//	                               n=5    n=10   n=20   n=50   n=100
//	  macro pass rate (hull)       1.000  1.000  1.000  1.000  1.000
//	  overall Δ (MOVER)            0.961  0.970  0.945  0.949  0.954
//	  (the macro interval is conservative for the suite's own scenarios:
//	  its clustered half counts their spread as uncertainty, as it should
//	  for scenarios taken as a sample; the clustered interval alone covered
//	  0.82–0.89 near a ceiling)
//
//	Hodges–Lehmann shift            n=5    n=10   n=20   n=50   n=100
//	  lognormal latency            0.971  0.966  0.948  0.953  0.956
//	  tokens on three values       0.998  0.996  0.999  1.000  1.000
//
// The end-to-end check, TestSimulatedWilsonCoverage: 1,000 simulated evals
// run through harness at p = 0.8, n = 50: 974 covered (exact 0.967).
//
// # Verdicts and exit codes
//
// A cell's verdict is "not run" when no trial ran, "error" when a trial
// could not run, "fail" when one of its thresholds is broken (pass@k with k > n is broken: it cannot be
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
