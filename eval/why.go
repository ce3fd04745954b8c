package eval

import (
	"slices"
	"sync"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
)

// trialFailures are the expectations, invariants and graders of a trial
// that did not hold, in check order, their messages and diffs cut to
// evalreport's bounds.
func trialFailures(es []report.Expectation) []evalreport.Failure {
	var out []evalreport.Failure
	for _, e := range es {
		if !e.Passed {
			out = append(out, evalreport.NewFailure(e.Name, e.Message, e.Diff))
		}
	}
	return out
}

// detailKeeper bounds the trial details a run holds while it runs: per
// cell, the evalreport.DetailTrials failed (or errored) and as many passed
// trials of lowest index that have finished so far keep theirs, so memory
// grows with the cells, not the trials. Whatever order trials finish in,
// the details left at the end are those of the lowest indexes, which
// evalreport.SummarizeWhy keeps too.
type detailKeeper struct {
	mu   sync.Mutex
	kept map[*planCell]*[2][]*evalreport.Trial // failed, passed; by index
}

// add records a finished trial, dropping the detail of the trial of its
// kind with the highest index when the cell keeps too many.
func (k *detailKeeper) add(c *planCell, t *evalreport.Trial) {
	if t.Detail == nil {
		return
	}
	kind := 0
	if t.Status == report.StatusPass {
		kind = 1
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.kept == nil {
		k.kept = map[*planCell]*[2][]*evalreport.Trial{}
	}
	lists := k.kept[c]
	if lists == nil {
		lists = &[2][]*evalreport.Trial{}
		k.kept[c] = lists
	}
	l := lists[kind]
	at, _ := slices.BinarySearchFunc(l, t.Index, func(x *evalreport.Trial, i int) int { return x.Index - i })
	l = slices.Insert(l, at, t)
	if len(l) > evalreport.DetailTrials {
		l[len(l)-1].Detail = nil
		l = l[:len(l)-1]
	}
	lists[kind] = l
}
