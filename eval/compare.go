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

	"github.com/agenteval/agenteval/report"
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
// label the sides. It first recomputes both reports' statistics from
// their trials (Recompute), so that a baseline written by an older
// version (without effective n, say) is compared by today's rules, never
// by fields it lacks.
func Compare(base, cur *evalreport.Report, baseName, curName string) evalreport.Comparison {
	Recompute(base)
	Recompute(cur)
	ptrs := func(r *evalreport.Report) []*evalreport.Cell {
		out := make([]*evalreport.Cell, len(r.Cells))
		for i := range r.Cells {
			out[i] = &r.Cells[i]
		}
		return out
	}
	c := compareCells(ptrs(base), ptrs(cur), true, func(x *evalreport.Cell) string { return x.ID + " × " + x.Variant })
	c.Base, c.New = baseName, curName
	cs := []evalreport.Comparison{c}
	correctFlags(cs)
	return cs[0]
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
		d := evalreport.CellDelta{ID: n.ID, Variant: n.Variant, PassRate: rateDelta(b, n)}
		bt, nt := effectiveOf(b), effectiveOf(n)
		d.CostUSD = shiftDelta(b.Trials, n.Trials, bt, nt, costOf)
		d.Tokens = shiftDelta(b.Trials, n.Trials, bt, nt, tokensOf)
		if timings && b.Timing != nil && n.Timing != nil {
			m := shiftDelta(b.Trials, n.Trials, bt, nt, latencyOf)
			d.LatencyMS = &m
		}
		d.Scores = scoreDeltas(bt, nt, n)
		c.Cells = append(c.Cells, d)
		if _, ok := byVariant[n.Variant]; !ok {
			variants = append(variants, n.Variant)
		}
		if b.EffectiveN > 0 && n.EffectiveN > 0 {
			byVariant[n.Variant] = append(byVariant[n.Variant], pair{b, n})
		}
	}
	for _, b := range base {
		if !seen[key(b)] {
			c.OnlyBase = append(c.OnlyBase, key(b))
		}
	}
	for _, v := range variants {
		ps := byVariant[v]
		o := evalreport.OverallDelta{Variant: v, Cells: len(ps), P: 1, Test: "none"}
		var bt, nt []evalreport.Trial
		var strata []stats.Stratum
		bs, ns := make([]*evalreport.Cell, len(ps)), make([]*evalreport.Cell, len(ps))
		bn, nn := 0, 0
		for i, p := range ps {
			bs[i], ns[i] = p.b, p.n
			strata = append(strata, stats.Stratum{Passed1: p.b.EffectivePassed, N1: p.b.EffectiveN, Passed2: p.n.EffectivePassed, N2: p.n.EffectiveN})
			bn += p.b.EffectiveN
			nn += p.n.EffectiveN
			bt = append(bt, p.b.Trials...)
			nt = append(nt, p.n.Trials...)
		}
		for _, p := range ps {
			o.Base += p.b.PassRate.Value / float64(len(ps))
			o.New += p.n.PassRate.Value / float64(len(ps))
		}
		switch len(ps) {
		case 0:
			o.Lo, o.Hi = -1, 1
		case 1:
			rd := rateDelta(ps[0].b, ps[0].n)
			o.Delta, o.Lo, o.Hi, o.P, o.Test = rd.Delta, rd.Lo, rd.Hi, rd.P, rd.Test
		default:
			o.Delta, o.Lo, o.Hi = overallChange(bs, ns, Confidence)
			_, o.P = stats.CochranMantelHaenszel(strata)
			o.Test = "cmh"
		}
		if len(ps) != 1 {
			o.Delta = o.New - o.Base
		}
		o.MDE = stats.MinimumDetectableEffect(o.Base, bn, nn, Alpha, Power)
		o.Q = o.P
		o.Significant = o.P < Alpha
		var bEff, nEff []evalreport.Trial
		for _, p := range ps {
			bEff = append(bEff, effectiveOf(p.b)...)
			nEff = append(nEff, effectiveOf(p.n)...)
		}
		o.CostUSD = shiftDelta(bt, nt, bEff, nEff, costOf)
		c.Overall = append(c.Overall, o)
	}
	return c
}

