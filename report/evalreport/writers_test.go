package evalreport

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"

	"github.com/agenteval/agenteval/report"
)

// fixture is a small eval report as package eval fills one: two variants
// of two scenarios, one scored by graders, a comparison with the control,
// thresholds (one broken), a budget that stopped the run and timings.
func fixture() *Report {
	trial := func(i int, st report.Status, scores ...Score) Trial {
		return Trial{Index: i, Status: st, Scores: scores, Usage: report.Usage{ModelCalls: 2, TotalTokens: 300, CostUSD: 0.001}, Timing: &TrialTiming{WallMS: 1.5}}
	}
	held := func(name string, ok bool) Score {
		if ok {
			return Score{Name: name, Value: 1}
		}
		return Score{Name: name, Value: 0}
	}
	cellScores := func(judge, traj float64) []ScoreStat {
		return []ScoreStat{
			{Name: "final", N: 3, Interval: Interval{Value: traj, Lo: 0, Hi: 1}},
			{Name: "forecast checked", Grader: "trajectory_score", N: 3, Interval: Interval{Value: traj, Lo: traj / 2, Hi: 1}},
			{Name: "graders[1] (judge)", Grader: "judge", N: 3, Interval: Interval{Value: judge, Lo: judge / 2, Hi: judge}},
		}
	}
	th := &Thresholds{PassRate: &MinThreshold{Min: 0.5}}
	return &Report{
		Schema: Schema, Eval: "fixture", File: "evals/fixture.yaml", TrialsPerCell: 3, Seed: 7, Control: "base",
		Variants: []VariantInfo{{Name: "base"}, {Name: "terse", Description: "a terse prompt", Overrides: []string{"prompt"}}},
		Budget:   &Budget{MaxTrials: 11, SpentUSD: 0.011, Run: 11, Stopped: true, Unrun: 1, Reason: "--max-trials 11 reached"},
		Cells: []Cell{
			{Scenario: "forecast", ID: "forecast", Variant: "base", N: 3, Passed: 3, EffectiveN: 1, EffectivePassed: 1, Copies: "deterministic: 3 identical trials count as 1", PassRate: Interval{Value: 1, Lo: 0.025, Hi: 1},
				PassAt: []KValue{{K: 1, Value: 1}, {K: 3, Value: 1}}, PassHat: []KValue{{K: 1, Value: 1}, {K: 3, Value: 1}},
				Scores: cellScores(1, 1), CostUSD: Spread{Median: 0.001, P90: 0.001}, Tokens: Spread{Median: 300, P90: 300}, Thresholds: th, Verdict: "pass",
				Trials: []Trial{
					trial(1, report.StatusPass, held("final", true), Score{Name: "forecast checked", Value: 1, Grader: "trajectory_score"}, Score{Name: "graders[1] (judge)", Value: 1, Grader: "judge"}),
					trial(2, report.StatusPass, held("final", true), Score{Name: "forecast checked", Value: 1, Grader: "trajectory_score"}, Score{Name: "graders[1] (judge)", Value: 1, Grader: "judge"}),
					trial(3, report.StatusPass, held("final", true), Score{Name: "forecast checked", Value: 1, Grader: "trajectory_score"}, Score{Name: "graders[1] (judge)", Value: 1, Grader: "judge"}),
				},
				Timing: &CellTiming{LatencyMS: Spread{Median: 1.5, P90: 1.5}}},
			{Scenario: "forecast", ID: "forecast", Variant: "terse", N: 3, Passed: 1, EffectiveN: 3, EffectivePassed: 1, PassRate: Interval{Value: 1.0 / 3, Lo: 0.008, Hi: 0.906},
				Scores: cellScores(0.5, 1.0/3), Thresholds: th, Verdict: "fail",
				Trials: []Trial{
					trial(1, report.StatusPass, held("final", true), Score{Name: "forecast checked", Value: 1, Grader: "trajectory_score"}, Score{Name: "graders[1] (judge)", Value: 1, Grader: "judge"}),
					trial(2, report.StatusFail, held("final", false), Score{Name: "forecast checked", Value: 0, Grader: "trajectory_score"}, Score{Name: "graders[1] (judge)", Value: 0.5, Grader: "judge"}),
					trial(3, report.StatusFail, held("final", false), Score{Name: "forecast checked", Value: 0, Grader: "trajectory_score"}, Score{Name: "graders[1] (judge)", Value: 0, Grader: "judge"}),
				}},
			{Scenario: "capital", Case: "Peru", ID: "capital[Peru]", Variant: "base", N: 3, Passed: 3, EffectiveN: 3, EffectivePassed: 3, PassRate: Interval{Value: 1, Lo: 0.292, Hi: 1},
				Scores: []ScoreStat{{Name: "final", N: 3, Interval: Interval{Value: 1, Lo: 1, Hi: 1}}}, Verdict: "pass",
				Trials: []Trial{trial(1, report.StatusPass, held("final", true)), trial(2, report.StatusPass, held("final", true)), trial(3, report.StatusPass, held("final", true))}},
			{Scenario: "capital", Case: "Peru", ID: "capital[Peru]", Variant: "terse", N: 2, Passed: 1, Errored: 1, EffectiveN: 1, EffectivePassed: 1, PassRate: Interval{Value: 1, Lo: 0.025, Hi: 1},
				Scores: []ScoreStat{{Name: "final", N: 1, Interval: Interval{Value: 1, Lo: 1, Hi: 1}}}, Verdict: "error",
				Trials: []Trial{trial(1, report.StatusPass, held("final", true)), {Index: 2, Status: report.StatusError, Message: "capital[Peru] × terse trial 2: cassettes/capital/Peru/terse/trial-2.yaml: cassette not found"}}},
			{Scenario: "weather", ID: "weather", Variant: "base", Verdict: "not run"},
			{Scenario: "weather", ID: "weather", Variant: "terse", Verdict: "not run"},
		},
		Suite: []VariantSummary{
			{Variant: "base", Cells: 2, Trials: 6, NotRun: 1, MacroPassRate: Interval{Value: 1, Lo: 0.31, Hi: 1}, CostUSD: 0.006},
			{Variant: "terse", Cells: 2, Trials: 5, NotRun: 1, MacroPassRate: Interval{Value: 0.67, Lo: 0.08, Hi: 0.96}, CostUSD: 0.004, CostUnknown: 1},
		},
		Comparisons: []Comparison{{Base: "base", New: "terse",
			Cells: []CellDelta{
				{ID: "capital[Peru]", Variant: "terse", PassRate: RateDelta{BasePassed: 3, BaseN: 3, NewPassed: 1, NewN: 1, NewErrored: 1, Base: 1, New: 1, Delta: 0, Lo: -0.71, Hi: 0.56, P: 1, Q: 1, Test: "barnard", MDE: 1},
					Scores: []ScoreDelta{{Name: "final", Base: 1, New: 1, P: 1}}},
				{ID: "forecast", Variant: "terse", PassRate: RateDelta{BasePassed: 1, BaseN: 1, NewPassed: 1, NewN: 3, Base: 1, New: 1.0 / 3, Delta: -2.0 / 3, Lo: -0.94, Hi: 0.4, P: 0.5, Q: 1, Test: "barnard", MDE: 1},
					CostUSD: MedianDelta{Base: 0.001, New: 0.002, Ratio: 2, Shift: 0.001, ShiftLo: 0.0005, ShiftHi: 0.0015, P: 0.01, Q: 0.04, Significant: true},
					Tokens:  MedianDelta{Untested: true, Unknown: 4},
					Scores: []ScoreDelta{{Name: "final", Base: 1, New: 1.0 / 3, Delta: -2.0 / 3, P: 0.1}, {Name: "forecast checked", Grader: "trajectory_score", Base: 1, New: 1.0 / 3, Delta: -2.0 / 3, P: 0.1},
						{Name: "graders[1] (judge)", Grader: "judge", Base: 1, New: 0.5, Delta: -0.5, P: 0.08}}},
			},
			Overall:      []OverallDelta{{Variant: "terse", Cells: 2, Base: 1, New: 0.67, Delta: -0.33, Lo: -0.8, Hi: 0.3, P: 0.6, Q: 1, Test: "cmh", MDE: 0.9}},
			Multiplicity: &Multiplicity{Tests: 9, Uncorrected: 2, Flagged: 1, Method: "benjamini-hochberg"},
		}},
		Thresholds: []ThresholdResult{
			{Scope: "forecast × base", Threshold: "pass_rate >= 0.5", Got: 1, Pass: true},
			{Scope: "forecast × terse", Threshold: "pass_rate >= 0.5", Got: 1.0 / 3},
		},
		Timing: &RunTiming{WallMS: 12, Parallel: 2, TrialsPerSecond: 916.7},
	}
}

