package eval

import (
	"cmp"
	"fmt"
	"github.com/agenteval/agenteval/report/evalreport"
	"hash/fnv"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/stat"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/stats"
)

// Confidence is the level of every interval in a report.
const Confidence = 0.95

// Resamples is the bootstrap replicates per interval.
const Resamples = 2000

// passKs are the k of pass@k and pass^k in reports.
var passKs = []int{1, 3, 5, 10}

// Recompute derives every statistic of the report from its trials: the
// cells' estimates and verdicts, the variants over the suite, the
// comparisons with the control and the thresholds. Run calls it; Merge
// calls it on the joined trials, so a merged report's statistics are those
// of an unsharded run.
func Recompute(r *evalreport.Report) {
	order := map[string]int{}
	for i, v := range r.Variants {
		order[v.Name] = i
	}
	slices.SortStableFunc(r.Cells, func(a, b evalreport.Cell) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(order[a.Variant], order[b.Variant]))
	})
	for i := range r.Cells {
		computeCell(&r.Cells[i], r.Seed)
		evalreport.SummarizeWhy(&r.Cells[i])
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
	r.Thresholds = checkThresholds(r)
}

// computeCell fills a cell's estimates from its trials.
func computeCell(c *evalreport.Cell, seed uint64) {
	slices.SortStableFunc(c.Trials, func(a, b evalreport.Trial) int { return a.Index - b.Index })
	c.N, c.Passed, c.Errored = len(c.Trials), 0, 0
	var costs, tokens, lat []float64
	scores := map[string][]float64{}
	graders := map[string]string{}
	var names []string
	timed := len(c.Trials) > 0
	for _, t := range c.Trials {
		switch t.Status {
		case report.StatusPass:
			c.Passed++
		case report.StatusError:
			c.Errored++
		}
		costs = append(costs, t.Usage.CostUSD)
		tokens = append(tokens, float64(t.Usage.TotalTokens))
		if t.Timing == nil {
			timed = false
		} else {
			lat = append(lat, t.Timing.WallMS)
		}
		for _, s := range t.Scores {
			if _, ok := scores[s.Name]; !ok {
				names = append(names, s.Name)
			}
			scores[s.Name] = append(scores[s.Name], s.Value)
			if s.Grader != "" {
				graders[s.Name] = s.Grader
			}
		}
	}
	c.PassRate = evalreport.Interval{}
	if c.N > 0 {
		lo, hi := stats.Wilson(c.Passed, c.N, Confidence)
		c.PassRate = evalreport.Interval{Value: float64(c.Passed) / float64(c.N), Lo: lo, Hi: hi}
	}
	c.PassAt, c.PassHat = nil, nil
	for _, k := range passKs {
		if k > c.N {
			break
		}
		c.PassAt = append(c.PassAt, evalreport.KValue{K: k, Value: stats.PassAtK(c.N, c.Passed, k)})
		c.PassHat = append(c.PassHat, evalreport.KValue{K: k, Value: stats.PassHatK(c.N, c.Passed, k)})
	}
	slices.Sort(names)
	c.Scores = nil
	for _, name := range names {
		xs := scores[name]
		lo, hi := stats.BootstrapMeanCI(xs, Confidence, Resamples, seed^hash64(c.ID, c.Variant, name))
		c.Scores = append(c.Scores, evalreport.ScoreStat{Name: name, Grader: graders[name], N: len(xs),
			Interval: evalreport.Interval{Value: stat.Mean(xs, nil), Lo: finite(lo), Hi: finite(hi)}})
	}
	c.CostUSD = spreadOf(costs)
	c.Tokens = spreadOf(tokens)
	c.Timing = nil
	if timed {
		c.Timing = &evalreport.CellTiming{LatencyMS: spreadOf(lat)}
	}
	c.Verdict = cellVerdict(c)
}

