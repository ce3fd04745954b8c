package serve_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/serve"
)

func noEnv(string) (string, bool) { return "", false }

// turns is a tool call (with text before it) and then an answer, with
// usage, under a fixed model name.
func turns() []serve.Turn {
	return []serve.Turn{
		{Model: "fake-model-1", Text: "Checking.", ToolCalls: []serve.ToolCall{
			{ID: "call_1", Name: "get_weather", Args: `{"city": "Paris", "days": 2}`},
			{ID: "call_2", Name: "get_time", Args: `{}`},
		}, Usage: serve.Usage{Input: 30, Output: 12, CacheRead: 4}},
		{Text: "Sunny, and it is noon — enjoy.", Usage: serve.Usage{Input: 60, Output: 8}},
	}
}

// engineAnswer is what engine/llm's client read, as comparable fields.
type engineAnswer struct {
	Text      string
	Calls     []string
	Tokens    [3]int
	ModelName string
}

func summarize(m engine.Message) engineAnswer {
	a := engineAnswer{Text: m.Text()}
	for _, c := range m.ToolCalls {
		args, _ := engine.MarshalValue(c.Args)
		a.Calls = append(a.Calls, c.ID+" "+c.Name+" "+string(args))
	}
	if u := m.UsageMetadata; u != nil {
		a.Tokens = [3]int{u.InputTokens, u.OutputTokens, u.TotalTokens}
	}
	if md := m.ResponseMetadata; md != nil {
		n, _ := md.Get("model_name")
		a.ModelName, _ = n.(string)
	}
	return a
}

// TestTurnsThroughEngineClients drives the turns through engine/llm's
// provider clients, streamed and not: every variant must read back the
// same answers, so the renderings of a Turn agree.
func TestTurnsThroughEngineClients(t *testing.T) {
	calls := []string{`call_1 get_weather {"city":"Paris","days":2}`, `call_2 get_time {}`}
	tests := []struct {
		reason string
		model  string
		base   string
		stream bool
		want   []engineAnswer
	}{
		{"OpenAI, one JSON body per answer", "openai:gpt-x", "/v1", false, []engineAnswer{
			{"Checking.", calls, [3]int{30, 12, 42}, "fake-model-1"},
			{"Sunny, and it is noon — enjoy.", nil, [3]int{60, 8, 68}, "gpt-x"}}},
		{"OpenAI, streamed: text and arguments arrive in pieces", "openai:gpt-x", "/v1", true, []engineAnswer{
			{"Checking.", calls, [3]int{30, 12, 42}, "fake-model-1"},
			{"Sunny, and it is noon — enjoy.", nil, [3]int{60, 8, 68}, "gpt-x"}}},
		{"Anthropic: cache reads count as input besides input_tokens", "anthropic:claude-x", "", false, []engineAnswer{
			{"Checking.", calls, [3]int{34, 12, 46}, "fake-model-1"},
			{"Sunny, and it is noon — enjoy.", nil, [3]int{60, 8, 68}, "claude-x"}}},
		{"Anthropic, streamed", "anthropic:claude-x", "", true, []engineAnswer{
			{"Checking.", calls, [3]int{34, 12, 46}, "fake-model-1"},
			{"Sunny, and it is noon — enjoy.", nil, [3]int{60, 8, 68}, "claude-x"}}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			src := serve.NewTurns(turns()...)
			srv, ts := start(t, serve.Options{Source: src, Key: testKey}, false)
			zero := 0
			model, err := llm.New(tc.model, llm.Options{APIKey: testKey, BaseURL: ts.URL + tc.base, LookupEnv: noEnv, Stream: tc.stream, MaxRetries: &zero})
			if err != nil {
				t.Fatal(err)
			}
			var got []engineAnswer
			msgs := []engine.Message{engine.HumanMessage("weather and time?")}
			for range tc.want {
				m, err := model.Generate(context.Background(), engine.ModelRequest{Messages: engine.NewMessageList(msgs...)})
				if err != nil {
					t.Fatalf("Generate: %v", err)
				}
				got = append(got, summarize(m))
				msgs = append(msgs, m)
				for _, c := range m.ToolCalls {
					msgs = append(msgs, engine.Message{Type: engine.TypeTool, Content: engine.Text("ok"), ToolCallID: c.ID, Name: c.Name})
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answers mismatch (-want +got):\n%s", diff)
			}
			if n := src.Remaining(); n != 0 {
				t.Errorf("Remaining() = %d, want 0", n)
			}
			xs := srv.Exchanges()
			if len(xs) != 2 || xs[0].Request.Stream != tc.stream || xs[1].N != 2 {
				t.Errorf("Exchanges() = %d exchanges, want 2 numbered in order, streamed %v", len(xs), tc.stream)
			}
			if v := serve.CheckClient(xs); len(v) > 0 {
				t.Errorf("CheckClient = %v, want none", v)
			}
		})
	}
}

