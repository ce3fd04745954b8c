package eval

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
	"github.com/agenteval/agenteval/stats"
)

// Confidence is the level of every interval in a report.
const Confidence = 0.95

// Power is the chance of finding an effect that minimum detectable
// effects and --plan are stated at.
const Power = 0.8

// passKs are the k of pass@k and pass^k in reports.
var passKs = []int{1, 3, 5, 10}

// Recompute derives every statistic of the report from its trials: the
// cells' estimates and verdicts, the variants over the suite, the
// comparisons with the control and the thresholds. Run calls it; Merge
// calls it on the joined trials, so a merged report's statistics are those
// of an unsharded run.
func Recompute(r *evalreport.Report) {
	order := map[string]int{}
	stochastic := map[string]bool{}
	for i, v := range r.Variants {
		order[v.Name] = i
		stochastic[v.Name] = slices.Contains(v.Overrides, "stochastic")
	}
	slices.SortStableFunc(r.Cells, func(a, b evalreport.Cell) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(order[a.Variant], order[b.Variant]))
	})
	for i := range r.Cells {
		computeCell(&r.Cells[i], stochastic[r.Cells[i].Variant])
	}
	r.Suite = nil
	for _, v := range r.Variants {
		r.Suite = append(r.Suite, summarizeVariant(r, v.Name))
	}
	r.Comparisons = nil
	for _, v := range r.Variants {
		if v.Name == r.Control {
			continue
		}
		c := compareVariants(r, r.Control, v.Name)
		r.Comparisons = append(r.Comparisons, c)
	}
	correctFlags(r.Comparisons)
	r.Thresholds, r.Gates = checkThresholds(r)
	for i := range r.Cells {
		r.Cells[i].Verdict = cellVerdict(&r.Cells[i], r.Thresholds)
	}
}

// effective returns the trials of a cell that count as independent
// samples: those that completed (not errored), with copies left out.
// Trials that replay byte-identical cassettes (one CassetteSHA256) are
// copies of the first; in a cell of a variant that is not stochastic,
// trials without cassettes whose outcomes (status, message, final
// answer, scores, usage) are all identical are a deterministic agent's
// repetitions and count once. copies says why trials were left out.
func effective(trials []evalreport.Trial, stochastic bool) (eff []evalreport.Trial, copies string) {
	var done []evalreport.Trial
	for _, t := range trials {
		if t.Status != report.StatusError {
			done = append(done, t)
		}
	}
	if len(done) == 0 {
		return nil, ""
	}
	seen := map[string]bool{}
	dup := 0
	uncassetted := 0
	for _, t := range done {
		if t.CassetteSHA256 == "" {
			uncassetted++
			eff = append(eff, t)
			continue
		}
		if seen[t.CassetteSHA256] {
			dup++
			continue
		}
		seen[t.CassetteSHA256] = true
		eff = append(eff, t)
	}
	if uncassetted == len(done) && len(done) > 1 && !stochastic {
		first := outcomeKey(done[0])
		same := true
		for _, t := range done[1:] {
			if outcomeKey(t) != first {
				same = false
				break
			}
		}
		if same {
			return done[:1], fmt.Sprintf("deterministic: %d identical trials count as 1", len(done))
		}
	}
	if dup > 0 {
		copies = fmt.Sprintf("%d of %d trials replay a byte-identical cassette of another trial and count once", dup, len(done))
	}
	return eff, copies
}

// outcomeKey is everything a trial's report says about the agent.
func outcomeKey(t evalreport.Trial) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%s\x00%s\x00%d\x00%d\x00%d\x00%v\x00%v", t.Status, t.Message, t.Final,
		t.Usage.InputTokens, t.Usage.OutputTokens, t.Usage.TotalTokens, t.Usage.CostUSD, t.Usage.CostKnown)
	for _, s := range t.Scores {
		fmt.Fprintf(&b, "\x00%s=%v", s.Name, s.Value)
	}
	return b.String()
}

