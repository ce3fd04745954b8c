package store_test

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
	"github.com/agenteval/agenteval/store"
)

// engines runs f once per database engine: SQLite in a temporary file,
// PostgreSQL in a schema of its own (skipped where none is installed).
func engines(t *testing.T, f func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		f(t, filepath.Join(t.TempDir(), "nested", "results.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		f(t, pgDSN(t))
	})
}

func open(t *testing.T, dsn string) *store.Store {
	t.Helper()
	s, err := store.Open(t.Context(), dsn, store.Options{})
	if err != nil {
		t.Fatalf("Open(%s): %v", dsn, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func runReport() *report.Report {
	return &report.Report{Schema: report.Schema, Passed: 1, Failed: 1, Scenarios: []report.Scenario{
		{Name: "react/weather", File: "react/weather.yaml", Status: report.StatusPass, Final: "It is sunny in <b>Paris</b>.",
			Agent: report.Agent{Kind: "react", Model: "scripted"}, Usage: report.Usage{ModelCalls: 2, TotalTokens: 150, CostUSD: 0.001, CostKnown: true},
			Transcript: "turn 0\n  step 1 agent\n"},
		{Name: "tools/search", File: "tools/search.yaml", Status: report.StatusFail, Message: "final: mismatch", Line: 12,
			Expectations: []report.Expectation{{Name: "final", Message: "mismatch", Diff: "-Paris\n+No idea.", File: "tools/search.yaml", Line: 12}},
			Usage:        report.Usage{TotalTokens: 50, CostUSD: 0.002}},
	}}
}

func evalReport() *evalreport.Report {
	return &evalreport.Report{Schema: evalreport.Schema, Eval: "suite", TrialsPerCell: 2, Control: "base",
		Variants: []evalreport.VariantInfo{{Name: "base"}, {Name: "terse"}},
		Cells: []evalreport.Cell{
			{Scenario: "capital", Case: "Peru", ID: "capital[Peru]", Variant: "base", N: 2, Passed: 2, Verdict: "pass",
				Trials: []evalreport.Trial{{Index: 1, Status: report.StatusPass, Final: "Lima"}, {Index: 2, Status: report.StatusPass, Final: "Lima"}}},
			{Scenario: "capital", Case: "Peru", ID: "capital[Peru]", Variant: "terse", N: 2, Passed: 1, Verdict: "fail",
				Trials: []evalreport.Trial{{Index: 1, Status: report.StatusPass, Final: "Lima", Usage: report.Usage{CostUSD: 0.5, TotalTokens: 9}},
					{Index: 2, Status: report.StatusFail, Message: "final: mismatch", Final: "Cusco"}}},
		}}
}

var start = time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)

// TestAddThenRead stores a run and an eval and reads back what was
// stored: the reports as they were (transcripts included), the summaries
// in time order, a scenario's history across entries.
func TestAddThenRead(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		s := open(t, dsn)
		// the eval is added first but started later: List orders by time
		eid, err := s.Add(ctx, store.Entry{Started: start.Add(time.Hour), Suite: "suite", Eval: evalReport()})
		if err != nil {
			t.Fatal(err)
		}
		rid, err := s.Add(ctx, store.Entry{Started: start, Commit: "abc123", Dirty: true, Suite: "scenarios", Run: runReport()})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Run(ctx, rid)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(runReport(), got); diff != "" {
			t.Errorf("Run(%d) mismatch (-want +got):\n%s", rid, diff)
		}
		gotEval, err := s.Eval(ctx, eid)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(evalReport(), gotEval); diff != "" {
			t.Errorf("Eval(%d) mismatch (-want +got):\n%s", eid, diff)
		}
		list, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []store.Summary{
			{ID: rid, Kind: store.KindRun, Suite: "scenarios", Started: start, Commit: "abc123", Dirty: true, Passed: 1, Failed: 1, Rows: 2, CostUSD: 0.003, Tokens: 200},
			{ID: eid, Kind: store.KindEval, Suite: "suite", Started: start.Add(time.Hour), Passed: 3, Failed: 1, Rows: 2, CostUSD: 0.5, Tokens: 9},
		}
		if diff := cmp.Diff(want, list); diff != "" {
			t.Errorf("List mismatch (-want +got):\n%s", diff)
		}
		h, err := s.History(ctx, "capital[Peru]")
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != 2 || h[0].Variant != "base" || h[1].Variant != "terse" || h[1].N != 2 || h[1].Passed != 1 || h[1].Entry.ID != eid {
			t.Errorf("History(capital[Peru]) = %+v, want the base and terse cells of entry %d", h, eid)
		}
		if _, err := s.Run(ctx, eid); err == nil || !strings.Contains(err.Error(), "is an eval") {
			t.Errorf("Run(eval entry) error = %v, want one saying it is an eval", err)
		}
		if _, err := s.Eval(ctx, 999); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Eval(999) error = %v, want ErrNotFound", err)
		}
	})
}

