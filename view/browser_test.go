package view_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/store"
	"github.com/agenteval/agenteval/view"
)

// TestBrowser loads every page of the view in headless Chromium over a
// store filled by real runs of the bundled corpus and suite (two runs,
// two evals, the second run with one golden transcript changed), in
// SQLite and, where PostgreSQL is installed, in Postgres, and checks what
// the browser shows: what is listed, in what order, what a click reveals.
func TestBrowser(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			dsn := filepath.Join(t.TempDir(), "results.db")
			if engine == "postgres" {
				dsn = pgDSN(t)
			}
			tab := chromium(t)
			st, err := store.Open(t.Context(), dsn, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			fill(t, st)
			srv := httptest.NewServer(view.New(st))
			defer srv.Close()
			browse(t, tab, srv.URL)
		})
	}
}

// js evaluates expr in the tab after loading url (when url is not "").
func js[T any](t *testing.T, tab context.Context, url, expr string, actions ...chromedp.Action[chromedp.Void]) T {
	t.Helper()
	var all []chromedp.Action[chromedp.Void]
	if url != "" {
		all = append(all, chromedp.Navigate(url))
	}
	all = append(all, actions...)
	if err := chromedp.Do(tab, all...); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	out, err := chromedp.Run(tab, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("on %s evaluate %s: %v", url, expr, err)
	}
	return out
}

