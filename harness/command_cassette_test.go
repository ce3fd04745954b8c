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

	"go.uber.org/goleak"
	"gopkg.in/yaml.v3"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/serve"
)

// pythonAgent is the dependency-free example agent (urllib only), a
// client no one here wrote for agenteval's sake: it speaks Chat
// Completions, JSON or streamed (AGENT_STREAM=1).
const pythonAgent = "../examples/python-agent/agent.py"

// redirect sends every request to another host (the fake provider),
// keeping the path: the recorder records the URL the client asked for.
type redirect struct {
	to *url.URL
	rt http.RoundTripper
}

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	out.URL.Scheme, out.URL.Host, out.Host = r.to.Scheme, r.to.Host, ""
	return r.rt.RoundTrip(out)
}

// offline fails every request: a replay must never reach a provider.
type offline struct{ t *testing.T }

func (o offline) RoundTrip(req *http.Request) (*http.Response, error) {
	o.t.Errorf("network used during replay: %s %s", req.Method, req.URL)
	return nil, os.ErrPermission
}

// TestCommandAgentRecordsThenReplays runs the Python example agent as a
// command scenario with a provider model: recorded once against a fake
// provider (a local serve standing in for OpenAI, which checks the real
// key arrives in place of the agent's dummy one), then replayed with the
// provider gone and every connection refused. The replay must pass with
// the transcript the recording wrote, byte for byte (the golden file
// written while recording is what the replay compares with), the key
// must be nowhere in the cassette, and a streamed run must record the
// stream in its events. A provider judge grades both runs: its call is
// recorded after the agent's, marked with harness.GraderHeader (which the
// provider never sees), and replayed to it while the agent's replay by
// order leaves it out. Then the cassette loses its last interaction: the
// replay must fail at once, not hang, naming the request that found no
// answer and showing the closest recorded one with the body diff.
func TestCommandAgentRecordsThenReplays(t *testing.T) {
	defer goleak.VerifyNone(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the command agent of this test is the Python example")
	}
	agent, err := filepath.Abs(pythonAgent)
	if err != nil {
		t.Fatal(err)
	}
	const realKey = "sk-proj-REALKEYabcdefghijklmnopqrstuvwxyz0123456789"
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "json", true: "stream"}[stream]
		t.Run(name, func(t *testing.T) {
			provider, err := serve.New(serve.Options{Key: realKey, Source: serve.NewTurns(
				serve.Turn{ToolCalls: []serve.ToolCall{
					{ID: "call_paris", Name: "get_weather", Args: `{"city": "Paris"}`},
					{ID: "call_london", Name: "get_weather", Args: `{"city": "London"}`}},
					Usage: serve.Usage{Input: 80, Output: 30}},
				serve.Turn{Text: "Paris is sunny (21°C) and London is rainy (14°C).", Usage: serve.Usage{Input: 140, Output: 15}},
				// the judge's answer
				serve.Turn{Text: `{"reasoning": "Both cities, with their weather.", "score": 1}`, Usage: serve.Usage{Input: 300, Output: 12}},
			)})
			if err != nil {
				t.Fatal(err)
			}
			up := httptest.NewServer(provider)
			upURL, _ := url.Parse(up.URL)
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()

			dir := t.TempDir()
			env := map[string]string{}
			if stream {
				env["AGENT_STREAM"] = "1"
			}
			doc := map[string]any{
				"agent": map[string]any{"kind": "command", "command": []string{"python3", agent}, "model": "openai:gpt-4.1-mini", "env": env, "timeout": "30s"},
				"turns": []any{map[string]any{"user": "What's the weather in Paris and in London?"}},
				"expect": map[string]any{
					"trajectory":     map[string]any{"calls": []any{map[string]any{"name": "get_weather", "args": map[string]any{"city": "Paris"}}, map[string]any{"name": "get_weather", "args": map[string]any{"city": "London"}}}},
					"final":          map[string]any{"contains": []string{"sunny", "rainy"}},
					"max_tool_calls": 2,
					"golden":         true,
					"graders":        []any{map[string]any{"name": "helpful", "judge": map[string]any{"model": "openai:gpt-4.1-mini", "builtin": "helpfulness"}}},
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

			// record
			rec := opts
			rec.Mode, rec.Update = cassette.ModeRecord, true
			rec.Transport = redirect{to: upURL, rt: tr}
			rec.LookupEnv = func(k string) (string, bool) {
				if k == "OPENAI_API_KEY" {
					return realKey, true
				}
				return "", false
			}
			rep := harness.Run(ctx, load(), rec)
			up.Close()
			wantJudged(t, "record", wantStatus(t, "record", rep, report.StatusPass))
			if err := provider.Err(); err != nil {
				t.Errorf("the provider refused requests (the real key did not arrive?):\n%v", err)
			}
			cassettePath := filepath.Join(dir, "cassettes", "weather.yaml")
			raw, err := os.ReadFile(cassettePath)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), realKey) || strings.Contains(string(raw), harness.DummyAPIKey) {
				t.Errorf("the cassette holds a key:\n%s", raw)
			}
			c, err := cassette.Load(cassettePath)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Interactions) != 3 {
				t.Fatalf("the cassette has %d interactions, want 3 (the agent's two, the judge's)", len(c.Interactions))
			}
			for i, in := range c.Interactions {
				if marked := in.Request.Headers.Get(harness.GraderHeader) != ""; marked != (i == 2) {
					t.Errorf("interaction %d: marked as the judge's: %v, want %v", i, marked, i == 2)
				}
			}
			if h := provider.Exchanges()[2].Request.Header.Get(harness.GraderHeader); h != "" {
				t.Errorf("the judge's request reached the provider with %s: %s; it is for the cassette only", harness.GraderHeader, h)
			}
			if got := provider.Exchanges()[0].Response; string(got) != c.Interactions[0].Response.Body {
				t.Errorf("recorded answer differs from the provider's:\n got %q\nwant %q", c.Interactions[0].Response.Body, got)
			}
			if isStream := strings.HasPrefix(c.Interactions[0].Response.Body, "data: "); isStream != stream {
				t.Errorf("recorded answer is a stream: %v, want %v:\n%s", isStream, stream, c.Interactions[0].Response.Body)
			}
			golden, err := os.ReadFile(filepath.Join(dir, "golden", "weather.golden"))
			if err != nil {
				t.Fatal(err)
			}

			// replay, offline: the same transcript
			play := opts
			play.Transport = offline{t}
			rep = harness.Run(ctx, load(), play)
			wantJudged(t, "replay", wantStatus(t, "replay", rep, report.StatusPass))
			again, err := os.ReadFile(filepath.Join(dir, "golden", "weather.golden"))
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(golden) {
				t.Errorf("the replay rewrote the golden transcript")
			}

			// a missing interaction: a clear failure, never a hang (the
			// judge goes, or it would miss too and make it an error)
			c.Interactions = c.Interactions[:1]
			c.Lines = nil
			if err := c.Save(cassettePath, true); err != nil {
				t.Fatal(err)
			}
			delete(doc["expect"].(map[string]any), "graders")
			if data, err = yaml.Marshal(doc); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "scenarios", "weather.yaml"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			rep = harness.Run(ctx, load(), play)
			res := wantStatus(t, "replay of a cassette cut short", rep, report.StatusFail)
			var accepted *report.Expectation
			for i, e := range res.Expectations {
				if e.Name == "invariant: requests accepted" {
					accepted = &res.Expectations[i]
				}
			}
			if accepted == nil || accepted.Passed {
				t.Fatalf("want a failed \"invariant: requests accepted\"; expectations: %+v", res.Expectations)
			}
			for _, want := range []string{
				"invariant: requests accepted: request 2 (POST /v1/chat/completions, model gpt-4.1-mini): replay: no recorded request of cassette " + cassettePath + " matches it",
				"record again: agenteval run --mode record --overwrite ",
			} {
				if !strings.Contains(accepted.Message, want) {
					t.Errorf("the failure does not say\n%s\nit says\n%s", want, accepted.Message)
				}
			}
			for _, want := range []string{
				"closest recorded request: interaction 0 at " + cassettePath,
				"POST https://api.openai.com/v1/chat/completions (already replayed: each interaction answers one request)",
				"body (-recorded +requested):",
				`"tool_call_id": "call_paris"`,
			} {
				if !strings.Contains(accepted.Diff, want) {
					t.Errorf("the failure's detail does not show\n%s\nit shows\n%s", want, accepted.Diff)
				}
			}

			// a model the scenario does not name: the provider's answer
			// to an unknown model (before any cassette lookup), and a
			// failure naming the request
			env["AGENT_MODEL"] = "gpt-4o"
			if data, err = yaml.Marshal(doc); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "scenarios", "weather.yaml"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			rep = harness.Run(ctx, load(), play)
			if len(rep.Scenarios) != 1 || rep.Scenarios[0].Status == report.StatusPass {
				t.Fatalf("a request for gpt-4o in a gpt-4.1-mini scenario: want a failed scenario, got %+v", rep.Scenarios)
			}
			if got, want := failedText(rep.Scenarios[0]), `request 1 (POST /v1/chat/completions, model gpt-4o): unknown model "gpt-4o" (serving gpt-4.1-mini)`; !strings.Contains(got, want) {
				t.Errorf("the failure does not say\n%s\nit says\n%s", want, got)
			}
		})
	}
}

