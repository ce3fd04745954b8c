package view

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/agenteval/agenteval/eval"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
	"github.com/agenteval/agenteval/stats"
	"github.com/agenteval/agenteval/store"
	"github.com/agenteval/agenteval/textdiff"
)

// flip is one scenario (or cell) whose verdict differs between A and B.
type flip struct {
	Name, Variant, A, B, AClass, BClass, AHref, BHref string
}

// answerDiff is one scenario (or trial) whose final answer differs.
type answerDiff struct {
	Name  string
	Lines []diffLine
}

// statRow is a row of the benchstat-style table: a quantity in A and B,
// the change and whether it is significant.
type statRow struct {
	Name, A, B, Delta, Note string
}

// compare shows two entries side by side: what flipped, the final
// answers that changed, and a benchstat-style table.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	var ids [2]int64
	var sums [2]store.Summary
	for i, k := range []string{"a", "b"} {
		id, err := strconv.ParseInt(q.Get(k), 10, 64)
		if err != nil {
			s.fail(w, http.StatusBadRequest, fmt.Errorf("compare needs ?a=ID&b=ID: %s=%q is not an entry ID", k, q.Get(k)))
			return
		}
		if sums[i], err = s.st.Summary(ctx, id); err != nil {
			s.failFor(w, err)
			return
		}
		ids[i] = id
	}
	if sums[0].Kind != sums[1].Kind {
		s.fail(w, http.StatusBadRequest, errors.New("compare two runs or two evals, not a run with an eval"))
		return
	}
	data := struct {
		A, B    entryRow
		Kind    store.Kind
		Flips   []flip
		Answers []answerDiff
		Table   []statRow
		Text    string // the eval comparison as "agenteval report compare" prints it
	}{A: newEntryRow(sums[0]), B: newEntryRow(sums[1]), Kind: sums[0].Kind}
	if sums[0].Kind == store.KindRun {
		a, err := s.st.Run(ctx, ids[0])
		if err != nil {
			s.failFor(w, err)
			return
		}
		b, err := s.st.Run(ctx, ids[1])
		if err != nil {
			s.failFor(w, err)
			return
		}
		data.Flips, data.Answers, data.Table = compareRuns(ids, a, b)
	} else {
		a, err := s.st.Eval(ctx, ids[0])
		if err != nil {
			s.failFor(w, err)
			return
		}
		b, err := s.st.Eval(ctx, ids[1])
		if err != nil {
			s.failFor(w, err)
			return
		}
		data.Flips, data.Answers = compareEvals(ids, a, b)
		c := eval.Compare(a, b, fmt.Sprintf("eval %d", ids[0]), fmt.Sprintf("eval %d", ids[1]))
		var t bytes.Buffer
		if err := evalreport.WriteComparison(&t, c); err != nil {
			s.fail(w, http.StatusInternalServerError, err)
			return
		}
		data.Text = t.String()
	}
	s.render(w, "compare", fmt.Sprintf("compare %d and %d", ids[0], ids[1]), data)
}