// updating reports whether goldie's -update flag (goldie declares it) is set:
// golden subtests do not run in parallel while they rewrite files.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// TestWritersGolden keeps every writer's output for the fixture as a
// reviewable golden file under testdata (go test -update rewrites them).
func TestWritersGolden(t *testing.T) {
	r := fixture()
	tests := []struct {
		reason, name string
		write        func(*bytes.Buffer) error
	}{
		{"the JSON is the record other programs read", "fixture.json", func(b *bytes.Buffer) error { return WriteJSON(b, r) }},
		{"the terminal grid shows pass rates and the graders' scores", "fixture.txt", func(b *bytes.Buffer) error { return WriteText(b, r) }},
		{"the pull-request comment shows the grid, the graders' scores and, folded, the others'", "fixture.md", func(b *bytes.Buffer) error { return WriteMarkdown(b, r) }},
		{"the page shows the grid and every score with interval bars", "fixture.html", func(b *bytes.Buffer) error { return WriteHTML(b, r) }},
		{"JUnit has a test case per scenario × variant, the graders' scores in system-out", "fixture.junit.xml", func(b *bytes.Buffer) error { return WriteJUnit(b, r) }},
		{"report compare's table has a second table for the named scores", "fixture.compare.txt", func(b *bytes.Buffer) error { return WriteComparison(b, r.Comparisons[0]) }},
	}
	g := goldie.New(t, goldie.WithFixtureDir("testdata"), goldie.WithNameSuffix(".golden"))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !updating() {
				t.Parallel()
			}
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			g.Assert(t, tc.name, b.Bytes())
		})
	}
}

