package evalreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/agenteval/agenteval/report"
)

// Schema is the version of the eval report's JSON layout.
const Schema = "agenteval.eval/v1"

// Report is one eval run: every trial, and the statistics derived from
// them. Everything but the Timing fields is byte-identical for the same
// eval file, scenarios and cassettes at any parallelism; StripTiming removes
// those.
type Report struct {
	// Schema is always evalreport.Schema.
	Schema string `json:"schema"`
	// Eval names the eval; File is the eval file's path.
	Eval string `json:"eval"`
	File string `json:"file,omitempty"`
	// TrialsPerCell is the trials asked for per scenario × variant.
	TrialsPerCell int `json:"trials_per_cell"`
	// Seed seeded the bootstrap intervals.
	Seed uint64 `json:"seed"`
	// Control is the variant the others are compared with.
	Control string `json:"control"`
	// Variants describe the variants, in file order.
	Variants []VariantInfo `json:"variants"`
	// Shards are the "k/n" shards the report holds; empty for a whole run.
	Shards []string `json:"shards,omitempty"`
	// Budget says whether a budget stopped the run.
	Budget *Budget `json:"budget,omitempty"`
	// Cells are the scenario × variant results, sorted by scenario, case
	// and then variant in file order.
	Cells []Cell `json:"cells"`
	// Suite is each variant over the whole suite, in file order.
	Suite []VariantSummary `json:"suite"`
	// Comparisons compare each variant with the control.
	Comparisons []Comparison `json:"comparisons,omitempty"`
	// FailUnder is --fail-under: the macro pass rate every variant must
	// reach; 0 for none.
	FailUnder float64 `json:"fail_under,omitempty"`
	// Thresholds are the file's and the run's thresholds, checked.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`
	// Gates says how the thresholds that test (a pass_rate min) were
	// corrected for their number.
	Gates *Multiplicity `json:"gates,omitempty"`
	// Timing is wall-clock data, kept apart so that reports compare.
	Timing *RunTiming `json:"timing,omitempty"`
}

// VariantInfo describes a variant.
type VariantInfo struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Overrides names what the variant changes ("prompt", "model", ...).
	Overrides []string `json:"overrides,omitempty"`
	Model     string   `json:"model,omitempty"`
	// Warning, when set, says why the variant cannot differ from the
	// control but by chance (eval.Plan.Warnings).
	Warning string `json:"warning,omitempty"`
}

