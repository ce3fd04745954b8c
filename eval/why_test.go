package eval

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
)

// propDetailKeeperOrderFree: whatever order a cell's trials finish in,
// the details the keeper leaves are those of the DetailTrials failed and
// DetailTrials passed trials of lowest index.
func propDetailKeeperOrderFree(t *rapid.T) {
	n := rapid.IntRange(0, 3*evalreport.DetailTrials).Draw(t, "n")
	status := make([]bool, n+1)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i + 1
		status[i+1] = rapid.Bool().Draw(t, "pass")
	}
	order := rapid.Permutation(idx).Draw(t, "order")
	var k detailKeeper
	cell := &planCell{}
	trials := make([]*evalreport.Trial, n+1)
	for _, i := range order {
		st := report.StatusFail
		if status[i] {
			st = report.StatusPass
		}
		trials[i] = &evalreport.Trial{Index: i, Status: st, Detail: &evalreport.TrialDetail{}}
		k.add(cell, trials[i])
	}
	seen := [2]int{}
	for i := 1; i <= n; i++ {
		kind := 0
		if status[i] {
			kind = 1
		}
		seen[kind]++
		want := seen[kind] <= evalreport.DetailTrials
		if got := trials[i].Detail != nil; got != want {
			t.Fatalf("trial %d (pass %v) keeps detail = %v, want %v", i, status[i], got, want)
		}
	}
}

func TestPropDetailKeeperOrderFree(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propDetailKeeperOrderFree)
}

func TestTrialFailures(t *testing.T) {
	t.Parallel()
	got := trialFailures([]report.Expectation{{Name: "final", Passed: true}, {Name: "trajectory", Message: "m", Diff: "d"}})
	if len(got) != 1 || got[0] != (evalreport.Failure{Name: "trajectory", Message: "m", Diff: "d"}) {
		t.Errorf("trialFailures = %+v, want only the failed trajectory", got)
	}
}
