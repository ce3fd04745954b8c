package eval

import (
	"fmt"
	"io"

	"github.com/agenteval/agenteval/stats"
)

// PlanTrials is the trials per cell (per variant) that find a change in
// pass rate of effect from base 80% of the time (Power) at α = 0.05,
// two-sided: stats.SampleSizeTwoProportions, Fleiss' continuity-corrected
// normal approximation, whose n Barnard's test (what eval reports) meets
// (TestSimulatedGates). The change is taken towards ½'s far side: a drop
// from a base above ½, a rise from one below. 0 when no n up to 100,000
// does.
func PlanTrials(base, effect float64) int {
	target := base - effect
	if base < 0.5 {
		target = base + effect
	}
	if target < 0 || target > 1 {
		return 0
	}
	return stats.SampleSizeTwoProportions(base, target, Alpha, Power)
}

// WritePlan writes what --plan answers: the trials per cell that find a
// change of effect from base, and what the file's trials find.
func WritePlan(w io.Writer, f *File, base, effect float64) error {
	n := PlanTrials(base, effect)
	have := f.TrialsPerCell()
	mde := stats.MinimumDetectableEffect(base, have, have, Alpha, Power)
	var err error
	if n == 0 {
		_, err = fmt.Fprintf(w, "plan: a change of %.2f from a pass rate of %.2f cannot be found with 80%% power by up to 100,000 trials per cell\n", effect, base)
	} else {
		_, err = fmt.Fprintf(w, "plan: to find a change of %.2f from a pass rate of %.2f in one cell 80%% of the time (two-sided, α = 0.05; Fleiss' continuity-corrected n, met by Barnard's test), run %d trials per cell and variant (--trials %d)\n", effect, base, n, n)
	}
	if err != nil {
		return err
	}
	found := fmt.Sprintf("%.2f", mde)
	if mde >= 1 {
		found = "none (no change within [0, 1] is found 80% of the time)"
	}
	_, err = fmt.Fprintf(w, "plan: %s runs %d trials per cell: its minimum detectable change from %.2f is %s; copies of a deterministic agent's trials count once\n", f.EvalName(), have, base, found)
	return err
}
