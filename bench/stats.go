package bench

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the confidence level of every interval this package
// reports.
const Confidence = 0.95

// Alpha is the significance level of Compare's Mann-Whitney U tests.
const Alpha = 0.05

// Median returns the sample median: the middle value, or the mean of the
// two middle values for an even count. It returns NaN for no values.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := sorted(xs)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// MedianCI returns a distribution-free confidence interval for the median
// at level conf, built from order statistics as benchstat does: the
// interval [x(j), x(n+1-j)] of the sorted sample, with j the largest rank
// whose binomial coverage 1 - 2·P(Binomial(n, ½) < j) is still at least
// conf. achieved is that coverage. With too few values for any such j
// (fewer than 6 at 95%) the interval is the whole range [min, max] and
// achieved, 1 - 2·½ⁿ, is below conf. No values give NaNs.
func MedianCI(xs []float64, conf float64) (lo, hi, achieved float64) {
	n := len(xs)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s := sorted(xs)
	b := distuv.Binomial{N: float64(n), P: 0.5}
	j := 1
	for k := 2; 2*k <= n+1; k++ {
		if 1-2*b.CDF(float64(k-1)) < conf {
			break
		}
		j = k
	}
	return s[j-1], s[n-j], 1 - 2*b.CDF(float64(j-1))
}

// Summary is the point estimate and 95% interval of one metric's samples.
type Summary struct {
	// N is the number of samples.
	N      int
	Median float64
	// CILow and CIHigh bound the median at level Achieved (see MedianCI).
	CILow, CIHigh float64
	Achieved      float64
}

// Summarize returns the median of xs and its 95% confidence interval.
func Summarize(xs []float64) Summary {
	lo, hi, conf := MedianCI(xs, Confidence)
	return Summary{N: len(xs), Median: Median(xs), CILow: lo, CIHigh: hi, Achieved: conf}
}

// Spread returns the larger distance from the median to an end of the
// interval, relative to the median ("± 3%" in tables); +Inf when the
// interval does not reach 95% confidence, as benchstat prints "± ∞".
func (s Summary) Spread() float64 {
	if s.N == 0 || s.Achieved < Confidence {
		return math.Inf(1)
	}
	if s.Median == 0 {
		if s.CILow == 0 && s.CIHigh == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return math.Max(s.CIHigh-s.Median, s.Median-s.CILow) / math.Abs(s.Median)
}

// Percentiles are the latency percentiles the reports print: p50, p90,
// p99, p99.9 and the maximum.
type Percentiles struct {
	P50, P90, P99, P999, Max float64
}

// Percentile returns the p-quantile (0 ≤ p ≤ 1) of xs by the nearest-rank
// definition: the smallest value with at least p·n values at or below it
// (gonum's stat.Empirical). NaN for no values.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return stat.Quantile(p, stat.Empirical, sorted(xs), nil)
}

// PercentilesOf returns the p50, p90, p99, p99.9 and maximum of xs.
func PercentilesOf(xs []float64) Percentiles {
	if len(xs) == 0 {
		nan := math.NaN()
		return Percentiles{nan, nan, nan, nan, nan}
	}
	s := sorted(xs)
	q := func(p float64) float64 { return stat.Quantile(p, stat.Empirical, s, nil) }
	return Percentiles{P50: q(0.50), P90: q(0.90), P99: q(0.99), P999: q(0.999), Max: s[len(s)-1]}
}

// Bucket is one histogram bin: the values v with Low ≤ v < High.
type Bucket struct {
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Count int     `json:"count"`
}