// computeCell fills a cell's estimates from its trials.
func computeCell(c *evalreport.Cell, stochastic bool) {
	slices.SortStableFunc(c.Trials, func(a, b evalreport.Trial) int { return a.Index - b.Index })
	c.N, c.Passed, c.Errored = len(c.Trials), 0, 0
	var costs, tokens, lat []float64
	c.CostUnknown = 0
	timed := len(c.Trials) > 0
	for _, t := range c.Trials {
		switch t.Status {
		case report.StatusPass:
			c.Passed++
		case report.StatusError:
			c.Errored++
		}
		if t.Usage.CostKnown {
			costs = append(costs, t.Usage.CostUSD)
		} else {
			c.CostUnknown++
		}
		tokens = append(tokens, float64(t.Usage.TotalTokens))
		if t.Timing == nil {
			timed = false
		} else {
			lat = append(lat, t.Timing.WallMS)
		}
	}
	eff, copies := effective(c.Trials, stochastic)
	c.EffectiveN, c.EffectivePassed, c.Copies = len(eff), 0, copies
	for _, t := range eff {
		if t.Status == report.StatusPass {
			c.EffectivePassed++
		}
	}
	c.PassRate = evalreport.Interval{}
	if c.EffectiveN > 0 {
		lo, hi := stats.ClopperPearson(float64(c.EffectivePassed), c.EffectiveN, Confidence)
		c.PassRate = evalreport.Interval{Value: float64(c.EffectivePassed) / float64(c.EffectiveN), Lo: lo, Hi: hi}
	}
	// pass@k and pass^k from the completed trials: for a deterministic
	// agent every attempt repeats the first, which they then give.
	done := c.N - c.Errored
	okDone := c.Passed
	c.PassAt, c.PassHat = nil, nil
	for _, k := range passKs {
		if k > done {
			break
		}
		c.PassAt = append(c.PassAt, evalreport.KValue{K: k, Value: stats.PassAtK(done, okDone, k)})
		c.PassHat = append(c.PassHat, evalreport.KValue{K: k, Value: stats.PassHatK(done, okDone, k)})
	}
	c.Scores = scoreStats(c.Trials, eff)
	c.CostUSD = spreadOf(costs)
	c.Tokens = spreadOf(tokens)
	c.Timing = nil
	if timed {
		c.Timing = &evalreport.CellTiming{LatencyMS: spreadOf(lat)}
	}
}

// scoreStats is each named score's mean over the trials that have it and
// its binomialized Clopper–Pearson interval over the effective trials.
func scoreStats(all, eff []evalreport.Trial) []evalreport.ScoreStat {
	type acc struct {
		grader     string
		sum        float64
		n          int
		effSum     float64
		effN       int
		seenGrader bool
	}
	by := map[string]*acc{}
	var names []string
	for _, t := range all {
		for _, s := range t.Scores {
			a := by[s.Name]
			if a == nil {
				a = &acc{}
				by[s.Name] = a
				names = append(names, s.Name)
			}
			a.sum += s.Value
			a.n++
			if s.Grader != "" {
				a.grader = s.Grader
			}
		}
	}
	for _, t := range eff {
		for _, s := range t.Scores {
			a := by[s.Name]
			a.effSum += clamp01(s.Value)
			a.effN++
		}
	}
	slices.Sort(names)
	var out []evalreport.ScoreStat
	for _, name := range names {
		a := by[name]
		st := evalreport.ScoreStat{Name: name, Grader: a.grader, N: a.n, EffectiveN: a.effN}
		st.Value = a.sum / float64(a.n)
		if a.effN > 0 {
			st.Value = a.effSum / float64(a.effN)
			lo, hi := stats.ClopperPearson(a.effSum, a.effN, Confidence)
			st.Lo, st.Hi = finite(lo), finite(hi)
		} else {
			st.Lo, st.Hi = 0, 1
		}
		out = append(out, st)
	}
	return out
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }

// spreadOf is the median (the mean of the two middle values at an even
// count, stats.Median) and the 90th percentile (stats.Quantile's linear
// interpolation); zeros for no values.
func spreadOf(xs []float64) evalreport.Spread {
	if len(xs) == 0 {
		return evalreport.Spread{}
	}
	return evalreport.Spread{Median: stats.Median(xs), P90: percentile90(xs)}
}