func browse(t *testing.T, tab context.Context, base string) {
	const runA, evalA, runB, evalB = "1", "2", "3", "4"
	nScenarios := len(corpus.runs[0].Scenarios)

	t.Run("index lists both suites, newest entry first, with their trends", func(t *testing.T) {
		got := js[[]string](t, tab, base+"/", `[...document.querySelectorAll("section.suite")].map(s =>
			s.dataset.kind + " " + s.dataset.suite + ": " + [...s.querySelectorAll("tr.entry")].map(r => r.dataset.id).join(",") +
			" points=" + s.querySelectorAll("svg.trend a.point").length + " bars=" + s.querySelectorAll("svg.trend line.ci").length)`)
		nv := len(corpus.evals[0].Variants)
		want := []string{
			"run scenarios: 3,1 points=2 bars=2",
			"eval " + corpus.evals[0].Eval + ": 4,2 points=" + itoa(2*nv) + " bars=" + itoa(2*nv),
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("index mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("ticking two entries fills the compare form", func(t *testing.T) {
		got := js[[]string](t, tab, base+"/", `[document.querySelector("form.compare").elements.a.value, document.querySelector("form.compare").elements.b.value]`,
			chromedp.Click(chromedp.CSS(`input.pick[value="1"]`)), chromedp.Click(chromedp.CSS(`input.pick[value="3"]`)))
		if diff := cmp.Diff([]string{"1", "3"}, got); diff != "" {
			t.Errorf("compare form mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("a run lists its failures first, and filter and search narrow the list", func(t *testing.T) {
		url := base + "/run/" + runB
		first := js[[]string](t, tab, url, `[...document.querySelectorAll("#scenarios .row")].slice(0, 2).map(r => r.classList[1] + " " + r.querySelector("a").textContent)`)
		if len(first) != 2 || first[0] != "fail "+flipped || !strings.HasPrefix(first[1], "pass ") {
			t.Errorf("first rows = %q, want the failure %s first, then passes", first, flipped)
		}
		visible := `[...document.querySelectorAll("#scenarios .row")].filter(r => getComputedStyle(r).display !== "none").map(r => r.querySelector("a").textContent)`
		if got := js[[]string](t, tab, "", visible); len(got) != nScenarios {
			t.Errorf("all: %d rows shown, want %d", len(got), nScenarios)
		}
		got := js[[]string](t, tab, "", visible, chromedp.Click(chromedp.CSS(`button[data-filter="fail"]`)))
		if diff := cmp.Diff([]string{flipped}, got); diff != "" {
			t.Errorf("after a click on fail (-want +got):\n%s", diff)
		}
		got = js[[]string](t, tab, "", visible, chromedp.Click(chromedp.CSS(`button[data-filter="all"]`)),
			chromedp.SendKeys(chromedp.CSS(`input.search`), "hitl/"))
		if len(got) == 0 || len(got) == nScenarios {
			t.Errorf("search hitl/: %d rows shown, want some, not all", len(got))
		}
		for _, name := range got {
			if !strings.Contains(name, "hitl/") {
				t.Errorf("search hitl/ shows %s", name)
			}
		}
		diff := js[string](t, tab, url, `document.querySelector("#scenarios .row.fail pre.diff").textContent`)
		if !strings.Contains(diff, "a line the run does not write") {
			t.Errorf("the failure's diff = %q, want the golden line that changed", diff)
		}
	})

	t.Run("a click on a scenario shows its expectations, diagram and transcript", func(t *testing.T) {
		got := js[[]string](t, tab, base+"/run/"+runB, `[document.querySelector("section.scenario h2").textContent,
			String(document.querySelectorAll("svg.sequence g.msg, svg.sequence g[class*=msg]").length > 0),
			String(document.querySelectorAll("table.expectations .bad").length),
			document.querySelector("pre.transcript").textContent.split("\n")[0]]`,
			chromedp.Click(chromedp.CSS(`#scenarios .row.fail a`)), chromedp.WaitVisible(chromedp.CSS(`section.scenario`)))
		if len(got) != 4 || !strings.Contains(got[0], flipped) || got[1] != "true" || got[2] == "0" || got[3] == "" {
			t.Errorf("scenario page = %q; want its name, a sequence diagram, a failed expectation and the transcript", got)
		}
	})

	t.Run("an eval shows the scenario × variant grid and a click shows a cell's trials side by side", func(t *testing.T) {
		e := corpus.evals[0]
		var variants []string
		for _, v := range e.Variants {
			variants = append(variants, v.Name)
		}
		head := js[[]string](t, tab, base+"/eval/"+evalA, `[...document.querySelectorAll("table.grid tr:first-child th")].slice(1).map(th => th.textContent)`)
		if diff := cmp.Diff(variants, head); diff != "" {
			t.Errorf("grid columns (-want +got):\n%s", diff)
		}
		rows := js[int](t, tab, "", `document.querySelectorAll("table.grid tr[data-cell]").length`)
		if want := len(e.Cells) / len(variants); rows != want {
			t.Errorf("grid rows = %d, want %d", rows, want)
		}
		c := e.Cells[0]
		cell := js[[]string](t, tab, "", `[...document.querySelectorAll("table.grid tr[data-cell]")[0].querySelectorAll("td.cell")].map(td => td.textContent)`)
		if len(cell) != len(variants) || !strings.Contains(cell[0], itoa(c.Passed)+"/"+itoa(c.N)) || !strings.Contains(cell[0], "[") {
			t.Errorf("first grid row = %q, want %d/%d with its interval", cell, c.Passed, c.N)
		}
		trials := js[[]string](t, tab, "", `[document.querySelector("h1").textContent,
			[...document.querySelectorAll("table.trials tr:first-child th.variant")].map(th => th.firstChild.textContent.trim()).join(","),
			String(document.querySelectorAll("table.trials tr.trial").length),
			document.querySelector("table.trials tr.trial td.answer pre.final").textContent]`,
			chromedp.Click(chromedp.CSS(`table.grid td.cell a`)), chromedp.WaitVisible(chromedp.CSS(`table.trials`)))
		want := []string{c.ID, strings.Join(variants, ","), itoa(len(c.Trials)), c.Trials[0].Final}
		if diff := cmp.Diff(want, trials); diff != "" {
			t.Errorf("cell page (-want +got):\n%s", diff)
		}
	})

	t.Run("comparing two runs shows what flipped and the totals", func(t *testing.T) {
		got := js[[]string](t, tab, base+"/compare?a="+runA+"&b="+runB, `[...document.querySelectorAll("table.flips tr.flip")].map(r => [...r.cells].map(c => c.textContent).join(" "))`)
		if diff := cmp.Diff([]string{flipped + " pass fail"}, got); diff != "" {
			t.Errorf("flips (-want +got):\n%s", diff)
		}
		rate := js[string](t, tab, "", `document.querySelector("table.stats tr:nth-child(2)").textContent`)
		if !strings.Contains(rate, "pass rate") || !strings.Contains(rate, itoa(nScenarios-1)+"/"+itoa(nScenarios)) {
			t.Errorf("pass rate row = %q, want %d/%d for B", rate, nScenarios-1, nScenarios)
		}
	})

	t.Run("comparing two evals shows the statistics", func(t *testing.T) {
		got := js[[]string](t, tab, base+"/compare?a="+evalA+"&b="+evalB, `[document.querySelector("p.none").textContent, document.querySelector("pre.comparison").textContent]`)
		if len(got) != 2 || got[0] != "Nothing flipped." || !strings.Contains(got[1], "eval 2") {
			t.Errorf("eval comparison = %q; want nothing flipped (replay is deterministic) and the statistics", got)
		}
	})

	t.Run("a scenario's history plots every entry", func(t *testing.T) {
		got := js[[]string](t, tab, base+"/scenario?name="+flipped, `[...document.querySelectorAll("table.history tr")].slice(1).map(r => r.cells[0].textContent + " " + r.cells[3].textContent)`)
		if diff := cmp.Diff([]string{"run 3 fail", "run 1 pass"}, got); diff != "" {
			t.Errorf("history (-want +got):\n%s", diff)
		}
		if n := js[int](t, tab, "", `document.querySelectorAll("svg.trend a.point").length`); n != 2 {
			t.Errorf("history plot: %d points, want 2", n)
		}
	})
}

// TestBrowserHostileReport opens a report folder whose report holds markup
// and script in every text field: the browser shows it as text and runs
// none of it.
func TestBrowserHostileReport(t *testing.T) {
	t.Parallel()
	tab := chromium(t)
	dir := t.TempDir()
	evil := `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script><b id="injected">bold</b>`
	r := &report.Report{Schema: report.Schema, Failed: 1, Scenarios: []report.Scenario{{
		Name: "evil/" + evil, File: "evil.yaml", Status: report.StatusFail, Message: evil, Diff: "-" + evil + "\n+" + evil, Final: evil,
		Expectations: []report.Expectation{{Name: evil, Message: evil, Diff: "-" + evil}},
		Exchanges:    []report.Exchange{{From: "user", To: "agent", Label: evil, Kind: "input"}},
		Agent:        report.Agent{Kind: evil, Model: evil},
	}}}
	f, err := os.Create(filepath.Join(dir, "agenteval.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := report.WriteJSON(f, r); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, err := store.Open(t.Context(), ":memory:", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := view.LoadReports(t.Context(), st, dir); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(view.New(st))
	defer srv.Close()
	for _, path := range []string{"/", "/run/1", "/run/1/scenario?name=" + url.QueryEscape("evil/"+evil), "/scenario?name=" + url.QueryEscape("evil/"+evil)} {
		got := js[[]string](t, tab, srv.URL+path, `[document.title, String(document.getElementById("injected") !== null || document.querySelector("img[src=x]") !== null || document.scripts.length !== 1), String(document.body.textContent.includes("<b id=\"injected\">"))]`)
		if got[0] == "pwned" || got[1] != "false" {
			t.Errorf("%s: title %q, injected element present %s: the report's markup ran", path, got[0], got[1])
		}
		if path != "/" && got[2] != "true" {
			t.Errorf("%s: the report's markup is not shown as text", path)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