func hash64(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// spreadOf is the median and 90th percentile (linear interpolation between
// order statistics, gonum's stat.LinInterp); zeros for no values.
func spreadOf(xs []float64) evalreport.Spread {
	if len(xs) == 0 {
		return evalreport.Spread{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return evalreport.Spread{Median: stat.Quantile(0.5, stat.LinInterp, s, nil), P90: stat.Quantile(0.9, stat.LinInterp, s, nil)}
}

// cellVerdict is "error" when a trial errored, "fail" when a threshold of
// the cell is broken, "pass" otherwise.
func cellVerdict(c *evalreport.Cell) string {
	if c.Errored > 0 {
		return "error"
	}
	for _, t := range cellThresholds(c) {
		if !t.Pass {
			return "fail"
		}
	}
	return "pass"
}

// cellThresholds checks a cell's thresholds. pass@k and pass^k with k > N
// cannot be estimated and count as broken.
func cellThresholds(c *evalreport.Cell) []evalreport.ThresholdResult {
	th := c.Thresholds
	if th == nil {
		return nil
	}
	scope := c.ID + " × " + c.Variant
	var out []evalreport.ThresholdResult
	if t := th.PassRate; t != nil {
		got := c.PassRate.Value
		out = append(out, evalreport.ThresholdResult{Scope: scope, Threshold: "pass_rate >= " + num(t.Min), Got: got, Pass: c.N > 0 && got >= t.Min})
	}
	if t := th.PassAt; t != nil {
		got := stats.PassAtK(c.N, c.Passed, t.K)
		out = append(out, evalreport.ThresholdResult{Scope: scope, Threshold: fmt.Sprintf("pass@%d >= %s", t.K, num(t.Min)), Got: finite(got), Pass: !math.IsNaN(got) && got >= t.Min})
	}
	if t := th.PassHat; t != nil {
		got := stats.PassHatK(c.N, c.Passed, t.K)
		out = append(out, evalreport.ThresholdResult{Scope: scope, Threshold: fmt.Sprintf("pass^%d >= %s", t.K, num(t.Min)), Got: finite(got), Pass: !math.IsNaN(got) && got >= t.Min})
	}
	return out
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// summarizeVariant is a variant over the suite: the macro pass rate over
// its cells with the clustered interval.
func summarizeVariant(r *evalreport.Report, variant string) evalreport.VariantSummary {
	s := evalreport.VariantSummary{Variant: variant}
	var clusters [][]float64
	var costs []float64
	var only *evalreport.Cell
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Variant != variant || c.N == 0 {
			continue
		}
		s.Cells++
		s.Trials += c.N
		only = c
		xs := make([]float64, len(c.Trials))
		for j, t := range c.Trials {
			if t.Status == report.StatusPass {
				xs[j] = 1
			}
			costs = append(costs, t.Usage.CostUSD)
		}
		clusters = append(clusters, xs)
	}
	s.CostUSD = sumSorted(costs)
	switch len(clusters) {
	case 0:
	case 1:
		s.MacroPassRate = only.PassRate
	default:
		m, lo, hi := stats.ClusteredMeanCI(clusters, Confidence)
		s.MacroPassRate = evalreport.Interval{Value: m, Lo: math.Max(0, lo), Hi: math.Min(1, hi)}
	}
	return s
}

// checkThresholds lists every cell's thresholds and the run's --fail-under.
func checkThresholds(r *evalreport.Report) []evalreport.ThresholdResult {
	var out []evalreport.ThresholdResult
	for i := range r.Cells {
		out = append(out, cellThresholds(&r.Cells[i])...)
	}
	if r.FailUnder > 0 {
		for _, s := range r.Suite {
			got := s.MacroPassRate.Value
			out = append(out, evalreport.ThresholdResult{Scope: s.Variant, Threshold: "macro pass_rate >= " + num(r.FailUnder) + " (--fail-under)", Got: got, Pass: s.Cells > 0 && got >= r.FailUnder})
		}
	}
	return out
}

// finite maps NaN and infinities to 0 for JSON, which cannot hold them;
// the fields that use it say what 0 means there.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
