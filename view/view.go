package view

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
	"github.com/agenteval/agenteval/stats"
	"github.com/agenteval/agenteval/store"
)

//go:embed pages.html.tmpl
var pagesSource string

//go:embed view.js
var script string

// pages are parsed once; html/template makes executing them safe from
// many goroutines and escapes everything a page shows.
var pages = template.Must(template.New("pages").Funcs(template.FuncMap{
	"pct":   func(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" },
	"money": func(f float64) string { return "$" + strconv.FormatFloat(f, 'f', 4, 64) },
	"diff":  diffLines,
}).Parse(pagesSource))

// Server serves the pages over a store. It only reads the store.
type Server struct {
	st  *store.Store
	mux *http.ServeMux
}

// New returns the view of st.
func New(st *store.Store) *Server {
	s := &Server{st: st, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /{$}", s.index)
	s.mux.HandleFunc("GET /scenario", s.scenarioTrend)
	s.mux.HandleFunc("GET /run/{id}", s.run)
	s.mux.HandleFunc("GET /run/{id}/scenario", s.runScenario)
	s.mux.HandleFunc("GET /eval/{id}", s.eval)
	s.mux.HandleFunc("GET /eval/{id}/cell", s.evalCell)
	s.mux.HandleFunc("GET /compare", s.compare)
	s.mux.HandleFunc("GET /view.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Write([]byte(script))
	})
	return s
}

// ServeHTTP serves a page. Every response forbids what the pages never
// need: scripts from anywhere but the view itself, framing, sniffing.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	s.mux.ServeHTTP(w, r)
}

