package evalreport

import (
	"fmt"
	"html/template"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/agenteval/agenteval/report"
)

// The "why and what" sections of the writers for people: the
// expectations that failed most in each cell with an example, and the
// final answers of each variant side by side.

// failingPerCell is how many failing expectations a text or Markdown
// report lists per cell; the others are counted.
const failingPerCell = 3

// answerRow is one distinct final answer of a scenario (case) and, per
// variant in file order, how its trials gave it (nil: none did).
type answerRow struct {
	Final  string
	Counts []*Answer
	total  int
}

// answerRows lists the distinct answers of the scenario (case) id across
// the variants: those given by the most trials first, then in the order
// of the variants and of each cell's answers.
func answerRows(r *Report, grid map[string]*Cell, id string) (rows []answerRow, others []int) {
	at := map[string]int{}
	others = make([]int, len(r.Variants))
	for vi, v := range r.Variants {
		c := grid[id+"\x00"+v.Name]
		if c == nil {
			continue
		}
		others[vi] = c.OtherAnswers
		for i := range c.Answers {
			a := &c.Answers[i]
			k, ok := at[a.Final]
			if !ok {
				k = len(rows)
				at[a.Final] = k
				rows = append(rows, answerRow{Final: a.Final, Counts: make([]*Answer, len(r.Variants))})
			}
			rows[k].Counts[vi] = a
			rows[k].total += a.Trials
		}
	}
	slices.SortStableFunc(rows, func(a, b answerRow) int { return b.total - a.total })
	return rows, others
}

// answerCount is how a variant gave an answer: "3 (2 passed)", or "-".
func answerCount(a *Answer) string {
	if a == nil {
		return "-"
	}
	return fmt.Sprintf("%d (%d passed)", a.Trials, a.Passed)
}

// shortText is s on one line, cut to n runes.
func shortText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func hasFailing(r *Report) bool {
	for _, c := range r.Cells {
		if len(c.Failing) > 0 {
			return true
		}
	}
	return false
}

func hasAnswers(r *Report) bool {
	for _, c := range r.Cells {
		if len(c.Answers) > 0 {
			return true
		}
	}
	return false
}

// writeWhyText writes the failing expectations of each cell and the
// answers side by side, for a terminal.
func writeWhyText(b *strings.Builder, r *Report) {
	if hasFailing(r) {
		b.WriteString("\nwhy trials failed: the expectations that failed most per cell, with the first failure\n")
		for _, c := range r.Cells {
			if len(c.Failing) == 0 {
				continue
			}
			fmt.Fprintf(b, "  %s × %s: %d of %d trials failed\n", c.ID, c.Variant, c.N-c.Passed-c.Errored, c.N)
			for i, f := range c.Failing {
				if i == failingPerCell {
					fmt.Fprintf(b, "    ... and %d more expectations\n", len(c.Failing)-failingPerCell)
					break
				}
				fmt.Fprintf(b, "    %s: %s; trial %d: %s\n", f.Name, trials(f.Trials), f.Example.Trial, shortText(f.Example.Message, 160))
			}
		}
	}
	if !hasAnswers(r) {
		return
	}
	b.WriteString("\nfinal answers side by side: trials per variant (passed)\n")
	grid := cellGrid(r)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "scenario\tanswer")
	for _, v := range r.Variants {
		fmt.Fprintf(tw, "\t%s", v.Name)
	}
	fmt.Fprintln(tw)
	for _, id := range cellIDs(r.Cells) {
		rows, others := answerRows(r, grid, id)
		for i, row := range rows {
			name := ""
			if i == 0 {
				name = id
			}
			fmt.Fprintf(tw, "%s\t%q", name, shortText(row.Final, 60))
			for _, a := range row.Counts {
				fmt.Fprintf(tw, "\t%s", answerCount(a))
			}
			fmt.Fprintln(tw)
		}
		if sum(others) > 0 {
			fmt.Fprint(tw, "\t(other answers)")
			for _, n := range others {
				fmt.Fprintf(tw, "\t%d", n)
			}
			fmt.Fprintln(tw)
		}
	}
	tw.Flush()
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