// Budget is what a --max-cost or --max-trials budget did.
type Budget struct {
	MaxCostUSD float64 `json:"max_cost_usd,omitempty"`
	MaxTrials  int     `json:"max_trials,omitempty"`
	// SpentUSD is the cost of the trials run; Run their number.
	SpentUSD float64 `json:"spent_usd"`
	Run      int     `json:"trials_run"`
	// Stopped is true when trials were left unrun; Unrun counts them and
	// Reason says which budget ran out.
	Stopped bool   `json:"stopped"`
	Unrun   int    `json:"trials_unrun,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// RunTiming is the wall-clock side of a run.
type RunTiming struct {
	WallMS          float64 `json:"wall_ms"`
	Parallel        int     `json:"parallel"`
	TrialsPerSecond float64 `json:"trials_per_s"`
}

// Cell is one scenario (one case of it) under one variant.
type Cell struct {
	// Scenario is the scenario's name, Case the dataset case ("" for
	// none); ID is "scenario" or "scenario[case]".
	Scenario string `json:"scenario"`
	Case     string `json:"case,omitempty"`
	ID       string `json:"id"`
	Variant  string `json:"variant"`
	// N is the trials run; Passed those whose every expectation held;
	// Errored those that could not run: nothing about the agent was
	// measured, so they are left out of the pass rate and its tests.
	N       int `json:"n"`
	Passed  int `json:"passed"`
	Errored int `json:"errored"`
	// EffectiveN is the independent trials among those that completed:
	// copies (a deterministic agent's identical trials, byte-identical
	// trial cassettes) count once. EffectivePassed is how many of them
	// passed. Copies says why EffectiveN is below N − Errored; empty
	// when it is not.
	EffectiveN      int    `json:"effective_n"`
	EffectivePassed int    `json:"effective_passed"`
	Copies          string `json:"copies,omitempty"`
	// PassRate is EffectivePassed/EffectiveN with its Clopper–Pearson 95%
	// interval; zero for a cell with no completed trial (see Verdict).
	PassRate Interval `json:"pass_rate"`
	// PassAt and PassHat are pass@k and pass^k for k = 1, 3, 5, 10 (those
	// ≤ N), by the unbiased estimators.
	PassAt  []KValue `json:"pass_at,omitempty"`
	PassHat []KValue `json:"pass_hat,omitempty"`
	// Scores are the mean of each named score (expectations, invariants
	// and graders) with a bootstrap 95% interval, by name.
	Scores []ScoreStat `json:"scores,omitempty"`
	// CostUSD and Tokens are the median and 90th percentile per trial;
	// CostUSD over the trials whose cost is known (a model missing from
	// the price table has none), CostUnknown counting the others.
	CostUSD     Spread `json:"cost_usd"`
	CostUnknown int    `json:"cost_unknown,omitempty"`
	Tokens      Spread `json:"tokens"`
	// Thresholds are the eval file's thresholds for the cell.
	Thresholds *Thresholds `json:"thresholds,omitempty"`
	// Verdict is "pass" when every threshold of the cell held, "fail"
	// when one did not, "error" when a trial errored, "not run" when no
	// trial ran (a budget or a shard left it out).
	Verdict string `json:"verdict"`
	// Trials are every trial, by index.
	Trials []Trial `json:"trials"`
	// Timing holds the latency, wall-clock data.
	Timing *CellTiming `json:"timing,omitempty"`
}

// CellTiming is the wall-clock side of a cell.
type CellTiming struct {
	LatencyMS Spread `json:"latency_ms"`
}

// Interval is an estimate with its 95% interval.
type Interval struct {
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
}

// Multiplicity says how many tests a family held and how their flags were
// corrected for it.
type Multiplicity struct {
	// Tests is the number of tests in the family.
	Tests int `json:"tests"`
	// Uncorrected is how many had p < 0.05; Flagged how many remain after
	// Method ("benjamini-hochberg" for the exploratory flags, "holm" for
	// gates).
	Uncorrected int    `json:"uncorrected"`
	Flagged     int    `json:"flagged"`
	Method      string `json:"method"`
}

// KValue is pass@k or pass^k at one k.
type KValue struct {
	K     int     `json:"k"`
	Value float64 `json:"value"`
}

// ScoreStat is one named score's mean over the trials that have it (a
// trial that could not run has none) with its 95% interval: the
// binomialized Clopper–Pearson interval of the mean of a score in [0, 1]
// over the effective trials (see the eval package doc).
type ScoreStat struct {
	Name string `json:"name"`
	// Grader is the grader's kind ("judge", "trajectory_score", ...) for
	// a grader's score; empty for an expectation's or invariant's, which
	// score 0 or 1.
	Grader string `json:"grader,omitempty"`
	// N is the trials that have the score; EffectiveN those that are not
	// copies.
	N          int `json:"n"`
	EffectiveN int `json:"effective_n"`
	Interval
}

// Spread is the median and 90th percentile of a per-trial quantity.
type Spread struct {
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
}

// Trial is one trial's outcome.
type Trial struct {
	// Index is 1-based.
	Index int `json:"index"`
	// Status is pass, fail or error (the trial could not run).
	Status report.Status `json:"status"`
	// Message is the first thing that failed, or the error.
	Message string `json:"message,omitempty"`
	// Scores are each expectation's, invariant's and grader's score in
	// [0, 1], in check order; a trial that could not run has none.
	Scores []Score `json:"scores,omitempty"`
	// Final is the last AI message's text.
	Final string       `json:"final,omitempty"`
	Usage report.Usage `json:"usage"`
	// Cassette is the trial's cassette, for provider models, and
	// CassetteSHA256 the SHA-256 of its bytes: two trials with one hash
	// replay the same recording and count once (Cell.EffectiveN).
	Cassette       string `json:"cassette,omitempty"`
	CassetteSHA256 string `json:"cassette_sha256,omitempty"`
	// Timing is wall-clock data.
	Timing *TrialTiming `json:"timing,omitempty"`
}

// TrialTiming is the wall-clock side of a trial.
type TrialTiming struct {
	WallMS float64 `json:"wall_ms"`
}

// Score is one named score of a trial, in [0, 1]: a grader's score, or
// 1 or 0 for an expectation or invariant that held or not.
type Score struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Grader is the grader's kind for a grader's score; empty otherwise.
	Grader string `json:"grader,omitempty"`
}

// VariantSummary is a variant over the whole suite.
type VariantSummary struct {
	Variant string `json:"variant"`
	// Cells and Trials count what ran.
	Cells  int `json:"cells"`
	Trials int `json:"trials"`
	// MacroPassRate is the mean over scenarios (cells) of their pass rates
	// with a 95% interval never narrower than the cells' own evidence
	// (see the eval package doc); with one cell, that cell's interval.
	// Cells that never ran are left out.
	MacroPassRate Interval `json:"macro_pass_rate"`
	// NotRun counts the variant's cells with no completed trial.
	NotRun int `json:"not_run,omitempty"`
	// CostUSD is the total cost of the variant's trials whose cost is
	// known; CostUnknown counts the others.
	CostUSD     float64 `json:"cost_usd"`
	CostUnknown int     `json:"cost_unknown,omitempty"`
}

// ThresholdResult is one threshold checked.
type ThresholdResult struct {
	// Scope is a cell ID × variant ("react/weather × terse") or a variant
	// for run thresholds.
	Scope string `json:"scope"`
	// Threshold is as written ("pass_rate >= 0.8").
	Threshold string  `json:"threshold"`
	Got       float64 `json:"got"`
	Pass      bool    `json:"pass"`
	// P is, for a gate that tests (pass_rate min), the one-sided p-value
	// of the evidence that the threshold is broken, and PAdjusted it after
	// Holm's correction over every such gate of the report.
	P         float64 `json:"p,omitempty"`
	PAdjusted float64 `json:"p_adjusted,omitempty"`
	// Why says how the threshold was decided.
	Why string `json:"why,omitempty"`
}

// Thresholds are the levels a scenario × variant must reach; every set
// field is one threshold.
type Thresholds struct {
	PassRate *MinThreshold `json:"pass_rate,omitempty"`
	PassAt   *KThreshold   `json:"pass_at,omitempty"`
	PassHat  *KThreshold   `json:"pass_hat,omitempty"`
}

// MinThreshold bounds a pass rate. Min breaks only on evidence: when the
// one-sided exact binomial test that the rate is at least Min rejects
// after Holm's correction over every such gate. Lower asks for proof: the
// rate's 95% Clopper–Pearson lower bound must reach it.
type MinThreshold struct {
	Min   float64 `json:"min,omitempty"`
	Lower float64 `json:"lower,omitempty"`
}

// KThreshold asks for pass@k (or pass^k) of at least Min.
type KThreshold struct {
	K   int     `json:"k"`
	Min float64 `json:"min"`
}

// Failed reports whether the run failed: a broken threshold or a trial
// that could not run.
func (r *Report) Failed() bool {
	for _, t := range r.Thresholds {
		if !t.Pass {
			return true
		}
	}
	for _, c := range r.Cells {
		if c.Errored > 0 {
			return true
		}
	}
	return false
}

// WriteJSON writes the report as indented JSON. NaNs (an estimate with no
// data) are written as null.
func WriteJSON(w io.Writer, r *Report) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write eval report: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteJSONValue writes any value as WriteJSON writes a report.
func WriteJSONValue(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// ReadJSON reads a report that WriteJSON wrote, strictly: unknown fields or
// another schema are errors.
func ReadJSON(rd io.Reader) (*Report, error) {
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("read eval report: %w", err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("read eval report: schema %q: expected %q", r.Schema, Schema)
	}
	return &r, nil
}

// StripTiming returns a copy of the report without its wall-clock fields.
func StripTiming(r *Report) *Report {
	c := *r
	c.Timing = nil
	c.Cells = slices.Clone(r.Cells)
	for i := range c.Cells {
		c.Cells[i].Timing = nil
		c.Cells[i].Trials = slices.Clone(c.Cells[i].Trials)
		for j := range c.Cells[i].Trials {
			c.Cells[i].Trials[j].Timing = nil
		}
	}
	return &c
}
