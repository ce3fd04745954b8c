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
		fmt.Fprintf(tw, "\t%s", macroText(s))
	}
	fmt.Fprintln(tw)
	fmt.Fprint(tw, "cost (USD)")
	for _, s := range r.Suite {
		fmt.Fprintf(tw, "\t%s", costText(s))
	}
	fmt.Fprintln(tw)
	tw.Flush()
	b.WriteString(EffectiveNote(r))
	for _, v := range r.Variants {
		if v.Warning != "" {
			fmt.Fprintf(&b, "warning: %s\n", v.Warning)
		}
	}
	if rows := scoreRows(r, true); len(rows) > 0 {
		b.WriteString("\ngrader scores: mean [95% interval over the effective trials]\n")
		writeScoreGrid(&b, r, rows)
	}
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
		if g := r.Gates; g != nil {
			fmt.Fprintf(&b, "  pass_rate min gates: %d tests, Holm-corrected: %d broken on evidence (%d at uncorrected p < 0.05)\n", g.Tests, g.Flagged, g.Uncorrected)
		}
		for _, t := range broken {
			fmt.Fprintf(&b, "  ✗ %s  %s = %.3f", t.Threshold, t.Scope, t.Got)
			if t.Why != "" {
				fmt.Fprintf(&b, " (%s)", t.Why)
			}
			b.WriteString("\n")
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
	if c.N == 0 {
		return "not run"
	}
	if c.EffectiveN == 0 {
		return fmt.Sprintf("%d errored, none measured", c.Errored)
	}
	s := fmt.Sprintf("%d/%d %.2f [%.2f, %.2f]", c.EffectivePassed, c.EffectiveN, c.PassRate.Value, c.PassRate.Lo, c.PassRate.Hi)
	if done := c.N - c.Errored; c.EffectiveN < done {
		s += fmt.Sprintf(" (n_eff %d of %d)", c.EffectiveN, done)
	}
	if c.Errored > 0 {
		s += fmt.Sprintf(" (+%d errored)", c.Errored)
	}
	if c.Verdict == "fail" {
		s += " ✗"
	}
	return s
}

// macroText is a variant's macro pass rate with its interval and the
// cells left out.
func macroText(s VariantSummary) string {
	if s.Cells == 0 {
		return "not run"
	}
	t := intervalText(s.MacroPassRate)
	if s.NotRun > 0 {
		t += fmt.Sprintf(" (%d cells not run)", s.NotRun)
	}
	return t
}

// costText is a variant's known cost and the trials whose cost is not.
func costText(s VariantSummary) string {
	t := money(s.CostUSD)
	if s.CostUnknown > 0 {
		t += fmt.Sprintf(" + %d trials unknown", s.CostUnknown)
	}
	return t
}

