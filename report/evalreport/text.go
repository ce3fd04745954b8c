package evalreport

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report for a terminal: the scenario × variant grid
// of pass rates with their Wilson intervals, each variant over the suite,
// the comparisons with the control, errored trials, thresholds and budget.
// It is byte-stable: no timings.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	ids := cellIDs(r.Cells)
	fmt.Fprintf(&b, "eval %s: %d scenarios × %d variants × %d trials\n\n", r.Eval, len(ids), len(r.Variants), r.TrialsPerCell)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "scenario")
	for _, v := range r.Variants {
		fmt.Fprintf(tw, "\t%s", v.Name)
	}
	fmt.Fprintln(tw)
	grid := cellGrid(r)
	for _, id := range ids {
		fmt.Fprint(tw, id)
		for _, v := range r.Variants {
			c := grid[id+"\x00"+v.Name]
			if c == nil {
				fmt.Fprint(tw, "\t-")
				continue
			}
			fmt.Fprintf(tw, "\t%s", rateCell(c))
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprint(tw, "macro pass rate")
	for _, s := range r.Suite {
		fmt.Fprintf(tw, "\t%.2f [%.2f, %.2f]", s.MacroPassRate.Value, s.MacroPassRate.Lo, s.MacroPassRate.Hi)
	}
	fmt.Fprintln(tw)
	fmt.Fprint(tw, "cost (USD)")
	for _, s := range r.Suite {
		fmt.Fprintf(tw, "\t%s", money(s.CostUSD))
	}
	fmt.Fprintln(tw)
	tw.Flush()
	if rows := scoreRows(r, true); len(rows) > 0 {
		b.WriteString("\ngrader scores: mean [bootstrap 95% interval]\n")
		writeScoreGrid(&b, r, rows)
	}
	writeWhyText(&b, r)
	writeCalibrationText(&b, r)
	for _, c := range r.Comparisons {
		b.WriteString("\n")
		writeComparison(&b, c, false)
	}
	writeErrors(&b, r)
	if len(r.Thresholds) > 0 {
		held := 0
		var broken []ThresholdResult
		for _, t := range r.Thresholds {
			if t.Pass {
				held++
			} else {
				broken = append(broken, t)
			}
		}
		fmt.Fprintf(&b, "\nthresholds: %d held, %d broken\n", held, len(broken))
		for _, t := range broken {
			fmt.Fprintf(&b, "  ✗ %s  %s = %.3f\n", t.Threshold, t.Scope, t.Got)
		}
	}
	if bu := r.Budget; bu != nil && bu.Stopped {
		fmt.Fprintf(&b, "\nbudget: stopped after %d trials (%s spent): %s; %d trials not run\n", bu.Run, money(bu.SpentUSD), bu.Reason, bu.Unrun)
	}
	_, err := io.WriteString(w, trimLines(b.String()))
	return err
}

// trimLines drops the spaces tabwriter leaves at the ends of lines.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func money(x float64) string { return fmt.Sprintf("$%.4f", x) }

func rateCell(c *Cell) string {
	s := fmt.Sprintf("%d/%d %.2f [%.2f, %.2f]", c.Passed, c.N, c.PassRate.Value, c.PassRate.Lo, c.PassRate.Hi)
	if c.Errored > 0 {
		s += fmt.Sprintf(" (%d errors)", c.Errored)
	}
	if c.Verdict == "fail" {
		s += " ✗"
	}
	return s
}

// scoreRow is one named score of one scenario (case), a row of the
// score grids.
type scoreRow struct {
	id, name, grader string
}

// scoreRows lists the named scores of every scenario (case), scenarios in
// report order and each one's scores by name; graders, when graders is
// set, or all scores but the graders' otherwise.
func scoreRows(r *Report, graders bool) []scoreRow {
	var rows []scoreRow
	seen := map[scoreRow]bool{}
	for _, id := range cellIDs(r.Cells) {
		var mine []scoreRow
		for _, c := range r.Cells {
			if c.ID != id {
				continue
			}
			for _, s := range c.Scores {
				row := scoreRow{id: id, name: s.Name, grader: s.Grader}
				if (s.Grader != "") == graders && !seen[row] {
					seen[row] = true
					mine = append(mine, row)
				}
			}
		}
		slices.SortFunc(mine, func(a, b scoreRow) int { return strings.Compare(a.name, b.name) })
		rows = append(rows, mine...)
	}
	return rows
}

// scoreOf finds a cell's named score.
func scoreOf(c *Cell, name string) *ScoreStat {
	for i := range c.Scores {
		if c.Scores[i].Name == name {
			return &c.Scores[i]
		}
	}
	return nil
}

// scoreLabel names a score with its grader's kind, unless the name
// already says it ("graders[0] (judge)").
func scoreLabel(name, grader string) string {
	if grader == "" || strings.HasSuffix(name, "("+grader+")") {
		return name
	}
	return name + " (" + grader + ")"
}

func intervalText(v Interval) string {
	return fmt.Sprintf("%.2f [%.2f, %.2f]", v.Value, v.Lo, v.Hi)
}

// writeScoreGrid writes the rows' means and intervals, a column per
// variant.
func writeScoreGrid(b *strings.Builder, r *Report, rows []scoreRow) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "scenario\tscore")
	for _, v := range r.Variants {
		fmt.Fprintf(tw, "\t%s", v.Name)
	}
	fmt.Fprintln(tw)
	grid := cellGrid(r)
	for _, row := range rows {
		fmt.Fprintf(tw, "%s\t%s", row.id, scoreLabel(row.name, row.grader))
		for _, v := range r.Variants {
			s := (*ScoreStat)(nil)
			if c := grid[row.id+"\x00"+v.Name]; c != nil {
				s = scoreOf(c, row.name)
			}
			if s == nil {
				fmt.Fprint(tw, "\t-")
				continue
			}
			fmt.Fprintf(tw, "\t%s", intervalText(s.Interval))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func cellIDs(cells []Cell) []string {
	var ids []string
	seen := map[string]bool{}
	for _, c := range cells {
		if !seen[c.ID] {
			seen[c.ID] = true
			ids = append(ids, c.ID)
		}
	}
	return ids
}

func cellGrid(r *Report) map[string]*Cell {
	g := map[string]*Cell{}
	for i := range r.Cells {
		c := &r.Cells[i]
		g[c.ID+"\x00"+c.Variant] = c
	}
	return g
}

// writeErrors lists the trials that could not run, at most 10.
func writeErrors(b *strings.Builder, r *Report) {
	var msgs []string
	for _, c := range r.Cells {
		for _, t := range c.Trials {
			if t.Status == "error" {
				msgs = append(msgs, t.Message)
			}
		}
	}
	if len(msgs) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%d trials could not run:\n", len(msgs))
	for i, m := range msgs {
		if i == 10 {
			fmt.Fprintf(b, "  ... and %d more\n", len(msgs)-10)
			break
		}
		fmt.Fprintf(b, "  %s\n", strings.ReplaceAll(m, "\n", "\n    "))
	}
}

// TestNote says which test decides a pass-rate change, and why.
const TestNote = `pass rate: Barnard's unconditional exact test (two-sided, pooled Wald statistic) — each side's trials are fixed by design and the total of passes is not, the model Barnard's test assumes; Fisher's exact test also conditions on the passes and is conservative at small n. Overall: paired t test over scenarios. Cost, tokens, latency and named scores: Mann-Whitney U. ~ means p >= 0.05.`

// WriteComparison writes a comparison as a table: per cell and overall,
// the pass rates, the change with its interval and p-value ("~" when not
// significant), and the changes in cost, tokens and latency.
func WriteComparison(w io.Writer, c Comparison) error {
	var b strings.Builder
	writeComparison(&b, c, true)
	_, err := io.WriteString(w, trimLines(b.String()))
	return err
}

func writeComparison(b *strings.Builder, c Comparison, note bool) {
	fmt.Fprintf(b, "%s vs %s\n", c.New, c.Base)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	timed := slices.ContainsFunc(c.Cells, func(d CellDelta) bool { return d.LatencyMS != nil })
	head := "scenario\tvariant\tbase\tnew\tΔ pass rate\tp\tcost\ttokens"
	if timed {
		head += "\tlatency"
	}
	fmt.Fprintln(tw, head)
	for _, d := range c.Cells {
		r := d.PassRate
		lat := ""
		if d.LatencyMS != nil {
			lat = "\t" + change(*d.LatencyMS)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%d/%d\t%s\t%s\t%s\t%s%s\n", d.ID, d.Variant, r.BasePassed, r.BaseN, r.NewPassed, r.NewN,
			rateChange(r.Delta, r.Lo, r.Hi, r.Significant), pval(r.P, r.Test), change(d.CostUSD), change(d.Tokens), lat)
	}
	for _, o := range c.Overall {
		fmt.Fprintf(tw, "overall (%d)\t%s\t%.2f\t%.2f\t%s\t%s\t%s\n", o.Cells, o.Variant, o.Base, o.New,
			rateChange(o.Delta, o.Lo, o.Hi, o.Significant), pval(o.P, o.Test), change(o.CostUSD))
	}
	tw.Flush()
	writeScoreChanges(b, c)
	for _, k := range c.OnlyBase {
		fmt.Fprintf(b, "only in %s: %s\n", c.Base, k)
	}
	for _, k := range c.OnlyNew {
		fmt.Fprintf(b, "only in %s: %s\n", c.New, k)
	}
	if note {
		fmt.Fprintf(b, "\n%s\n", TestNote)
	}
}

// writeScoreChanges lists the graders' scores of the paired cells, and
// any other named score whose mean changed significantly; the rest is
// counted.
func writeScoreChanges(b *strings.Builder, c Comparison) {
	type row struct {
		id, variant string
		d           ScoreDelta
	}
	var rows []row
	same := 0
	for _, cd := range c.Cells {
		for _, d := range cd.Scores {
			if d.Grader == "" && !d.Significant {
				same++
				continue
			}
			rows = append(rows, row{cd.ID, cd.Variant, d})
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\nscores: mean per trial (Mann-Whitney U)\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tvariant\tscore\tbase\tnew\tΔ\tp")
	for _, r := range rows {
		delta := fmt.Sprintf("%+.2f", r.d.Delta)
		if !r.d.Significant {
			delta = "~ " + delta
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f\t%s\tp=%.3f\n", r.id, r.variant, scoreLabel(r.d.Name, r.d.Grader), r.d.Base, r.d.New, delta, r.d.P)
	}
	tw.Flush()
	if same > 0 {
		fmt.Fprintf(b, "(%d other scores: no significant change)\n", same)
	}
}

func rateChange(d, lo, hi float64, sig bool) string {
	s := fmt.Sprintf("%+.2f [%+.2f, %+.2f]", d, lo, hi)
	if !sig {
		return "~ " + s
	}
	return s
}

func pval(p float64, test string) string { return fmt.Sprintf("p=%.3f %s", p, test) }

// change is the ratio of medians as benchstat prints it, "~" when not
// significant.
func change(m MedianDelta) string {
	if !m.Significant {
		return "~"
	}
	if m.Base == 0 {
		return fmt.Sprintf("%.3g → %.3g", m.Base, m.New)
	}
	return fmt.Sprintf("%+.1f%%", (m.Ratio-1)*100)
}

// WriteChecks writes one line per checked threshold: "✓ ..." or "✗ ...".
func WriteChecks(w io.Writer, results []CheckResult) error {
	var b strings.Builder
	for _, r := range results {
		mark := "✓"
		if !r.Pass {
			mark = "✗"
		}
		fmt.Fprintf(&b, "%s %s  %s = %.4g", mark, r.Threshold, r.Scope, r.Got)
		if r.Why != "" {
			fmt.Fprintf(&b, " (%s)", r.Why)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