// overallChange is the mean over scenarios of the change in pass rate,
// new − base, with its MOVER interval (stats.MoverSum) from each cell's
// Wilson interval at the confidence level: Newcombe's interval extended
// to a mean of S differences, coefficients ±1/S.
func overallChange(base, cur []*evalreport.Cell, conf float64) (delta, lo, hi float64) {
	w := 1 / float64(len(base))
	var terms []stats.MoverTerm
	for i := range base {
		b, n := base[i], cur[i]
		bl, bh := stats.Wilson(b.EffectivePassed, b.EffectiveN, conf)
		nl, nh := stats.Wilson(n.EffectivePassed, n.EffectiveN, conf)
		terms = append(terms, stats.MoverTerm{Coef: w, Est: n.PassRate.Value, Lo: nl, Hi: nh}, stats.MoverTerm{Coef: -w, Est: b.PassRate.Value, Lo: bl, Hi: bh})
	}
	delta, lo, hi = stats.MoverSum(terms)
	return delta, math.Max(-1, lo), math.Min(1, hi)
}

// effectiveOf is a cell's effective trials (see effective): the
// comparisons test these, not copies.
func effectiveOf(c *evalreport.Cell) []evalreport.Trial {
	if c.EffectiveN == 0 {
		return nil
	}
	var all []evalreport.Trial
	for _, t := range c.Trials {
		if t.Status != report.StatusError {
			all = append(all, t)
		}
	}
	if c.EffectiveN == len(all) {
		return all
	}
	if strings.HasPrefix(c.Copies, "deterministic") {
		return all[:1]
	}
	seen := map[string]bool{}
	var out []evalreport.Trial
	for _, t := range all {
		if t.CassetteSHA256 != "" {
			if seen[t.CassetteSHA256] {
				continue
			}
			seen[t.CassetteSHA256] = true
		}
		out = append(out, t)
	}
	return out
}

// rateDelta compares two cells' pass rates over their effective trials,
// errored trials left out and counted.
func rateDelta(b, n *evalreport.Cell) evalreport.RateDelta {
	bc, bn, nc, nn := b.EffectivePassed, b.EffectiveN, n.EffectivePassed, n.EffectiveN
	d := evalreport.RateDelta{BasePassed: bc, BaseN: bn, NewPassed: nc, NewN: nn, BaseErrored: b.Errored, NewErrored: n.Errored, P: 1, Test: "none", Lo: -1, Hi: 1, MDE: 1}
	if bn == 0 || nn == 0 {
		return d
	}
	cp := stats.CompareProportions(bc, bn, nc, nn)
	d.Base, d.New, d.Delta, d.Lo, d.Hi, d.P, d.Test = finite(cp.P1), finite(cp.P2), finite(cp.Delta), finite(cp.Lo), finite(cp.Hi), cp.P, cp.Test
	if math.IsNaN(d.P) {
		d.P = 1
	}
	d.MDE = stats.MinimumDetectableEffect(d.Base, bn, nn, Alpha, Power)
	d.Q = d.P
	d.Significant = d.P < Alpha
	return d
}

// shiftDelta compares a per-trial quantity: the medians of every trial
// with a known value, and the Hodges–Lehmann shift with the Mann-Whitney
// test on the effective trials. Unknown values (a cost without a price)
// are left out and counted; a side with none is not tested.
func shiftDelta(ball, nall, beff, neff []evalreport.Trial, f func(evalreport.Trial) (float64, bool)) evalreport.MedianDelta {
	known := func(ts []evalreport.Trial) (xs []float64, unknown int) {
		for _, t := range ts {
			if v, ok := f(t); ok {
				xs = append(xs, v)
			} else {
				unknown++
			}
		}
		return xs, unknown
	}
	ba, bu := known(ball)
	na, nu := known(nall)
	m := evalreport.MedianDelta{Base: spreadOf(ba).Median, New: spreadOf(na).Median, Unknown: bu + nu, P: 1, Q: 1}
	if m.Base != 0 {
		m.Ratio = m.New / m.Base
	}
	bx, _ := known(beff)
	nx, _ := known(neff)
	if len(bx) == 0 || len(nx) == 0 {
		m.Untested = true
		return m
	}
	m.Shift, m.ShiftLo, m.ShiftHi = stats.HodgesLehmann(bx, nx, Confidence)
	m.P = stats.MannWhitneyU(bx, nx).P
	if math.IsNaN(m.P) {
		m.P = 1
	}
	m.Q = m.P
	m.Significant = m.P < Alpha
	return m
}

