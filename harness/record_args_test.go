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

// TestRecordedToolArgumentsReplay is issue 19's done-when for item 1, on
// a whole scenario: recording one whose tool takes key, token and
// password arguments passes (the scripted tool result matches the real
// arguments: the scrubbed copy once reached the run, and the run failed
// with "no scripted result matches the arguments {'key': 'REDACTED'}"),
// the provider receives the real values back in the tool_use block, the
// cassette holds them but not the API key, and the scenario replays
// offline from it.
func TestRecordedToolArgumentsReplay(t *testing.T) {
	t.Parallel()
	const apiKey = "sk-ant-api03-RECORDINGKEYabcdefghijklmnopqrstuvwxyz"
	args := `{"key":"abc","token":"t-1","password":"open sesame"}`
	src := serve.NewTurns(
		serve.Turn{Model: "claude-sonnet-4-5-20250929", ToolCalls: []serve.ToolCall{{ID: "toolu_01K3y", Name: "lookup", Args: args}},
			Usage: serve.Usage{Input: 50, Output: 20}},
		serve.Turn{Model: "claude-sonnet-4-5-20250929", Text: "The account abc is active.", Usage: serve.Usage{Input: 90, Output: 9}},
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
  - name: lookup
    description: Look an account up.
    parameters: {type: object, properties: {key: {type: string}, token: {type: string}, password: {type: string}}}
    results:
      - when: {key: abc, token: t-1, password: open sesame}
        return: active
turns: [{user: Is account abc active?}]
expect:
  trajectory: {calls: [{name: lookup, args: {key: abc, token: t-1, password: open sesame}}]}
  final: {contains: [active]}
`
	file := filepath.Join(dir, "scenarios", "args.yaml")
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
		Transport: transport, LookupEnv: func(k string) (string, bool) { return apiKey, k == "ANTHROPIC_API_KEY" }}
	rec := harness.Run(context.Background(), scenarios, opts).Scenarios[0]
	if rec.Status != report.StatusPass {
		t.Fatalf("recording: %s: %s\n%s", rec.Status, rec.Message, rec.Diff)
	}
	xs := fake.Exchanges()
	if len(xs) != 2 || !strings.Contains(string(xs[1].Request.Body), `"input":`+args) {
		t.Errorf("the provider did not get the real arguments back in its second request:\n%s", string(xs[len(xs)-1].Request.Body))
	}
	data, err := os.ReadFile(rec.Cassette)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), apiKey) || !strings.Contains(string(data), `"input":`+args) {
		t.Errorf("the cassette holds the API key or lost the arguments:\n%s", data)
	}

	ts.Close() // offline from here
	opts.Mode, opts.Transport = cassette.ModeReplay, noNetwork{t}
	rep := harness.Run(context.Background(), scenarios, opts).Scenarios[0]
	if rep.Status != report.StatusPass {
		t.Errorf("replay: %s: %s\n%s", rep.Status, rep.Message, rep.Diff)
	}
}
