package eval

import (
	"strings"
	"testing"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
)

// twoVariants is a report of control a and variant b over the cells,
// every variant stochastic (independent trials) unless deterministic.
func twoVariants(deterministic bool, cells ...evalreport.Cell) *evalreport.Report {
	ov := []string{"stochastic"}
	if deterministic {
		ov = nil
	}
	r := &evalreport.Report{Schema: evalreport.Schema, Eval: "t", TrialsPerCell: 10, Control: "a",
		Variants: []evalreport.VariantInfo{{Name: "a", Overrides: ov}, {Name: "b", Overrides: ov}}, Cells: cells}
	Recompute(r)
	return r
}

// TestIssue30Bugs pins B1–B5 and the methodology items of issue 30; each
// case failed before the change it names.
func TestIssue30Bugs(t *testing.T) {
	t.Parallel()
	text := func(r *evalreport.Report) string {
		var b strings.Builder
		if err := evalreport.WriteText(&b, r); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	cases := []struct {
		why   string
		check func() string // "" when the behaviour holds, else what is wrong
	}{
		{"B1: two scenarios 10/10 → 9/10 are not p = 0 with a zero-width interval (was the paired t)", func() string {
			r := twoVariants(false, cell("s1", "a", 10, 10, 0), cell("s1", "b", 9, 10, 0), cell("s2", "a", 10, 10, 0), cell("s2", "b", 9, 10, 0))
			o := r.Comparisons[0].Overall[0]
			if o.Test != "cmh" || o.P < 0.4 || o.Hi-o.Lo < 0.1 || o.Significant {
				return "overall " + strings.TrimSpace(text(r))
			}
			return ""
		}},
		{"B2: the median cost at an even n is the mean of the two middle values", func() string {
			c := cell("s", "a", 4, 4, 0)
			for i, v := range []float64{1, 2, 3, 4} {
				c.Trials[i].Usage.CostUSD = v
			}
			computeCell(&c, true)
			if c.CostUSD.Median != 2.5 {
				return "median " + num(c.CostUSD.Median)
			}
			return ""
		}},
		{"B3: a cell that never ran is left out of the overall change and prints 'not run'", func() string {
			r := twoVariants(false, cell("s1", "a", 9, 10, 0), cell("s1", "b", 9, 10, 0), cell("s2", "a", 9, 10, 0), evalreport.Cell{ID: "s2", Scenario: "s2", Variant: "b"})
			o := r.Comparisons[0].Overall[0]
			out := text(r)
			if o.Cells != 1 || o.New != 0.9 || !strings.Contains(out, "not run") || strings.Contains(out, "0/0") || r.Suite[1].NotRun != 1 {
				return out
			}
			return ""
		}},
		{"B4: ten cells at 10/10 do not give a macro interval [1, 1]; a constant score gets a real interval", func() string {
			var cells []evalreport.Cell
			for _, id := range []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"} {
				c := cell(id, "a", 10, 10, 0)
				for i := range c.Trials {
					c.Trials[i].Scores = []evalreport.Score{{Name: "final", Value: 1}}
				}
				cells = append(cells, c)
			}
			r := reportOf(cells...)
			m := r.Suite[0].MacroPassRate
			s := r.Cells[0].Scores[0]
			if m.Lo > 0.91 || m.Lo < 0.89 || s.Lo > 0.7 || s.Hi != 1 {
				return "macro " + intervalString(m) + ", score " + intervalString(s.Interval)
			}
			return ""
		}},
		{"B5: unknown costs are not $0: left out, counted, never significant", func() string {
			b, n := cell("s", "a", 5, 10, 0), cell("s", "b", 5, 10, 0.000165)
			for i := range b.Trials {
				b.Trials[i].Usage.CostKnown = false
			}
			r := twoVariants(false, b, n)
			d := r.Comparisons[0].Cells[0].CostUSD
			if !d.Untested || d.Significant || d.Unknown != 10 || r.Suite[0].CostUnknown != 10 {
				return "cost " + strings.TrimSpace(text(r))
			}
			return ""
		}},
		{"errored trials are left out of the pass-rate comparison and counted", func() string {
			b, n := cell("s", "a", 10, 10, 0), cell("s", "b", 10, 10, 0)
			for i := range n.Trials[:5] {
				n.Trials[i].Status = report.StatusError
			}
			r := twoVariants(false, b, n)
			d := r.Comparisons[0].Cells[0].PassRate
			if d.NewN != 5 || d.NewErrored != 5 || d.Delta != 0 || d.Significant {
				return "pass rate " + strings.TrimSpace(text(r))
			}
			return ""
		}},
		{"effective n: a deterministic agent's 10 identical trials count as 1", func() string {
			r := twoVariants(true, cell("s", "a", 10, 10, 0), cell("s", "b", 0, 10, 0))
			c := r.Cells[0]
			if c.EffectiveN != 1 || !strings.HasPrefix(c.Copies, "deterministic") || r.Comparisons[0].Cells[0].PassRate.Significant {
				return text(r)
			}
			return ""
		}},
		{"effective n: duplicated trial cassettes count once", func() string {
			c := cell("s", "a", 6, 10, 0)
			for i := range c.Trials {
				c.Trials[i].CassetteSHA256 = []string{"x", "y", "z", "x", "y", "z", "w", "v", "x", "x"}[i]
			}
			computeCell(&c, true)
			if c.EffectiveN != 5 || !strings.Contains(c.Copies, "5 of 10") {
				return "effective " + num(float64(c.EffectiveN)) + " " + c.Copies
			}
			return ""
		}},
		{"a baseline without effective n (an older report) is recomputed, not compared as 'not tested'", func() string {
			base := reportOf(cell("s1", "a", 10, 10, 0), cell("s2", "a", 10, 10, 0))
			for i := range base.Cells {
				base.Cells[i].EffectiveN, base.Cells[i].EffectivePassed = 0, 0
			}
			cur := reportOf(cell("s1", "a", 0, 10, 0), cell("s2", "a", 0, 10, 0))
			th, _ := ParseThreshold("pass_rate:delta>=-0.05")
			res, err := Check(Compare(base, cur, "old.json", "new.json"), []Threshold{th})
			if err != nil || len(res) != 1 || res[0].Pass {
				return "a drop 1.0 → 0.0 against an old baseline held"
			}
			return ""
		}},
		{"multiplicity: the comparisons state their tests and what BH left flagged", func() string {
			r := twoVariants(false, cell("s", "a", 10, 10, 0.01), cell("s", "b", 3, 10, 0.02))
			m := r.Comparisons[0].Multiplicity
			if m == nil || m.Tests < 3 || m.Method != "benjamini-hochberg" || !strings.Contains(text(r), "flagged after Benjamini–Hochberg") {
				return text(r)
			}
			return ""
		}},
		{"Hodges–Lehmann: a constant shift of cost is reported in dollars, not as a ratio of medians", func() string {
			r := twoVariants(false, cell("s", "a", 5, 10, 0.01), cell("s", "b", 5, 10, 0.02))
			d := r.Comparisons[0].Cells[0].CostUSD
			if d.Shift != 0.01 || !d.Significant || !strings.Contains(text(r), "+0.01 (no spread: no interval)") {
				return text(r)
			}
			return ""
		}},
	}
	for _, c := range cases {
		if got := c.check(); got != "" {
			t.Errorf("%s:\n%s", c.why, got)
		}
	}
}

func intervalString(i evalreport.Interval) string {
	return num(i.Value) + " [" + num(i.Lo) + ", " + num(i.Hi) + "]"
}
