package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ClopperPearson returns the Clopper–Pearson ("exact") interval for a
// binomial proportion: the p whose one-sided binomial tests do not reject
// successes out of n at (1−confidence)/2 each (Clopper & Pearson 1934,
// "The use of confidence or fiducial limits illustrated in the case of
// the binomial", Biometrika 26:404-413). With α = 1 − confidence,
//
//	lo = B(α/2; x, n−x+1)       (0 when x = 0)
//	hi = B(1−α/2; x+1, n−x)     (1 when x = n)
//
// B(q; a, b) the q quantile of the Beta(a, b) distribution
// (scipy.stats.beta.ppf, R qbeta). Its coverage is at least the
// confidence at every p and n, where Wilson's dips well under it near 0
// and 1 at small n (Brown, Cai & DasGupta 2001, Statistical Science
// 16:101-133, fig. 5; at n = 10 and p = 0.99 Wilson covers 0.90).
//
// successes may be fractional: the sum of n scores in [0, 1]. Then the
// interval is the "binomialized" one for a bounded mean, whose variance
// is at most μ(1−μ); eval measures its coverage by simulation. n = 0
// gives [0, 1]; invalid arguments give NaNs.
func ClopperPearson(successes float64, n int, confidence float64) (lo, hi float64) {
	nf := float64(n)
	if n < 0 || successes < 0 || successes > nf || !(confidence > 0 && confidence < 1) || math.IsNaN(successes) {
		return math.NaN(), math.NaN()
	}
	if n == 0 {
		return 0, 1
	}
	a := (1 - confidence) / 2
	lo, hi = 0, 1
	if successes > 0 {
		lo = distuv.Beta{Alpha: successes, Beta: nf - successes + 1}.Quantile(a)
	}
	if successes < nf {
		hi = distuv.Beta{Alpha: successes + 1, Beta: nf - successes}.Quantile(1 - a)
	}
	return lo, hi
}

// BinomialBelowP is the one-sided exact binomial p-value of successes out
// of n against H0: p ≥ p0, that is P(X ≤ successes) for X ~ Binomial(n,
// p0) (R binom.test(x, n, p0, alternative = "less")). A small value is
// evidence that the true rate is below p0. n = 0 gives 1.
func BinomialBelowP(successes, n int, p0 float64) float64 {
	if n <= 0 {
		return 1
	}
	if p0 <= 0 {
		if successes > 0 {
			return 1
		}
		return 1
	}
	if p0 >= 1 {
		if successes < n {
			return 0
		}
		return 1
	}
	return math.Min(1, distuv.Binomial{N: float64(n), P: p0}.CDF(float64(successes)))
}
