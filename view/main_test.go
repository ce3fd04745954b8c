package view_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.uber.org/goleak"

	"github.com/agenteval/agenteval/eval"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/internal/pgtest"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
	"github.com/agenteval/agenteval/store"
)

// corpus holds what the bundled corpus and eval suite gave, run once per
// test binary and added to every store a test fills.
var corpus struct {
	once  sync.Once
	runs  [2]*report.Report
	evals [2]*evalreport.Report
	err   error
}

// flipped is the scenario whose golden transcript is changed between the
// two runs, so that it passes in the first and fails in the second.
const flipped = "react/single_tool_call"

// loadCorpus runs scenarios/ twice (the second time against a golden
// transcript of flipped that no longer matches) and evals/suite.yaml
// twice with three trials per cell, all replayed offline.
func loadCorpus(t testing.TB) {
	t.Helper()
	corpus.once.Do(func() { corpus.err = runCorpus() })
	if corpus.err != nil {
		t.Fatalf("run the corpus: %v", corpus.err)
	}
}

func runCorpus() error {
	ctx := context.Background()
	golden, err := os.MkdirTemp("", "view-golden")
	if err != nil {
		return err
	}
	defer os.RemoveAll(golden)
	if err := os.CopyFS(golden, os.DirFS("../golden")); err != nil {
		return err
	}
	scenarios, err := harness.LoadDir("../scenarios")
	if err != nil {
		return err
	}
	opts := harness.Options{CassetteDir: "../cassettes", GoldenDir: golden}
	corpus.runs[0] = harness.Run(ctx, scenarios, opts)
	g := filepath.Join(golden, flipped+".golden")
	data, err := os.ReadFile(g)
	if err != nil {
		return err
	}
	if err := os.WriteFile(g, append(data, []byte("a line the run does not write\n")...), 0o644); err != nil {
		return err
	}
	corpus.runs[1] = harness.Run(ctx, scenarios, opts)
	f, err := eval.Load("../evals/suite.yaml")
	if err != nil {
		return err
	}
	// three trials of the suite's ten (agenteval eval --trials 3): the
	// pages show the same things, in a third of the time
	f.Trials = 3
	plan, err := eval.Prepare(f)
	if err != nil {
		return err
	}
	for i := range corpus.evals {
		corpus.evals[i] = eval.Run(ctx, plan, eval.Options{})
	}
	return nil
}

// t0 is when the first stored run started: the stored entries are dated
// by this clock, an hour apart.
var t0 = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

// fill adds the corpus's two runs and two evals to st, alternating, an
// hour apart: run 1, eval 2, run 3, eval 4.
func fill(t testing.TB, st *store.Store) {
	t.Helper()
	loadCorpus(t)
	for i := range 2 {
		if _, err := st.Add(t.Context(), store.Entry{Started: t0.Add(time.Duration(2*i) * time.Hour), Commit: fmt.Sprintf("%040d", i+1), Suite: "scenarios", Run: corpus.runs[i]}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Add(t.Context(), store.Entry{Started: t0.Add(time.Duration(2*i+1) * time.Hour), Suite: corpus.evals[i].Eval, Eval: corpus.evals[i]}); err != nil {
			t.Fatal(err)
		}
	}
}

// pg is the package's throwaway PostgreSQL server.
var pg struct {
	once sync.Once
	srv  *pgtest.Server
	err  error
}

// pgDSN returns the DSN of a fresh schema, or skips where PostgreSQL is
// not installed.
func pgDSN(t testing.TB) string {
	t.Helper()
	pg.once.Do(func() { pg.srv, pg.err = pgtest.Start(context.Background()) })
	if errors.Is(pg.err, pgtest.ErrNotInstalled) {
		t.Skipf("skipping: %v; install PostgreSQL (apt-get install postgresql) to run the view over a Postgres store", pg.err)
	}
	if pg.err != nil {
		t.Fatalf("start a PostgreSQL server: %v", pg.err)
	}
	dsn, err := pg.srv.NewSchema(context.Background(), "view")
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// browser is the package's headless Chromium, shared by every test.
var browser struct {
	once   sync.Once
	ctx    context.Context
	cancel func()
	err    error
}

// chromium returns a context of a new tab in the shared browser, or skips
// where none is installed.
func chromium(t testing.TB) context.Context {
	t.Helper()
	browser.once.Do(func() {
		bin := "/usr/bin/chromium"
		if _, err := os.Stat(bin); err != nil {
			if bin, err = exec.LookPath("chromium"); err != nil {
				browser.err = fmt.Errorf("chromium is not installed (no /usr/bin/chromium, none on PATH): %w", fs.ErrNotExist)
				return
			}
		}
		dir, err := os.MkdirTemp("", "view-chromium")
		if err != nil {
			browser.err = err
			return
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
			chromedp.UserDataDir(dir))
		ctx, cancel := chromedp.NewContext(alloc)
		if err := chromedp.Do(ctx); err != nil {
			cancel()
			cancelAlloc()
			browser.err = fmt.Errorf("start chromium: %w", err)
			return
		}
		browser.ctx = ctx
		browser.cancel = func() { cancel(); cancelAlloc(); os.RemoveAll(dir) }
	})
	if errors.Is(browser.err, fs.ErrNotExist) {
		t.Skipf("skipping: %v; install it (apt-get install chromium) to run the view's browser tests", browser.err)
	}
	if browser.err != nil {
		t.Fatal(browser.err)
	}
	tab, cancel := chromedp.NewContext(browser.ctx)
	t.Cleanup(cancel)
	return tab
}

// TestMain stops the browser and the PostgreSQL server after the tests
// and fails them if a goroutine outlives them.
func TestMain(m *testing.M) {
	code := m.Run()
	if browser.cancel != nil {
		browser.cancel()
	}
	if pg.srv != nil {
		if err := pg.srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop the PostgreSQL server: %v\n", err)
			code = 1
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
