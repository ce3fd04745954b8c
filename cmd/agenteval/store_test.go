package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenteval/agenteval/store"
)

// runCLIAt runs the CLI with its clock fixed at now.
func runCLIAt(now time.Time, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	ctx := context.WithValue(context.Background(), clockKey{}, func() time.Time { return now })
	code = run(ctx, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestStoreFlag appends two runs and an eval to a store and reads them
// back, dated by the command's clock.
func TestStoreFlag(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "sub", "results.db")
	t0 := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	for i, args := range [][]string{
		{"run", "--root", "testdata/run", "--no-reports", "--store=" + db, "testdata/run/fail"},
		{"run", "--root", "testdata/run", "--no-reports", "--store=" + db, "testdata/run/fail"},
		{"eval", "--store=" + db, "testdata/eval/thresholds.yaml"},
	} {
		code, out, errOut := runCLIAt(t0.Add(time.Duration(i)*time.Hour), args...)
		if code == exitUsage || !strings.Contains(errOut, "stored as") {
			t.Fatalf("%s: exit %d, stderr lacks \"stored as\"\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	s, err := store.Open(t.Context(), db, store.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range list {
		got = append(got, string(e.Kind)+" "+e.Suite+" "+e.Started.Format(time.RFC3339))
	}
	want := []string{"run testdata/run/fail 2026-11-28T08:00:00Z", "run testdata/run/fail 2026-11-28T09:00:00Z", "eval " + list[2].Suite + " 2026-11-28T10:00:00Z"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stored entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if list[0].Failed != 1 {
		t.Errorf("the failing run stored %d failures, want 1", list[0].Failed)
	}
}

// TestStoreAndViewRefuse: the usage errors of --store and view, each
// saying what to do.
func TestStoreAndViewRefuse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.db")
	os.WriteFile(corrupt, bytes.Repeat([]byte("not sqlite "), 500), 0o644)
	reports := filepath.Join(dir, "reports")
	os.MkdirAll(reports, 0o755)
	os.WriteFile(filepath.Join(reports, "agenteval.json"), []byte(`{"schema": "agenteval.report/v9"}`), 0o644)
	for _, tc := range []struct {
		reason string
		args   []string
		want   string
	}{
		{"a DSN after --store with a space would be taken for a scenario path", []string{"run", "--store", "team.db", "testdata/run/pass"}, `write --store=team.db`},
		{"the same for eval", []string{"eval", "--store", "postgres://x@y/z", "testdata/eval/thresholds.yaml"}, `write --store=postgres://x@y/z`},
		{"view never creates an empty store", []string{"view", "--store", filepath.Join(dir, "none.db")}, "no such file"},
		{"a corrupt store is named", []string{"view", "--store", corrupt}, "corrupt.db: not an agenteval results store (the file is corrupt or not a SQLite database)"},
		{"a report of another version is named", []string{"view", reports}, `agenteval.json`},
		{"a store and report paths exclude each other", []string{"view", "--store", corrupt, reports}, "not both"},
	} {
		code, _, errOut := runCLI(tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: %s: exit %d, stderr %q; want exit %d and %q", tc.reason, strings.Join(tc.args, " "), code, errOut, exitUsage, tc.want)
		}
	}
}

// TestViewServes starts "agenteval view" over a report folder written by
// "agenteval run", loads its index over loopback, and stops it by
// cancelling its context, as Ctrl-C does.
func TestViewServes(t *testing.T) {
	t.Parallel()
	reports := t.TempDir()
	if code, out, errOut := runCLI("run", "--root", "testdata/run", "--report-dir", reports, "testdata/run/fail"); code != 1 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"view", "--addr", "127.0.0.1:0", reports}, strings.NewReader(""), io.Discard, pw)
		pw.Close()
		done <- code
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("view printed no address: %v", err)
	}
	go io.Copy(io.Discard, pr)
	_, rest, ok := strings.Cut(line, " on http://")
	addr, _, _ := strings.Cut(rest, "/")
	if !ok || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("view's first line = %q, want the 127.0.0.1 address it listens on", line)
	}
	resp, err := http.Get("http://" + addr + "/run/1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "fail/weather_wrong") {
		t.Errorf("GET /run/1 = %d, want the run's failing scenario:\n%s", resp.StatusCode, body)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("view exit %d after its context was cancelled, want 0", code)
	}
}
