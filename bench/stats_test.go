package bench

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// approx compares floats to 12 significant digits: the expected values
// below are exact, gonum computes some of them through logarithms.
var approx = cmpopts.EquateApprox(1e-12, 1e-12)

func seq(lo, hi int) []float64 {
	var out []float64
	for i := lo; i <= hi; i++ {
		out = append(out, float64(i))
	}
	return out
}

func TestMedian(t *testing.T) {
	tests := []struct {
		reason string
		xs     []float64
		want   float64
	}{
		{"odd count: the middle value, whatever the input order", []float64{3, 1, 2}, 2},
		{"even count: the mean of the two middle values", []float64{4, 1, 3, 2}, 2.5},
		{"one value is its own median", []float64{7}, 7},
		{"outliers do not move it", []float64{1, 2, 3, 4, 1000}, 3},
	}
	for _, tc := range tests {
		if got := Median(tc.xs); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v (%s)", tc.xs, got, tc.want, tc.reason)
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
}

func TestMedianCI(t *testing.T) {
	type ci struct{ Lo, Hi, Achieved float64 }
	tests := []struct {
		reason string
		xs     []float64
		want   ci
	}{
		{"n=10: ranks 2 and 9, coverage 1 - 2·11/1024", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1},
			ci{2, 9, 1 - 22.0/1024}},
		{"n=20: ranks 6 and 15, coverage 1 - 2·21700/2²⁰", seq(1, 20),
			ci{6, 15, 1 - 43400.0/1048576}},
		{"n=6 is the smallest count that reaches 95%: the whole range, 1 - 2/64", seq(1, 6),
			ci{1, 6, 1 - 2.0/64}},
		{"n=5 cannot reach 95%: the whole range at 1 - 2/32", seq(1, 5),
			ci{1, 5, 1 - 2.0/32}},
	}
	for _, tc := range tests {
		lo, hi, achieved := MedianCI(tc.xs, Confidence)
		if diff := cmp.Diff(tc.want, ci{lo, hi, achieved}, approx); diff != "" {
			t.Errorf("MedianCI(%v) mismatch (-want +got):\n%s%s", tc.xs, diff, tc.reason)
		}
	}
}

func TestSummarySpread(t *testing.T) {
	tests := []struct {
		reason string
		xs     []float64
		want   float64
	}{
		{"the larger side of the interval, relative: median 5.5, CI [2, 9] → 3.5/5.5", seq(1, 10), 3.5 / 5.5},
		{"below 95% confidence the spread is infinite, as benchstat's ± ∞", seq(1, 5), math.Inf(1)},
		{"identical samples have no spread", []float64{4, 4, 4, 4, 4, 4}, 0},
	}
	for _, tc := range tests {
		if got := Summarize(tc.xs).Spread(); !cmp.Equal(got, tc.want, approx) {
			t.Errorf("Summarize(%v).Spread() = %v, want %v (%s)", tc.xs, got, tc.want, tc.reason)
		}
	}
}

func TestPercentiles(t *testing.T) {
	tests := []struct {
		reason string
		xs     []float64
		want   Percentiles
	}{
		{"1..1000: nearest rank, so p99.9 is the 999th value", seq(1, 1000),
			Percentiles{P50: 500, P90: 900, P99: 990, P999: 999, Max: 1000}},
		{"1..10: p99 and p99.9 round up to the largest value", seq(1, 10),
			Percentiles{P50: 5, P90: 9, P99: 10, P999: 10, Max: 10}},
		{"one slow outlier among 100 shows at p99.9 and max only",
			append(seq(1, 99), 5000),
			Percentiles{P50: 50, P90: 90, P99: 99, P999: 5000, Max: 5000}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, PercentilesOf(tc.xs)); diff != "" {
			t.Errorf("PercentilesOf mismatch (-want +got):\n%s%s", diff, tc.reason)
		}
	}
	if got := Percentile([]float64{3, 1, 2}, 0.5); got != 2 {
		t.Errorf("Percentile(unsorted, 0.5) = %v, want 2", got)
	}
}

func TestHistogram(t *testing.T) {
	tests := []struct {
		reason string
		xs     []float64
		want   []Bucket
	}{
		{"1-2-5 edges from the smallest value's bin; the empty [5, 10) bin is kept",
			[]float64{0.7, 1, 1.5, 3, 3, 12},
			[]Bucket{{0.5, 1, 1}, {1, 2, 2}, {2, 5, 2}, {5, 10, 0}, {10, 20, 1}}},
		{"a value on an edge belongs to the bin it starts", []float64{100, 200, 500},
			[]Bucket{{100, 200, 1}, {200, 500, 1}, {500, 1000, 1}}},
		{"non-positive values share a first bin up to the first edge", []float64{-1, 0, 3},
			[]Bucket{{-1, 2, 2}, {2, 5, 1}}},
		{"no values, no bins", nil, nil},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, Histogram(tc.xs)); diff != "" {
			t.Errorf("Histogram(%v) mismatch (-want +got):\n%s%s", tc.xs, diff, tc.reason)
		}
	}
}