// compareRuns lists the scenarios whose verdict or final answer changed
// and the runs' totals side by side, the pass rate's change tested as
// "agenteval report compare" tests a cell's (stats.CompareProportions).
func compareRuns(ids [2]int64, a, b *report.Report) ([]flip, []answerDiff, []statRow) {
	byName := map[string]*report.Scenario{}
	for i := range a.Scenarios {
		byName[a.Scenarios[i].Name] = &a.Scenarios[i]
	}
	var flips []flip
	var answers []answerDiff
	var cost, tokens [2]float64
	var passed, n [2]int
	count := func(k int, sc *report.Scenario) {
		cost[k] += sc.Usage.CostUSD
		tokens[k] += float64(sc.Usage.TotalTokens)
		if sc.Status != report.StatusSkip {
			n[k]++
		}
		if sc.Status == report.StatusPass {
			passed[k]++
		}
	}
	for i := range a.Scenarios {
		count(0, &a.Scenarios[i])
	}
	for i := range b.Scenarios {
		sb := &b.Scenarios[i]
		count(1, sb)
		sa := byName[sb.Name]
		if sa == nil {
			flips = append(flips, flip{Name: sb.Name, A: "absent", AClass: "unknown", B: string(sb.Status), BClass: statusClass(sb.Status),
				BHref: scenarioHref(ids[1], sb.Name)})
			continue
		}
		delete(byName, sb.Name)
		if sa.Status != sb.Status {
			flips = append(flips, flip{Name: sb.Name, A: string(sa.Status), AClass: statusClass(sa.Status), B: string(sb.Status), BClass: statusClass(sb.Status),
				AHref: scenarioHref(ids[0], sa.Name), BHref: scenarioHref(ids[1], sb.Name)})
		}
		if sa.Final != sb.Final {
			answers = append(answers, answerDiff{Name: sb.Name, Lines: finalDiff(sa.Final, sb.Final)})
		}
	}
	for i := range a.Scenarios {
		if sa := byName[a.Scenarios[i].Name]; sa != nil {
			flips = append(flips, flip{Name: sa.Name, A: string(sa.Status), AClass: statusClass(sa.Status), B: "absent", BClass: "unknown",
				AHref: scenarioHref(ids[0], sa.Name)})
		}
	}
	c := stats.CompareProportions(passed[0], n[0], passed[1], n[1])
	note := "~"
	if c.P < 0.05 {
		note = fmt.Sprintf("p=%.3f %s", c.P, c.Test)
	} else if !math.IsNaN(c.P) {
		note = fmt.Sprintf("~ (p=%.3f %s)", c.P, c.Test)
	}
	table := []statRow{
		{"pass rate", fmt.Sprintf("%d/%d", passed[0], n[0]), fmt.Sprintf("%d/%d", passed[1], n[1]),
			fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", 100*c.Delta, 100*c.Lo, 100*c.Hi), note},
		{"scenarios", strconv.Itoa(len(a.Scenarios)), strconv.Itoa(len(b.Scenarios)), fmt.Sprintf("%+d", len(b.Scenarios)-len(a.Scenarios)), ""},
		{"cost", fmt.Sprintf("$%.4f", cost[0]), fmt.Sprintf("$%.4f", cost[1]), relChange(cost[0], cost[1]), ""},
		{"tokens", fmt.Sprintf("%.0f", tokens[0]), fmt.Sprintf("%.0f", tokens[1]), relChange(tokens[0], tokens[1]), ""},
	}
	return flips, answers, table
}

// compareEvals lists the cells whose verdict changed and, trial by
// trial, the final answers that differ.
func compareEvals(ids [2]int64, a, b *evalreport.Report) ([]flip, []answerDiff) {
	key := func(c *evalreport.Cell) string { return c.ID + "\x00" + c.Variant }
	byKey := map[string]*evalreport.Cell{}
	for i := range a.Cells {
		byKey[key(&a.Cells[i])] = &a.Cells[i]
	}
	var flips []flip
	var answers []answerDiff
	for i := range b.Cells {
		cb := &b.Cells[i]
		ca := byKey[key(cb)]
		if ca == nil {
			continue
		}
		if ca.Verdict != cb.Verdict {
			flips = append(flips, flip{Name: cb.ID, Variant: cb.Variant, A: ca.Verdict, AClass: verdictClass(ca.Verdict), B: cb.Verdict, BClass: verdictClass(cb.Verdict),
				AHref: cellHref(ids[0], ca.ID), BHref: cellHref(ids[1], cb.ID)})
		}
		for k := range min(len(ca.Trials), len(cb.Trials)) {
			if fa, fb := ca.Trials[k].Final, cb.Trials[k].Final; fa != fb {
				answers = append(answers, answerDiff{Name: fmt.Sprintf("%s × %s, trial %d", cb.ID, cb.Variant, cb.Trials[k].Index), Lines: finalDiff(fa, fb)})
			}
		}
	}
	return flips, answers
}

func scenarioHref(id int64, name string) string {
	return fmt.Sprintf("/run/%d/scenario?name=%s", id, urlQuery(name))
}

func cellHref(id int64, cell string) string {
	return fmt.Sprintf("/eval/%d/cell?id=%s", id, urlQuery(cell))
}

// finalDiff is a line diff of two final answers: A's lines "-", B's "+".
func finalDiff(a, b string) []diffLine {
	var out []diffLine
	for _, op := range textdiff.Lines(strings.Split(a, "\n"), strings.Split(b, "\n")) {
		c := map[byte]string{' ': "ctx", '-': "del", '+': "add"}[op.Kind]
		out = append(out, diffLine{c, string(op.Kind) + " " + op.Line})
	}
	return out
}

// relChange is B's change from A in percent, "~" for none.
func relChange(a, b float64) string {
	switch {
	case a == b:
		return "~"
	case a == 0:
		return fmt.Sprintf("%+g", b-a)
	}
	return fmt.Sprintf("%+.1f%%", 100*(b-a)/a)
}
