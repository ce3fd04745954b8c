package harness_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/serve"
)

// loopbackOnly carries requests to one host and refuses every other,
// noting each: the unreachable default a record run must never use.
type loopbackOnly struct {
	host   string
	mu     sync.Mutex
	others []string
}

func (l *loopbackOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != l.host {
		l.mu.Lock()
		l.others = append(l.others, req.URL.String())
		l.mu.Unlock()
		return nil, os.ErrPermission
	}
	return http.DefaultTransport.RoundTrip(req)
}

// commandBaseURLScenario writes a scenario running the Python example
// agent (agent, a path) with model openai-compatible:qwen3 at baseURL.
func commandBaseURLScenario(t *testing.T, dir, agent, baseURL string) {
	t.Helper()
	scenario := `agent:
  kind: command
  command: [python3, ` + agent + `]
  model: "openai-compatible:qwen3"
  base_url: "` + baseURL + `"
  env: {AGENT_MODEL: qwen3}
  timeout: 30s
turns:
  - user: Weather in Paris?
expect:
  trajectory: {calls: [{name: get_weather, args: {city: Paris}}]}
  final: {contains: [sunny]}
`
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "paris.yaml"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCommandAgentRecordsFromBaseURL records a command agent whose
// scenario names a local OpenAI-compatible server (a serve with a
// script, standing in for vLLM) by agent.base_url, with an Azure-style
// query: every request goes there, query included, with the real key,
// and nothing goes anywhere else (the default, api.openai.com, is
// unreachable through the transport). The recording then replays
// offline, the server gone and every request through the transport
// refused.
func TestCommandAgentRecordsFromBaseURL(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the command agent of this test is the Python example")
	}
	t.Parallel()
	agent, err := filepath.Abs(pythonAgent)
	if err != nil {
		t.Fatal(err)
	}
	const realKey = "sk-proj-LOCALKEYabcdefghijklmnopqrstuvwxyz0123456789"
	provider, err := serve.New(serve.Options{Key: realKey, Models: []string{"qwen3"}, Source: serve.NewTurns(
		serve.Turn{ToolCalls: []serve.ToolCall{{ID: "call_paris", Name: "get_weather", Args: `{"city": "Paris"}`}}},
		serve.Turn{Text: "Paris is sunny (21°C)."},
	)})
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(provider)
	upURL, _ := url.Parse(up.URL)
	dir := t.TempDir()
	commandBaseURLScenario(t, dir, agent, up.URL+"/v1?api-version=2024-10-21")
	ss, err := harness.LoadDir(filepath.Join(dir, "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	opts := harness.Options{CassetteDir: filepath.Join(dir, "cassettes")}
	rec := opts
	tr := &loopbackOnly{host: upURL.Host}
	rec.Mode, rec.Transport = cassette.ModeRecord, tr
	rec.LookupEnv = func(k string) (string, bool) {
		if k == "OPENAI_API_KEY" {
			return realKey, true
		}
		return "", false
	}
	wantStatus(t, "record", harness.Run(context.Background(), ss, rec), report.StatusPass)
	up.Close()
	if err := provider.Err(); err != nil {
		t.Errorf("the local server refused requests (the real key did not arrive?):\n%v", err)
	}
	if len(tr.others) > 0 {
		t.Errorf("the record run sent requests to hosts the scenario does not name: %v", tr.others)
	}
	xs := provider.Exchanges()
	if len(xs) != 2 {
		t.Fatalf("the local server got %d requests, want 2", len(xs))
	}
	c, err := cassette.Load(filepath.Join(dir, "cassettes", "paris.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range c.Interactions {
		if want := up.URL + "/v1/chat/completions?api-version=2024-10-21"; in.Request.URL != want {
			t.Errorf("interaction %d recorded at %s, want %s", i, in.Request.URL, want)
		}
	}
	play := opts
	play.Transport = offline{t}
	wantStatus(t, "replay", harness.Run(context.Background(), ss, play), report.StatusPass)
}