// Histogram bins values on the 1-2-5 series (…, 0.5, 1, 2, 5, 10, 20,
// …): readable edges, three bins per decade, from the bin holding the
// smallest positive value to the bin holding the largest. Empty bins
// between occupied ones are kept. Values ≤ 0 share one first bin from the
// smallest of them up to the first edge.
func Histogram(xs []float64) []Bucket {
	if len(xs) == 0 {
		return nil
	}
	s := sorted(xs)
	i := 0
	for i < len(s) && s[i] <= 0 {
		i++
	}
	if i == len(s) {
		return []Bucket{{Low: s[0], High: math.Nextafter(s[i-1], math.Inf(1)), Count: i}}
	}
	lo := edgeAtOrBelow(s[i])
	var out []Bucket
	if i > 0 {
		out = append(out, Bucket{Low: s[0], High: lo, Count: i})
	}
	for i < len(s) {
		b := Bucket{Low: lo, High: nextEdge(lo)}
		for i < len(s) && s[i] < b.High {
			b.Count++
			i++
		}
		out = append(out, b)
		lo = b.High
	}
	return out
}

// edgeAtOrBelow returns the largest 1-2-5 edge ≤ v (v > 0).
func edgeAtOrBelow(v float64) float64 {
	if v <= 0 {
		return 0
	}
	e := math.Floor(math.Log10(v))
	base := math.Pow(10, e)
	// guard against Log10 rounding (e.g. 1000 → 2.9999…)
	for base > v {
		base /= 10
	}
	for base*10 <= v {
		base *= 10
	}
	switch {
	case v >= 5*base:
		return 5 * base
	case v >= 2*base:
		return 2 * base
	}
	return base
}

// nextEdge returns the 1-2-5 edge after the edge e.
func nextEdge(e float64) float64 {
	base := math.Pow(10, math.Floor(math.Log10(e)))
	for base > e {
		base /= 10
	}
	for base*10 <= e {
		base *= 10
	}
	switch m := math.Round(e / base); m {
	case 1:
		return 2 * base
	case 2:
		return 5 * base
	}
	return 10 * base
}

// MannWhitney is the outcome of a two-sided Mann-Whitney U test.
type MannWhitney struct {
	// U is the statistic of the first sample: the number of pairs (x, y)
	// with x > y, ties counting one half.
	U float64
	// P is the two-sided p-value.
	P float64
	// Exact tells whether P comes from the exact distribution of U (no
	// ties, at most 50 values in each sample) or from the normal
	// approximation with tie and continuity corrections.
	Exact bool
}

// Significant reports whether the test rejects "same distribution" at
// level Alpha.
func (m MannWhitney) Significant() bool { return m.P < Alpha }

// MannWhitneyU tests whether x and y come from the same distribution
// (two-sided), as benchstat does to decide whether a change is real. It
// returns P = 1 when either sample is empty.
func MannWhitneyU(x, y []float64) MannWhitney {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return MannWhitney{P: 1}
	}
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	slices.SortStableFunc(all, func(a, b obs) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	// Mid-ranks; tieTerm accumulates Σ(t³ - t) over groups of ties.
	var r1, tieTerm float64
	ties := false
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+1+j) / 2
		if t := float64(j - i); t > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		for k := i; k < j; k++ {
			if all[k].first {
				r1 += rank
			}
		}
		i = j
	}
	u := r1 - float64(n1*(n1+1))/2
	if !ties && n1 <= 50 && n2 <= 50 {
		return MannWhitney{U: u, P: exactMannWhitneyP(n1, n2, u), Exact: true}
	}
	nn := float64(n1 + n2)
	mean := float64(n1*n2) / 2
	variance := float64(n1*n2) / 12 * ((nn + 1) - tieTerm/(nn*(nn-1)))
	if variance <= 0 {
		return MannWhitney{U: u, P: 1}
	}
	d := math.Abs(u-mean) - 0.5
	if d < 0 {
		d = 0
	}
	z := d / math.Sqrt(variance)
	p := 2 * distuv.UnitNormal.Survival(z)
	return MannWhitney{U: u, P: math.Min(1, p)}
}

