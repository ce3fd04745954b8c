package stats

import (
	"math"
	"testing"
)

// TestCohenKappaReference checks κ, its Fleiss-Cohen-Everitt standard
// error, the interval and the null standard error against published
// output:
//
//   - SAS PROC FREQ's "Simple Kappa Coefficient" printout for the 3 × 3
//     table [[0,4,1],[0,8,0],[0,1,5]], as statsmodels' test file keeps it
//     (statsmodels/stats/tests/test_inter_rater.py, UnweightedCohens:
//     kappa 0.4842, ASE 0.1380, 95% limits 0.2137 and 0.7547, ASE under
//     H0 0.1484, printed to four decimals);
//   - R's irr package, kappa2(anxiety[,2:3]) on irr's anxiety data
//     (the same test file, test_cohens_kappa_irr: Kappa = -0.006289308,
//     z = -0.0604067; irr's z is κ/SE0).
func TestCohenKappaReference(t *testing.T) {
	t.Parallel()
	sas := CohenKappa([][]float64{{0, 4, 1}, {0, 8, 0}, {0, 1, 5}}, 0.95)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"kappa", sas.Kappa, 0.4842}, {"ASE", sas.SE, 0.1380}, {"lower", sas.Lo, 0.2137},
		{"upper", sas.Hi, 0.7547}, {"ASE under H0", sas.SE0, 0.1484},
	} {
		if math.Abs(c.got-c.want) > 0.00005+1e-9 {
			t.Errorf("SAS table: %s = %.6f, want %.4f (printed to 4 decimals)", c.name, c.got, c.want)
		}
	}
	// irr's anxiety data, raters 2 and 3 (ratings 1-6)
	r2 := []int{3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4}
	r3 := []int{2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2}
	table := make([][]float64, 6)
	for i := range table {
		table[i] = make([]float64, 6)
	}
	for i := range r2 {
		table[r2[i]-1][r3[i]-1]++
	}
	irr := CohenKappa(table, 0.95)
	if math.Abs(irr.Kappa-(-0.006289308)) > 1e-9 {
		t.Errorf("irr anxiety: kappa = %.9f, want -0.006289308", irr.Kappa)
	}
	if z := irr.Kappa / irr.SE0; math.Abs(z-(-0.0604067)) > 1e-7 {
		t.Errorf("irr anxiety: z = %.7f, want -0.0604067", z)
	}
}

func TestCohenKappaEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		table  [][]float64
		want   float64 // κ, NaN for undefined
	}{
		{"perfect agreement over two categories is κ = 1", [][]float64{{5, 0}, {0, 5}}, 1},
		{"agreement at chance is κ = 0", [][]float64{{1, 1}, {1, 1}}, 0},
		{"Wikipedia's 50 proposals (20, 5 / 10, 15) give κ = 0.4", [][]float64{{20, 5}, {10, 15}}, 0.4},
		{"one category for every subject leaves κ undefined (Pe = 1)", [][]float64{{7, 0}, {0, 0}}, math.NaN()},
		{"a table that is not square is refused", [][]float64{{1, 2}}, math.NaN()},
		{"no subjects", [][]float64{{0, 0}, {0, 0}}, math.NaN()},
	}
	for _, tc := range tests {
		got := CohenKappa(tc.table, 0.95).Kappa
		if !(math.IsNaN(got) && math.IsNaN(tc.want)) && math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: κ = %v, want %v", tc.reason, got, tc.want)
		}
	}
}

// reliabilityData is Krippendorff's (2011) worked example, section E
// ("Computing Krippendorff's Alpha-Reliability"), also irr's kripp.alpha
// example: 4 observers, 12 units, missing values.
var reliabilityData = func() [][]float64 {
	n := math.NaN()
	obs := [][]float64{
		{1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n},
		{1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3},
		{n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n},
		{1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n},
	}
	units := make([][]float64, 12)
	for u := range units {
		for _, o := range obs {
			units[u] = append(units[u], o[u])
		}
	}
	return units
}()

// TestKrippendorffAlphaReference: Krippendorff (2011) gives α = 0.743 for
// nominal and 0.849 for interval data on his example (printed to three
// decimals; irr::kripp.alpha(nmm, "nominal") prints 0.743 too).
func TestKrippendorffAlphaReference(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		metric string
		want   float64
	}{{AlphaNominal, 0.743}, {AlphaInterval, 0.849}} {
		if got := KrippendorffAlpha(reliabilityData, c.metric); math.Abs(got-c.want) > 0.0005 {
			t.Errorf("α %s = %.5f, want %.3f", c.metric, got, c.want)
		}
	}
}

func TestKrippendorffAlphaEdges(t *testing.T) {
	t.Parallel()
	n := math.NaN()
	tests := []struct {
		reason string
		values [][]float64
		metric string
		want   float64
	}{
		{"perfect agreement with variation is α = 1", [][]float64{{1, 1}, {0, 0}, {1, 1}}, AlphaNominal, 1},
		{"units with one value are not pairable and do not count", [][]float64{{1, 1}, {0, 0}, {1, n}}, AlphaNominal, 1},
		{"every value the same leaves α undefined", [][]float64{{1, 1}, {1, 1}}, AlphaNominal, n},
		{"an unknown metric", [][]float64{{1, 0}, {0, 1}}, "ordinal", n},
		{"nothing pairable", [][]float64{{1, n}}, AlphaInterval, n},
		// by hand: n = 8 values; D_o = (2 + 2)/8 = 1/2 (two units disagree, each
		// ordered pair weighing 1/(2−1)); D_e = (4·4 + 4·4)/(8·7) = 4/7; α = 1 − 7/8
		{"two raters disagreeing on half the units", [][]float64{{1, 1}, {0, 0}, {1, 0}, {0, 1}}, AlphaNominal, 0.125},
	}
	for _, tc := range tests {
		got := KrippendorffAlpha(tc.values, tc.metric)
		if !(math.IsNaN(got) && math.IsNaN(tc.want)) && math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: α = %v, want %v", tc.reason, got, tc.want)
		}
	}
}

// TestKrippendorffAlphaCI: the interval holds the estimate, is a pure
// function of its seed, and is NaN where α is.
func TestKrippendorffAlphaCI(t *testing.T) {
	t.Parallel()
	a := KrippendorffAlpha(reliabilityData, AlphaNominal)
	lo, hi := KrippendorffAlphaCI(reliabilityData, AlphaNominal, 0.95, 2000, 1)
	if !(lo <= a && a <= hi) || lo < -1 || hi > 1 {
		t.Errorf("interval [%v, %v] does not hold α = %v", lo, hi, a)
	}
	lo2, hi2 := KrippendorffAlphaCI(reliabilityData, AlphaNominal, 0.95, 2000, 1)
	if lo2 != lo || hi2 != hi {
		t.Errorf("same seed, another interval: [%v, %v] then [%v, %v]", lo, hi, lo2, hi2)
	}
	if lo, hi := KrippendorffAlphaCI([][]float64{{1, 1}}, AlphaNominal, 0.95, 100, 1); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("undefined α gave the interval [%v, %v]", lo, hi)
	}
}
