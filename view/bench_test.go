package view_test

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/store"
	"github.com/agenteval/agenteval/view"
)

// BenchmarkRunPage10k loads the page of a 10,000-scenario run in headless
// Chromium: the server reads the run from a SQLite store and renders it,
// the browser parses, lays out and runs the page's script. One op is one
// page load, until the load event, plus a DOM query that every row is
// there. The scenarios are the corpus's, repeated under new names.
//
//	go test -run '^$' -bench RunPage10k ./view
func BenchmarkRunPage10k(b *testing.B) {
	tab := chromium(b)
	loadCorpus(b)
	src := corpus.runs[1]
	big := &report.Report{Schema: report.Schema}
	for i := 0; len(big.Scenarios) < 10000; i++ {
		sc := src.Scenarios[i%len(src.Scenarios)]
		sc.Name = fmt.Sprintf("%s-%05d", sc.Name, i)
		big.Scenarios = append(big.Scenarios, sc)
	}
	st, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "results.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Add(b.Context(), store.Entry{Started: t0, Suite: "big", Run: big}); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(view.New(st))
	defer srv.Close()
	for b.Loop() {
		if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+"/run/1")); err != nil {
			b.Fatal(err)
		}
		n, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll("#scenarios .row").length`))
		if err != nil || n != 10000 {
			b.Fatalf("rows = %d, %v; want 10000", n, err)
		}
	}
}