// exactMannWhitneyP is the two-sided p-value of U = u for samples of n1
// and n2 values without ties: twice the smaller tail of U's exact
// distribution, at most 1.
func exactMannWhitneyP(n1, n2 int, u float64) float64 {
	// counts[k] = number of arrangements with U = k, built by the
	// recurrence f(m, n, k) = f(m-1, n, k-n) + f(m, n-1, k).
	maxU := n1 * n2
	// f[n][k] for the current m, n = 0..n2
	prev := make([][]float64, n2+1)
	for n := range prev {
		prev[n] = make([]float64, maxU+1)
		prev[n][0] = 1 // m = 0: U is 0
	}
	for m := 1; m <= n1; m++ {
		cur := make([][]float64, n2+1)
		cur[0] = make([]float64, maxU+1)
		cur[0][0] = 1 // n = 0: U is 0
		for n := 1; n <= n2; n++ {
			cur[n] = make([]float64, maxU+1)
			for k := 0; k <= m*n; k++ {
				v := cur[n-1][k]
				if k >= n {
					v += prev[n][k-n]
				}
				cur[n][k] = v
			}
		}
		prev = cur
	}
	counts := prev[n2]
	var total, below, above float64
	for k, c := range counts {
		total += c
		if float64(k) <= u {
			below += c
		}
		if float64(k) >= u {
			above += c
		}
	}
	return math.Min(1, 2*math.Min(below, above)/total)
}

// GeoMean returns the geometric mean of xs, which must all be positive;
// NaN when one is not or there are none.
func GeoMean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	for _, v := range xs {
		if !(v > 0) {
			return math.NaN()
		}
	}
	return stat.GeometricMean(xs, nil)
}

// Growth describes how a cost t grows with a size x, from measurements
// at several sizes.
type Growth struct {
	// Exponent is e of the power law t = Coef · xᵉ fitted to all points
	// (least squares on the logarithms, gonum's stat.LinearRegression);
	// R2 is that fit's coefficient of determination. A fixed cost at
	// small x pulls Exponent below the growth at large x.
	Exponent, Coef, R2 float64
	// TailExponent is the local exponent between the two largest sizes,
	// log(t₂/t₁) / log(x₂/x₁): how the cost grows where it is largest.
	TailExponent float64
	// Intercept and Slope are the straight line t = Intercept + Slope·x
	// fitted by least squares, with its LinearR2: Slope is the marginal
	// cost of one more unit of x.
	Intercept, Slope, LinearR2 float64
	// Class names TailExponent: "flat" (< 0.15), "sublinear" (< 0.85),
	// "linear" (< 1.15), "superlinear" (< 1.85) or "quadratic+".
	Class string
}

// FitGrowth fits the cost t[i] measured at size x[i] (see Growth). It
// needs at least two distinct positive x and positive t; otherwise the
// fit is NaN with Class "unknown".
func FitGrowth(x, t []float64) Growth {
	nan := math.NaN()
	bad := Growth{nan, nan, nan, nan, nan, nan, nan, "unknown"}
	if len(x) != len(t) || len(x) < 2 {
		return bad
	}
	lx := make([]float64, len(x))
	lt := make([]float64, len(t))
	hi, next := -1, -1 // indexes of the largest and second largest x
	for i := range x {
		if !(x[i] > 0) || !(t[i] > 0) {
			return bad
		}
		lx[i], lt[i] = math.Log(x[i]), math.Log(t[i])
		switch {
		case hi < 0 || x[i] > x[hi]:
			hi, next = i, hi
		case x[i] < x[hi] && (next < 0 || x[i] > x[next]):
			next = i
		}
	}
	if next < 0 {
		return bad
	}
	alpha, beta := stat.LinearRegression(lx, lt, nil, false)
	a, b := stat.LinearRegression(x, t, nil, false)
	g := Growth{
		Exponent: beta, Coef: math.Exp(alpha), R2: stat.RSquared(lx, lt, nil, alpha, beta),
		TailExponent: math.Log(t[hi]/t[next]) / math.Log(x[hi]/x[next]),
		Intercept:    a, Slope: b, LinearR2: stat.RSquared(x, t, nil, a, b),
	}
	switch e := g.TailExponent; {
	case e < 0.15:
		g.Class = "flat"
	case e < 0.85:
		g.Class = "sublinear"
	case e < 1.15:
		g.Class = "linear"
	case e < 1.85:
		g.Class = "superlinear"
	default:
		g.Class = "quadratic+"
	}
	return g
}

func sorted(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}
