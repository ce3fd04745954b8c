package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agenteval/agenteval/report"
)

func TestRunCommand(t *testing.T) {
	golden := t.TempDir()
	// the passing scenario's golden transcript is written by --update first
	if code, out, errOut := runCLI("run", "--root", "testdata/run", "--golden", golden, "--no-reports", "--update", "testdata/run/pass"); code != 0 {
		t.Fatalf("run --update: exit %d\n%s%s", code, out, errOut)
	}
	tests := []struct {
		reason     string
		args       []string
		wantCode   int
		wantOut    []string
		wantErrOut []string
	}{
		{"a passing scenario exits 0 with a summary", []string{"testdata/run/pass"}, 0,
			[]string{"PASS  pass/weather\n", "1 passed, 0 failed, 0 errors, 0 skipped"}, nil},
		{"a wrong expectation fails with a (-want +got) diff", []string{"testdata/run/fail"}, 1,
			[]string{"FAIL  fail/weather_wrong\n", `testdata/run/fail/weather_wrong.yaml:20: trajectory (strict): call 1: want get_weather {"city": "Lyon"}, got get_weather {"city": "Paris"}`,
				"(-want +got):\n", `- get_weather {"city": "Lyon"}`, `+ get_weather {"city": "Paris"}`, "0 passed, 1 failed",
				"\n1 failed:\n  FAIL  fail/weather_wrong  testdata/run/fail/weather_wrong.yaml:20\nrerun them: agenteval run --golden "}, nil},
		{"a broken scenario file is an input error naming file:line:col and field", []string{"testdata/run/bad"}, exitUsage, nil,
			[]string{`testdata/run/bad/typo.yaml:3:9: agent.kind: unknown kind "reakt"`, `(did you mean "react"?)`,
				`testdata/run/bad/typo.yaml:4:3: agent.promt: unknown field "promt" (did you mean "prompt"?)`}},
		{"a template is skipped, naming its first placeholder; it ran with {{capital}} as text", []string{"testdata/run/template"}, 0,
			[]string{"template/capital", "a template: {{capital}} at testdata/run/template/capital.yaml:2:32 (script.responses[0].content) is filled by an eval's dataset", "0 passed, 0 failed, 0 errors, 1 skipped"}, nil},
		{"a missing path is an input error", []string{"testdata/run/nope"}, exitUsage, nil, []string{"nope"}},
		{"a bad --mode is a usage error", []string{"--mode", "rewind", "testdata/run/pass"}, exitUsage, nil, []string{"--mode"}},
		{"a bad --shard is a usage error", []string{"--shard", "3/2", "testdata/run/pass"}, exitUsage, nil, []string{`shard "3/2": expected k/n with 1 <= k <= n`}},
		{"an unknown --format is a usage error", []string{"--format", "xml", "testdata/run/pass"}, exitUsage, nil, []string{`unknown --format "xml"`}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			args := append([]string{"run", "--root", "testdata/run", "--golden", golden, "--no-reports"}, tc.args...)
			code, out, errOut := runCLI(args...)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, out, errOut)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.wantErrOut {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

func TestRunWritesReports(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI("run", "--root", "testdata/run", "--golden", t.TempDir(), "--report-dir", dir, "testdata/run/fail")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, name := range []string{"agenteval.json", "junit.xml", "summary.md", "report.html"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("report %s not written: %v", name, err)
		}
	}
	f, err := os.Open(filepath.Join(dir, "agenteval.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := report.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Schema != "agenteval.report/v1" || rep.Failed != 1 || len(rep.Scenarios) != 1 || rep.Scenarios[0].Status != report.StatusFail {
		t.Errorf("report: schema %q, failed %d, scenarios %d", rep.Schema, rep.Failed, len(rep.Scenarios))
	}
}

// TestRunCorpusSameAtAnyParallelism runs the project's corpus at
// --parallel 1 and 8: the JSON reports must be identical but for timings.
func TestRunCorpusSameAtAnyParallelism(t *testing.T) {
	root := "../../scenarios"
	if _, err := os.Stat(root); err != nil {
		t.Skip("no corpus")
	}
	reports := map[string][]byte{}
	for _, p := range []string{"1", "8"} {
		code, out, errOut := runCLI("run", "--root", root, "--cassettes", "../../cassettes", "--golden", "../../golden",
			"--no-reports", "--parallel", p, "--format", "json")
		if code != 0 {
			t.Fatalf("--parallel %s: exit %d\n%s", p, code, errOut)
		}
		rep, err := report.ReadJSON(strings.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := report.WriteJSON(&b, report.StripTiming(rep)); err != nil {
			t.Fatal(err)
		}
		reports[p] = b.Bytes()
	}
	if !bytes.Equal(reports["1"], reports["8"]) {
		t.Errorf("reports differ between --parallel 1 and --parallel 8")
	}
}

func TestParseShard(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	tests := []struct {
		reason  string
		flag    string
		fromEnv bool
		env     func(string) (string, bool)
		want    string
		wantErr string
	}{
		{"no flag runs everything", "", false, env(), "", ""},
		{"k/n is 1-based", "2/3", false, env(), "2/3", ""},
		{"Kubernetes indexed jobs count from 0", "", true, env("JOB_COMPLETION_INDEX", "0", "JOB_COMPLETION_COUNT", "4"), "1/4", ""},
		{"CI_NODE_INDEX counts from 1", "", true, env("CI_NODE_INDEX", "2", "CI_NODE_TOTAL", "2"), "2/2", ""},
		{"an index past the count is refused", "", true, env("JOB_COMPLETION_INDEX", "4", "JOB_COMPLETION_COUNT", "4"), "", "expected 0 <= index < count"},
		{"no variable set is an error", "", true, env(), "", "neither JOB_COMPLETION_INDEX nor CI_NODE_INDEX"},
		{"both sources exclude each other", "1/2", true, env(), "", "exclude each other"},
		{"zero shards are refused", "1/0", false, env(), "", "expected k/n"},
	}
	for _, tc := range tests {
		got, err := parseShard(tc.flag, tc.fromEnv, tc.env)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: parseShard error %v, want %q", tc.reason, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("%s: parseShard = %q, %v; want %q", tc.reason, got.String(), err, tc.want)
		}
	}
}

// TestRunJUnitTranscript: a JUnit test case's <system-out> is the run's
// transcript in the golden files' format, the very text of its golden
// file, and the suite is the scenario's folder.
func TestRunJUnitTranscript(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI("run", "--root", "../../scenarios", "--cassettes", "../../cassettes", "--golden", "../../golden",
		"--no-reports", "--format", "junit", "../../scenarios/react/single_tool_call.yaml")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	golden, err := os.ReadFile("../../golden/react/single_tool_call.golden")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `<testsuite name="react" tests="1"`) {
		t.Errorf("junit: no testsuite for the folder react:\n%s", out)
	}
	if !strings.Contains(out, "<system-out><![CDATA["+string(golden)+"]]></system-out>") {
		t.Errorf("junit: <system-out> is not the golden transcript:\n%s\nwant:\n%s", out, golden)
	}
}

// TestRunLimits: a file over a limit is an input error (exit 2, never
// the Go runtime's 2) naming file:line:col, and --limit moves the limit.
func TestRunLimits(t *testing.T) {
	t.Parallel()
	base := []string{"run", "--root", "testdata/run_limits", "--golden", t.TempDir(), "--no-reports"}
	code, _, errOut := runCLI(append(base, "--limit", "depth=3", "testdata/run_limits")...)
	if code != exitUsage || !strings.Contains(errOut, "deep.yaml:2:29: values are nested deeper than 3 levels (--limit depth=N, Limits.Depth)") {
		t.Errorf("run --limit depth=3: exit %d, stderr %q; want %d and the file:line:col of the nesting", code, errOut, exitUsage)
	}
	if code, out, errOut := runCLI(append(base, "testdata/run_limits")...); code != 0 {
		t.Errorf("run with the default limits: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runCLI(append(base, "--limit", "dpeth=3", "testdata/run_limits")...); code != exitUsage || !strings.Contains(errOut, `(did you mean "depth"?)`) {
		t.Errorf("run --limit dpeth=3: exit %d, stderr %q", code, errOut)
	}
}

// TestRunInterrupted: SIGTERM is handled like SIGINT: the scenarios end
// with the interrupt as their error, the reports are written, and the
// exit code is the signal's (it exited 143 without reports).
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&SignalError{Signal: syscall.SIGTERM})
	var out, errb bytes.Buffer
	code := run(ctx, []string{"run", "--root", "testdata/run", "--golden", t.TempDir(), "--report-dir", dir, "testdata/run/pass"}, strings.NewReader(""), &out, &errb)
	if code != 143 {
		t.Errorf("exit %d, want 143\n%s\n%s", code, out.String(), errb.String())
	}
	rep, err := report.ReadJSONFile(filepath.Join(dir, "agenteval.json"))
	if err != nil {
		t.Fatalf("the report was not written: %v", err)
	}
	if len(rep.Scenarios) != 1 || !strings.Contains(rep.Scenarios[0].Message, "not run: interrupted by terminated") {
		t.Errorf("report scenarios = %+v, want one not run, interrupted by terminated", rep.Scenarios)
	}
}
