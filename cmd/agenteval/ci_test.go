package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"
)

// envMap is an environment for one test, so that tests never change the
// process's (they run in parallel).
func envMap(kv ...string) lookupFunc {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// runCLIEnv runs the CLI with the environment env.
func runCLIEnv(env lookupFunc, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(withEnv(context.Background(), env), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func newGoldie(t *testing.T) *goldie.Goldie {
	return goldie.New(t, goldie.WithFixtureDir("testdata/golden"), goldie.WithNameSuffix(".golden"))
}

// brokenArgs run the harness's deliberately broken scenarios, one per
// kind of run-time failure.
var brokenArgs = []string{"run", "--root", "../../harness/testdata/broken/scenarios",
	"--cassettes", "../../harness/testdata/broken/cassettes", "--golden", "../../harness/testdata/broken/golden", "--no-reports"}

// timing is the wall-clock part of the counts line.
var timing = regexp.MustCompile(` in \d+ ms \(\d+ scenarios/s, parallel \d+\)`)

// TestRunEndSummaryGolden checks what run prints when things fail: what
// failed first, each failure once at its file:line, and at the end the
// list of what failed and the command that reruns just those.
func TestRunEndSummaryGolden(t *testing.T) {
	code, out, errOut := runCLIEnv(envMap(), brokenArgs...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	newGoldie(t).Assert(t, "run_broken.txt", []byte(timing.ReplaceAllString(out, "")))
}

// TestRunGitHubActions checks what a run in a GitHub Actions step adds: an
// ::error annotation per failure at its file and line on stderr, and the
// Markdown summary appended to $GITHUB_STEP_SUMMARY; and that nothing of
// it happens elsewhere.
func TestRunGitHubActions(t *testing.T) {
	t.Parallel()
	summary := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(summary, []byte("## an earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLIEnv(envMap("GITHUB_ACTIONS", "true", "GITHUB_STEP_SUMMARY", summary), brokenArgs...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, errOut)
	}
	var annotations []string
	for _, l := range strings.Split(errOut, "\n") {
		if strings.HasPrefix(l, "::") {
			annotations = append(annotations, l)
		}
	}
	newGoldie(t).Assert(t, "run_broken.annotations", []byte(strings.Join(annotations, "\n")+"\n"))
	data, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "## an earlier step\n## ❌ agenteval: 0 passed, 14 failed, 2 errored") {
		t.Errorf("GITHUB_STEP_SUMMARY: the run's summary is not appended:\n%s", data)
	}

	code, _, errOut = runCLIEnv(envMap("GITHUB_ACTIONS", "false", "GITHUB_STEP_SUMMARY", summary), brokenArgs...)
	if code != 1 || strings.Contains(errOut, "::error") {
		t.Errorf("outside GitHub Actions: exit %d, annotations on stderr:\n%s", code, errOut)
	}
}

func TestGitHubEscaping(t *testing.T) {
	tests := []struct {
		reason, in, data, property string
	}{
		{"plain text is left alone", "final: want x", "final: want x", "final%3A want x"},
		{"a newline would end the command", "a\nb\r\n", "a%0Ab%0D%0A", "a%0Ab%0D%0A"},
		{"% starts an escape", "100%", "100%25", "100%25"},
		{"a comma would end a property", "a,b", "a,b", "a%2Cb"},
	}
	for _, tt := range tests {
		if got := ghData(tt.in); got != tt.data {
			t.Errorf("ghData(%q) = %q, want %q (%s)", tt.in, got, tt.data, tt.reason)
		}
		if got := ghProperty(tt.in); got != tt.property {
			t.Errorf("ghProperty(%q) = %q, want %q (%s)", tt.in, got, tt.property, tt.reason)
		}
	}
}

func TestColorFor(t *testing.T) {
	tests := []struct {
		reason   string
		terminal bool
		env      lookupFunc
		want     bool
	}{
		{"a terminal gets colour", true, envMap(), true},
		{"a pipe gets none", false, envMap(), false},
		{"NO_COLOR set turns it off (no-color.org)", true, envMap("NO_COLOR", "1"), false},
		{"an empty NO_COLOR does not (no-color.org)", true, envMap("NO_COLOR", ""), true},
		{"a dumb terminal shows escapes as text", true, envMap("TERM", "dumb"), false},
	}
	for _, tt := range tests {
		if got := colorFor(tt.terminal, tt.env); got != tt.want {
			t.Errorf("colorFor(%v) = %v, want %v (%s)", tt.terminal, got, tt.want, tt.reason)
		}
	}
}

// TestFinishedPrinter: after k of n scenarios have finished the counter
// says k/n (it said k+1/n), and the line is cleared at the end.
func TestFinishedPrinter(t *testing.T) {
	var b bytes.Buffer
	clock := time.Unix(0, 0)
	p := finishedPrinter(&b, func() time.Time { clock = clock.Add(time.Second); return clock })
	p(1, 3, "react/a")
	p(2, 3, "react/b")
	p(3, 3, "react/c")
	want := "\r\033[K[1/3    1s] react/a\r\033[K[2/3    2s] react/b\r\033[K"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("finishedPrinter mismatch (-want +got):\n%s", diff)
	}
}

func TestRunTagMatchesNothing(t *testing.T) {
	t.Parallel()
	code, _, errOut := runCLIEnv(envMap(), "run", "--root", "testdata/run", "--no-reports", "--tag", "nosuch", "testdata/run/pass")
	want := "run: --tag nosuch: none of the 1 scenarios in testdata/run/pass has that tag; their tags are react"
	if code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", code, errOut, want)
	}
}
