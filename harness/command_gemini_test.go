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
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/serve"
)

// adkAgent is the Google ADK example agent (@google/adk over
// @google/genai), a Gemini client no one here wrote.
const adkAgent = "../examples/google-adk/agent.mjs"

// TestCommandGeminiAgentRecordsThenReplays runs the ADK example as a
// command scenario with model gemini:gemini-2.5-flash: recorded once
// against a fake Gemini API (a local serve that checks the real key
// arrives, as x-goog-api-key, in place of the agent's dummy one), then
// replayed with every connection refused, to the same transcript. The
// key is nowhere in the cassette.
func TestCommandGeminiAgentRecordsThenReplays(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the command agent of this test is the Google ADK example")
	}
	if _, err := os.Stat("../examples/google-adk/node_modules"); err != nil {
		t.Skip("examples/google-adk/node_modules is missing: go test ./examples installs it (npm ci)")
	}
	agent, err := filepath.Abs(adkAgent)
	if err != nil {
		t.Fatal(err)
	}
	const realKey = "AIzaSyREALKEYabcdefghijklmnopqrstuvwxyz0"
	provider, err := serve.New(serve.Options{Key: realKey, Models: []string{"gemini-2.5-flash"}, Source: serve.NewTurns(
		serve.Turn{ToolCalls: []serve.ToolCall{
			{ID: "call_paris", Name: "get_weather", Args: `{"city": "Paris"}`},
			{ID: "call_london", Name: "get_weather", Args: `{"city": "London"}`}},
			Usage: serve.Usage{Input: 80, Output: 30}},
		serve.Turn{Text: "Paris is sunny (21°C) and London is rainy (14°C).", Usage: serve.Usage{Input: 140, Output: 15}},
	)})
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(provider)
	upURL, _ := url.Parse(up.URL)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()

	dir := t.TempDir()
	doc := map[string]any{
		"agent": map[string]any{"kind": "command", "command": []string{"node", agent}, "model": "gemini:gemini-2.5-flash", "timeout": "60s",
			"env": map[string]string{"AGENT_MODEL": "gemini-2.5-flash"}},
		"turns": []any{map[string]any{"user": "What's the weather in Paris and in London?"}},
		"expect": map[string]any{
			"trajectory":     map[string]any{"calls": []any{map[string]any{"name": "get_weather", "args": map[string]any{"city": "Paris"}}, map[string]any{"name": "get_weather", "args": map[string]any{"city": "London"}}}},
			"final":          map[string]any{"contains": []string{"sunny", "rainy"}},
			"max_tool_calls": 2,
			"golden":         true,
		},
	}
	data, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "weather.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	load := func() []*harness.Scenario {
		ss, err := harness.LoadDir(filepath.Join(dir, "scenarios"))
		if err != nil {
			t.Fatal(err)
		}
		return ss
	}
	opts := harness.Options{CassetteDir: filepath.Join(dir, "cassettes"), GoldenDir: filepath.Join(dir, "golden")}
	ctx := context.Background()

	rec := opts
	rec.Mode, rec.Update = cassette.ModeRecord, true
	rec.Transport = redirect{to: upURL, rt: tr}
	rec.LookupEnv = func(k string) (string, bool) {
		if k == "GEMINI_API_KEY" {
			return realKey, true
		}
		return "", false
	}
	rep := harness.Run(ctx, load(), rec)
	up.Close()
	wantStatus(t, "record", rep, report.StatusPass)
	if err := provider.Err(); err != nil {
		t.Errorf("the provider refused requests (the real key did not arrive?):\n%v", err)
	}
	for _, x := range provider.Exchanges() {
		if x.Request.Protocol != serve.Gemini {
			t.Errorf("request %d reached the provider as %s, want gemini", x.N, x.Request.Protocol)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "cassettes", "weather.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), realKey) || strings.Contains(string(raw), harness.DummyAPIKey) {
		t.Errorf("the cassette holds a key:\n%s", raw)
	}
	if !strings.Contains(string(raw), "/v1beta/models/gemini-2.5-flash:generateContent") {
		t.Errorf("the cassette does not record the generateContent URL:\n%s", raw)
	}
	golden, err := os.ReadFile(filepath.Join(dir, "golden", "weather.golden"))
	if err != nil {
		t.Fatal(err)
	}

	play := opts
	play.Transport = offline{t}
	rep = harness.Run(ctx, load(), play)
	wantStatus(t, "replay", rep, report.StatusPass)
	again, err := os.ReadFile(filepath.Join(dir, "golden", "weather.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(golden) {
		t.Errorf("the replay rewrote the golden transcript:\n%s\nwas\n%s", again, golden)
	}
}
