package eval

import (
	"errors"
	"fmt"
	"github.com/agenteval/agenteval/report/evalreport"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/agenteval/agenteval/stats"
)

// Alpha is the level below which a p-value makes a change significant.
const Alpha = 0.05

// compareVariants compares variant cur with variant base inside one report.
func compareVariants(r *evalreport.Report, base, cur string) evalreport.Comparison {
	var b, n []*evalreport.Cell
	for i := range r.Cells {
		switch r.Cells[i].Variant {
		case base:
			b = append(b, &r.Cells[i])
		case cur:
			n = append(n, &r.Cells[i])
		}
	}
	c := compareCells(b, n, false, func(x *evalreport.Cell) string { return x.ID })
	c.Base, c.New = base, cur
	return c
}

// Compare compares report cur with report base: each cell (scenario, case
// and variant) both have, and each variant overall. baseName and curName
// label the sides.
func Compare(base, cur *evalreport.Report, baseName, curName string) evalreport.Comparison {
	ptrs := func(r *evalreport.Report) []*evalreport.Cell {
		out := make([]*evalreport.Cell, len(r.Cells))
		for i := range r.Cells {
			out[i] = &r.Cells[i]
		}
		return out
	}
	c := compareCells(ptrs(base), ptrs(cur), true, func(x *evalreport.Cell) string { return x.ID + " × " + x.Variant })
	c.Base, c.New = baseName, curName
	return c
}

func compareCells(base, cur []*evalreport.Cell, timings bool, key func(*evalreport.Cell) string) evalreport.Comparison {
	var c evalreport.Comparison
	byKey := map[string]*evalreport.Cell{}
	for _, b := range base {
		byKey[key(b)] = b
	}
	seen := map[string]bool{}
	type pair struct{ b, n *evalreport.Cell }
	byVariant := map[string][]pair{}
	var variants []string
	for _, n := range cur {
		k := key(n)
		seen[k] = true
		b, ok := byKey[k]
		if !ok {
			c.OnlyNew = append(c.OnlyNew, k)
			continue
		}
		d := evalreport.CellDelta{ID: n.ID, Variant: n.Variant, PassRate: rateDelta(b.Passed, b.N, n.Passed, n.N)}
		d.CostUSD = medianDelta(trialValues(b, costOf), trialValues(n, costOf))
		d.Tokens = medianDelta(trialValues(b, tokensOf), trialValues(n, tokensOf))
		if timings && b.Timing != nil && n.Timing != nil {
			m := medianDelta(trialValues(b, latencyOf), trialValues(n, latencyOf))
			d.LatencyMS = &m
		}
		d.Scores = scoreDeltas(b, n)
		c.Cells = append(c.Cells, d)
		if _, ok := byVariant[n.Variant]; !ok {
			variants = append(variants, n.Variant)
		}
		byVariant[n.Variant] = append(byVariant[n.Variant], pair{b, n})
	}
	for _, b := range base {
		if !seen[key(b)] {
			c.OnlyBase = append(c.OnlyBase, key(b))
		}
	}
	for _, v := range variants {
		ps := byVariant[v]
		o := evalreport.OverallDelta{Variant: v, Cells: len(ps)}
		var diffs, bc, nc []float64
		for _, p := range ps {
			br, nr := rate(p.b), rate(p.n)
			o.Base += br / float64(len(ps))
			o.New += nr / float64(len(ps))
			diffs = append(diffs, nr-br)
			bc = append(bc, trialValues(p.b, costOf)...)
			nc = append(nc, trialValues(p.n, costOf)...)
		}
		o.Delta = o.New - o.Base
		if len(ps) == 1 {
			rd := rateDelta(ps[0].b.Passed, ps[0].b.N, ps[0].n.Passed, ps[0].n.N)
			o.Lo, o.Hi, o.P, o.Test = rd.Lo, rd.Hi, rd.P, rd.Test
		} else {
			o.Lo, o.Hi, o.P = pairedT(diffs)
			o.Test = "paired-t"
		}
		o.Significant = o.P < Alpha
		o.CostUSD = medianDelta(bc, nc)
		c.Overall = append(c.Overall, o)
	}
	return c
}

func rate(c *evalreport.Cell) float64 {
	if c.N == 0 {
		return 0
	}
	return float64(c.Passed) / float64(c.N)
}

