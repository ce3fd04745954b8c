package harness_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/serve"
)

// TestRecordScrubsEnvironmentSecrets is issue 37's item 7 on a whole
// scenario: a tool's result holds the value of a credential variable of
// the environment (a shape no pattern knows), which the run sends to the
// provider. The cassette recorded holds it as REDACTED (it held it
// verbatim, while reports and golden files redacted it), the scenario
// replays from it with the variable still set, and a cassette that holds
// the value is refused on load naming the field. A header
// Options.ScrubHeaders names is redacted too.
func TestRecordScrubsEnvironmentSecrets(t *testing.T) {
	const secret = "opaque-db-passw0rd-4f9a"
	t.Setenv("AGENTEVAL_TEST_DB_PASSWORD", secret)
	const apiKey = "sk-ant-api03-RECORDINGKEYabcdefghijklmnopqrstuvwxyz"
	src := serve.NewTurns(
		serve.Turn{Model: "claude-sonnet-4-5-20250929", ToolCalls: []serve.ToolCall{{ID: "toolu_01", Name: "dsn", Args: `{}`}}},
		serve.Turn{Model: "claude-sonnet-4-5-20250929", Text: "Connected."},
	)
	fake, err := serve.New(serve.Options{Source: src, Key: apiKey})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(fake)
	defer ts.Close()
	dir := t.TempDir()
	scenario := `agent: {model: "anthropic:claude-sonnet-4-5", base_url: "` + ts.URL + `"}
tools:
  - name: dsn
    description: The database's address.
    parameters: {type: object, properties: {}}
    results: [{return: "postgres://app:` + secret + `@db/app"}]
turns: [{user: Connect.}]
expect:
  final: {contains: [Connected]}
`
	file := filepath.Join(dir, "scenarios", "dsn.yaml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	scenarios, err := harness.LoadDir(filepath.Join(dir, "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	opts := harness.Options{CassetteDir: filepath.Join(dir, "cassettes"), GoldenDir: filepath.Join(dir, "golden"), Mode: cassette.ModeRecord,
		Transport: transport, LookupEnv: func(k string) (string, bool) { return apiKey, k == "ANTHROPIC_API_KEY" },
		ScrubHeaders: []string{"anthropic-version"}} // a header the project says holds a credential
	rec := harness.Run(context.Background(), scenarios, opts).Scenarios[0]
	if rec.Status != report.StatusPass {
		t.Fatalf("recording: %s: %s\n%s", rec.Status, rec.Message, rec.Diff)
	}
	if xs := fake.Exchanges(); len(xs) != 2 || !strings.Contains(string(xs[1].Request.Body), secret) {
		t.Errorf("the provider did not get the tool's result as it is")
	}
	data, err := os.ReadFile(rec.Cassette)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) || !strings.Contains(string(data), "app:REDACTED@db") {
		t.Errorf("the cassette holds the environment's secret, or not its redaction:\n%s", data)
	}
	if strings.Contains(string(data), "2023-06-01") {
		t.Errorf("the cassette holds the value of a header Options.ScrubHeaders names:\n%s", data)
	}

	opts.Mode = cassette.ModeReplay
	if got := harness.Run(context.Background(), scenarios, opts).Scenarios[0]; got.Status != report.StatusPass {
		t.Errorf("replay: %s: %s\n%s", got.Status, got.Message, got.Diff)
	}

	if err := os.WriteFile(rec.Cassette, []byte(strings.ReplaceAll(string(data), "app:REDACTED@db", "app:"+secret+"@db")), 0o644); err != nil {
		t.Fatal(err)
	}
	got := harness.Run(context.Background(), scenarios, opts).Scenarios[0]
	if got.Status != report.StatusError || !strings.Contains(got.Message, "holds the value of a credential variable of the environment") ||
		strings.Contains(got.Message, secret) {
		t.Errorf("replay of a cassette holding the secret: %s: %s\nwant an error naming the field, without the secret", got.Status, got.Message)
	}
}
