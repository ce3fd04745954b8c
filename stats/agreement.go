package stats

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Kappa is Cohen's κ for two raters with its asymptotic standard errors
// and interval.
type Kappa struct {
	// Kappa is (Po − Pe)/(1 − Pe); Observed is Po, Chance is Pe.
	Kappa, Observed, Chance float64
	// SE is the large-sample standard error of κ̂ (Fleiss, Cohen and
	// Everitt 1969), Lo and Hi the Wald interval κ̂ ∓ z·SE clipped to
	// [−1, 1]; SE0 is the standard error under κ = 0, for the test.
	SE, Lo, Hi, SE0 float64
	// N is the number of subjects both raters rated.
	N float64
}

// CohenKappa computes Cohen's (1960) κ from a k × k table of counts,
// table[i][j] the subjects the first rater put in category i and the
// second in j: with p_ij = table[i][j]/n, row and column margins p_i. and
// p_.j, Po = Σ p_ii and Pe = Σ p_i.·p_.i, κ = (Po − Pe)/(1 − Pe).
//
// Its standard error is Fleiss, Cohen and Everitt's (1969, "Large sample
// standard errors of kappa and weighted kappa", Psychological Bulletin
// 72(5):323-327) large-sample formula, as SAS PROC FREQ computes its ASE:
//
//	Var(κ̂) = [A + B − C] / (n(1 − Pe)²),
//	A = Σ_i p_ii [1 − (p_i. + p_.i)(1 − κ)]²,
//	B = (1 − κ)² Σ_{i≠j} p_ij (p_.i + p_j.)²,
//	C = [κ − Pe(1 − κ)]²;
//
// and under κ = 0, Var0 = [Pe + Pe² − Σ_i p_i.·p_.i(p_i. + p_.i)] /
// (n(1 − Pe)²). The interval is κ̂ ∓ z_{(1+confidence)/2}·SE. It is
// asymptotic: with few subjects, or κ near ±1, it is approximate.
//
// An empty table, one that is not square, a negative count or a
// confidence outside (0, 1) gives NaNs; so does Pe = 1 (both raters put
// every subject in one category, where κ is undefined).
func CohenKappa(table [][]float64, confidence float64) Kappa {
	nan := math.NaN()
	bad := Kappa{Kappa: nan, Observed: nan, Chance: nan, SE: nan, Lo: nan, Hi: nan, SE0: nan}
	k := len(table)
	if k == 0 || !(confidence > 0 && confidence < 1) {
		return bad
	}
	n := 0.0
	for _, row := range table {
		if len(row) != k {
			return bad
		}
		for _, x := range row {
			if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				return bad
			}
			n += x
		}
	}
	if n == 0 {
		return bad
	}
	row, col := make([]float64, k), make([]float64, k)
	po := 0.0
	for i := range k {
		for j := range k {
			p := table[i][j] / n
			row[i] += p
			col[j] += p
			if i == j {
				po += p
			}
		}
	}
	pe := 0.0
	for i := range k {
		pe += row[i] * col[i]
	}
	bad.N, bad.Observed, bad.Chance = n, po, pe
	if pe >= 1 {
		return bad
	}
	kappa := (po - pe) / (1 - pe)
	var a, b, s0 float64
	for i := range k {
		pii := table[i][i] / n
		a += pii * sq(1-(row[i]+col[i])*(1-kappa))
		for j := range k {
			if j != i {
				b += table[i][j] / n * sq(col[i]+row[j])
			}
		}
		s0 += row[i] * col[i] * (row[i] + col[i])
	}
	b *= sq(1 - kappa)
	c := sq(kappa - pe*(1-kappa))
	den := n * sq(1-pe)
	se := math.Sqrt(math.Max(a+b-c, 0) / den)
	se0 := math.Sqrt(math.Max(pe+pe*pe-s0, 0) / den)
	z := distuv.UnitNormal.Quantile((1 + confidence) / 2)
	return Kappa{
		Kappa: kappa, Observed: po, Chance: pe, N: n,
		SE: se, SE0: se0,
		Lo: math.Max(-1, kappa-z*se), Hi: math.Min(1, kappa+z*se),
	}
}

func sq(x float64) float64 { return x * x }

// Metrics of Krippendorff's α: how far apart two values are (δ²).
const (
	// AlphaNominal: values are categories, δ² = 0 when equal, else 1.
	AlphaNominal = "nominal"
	// AlphaInterval: values are numbers, δ² = (c − k)².
	AlphaInterval = "interval"
)

