package evalreport

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the report as Markdown fit for a pull-request
// comment: a headline, the variant × scenario grid of pass rates with
// their intervals (a broken threshold marked ❌, a significant drop
// against the control marked 🔻), the suite's macro pass rates, the
// graders' mean scores with their bootstrap intervals (and, folded, the
// expectations' and invariants'), the comparisons with the control, the
// broken thresholds and the test used.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	ids := cellIDs(r.Cells)
	verdict := "✅ all thresholds held"
	if r.Failed() {
		verdict = "❌ a threshold broke or a trial could not run"
	}
	fmt.Fprintf(&b, "## eval %s: %s\n\n", r.Eval, verdict)
	fmt.Fprintf(&b, "%d scenarios × %d variants × %d trials; pass rate over the effective trials (copies count once, errored trials left out) with its Clopper–Pearson 95%% interval. Control: **%s**.\n\n", len(ids), len(r.Variants), r.TrialsPerCell, r.Control)
	b.WriteString("| scenario |")
	for _, v := range r.Variants {
		fmt.Fprintf(&b, " %s |", mdEscape(v.Name))
	}
	b.WriteString("\n|---|")
	for range r.Variants {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	grid := cellGrid(r)
	drops := regressions(r)
	for _, id := range ids {
		fmt.Fprintf(&b, "| %s |", mdEscape(id))
		for _, v := range r.Variants {
			c := grid[id+"\x00"+v.Name]
			if c == nil {
				b.WriteString(" – |")
				continue
			}
			if c.N == 0 {
				b.WriteString(" not run |")
				continue
			}
			mark := ""
			if done := c.N - c.Errored; c.EffectiveN < done {
				mark += fmt.Sprintf(" (n_eff %d of %d)", c.EffectiveN, done)
			}
			if c.Errored > 0 {
				mark += fmt.Sprintf(" (+%d errored)", c.Errored)
			}
			if c.Verdict != "pass" {
				mark += " ❌"
			}
			if drops[id+"\x00"+v.Name] {
				mark += " 🔻"
			}
			fmt.Fprintf(&b, " %.2f [%.2f, %.2f]%s |", c.PassRate.Value, c.PassRate.Lo, c.PassRate.Hi, mark)
		}
		b.WriteString("\n")
	}
	b.WriteString("| **macro** |")
	for _, s := range r.Suite {
		fmt.Fprintf(&b, " **%s** |", macroText(s))
	}
	b.WriteString("\n")
	for _, line := range strings.Split(strings.TrimSpace(EffectiveNote(r)), "\n") {
		if strings.HasPrefix(line, "  ") {
			b.WriteString("- ")
		} else {
			b.WriteString("\n")
		}
		b.WriteString(mdEscape(strings.TrimSpace(line)) + "\n")
	}
	b.WriteString("\n")
	if rows := scoreRows(r, true); len(rows) > 0 {
		b.WriteString("Grader scores, mean per trial with its 95% interval over the effective trials:\n\n")
		writeMarkdownScores(&b, r, rows)
	}
	if rows := scoreRows(r, false); len(rows) > 0 {
		b.WriteString("<details><summary>expectation and invariant scores (1 held, 0 did not): mean with its 95% interval</summary>\n\n")
		writeMarkdownScores(&b, r, rows)
		b.WriteString("</details>\n\n")
	}
	if len(r.Comparisons) > 0 {
		b.WriteString("| variant vs control | Δ macro pass rate | p | q | MDE | cost |\n|---|---|---|---|---|---|\n")
		for _, c := range r.Comparisons {
			for _, o := range c.Overall {
				fmt.Fprintf(&b, "| %s vs %s | %s | %.3f (%s) | %.3f | %s | %s |\n", mdEscape(c.New), mdEscape(c.Base), rateChange(o.Delta, o.Lo, o.Hi, o.Significant), o.P, o.Test, o.Q, mdeText(o.MDE), change(o.CostUSD))
			}
		}
		if m := r.Comparisons[0].Multiplicity; m != nil {
			fmt.Fprintf(&b, "\n%d tests; %d at p < 0.05, %d flagged after Benjamini–Hochberg (q < 0.05).\n", m.Tests, m.Uncorrected, m.Flagged)
		}
		b.WriteString("\n")
	}
	var broken []ThresholdResult
	for _, t := range r.Thresholds {
		if !t.Pass {
			broken = append(broken, t)
		}
	}
	if len(broken) > 0 {
		b.WriteString("<details><summary>broken thresholds</summary>\n\n")
		for _, t := range broken {
			fmt.Fprintf(&b, "- %s: `%s`, got %.3f", mdEscape(t.Scope), t.Threshold, t.Got)
			if t.Why != "" {
				fmt.Fprintf(&b, " (%s)", mdEscape(t.Why))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n</details>\n\n")
	}
	if bu := r.Budget; bu != nil && bu.Stopped {
		fmt.Fprintf(&b, "**Budget:** stopped after %d trials (%s): %s.\n\n", bu.Run, money(bu.SpentUSD), mdEscape(bu.Reason))
	}
	b.WriteString("🔻 a significant drop against the control (Barnard's exact test, q < 0.05 after Benjamini–Hochberg). MDE: the smallest change found 80% of the time at these trials.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMarkdownScores writes a table of the rows' means and intervals,
// a column per variant.
func writeMarkdownScores(b *strings.Builder, r *Report, rows []scoreRow) {
	b.WriteString("| scenario | score |")
	for _, v := range r.Variants {
		fmt.Fprintf(b, " %s |", mdEscape(v.Name))
	}
	b.WriteString("\n|---|---|")
	for range r.Variants {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	grid := cellGrid(r)
	for _, row := range rows {
		fmt.Fprintf(b, "| %s | %s |", mdEscape(row.id), mdEscape(scoreLabel(row.name, row.grader)))
		for _, v := range r.Variants {
			var s *ScoreStat
			if c := grid[row.id+"\x00"+v.Name]; c != nil {
				s = scoreOf(c, row.name)
			}
			if s == nil {
				b.WriteString(" – |")
				continue
			}
			fmt.Fprintf(b, " %s |", intervalText(s.Interval))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// regressions marks the cells whose pass rate dropped significantly
// against the control.
func regressions(r *Report) map[string]bool {
	out := map[string]bool{}
	for _, c := range r.Comparisons {
		for _, d := range c.Cells {
			if d.PassRate.Significant && d.PassRate.Delta < 0 {
				out[d.ID+"\x00"+d.Variant] = true
			}
		}
	}
	return out
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "\n", " ").Replace(s)
}
