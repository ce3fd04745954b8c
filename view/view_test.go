package view_test

import (
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/store"
	"github.com/agenteval/agenteval/view"
)

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body)
}

// TestPagesRefuseClearly: bad addresses and damaged records give a page
// that says what is wrong, with its status, escaped like every page.
func TestPagesRefuseClearly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "results.db")
	st, err := store.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := &report.Report{Schema: report.Schema, Passed: 1, Scenarios: []report.Scenario{{Name: "a", Status: report.StatusPass}}}
	for range 2 {
		if _, err := st.Add(t.Context(), store.Entry{Started: time.Unix(0, 0), Suite: "s", Run: r}); err != nil {
			t.Fatal(err)
		}
	}
	// damage entry 2's row behind the store's back
	db, _ := sql.Open("sqlite", path)
	if _, err := db.Exec(`UPDATE results_rows SET record = '{"name": <script>' WHERE run_id = 2`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	h := view.New(st)
	for _, tc := range []struct {
		reason, path string
		code         int
		want         string
	}{
		{"an entry that does not exist", "/run/99", 404, "entry 99: no such entry"},
		{"an entry ID that is not a number", "/eval/x<b>", 400, `entry &#34;x&lt;b&gt;&#34;: not a number`},
		{"a scenario the run does not have", "/run/1/scenario?name=%3Cb%3E", 404, `has no scenario &#34;&lt;b&gt;&#34;: no such entry`},
		{"a damaged record names the entry and the scenario, escaped", "/run/2/scenario?name=a", 500, "entry 2: scenario a: not an agenteval results store: a stored record does not decode"},
		{"compare without IDs", "/compare", 400, "compare needs ?a=ID&amp;b=ID"},
		{"the scenario page without a name", "/scenario", 400, "needs ?name=SCENARIO"},
		{"a page that does not exist", "/nope", 404, "404 page not found"},
	} {
		code, body := get(t, h, tc.path)
		if code != tc.code || !strings.Contains(body, tc.want) || strings.Contains(body, "<script>") && !strings.Contains(body, `<script src="/view.js">`) {
			t.Errorf("%s: GET %s = %d %q; want %d and %q", tc.reason, tc.path, code, body, tc.code, tc.want)
		}
	}
	// every page forbids scripts from anywhere but the view
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("Content-Security-Policy = %q, want script-src 'self'", csp)
	}
}

// TestLoadReportsRefuses: report paths that cannot be shown are errors
// naming the file.
func TestLoadReportsRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := writeFile(p, data); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key := write("key.json", `{"schema": "agenteval.report/v1", "passed": 0, "failed": 1, "errored": 0, "skipped": 0, "scenarios": [{"name": "a", "file": "a.yaml", "status": "fail", "message": "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD", "agent": {"kind": "react", "model": "m"}, "usage": {"model_calls": 0, "tool_calls": 0, "steps": 0, "input_tokens": 0, "output_tokens": 0, "total_tokens": 0, "cost_usd": 0, "cost_known": false}}]}`)
	newer := write("newer.json", `{"schema": "agenteval.report/v2", "scenarios": []}`)
	garbage := write("garbage.json", "\x00\x01 not json")
	for _, tc := range []struct{ reason, path, want string }{
		{"a report holding a credential is not shown", key, "a holds"},
		{"a report of a newer schema", newer, "agenteval.report/v2"},
		{"a file that is not JSON", garbage, "garbage.json"},
		{"a folder without reports", t.TempDir(), "holds no agenteval.json or eval.json"},
	} {
		st, err := store.Open(t.Context(), ":memory:", store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = view.LoadReports(t.Context(), st, tc.path)
		st.Close()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: LoadReports error = %v, want %q", tc.reason, err, tc.want)
		}
	}
}

func writeFile(path, data string) error { return os.WriteFile(path, []byte(data), 0o644) }
