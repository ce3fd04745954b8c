package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/agenteval/agenteval/report/evalreport"
)

func evalGolden(t *testing.T) *goldie.Goldie {
	return goldie.New(t, goldie.WithFixtureDir("testdata/golden"), goldie.WithNameSuffix(".golden"))
}

func TestEvalCommand(t *testing.T) {
	tests := []struct {
		reason     string
		args       []string
		wantCode   int
		wantOut    []string
		wantErrOut []string
	}{
		{"thresholds broken by the flaky variant exit 1 and are listed", []string{"testdata/eval/thresholds.yaml"}, 1,
			[]string{"eval thresholds: 1 scenarios × 2 variants × 10 trials", "thresholds: 3 held, 1 broken", "✗ pass_rate >= 0.9  weather × flaky"}, nil},
		{"--fail-under checks each variant's macro pass rate", []string{"--fail-under", "0.5", "testdata/eval/sim-eighty.yaml"}, 0,
			[]string{"thresholds: 1 held, 0 broken"}, nil},
		{"--fail-under above a variant's rate exits 1", []string{"--fail-under", "0.9", "testdata/eval/sim-eighty.yaml"}, 1,
			[]string{"✗ macro pass_rate >= 0.9 (--fail-under)  agent"}, nil},
		{"a broken eval file is an input error with file:line:col", []string{"testdata/eval/bad.yaml"}, exitUsage, nil,
			[]string{"testdata/eval/bad.yaml:1:9: trials:", `testdata/eval/bad.yaml:4:5: variants[0].modle: unknown field "modle"`}},
		{"a missing file is an input error", []string{"testdata/eval/nope.yaml"}, exitUsage, nil, []string{"nope.yaml"}},
		{"a variant alike the control is a warning on stderr before the run, and in the report; nothing said so", []string{"testdata/eval/noops/same.yaml"}, 0,
			[]string{"warning: testdata/eval/noops/same.yaml:5:5: variants[1]: variant b runs every scenario as the control a does"},
			[]string{"warning: testdata/eval/noops/same.yaml:5:5: variants[1]: variant b runs every scenario as the control a does: its trials sample the same agent: it can differ from a only by chance\n"}},
		{"a prompt for a command agent is an input error naming the field; it was dropped", []string{"testdata/eval/noops/command-prompt.yaml"}, exitUsage, nil,
			[]string{"testdata/eval/noops/command-prompt.yaml:6:13: variants[1].prompt: scenario program runs a command agent, whose program builds its agent itself: a variant's prompt cannot reach it; pass it through the variant's env (env: {NAME: value}) and read it in the program"}},
		{"two files are a usage error", []string{"a.yaml", "b.yaml"}, exitUsage, nil, []string{"give one eval file"}},
		{"--threshold needs a baseline", []string{"--threshold", "pass_rate:delta>=0", "testdata/eval/sim-half.yaml"}, exitUsage, nil, []string{"--baseline"}},
		{"an unknown format is a usage error", []string{"--format", "xml", "testdata/eval/sim-half.yaml"}, exitUsage, nil, []string{`unknown --format "xml"`}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(append([]string{"eval"}, tc.args...)...)
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

// TestEvalOutputsGolden keeps the text, Markdown and JUnit outputs as
// reviewable golden files (go test -update rewrites them).
func TestEvalOutputsGolden(t *testing.T) {
	for _, format := range []string{"text", "markdown", "junit"} {
		code, out, errOut := runCLI("eval", "--format", format, "testdata/eval/thresholds.yaml")
		if code != 1 {
			t.Fatalf("eval --format %s: exit %d\n%s", format, code, errOut)
		}
		evalGolden(t).Assert(t, "eval-"+format, []byte(out))
	}
}

// evalJSON runs an eval file and writes its JSON report into dir.
func evalJSON(t *testing.T, dir, file string, extra ...string) string {
	t.Helper()
	code, out, errOut := runCLI(append(append([]string{"eval", "--format", "json"}, extra...), file)...)
	if code > 1 {
		t.Fatalf("eval %s: exit %d\n%s", file, code, errOut)
	}
	path := filepath.Join(dir, strings.TrimSuffix(filepath.Base(file), ".yaml")+strings.NewReplacer("/", "of", "-", "").Replace(strings.Join(extra, ""))+".json")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReportCompareTellsVariantsApart: a seeded stochastic scripted model
// that answers right with probability 0.5 and one with 0.8, 50 trials each,
// are told apart by report compare; the same variant run twice (with
// another seed) is "~"; a broken threshold exits 1.
func TestReportCompareTellsVariantsApart(t *testing.T) {
	dir := t.TempDir()
	half := evalJSON(t, dir, "testdata/eval/sim-half.yaml")
	eighty := evalJSON(t, dir, "testdata/eval/sim-eighty.yaml")
	again := evalJSON(t, dir, "testdata/eval/sim-eighty-again.yaml")

	code, out, errOut := runCLI("report", "compare", half, eighty)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, errOut)
	}
	row := lineWith(out, "weather")
	if row == "" || strings.Contains(row, "~ +") || !strings.Contains(row, "barnard") {
		t.Errorf("0.5 against 0.8 at n=50 is not significant:\n%s", out)
	}
	if !strings.Contains(out, "Barnard's unconditional exact test") {
		t.Errorf("compare does not say which test it used and why:\n%s", out)
	}

	code, out, _ = runCLI("report", "compare", eighty, again)
	if code != 0 || !strings.Contains(lineWith(out, "weather"), "~ ") {
		t.Errorf("the same variant twice is not ~ (exit %d):\n%s", code, out)
	}

	code, out, errOut = runCLI("report", "compare", "--threshold", "pass_rate:delta>=-0.05", eighty, half)
	if code != 1 || !strings.Contains(out, "✗ pass_rate:delta>=-0.05  agent") {
		t.Errorf("a broken threshold: exit %d, want 1\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI("report", "compare", "--threshold", "pass_rate:delta>=-0.05", eighty, again)
	if code != 0 || !strings.Contains(out, "✓ pass_rate:delta>=-0.05") {
		t.Errorf("a threshold that holds: exit %d, want 0\n%s", code, out)
	}
	code, _, errOut = runCLI("report", "compare", "--threshold", "pass_rate[nope]:delta>=0", eighty, again)
	if code != exitUsage || !strings.Contains(errOut, "matches nothing") {
		t.Errorf("a threshold that matches nothing: exit %d, want %d\n%s", code, exitUsage, errOut)
	}
	code, _, errOut = runCLI("report", "compare", "--threshold", "pass_rate:median>=0", eighty, again)
	if code != exitUsage || !strings.Contains(errOut, `unknown aggregate "median"`) {
		t.Errorf("a bad threshold: exit %d, want %d\n%s", code, exitUsage, errOut)
	}

	// eval --baseline compares the same way
	code, out, _ = runCLI("eval", "--baseline", eighty, "--threshold", "pass_rate:delta>=-0.05", "testdata/eval/sim-half.yaml")
	if code != 1 || !strings.Contains(out, "✗ pass_rate:delta>=-0.05") {
		t.Errorf("eval --baseline with a broken threshold: exit %d, want 1\n%s", code, out)
	}
}

// TestEvalShardsMerge: report merge joins eval shards into the report of
// the whole run.
func TestEvalShardsMerge(t *testing.T) {
	dir := t.TempDir()
	whole := evalJSON(t, dir, "testdata/eval/thresholds.yaml")
	var shards []string
	for _, s := range []string{"1/3", "2/3", "3/3"} {
		shards = append(shards, evalJSON(t, dir, "testdata/eval/thresholds.yaml", "--shard", s))
	}
	code, out, errOut := runCLI(append([]string{"report", "merge"}, shards...)...)
	if code != 1 {
		t.Fatalf("merge: exit %d, want 1 (the flaky variant breaks its thresholds)\n%s", code, errOut)
	}
	a, err := os.Open(whole)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	w, err := evalreport.ReadJSON(a)
	if err != nil {
		t.Fatal(err)
	}
	m, err := evalreport.ReadJSON(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var wb, mb strings.Builder
	if err := evalreport.WriteJSON(&wb, evalreport.StripTiming(w)); err != nil {
		t.Fatal(err)
	}
	if err := evalreport.WriteJSON(&mb, evalreport.StripTiming(m)); err != nil {
		t.Fatal(err)
	}
	if wb.String() != mb.String() {
		t.Errorf("the merged shards differ from the whole run")
	}
}

func lineWith(s, sub string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// BenchmarkEvalCLI measures the whole CLI on a scripted three-step scenario
// (model → tool → model): trials per second, reported as trials/s.
func BenchmarkEvalCLI(b *testing.B) {
	const trials = 2000
	dir := b.TempDir()
	src, err := os.ReadFile("testdata/eval/scenarios/weather.yaml")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "weather.yaml"), src, 0o644); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(dir, "bench.yaml")
	if err := os.WriteFile(file, []byte("trials: 2000\nvariants: [{name: a}]\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if code, _, errOut := runCLI("eval", "--format", "json", file); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut)
		}
	}
	b.ReportMetric(float64(trials*b.N)/b.Elapsed().Seconds(), "trials/s")
}

// TestEvalNoTiming: --no-timing leaves every wall-clock field out of the
// report, so a committed baseline does not change from run to run.
func TestEvalNoTiming(t *testing.T) {
	code, out, errOut := runCLI("eval", "--format", "json", "--no-timing", "testdata/eval/sim-half.yaml")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if strings.Contains(out, `"timing"`) {
		t.Errorf("--no-timing left timings in the report:\n%.1000s", out)
	}
	_, timed, _ := runCLI("eval", "--format", "json", "testdata/eval/sim-half.yaml")
	if !strings.Contains(timed, `"timing"`) {
		t.Errorf("without --no-timing the report has no timings")
	}
}

// TestEvalBundledSuiteSameAtAnyParallelism: "agenteval eval on the
// bundled suite replays offline, identical JSON (timings aside) at
// --parallel 1 and --parallel 8".
func TestEvalBundledSuiteSameAtAnyParallelism(t *testing.T) {
	code, one, errOut := runCLI("eval", "--no-timing", "--format", "json", "--parallel", "1", "../../evals/suite.yaml")
	if code != 0 {
		t.Fatalf("--parallel 1: exit %d\n%s", code, errOut)
	}
	code, eight, errOut := runCLI("eval", "--no-timing", "--format", "json", "--parallel", "8", "../../evals/suite.yaml")
	if code != 0 {
		t.Fatalf("--parallel 8: exit %d\n%s", code, errOut)
	}
	if one != eight {
		t.Errorf("the bundled suite's JSON differs between --parallel 1 and 8")
	}
	if !strings.Contains(one, `"grader": "judge"`) {
		t.Errorf("the bundled suite's report has no judge's score")
	}
}

// TestEvalMissingTrialCassette: "a missing trial cassette is a clear error
// naming the trial" — the trial and its cassette are named, the others
// run, and the eval exits 1.
func TestEvalMissingTrialCassette(t *testing.T) {
	dir := t.TempDir()
	root, err := filepath.Abs("../../evals")
	if err != nil {
		t.Fatal(err)
	}
	cassettes := filepath.Join(dir, "cassettes")
	if err := os.MkdirAll(filepath.Join(cassettes, "weather", "local"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"1", "3"} {
		data, err := os.ReadFile(filepath.Join(root, "cassettes", "weather", "local", "trial-"+k+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cassettes, "weather", "local", "trial-"+k+".yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "e.yaml")
	src := "root: " + filepath.Join(root, "scenarios") + "\nscenarios: [weather.yaml]\ncassettes: cassettes\ntrials: 3\nvariants:\n" +
		"  - name: local\n    model: openai-compatible:gpt-4.1-mini\n    base_url: http://127.0.0.1:18733/v1\n    params: {temperature: 0.7}\n" +
		"    tools: [{name: get_weather, description: \"Current weather for one city, e.g. {\\\"city\\\": \\\"Paris\\\"}.\"}]\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("eval", file)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	want := "1 trials could not run:\n  weather × local trial 2: "
	if !strings.Contains(out, want) || !strings.Contains(out, filepath.Join("weather", "local", "trial-2.yaml")) {
		t.Errorf("the report does not name the trial and its cassette (want %q):\n%s", want, out)
	}
	// the errored trial is left out of the pass rate and counted apart
	if !strings.Contains(out, "2/2 1.00 [0.16, 1.00] (+1 errored)") {
		t.Errorf("the other trials did not run, or the errored one counts as a failure:\n%s", out)
	}
}

// TestEvalPlan: --plan answers how many trials a change needs and runs
// nothing; a change outside (0, 1) is a usage error.
func TestEvalPlan(t *testing.T) {
	cases := []struct {
		why  string
		args []string
		code int
		want string
	}{
		{"issue 30's drop of 0.2 from 0.85 needs 83 trials a cell", []string{"eval", "--plan", "0.2", "--plan-base", "0.85", "../../evals/suite.yaml"}, 0, "run 83 trials per cell and variant"},
		{"the file's 10 trials are stated with what they find", []string{"eval", "--plan", "0.2", "--plan-base", "0.85", "../../evals/suite.yaml"}, 0, "minimum detectable change from 0.85 is 0.68"},
		{"a change of 1.5 is refused", []string{"eval", "--plan", "1.5", "../../evals/suite.yaml"}, exitUsage, "--plan takes a change"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(c.args...)
		if code != c.code || !strings.Contains(out+errOut, c.want) {
			t.Errorf("%s: exit %d, want %d with %q:\n%s%s", c.why, code, c.code, c.want, out, errOut)
		}
	}
}