// scoreDeltas compares the mean of each named score that both cells
// have, by name, with a two-sided Mann-Whitney U test on the per-trial
// scores of the effective trials: a rank test, since scores are bounded,
// often tied and far from normal at the trials an eval runs.
func scoreDeltas(bt, nt []evalreport.Trial, n *evalreport.Cell) []evalreport.ScoreDelta {
	bs, ns := scoreValues(bt), scoreValues(nt)
	var out []evalreport.ScoreDelta
	for _, st := range n.Scores {
		bx, ok := bs[st.Name]
		nx := ns[st.Name]
		if !ok || len(nx) == 0 {
			continue
		}
		d := evalreport.ScoreDelta{Name: st.Name, Grader: st.Grader, Base: meanOf(bx), New: meanOf(nx)}
		d.Delta = d.New - d.Base
		d.P = stats.MannWhitneyU(bx, nx).P
		if math.IsNaN(d.P) {
			d.P = 1
		}
		d.Q = d.P
		d.Significant = d.P < Alpha
		out = append(out, d)
	}
	return out
}

func meanOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// scoreValues are the trials' values of each named score.
func scoreValues(ts []evalreport.Trial) map[string][]float64 {
	out := map[string][]float64{}
	for _, t := range ts {
		for _, s := range t.Scores {
			out[s.Name] = append(out[s.Name], s.Value)
		}
	}
	return out
}

// correctFlags applies Benjamini–Hochberg to every test of the
// comparisons together (one family: what a reader scans for flags) and
// records the family's size and flags in each.
func correctFlags(cs []evalreport.Comparison) {
	var ps []*float64
	var qs []*float64
	var sig []*bool
	add := func(p, q *float64, s *bool) {
		ps, qs, sig = append(ps, p), append(qs, q), append(sig, s)
	}
	for i := range cs {
		c := &cs[i]
		for j := range c.Cells {
			d := &c.Cells[j]
			if d.PassRate.Test != "none" {
				add(&d.PassRate.P, &d.PassRate.Q, &d.PassRate.Significant)
			}
			for _, m := range []*evalreport.MedianDelta{&d.CostUSD, &d.Tokens, d.LatencyMS} {
				if m != nil && !m.Untested {
					add(&m.P, &m.Q, &m.Significant)
				}
			}
			for k := range d.Scores {
				s := &d.Scores[k]
				add(&s.P, &s.Q, &s.Significant)
			}
		}
		for j := range c.Overall {
			o := &c.Overall[j]
			if o.Test != "none" {
				add(&o.P, &o.Q, &o.Significant)
			}
			if !o.CostUSD.Untested {
				add(&o.CostUSD.P, &o.CostUSD.Q, &o.CostUSD.Significant)
			}
		}
	}
	raw := make([]float64, len(ps))
	m := &evalreport.Multiplicity{Tests: len(ps), Method: "benjamini-hochberg"}
	for i, p := range ps {
		raw[i] = *p
		if *p < Alpha {
			m.Uncorrected++
		}
	}
	for i, q := range stats.BenjaminiHochberg(raw) {
		*qs[i] = q
		*sig[i] = q < Alpha
		if q < Alpha {
			m.Flagged++
		}
	}
	for i := range cs {
		cs[i].Multiplicity = m
	}
}

func costOf(t evalreport.Trial) (float64, bool) { return t.Usage.CostUSD, t.Usage.CostKnown }
func tokensOf(t evalreport.Trial) (float64, bool) {
	return float64(t.Usage.TotalTokens), true
}
func latencyOf(t evalreport.Trial) (float64, bool) {
	if t.Timing == nil {
		return 0, false
	}
	return t.Timing.WallMS, true
}

