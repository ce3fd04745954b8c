package llm_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

// capture is a transport that keeps the request body and answers with a
// fixed response.
type capture struct {
	body   string
	answer string
}

func (c *capture) RoundTrip(req *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(req.Body)
	req.Body.Close()
	c.body = string(b)
	return &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(c.answer)), Request: req}, nil
}

const (
	openaiAnswer    = `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`
	anthropicAnswer = `{"id":"x","type":"message","role":"assistant","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn"}`
)

// sameJSON compares two JSON bodies exactly but for key order.
func sameJSON(t *testing.T, want, got string) {
	t.Helper()
	w, err := engine.DecodeJSON([]byte(want))
	if err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	g, err := engine.DecodeJSON([]byte(got))
	if err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	if !engine.ValueEqual(w, g) {
		cw, _ := cassette.CanonicalBody(want, nil)
		cg, _ := cassette.CanonicalBody(got, nil)
		t.Errorf("request body mismatch (-want +got):\n%s\nraw: %s", cmp.Diff(cw, cg), got)
	}
}

var (
	pTrue, pFalse = ptr(true), ptr(false)
	cityTool      = engine.ToolSchema{Name: "get_weather", Description: "Weather for a city.", Parameters: engine.NewObject("type", "object", "properties", engine.NewObject("city", engine.NewObject("type", "string")), "required", []any{"city"})}
	cityToolJSON  = `{"type":"function","function":{"name":"get_weather","description":"Weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}`
	parisCall     = engine.ToolCall{Name: "get_weather", Args: engine.NewObject("city", "Paris", "days", n(2)), ID: "call_1"}
)

func ptr[T any](v T) *T { return &v }

