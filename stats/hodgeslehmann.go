package stats

import (
	"math"
	"slices"
)

// HodgesLehmann returns the Hodges–Lehmann estimate of the shift from x
// to y, the median of the n₁n₂ differences y_j − x_i (Hodges & Lehmann
// 1963, "Estimates of location based on rank tests", Ann. Math. Statist.
// 34:598-611), and its confidence interval, the one that goes with the
// Mann-Whitney test (Bauer 1972, JASA 67:687-690; Hollander & Wolfe,
// Nonparametric Statistical Methods, §4.3): with D₍₁₎ ≤ … ≤ D₍ₙ₁ₙ₂₎ the
// sorted differences and
//
//	k = ⌊n₁n₂/2 − z·√(n₁n₂(n₁+n₂+1)/12)⌋,  z the (1+confidence)/2 normal quantile
//
// the interval is [D₍ₖ₎, D₍ₙ₁ₙ₂₊₁₋ₖ₎] (k at least 1). It is the set of
// shifts δ that the two-sided test of x + δ against y does not reject
// (normal approximation); it is in the units of the data, which a ratio
// of medians is not, and estimates what Mann-Whitney tests. Either
// sample empty gives NaNs.
func HodgesLehmann(x, y []float64, confidence float64) (shift, lo, hi float64) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 || !(confidence > 0 && confidence < 1) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	d := make([]float64, 0, n1*n2)
	for _, a := range x {
		for _, b := range y {
			d = append(d, b-a)
		}
	}
	slices.Sort(d)
	m := len(d)
	if m%2 == 1 {
		shift = d[m/2]
	} else {
		shift = (d[m/2-1] + d[m/2]) / 2
	}
	z := normalQuantile(confidence)
	nn := float64(n1 * n2)
	k := int(math.Floor(nn/2 - z*math.Sqrt(nn*float64(n1+n2+1)/12)))
	k = max(k, 1)
	return shift, d[k-1], d[m-k]
}