// TestTurnsChecks shows what a server refuses, and that a refused
// request keeps its turn for the next one.
func TestTurnsChecks(t *testing.T) {
	src := serve.NewTurns(serve.Turn{Text: "first", Check: func(r *serve.Request) error {
		if len(r.Messages) != 1 {
			return fmt.Errorf("want 1 message, got %d", len(r.Messages))
		}
		return nil
	}})
	srv, ts := start(t, serve.Options{Source: src, Key: testKey}, true)
	post := func(path, auth, body string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if d, ok := resp.Header["Date"]; ok {
			t.Errorf("%s: answer has a Date header %q: recordings would depend on the clock", path, d)
		}
		return resp.StatusCode
	}
	tests := []struct {
		reason     string
		path, auth string
		body       string
		want       int
	}{
		{"unknown route", "/v1/embeddings", testKey, `{}`, 404},
		{"no key", "/v1/chat/completions", "", `{"model":"m","messages":[]}`, 401},
		{"wrong key", "/v1/chat/completions", "sk-wrong", `{"model":"m","messages":[]}`, 401},
		{"body not JSON", "/v1/chat/completions", testKey, `model=m`, 400},
		{"no messages", "/v1/chat/completions", testKey, `{"model":"m"}`, 400},
		{"the turn's check refuses two messages", "/v1/chat/completions", testKey, `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`, 400},
		{"the turn, still unused, answers", "/v1/chat/completions", testKey, `{"model":"m","messages":[{"role":"user","content":"a"}]}`, 200},
		{"the script is used up", "/v1/chat/completions", testKey, `{"model":"m","messages":[{"role":"user","content":"a"}]}`, 400},
	}
	for _, tc := range tests {
		if got := post(tc.path, tc.auth, tc.body); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.reason, got, tc.want)
		}
	}
	err := srv.Err()
	if err == nil {
		t.Fatal("Err() = nil, want the refused requests")
	}
	if got := strings.Count(err.Error(), "\n") + 1; got != 7 {
		t.Errorf("Err() has %d problems, want 7 (all but the answered request):\n%v", got, err)
	}
	if got := len(srv.Exchanges()); got != 5 {
		t.Errorf("Exchanges() kept %d, want 5 (those that reached the body check)", got)
	}
}

func ExampleNewTurns() {
	src := serve.NewTurns(
		serve.Turn{ToolCalls: []serve.ToolCall{{ID: "call_1", Name: "get_weather", Args: `{"city": "Paris"}`}}, Usage: serve.Usage{Input: 50, Output: 20}},
		serve.Turn{Text: "It is sunny in Paris.", Usage: serve.Usage{Input: 90, Output: 9}},
	)
	srv, _ := serve.New(serve.Options{Source: src, Key: "sk-test-key"})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	model, _ := llm.New("openai:gpt-4.1-mini", llm.Options{APIKey: "sk-test-key", BaseURL: ts.URL + "/v1", LookupEnv: noEnv})
	m, err := model.Generate(context.Background(), engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("weather in Paris?"))})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.ToolCalls[0].Name, m.UsageMetadata.TotalTokens, src.Remaining())
	// Output: get_weather 70 1
}