// wantJudged requires the judge "helpful" to have passed with score 1.
func wantJudged(t *testing.T, what string, s report.Scenario) {
	t.Helper()
	for _, e := range s.Expectations {
		if e.Name == "helpful" {
			if !e.Passed || e.Score == nil || *e.Score != 1 {
				t.Errorf("%s: judge %+v, want passed with score 1", what, e)
			}
			return
		}
	}
	t.Errorf("%s: no judge among the expectations %+v", what, s.Expectations)
}

// wantStatus requires the one scenario of rep to have status want and
// returns it.
func wantStatus(t *testing.T, what string, rep *report.Report, want report.Status) report.Scenario {
	t.Helper()
	if len(rep.Scenarios) != 1 {
		t.Fatalf("%s: %d scenarios in the report, want 1", what, len(rep.Scenarios))
	}
	s := rep.Scenarios[0]
	if s.Status != want {
		var failed []string
		for _, e := range s.Expectations {
			if !e.Passed {
				failed = append(failed, e.Message+"\n"+e.Diff)
			}
		}
		t.Fatalf("%s: status %s, want %s: %s\n%s", what, s.Status, want, s.Message, strings.Join(failed, "\n"))
	}
	return s
}

// TestCommandScriptedAgentProviderJudge runs a command agent answered
// from its script with a provider judge: the scenario's cassette then
// holds the judge's call alone, recorded once against a fake provider and
// replayed offline.
func TestCommandScriptedAgentProviderJudge(t *testing.T) {
	defer goleak.VerifyNone(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the command agent of this test is the Python example")
	}
	agent, err := filepath.Abs(pythonAgent)
	if err != nil {
		t.Fatal(err)
	}
	provider, err := serve.New(serve.Options{Source: serve.NewTurns(serve.Turn{Text: `{"reasoning": "It answers.", "score": 0.5}`})})
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(provider)
	upURL, _ := url.Parse(up.URL)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	dir := t.TempDir()
	scenario := `agent: {kind: command, command: [python3, ` + agent + `], timeout: 30s}
script:
  responses:
    - content: ""
      tool_calls: [{name: get_weather, args: {city: Tokyo}, id: call_tokyo}]
    - content: It is cloudy in Tokyo.
turns:
  - user: Weather in Tokyo?
expect:
  graders:
    - name: helpful
      threshold: 0.5
      judge: {model: "openai:gpt-4.1-mini", builtin: helpfulness}
`
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "tokyo.yaml"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, err := harness.LoadDir(filepath.Join(dir, "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	opts := harness.Options{CassetteDir: filepath.Join(dir, "cassettes"), GoldenDir: filepath.Join(dir, "golden")}
	rec := opts
	rec.Mode, rec.Transport = cassette.ModeRecord, redirect{to: upURL, rt: tr}
	rec.LookupEnv = func(k string) (string, bool) {
		if k == "OPENAI_API_KEY" {
			return "sk-proj-judgeKEYabcdefghijklmnopqrstuvwxyz", true
		}
		return "", false
	}
	got := wantStatus(t, "record", harness.Run(context.Background(), ss, rec), report.StatusPass)
	up.Close()
	play := opts
	play.Transport = offline{t}
	again := wantStatus(t, "replay", harness.Run(context.Background(), ss, play), report.StatusPass)
	for _, s := range []report.Scenario{got, again} {
		var judged bool
		for _, e := range s.Expectations {
			if e.Name == "helpful" {
				judged = e.Passed && e.Score != nil && *e.Score == 0.5
			}
		}
		if !judged {
			t.Errorf("judge not passed with 0.5: %+v", s.Expectations)
		}
	}
	c, err := cassette.Load(filepath.Join(dir, "cassettes", "tokyo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interactions) != 1 || c.Interactions[0].Request.Headers.Get(harness.GraderHeader) != "judge" {
		t.Errorf("the cassette holds %d interactions, want the judge's one, marked", len(c.Interactions))
	}
}

// failedText is a result's message and its failed expectations' messages.
func failedText(s report.Scenario) string {
	text := s.Message + "\n"
	for _, e := range s.Expectations {
		if !e.Passed {
			text += e.Message + "\n"
		}
	}
	return text
}