// Threshold is a limit on a comparison, as "report compare --threshold"
// and "eval --baseline --threshold" take it:
//
//	METRIC[SCOPE]:AGGREGATE OP NUMBER
//
// METRIC is pass_rate, cost_usd, tokens or latency_ms. SCOPE is a cell ID
// ("react/weather", "weather[paris]"), optionally "× variant" ... or "*" for
// every cell; without it the threshold applies to each variant overall
// (pass_rate and cost_usd only). OP is <, <=, > or >=. AGGREGATE is one
// of:
//
//   - lower or upper (pass_rate only): a bound of the change new − base
//     must meet the limit, the bound one-sided at 95% (the two-sided 90%
//     Newcombe interval of a cell, the MOVER interval overall). This is
//     proof: 'pass_rate:lower>=-0.05' is the non-inferiority test "the
//     new pass rate is not worse than the base's by more than 0.05,
//     one-sided 95%". Each check must be shown on its own; an
//     intersection-union test needs no correction for their number
//     (Berger 1982, Technometrics 24:295-300).
//   - delta (new − base) or ratio (new/base): a gate on evidence. It
//     breaks only when the data show the limit broken: for pass_rate
//     delta, the one-sided p-value that the change meets the limit (found
//     by inverting the interval above over its level), for the others the
//     Mann-Whitney p-value, after Holm's correction over every evidence
//     check of the run, is under 0.05 (and, for the others, the point
//     estimate breaks the limit). A check that holds is not proof: each
//     prints the comparison's minimum detectable effect beside it.
//   - new or base: the point estimate; it describes, it does not test.
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
		return Threshold{}, fmt.Errorf("threshold %q: expected METRIC[SCOPE]:AGGREGATE OP NUMBER, e.g. 'pass_rate:lower>=-0.05'", s)
	}
	t := Threshold{Source: strings.TrimSpace(s), Metric: m[1], Scope: m[2], Aggregate: m[3], Op: m[4]}
	switch t.Metric {
	case "pass_rate", "cost_usd", "tokens", "latency_ms":
	default:
		return Threshold{}, fmt.Errorf("threshold %q: unknown metric %q: expected pass_rate, cost_usd, tokens or latency_ms", s, t.Metric)
	}
	switch t.Aggregate {
	case "delta", "ratio", "new", "base":
	case "lower", "upper":
		if t.Metric != "pass_rate" {
			return Threshold{}, fmt.Errorf("threshold %q: %s bounds the change in pass_rate only; for %s use delta or ratio", s, t.Aggregate, t.Metric)
		}
	default:
		return Threshold{}, fmt.Errorf("threshold %q: unknown aggregate %q: expected lower, upper, delta, ratio, new or base", s, t.Aggregate)
	}
	if t.Metric == "pass_rate" && t.Aggregate == "ratio" {
		return Threshold{}, fmt.Errorf("threshold %q: a ratio of pass rates is not tested: use delta (evidence of a drop, e.g. 'pass_rate:delta>=-0.05') or lower (non-inferiority, e.g. 'pass_rate:lower>=-0.05')", s)
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

// rateSide is what a pass-rate check needs of one side of a change: a
// function giving the change's interval at a confidence level.
type rateSide struct {
	base, cur  float64
	delta, mde float64
	interval   func(conf float64) (lo, hi float64)
}

// breachP is the one-sided p-value of the evidence that the change breaks
// a delta limit: the level a at which the one-sided (1 − a) bound of the
// interval reaches the limit (found by bisection; the interval narrows as
// a grows). 1 when the estimate itself meets the limit.
func (r rateSide) breachP(t Threshold) float64 {
	upper := t.Op == ">=" || t.Op == ">" // the limit is a floor: evidence is a low upper bound
	broken := func(a float64) bool {
		lo, hi := r.interval(1 - 2*a)
		if upper {
			return !t.holds(hi)
		}
		return !t.holds(lo)
	}
	if !broken(0.4999) {
		return 1
	}
	lo, hi := 1e-12, 0.4999
	if broken(lo) {
		return lo
	}
	for range 60 {
		mid := (lo + hi) / 2
		if broken(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// Check evaluates thresholds against a comparison (see Threshold):
// bounds on their own, evidence checks together under Holm's correction.
func Check(c evalreport.Comparison, thresholds []Threshold) ([]evalreport.CheckResult, error) {
	var out []evalreport.CheckResult
	var errs []error
	var evidence []int
	for _, t := range thresholds {
		n := 0
		rate := func(r rateSide, scope string) {
			n++
			res := evalreport.CheckResult{Threshold: t.Source, Scope: scope}
			switch t.Aggregate {
			case "lower", "upper":
				lo, hi := r.interval(1 - 2*Alpha)
				res.Got = lo
				if t.Aggregate == "upper" {
					res.Got = hi
				}
				res.Pass = t.holds(res.Got)
				res.Why = fmt.Sprintf("one-sided 95%% bound of Δ %+.3f; MDE %.2f", r.delta, r.mde)
			case "delta":
				res.Got = r.delta
				res.P = r.breachP(t)
				res.Why = fmt.Sprintf("MDE %.2f", r.mde)
				evidence = append(evidence, len(out))
			default:
				res.Got = map[string]float64{"ratio": ratioOf(r.cur, r.base), "new": r.cur, "base": r.base}[t.Aggregate]
				res.Pass = t.holds(res.Got)
				res.Why = "point estimate"
			}
			out = append(out, res)
		}
		other := func(base, cur, ratio float64, m evalreport.MedianDelta, scope string) {
			n++
			v := map[string]float64{"delta": cur - base, "ratio": ratio, "new": cur, "base": base}[t.Aggregate]
			res := evalreport.CheckResult{Threshold: t.Source, Scope: scope, Got: v, Pass: t.holds(v)}
			switch {
			case t.Aggregate == "new" || t.Aggregate == "base":
				res.Why = "point estimate"
			case m.Untested:
				res.Pass, res.Why = true, fmt.Sprintf("not tested: %d values unknown", m.Unknown)
			case res.Pass:
				res.P = 1
				evidence = append(evidence, len(out))
			default:
				res.P = m.P
				evidence = append(evidence, len(out))
			}
			out = append(out, res)
		}
		if t.Scope == "" {
			for _, o := range c.Overall {
				switch t.Metric {
				case "pass_rate":
					o := o
					rate(rateSide{base: o.Base, cur: o.New, delta: o.Delta, mde: o.MDE, interval: func(conf float64) (float64, float64) { return overallInterval(c, o.Variant, conf) }}, o.Variant)
				case "cost_usd":
					other(o.CostUSD.Base, o.CostUSD.New, o.CostUSD.Ratio, o.CostUSD, o.Variant)
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
					rate(rateSide{base: r.Base, cur: r.New, delta: r.Delta, mde: r.MDE, interval: func(conf float64) (float64, float64) {
						return newcombeAt(r.BasePassed, r.BaseN, r.NewPassed, r.NewN, conf)
					}}, scope)
				case "cost_usd":
					other(d.CostUSD.Base, d.CostUSD.New, d.CostUSD.Ratio, d.CostUSD, scope)
				case "tokens":
					other(d.Tokens.Base, d.Tokens.New, d.Tokens.Ratio, d.Tokens, scope)
				case "latency_ms":
					if d.LatencyMS != nil {
						l := d.LatencyMS
						other(l.Base, l.New, l.Ratio, *l, scope)
					}
				}
			}
		}
		if n == 0 {
			errs = append(errs, fmt.Errorf("%q: %w", t.Source, ErrThresholdMatchesNothing))
		}
	}
	ps := make([]float64, len(evidence))
	for i, k := range evidence {
		ps[i] = out[k].P
	}
	for i, q := range stats.Holm(ps) {
		r := &out[evidence[i]]
		r.PAdjusted = q
		r.Pass = q >= Alpha
		verdict := "no evidence it is broken"
		if !r.Pass {
			verdict = "evidence it is broken"
		}
		extra := ""
		if r.Why != "" {
			extra = "; " + r.Why
		}
		r.Why = fmt.Sprintf("%s: p = %.3f, Holm-adjusted %.3f over %d checks%s", verdict, r.P, q, len(ps), extra)
	}
	return out, errors.Join(errs...)
}

// newcombeAt is the Newcombe interval of new − base at a confidence level,
// [−1, 1] when a side has no trials.
func newcombeAt(bc, bn, nc, nn int, conf float64) (lo, hi float64) {
	if bn == 0 || nn == 0 {
		return -1, 1
	}
	bl, bh := stats.Wilson(bc, bn, conf)
	nl, nh := stats.Wilson(nc, nn, conf)
	_, lo, hi = stats.MoverSum([]stats.MoverTerm{
		{Coef: 1, Est: float64(nc) / float64(nn), Lo: nl, Hi: nh},
		{Coef: -1, Est: float64(bc) / float64(bn), Lo: bl, Hi: bh},
	})
	return math.Max(-1, lo), math.Min(1, hi)
}

// overallInterval is the MOVER interval of a variant's overall change at
// a confidence level, from the comparison's cells that ran on both sides.
func overallInterval(c evalreport.Comparison, variant string, conf float64) (lo, hi float64) {
	var ds []evalreport.RateDelta
	for _, d := range c.Cells {
		if d.Variant == variant && d.PassRate.BaseN > 0 && d.PassRate.NewN > 0 {
			ds = append(ds, d.PassRate)
		}
	}
	if len(ds) == 0 {
		return -1, 1
	}
	if len(ds) == 1 {
		return newcombeAt(ds[0].BasePassed, ds[0].BaseN, ds[0].NewPassed, ds[0].NewN, conf)
	}
	w := 1 / float64(len(ds))
	var terms []stats.MoverTerm
	for _, r := range ds {
		bl, bh := stats.Wilson(r.BasePassed, r.BaseN, conf)
		nl, nh := stats.Wilson(r.NewPassed, r.NewN, conf)
		terms = append(terms, stats.MoverTerm{Coef: w, Est: r.New, Lo: nl, Hi: nh}, stats.MoverTerm{Coef: -w, Est: r.Base, Lo: bl, Hi: bh})
	}
	_, lo, hi = stats.MoverSum(terms)
	return math.Max(-1, lo), math.Min(1, hi)
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
