package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const leakedKey = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"

// writeFiles writes name → content under a new temporary directory and
// returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSecretsNeverReachOutput: what the commands write (stdout, stderr,
// the run and eval report files) never holds a credential the run saw,
// and a report read back that holds one is refused. Each case failed
// before: only cassettes were scrubbed.
func TestSecretsNeverReachOutput(t *testing.T) {
	t.Parallel()
	leaky := "script: {responses: [{content: \"the key is " + leakedKey + "\"}]}\nturns: [{user: hi}]\nexpect: {final: {equals: no}}\n"
	dir := writeFiles(t, map[string]string{
		"scenarios/leaky.yaml": leaky,
		"bad/kind.yaml":        "agent: {kind: \"" + leakedKey + "\"}\nturns: [{user: hi}]\n",
		"evals/leaky.yaml":     "name: leaky\nroot: ../scenarios\ntrials: 2\nvariants: [{name: a}]\n",
		"reports/leaky.json":   `{"schema":"agenteval.report/v1","scenarios":[{"name":"a","file":"a.yaml","status":"pass","message":"` + leakedKey + `","agent":{"kind":"react","model":"scripted"},"usage":{}}]}`,
	})
	tests := []struct {
		reason string
		args   []string
		files  []string // report files written, checked too; the first must show REDACTED
		want   string   // in stdout or stderr
	}{
		{"run: the failure, the text report and the four report files", []string{"run", "--root", dir + "/scenarios", "--golden", dir + "/golden", "--report-dir", dir + "/out", dir + "/scenarios"},
			[]string{"out/agenteval.json", "out/junit.xml", "out/summary.md", "out/report.html"}, "the key is REDACTED"},
		{"run --format json on stdout", []string{"run", "--root", dir + "/scenarios", "--golden", dir + "/golden", "--no-reports", "--format", "json", dir + "/scenarios"},
			nil, "REDACTED"},
		{"a scenario file's problem quoting a key, on stderr", []string{"run", "--root", dir + "/bad", "--no-reports", dir + "/bad"},
			nil, `unknown kind "REDACTED"`},
		{"eval: the text and the four eval report files", []string{"eval", "--report-dir", dir + "/evalout", dir + "/evals/leaky.yaml"},
			[]string{"evalout/eval.json", "evalout/eval-junit.xml", "evalout/eval.md", "evalout/eval.html"}, "leaky"},
		{"report merge refuses a report that holds a key, naming its line", []string{"report", "merge", dir + "/reports/leaky.json"},
			nil, "reports/leaky.json:1: holds an OpenAI-style API key (sk-...): a report never holds a credential"},
	}
	for _, tc := range tests {
		_, out, errOut := runCLI(tc.args...)
		if !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%s: agenteval %s: output lacks %q\nstdout:\n%s\nstderr:\n%s", tc.reason, strings.Join(tc.args, " "), tc.want, out, errOut)
		}
		if strings.Contains(out+errOut, leakedKey) {
			t.Errorf("%s: agenteval %s printed the key\nstdout:\n%s\nstderr:\n%s", tc.reason, strings.Join(tc.args, " "), out, errOut)
		}
		for i, f := range tc.files {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Errorf("%s: %v", tc.reason, err)
				continue
			}
			if strings.Contains(string(data), leakedKey) {
				t.Errorf("%s: %s holds the key", tc.reason, f)
			}
			if i == 0 && !strings.Contains(string(data), "REDACTED") {
				t.Errorf("%s: %s shows no REDACTED: the leak was not exercised", tc.reason, f)
			}
		}
	}
}
