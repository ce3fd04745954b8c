package eval

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
	"github.com/agenteval/agenteval/stats"
)

// Calibration kinds: what a labels file's rows hold.
const (
	kindPassFail = "pass_fail"
	kindScore    = "score"
)

// alphaResamples is how many bootstrap resamples α's interval takes.
const alphaResamples = 2000

// Calibrate compares the judges' verdicts in r (replayed from the trials'
// cassettes: nothing is spent) with people's labels, and sets
// r.Calibration and r.Labels (labelsFile, as it is to be shown). A label
// names its trial by scenario, case, variant (the control when empty) and
// index, and its judge by grader name, needed only when the trial has more
// than one judge. Labels are grouped by judge and kind (pass/fail or
// score); per group:
//
//   - each rater against the judge: the share of trials on which they
//     agree and Cohen's κ with its Fleiss-Cohen-Everitt 95% interval
//     (stats.CohenKappa). A pass/fail label is compared with whether
//     the judge's score reached its threshold; a score label with the
//     judge's score, each distinct score a category;
//   - Krippendorff's α over the judge and every rater, nominal for
//     pass/fail and interval for scores (stats.KrippendorffAlpha), with a
//     percentile bootstrap interval over the labelled trials, 2,000
//     resamples seeded by r.Seed (stats.KrippendorffAlphaCI).
//
// A label that names a trial the report lacks, one that could not run, a
// trial no judge graded, or a judge the trial lacks, is an error at the
// label's file and line (all of them, in a *LoadError): labels never
// silently fall out of the figures.
func Calibrate(r *evalreport.Report, labels []Label, labelsFile string) error {
	type trialKey struct {
		scenario, caseName, variant string
		index                       int
	}
	trials := map[trialKey]*evalreport.Trial{}
	for i := range r.Cells {
		c := &r.Cells[i]
		for j := range c.Trials {
			trials[trialKey{c.Scenario, c.Case, c.Variant, c.Trials[j].Index}] = &c.Trials[j]
		}
	}
	type groupKey struct{ grader, kind string }
	type verdict struct {
		unit          string // the trial, for α's units
		rater         string
		judge, person float64
	}
	var problems []Problem
	groups := map[groupKey][]verdict{}
	var order []groupKey
	for _, l := range labels {
		bad := func(field, format string, args ...any) {
			problems = append(problems, Problem{File: l.File, Line: l.Line, Col: 1, Field: field, Message: fmt.Sprintf(format, args...)})
		}
		variant := cmpOr(l.Variant, r.Control)
		id := l.Scenario
		if l.Case != "" {
			id += "[" + l.Case + "]"
		}
		t := trials[trialKey{l.Scenario, l.Case, variant, l.Trial}]
		switch {
		case t == nil:
			bad("trial", "%s × %s has no trial %d in the report", id, variant, l.Trial)
			continue
		case t.Status == report.StatusError:
			bad("trial", "%s × %s trial %d could not run: there is no verdict to compare", id, variant, l.Trial)
			continue
		}
		var judges []evalreport.Score
		for _, s := range t.Scores {
			if s.Grader == "judge" && (l.Grader == "" || s.Name == l.Grader) {
				judges = append(judges, s)
			}
		}
		switch {
		case len(judges) == 0 && l.Grader != "":
			bad("grader", "%s × %s trial %d has no judge %q", id, variant, l.Trial, l.Grader)
			continue
		case len(judges) == 0:
			bad("trial", "%s × %s trial %d: no judge graded it", id, variant, l.Trial)
			continue
		case len(judges) > 1:
			names := make([]string, len(judges))
			for i, j := range judges {
				names[i] = strconv.Quote(j.Name)
			}
			bad("grader", "%s × %s trial %d has %d judges (%s): name one", id, variant, l.Trial, len(judges), strings.Join(names, ", "))
			continue
		}
		j := judges[0]
		v := verdict{unit: id + "\x00" + variant + "\x00" + strconv.Itoa(l.Trial), rater: l.Rater}
		k := groupKey{grader: j.Name}
		if l.Pass != nil {
			k.kind = kindPassFail
			v.judge = 1
			if slices.ContainsFunc(t.Failures, func(f evalreport.Failure) bool { return f.Name == j.Name }) {
				v.judge = 0
			}
			if *l.Pass {
				v.person = 1
			}
		} else {
			k.kind = kindScore
			v.judge, v.person = j.Value, *l.Score
		}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], v)
	}
	if len(problems) > 0 {
		return &LoadError{Problems: problems}
	}
	slices.SortFunc(order, func(a, b groupKey) int {
		return cmp.Or(cmp.Compare(a.grader, b.grader), cmp.Compare(a.kind, b.kind))
	})
	r.Labels, r.Calibration = labelsFile, nil
	for _, k := range order {
		vs := groups[k]
		c := evalreport.Calibration{Grader: k.grader, Kind: k.kind}
		// raters in first appearance order, units likewise
		var raters, units []string
		judgeOf := map[string]float64{}
		personOf := map[[2]string]float64{}
		for _, v := range vs {
			if !slices.Contains(raters, v.rater) {
				raters = append(raters, v.rater)
			}
			if _, ok := judgeOf[v.unit]; !ok {
				units = append(units, v.unit)
			}
			judgeOf[v.unit] = v.judge
			personOf[[2]string{v.unit, v.rater}] = v.person
		}
		slices.Sort(raters)
		c.Units = len(units)
		for _, rater := range raters {
			var js, ps []float64
			for _, u := range units {
				if p, ok := personOf[[2]string{u, rater}]; ok {
					js, ps = append(js, judgeOf[u]), append(ps, p)
				}
			}
			c.Raters = append(c.Raters, raterAgreement(rater, js, ps))
		}
		values := make([][]float64, len(units))
		for i, u := range units {
			row := []float64{judgeOf[u]}
			for _, rater := range raters {
				p, ok := personOf[[2]string{u, rater}]
				if !ok {
					p = math.NaN()
				}
				row = append(row, p)
			}
			values[i] = row
		}
		metric := stats.AlphaNominal
		if k.kind == kindScore {
			metric = stats.AlphaInterval
		}
		if a := stats.KrippendorffAlpha(values, metric); math.IsNaN(a) {
			c.AlphaNote = "every trial has the same verdict from the judge and every rater"
		} else {
			lo, hi := stats.KrippendorffAlphaCI(values, metric, 0.95, alphaResamples, r.Seed)
			c.Alpha = &evalreport.Interval{Value: a, Lo: finite(lo), Hi: finite(hi)}
		}
		r.Calibration = append(r.Calibration, c)
	}
	return nil
}

// raterAgreement compares one rater's values with the judge's on the
// same trials: the share equal and Cohen's κ over the distinct values as
// categories.
func raterAgreement(rater string, judge, person []float64) evalreport.RaterAgreement {
	ra := evalreport.RaterAgreement{Rater: rater, N: len(judge)}
	var cats []float64
	for i := range judge {
		for _, x := range []float64{judge[i], person[i]} {
			if !slices.Contains(cats, x) {
				cats = append(cats, x)
			}
		}
	}
	slices.Sort(cats)
	table := make([][]float64, len(cats))
	for i := range table {
		table[i] = make([]float64, len(cats))
	}
	same := 0
	for i := range judge {
		table[slices.Index(cats, judge[i])][slices.Index(cats, person[i])]++
		if judge[i] == person[i] {
			same++
		}
	}
	if ra.N > 0 {
		ra.Agreement = float64(same) / float64(ra.N)
	}
	k := stats.CohenKappa(table, 0.95)
	if math.IsNaN(k.Kappa) {
		ra.Note = "the judge and the rater gave every trial one same verdict"
		return ra
	}
	ra.Kappa = &evalreport.Interval{Value: k.Kappa, Lo: k.Lo, Hi: k.Hi}
	return ra
}
