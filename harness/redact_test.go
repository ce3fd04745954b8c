package harness_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
)

// Credentials for the tests below: a key of a known shape, and secrets
// of no shape that only their source (the environment) names.
const (
	shapedKey  = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"
	gatewayKey = "my-gateway-pass-7f3a9c" // OPENAI_API_KEY for a self-hosted gateway
	ciToken    = "ci-token-value-55e1b0"  // a credential variable a command agent inherits
)

// secretScenario leaks every kind of secret into what a run observes:
// the model repeats the shaped key and the gateway key, a tool returns a
// JWT, and the run pauses with the key in its interrupt.
const secretScenario = `script:
  responses:
    - content: "calling with ` + shapedKey + `"
      tool_calls: [{name: lookup, args: {q: "` + gatewayKey + `"}, id: c1}]
    - content: "done: ` + gatewayKey + `"
tools:
  - name: lookup
    results: [{return: "session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}]
turns: [{user: "my key is ` + shapedKey + `"}]
expect:
  final: {equals: "nothing like this"}
  golden: true
`

// leaked lists which of the secrets s holds.
func leaked(s string) []string {
	var out []string
	for _, secret := range []string{shapedKey, gatewayKey, ciToken, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIi"} {
		if strings.Contains(s, secret) {
			out = append(out, secret)
		}
	}
	return out
}

// TestSecretsNeverReachReportsOrGoldenFiles: whatever credentials a run
// observes, the report (JSON, JUnit, Markdown, HTML, text) and the golden
// transcript it writes hold none: those of a known shape, and the API key
// the run read from its environment whatever its shape. Before, the
// scrubbing of cassettes was the only one: a key the model repeated went
// into every report and golden file.
func TestSecretsNeverReachReportsOrGoldenFiles(t *testing.T) {
	t.Parallel()
	s, err := harness.Parse("secret.yaml", []byte(secretScenario))
	if err != nil {
		t.Fatal(err)
	}
	s.Name, s.Rel = "secret", "secret"
	golden := t.TempDir()
	env := map[string]string{"OPENAI_API_KEY": gatewayKey}
	opts := harness.Options{GoldenDir: golden, Update: true, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	rep := harness.Run(context.Background(), []*harness.Scenario{s}, opts)
	res := rep.Scenarios[0]
	if res.Status != report.StatusFail || !strings.Contains(res.Message, "final") {
		t.Fatalf("the scenario ran %s: %s", res.Status, res.Message)
	}
	if !strings.Contains(res.Transcript, "REDACTED") {
		t.Errorf("the transcript shows no REDACTED:\n%s", res.Transcript)
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"json":     func(b *bytes.Buffer) error { return report.WriteJSON(b, rep) },
		"junit":    func(b *bytes.Buffer) error { return report.WriteJUnit(b, rep) },
		"markdown": func(b *bytes.Buffer) error { return report.WriteMarkdown(b, rep) },
		"html":     func(b *bytes.Buffer) error { return report.WriteHTML(b, rep) },
		"text":     func(b *bytes.Buffer) error { return report.WriteText(b, rep) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if l := leaked(b.String()); len(l) > 0 {
			t.Errorf("the %s report holds %q:\n%s", name, l, b.String())
		}
	}
	data, err := os.ReadFile(filepath.Join(golden, "secret.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if l := leaked(string(data)); len(l) > 0 {
		t.Errorf("the golden file holds %q:\n%s", l, data)
	}
	// the scrubbed golden file is the transcript the next run compares
	opts.Update = false
	if again := harness.Run(context.Background(), []*harness.Scenario{s}, opts).Scenarios[0]; again.GoldenStatus != "same" {
		t.Errorf("rerun: golden %s, want same: the scrubbed transcript must be stable", again.GoldenStatus)
	}
}

// TestGoldenFileWithCredentialIsRefused: a golden file that holds a
// credential fails its scenario, naming the file and line, instead of
// being compared (and a run with --update writes it scrubbed).
func TestGoldenFileWithCredentialIsRefused(t *testing.T) {
	t.Parallel()
	s, err := harness.Parse("g.yaml", []byte("script: {responses: [{content: hi}]}\nturns: [{user: hi}]\nexpect: {golden: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s.Name, s.Rel = "g", "g"
	dir := t.TempDir()
	path := filepath.Join(dir, "g.golden")
	if err := os.WriteFile(path, []byte("turn 0\n  note "+shapedKey+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := harness.RunScenario(context.Background(), s, harness.Options{GoldenDir: dir})
	want := "golden file " + filepath.ToSlash(path) + ":2 holds an OpenAI-style API key (sk-...): a golden file never holds a credential"
	if res.Status != report.StatusFail || !strings.Contains(res.Message, want) {
		t.Errorf("RunScenario = %s: %s\nwant a failure containing %q", res.Status, res.Message, want)
	}
	if l := leaked(res.Message + res.Diff); len(l) > 0 {
		t.Errorf("the failure quotes the credential: %s\n%s", res.Message, res.Diff)
	}
	res = harness.RunScenario(context.Background(), s, harness.Options{GoldenDir: dir, Update: true})
	data, _ := os.ReadFile(path)
	if res.Status != report.StatusPass || len(leaked(string(data))) > 0 {
		t.Errorf("with Update: %s %s; file:\n%s\nwant it rewritten without the key", res.Status, res.Message, data)
	}
}

// TestCommandAgentEnvSecretsNeverReachReports: a command agent given a
// credential variable by its scenario (agent.pass_env) may print it (a crash dump, a debug line); the end of its stderr goes
// into the scenario's error, and so into every report. The values of
// credential variables are scrubbed from it, whatever their shape.
func TestCommandAgentEnvSecretsNeverReachReports(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	t.Setenv("AGENTEVAL_TEST_CI_TOKEN", ciToken)
	dir := t.TempDir()
	file := filepath.Join(dir, "leak.yaml")
	src := "agent: {kind: command, pass_env: [AGENTEVAL_TEST_CI_TOKEN], command: [sh, -c, 'echo \"debug: token=$AGENTEVAL_TEST_CI_TOKEN\" >&2; exit 3']}\nscript: {responses: [{content: hi}]}\nturns: [{user: hi}]\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := harness.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	s.Name, s.Rel = "leak", "leak"
	res := harness.RunScenario(context.Background(), s, harness.Options{GoldenDir: dir})
	if res.Status != report.StatusFail || !strings.Contains(res.Message, "its stderr ends:\ndebug: token=REDACTED") {
		t.Errorf("RunScenario = %s: %s\nwant a failure showing the agent's stderr with the token redacted", res.Status, res.Message)
	}
	if l := leaked(res.Message); len(l) > 0 {
		t.Errorf("the error holds %q: %s", l, res.Message)
	}
}