// KrippendorffAlpha computes Krippendorff's α for units rated by any
// number of raters, values[u][r] rater r's value for unit u and NaN where
// r did not rate u, with the nominal or interval metric, as Krippendorff
// (2011, "Computing Krippendorff's Alpha-Reliability", Annenberg School
// for Communication, University of Pennsylvania) defines it: only units
// with at least two values count (pairable values, n in all); each
// ordered pair of values of one unit from different raters weighs
// 1/(m_u − 1), m_u the unit's values;
//
//	D_o = (1/n) Σ_u 1/(m_u − 1) Σ_{i≠j in u} δ²(v_i, v_j),
//	D_e = 1/(n(n − 1)) Σ_{i≠j over all pairable values} δ²(v_i, v_j),
//	α = 1 − D_o/D_e.
//
// Fewer than two pairable values, an unknown metric, or D_e = 0 (every
// value the same, where α is undefined) give NaN.
func KrippendorffAlpha(values [][]float64, metric string) float64 {
	if metric != AlphaNominal && metric != AlphaInterval {
		return math.NaN()
	}
	units := pairable(values)
	return alphaOf(units, metric)
}

// pairable keeps each unit's values, without NaNs, when it has two or
// more.
func pairable(values [][]float64) [][]float64 {
	var units [][]float64
	for _, row := range values {
		var u []float64
		for _, v := range row {
			if !math.IsNaN(v) {
				u = append(u, v)
			}
		}
		if len(u) >= 2 {
			units = append(units, u)
		}
	}
	return units
}

func alphaOf(units [][]float64, metric string) float64 {
	delta := func(a, b float64) float64 {
		if metric == AlphaNominal {
			if a == b {
				return 0
			}
			return 1
		}
		return sq(a - b)
	}
	n, do := 0.0, 0.0
	counts := map[float64]float64{}
	var sum, sumSq float64
	for _, u := range units {
		m := float64(len(u))
		within := 0.0
		for i := range u {
			for j := range u {
				if i != j {
					within += delta(u[i], u[j])
				}
			}
			counts[u[i]]++
			sum += u[i]
			sumSq += u[i] * u[i]
		}
		do += within / (m - 1)
		n += m
	}
	if n < 2 {
		return math.NaN()
	}
	do /= n
	var pairs float64 // Σ_{i≠j} δ² over all pairable values
	if metric == AlphaNominal {
		for _, c := range counts {
			pairs += c * (n - c)
		}
	} else {
		pairs = 2*n*sumSq - 2*sum*sum
	}
	de := pairs / (n * (n - 1))
	if de <= 0 {
		return math.NaN()
	}
	return 1 - do/de
}

// KrippendorffAlphaCI is a percentile bootstrap interval for
// KrippendorffAlpha: resamples draws of the pairable units with
// replacement (a PCG seeded with seed), α of each, and the
// (1 ∓ confidence)/2 quantiles of those that are defined. Resampling whole
// units keeps each unit's ratings together; Zapf et al. (2016, "Measuring
// inter-rater reliability for nominal data – which coefficients and
// confidence intervals are appropriate?", BMC Medical Research
// Methodology 16:93) found this interval for α to cover close to its
// level from about 50 units on. It is approximate below that.
//
// What KrippendorffAlpha gives NaN for, resamples < 1, a confidence
// outside (0, 1), or fewer than half the resamples defined give NaNs.
func KrippendorffAlphaCI(values [][]float64, metric string, confidence float64, resamples int, seed uint64) (lo, hi float64) {
	units := pairable(values)
	if resamples < 1 || !(confidence > 0 && confidence < 1) || math.IsNaN(KrippendorffAlpha(values, metric)) {
		return math.NaN(), math.NaN()
	}
	rng := rand.New(rand.NewPCG(seed, agreementStream))
	draw := make([][]float64, len(units))
	alphas := make([]float64, 0, resamples)
	for range resamples {
		for i := range draw {
			draw[i] = units[rng.IntN(len(units))]
		}
		if a := alphaOf(draw, metric); !math.IsNaN(a) {
			alphas = append(alphas, a)
		}
	}
	if len(alphas) < resamples/2 || len(alphas) == 0 {
		return math.NaN(), math.NaN()
	}
	return percentileInterval(alphas, confidence)
}

// agreementStream is the PCG stream of KrippendorffAlphaCI's draws.
const agreementStream = 0x6b72_6970_7061 // "krippa"