// pairedT is the 95% t interval and two-sided p-value of the mean of
// per-scenario differences d_s: t = mean/(sd/√S) on S−1 degrees of freedom.
// Differences that are all equal give p = 1 when they are 0 and p = 0
// otherwise.
func pairedT(d []float64) (lo, hi, p float64) {
	s := float64(len(d))
	mean, sd := stat.MeanStdDev(d, nil)
	if sd == 0 || math.IsNaN(sd) {
		if mean == 0 {
			return 0, 0, 1
		}
		return mean, mean, 0
	}
	se := sd / math.Sqrt(s)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: s - 1}
	q := t.Quantile(0.5 + Confidence/2)
	p = 2 * t.Survival(math.Abs(mean/se))
	return mean - q*se, mean + q*se, math.Min(1, p)
}

func rateDelta(bc, bn, nc, nn int) evalreport.RateDelta {
	cp := stats.CompareProportions(bc, bn, nc, nn)
	d := evalreport.RateDelta{BasePassed: bc, BaseN: bn, NewPassed: nc, NewN: nn, Base: finite(cp.P1), New: finite(cp.P2), Delta: finite(cp.Delta), Lo: finite(cp.Lo), Hi: finite(cp.Hi), P: cp.P, Test: cp.Test}
	if math.IsNaN(d.P) {
		d.P = 1
	}
	d.Significant = d.P < Alpha
	return d
}

func medianDelta(b, n []float64) evalreport.MedianDelta {
	m := evalreport.MedianDelta{Base: spreadOf(b).Median, New: spreadOf(n).Median}
	if m.Base != 0 {
		m.Ratio = m.New / m.Base
	}
	mw := stats.MannWhitneyU(b, n)
	m.P = mw.P
	if math.IsNaN(m.P) {
		m.P = 1
	}
	m.Significant = m.P < Alpha
	return m
}

// scoreDeltas compares the mean of each named score that both cells
// have, by name, with a two-sided Mann-Whitney U test on the per-trial
// scores: a rank test, since scores are bounded, often tied and far
// from normal at the trials an eval runs.
func scoreDeltas(b, n *evalreport.Cell) []evalreport.ScoreDelta {
	bs, ns := scoreValues(b), scoreValues(n)
	var out []evalreport.ScoreDelta
	for _, st := range n.Scores {
		bx, ok := bs[st.Name]
		if !ok {
			continue
		}
		nx := ns[st.Name]
		d := evalreport.ScoreDelta{Name: st.Name, Grader: st.Grader, Base: stat.Mean(bx, nil), New: stat.Mean(nx, nil)}
		d.Delta = d.New - d.Base
		d.P = stats.MannWhitneyU(bx, nx).P
		if math.IsNaN(d.P) {
			d.P = 1
		}
		d.Significant = d.P < Alpha
		out = append(out, d)
	}
	return out
}

// scoreValues are a cell's per-trial values of each named score.
func scoreValues(c *evalreport.Cell) map[string][]float64 {
	out := map[string][]float64{}
	for _, t := range c.Trials {
		for _, s := range t.Scores {
			out[s.Name] = append(out[s.Name], s.Value)
		}
	}
	return out
}

func costOf(t evalreport.Trial) float64   { return t.Usage.CostUSD }
func tokensOf(t evalreport.Trial) float64 { return float64(t.Usage.TotalTokens) }
func latencyOf(t evalreport.Trial) float64 {
	if t.Timing == nil {
		return 0
	}
	return t.Timing.WallMS
}

func trialValues(c *evalreport.Cell, f func(evalreport.Trial) float64) []float64 {
	out := make([]float64, len(c.Trials))
	for i, t := range c.Trials {
		out[i] = f(t)
	}
	return out
}

// Threshold is a limit on a comparison, as "report compare --threshold"
// takes it:
//
//	METRIC[SCOPE]:AGGREGATE OP NUMBER
//
// METRIC is pass_rate, cost_usd, tokens or latency_ms. SCOPE is a cell ID
// ("react/weather", "weather[paris]"), optionally "× variant" ... or "*" for
// every cell; without it the threshold applies to each variant overall
// (pass_rate and cost_usd only). AGGREGATE is delta (new − base), ratio
// (new/base), new or base. OP is <, <=, > or >=. A delta or ratio
// threshold that breaks while the change is not significant holds, as
// in bench compare: noise is not a regression.
type Threshold struct {
	Source    string
	Metric    string
	Scope     string
	Aggregate string
	Op        string
	Value     float64
}

var thresholdRE = regexp.MustCompile(`^\s*([a-z_]+)(?:\[([^\]]+)\])?:([a-z]+)\s*(<=|>=|<|>)\s*([-+0-9.eE]+)\s*$`)