func TestOpenAIRequestBody(t *testing.T) {
	tests := []struct {
		reason string
		req    engine.ModelRequest
		want   string
	}{
		{"plain chat: system and user strings",
			engine.ModelRequest{Messages: engine.NewMessageList(engine.SystemMessage("Be brief."), engine.HumanMessage("hi"))},
			`{"model":"gpt-test","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}]}`},
		{"tools, auto choice and parallel calls off",
			engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("hi")), Tools: []engine.ToolSchema{cityTool}, ToolChoice: "auto", ParallelToolCalls: pFalse},
			`{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"tools":[` + cityToolJSON + `],"tool_choice":"auto","parallel_tool_calls":false}`},
		{"tool_choice any is required (LangChain's mapping)",
			engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("hi")), Tools: []engine.ToolSchema{cityTool}, ToolChoice: "any", ParallelToolCalls: pTrue},
			`{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"tools":[` + cityToolJSON + `],"tool_choice":"required","parallel_tool_calls":true}`},
		{"a tool name is a named choice",
			engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("hi")), Tools: []engine.ToolSchema{cityTool}, ToolChoice: "get_weather"},
			`{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"tools":[` + cityToolJSON + `],"tool_choice":{"type":"function","function":{"name":"get_weather"}}}`},
		{"assistant tool calls carry arguments as json.dumps text; invalid ones their raw text; tool messages answer them",
			engine.ModelRequest{Messages: engine.NewMessageList(
				engine.HumanMessage("hi"),
				engine.Message{Type: engine.TypeAI, Content: engine.Text(""), ToolCalls: []engine.ToolCall{parisCall}, InvalidToolCalls: []engine.InvalidToolCall{{Name: "get_weather", Args: "{bad", ID: "call_2"}}},
				engine.ToolMessage(engine.Text("sunny"), "get_weather", "call_1"),
				engine.Message{Type: engine.TypeTool, Content: engine.Text("bad args"), ToolCallID: "call_2", Status: engine.StatusError},
			)},
			`{"model":"gpt-test","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[` +
				`{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\", \"days\": 2}"}},` +
				`{"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{bad"}}]},` +
				`{"role":"tool","tool_call_id":"call_1","content":"sunny"},{"role":"tool","tool_call_id":"call_2","content":"bad args"}]}`},
		{"list content passes through as blocks; names are sent",
			engine.ModelRequest{Messages: engine.NewMessageList(engine.Message{Type: engine.TypeHuman, Name: "ann", Content: engine.Blocks(engine.NewObject("type", "text", "text", "look"), engine.NewObject("type", "image_url", "image_url", engine.NewObject("url", "https://x/y.png")))})},
			`{"model":"gpt-test","messages":[{"role":"user","name":"ann","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}]}`},
		{"response_format json_schema and other options go through as they are",
			engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("hi")),
				ResponseFormat: engine.NewObject("type", "json_schema", "json_schema", engine.NewObject("name", "City", "schema", engine.NewObject("type", "object"))),
				Options:        engine.NewObject("temperature", n(0), "max_tokens", n(100), "user", "u1")},
			`{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"City","schema":{"type":"object"}}},"temperature":0,"max_tokens":100,"user":"u1"}`},
		{"stream option streams and asks for usage",
			engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("hi")), Options: engine.NewObject("stream", true)},
			`{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			tr := &capture{answer: openaiAnswer}
			if v, _ := tc.req.Options.Get("stream"); v == true {
				tr.answer = "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\ndata: [DONE]\n\n"
			}
			m, err := llm.NewOpenAI(llm.OpenAIConfig{Model: "gpt-test", HTTPClient: &http.Client{Transport: tr}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Generate(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text() != "ok" {
				t.Errorf("answer = %q, want ok", got.Text())
			}
			sameJSON(t, tc.want, tr.body)
		})
	}
}

func TestAnthropicRequestBody(t *testing.T) {
	tests := []struct {
		reason string
		req    engine.ModelRequest
		want   string
	}{
		{"system prompt as a string, max_tokens from the config",
			engine.ModelRequest{Messages: engine.NewMessageList(engine.SystemMessage("Be brief."), engine.HumanMessage("hi"))},
			`{"model":"claude-test","max_tokens":1024,"system":"Be brief.","messages":[{"role":"user","content":"hi"}]}`},
		{"tools; any is {type: any}; parallel off disables parallel tool use; max_tokens from the request",
			engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("hi")), Tools: []engine.ToolSchema{cityTool}, ToolChoice: "any", ParallelToolCalls: pFalse, Options: engine.NewObject("max_tokens", n(50), "temperature", n(0))},
			`{"model":"claude-test","max_tokens":50,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"get_weather","description":"Weather for a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],"tool_choice":{"type":"any","disable_parallel_tool_use":true},"temperature":0}`},
		{"parallel off alone is auto with parallel use disabled; a tool name is {type: tool}",
			engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("hi")), Tools: []engine.ToolSchema{cityTool}, ToolChoice: "get_weather"},
			`{"model":"claude-test","max_tokens":1024,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"get_weather","description":"Weather for a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],"tool_choice":{"type":"tool","name":"get_weather"}}`},
		{"tool calls are tool_use blocks; parallel results merge into one user turn; an error result has is_error",
			engine.ModelRequest{Messages: engine.NewMessageList(
				engine.HumanMessage("hi"),
				engine.AIMessage("Checking.", parisCall, engine.ToolCall{Name: "get_weather", Args: engine.NewObject("city", "Rome"), ID: "call_2"}),
				engine.ToolMessage(engine.Text("sunny"), "get_weather", "call_1"),
				engine.Message{Type: engine.TypeTool, Content: engine.Text("no such city"), ToolCallID: "call_2", Status: engine.StatusError},
				engine.HumanMessage("thanks"),
			)},
			`{"model":"claude-test","max_tokens":1024,"messages":[{"role":"user","content":"hi"},` +
				`{"role":"assistant","content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris","days":2}},{"type":"tool_use","id":"call_2","name":"get_weather","input":{"city":"Rome"}}]},` +
				`{"role":"user","content":[{"type":"tool_result","content":"sunny","tool_use_id":"call_1"},{"type":"tool_result","content":"no such city","tool_use_id":"call_2","is_error":true},{"type":"text","text":"thanks"}]}]}`},
		{"an answer's own tool_use blocks are rebuilt from its tool calls, thinking blocks kept",
			engine.ModelRequest{Messages: engine.NewMessageList(
				engine.HumanMessage("hi"),
				engine.Message{Type: engine.TypeAI, Content: engine.Blocks(engine.NewObject("type", "thinking", "thinking", "hmm", "signature", "sig"), engine.NewObject("type", "text", "text", ""), engine.NewObject("type", "tool_use", "id", "call_1", "name", "get_weather", "input", engine.NewObject())), ToolCalls: []engine.ToolCall{parisCall}},
				engine.ToolMessage(engine.Blocks(engine.NewObject("type", "text", "text", "sunny")), "get_weather", "call_1"),
			)},
			`{"model":"claude-test","max_tokens":1024,"messages":[{"role":"user","content":"hi"},` +
				`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris","days":2}}]},` +
				`{"role":"user","content":[{"type":"tool_result","content":[{"type":"text","text":"sunny"}],"tool_use_id":"call_1"}]}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			tr := &capture{answer: anthropicAnswer}
			m, err := llm.NewAnthropic(llm.AnthropicConfig{Model: "claude-test", HTTPClient: &http.Client{Transport: tr}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Generate(context.Background(), tc.req); err != nil {
				t.Fatal(err)
			}
			sameJSON(t, tc.want, tr.body)
		})
	}
}

func TestRequestErrors(t *testing.T) {
	oa, _ := llm.NewOpenAI(llm.OpenAIConfig{Model: "m", HTTPClient: &http.Client{Transport: &capture{answer: openaiAnswer}}})
	an, _ := llm.NewAnthropic(llm.AnthropicConfig{Model: "m", HTTPClient: &http.Client{Transport: &capture{answer: anthropicAnswer}}})
	tests := []struct {
		reason string
		model  engine.ChatModel
		req    engine.ModelRequest
		want   string
	}{
		{"an option may not override the messages", oa, engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("x")), Options: engine.NewObject("messages", []any{})}, `model "openai:m": option "messages" is set from the request itself`},
		{"stream must be a boolean", oa, engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("x")), Options: engine.NewObject("stream", "yes")}, "option stream must be a boolean"},
		{"a system message mid-conversation has nowhere to go in Anthropic's API", an, engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("x"), engine.SystemMessage("late"))}, "messages[1]: a system message after the conversation started"},
		{"Anthropic has no response_format", an, engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("x")), ResponseFormat: engine.NewObject("type", "json_schema")}, "response_format is not supported"},
		{"max_tokens must be a positive integer", an, engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("x")), Options: engine.NewObject("max_tokens", "lots")}, "option max_tokens must be a positive integer"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			_, err := tc.model.Generate(context.Background(), tc.req)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Generate = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
