package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Stratum is one 2×2 table of a stratified comparison of two pass rates:
// Passed1 of N1 trials on the first side, Passed2 of N2 on the second.
type Stratum struct {
	Passed1, N1, Passed2, N2 int
}

// CochranMantelHaenszel returns the Cochran–Mantel–Haenszel statistic and
// its p-value for a common difference between two pass rates across
// strata (scenarios), with the continuity correction (Mantel & Haenszel
// 1959, JNCI 22:719-748; Agresti, Categorical Data Analysis, 3rd ed.,
// §6.4.2; R mantelhaen.test(correct = TRUE) for 2×2×K tables). With a_k
// the first side's passes, m_k = a_k + c_k all passes and T_k = N1+N2,
//
//	E_k = N1·m_k/T_k,  V_k = N1·N2·m_k·(T_k − m_k) / (T_k²(T_k − 1))
//	χ² = (|Σ(a_k − E_k)| − ½)² / Σ V_k,  p = P(χ²₁ > χ²)
//
// Each scenario is compared only with itself: a hard scenario's trials
// are never pooled with an easy one's. Strata with fewer than two
// trials, or where every trial passed or every one failed, carry no
// information (V_k = 0). With no information at all the statistic is 0
// and p is 1.
func CochranMantelHaenszel(strata []Stratum) (chi2, p float64) {
	var d, v float64
	for _, s := range strata {
		t := float64(s.N1 + s.N2)
		if t < 2 || s.N1 == 0 || s.N2 == 0 {
			continue
		}
		m := float64(s.Passed1 + s.Passed2)
		d += float64(s.Passed1) - float64(s.N1)*m/t
		v += float64(s.N1) * float64(s.N2) * m * (t - m) / (t * t * (t - 1))
	}
	if v <= 0 {
		return 0, 1
	}
	x := math.Max(0, math.Abs(d)-0.5)
	chi2 = x * x / v
	return chi2, math.Min(1, distuv.ChiSquared{K: 1}.Survival(chi2))
}

// MoverTerm is one term c·θ of a linear combination of independent
// estimates, with θ's interval [Lo, Hi].
type MoverTerm struct {
	Coef, Est, Lo, Hi float64
}

// MoverSum returns the MOVER interval for Σ c_k θ_k, the θ_k independent
// (Zou & Donner 2008, "Construction of confidence limits about effect
// measures: a general approach", Statistics in Medicine 27:1693-1702,
// eq. 4): each term's distance to its own limits recovers its variance
// near that limit,
//
//	L = θ̂ − √(Σ c_k² (θ̂_k − l*_k)²),  l*_k = l_k if c_k > 0 else u_k
//	U = θ̂ + √(Σ c_k² (u*_k − θ̂_k)²),  u*_k = u_k if c_k > 0 else l_k
//
// Newcombe's hybrid score interval for a difference of two proportions
// is this with Wilson limits and coefficients ±1; the macro pass rate and
// the overall change are it with coefficients ±1/S. The interval is as
// wide as the terms' own intervals allow: never of zero width unless
// every term's is.
func MoverSum(terms []MoverTerm) (est, lo, hi float64) {
	var dl, du float64
	for _, t := range terms {
		est += t.Coef * t.Est
		l, u := t.Lo, t.Hi
		if t.Coef < 0 {
			l, u = u, l
		}
		dl += t.Coef * t.Coef * (t.Est - l) * (t.Est - l)
		du += t.Coef * t.Coef * (u - t.Est) * (u - t.Est)
	}
	return est, est - math.Sqrt(dl), est + math.Sqrt(du)
}