// TestJSONRoundTrip: what WriteJSON writes, ReadJSON reads back the same;
// StripTiming removes the wall-clock data and nothing else.
func TestJSONRoundTrip(t *testing.T) {
	r := fixture()
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, back); diff != "" {
		t.Errorf("ReadJSON(WriteJSON(r)) mismatch (-want +got):\n%s", diff)
	}
	s := StripTiming(r)
	if s.Timing != nil || s.Cells[0].Timing != nil || s.Cells[0].Trials[0].Timing != nil {
		t.Errorf("StripTiming left timings")
	}
	if r.Cells[0].Trials[0].Timing == nil {
		t.Errorf("StripTiming changed its argument")
	}
	s.Timing, s.Cells = r.Timing, r.Cells
	if diff := cmp.Diff(r, s); diff != "" {
		t.Errorf("StripTiming changed more than timings (-want +got):\n%s", diff)
	}
}

func TestReadJSONIsStrict(t *testing.T) {
	tests := []struct {
		reason, in, want string
	}{
		{"another schema is refused", `{"schema": "agenteval.report/v1"}`, `schema "agenteval.report/v1": expected "agenteval.eval/v1"`},
		{"an unknown field is refused, not dropped", `{"schema": "agenteval.eval/v1", "cels": []}`, `unknown field "cels"`},
		{"a score of the wrong type is refused", `{"schema": "agenteval.eval/v1", "cells": [{"scores": [{"name": "x", "value": "high"}]}]}`, "cannot unmarshal string"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadJSON(%s) = %v, want an error containing %q", tc.in, err, tc.want)
			}
		})
	}
}

func TestWritersEscape(t *testing.T) {
	r := fixture()
	r.Cells[0].ID = "a|b<script>"
	r.Cells[1].ID = "a|b<script>"
	r.Cells[0].Scores[1].Name = "x|<b>"
	r.Cells[1].Scores[1].Name = "x|<b>"
	r.Thresholds[0].Scope, r.Thresholds[1].Scope = "a|b<script> × base", "a|b<script> × terse"
	tests := []struct {
		reason string
		write  func(*bytes.Buffer) error
		want   []string
		absent []string
	}{
		{"a pipe or a tag in a scenario or score name must not break the Markdown tables", func(b *bytes.Buffer) error { return WriteMarkdown(b, r) },
			[]string{`| a\|b&lt;script&gt; | 1.00 [0.03, 1.00] (n_eff 1 of 3) | 0.33 [0.01, 0.91] ❌ |`, `| a\|b&lt;script&gt; | x\|&lt;b&gt; (trajectory_score) |`, "## eval fixture: ❌"}, []string{"<script>", "<b>"}},
		{"the HTML page escapes names and has no external resource", func(b *bytes.Buffer) error { return WriteHTML(b, r) },
			[]string{"a|b&lt;script&gt;", "x|&lt;b&gt; (trajectory_score)", `class="ci"`}, []string{"<script>", "<b>", "http://", "https://"}},
		{"JUnit has one test case per scenario × variant, failed by its threshold", func(b *bytes.Buffer) error { return WriteJUnit(b, r) },
			[]string{`tests="6" failures="1" errors="1"`, `<skipped message="not run">`, `<failure message="pass_rate &gt;= 0.5: got 0.333">`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(b.String(), a) {
					t.Errorf("output holds %q:\n%s", a, b.String())
				}
			}
		})
	}
	var b bytes.Buffer
	if err := WriteJUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b.Bytes(), new(junitSuites)); err != nil {
		t.Errorf("JUnit is not well-formed: %v", err)
	}
}

// TestWriteDir: --report-dir's four files, each what its writer writes,
// and the JSON reads back.
func TestWriteDir(t *testing.T) {
	dir := t.TempDir()
	r := fixture()
	if err := WriteDir(filepath.Join(dir, "new"), r); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		var want bytes.Buffer
		if err := f.Write(&want, r); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "new", f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s differs from its writer's output", f.Name)
		}
	}
	back, err := ReadJSONFile(filepath.Join(dir, "new", "eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, back); diff != "" {
		t.Errorf("eval.json read back mismatch (-want +got):\n%s", diff)
	}
	if _, err := ReadJSONFile(filepath.Join(dir, "new", "eval.md")); err == nil || !strings.Contains(err.Error(), "eval.md") {
		t.Errorf("ReadJSONFile(eval.md) = %v, want an error naming the file", err)
	}
}