// render executes the page template name with data; an error becomes a
// page that says what went wrong.
func (s *Server) render(w http.ResponseWriter, name, title string, data any) {
	var b bytes.Buffer
	err := pages.ExecuteTemplate(&b, "layout", layout{Title: title, Page: name, Data: data, Style: report.StyleHTML()})
	if err != nil {
		s.fail(w, http.StatusInternalServerError, fmt.Errorf("render %s: %w", name, err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

// layout is what every page has.
type layout struct {
	Title string
	Page  string
	Data  any
	Style template.CSS
}

// fail writes an error page (escaped like every other).
func (s *Server) fail(w http.ResponseWriter, code int, err error) {
	var b bytes.Buffer
	if terr := pages.ExecuteTemplate(&b, "layout", layout{Title: "error", Page: "error", Data: err.Error(), Style: report.StyleHTML()}); terr != nil {
		http.Error(w, err.Error(), code)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// failFor picks the status of a store error.
func (s *Server) failFor(w http.ResponseWriter, err error) {
	if errors.Is(err, store.ErrNotFound) {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	s.fail(w, http.StatusInternalServerError, err)
}

func entryID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("entry %q: not a number", r.PathValue("id"))
	}
	return id, nil
}

// suiteTrend is one suite's entries over time.
type suiteTrend struct {
	Suite   string
	Kind    store.Kind
	Entries []entryRow // newest first
	Plot    template.HTML
}

// entryRow is one entry in a list.
type entryRow struct {
	store.Summary
	When  string
	Short string // the commit's first 12 characters
	Rate  string
}

func newEntryRow(e store.Summary) entryRow {
	row := entryRow{Summary: e, When: e.Started.UTC().Format("2006-01-02 15:04:05Z"), Short: e.Commit}
	if len(row.Short) > 12 {
		row.Short = row.Short[:12]
	}
	if n := e.Passed + e.Failed + e.Errored; n > 0 {
		row.Rate = strconv.FormatFloat(100*float64(e.Passed)/float64(n), 'f', 1, 64) + "%"
	}
	return row
}

// index lists the suites, each with its trend and entries.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	list, err := s.st.List(ctx)
	if err != nil {
		s.failFor(w, err)
		return
	}
	var suites []*suiteTrend
	bySuite := map[string]*suiteTrend{}
	for _, e := range list {
		key := string(e.Kind) + "\x00" + e.Suite
		t := bySuite[key]
		if t == nil {
			t = &suiteTrend{Suite: e.Suite, Kind: e.Kind}
			bySuite[key] = t
			suites = append(suites, t)
		}
		t.Entries = append(t.Entries, newEntryRow(e))
	}
	for _, t := range suites {
		series, err := s.suiteSeries(ctx, t)
		if err != nil {
			s.failFor(w, err)
			return
		}
		t.Plot = plot(series, len(t.Entries))
		slices.Reverse(t.Entries)
	}
	s.render(w, "index", "agenteval view", struct {
		Store  string
		Suites []*suiteTrend
	}{s.st.Name(), suites})
}

// suiteSeries are the points of a suite's trend: a run's pass rate over
// its scenarios with the Wilson interval, an eval's macro pass rate per
// variant with its clustered interval (from the report).
func (s *Server) suiteSeries(ctx context.Context, t *suiteTrend) ([]series, error) {
	if t.Kind == store.KindRun {
		one := series{Name: "pass rate"}
		for i, e := range t.Entries {
			n := e.Passed + e.Failed + e.Errored
			if n == 0 {
				continue
			}
			lo, hi := stats.Wilson(e.Passed, n, 0.95)
			one.Points = append(one.Points, point{X: i, Y: float64(e.Passed) / float64(n), Lo: lo, Hi: hi,
				Href: fmt.Sprintf("/run/%d", e.ID), Label: fmt.Sprintf("run %d, %s: %d/%d passed", e.ID, e.When, e.Passed, n)})
		}
		return []series{one}, nil
	}
	var out []series
	at := map[string]int{}
	for i, e := range t.Entries {
		h, err := s.st.EvalHeader(ctx, e.ID)
		if err != nil {
			return nil, err
		}
		for _, v := range h.Suite {
			k, ok := at[v.Variant]
			if !ok {
				k = len(out)
				at[v.Variant] = k
				out = append(out, series{Name: v.Variant})
			}
			m := v.MacroPassRate
			out[k].Points = append(out[k].Points, point{X: i, Y: m.Value, Lo: m.Lo, Hi: m.Hi,
				Href: fmt.Sprintf("/eval/%d", e.ID), Label: fmt.Sprintf("eval %d, %s, %s: macro pass rate %.1f%% [%.1f%%, %.1f%%]", e.ID, e.When, v.Variant, 100*m.Value, 100*m.Lo, 100*m.Hi)})
		}
	}
	return out, nil
}

// scenarioTrend shows one scenario (or eval cell) across entries.
func (s *Server) scenarioTrend(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if name == "" {
		s.fail(w, http.StatusBadRequest, errors.New("the scenario page needs ?name=SCENARIO"))
		return
	}
	h, err := s.st.History(r.Context(), name)
	if err != nil {
		s.failFor(w, err)
		return
	}
	type histRow struct {
		store.Point
		When, Rate, Interval, Href string
	}
	var rows []histRow
	var out []series
	at := map[string]int{}
	x := map[int64]int{}
	for _, p := range h {
		if _, ok := x[p.Entry.ID]; !ok {
			x[p.Entry.ID] = len(x)
		}
		label := "run"
		href := fmt.Sprintf("/run/%d/scenario?name=%s", p.Entry.ID, urlQuery(name))
		if p.Entry.Kind == store.KindEval {
			label = p.Variant
			href = fmt.Sprintf("/eval/%d/cell?id=%s", p.Entry.ID, urlQuery(name))
		}
		row := histRow{Point: p, When: p.Entry.Started.UTC().Format("2006-01-02 15:04:05Z"), Href: href}
		if p.N > 0 {
			lo, hi := stats.Wilson(p.Passed, p.N, 0.95)
			row.Rate = fmt.Sprintf("%d/%d", p.Passed, p.N)
			row.Interval = fmt.Sprintf("[%.1f%%, %.1f%%]", 100*lo, 100*hi)
			k, ok := at[label]
			if !ok {
				k = len(out)
				at[label] = k
				out = append(out, series{Name: label})
			}
			out[k].Points = append(out[k].Points, point{X: x[p.Entry.ID], Y: float64(p.Passed) / float64(p.N), Lo: lo, Hi: hi, Href: href,
				Label: fmt.Sprintf("%s %d, %s, %s: %d/%d passed", p.Entry.Kind, p.Entry.ID, row.When, label, p.Passed, p.N)})
		}
		rows = append(rows, row)
	}
	slices.Reverse(rows)
	s.render(w, "scenario", name, struct {
		Name string
		Plot template.HTML
		Rows []histRow
	}{name, plot(out, len(x)), rows})
}

// chunkRows is the rows of a run's list in one chunk.
const chunkRows = 100

// runScenarioRow is one scenario in a run's list.
type runScenarioRow struct {
	Name, Status, Class, Message, Diff string
	Cost                               float64
	Tokens                             int
}

// run shows one run: failures first, with a filter and a search box.
func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	id, err := entryID(r)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	sum, err := s.st.Summary(r.Context(), id)
	if err != nil {
		s.failFor(w, err)
		return
	}
	if sum.Kind == store.KindEval {
		http.Redirect(w, r, fmt.Sprintf("/eval/%d", id), http.StatusSeeOther)
		return
	}
	stored, err := s.st.Rows(r.Context(), id)
	if err != nil {
		s.failFor(w, err)
		return
	}
	rows := make([]runScenarioRow, 0, len(stored))
	for _, sr := range stored {
		row := runScenarioRow{Name: sr.Name, Status: sr.Status, Class: statusClass(report.Status(sr.Status)), Cost: sr.CostUSD, Tokens: sr.Tokens}
		if sr.Record != nil {
			// a failure's message and diff, from its record
			var f struct{ Message, Diff string }
			if err := json.Unmarshal(sr.Record, &f); err != nil {
				s.fail(w, http.StatusInternalServerError, fmt.Errorf("run %d: scenario %s: a stored record does not decode: %w", id, sr.Name, err))
				return
			}
			row.Message, row.Diff = f.Message, f.Diff
		}
		rows = append(rows, row)
	}
	failuresFirst(rows)
	// the rows in chunks that the browser lays out only when they come
	// into view (content-visibility), so that a large run opens at once
	var chunks [][]runScenarioRow
	for i := 0; i < len(rows); i += chunkRows {
		chunks = append(chunks, rows[i:min(i+chunkRows, len(rows))])
	}
	s.render(w, "run", fmt.Sprintf("run %d", id), struct {
		Entry  entryRow
		Chunks [][]runScenarioRow
	}{newEntryRow(sum), chunks})
}

// runScenario shows one scenario of a run with report's renderer and its
// transcript.
func (s *Server) runScenario(w http.ResponseWriter, r *http.Request) {
	id, err := entryID(r)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	name := r.URL.Query().Get("name")
	sc, err := s.st.Scenario(r.Context(), id, name)
	if err != nil {
		s.failFor(w, err)
		return
	}
	section, err := report.ScenarioHTML(sc, "scenario")
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	s.render(w, "runScenario", name, struct {
		ID         int64
		Name       string
		Section    template.HTML
		Transcript string
	}{id, name, section, sc.Transcript})
}

// failuresFirst orders rows as report's writers order scenarios:
// failures, errors, skips, passes, by name within each.
func failuresFirst(rows []runScenarioRow) {
	rank := map[string]int{"fail": 0, "error": 1, "skip": 2, "pass": 3}
	slices.SortStableFunc(rows, func(a, b runScenarioRow) int {
		ra, ok := rank[a.Class]
		if !ok {
			ra = 4
		}
		rb, ok := rank[b.Class]
		if !ok {
			rb = 4
		}
		if ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// statusClass is a verdict's CSS class; an unknown verdict is "unknown",
// so that no stored text reaches a class name.
func statusClass(s report.Status) string {
	switch s {
	case report.StatusPass, report.StatusFail, report.StatusError, report.StatusSkip:
		return string(s)
	}
	return "unknown"
}

// verdictClass is an eval cell's verdict as a CSS class.
func verdictClass(v string) string { return statusClass(report.Status(v)) }

// diffLine is one line of a (-want +got) diff with its CSS class.
type diffLine struct{ Class, Text string }

// diffLines splits a diff into lines classed as report's page does.
func diffLines(diff string) []diffLine {
	if diff == "" {
		return nil
	}
	var out []diffLine
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		c := "ctx"
		switch {
		case strings.HasPrefix(l, "@@"):
			c = "hunk"
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		}
		out = append(out, diffLine{c, l})
	}
	return out
}

// evalGridRow is one cell ID across the variants.
type evalGridRow struct {
	ID    string
	Cells []*gridCell // by variant, nil where the variant has no cell
}

type gridCell struct {
	Variant, Verdict, Class string
	Passed, N               int
	Rate                    evalreport.Interval
}

// eval shows one eval: the scenario × variant grid, each variant over
// the suite, and the comparisons with the control.
func (s *Server) eval(w http.ResponseWriter, r *http.Request) {
	id, err := entryID(r)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	sum, err := s.st.Summary(r.Context(), id)
	if err != nil {
		s.failFor(w, err)
		return
	}
	if sum.Kind == store.KindRun {
		http.Redirect(w, r, fmt.Sprintf("/run/%d", id), http.StatusSeeOther)
		return
	}
	rep, err := s.st.Eval(r.Context(), id)
	if err != nil {
		s.failFor(w, err)
		return
	}
	variants := variantNames(rep)
	var rows []*evalGridRow
	byID := map[string]*evalGridRow{}
	for _, c := range rep.Cells {
		row := byID[c.ID]
		if row == nil {
			row = &evalGridRow{ID: c.ID, Cells: make([]*gridCell, len(variants))}
			byID[c.ID] = row
			rows = append(rows, row)
		}
		if k := slices.Index(variants, c.Variant); k >= 0 {
			row.Cells[k] = &gridCell{Variant: c.Variant, Verdict: c.Verdict, Class: verdictClass(c.Verdict), Passed: c.Passed, N: c.N, Rate: c.PassRate}
		}
	}
	var comparisons []string
	for _, c := range rep.Comparisons {
		var b bytes.Buffer
		if err := evalreport.WriteComparison(&b, c); err != nil {
			s.fail(w, http.StatusInternalServerError, err)
			return
		}
		comparisons = append(comparisons, b.String())
	}
	s.render(w, "eval", fmt.Sprintf("eval %d: %s", id, rep.Eval), struct {
		Entry       entryRow
		Report      *evalreport.Report
		Variants    []string
		Rows        []*evalGridRow
		Comparisons []string
	}{newEntryRow(sum), rep, variants, rows, comparisons})
}

// variantNames are the report's variants in file order, then any a cell
// names that the header does not.
func variantNames(rep *evalreport.Report) []string {
	var out []string
	for _, v := range rep.Variants {
		out = append(out, v.Name)
	}
	for _, c := range rep.Cells {
		if !slices.Contains(out, c.Variant) {
			out = append(out, c.Variant)
		}
	}
	return out
}

// trialView is one trial of one variant.
type trialView struct {
	evalreport.Trial
	Class  string
	Record string // the trial's stored JSON, every field the report holds
}

// evalCell shows one scenario's trials, each variant side by side.
func (s *Server) evalCell(w http.ResponseWriter, r *http.Request) {
	id, err := entryID(r)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	cellID := r.URL.Query().Get("id")
	rep, err := s.st.Eval(r.Context(), id)
	if err != nil {
		s.failFor(w, err)
		return
	}
	type column struct {
		Variant string
		Cell    *evalreport.Cell
		Class   string
	}
	var cols []column
	maxTrials := 0
	for i := range rep.Cells {
		c := &rep.Cells[i]
		if c.ID == cellID {
			cols = append(cols, column{c.Variant, c, verdictClass(c.Verdict)})
			maxTrials = max(maxTrials, len(c.Trials))
		}
	}
	if len(cols) == 0 {
		s.fail(w, http.StatusNotFound, fmt.Errorf("eval %d has no scenario %q", id, cellID))
		return
	}
	// rows of trials: trial k of every variant side by side
	rows := make([][]*trialView, maxTrials)
	for k := range rows {
		rows[k] = make([]*trialView, len(cols))
		for j, c := range cols {
			if k < len(c.Cell.Trials) {
				t := c.Cell.Trials[k]
				rec := indentJSON(t)
				rows[k][j] = &trialView{Trial: t, Class: statusClass(t.Status), Record: rec}
			}
		}
	}
	s.render(w, "cell", cellID, struct {
		ID      int64
		Eval    string
		CellID  string
		Columns []column
		Rows    [][]*trialView
	}{id, rep.Eval, cellID, cols, rows})
}

// urlQuery escapes s for a query value (html/template escapes the rest).
func urlQuery(s string) string { return template.URLQueryEscaper(s) }

// indentJSON is v as indented JSON, for a page that shows a whole record.
func indentJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err.Error()
	}
	return b.String()
}