func TestMannWhitneyU(t *testing.T) {
	// With ties: mid-ranks 1, 3, 3, 5.5 give U = 2.5 (mean 8); the
	// variance with tie correction is 16/12 · (9 - 30/56) and the
	// continuity-corrected z is 5/√variance.
	tiedZ := 5 / math.Sqrt(16.0/12*(9-30.0/56))
	tests := []struct {
		reason string
		x, y   []float64
		want   MannWhitney
		sig    bool
	}{
		{"complete separation of 5 and 5: the exact p is 2/C(10,5)",
			seq(1, 5), seq(6, 10), MannWhitney{U: 0, P: 2.0 / 252, Exact: true}, true},
		{"3 against 3 can never be significant: the smallest p is 2/C(6,3) = 0.1",
			seq(1, 3), seq(4, 6), MannWhitney{U: 0, P: 0.1, Exact: true}, false},
		{"interleaved samples: U = 10, P(U ≤ 10) = 87/252",
			[]float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 8, 10}, MannWhitney{U: 10, P: 174.0 / 252, Exact: true}, false},
		{"the statistic is the first sample's: swapping gives U = n1·n2 - U, same p",
			seq(6, 10), seq(1, 5), MannWhitney{U: 25, P: 2.0 / 252, Exact: true}, true},
		{"ties switch to the normal approximation with tie correction",
			[]float64{1, 2, 2, 3}, []float64{2, 3, 4, 5}, MannWhitney{U: 2.5, P: math.Erfc(tiedZ / math.Sqrt2)}, false},
		{"identical samples: p = 1", []float64{1, 1, 1}, []float64{1, 1, 1}, MannWhitney{U: 4.5, P: 1}, false},
		{"an empty sample cannot show a difference", nil, seq(1, 3), MannWhitney{P: 1}, false},
	}
	for _, tc := range tests {
		got := MannWhitneyU(tc.x, tc.y)
		if diff := cmp.Diff(tc.want, got, approx); diff != "" {
			t.Errorf("MannWhitneyU(%v, %v) mismatch (-want +got):\n%s%s", tc.x, tc.y, diff, tc.reason)
		}
		if got.Significant() != tc.sig {
			t.Errorf("MannWhitneyU(%v, %v).Significant() = %v, want %v (%s)", tc.x, tc.y, got.Significant(), tc.sig, tc.reason)
		}
	}
}

func TestGeoMean(t *testing.T) {
	tests := []struct {
		reason string
		xs     []float64
		want   float64
	}{
		{"1, 2, 4 → 2", []float64{1, 2, 4}, 2},
		{"ratios 0.5 and 2 cancel out", []float64{0.5, 2}, 1},
		{"2, 8 → 4", []float64{2, 8}, 4},
	}
	for _, tc := range tests {
		if got := GeoMean(tc.xs); !cmp.Equal(got, tc.want, approx) {
			t.Errorf("GeoMean(%v) = %v, want %v (%s)", tc.xs, got, tc.want, tc.reason)
		}
	}
	for _, xs := range [][]float64{nil, {1, 0}, {2, -1}} {
		if got := GeoMean(xs); !math.IsNaN(got) {
			t.Errorf("GeoMean(%v) = %v, want NaN", xs, got)
		}
	}
}

func TestFitGrowth(t *testing.T) {
	x := []float64{10, 100, 1000, 10000}
	nan := math.NaN()
	tests := []struct {
		reason string
		t      []float64
		want   Growth
	}{
		{"constant cost is flat (R² of a constant series is undefined)", []float64{5, 5, 5, 5},
			Growth{Exponent: 0, Coef: 5, R2: nan, TailExponent: 0, Intercept: 5, Slope: 0, LinearR2: nan, Class: "flat"}},
		{"t = 2x is linear", []float64{20, 200, 2000, 20000},
			Growth{Exponent: 1, Coef: 2, R2: 1, TailExponent: 1, Intercept: 0, Slope: 2, LinearR2: 1, Class: "linear"}},
		{"t = 3x² is quadratic", []float64{300, 30000, 3e6, 3e8},
			Growth{Exponent: 2, Coef: 3, R2: 1, TailExponent: 2, Intercept: -9815256.559766764, Slope: 30809.30029154519, LinearR2: 0.993096423103873, Class: "quadratic+"}},
		{"t = √x is sublinear", []float64{math.Sqrt(10), 10, math.Sqrt(1000), 100},
			Growth{Exponent: 0.5, Coef: 1, R2: 1, TailExponent: 0.5, Intercept: 11.232605850940125, Slope: 0.008987815558784128, LinearR2: 0.965519139305568, Class: "sublinear"}},
	}
	for _, tc := range tests {
		got := FitGrowth(x, tc.t)
		if diff := cmp.Diff(tc.want, got, approx, cmpopts.EquateNaNs()); diff != "" {
			t.Errorf("FitGrowth(%v) mismatch (-want +got):\n%s%s", tc.t, diff, tc.reason)
		}
	}
	// A fixed cost of 500 plus 2 per unit: the power law over all points
	// sees an exponent well below 1, the tail and the straight line do
	// not.
	got := FitGrowth(x, []float64{520, 700, 2500, 20500})
	if got.Exponent >= 0.85 || got.Class != "linear" || !cmp.Equal(got.TailExponent, math.Log10(20500.0/2500), approx) ||
		!cmp.Equal(got.Intercept, 500.0, approx) || !cmp.Equal(got.Slope, 2.0, approx) || !cmp.Equal(got.LinearR2, 1.0, approx) {
		t.Errorf("FitGrowth(500 + 2x) = %+v, want an overall exponent below 0.85 but a linear tail, intercept 500, slope 2, R² 1", got)
	}
	if got := FitGrowth([]float64{10, 10}, []float64{1, 2}); got.Class != "unknown" {
		t.Errorf("FitGrowth with one distinct x: class %q, want unknown", got.Class)
	}
}
