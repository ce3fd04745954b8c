package llm_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

func noEnv(string) (string, bool) { return "", false }

var weatherTool = engine.NewTool(engine.ToolDef{
	Name:        "get_weather",
	Description: "Get the weather for a city.",
	Parameters: engine.NewObject("type", "object",
		"properties", engine.NewObject("city", engine.NewObject("type", "string")),
		"required", []any{"city"}),
}, func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
	city, _ := inv.Args().Get("city")
	if city == "Paris" {
		return "sunny", nil
	}
	return "rainy", nil
})

// runAgent runs a ReAct agent with the weather tool over model and
// returns its transcript: one LangChain message dict per line, then the
// error if the run failed.
func runAgent(t *testing.T, model engine.ChatModel, question string) string {
	t.Helper()
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{weatherTool}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := agent.Invoke(context.Background(), engine.State{"messages": []any{question}}, engine.Config{})
	var b strings.Builder
	if res != nil {
		msgs, _ := engine.MessagesFromValue(res.Values["messages"])
		for _, m := range msgs {
			line, merr := engine.MarshalValue(m.ToValue())
			if merr != nil {
				t.Fatal(merr)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	return b.String()
}

func fixedClock() func() time.Time {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	return func() time.Time { n++; return t0.Add(time.Duration(n) * 100 * time.Millisecond) }
}

// TestRecordReplayRoundTrip records an agent run against a local server
// speaking each wire format — parallel tool calls, streamed and not, and
// an error status — then replays it with the network unreachable. The
// transcripts must be byte-identical and the cassette must not hold the
// key the recording run sent.
func TestRecordReplayRoundTrip(t *testing.T) {
	zero := 0
	tests := []struct {
		name     string
		model    string
		key      string
		server   func(*testing.T, string) *fakeServer
		base     func(*fakeServer) string
		stream   bool
		question string
		want     []string
	}{
		{"openai", "openai:gpt-test", testKey, newOpenAIServer, func(f *fakeServer) string { return f.URL + "/v1" }, false, "weather in Paris and London?",
			[]string{`"tool_calls":[{"name":"get_weather","args":{"city":"Paris"},"id":"call_a"},{"name":"get_weather","args":{"city":"London"},"id":"call_b"}]`, `"content":"Paris is sunny; London is rainy."`}},
		{"openai streamed", "openai:gpt-test", testKey, newOpenAIServer, func(f *fakeServer) string { return f.URL + "/v1" }, true, "weather in Paris and London?",
			[]string{`"args":{"city":"Paris"},"id":"call_a"`, `"content":"Paris is sunny; London is rainy."`}},
		{"openai error status", "openai:gpt-test", testKey, newOpenAIServer, func(f *fakeServer) string { return f.URL + "/v1" }, false, "please fail",
			[]string{`error: step 1: node "agent": model "openai:gpt-test": 429 Too Many Requests: rate_limit_exceeded: Rate limit reached for gpt-test`}},
		{"openai-compatible streamed", "openai-compatible:local-model", "", newOpenAIServer, func(f *fakeServer) string { return f.URL + "/v1" }, true, "weather in Paris and London?",
			nil},
		{"anthropic", "anthropic:claude-test", testAnthropicKey, newAnthropicServer, func(f *fakeServer) string { return f.URL }, false, "weather in Paris and London?",
			[]string{`{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{"city":"Paris"},"caller":{"type":"direct"}}`, `"content":"Paris is sunny; London is rainy."`}},
		{"anthropic streamed", "anthropic:claude-test", testAnthropicKey, newAnthropicServer, func(f *fakeServer) string { return f.URL }, true, "weather in Paris and London?",
			[]string{`"args":{"city":"London"},"id":"toolu_b"`, `"usage_metadata":{"input_tokens":50,"output_tokens":30,"total_tokens":80,"input_token_details":{"cache_read":10}}`}},
		{"anthropic error status", "anthropic:claude-test", testAnthropicKey, newAnthropicServer, func(f *fakeServer) string { return f.URL }, false, "please fail",
			[]string{`error: step 1: node "agent": model "anthropic:claude-test": 529: overloaded_error: Overloaded`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.server(t, tc.question)
			key := tc.key
			if tc.name == "openai-compatible streamed" {
				key = testKey // the fake server insists on it
			}
			path := filepath.Join(t.TempDir(), "cassettes", strings.ReplaceAll(tc.name, " ", "_")+".yaml")

			rec, err := cassette.Open(path, cassette.Options{Mode: cassette.ModeRecord, Scenario: tc.name, Now: fixedClock()})
			if err != nil {
				t.Fatal(err)
			}
			live, err := llm.New(tc.model, llm.Options{HTTPClient: rec.Client(), APIKey: key, BaseURL: tc.base(srv), LookupEnv: noEnv, Stream: tc.stream, MaxRetries: &zero})
			if err != nil {
				t.Fatal(err)
			}
			recorded := runAgent(t, live, tc.question)
			if err := rec.Stop(); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(recorded, w) {
					t.Errorf("recorded transcript lacks %s:\n%s", w, recorded)
				}
			}
			if len(srv.Bodies()) == 0 {
				t.Fatal("the server saw no request")
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), key) || !strings.Contains(string(data), cassette.Redacted) {
				t.Errorf("cassette holds the key or no redaction:\n%s", data)
			}

			rep, err := cassette.Open(path, cassette.Options{Scenario: tc.name, Transport: dialGuard{t}})
			if err != nil {
				t.Fatal(err)
			}
			base := ""
			if strings.HasPrefix(tc.model, "openai-compatible:") {
				base = "http://replay.invalid/v1"
			}
			replaying, err := llm.New(tc.model, llm.Options{HTTPClient: rep.Client(), Replay: true, BaseURL: base, LookupEnv: noEnv, Stream: tc.stream})
			if err != nil {
				t.Fatal(err)
			}
			replayed := runAgent(t, replaying, tc.question)
			if recorded != replayed {
				t.Errorf("replayed transcript differs from the recording:\nrecorded:\n%s\nreplayed:\n%s", recorded, replayed)
			}
			if u := rep.Unused(); len(u) > 0 {
				t.Errorf("interactions never replayed: %v", u)
			}
		})
	}
}

// TestReplayMissThroughProvider shows what a changed prompt looks like
// in replay: the provider's error carries the cassette's miss report.
func TestReplayMissThroughProvider(t *testing.T) {
	srv := newOpenAIServer(t, "weather in Paris and London?")
	path := filepath.Join(t.TempDir(), "weather.yaml")
	rec, err := cassette.Open(path, cassette.Options{Mode: cassette.ModeRecord, Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	live, _ := llm.New("openai:gpt-test", llm.Options{HTTPClient: rec.Client(), APIKey: testKey, BaseURL: srv.URL + "/v1", LookupEnv: noEnv})
	runAgent(t, live, "weather in Paris and London?")
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	rep, err := cassette.Open(path, cassette.Options{Scenario: "weather", Transport: dialGuard{t}})
	if err != nil {
		t.Fatal(err)
	}
	replaying, _ := llm.New("openai:gpt-test", llm.Options{HTTPClient: rep.Client(), Replay: true, LookupEnv: noEnv})
	_, err = replaying.Generate(context.Background(), engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("weather in Rome?"))})
	var miss *cassette.MissError
	if !errorsAs(err, &miss) {
		t.Fatalf("err = %v, want a *cassette.MissError inside", err)
	}
	msg := err.Error()
	for _, want := range []string{`scenario "weather"`, path, "closest recorded request: interaction 0", "- ", "weather in Paris and London?", "+ ", "weather in Rome?"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}