// ParseThreshold parses a threshold (see Threshold).
func ParseThreshold(s string) (Threshold, error) {
	m := thresholdRE.FindStringSubmatch(s)
	if m == nil {
		return Threshold{}, fmt.Errorf("threshold %q: expected METRIC[SCOPE]:AGGREGATE OP NUMBER, e.g. 'pass_rate:delta>=-0.05'", s)
	}
	t := Threshold{Source: strings.TrimSpace(s), Metric: m[1], Scope: m[2], Aggregate: m[3], Op: m[4]}
	switch t.Metric {
	case "pass_rate", "cost_usd", "tokens", "latency_ms":
	default:
		return Threshold{}, fmt.Errorf("threshold %q: unknown metric %q: expected pass_rate, cost_usd, tokens or latency_ms", s, t.Metric)
	}
	switch t.Aggregate {
	case "delta", "ratio", "new", "base":
	default:
		return Threshold{}, fmt.Errorf("threshold %q: unknown aggregate %q: expected delta, ratio, new or base", s, t.Aggregate)
	}
	if t.Scope == "" && (t.Metric == "tokens" || t.Metric == "latency_ms") {
		return Threshold{}, fmt.Errorf("threshold %q: %s has no overall value: give a scope, %s[*]", s, t.Metric, t.Metric)
	}
	v, err := strconv.ParseFloat(m[5], 64)
	if err != nil {
		return Threshold{}, fmt.Errorf("threshold %q: %w", s, err)
	}
	t.Value = v
	return t, nil
}

func (t Threshold) holds(v float64) bool {
	switch t.Op {
	case "<":
		return v < t.Value
	case "<=":
		return v <= t.Value
	case ">":
		return v > t.Value
	case ">=":
		return v >= t.Value
	}
	return false
}

// ErrThresholdMatchesNothing is wrapped by Check's error for a threshold
// that selects nothing: a typo must not pass silently.
var ErrThresholdMatchesNothing = errors.New("threshold matches nothing")

// Check evaluates thresholds against a comparison.
func Check(c evalreport.Comparison, thresholds []Threshold) ([]evalreport.CheckResult, error) {
	var out []evalreport.CheckResult
	var errs []error
	for _, t := range thresholds {
		n := 0
		pick := func(base, cur, ratio, p float64, sig bool, scope string) {
			n++
			v := map[string]float64{"delta": cur - base, "ratio": ratio, "new": cur, "base": base}[t.Aggregate]
			r := evalreport.CheckResult{Threshold: t.Source, Scope: scope, Got: v, Pass: t.holds(v)}
			if !r.Pass && (t.Aggregate == "delta" || t.Aggregate == "ratio") && !sig {
				r.Pass, r.Why = true, fmt.Sprintf("not significant (p=%.3f)", p)
			}
			out = append(out, r)
		}
		if t.Scope == "" {
			for _, o := range c.Overall {
				switch t.Metric {
				case "pass_rate":
					pick(o.Base, o.New, ratioOf(o.New, o.Base), o.P, o.Significant, o.Variant)
				case "cost_usd":
					pick(o.CostUSD.Base, o.CostUSD.New, o.CostUSD.Ratio, o.CostUSD.P, o.CostUSD.Significant, o.Variant)
				}
			}
		} else {
			for _, d := range c.Cells {
				if !scopeMatches(t.Scope, d) {
					continue
				}
				scope := d.ID + " × " + d.Variant
				switch t.Metric {
				case "pass_rate":
					r := d.PassRate
					pick(r.Base, r.New, ratioOf(r.New, r.Base), r.P, r.Significant, scope)
				case "cost_usd":
					pick(d.CostUSD.Base, d.CostUSD.New, d.CostUSD.Ratio, d.CostUSD.P, d.CostUSD.Significant, scope)
				case "tokens":
					pick(d.Tokens.Base, d.Tokens.New, d.Tokens.Ratio, d.Tokens.P, d.Tokens.Significant, scope)
				case "latency_ms":
					if d.LatencyMS != nil {
						l := d.LatencyMS
						pick(l.Base, l.New, l.Ratio, l.P, l.Significant, scope)
					}
				}
			}
		}
		if n == 0 {
			errs = append(errs, fmt.Errorf("%q: %w", t.Source, ErrThresholdMatchesNothing))
		}
	}
	return out, errors.Join(errs...)
}

func ratioOf(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// scopeMatches matches "*", a cell ID, or "ID × variant".
func scopeMatches(scope string, d evalreport.CellDelta) bool {
	scope = strings.TrimSpace(scope)
	if scope == "*" || scope == d.ID {
		return true
	}
	id, v, ok := strings.Cut(scope, "×")
	return ok && strings.TrimSpace(id) == d.ID && strings.TrimSpace(v) == d.Variant
}

// variantsOf lists the variants of the cells in first-seen order.
func variantsOf(cells []evalreport.Cell) []string {
	var out []string
	for _, c := range cells {
		if !slices.Contains(out, c.Variant) {
			out = append(out, c.Variant)
		}
	}
	return out
}
