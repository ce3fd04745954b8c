package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
			seqf(1, 5), seqf(6, 10), MannWhitney{U: 0, P: 2.0 / 252, Exact: true}, true},
		{"3 against 3 can never be significant: the smallest p is 2/C(6,3) = 0.1",
			seqf(1, 3), seqf(4, 6), MannWhitney{U: 0, P: 0.1, Exact: true}, false},
		{"interleaved samples: U = 10, P(U ≤ 10) = 87/252",
			[]float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 8, 10}, MannWhitney{U: 10, P: 174.0 / 252, Exact: true}, false},
		{"the statistic is the first sample's: swapping gives U = n1·n2 - U, same p",
			seqf(6, 10), seqf(1, 5), MannWhitney{U: 25, P: 2.0 / 252, Exact: true}, true},
		{"ties switch to the normal approximation with tie correction",
			[]float64{1, 2, 2, 3}, []float64{2, 3, 4, 5}, MannWhitney{U: 2.5, P: math.Erfc(tiedZ / math.Sqrt2)}, false},
		{"identical samples: p = 1", []float64{1, 1, 1}, []float64{1, 1, 1}, MannWhitney{U: 4.5, P: 1}, false},
		{"an empty sample cannot show a difference", nil, seqf(1, 3), MannWhitney{P: 1}, false},
	}
	for _, tc := range tests {
		got := MannWhitneyU(tc.x, tc.y)
		if diff := cmp.Diff(tc.want, got, approx12); diff != "" {
			t.Errorf("MannWhitneyU(%v, %v) mismatch (-want +got):\n%s%s", tc.x, tc.y, diff, tc.reason)
		}
		if sig := got.P < 0.05; sig != tc.sig {
			t.Errorf("MannWhitneyU(%v, %v): P < 0.05 is %v, want %v (%s)", tc.x, tc.y, sig, tc.sig, tc.reason)
		}
	}
}

// TestMannWhitneyUExactBruteForce checks the exact p-value against the
// definition: for every split of 1..n1+n2 into samples of n1 and n2 values
// (all equally likely under the null hypothesis), U counts the pairs
// (x, y) with x > y, and P is twice the smaller tail of that enumerated
// distribution.
func TestMannWhitneyUExactBruteForce(t *testing.T) {
	for n1 := 1; n1 <= 5; n1++ {
		for n2 := 1; n2 <= 5; n2++ {
			n := n1 + n2
			type split struct {
				x, y []float64
				u    int
			}
			var splits []split
			counts := make([]int, n1*n2+1)
			for mask := 0; mask < 1<<n; mask++ {
				var x, y []float64
				for i := 0; i < n; i++ {
					if mask&(1<<i) != 0 {
						x = append(x, float64(i+1))
					} else {
						y = append(y, float64(i+1))
					}
				}
				if len(x) != n1 {
					continue
				}
				u := 0
				for _, a := range x {
					for _, b := range y {
						if a > b {
							u++
						}
					}
				}
				counts[u]++
				splits = append(splits, split{x, y, u})
			}
			for _, s := range splits {
				var below, above int
				for k, c := range counts {
					if k <= s.u {
						below += c
					}
					if k >= s.u {
						above += c
					}
				}
				want := MannWhitney{U: float64(s.u), P: math.Min(1, 2*float64(min(below, above))/float64(len(splits))), Exact: true}
				if diff := cmp.Diff(want, MannWhitneyU(s.x, s.y), approx12); diff != "" {
					t.Fatalf("MannWhitneyU(%v, %v) mismatch (-want +got):\n%s", s.x, s.y, diff)
				}
			}
		}
	}
}

// TestMannWhitneyUTiesCountHalf checks U against its definition when the
// samples tie (the normal approximation's branch): the pairs with x > y
// plus half the pairs with x = y, on seeded samples drawn from few values.
func TestMannWhitneyUTiesCountHalf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		x := make([]float64, 1+r.IntN(30))
		y := make([]float64, 1+r.IntN(30))
		for i := range x {
			x[i] = float64(r.IntN(5))
		}
		for i := range y {
			y[i] = float64(r.IntN(5))
		}
		var want float64
		for _, a := range x {
			for _, b := range y {
				switch {
				case a > b:
					want++
				case a == b:
					want += 0.5
				}
			}
		}
		if got := MannWhitneyU(x, y); got.U != want || got.P < 0 || got.P > 1 {
			t.Fatalf("MannWhitneyU(%v, %v) = %+v, want U = %v and 0 ≤ P ≤ 1", x, y, got, want)
		}
	}
}

// TestMannWhitneyUReference checks MannWhitneyU against R's wilcox.test,
// as scipy's test suite records it (scipy/stats/tests/
// test_mannwhitneyu.py): test_gh_9184 (no ties, so our exact
// distribution; R: wilcox.test(x, y, exact = TRUE)) and test_gh_11355b
// (ties, so the normal approximation with tie and continuity corrections;
// R: wilcox.test(x, y, exact = FALSE), scipy method="asymptotic"), all
// two-sided.
func TestMannWhitneyUReference(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		reason string
		x, y   []float64
		u, p   float64
		exact  bool
	}{
		{"gh-9184, no ties: the exact p", []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}, []float64{1.15, 0.88, 0.90, 0.74, 1.21},
			35, 0.2544122544123, true},
		{"gh-11355, ties: normal approximation", []float64{1, 2, 3, 4}, []float64{3, 6, 7, 8, inf, 3, 2, 1, 4, 4, 5}, 10, 0.1297704873477, false},
		{"gh-11355, more ties", []float64{1, 2, 3, 4}, []float64{3, 6, 7, 8, inf, inf, 2, 1, 4, 4, 5}, 8.5, 0.08735617507695, false},
		{"gh-11355, ties in both samples", []float64{1, 2, inf, 4}, []float64{3, 6, 7, 8, inf, 3, 2, 1, 4, 4, 5}, 17.5, 0.5988856695752, false},
		{"gh-11355, tied infinities", []float64{1, inf, inf, 4}, []float64{3, 6, 7, 8, inf, inf, 2, 1, 4, 4, 5}, 24.5, 0.7912517950119, false},
	}
	for _, tc := range tests {
		got := MannWhitneyU(tc.x, tc.y)
		if got.U != tc.u || math.Abs(got.P-tc.p) > 1e-12 || got.Exact != tc.exact {
			t.Errorf("%s: MannWhitneyU = %+v, want U %v, p %.13f (R), exact %v", tc.reason, got, tc.u, tc.p, tc.exact)
		}
	}
}
