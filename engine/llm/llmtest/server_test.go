package llmtest_test

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
	"github.com/agenteval/agenteval/engine/llm/llmtest"
)

const key = "sk-test-llmtest-0123456789abcdefghijklmnop"

func noEnv(string) (string, bool) { return "", false }

// script is a tool call (with text before it for Anthropic) and then an
// answer, with usage, under a fixed model name.
func script() []llmtest.Turn {
	return []llmtest.Turn{
		{Model: "fake-model-1", Text: "Checking.", ToolCalls: []llmtest.ToolCall{
			{ID: "call_1", Name: "get_weather", Args: `{"city": "Paris", "days": 2}`},
			{ID: "call_2", Name: "get_time", Args: `{}`},
		}, Usage: llmtest.Usage{Input: 30, Output: 12, CacheRead: 4}},
		{Text: "Sunny, and it is noon — enjoy.", Usage: llmtest.Usage{Input: 60, Output: 8}},
	}
}

// answer is what the model answered, as the fields a test can compare.
type answer struct {
	Text      string
	Calls     []string
	Tokens    [3]int
	ModelName string
}

func summarize(m engine.Message) answer {
	a := answer{Text: m.Text()}
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

// TestServersAnswerTheScript drives both servers through the real
// clients, streamed and not: every variant must read back the same
// answers, so the four renderings of a Turn agree.
func TestServersAnswerTheScript(t *testing.T) {
	tests := []struct {
		reason string
		model  string
		server func(string, ...llmtest.Turn) *llmtest.Server
		base   string
		stream bool
		want   []answer
	}{
		{"OpenAI, one JSON body per answer", "openai:gpt-x", llmtest.NewOpenAI, "/v1", false, []answer{
			{"Checking.", []string{`call_1 get_weather {"city":"Paris","days":2}`, `call_2 get_time {}`}, [3]int{30, 12, 42}, "fake-model-1"},
			{"Sunny, and it is noon — enjoy.", nil, [3]int{60, 8, 68}, "gpt-x"}}},
		{"OpenAI, streamed: text and arguments arrive in pieces", "openai:gpt-x", llmtest.NewOpenAI, "/v1", true, []answer{
			{"Checking.", []string{`call_1 get_weather {"city":"Paris","days":2}`, `call_2 get_time {}`}, [3]int{30, 12, 42}, "fake-model-1"},
			{"Sunny, and it is noon — enjoy.", nil, [3]int{60, 8, 68}, "gpt-x"}}},
		{"Anthropic: cache reads count as input besides input_tokens", "anthropic:claude-x", llmtest.NewAnthropic, "", false, []answer{
			{"Checking.", []string{`call_1 get_weather {"city":"Paris","days":2}`, `call_2 get_time {}`}, [3]int{34, 12, 46}, "fake-model-1"},
			{"Sunny, and it is noon — enjoy.", nil, [3]int{60, 8, 68}, "claude-x"}}},
		{"Anthropic, streamed", "anthropic:claude-x", llmtest.NewAnthropic, "", true, []answer{
			{"Checking.", []string{`call_1 get_weather {"city":"Paris","days":2}`, `call_2 get_time {}`}, [3]int{34, 12, 46}, "fake-model-1"},
			{"Sunny, and it is noon — enjoy.", nil, [3]int{60, 8, 68}, "claude-x"}}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			srv := tc.server(key, script()...)
			ts := httptest.NewServer(srv)
			defer ts.Close()
			zero := 0
			model, err := llm.New(tc.model, llm.Options{APIKey: key, BaseURL: ts.URL + tc.base, LookupEnv: noEnv, Stream: tc.stream, MaxRetries: &zero})
			if err != nil {
				t.Fatal(err)
			}
			var got []answer
			msgs := []engine.Message{engine.HumanMessage("weather and time?")}
			for range tc.want {
				m, err := model.Generate(context.Background(), engine.ModelRequest{Messages: msgs})
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
			if err := srv.Err(); err != nil {
				t.Errorf("Err() = %v, want nil", err)
			}
			if n := srv.Remaining(); n != 0 {
				t.Errorf("Remaining() = %d, want 0", n)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || reqs[0].Stream != tc.stream || reqs[1].N != 2 {
				t.Errorf("Requests() = %d requests (first streamed: %v), want 2 numbered in order", len(reqs), len(reqs) > 0 && reqs[0].Stream)
			}
		})
	}
}

// TestServerChecks shows what a server refuses, and that a refused
// request keeps its turn for the next one.
func TestServerChecks(t *testing.T) {
	srv := llmtest.NewOpenAI(key,
		llmtest.Turn{Text: "first", Check: func(r llmtest.Request) error {
			if len(r.Messages()) != 1 {
				return fmt.Errorf("want 1 message, got %d", len(r.Messages()))
			}
			return nil
		}},
	)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	post := func(path, auth, body string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		resp, err := http.DefaultClient.Do(req)
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
		{"unknown route", "/v1/embeddings", key, `{}`, 404},
		{"no key", "/v1/chat/completions", "", `{"model":"m","messages":[]}`, 401},
		{"wrong key", "/v1/chat/completions", "sk-wrong", `{"model":"m","messages":[]}`, 401},
		{"body not JSON", "/v1/chat/completions", key, `model=m`, 400},
		{"no messages", "/v1/chat/completions", key, `{"model":"m"}`, 400},
		{"the turn's check refuses two messages", "/v1/chat/completions", key, `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`, 400},
		{"the turn, still unused, answers", "/v1/chat/completions", key, `{"model":"m","messages":[{"role":"user","content":"a"}]}`, 200},
		{"the script is used up", "/v1/chat/completions", key, `{"model":"m","messages":[{"role":"user","content":"a"}]}`, 500},
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
	if got := len(srv.Requests()); got != 5 {
		t.Errorf("Requests() kept %d, want 5 (those that reached the body check)", got)
	}
}

func ExampleNewOpenAI() {
	srv := llmtest.NewOpenAI("sk-test-key",
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "get_weather", Args: `{"city": "Paris"}`}}, Usage: llmtest.Usage{Input: 50, Output: 20}},
		llmtest.Turn{Text: "It is sunny in Paris.", Usage: llmtest.Usage{Input: 90, Output: 9}},
	)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	model, _ := llm.New("openai:gpt-4.1-mini", llm.Options{APIKey: "sk-test-key", BaseURL: ts.URL + "/v1", LookupEnv: noEnv})
	m, err := model.Generate(context.Background(), engine.ModelRequest{Messages: []engine.Message{engine.HumanMessage("weather in Paris?")}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.ToolCalls[0].Name, m.UsageMetadata.TotalTokens, srv.Remaining())
	// Output: get_weather 70 1
}
