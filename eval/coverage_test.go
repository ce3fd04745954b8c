package eval

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/agenteval/agenteval/stats"
)

// TestSimulatedWilsonCoverage proves the pass rate's interval end to end:
// a seeded stochastic scripted model that answers right with p = 0.8
// drives 1,000 simulated evals of n = 50 trials (seeds 1 to 1,000), each a
// whole Run through harness; the share of them whose reported Wilson 95%
// interval holds p must lie in [0.93, 0.97], and within 4 standard errors
// of the interval's exact coverage at n = 50, Σₓ Binomial(x; 50, 0.8)·[0.8
// ∈ CI(x)] = 0.9507 (at this p the band and the exact value agree; see
// stats.TestWilsonCoverage for why p matters).
//
// Measured: 951 of 1,000 (0.951). Print it with
//
//	go test ./eval -run TestSimulatedWilsonCoverage -v
func TestSimulatedWilsonCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("50,000 trials; skipped with -short")
	}
	if raceEnabled {
		t.Skip("50,000 trials of arithmetic, not concurrency: run without -race (.ci/run's statistics step)")
	}
	t.Parallel()
	const sims, n, p = 1000, 50, 0.8
	plan := prepare(t, "testdata/coverage/coverage.yaml")
	st := plan.File.Variants[0].Stochastic
	covered := 0
	for seed := uint64(1); seed <= sims; seed++ {
		st.Seed = seed
		r := Run(context.Background(), plan, Options{})
		c := r.Cells[0]
		if c.N != n || c.Errored > 0 {
			t.Fatalf("seed %d: %d trials, %d errored", seed, c.N, c.Errored)
		}
		if c.PassRate.Lo <= p && p <= c.PassRate.Hi {
			covered++
		}
	}
	exact := 0.0
	b := distuv.Binomial{N: n, P: p}
	for x := 0; x <= n; x++ {
		if lo, hi := stats.Wilson(x, n, Confidence); lo <= p && p <= hi {
			exact += b.Prob(float64(x))
		}
	}
	got := float64(covered) / sims
	se := math.Sqrt(exact * (1 - exact) / sims)
	t.Logf("simulated coverage of the Wilson 95%% interval, p = %v, n = %d: %d of %d evals (%.3f); exact %.4f", p, n, covered, sims, got, exact)
	if got < 0.93 || got > 0.97 {
		t.Errorf("simulated coverage %.3f is outside [0.93, 0.97]", got)
	}
	if math.Abs(got-exact) > 4*se {
		t.Errorf("simulated coverage %.3f is %.1f standard errors from the exact %.4f", got, math.Abs(got-exact)/se, exact)
	}
}
