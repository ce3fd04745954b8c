package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Reference values: scipy 1.10.1 (scipy.stats.beta.ppf, binom.cdf,
// chi2.sf) and R's documented p.adjust and power.prop.test, as each case
// says.
func TestClopperPearsonMatchesScipy(t *testing.T) {
	t.Parallel()
	cases := []struct {
		why    string
		x      float64
		n      int
		lo, hi float64
	}{
		{"all passed: not [1, 1] (scipy beta.ppf(0.025, 10, 1))", 10, 10, 0.6915028921812392, 1},
		{"9 of 10 (beta.ppf(0.025, 9, 2), beta.ppf(0.975, 10, 1))", 9, 10, 0.5549838829718047, 0.9974714214555382},
		{"none passed: lo exactly 0", 0, 10, 0, 0.3084971078187608},
		{"3 of 7", 3, 7, 0.09898827844250786, 0.8159484323599169},
		{"one trial: the widest interval that still says something", 1, 1, 0.025, 1},
		{"no trials: no information", 0, 0, 0, 1},
	}
	for _, c := range cases {
		lo, hi := ClopperPearson(c.x, c.n, 0.95)
		if math.Abs(lo-c.lo) > 1e-9 || math.Abs(hi-c.hi) > 1e-9 {
			t.Errorf("%s: ClopperPearson(%v, %d) = [%v, %v], want [%v, %v]", c.why, c.x, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

func TestBinomialBelowPMatchesScipy(t *testing.T) {
	t.Parallel()
	cases := []struct {
		why  string
		x, n int
		p0   float64
		want float64
	}{
		{"14/20 against 0.8: scipy binom.cdf(14, 20, 0.8)", 14, 20, 0.8, 0.19579221454045043},
		{"7/10 against 0.8: binom.cdf(7, 10, 0.8)", 7, 10, 0.8, 0.32220047359999987},
		{"no trials: no evidence", 0, 0, 0.8, 1},
		{"all passed is never evidence of a low rate", 10, 10, 0.8, 1},
	}
	for _, c := range cases {
		if got := BinomialBelowP(c.x, c.n, c.p0); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: got %v, want %v", c.why, got, c.want)
		}
	}
}

func TestMultiplicityMatchesRPAdjust(t *testing.T) {
	t.Parallel()
	// R: p.adjust(c(0.01, 0.04, 0.03, 0.5), "holm") = 0.04 0.09 0.09 0.50;
	// p.adjust(..., "BH") = 0.04 0.05333 0.05333 0.50.
	ps := []float64{0.01, 0.04, 0.03, 0.5}
	cases := []struct {
		why  string
		got  []float64
		want []float64
	}{
		{"Holm: steps down with m, m−1, ... and stays monotone", Holm(ps), []float64{0.04, 0.09, 0.09, 0.5}},
		{"BH: steps up with m/rank and stays monotone", BenjaminiHochberg(ps), []float64{0.04, 0.16 / 3, 0.16 / 3, 0.5}},
		{"Holm of nothing", Holm(nil), []float64{}},
		{"a NaN counts as 1", Holm([]float64{math.NaN(), 0.01}), []float64{1, 0.02}},
	}
	for _, c := range cases {
		if len(c.got) != len(c.want) {
			t.Fatalf("%s: %v, want %v", c.why, c.got, c.want)
		}
		for i := range c.got {
			if math.Abs(c.got[i]-c.want[i]) > 1e-12 {
				t.Errorf("%s: %v, want %v", c.why, c.got, c.want)
				break
			}
		}
	}
}

func TestCochranMantelHaenszel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		why     string
		strata  []Stratum
		chi2, p float64
	}{
		// B1: two scenarios 10/10 → 9/10. By hand: a−E = 0.5 per stratum,
		// V = 10·10·19·1/(20²·19) = 0.25; χ² = (1 − 0.5)²/0.5 = 0.5;
		// scipy chi2.sf(0.5, 1) = 0.4795. Not p = 0.
		{"equal differences in every scenario are not certainty", []Stratum{{10, 10, 9, 10}, {10, 10, 9, 10}}, 0.5, 0.47950012218695337},
		{"all passed on both sides: no information", []Stratum{{10, 10, 10, 10}, {5, 5, 5, 5}}, 0, 1},
		// By hand: a−E = 10 − 10·12/20 = 4, V = 10·10·12·8/(400·19) =
		// 1.263158; χ² = 3.5²/1.263158 = 9.6979; chi2.sf = 0.0018451.
		{"a strong drop in one scenario", []Stratum{{10, 10, 2, 10}}, 9.697916666666666, 0.0018451},
		{"a stratum with one side empty is left out", []Stratum{{10, 10, 0, 0}}, 0, 1},
	}
	for _, c := range cases {
		chi2, p := CochranMantelHaenszel(c.strata)
		if math.Abs(chi2-c.chi2) > 1e-9 || math.Abs(p-c.p) > 1e-6 {
			t.Errorf("%s: χ² = %v, p = %v; want %v, %v", c.why, chi2, p, c.chi2, c.p)
		}
	}
}

func TestMoverSumIsNewcombeForTwoTerms(t *testing.T) {
	t.Parallel()
	// Newcombe's method 10 is MOVER with Wilson limits (Zou & Donner 2008).
	for _, c := range [][4]int{{10, 10, 9, 10}, {3, 10, 8, 12}, {0, 5, 5, 5}} {
		l1, u1 := Wilson(c[0], c[1], 0.95)
		l2, u2 := Wilson(c[2], c[3], 0.95)
		p1, p2 := float64(c[0])/float64(c[1]), float64(c[2])/float64(c[3])
		_, lo, hi := MoverSum([]MoverTerm{{1, p2, l2, u2}, {-1, p1, l1, u1}})
		wlo, whi := newcombe(c[2], c[3], c[0], c[1], 0.95)
		if math.Abs(lo-wlo) > 1e-12 || math.Abs(hi-whi) > 1e-12 {
			t.Errorf("%v: MOVER [%v, %v], Newcombe [%v, %v]", c, lo, hi, wlo, whi)
		}
	}
	if _, lo, hi := MoverSum([]MoverTerm{{0.5, 1, 0.72, 1}, {0.5, 1, 0.72, 1}}); hi-lo < 0.1 {
		t.Errorf("two cells at 10/10: macro interval [%v, %v] narrower than the cells' evidence", lo, hi)
	}
}

func TestHodgesLehmann(t *testing.T) {
	t.Parallel()
	cases := []struct {
		why           string
		x, y          []float64
		shift, lo, hi float64
	}{
		// Differences y−x of {1,2,3,4} and {3,5,6,9}: median 3; k =
		// ⌊8 − 1.96·√12⌋ = 1: the whole range [−1, 8].
		{"shift is the median of the pairwise differences", []float64{1, 2, 3, 4}, []float64{3, 5, 6, 9}, 3, -1, 8},
		{"the same sample twice: no shift", []float64{1, 2, 3}, []float64{1, 2, 3}, 0, -2, 2},
		{"a constant shift of 100 is 100, not a ratio", []float64{100, 100, 100, 100, 100, 100}, []float64{200, 200, 200, 200, 200, 200}, 100, 100, 100},
	}
	for _, c := range cases {
		s, lo, hi := HodgesLehmann(c.x, c.y, 0.95)
		if s != c.shift || lo != c.lo || hi != c.hi {
			t.Errorf("%s: %v [%v, %v], want %v [%v, %v]", c.why, s, lo, hi, c.shift, c.lo, c.hi)
		}
	}
}

func TestHodgesLehmannCoverage(t *testing.T) {
	t.Parallel()
	// Exponential samples (skewed, like latency) shifted by 1, 10 each: the
	// interval should hold the true shift about 95% of the time.
	rng := rand.New(rand.NewPCG(1, 2))
	hit, runs := 0, 2000
	for range runs {
		x, y := make([]float64, 10), make([]float64, 10)
		for i := range x {
			x[i] = rng.ExpFloat64()
			y[i] = rng.ExpFloat64() + 1
		}
		_, lo, hi := HodgesLehmann(x, y, 0.95)
		if lo <= 1 && 1 <= hi {
			hit++
		}
	}
	if c := float64(hit) / float64(runs); c < 0.93 || c > 0.99 {
		t.Errorf("coverage %.3f, want about 0.95", c)
	}
}

func TestPowerAndSampleSize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		why  string
		got  float64
		want float64
	}{
		// Fleiss et al. (2003) eq. 4.19: n' = n/4·(1 + √(1 + 4/(nδ)))² with
		// n = 76.7 (R power.prop.test(p1 = .5, p2 = .75, power = .9)) is
		// 84.5, so 85 trials per side.
		{"Fleiss' continuity-corrected n for 0.5 vs 0.75 at 90%", float64(SampleSizeTwoProportions(0.5, 0.75, 0.05, 0.9)), 85},
		// Issue 30: at 10 trials a side a drop from 1.0 must be about 0.6.
		{"MDE at n = 10 from 1.0", math.Round(MinimumDetectableEffect(1, 10, 10, 0.05, 0.8)*100) / 100, 0.64},
		{"no trials: no power", PowerTwoProportions(0.5, 0.9, 0, 10, 0.05), 0},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.why, c.got, c.want)
		}
	}
}
