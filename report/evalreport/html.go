package evalreport

import (
	"fmt"
	"html/template"
	"io"
)

var pageTmpl = template.Must(template.New("eval").Funcs(template.FuncMap{
	"pct": func(x float64) string { return fmt.Sprintf("%.0f", x*100) },
	"f2":  func(x float64) string { return fmt.Sprintf("%.2f", x) },
	"width": func(lo, hi float64) string {
		return fmt.Sprintf("%.1f", (hi-lo)*100)
	},
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>eval {{.R.Eval}}</title>
<style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left}
.bar{position:relative;width:120px;height:10px;background:#eee;display:inline-block;vertical-align:middle;margin-right:6px}
.ci{position:absolute;top:0;height:10px;background:#9bc}
.pt{position:absolute;top:-2px;width:2px;height:14px;background:#124}
.fail{background:#fdd}.error{background:#fec}
</style></head><body>
<h1>eval {{.R.Eval}}</h1>
<p>{{len .IDs}} scenarios × {{len .R.Variants}} variants × {{.R.TrialsPerCell}} trials. Bars: pass rate over the effective trials (copies count once, errored trials left out) and its Clopper–Pearson 95% interval. Control: {{.R.Control}}.</p>
<table><tr><th>scenario</th>{{range .R.Variants}}<th>{{.Name}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.ID}}</td>{{range .Cells}}{{if not .}}<td>–</td>{{else if eq .N 0}}<td>not run</td>{{else}}<td class="{{.Verdict}}"><span class="bar"><span class="ci" style="left:{{pct .PassRate.Lo}}%;width:{{width .PassRate.Lo .PassRate.Hi}}%"></span><span class="pt" style="left:{{pct .PassRate.Value}}%"></span></span>{{.EffectivePassed}}/{{.EffectiveN}} {{f2 .PassRate.Value}} [{{f2 .PassRate.Lo}}, {{f2 .PassRate.Hi}}]{{if .Copies}} <small>({{.Copies}})</small>{{end}}{{if .Errored}} <small>(+{{.Errored}} errored)</small>{{end}}</td>{{end}}{{end}}</tr>
{{end}}<tr><th>macro</th>{{range .R.Suite}}<th><span class="bar"><span class="ci" style="left:{{pct .MacroPassRate.Lo}}%;width:{{width .MacroPassRate.Lo .MacroPassRate.Hi}}%"></span><span class="pt" style="left:{{pct .MacroPassRate.Value}}%"></span></span>{{f2 .MacroPassRate.Value}}</th>{{end}}</tr>
</table>
{{if .Scores}}<h2>Scores</h2>
<p>The mean of each named score per trial, with its 95% interval over the effective trials (binomialized Clopper–Pearson): graders' scores first, then the expectations' and invariants' (1 held, 0 did not).</p>
<table><tr><th>scenario</th><th>score</th>{{range .R.Variants}}<th>{{.Name}}</th>{{end}}</tr>
{{range .Scores}}<tr><td>{{.ID}}</td><td>{{.Label}}</td>{{range .Cells}}{{if .}}<td><span class="bar"><span class="ci" style="left:{{pct .Lo}}%;width:{{width .Lo .Hi}}%"></span><span class="pt" style="left:{{pct .Value}}%"></span></span>{{f2 .Value}} [{{f2 .Lo}}, {{f2 .Hi}}]</td>{{else}}<td>–</td>{{end}}{{end}}</tr>
{{end}}</table>{{end}}
{{if .R.Comparisons}}<h2>Against the control</h2><table><tr><th>variant</th><th>Δ macro pass rate [95%]</th><th>p</th><th>q (BH)</th><th>MDE</th></tr>
{{range .R.Comparisons}}{{$c := .}}{{range .Overall}}<tr><td>{{$c.New}} vs {{$c.Base}}</td><td>{{f2 .Delta}} [{{f2 .Lo}}, {{f2 .Hi}}]</td><td>{{printf "%.3f" .P}} ({{.Test}})</td><td>{{printf "%.3f" .Q}}</td><td>{{f2 .MDE}}</td></tr>{{end}}{{end}}</table>
{{with (index .R.Comparisons 0).Multiplicity}}<p>{{.Tests}} tests; {{.Uncorrected}} at p &lt; 0.05, {{.Flagged}} flagged after Benjamini–Hochberg (q &lt; 0.05).</p>{{end}}{{end}}
{{if .R.Thresholds}}<h2>Thresholds</h2><ul>{{range .R.Thresholds}}<li>{{if .Pass}}✓{{else}}✗{{end}} {{.Scope}}: {{.Threshold}} (got {{f2 .Got}}){{if .Why}} — {{.Why}}{{end}}</li>{{end}}</ul>{{end}}
</body></html>
`))

// WriteHTML writes a self-contained page: the variant × scenario grid with
// interval bars, the suite's macro pass rates, every named score's mean
// with its interval bar (graders' first) and the thresholds.
func WriteHTML(w io.Writer, r *Report) error {
	type row struct {
		ID    string
		Cells []*Cell
	}
	grid := cellGrid(r)
	ids := cellIDs(r.Cells)
	var rows []row
	for _, id := range ids {
		rw := row{ID: id}
		for _, v := range r.Variants {
			rw.Cells = append(rw.Cells, grid[id+"\x00"+v.Name])
		}
		rows = append(rows, rw)
	}
	type scoreLine struct {
		ID, Label string
		Cells     []*ScoreStat
	}
	var scores []scoreLine
	for _, sr := range append(scoreRows(r, true), scoreRows(r, false)...) {
		line := scoreLine{ID: sr.id, Label: scoreLabel(sr.name, sr.grader)}
		for _, v := range r.Variants {
			var s *ScoreStat
			if c := grid[sr.id+"\x00"+v.Name]; c != nil {
				s = scoreOf(c, sr.name)
			}
			line.Cells = append(line.Cells, s)
		}
		scores = append(scores, line)
	}
	if err := pageTmpl.Execute(w, struct {
		R      *Report
		IDs    []string
		Rows   []row
		Scores []scoreLine
	}{r, ids, rows, scores}); err != nil {
		return fmt.Errorf("write html: %w", err)
	}
	return nil
}
