package harness_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	if got := wantStatus(t, "replay", harness.Run(context.Background(), ss, play), report.StatusPass); got.Replay != "" {
		t.Errorf("a replay by content is marked %q, want no mark", got.Replay)
	}

	// the agent's system prompt edited: the replay fails at its first
	// request, with the closest recorded one and the body diff
	src, err := os.ReadFile(agent)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "You are a helpful weather assistant.", "You are a terse weather assistant.", 1)
	if edited == string(src) {
		t.Fatal("the example's system prompt moved: update this test")
	}
	editedAgent := filepath.Join(dir, "agent_edited.py")
	if err := os.WriteFile(editedAgent, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	commandBaseURLScenario(t, dir, editedAgent, up.URL+"/v1?api-version=2024-10-21")
	ss, err = harness.LoadDir(filepath.Join(dir, "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	res := wantStatus(t, "replay of an edited prompt", harness.Run(context.Background(), ss, play), report.StatusFail)
	text := failedText(res)
	for _, e := range res.Expectations {
		text += e.Diff + "\n"
	}
	cassettePath := filepath.Join(dir, "cassettes", "paris.yaml")
	for _, want := range []string{
		"request 1 (POST /v1/chat/completions, model qwen3): replay: no recorded request of cassette " + cassettePath + " matches it",
		"record again: agenteval run --mode record --overwrite ",
		"closest recorded request: interaction 0 at " + cassettePath,
		"differs in: body at messages[0].content[0].text",
		"body (-recorded +requested):",
		`-           "text": "You are a helpful weather assistant."`,
		`+           "text": "You are a terse weather assistant."`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the failure does not show\n%s\nit shows\n%s", want, text)
		}
	}

	// the same edit replayed by order (the opt-in for other tools'
	// cassettes) passes, and the report says how it was replayed
	raw, err := os.ReadFile(filepath.Join(dir, "scenarios", "paris.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	byOrder := strings.Replace(string(raw), "  timeout: 30s\n", "  timeout: 30s\n  replay: by-order\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "paris.yaml"), []byte(byOrder), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, err = harness.LoadDir(filepath.Join(dir, "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	if got := wantStatus(t, "replay by order", harness.Run(context.Background(), ss, play), report.StatusPass); got.Replay != harness.ReplayByOrder {
		t.Errorf("a replay by order is marked %q, want %q", got.Replay, harness.ReplayByOrder)
	}
}