// writeWhyMarkdown writes the same sections as Markdown, folded.
func writeWhyMarkdown(b *strings.Builder, r *Report) {
	if hasFailing(r) {
		b.WriteString("<details><summary>why trials failed: the expectations that failed most per cell, with the first failure</summary>\n\n")
		b.WriteString("| scenario | variant | expectation | failed trials | first failure |\n|---|---|---|---|---|\n")
		for _, c := range r.Cells {
			for i, f := range c.Failing {
				if i == failingPerCell {
					fmt.Fprintf(b, "| %s | %s | … %d more | | |\n", mdEscape(c.ID), mdEscape(c.Variant), len(c.Failing)-failingPerCell)
					break
				}
				fmt.Fprintf(b, "| %s | %s | %s | %d of %d | trial %d: %s |\n", mdEscape(c.ID), mdEscape(c.Variant), mdEscape(f.Name), f.Trials, c.N, f.Example.Trial, mdEscape(shortText(f.Example.Message, 200)))
			}
		}
		b.WriteString("\n</details>\n\n")
	}
	if !hasAnswers(r) {
		return
	}
	b.WriteString("<details><summary>final answers side by side: trials per variant (passed)</summary>\n\n| scenario | answer |")
	for _, v := range r.Variants {
		fmt.Fprintf(b, " %s |", mdEscape(v.Name))
	}
	b.WriteString("\n|---|---|")
	for range r.Variants {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	grid := cellGrid(r)
	for _, id := range cellIDs(r.Cells) {
		rows, others := answerRows(r, grid, id)
		for _, row := range rows {
			fmt.Fprintf(b, "| %s | %s |", mdEscape(id), mdQuote(shortText(row.Final, 200)))
			for _, a := range row.Counts {
				fmt.Fprintf(b, " %s |", answerCount(a))
			}
			b.WriteString("\n")
		}
		if sum(others) > 0 {
			fmt.Fprintf(b, "| %s | (other answers) |", mdEscape(id))
			for _, n := range others {
				fmt.Fprintf(b, " %d |", n)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n</details>\n\n")
}

// mdQuote is s quoted for a table cell ("" as "(empty)"), escaped as
// mdEscape does.
func mdQuote(s string) string {
	if s == "" {
		return "(empty)"
	}
	return "“" + mdEscape(s) + "”"
}

var whyTmpl = template.Must(template.New("why").Parse(`
{{- if .Calibration}}
<h2>Judge calibration</h2>
<p>Each judge's replayed verdicts against human labels ({{.Labels}}): the share of trials on which they agree, Cohen's κ with its 95% interval (Fleiss, Cohen and Everitt's standard error) per rater, and Krippendorff's α over the judge and every rater with its bootstrap 95% interval.</p>
<table class="calibration"><tr><th>judge</th><th>labels</th><th>rater</th><th>trials</th><th>agreement</th><th>κ</th><th>α (judge and raters)</th></tr>
{{range .Calibration}}<tr><td>{{.Grader}}</td><td>{{.Kind}}</td><td>{{.Rater}}</td><td>{{.N}}</td><td>{{.Agreement}}</td><td>{{.Kappa}}</td><td>{{.Alpha}}</td></tr>
{{end}}</table>
{{- end}}
{{- if .Failing}}
<h2>Why trials failed</h2>
<p>The expectations that failed most in each cell, with the first failure.</p>
<table class="failing"><tr><th>scenario</th><th>variant</th><th>expectation</th><th>failed trials</th><th>first failure</th></tr>
{{range .Failing}}<tr><td><a href="#{{.Anchor}}">{{.ID}}</a></td><td>{{.Variant}}</td><td>{{.Name}}</td><td>{{.Trials}} of {{.N}}</td><td>trial {{.Trial}}: {{.Message}}{{if .Diff}}<pre class="diff">{{.Diff}}</pre>{{end}}</td></tr>
{{end}}</table>
{{- end}}
{{- if .Answers}}
<h2>Final answers side by side</h2>
<p>Each distinct final answer and, per variant, the trials that gave it (how many passed).</p>
<table class="answers"><tr><th>scenario</th><th>answer</th>{{range .Variants}}<th>{{.Name}}</th>{{end}}</tr>
{{range .Answers}}<tr><td>{{.ID}}</td><td><pre class="final">{{.Final}}</pre></td>{{range .Counts}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{- end}}
{{- if .Cells}}
<h2>Trials</h2>
<p>Each trial folded: open one for its failures, sequence diagram, final answer and transcript. A cell keeps the transcripts of its first {{.DetailTrials}} failed and first {{.DetailTrials}} passed trials.</p>
{{range .Cells}}<section class="cell" id="{{.Anchor}}"><h3>{{.ID}} × {{.Variant}}: {{.Passed}} of {{.N}} passed</h3>
{{range .Trials}}<details class="trial {{.Status}}"><summary>trial {{.Index}}: {{.Status}}{{if .Short}} — {{.Short}}{{end}}</summary>
{{.Detail}}
</details>
{{end}}</section>
{{end}}
{{- end}}`))

// whyHTML renders the failing expectations, the answers side by side and
// every trial, folded, for WriteHTML.
func whyHTML(r *Report) (template.HTML, error) {
	type failing struct {
		ID, Variant, Anchor, Name, Message, Diff string
		Trials, N, Trial                         int
	}
	type answer struct {
		ID, Final string
		Counts    []string
	}
	type trial struct {
		Index         int
		Status, Short string
		Detail        template.HTML
	}
	type cell struct {
		ID, Variant, Anchor string
		Passed, N           int
		Trials              []trial
	}
	type calibration struct {
		Grader, Kind, Rater, Agreement, Kappa, Alpha string
		N                                            int
	}
	page := struct {
		Calibration  []calibration
		Labels       string
		Failing      []failing
		Answers      []answer
		Cells        []cell
		Variants     []VariantInfo
		DetailTrials int
	}{Variants: r.Variants, DetailTrials: DetailTrials, Labels: r.Labels}
	for _, c := range r.Calibration {
		for i, ra := range c.Raters {
			hc := calibration{Grader: c.Grader, Kind: c.Kind, Rater: raterName(ra.Rater), N: ra.N, Agreement: fmt.Sprintf("%.2f", ra.Agreement), Kappa: kappaText(ra)}
			if i == 0 {
				hc.Alpha = alphaText(c)
			}
			page.Calibration = append(page.Calibration, hc)
		}
	}
	anchors := map[string]int{}
	anchorOf := map[*Cell]string{}
	for i := range r.Cells {
		c := &r.Cells[i]
		anchorOf[c] = report.UniqueID(anchors, "cell-"+report.Slug(c.ID+"-"+c.Variant))
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		for _, f := range c.Failing {
			page.Failing = append(page.Failing, failing{ID: c.ID, Variant: c.Variant, Anchor: anchorOf[c], Name: f.Name, Message: f.Example.Message, Diff: f.Example.Diff, Trials: f.Trials, N: c.N, Trial: f.Example.Trial})
		}
	}
	grid := cellGrid(r)
	for _, id := range cellIDs(r.Cells) {
		rows, others := answerRows(r, grid, id)
		for _, row := range rows {
			a := answer{ID: id, Final: row.Final}
			for _, n := range row.Counts {
				a.Counts = append(a.Counts, answerCount(n))
			}
			page.Answers = append(page.Answers, a)
		}
		if sum(others) > 0 {
			a := answer{ID: id, Final: "(other answers)"}
			for _, n := range others {
				a.Counts = append(a.Counts, fmt.Sprint(n))
			}
			page.Answers = append(page.Answers, a)
		}
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		hc := cell{ID: c.ID, Variant: c.Variant, Anchor: anchorOf[c], Passed: c.Passed, N: c.N}
		for _, t := range c.Trials {
			s := report.Scenario{Status: t.Status, Final: t.Final}
			if t.Status == report.StatusError {
				s.Message = t.Message
			}
			for _, f := range t.Failures {
				s.Expectations = append(s.Expectations, report.Expectation{Name: f.Name, Message: f.Message, Diff: f.Diff})
			}
			if t.Detail != nil {
				s.Trajectory, s.Exchanges = t.Detail.Trajectory, t.Detail.Exchanges
			}
			d, err := report.DetailHTML(&s)
			if err != nil {
				return "", fmt.Errorf("%s × %s trial %d: %w", c.ID, c.Variant, t.Index, err)
			}
			hc.Trials = append(hc.Trials, trial{Index: t.Index, Status: string(t.Status), Short: shortText(t.Message, 100), Detail: d})
		}
		page.Cells = append(page.Cells, hc)
	}
	var b strings.Builder
	if err := whyTmpl.Execute(&b, page); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil //nolint:gosec // escaped by html/template above
}

// trials is "1 trial" or "n trials".
func trials(n int) string {
	if n == 1 {
		return "1 trial"
	}
	return fmt.Sprintf("%d trials", n)
}