// TestMigrateFromVersion1 opens a store as agenteval wrote it at schema
// version 1 (testdata/v1.sql) and reads its entries back.
func TestMigrateFromVersion1(t *testing.T) {
	t.Parallel()
	fixture, err := os.ReadFile("testdata/v1.sql")
	if err != nil {
		t.Fatal(err)
	}
	load := func(t *testing.T, driver, dsn, serial string) {
		db, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, stmt := range strings.Split(strings.ReplaceAll(string(fixture), "{{serial}}", serial), ";\n") {
			if strings.TrimSpace(stripComments(stmt)) == "" {
				continue
			}
			if _, err := db.ExecContext(t.Context(), stmt); err != nil {
				t.Fatalf("load testdata/v1.sql: %v\n%s", err, stmt)
			}
		}
	}
	engines(t, func(t *testing.T, dsn string) {
		if strings.HasPrefix(dsn, "host=") {
			load(t, "pgx", dsn, "BIGSERIAL PRIMARY KEY")
		} else {
			os.MkdirAll(filepath.Dir(dsn), 0o755)
			load(t, "sqlite", dsn, "INTEGER PRIMARY KEY")
		}
		s := open(t, dsn)
		ctx := t.Context()
		list, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].Kind != store.KindRun || list[1].Kind != store.KindEval {
			t.Fatalf("List of the version 1 store = %+v, want its run and its eval", list)
		}
		r, err := s.Run(ctx, list[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Scenarios) != 2 || r.Scenarios[0].Transcript == "" || r.Scenarios[1].Expectations[0].Diff != "-Paris\n+No idea." {
			t.Errorf("Run of the version 1 store = %+v, want its two scenarios, the transcript and the diff", r.Scenarios)
		}
		e, err := s.Eval(ctx, list[1].ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(e.Cells) != 1 || e.Cells[0].Trials[1].Final != "Cusco" {
			t.Errorf("Eval of the version 1 store = %+v, want the trials' final answers", e.Cells)
		}
		// the migrated store takes new entries
		if _, err := s.Add(ctx, store.Entry{Started: start, Suite: "scenarios", Run: runReport()}); err != nil {
			t.Fatal(err)
		}
		if h, err := s.History(ctx, "react/weather"); err != nil || len(h) != 2 {
			t.Errorf("History(react/weather) after migration = %d points, %v; want 2", len(h), err)
		}
	})
}

func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// TestRefuse checks what Open and Add refuse, and that each refusal says
// why.
func TestRefuse(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte(strings.Repeat("this is not a database\n", 400)), 0o644)
	foreign := filepath.Join(dir, "foreign.db")
	{
		db, _ := sql.Open("sqlite", foreign)
		if _, err := db.Exec("CREATE TABLE checkpoints (id TEXT)"); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	newer := filepath.Join(dir, "newer.db")
	{
		s := open(t, newer)
		s.Close()
		db, _ := sql.Open("sqlite", newer)
		if _, err := db.Exec("UPDATE results_schema SET version = 99"); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	truncated := filepath.Join(dir, "truncated.db")
	{
		s := open(t, filepath.Join(dir, "whole.db"))
		if _, err := s.Add(ctx, store.Entry{Started: start, Suite: "s", Run: runReport()}); err != nil {
			t.Fatal(err)
		}
		s.Close()
		data, _ := os.ReadFile(filepath.Join(dir, "whole.db"))
		// the header survives, the pages do not
		os.WriteFile(truncated, append(data[:100:100], make([]byte, 3000)...), 0o644)
	}
	for _, tc := range []struct {
		path, reason, want string
		is                 error
		opts               store.Options
	}{
		{garbage, "a text file is not a database", "corrupt or not a SQLite database", store.ErrNotStore, store.Options{}},
		{foreign, "another program's SQLite database is not written to", "has tables but no results_schema", store.ErrNotStore, store.Options{}},
		{newer, "a newer agenteval's store could be misread", "schema version is 99, this agenteval reads up to 2", store.ErrTooNew, store.Options{}},
		{truncated, "a truncated store", "corrupt or not a SQLite database", store.ErrNotStore, store.Options{}},
		{filepath.Join(dir, "missing.db"), "the view never creates an empty store", "no such file", nil, store.Options{MustExist: true}},
		{dir, "a folder", "is a folder", nil, store.Options{}},
	} {
		s, err := store.Open(ctx, tc.path, tc.opts)
		if err == nil {
			s.Close()
			t.Errorf("Open(%s) succeeded; want an error (%s)", tc.path, tc.reason)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("Open(%s) error = %v; want one naming the file and saying %q (%s)", tc.path, err, tc.want, tc.reason)
		}
	}
	if data, _ := os.ReadFile(foreign); len(data) == 0 {
		t.Error("the foreign database was emptied")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("Open with MustExist created the file")
	}
}

// TestAddRefusesCredentials: a report that holds an API key is not
// stored, and nothing of it is.
func TestAddRefusesCredentials(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, dsn string) {
		s := open(t, dsn)
		r := runReport()
		r.Scenarios[1].Final = "the key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
		_, err := s.Add(t.Context(), store.Entry{Started: start, Suite: "s", Run: r})
		if err == nil || !strings.Contains(err.Error(), "tools/search holds") {
			t.Errorf("Add(report with a key) error = %v; want one naming the scenario", err)
		}
		if list, _ := s.List(t.Context()); len(list) != 0 {
			t.Errorf("List after a refused Add = %d entries, want 0", len(list))
		}
	})
}

// TestAddIsAtomic: a write that fails part-way (a trigger refuses the
// second scenario) leaves no trace of the run.
func TestAddIsAtomic(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "results.db")
	s := open(t, path)
	db, _ := sql.Open("sqlite", path)
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER refuse BEFORE INSERT ON results_rows WHEN NEW.seq = 1 BEGIN SELECT RAISE(ABORT, 'disk full'); END`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(t.Context(), store.Entry{Started: start, Suite: "s", Run: runReport()}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Add error = %v, want the trigger's", err)
	}
	var runs, rows int
	db.QueryRow("SELECT count(*) FROM results_runs").Scan(&runs)
	db.QueryRow("SELECT count(*) FROM results_rows").Scan(&rows)
	if runs != 0 || rows != 0 {
		t.Errorf("after a failed Add: %d runs and %d rows stored, want none", runs, rows)
	}
}

// TestOpenPostgresBadDSN: a connection string that does not parse is an
// error that does not echo it (it may hold a password).
func TestOpenPostgresBadDSN(t *testing.T) {
	t.Parallel()
	_, err := store.Open(t.Context(), "postgres://user:hunter2@host:notaport/db", store.Options{})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Open(bad postgres DSN) error = %v; want one without the password", err)
	}
}