// percentile90 is the 0.9 quantile by linear interpolation between order
// statistics (Hyndman & Fan definition 7, R's default).
func percentile90(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	h := 0.9 * float64(len(s)-1)
	i := int(math.Floor(h))
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// cellVerdict is "not run" when no trial ran, "error" when a trial
// errored, "fail" when a threshold of the cell is broken, "pass"
// otherwise.
func cellVerdict(c *evalreport.Cell, checked []evalreport.ThresholdResult) string {
	if c.N == 0 {
		return "not run"
	}
	if c.Errored > 0 {
		return "error"
	}
	scope := c.ID + " × " + c.Variant
	for _, t := range checked {
		if t.Scope == scope && !t.Pass {
			return "fail"
		}
	}
	return "pass"
}

// cellThresholds lists a cell's thresholds with what they got; a pass_rate
// min is decided later, with every other (checkThresholds). pass@k and
// pass^k with k > N cannot be estimated and count as broken.
func cellThresholds(c *evalreport.Cell) []evalreport.ThresholdResult {
	th := c.Thresholds
	if th == nil || c.N == 0 {
		return nil
	}
	scope := c.ID + " × " + c.Variant
	done := c.N - c.Errored
	var out []evalreport.ThresholdResult
	if t := th.PassRate; t != nil {
		got := c.PassRate.Value
		if t.Min > 0 {
			p := stats.BinomialBelowP(c.EffectivePassed, c.EffectiveN, t.Min)
			out = append(out, evalreport.ThresholdResult{Scope: scope, Threshold: "pass_rate >= " + num(t.Min), Got: got, P: p, Pass: c.EffectiveN > 0})
		}
		if t.Lower > 0 {
			out = append(out, evalreport.ThresholdResult{Scope: scope, Threshold: "pass_rate lower bound >= " + num(t.Lower), Got: c.PassRate.Lo, Pass: c.EffectiveN > 0 && c.PassRate.Lo >= t.Lower,
				Why: fmt.Sprintf("Clopper–Pearson 95%% lower bound at n_eff = %d", c.EffectiveN)})
		}
	}
	if t := th.PassAt; t != nil {
		got := stats.PassAtK(done, c.Passed, t.K)
		out = append(out, evalreport.ThresholdResult{Scope: scope, Threshold: fmt.Sprintf("pass@%d >= %s", t.K, num(t.Min)), Got: finite(got), Pass: !math.IsNaN(got) && got >= t.Min, Why: "point estimate"})
	}
	if t := th.PassHat; t != nil {
		got := stats.PassHatK(done, c.Passed, t.K)
		out = append(out, evalreport.ThresholdResult{Scope: scope, Threshold: fmt.Sprintf("pass^%d >= %s", t.K, num(t.Min)), Got: finite(got), Pass: !math.IsNaN(got) && got >= t.Min, Why: "point estimate"})
	}
	return out
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// summarizeVariant is a variant over the suite: the macro pass rate over
// the cells that ran, with an interval that is the hull of the clustered
// interval (scenarios as a sample) and the MOVER interval of the mean of
// the cells' Clopper–Pearson intervals (the suite's scenarios as they
// are).
func summarizeVariant(r *evalreport.Report, variant string) evalreport.VariantSummary {
	s := evalreport.VariantSummary{Variant: variant}
	var cells []*evalreport.Cell
	var costs []float64
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Variant != variant {
			continue
		}
		for _, t := range c.Trials {
			if t.Usage.CostKnown {
				costs = append(costs, t.Usage.CostUSD)
			} else {
				s.CostUnknown++
			}
		}
		s.Trials += c.N
		if c.EffectiveN == 0 {
			s.NotRun++
			continue
		}
		s.Cells++
		cells = append(cells, c)
	}
	s.CostUSD = sumSorted(costs)
	s.MacroPassRate = macroRate(cells)
	return s
}

// macroRate is the mean of the cells' pass rates with the hull of the
// clustered and the MOVER intervals (one cell: its own interval).
func macroRate(cells []*evalreport.Cell) evalreport.Interval {
	switch len(cells) {
	case 0:
		return evalreport.Interval{}
	case 1:
		return cells[0].PassRate
	}
	w := 1 / float64(len(cells))
	terms := make([]stats.MoverTerm, len(cells))
	clusters := make([][]float64, len(cells))
	for i, c := range cells {
		terms[i] = stats.MoverTerm{Coef: w, Est: c.PassRate.Value, Lo: c.PassRate.Lo, Hi: c.PassRate.Hi}
		clusters[i] = []float64{c.PassRate.Value}
	}
	m, lo, hi := stats.MoverSum(terms)
	_, clo, chi := stats.ClusteredMeanCI(clusters, Confidence)
	if !math.IsNaN(clo) {
		lo, hi = math.Min(lo, clo), math.Max(hi, chi)
	}
	return evalreport.Interval{Value: m, Lo: math.Max(0, lo), Hi: math.Min(1, hi)}
}

// checkThresholds lists every cell's thresholds and the run's
// --fail-under, and decides the pass_rate min gates together: each breaks
// when its one-sided exact binomial p-value, after Holm's correction over
// all of them, is under Alpha.
func checkThresholds(r *evalreport.Report) ([]evalreport.ThresholdResult, *evalreport.Multiplicity) {
	var out []evalreport.ThresholdResult
	for i := range r.Cells {
		out = append(out, cellThresholds(&r.Cells[i])...)
	}
	var idx []int
	var ps []float64
	for i, t := range out {
		if strings.HasPrefix(t.Threshold, "pass_rate >= ") && t.Pass {
			idx = append(idx, i)
			ps = append(ps, t.P)
		}
	}
	var gates *evalreport.Multiplicity
	if len(ps) > 0 {
		gates = &evalreport.Multiplicity{Tests: len(ps), Method: "holm"}
		for k, q := range stats.Holm(ps) {
			t := &out[idx[k]]
			t.PAdjusted = q
			if t.P < Alpha {
				gates.Uncorrected++
			}
			if q < Alpha {
				gates.Flagged++
				t.Pass = false
				t.Why = fmt.Sprintf("evidence the rate is below: one-sided exact binomial p = %.4f, Holm-adjusted %.4f over %d gates", t.P, q, len(ps))
			} else {
				t.Why = fmt.Sprintf("no evidence the rate is below: Holm-adjusted p = %.3f over %d gates", q, len(ps))
			}
		}
	}
	if r.FailUnder > 0 {
		for _, s := range r.Suite {
			got := s.MacroPassRate.Value
			out = append(out, evalreport.ThresholdResult{Scope: s.Variant, Threshold: "macro pass_rate >= " + num(r.FailUnder) + " (--fail-under)", Got: got, Pass: s.Cells > 0 && got >= r.FailUnder, Why: "point estimate"})
		}
	}
	return out, gates
}

// finite maps NaN and infinities to 0 for JSON, which cannot hold them;
// the fields that use it say what 0 means there.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
