package eval

import (
	"errors"
	"github.com/agenteval/agenteval/report/evalreport"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/report"
)

// cell makes a cell of n trials, the first passed of which pass, each
// costing cost. Its variant is stochastic (reportOf), so its trials are
// independent draws even when they look alike.
func cell(id, variant string, passed, n int, cost float64) evalreport.Cell {
	c := evalreport.Cell{Scenario: id, ID: id, Variant: variant}
	for i := range n {
		st := report.StatusFail
		if i < passed {
			st = report.StatusPass
		}
		c.Trials = append(c.Trials, evalreport.Trial{Index: i + 1, Status: st, Usage: report.Usage{CostUSD: cost, CostKnown: true, TotalTokens: 100}})
	}
	return c
}

func reportOf(cells ...evalreport.Cell) *evalreport.Report {
	r := &evalreport.Report{Schema: evalreport.Schema, Eval: "t", TrialsPerCell: 10, Control: "a", Variants: []evalreport.VariantInfo{{Name: "a", Overrides: []string{"stochastic"}}}, Cells: cells}
	Recompute(r)
	return r
}

func TestParseThreshold(t *testing.T) {
	tests := []struct {
		reason, in string
		want       Threshold
		err        string
	}{
		{reason: "the overall pass rate, as the issue writes it", in: "pass_rate:delta>=-0.05",
			want: Threshold{Source: "pass_rate:delta>=-0.05", Metric: "pass_rate", Aggregate: "delta", Op: ">=", Value: -0.05}},
		{reason: "a scope selects cells", in: " cost_usd[react/weather × a]:ratio<=1.2 ",
			want: Threshold{Source: "cost_usd[react/weather × a]:ratio<=1.2", Metric: "cost_usd", Scope: "react/weather × a", Aggregate: "ratio", Op: "<=", Value: 1.2}},
		{reason: "an unknown metric is named", in: "speed:delta>=0", err: `unknown metric "speed"`},
		{reason: "an unknown aggregate is named", in: "pass_rate:median>=0", err: `unknown aggregate "median"`},
		{reason: "tokens have no overall value", in: "tokens:ratio<=1", err: "tokens[*]"},
		{reason: "garbage shows the grammar", in: "pass_rate >= 0.9", err: "expected METRIC[SCOPE]:AGGREGATE OP NUMBER"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			got, err := ParseThreshold(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseThreshold(%q) error = %v, want one containing %q", tc.in, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseThreshold(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestCompareAndCheck(t *testing.T) {
	base := reportOf(cell("s1", "a", 10, 10, 0.01), cell("s2", "a", 9, 10, 0.01), cell("gone", "a", 5, 10, 0.01))
	cur := reportOf(cell("s1", "a", 3, 10, 0.02), cell("s2", "a", 9, 10, 0.01), cell("new", "a", 5, 10, 0.01))
	c := Compare(base, cur, "base.json", "new.json")
	if diff := cmp.Diff([]string{"gone × a"}, c.OnlyBase); diff != "" {
		t.Errorf("OnlyBase mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"new × a"}, c.OnlyNew); diff != "" {
		t.Errorf("OnlyNew mismatch (-want +got):\n%s", diff)
	}
	s1 := c.Cells[0]
	if s1.ID != "s1" || !s1.PassRate.Significant || s1.PassRate.Test != "barnard" || math.Abs(s1.PassRate.Delta+0.7) > 1e-12 {
		t.Errorf("s1: %+v, want a significant drop of 0.7 by Barnard's test", s1.PassRate)
	}
	if !s1.CostUSD.Significant || s1.CostUSD.Ratio != 2 {
		t.Errorf("s1 cost: %+v, want a significant doubling", s1.CostUSD)
	}
	if s2 := c.Cells[1]; s2.PassRate.Significant || s2.PassRate.P != 1 {
		t.Errorf("s2: %+v, want no change, p = 1", s2.PassRate)
	}
	tests := []struct {
		reason    string
		threshold string
		wantPass  []bool
		wantWhy   string
		err       error
	}{
		{"a significant per-cell drop breaks a delta threshold", "pass_rate[s1]:delta>=-0.1", []bool{false}, "", nil},
		{"an unchanged cell holds", "pass_rate[s2 × a]:delta>=0", []bool{true}, "", nil},
		{"'*' checks every paired cell", "pass_rate[*]:new>=0.5", []bool{false, true}, "", nil},
		{"overall, the drop in one of two scenarios shows a breach (CMH-consistent MOVER bound)", "pass_rate:delta>=-0.1", []bool{false}, "evidence it is broken", nil},
		{"non-inferiority: the one-sided bound of s2's unchanged rate is not within 0.05 at n = 10", "pass_rate[s2]:lower>=-0.05", []bool{false}, "one-sided 95% bound", nil},
		{"a loose non-inferiority margin is shown", "pass_rate[s2]:lower>=-0.5", []bool{true}, "MDE", nil},
		{"the new side's level is checked as it is, significant or not", "pass_rate:new>=0.9", []bool{false}, "", nil},
		{"a doubled cost breaks a ratio threshold", "cost_usd[s1]:ratio<=1.5", []bool{false}, "", nil},
		{"a threshold that selects nothing is an error, not a pass", "pass_rate[nope]:delta>=0", nil, "", ErrThresholdMatchesNothing},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			th, err := ParseThreshold(tc.threshold)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Check(c, []Threshold{th})
			if !errors.Is(err, tc.err) {
				t.Fatalf("Check error = %v, want %v", err, tc.err)
			}
			var got []bool
			for _, r := range res {
				got = append(got, r.Pass)
				if tc.wantWhy != "" && !strings.Contains(r.Why, tc.wantWhy) {
					t.Errorf("Why = %q, want %q", r.Why, tc.wantWhy)
				}
			}
			if diff := cmp.Diff(tc.wantPass, got); diff != "" {
				t.Errorf("Check(%s) mismatch (-want +got):\n%s", tc.threshold, diff)
			}
		})
	}
}

func TestCellStatistics(t *testing.T) {
	c := cell("s", "a", 7, 10, 0)
	c.Thresholds = &evalreport.Thresholds{PassRate: &evalreport.MinThreshold{Min: 0.8}, PassAt: &evalreport.KThreshold{K: 3, Min: 0.95}, PassHat: &evalreport.KThreshold{K: 20, Min: 0}}
	c.Trials[9].Status = report.StatusError
	computeCell(&c, true)
	if v := cellVerdict(&c, nil); c.N != 10 || c.Passed != 7 || c.Errored != 1 || c.EffectiveN != 9 || v != "error" {
		t.Errorf("counts: n %d passed %d errored %d effective %d verdict %s", c.N, c.Passed, c.Errored, c.EffectiveN, v)
	}
	// the errored trial is left out: pass@3 = 1 − C(2,3)/C(9,3) = 1;
	// pass^3 = C(7,3)/C(9,3) = 35/84
	want := []evalreport.KValue{{K: 1, Value: 7.0 / 9}, {K: 3, Value: 1}, {K: 5, Value: 1}}
	if diff := cmp.Diff(want, c.PassAt, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
		t.Errorf("pass@k mismatch (-want +got):\n%s", diff)
	}
	if got := c.PassHat[1].Value; math.Abs(got-35.0/84) > 1e-12 {
		t.Errorf("pass^3 = %v, want 35/84", got)
	}
	res := cellThresholds(&c)
	got := []bool{res[0].Pass, res[1].Pass, res[2].Pass}
	// 7 of the 9 that ran is no evidence of a rate under 0.8 (decided
	// with the others, under Holm); pass@3 over the 9 that ran ≥ 0.95;
	// pass^20 cannot be estimated from 9 trials
	if diff := cmp.Diff([]bool{true, true, false}, got); diff != "" {
		t.Errorf("thresholds mismatch (-want +got):\n%s", diff)
	}
}
