package eval

import (
	"errors"
	"fmt"
	"github.com/agenteval/agenteval/report/evalreport"
	"slices"
)

// Merge joins the reports of an eval's shards into one: every trial of every
// cell, with the statistics recomputed from them (Recompute), so that they
// equal those of an unsharded run. The reports must be of the same eval
// (name, variants, control, seed, trials per cell and --fail-under); a trial
// found in two reports, or a shard given twice, is an error. The merged
// report has no timing.
func Merge(reps ...*evalreport.Report) (*evalreport.Report, error) {
	if len(reps) == 0 {
		return nil, errors.New("merge: no reports")
	}
	first := reps[0]
	out := &evalreport.Report{Schema: evalreport.Schema, Eval: first.Eval, File: first.File, TrialsPerCell: first.TrialsPerCell, Seed: first.Seed,
		Control: first.Control, Variants: first.Variants, FailUnder: first.FailUnder}
	index := map[string]int{}
	seenShard := map[string]bool{}
	seenTrial := map[string]bool{}
	for i, r := range reps {
		if r.Eval != first.Eval || r.Control != first.Control || r.Seed != first.Seed || r.TrialsPerCell != first.TrialsPerCell || r.FailUnder != first.FailUnder || !sameVariants(r.Variants, first.Variants) {
			return nil, fmt.Errorf("merge: report %d is of another eval or configuration than report 1 (eval %q, control %q, seed %d, %d trials)", i+1, r.Eval, r.Control, r.Seed, r.TrialsPerCell)
		}
		for _, s := range r.Shards {
			if seenShard[s] {
				return nil, fmt.Errorf("merge: shard %s is given twice", s)
			}
			seenShard[s] = true
			out.Shards = append(out.Shards, s)
		}
		if b := r.Budget; b != nil {
			if out.Budget == nil {
				out.Budget = &evalreport.Budget{MaxCostUSD: b.MaxCostUSD, MaxTrials: b.MaxTrials}
			}
			out.Budget.SpentUSD += b.SpentUSD
			out.Budget.Run += b.Run
			out.Budget.Unrun += b.Unrun
			if b.Stopped {
				out.Budget.Stopped, out.Budget.Reason = true, b.Reason
			}
		}
		for _, c := range r.Cells {
			key := c.ID + "\x00" + c.Variant
			k, ok := index[key]
			if !ok {
				k = len(out.Cells)
				index[key] = k
				out.Cells = append(out.Cells, evalreport.Cell{Scenario: c.Scenario, Case: c.Case, ID: c.ID, Variant: c.Variant, Thresholds: c.Thresholds})
			}
			for _, t := range c.Trials {
				tk := fmt.Sprintf("%s\x00%d", key, t.Index)
				if seenTrial[tk] {
					return nil, fmt.Errorf("merge: %s × %s trial %d is in two reports", c.ID, c.Variant, t.Index)
				}
				seenTrial[tk] = true
				out.Cells[k].Trials = append(out.Cells[k].Trials, t)
			}
		}
	}
	slices.Sort(out.Shards)
	if len(out.Shards) > 0 && len(out.Shards) == shardCount(out.Shards) {
		// every shard is here: the run is whole
		out.Shards = nil
	}
	Recompute(out)
	return out, nil
}

// shardCount is n of the first "k/n" shard.
func shardCount(shards []string) int {
	var k, n int
	if _, err := fmt.Sscanf(shards[0], "%d/%d", &k, &n); err != nil {
		return -1
	}
	return n
}

func sameVariants(a, b []evalreport.VariantInfo) bool {
	return slices.EqualFunc(a, b, func(x, y evalreport.VariantInfo) bool {
		return x.Name == y.Name && x.Model == y.Model && slices.Equal(x.Overrides, y.Overrides)
	})
}