// EffectiveNote says which cells' trials were copies, and what the
// intervals are: one line per kind of copy, the cells counted.
func EffectiveNote(r *Report) string {
	byWhy := map[string][]string{}
	var whys []string
	for _, c := range r.Cells {
		if c.Copies == "" {
			continue
		}
		why := c.Copies
		if strings.HasPrefix(why, "deterministic") {
			why = "deterministic (identical trials count as 1)"
		}
		if _, ok := byWhy[why]; !ok {
			whys = append(whys, why)
		}
		byWhy[why] = append(byWhy[why], c.ID+" × "+c.Variant)
	}
	var b strings.Builder
	b.WriteString("\npass rate: effective passed/effective n, Clopper–Pearson 95% interval; errored trials left out")
	if len(whys) == 0 {
		b.WriteString("; every trial independent\n")
		return b.String()
	}
	b.WriteString("\n")
	for _, w := range whys {
		cells := byWhy[w]
		list := strings.Join(cells[:min(len(cells), 3)], ", ")
		if len(cells) > 3 {
			list += fmt.Sprintf(", ... (%d cells)", len(cells))
		}
		fmt.Fprintf(&b, "  %s: %s\n", w, list)
	}
	return b.String()
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
const TestNote = `pass rate: Barnard's unconditional exact test (two-sided, pooled Wald statistic) on the effective trials, Δ with Newcombe's 95% interval; overall: Cochran–Mantel–Haenszel stratified by scenario, Δ with the MOVER interval. Cost, tokens, latency: Mann-Whitney U with the Hodges–Lehmann shift and its 95% interval; named scores: Mann-Whitney U with the change of means. q: p after Benjamini–Hochberg over every test listed; ~ means q >= 0.05. MDE: the smallest change in pass rate found 80% of the time at these trials (two-sided, α = 0.05).`

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
	head := "scenario\tvariant\tbase\tnew\tΔ pass rate\tp\tq\tMDE\tcost\ttokens"
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
		if r.Test == "none" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\tnot tested\t\t\t\t%s\t%s%s\n", d.ID, d.Variant, sideText(r.BasePassed, r.BaseN, r.BaseErrored), sideText(r.NewPassed, r.NewN, r.NewErrored), change(d.CostUSD), change(d.Tokens), lat)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\tq=%.3f\t%s\t%s\t%s%s\n", d.ID, d.Variant, sideText(r.BasePassed, r.BaseN, r.BaseErrored), sideText(r.NewPassed, r.NewN, r.NewErrored),
			rateChange(r.Delta, r.Lo, r.Hi, r.Significant), pval(r.P, r.Test), r.Q, mdeText(r.MDE), change(d.CostUSD), change(d.Tokens), lat)
	}
	for _, o := range c.Overall {
		fmt.Fprintf(tw, "overall (%d)\t%s\t%.2f\t%.2f\t%s\t%s\tq=%.3f\t%s\t%s\n", o.Cells, o.Variant, o.Base, o.New,
			rateChange(o.Delta, o.Lo, o.Hi, o.Significant), pval(o.P, o.Test), o.Q, mdeText(o.MDE), change(o.CostUSD))
	}
	tw.Flush()
	if m := c.Multiplicity; m != nil {
		fmt.Fprintf(b, "%d tests (with the other comparisons of the report); %d at p < 0.05, %d flagged after Benjamini–Hochberg (q < 0.05)\n", m.Tests, m.Uncorrected, m.Flagged)
	}
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
	fmt.Fprintln(tw, "scenario\tvariant\tscore\tbase\tnew\tΔ\tp\tq")
	for _, r := range rows {
		delta := fmt.Sprintf("%+.2f", r.d.Delta)
		if !r.d.Significant {
			delta = "~ " + delta
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f\t%s\tp=%.3f\tq=%.3f\n", r.id, r.variant, scoreLabel(r.d.Name, r.d.Grader), r.d.Base, r.d.New, delta, r.d.P, r.d.Q)
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

// mdeText is a minimum detectable effect, "none" when no change within
// [0, 1] is found 80% of the time at these trials.
func mdeText(m float64) string {
	if m >= 1 {
		return "none"
	}
	return fmt.Sprintf("%.2f", m)
}

// sideText is one side's effective passes, with the errored trials left
// out.
func sideText(passed, n, errored int) string {
	if n == 0 {
		if errored > 0 {
			return fmt.Sprintf("%d errored", errored)
		}
		return "not run"
	}
	s := fmt.Sprintf("%d/%d", passed, n)
	if errored > 0 {
		s += fmt.Sprintf(" +%de", errored)
	}
	return s
}

// change is the Hodges–Lehmann shift with its interval, what the
// Mann-Whitney test tests; "~" when not significant, "unknown" when a
// side has no known value.
func change(m MedianDelta) string {
	if m.Untested {
		if m.Unknown == 0 {
			return "not tested"
		}
		return fmt.Sprintf("unknown (%d)", m.Unknown)
	}
	if !m.Significant {
		return "~"
	}
	if m.ShiftLo == m.ShiftHi {
		// every pairwise difference alike: the samples have no spread, and
		// a zero-width interval would read as certainty
		return fmt.Sprintf("%+.3g (no spread: no interval)", m.Shift)
	}
	return fmt.Sprintf("%+.3g [%+.3g, %+.3g]", m.Shift, m.ShiftLo, m.ShiftHi)
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
