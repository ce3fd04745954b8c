package llm_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
)

// The fake servers below speak just enough of each wire format for an
// agent to call get_weather twice in parallel and answer: turn 1 (no tool
// results yet) returns two tool calls, turn 2 (both results present)
// returns text. A user message containing "fail" gets an error status.
// Each checks the API key and the shape of what it receives, and keeps
// the bodies it saw.

const testKey = "sk-proj-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"
const testAnthropicKey = "sk-ant-api03-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"

type fakeServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []*engine.Object
}

func (f *fakeServer) Bodies() []*engine.Object {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*engine.Object(nil), f.bodies...)
}

func readBody(f *fakeServer, w http.ResponseWriter, r *http.Request) (*engine.Object, bool) {
	raw, _ := io.ReadAll(r.Body)
	v, err := engine.DecodeJSON(raw)
	if err != nil {
		http.Error(w, `{"error":{"message":"body is not JSON","type":"invalid_request_error"}}`, 400)
		return nil, false
	}
	o := v.(*engine.Object)
	f.mu.Lock()
	f.bodies = append(f.bodies, o)
	f.mu.Unlock()
	return o, true
}

func fail(w http.ResponseWriter, code int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	w.Write(b)
}

func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprint(w, e, "\n\n")
	}
}

func field(o *engine.Object, path ...string) any {
	var v any = o
	for _, p := range path {
		oo, ok := v.(*engine.Object)
		if !ok {
			return nil
		}
		v, _ = oo.Get(p)
	}
	return v
}

// newOpenAIServer serves /v1/chat/completions.
func newOpenAIServer(t *testing.T) *fakeServer {
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			fail(w, 404, "not_found", "no route "+r.URL.Path)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			fail(w, 401, "invalid_api_key", "Incorrect API key provided")
			return
		}
		body, ok := readBody(f, w, r)
		if !ok {
			return
		}
		msgs, _ := field(body, "messages").([]any)
		var tools int
		var question string
		for _, m := range msgs {
			switch field(m.(*engine.Object), "role") {
			case "tool":
				tools++
			case "user":
				question, _ = field(m.(*engine.Object), "content").(string)
			}
		}
		if strings.Contains(question, "fail") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(429)
			io.WriteString(w, `{"error":{"message":"Rate limit reached for gpt-test","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
			return
		}
		stream := field(body, "stream") == true
		switch {
		case tools == 0 && !stream:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-test-2026","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[`+
				`{"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}},`+
				`{"id":"call_b","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"London\"}"}}]},"finish_reason":"tool_calls"}],`+
				`"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}`)
		case tools == 0:
			c := `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-test-2026","choices":[%s],"usage":null}`
			sse(w,
				fmt.Sprintf(c, `{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}`),
				fmt.Sprintf(c, `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}`),
				fmt.Sprintf(c, `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \"Paris\"}"}}]},"finish_reason":null}`),
				fmt.Sprintf(c, `{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"London\"}"}}]},"finish_reason":null}`),
				fmt.Sprintf(c, `{"index":0,"delta":{},"finish_reason":"tool_calls"}`),
				`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-test-2026","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}`,
				`data: [DONE]`)
		case tools != 2:
			fail(w, 400, "invalid_request_error", fmt.Sprintf("want 2 tool messages, got %d", tools))
		case !stream:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"chatcmpl-2","object":"chat.completion","model":"gpt-test-2026","choices":[{"index":0,"message":{"role":"assistant","content":"Paris is sunny; London is rainy."},"finish_reason":"stop"}],"usage":{"prompt_tokens":90,"completion_tokens":9,"total_tokens":99}}`)
		default:
			c := `data: {"id":"chatcmpl-2","object":"chat.completion.chunk","model":"gpt-test-2026","choices":[%s]}`
			sse(w,
				fmt.Sprintf(c, `{"index":0,"delta":{"role":"assistant","content":"Paris is sunny; "},"finish_reason":null}`),
				fmt.Sprintf(c, `{"index":0,"delta":{"content":"London is rainy."},"finish_reason":null}`),
				fmt.Sprintf(c, `{"index":0,"delta":{},"finish_reason":"stop"}`),
				`data: {"id":"chatcmpl-2","object":"chat.completion.chunk","model":"gpt-test-2026","choices":[],"usage":{"prompt_tokens":90,"completion_tokens":9,"total_tokens":99}}`,
				`data: [DONE]`)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

// newAnthropicServer serves /v1/messages.
func newAnthropicServer(t *testing.T) *fakeServer {
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/messages" {
			fail(w, 404, "not_found_error", "no route "+r.URL.Path)
			return
		}
		if r.Header.Get("X-Api-Key") != testAnthropicKey || r.Header.Get("Anthropic-Version") == "" {
			fail(w, 401, "authentication_error", "invalid x-api-key")
			return
		}
		body, ok := readBody(f, w, r)
		if !ok {
			return
		}
		msgs, _ := field(body, "messages").([]any)
		results, question := 0, ""
		for _, m := range msgs {
			mo := m.(*engine.Object)
			switch c := field(mo, "content").(type) {
			case string:
				question = c
			case []any:
				for _, b := range c {
					if field(b.(*engine.Object), "type") == "tool_result" {
						results++
					}
				}
			}
		}
		if strings.Contains(question, "fail") {
			fail(w, 529, "overloaded_error", "Overloaded")
			return
		}
		stream := field(body, "stream") == true
		usage1 := `{"input_tokens":40,"cache_read_input_tokens":10,"output_tokens":30}`
		switch {
		case results == 0 && !stream:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test-2026","content":[`+
				`{"type":"text","text":"Let me check both."},`+
				`{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{"city":"Paris"}},`+
				`{"type":"tool_use","id":"toolu_b","name":"get_weather","input":{"city":"London"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":`+usage1+`}`)
		case results == 0:
			sse(w,
				"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test-2026\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":40,\"cache_read_input_tokens\":10,\"output_tokens\":1}}}",
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
				"event: ping\ndata: {\"type\": \"ping\"}",
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me check both.\"}}",
				"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}",
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_a\",\"name\":\"get_weather\",\"input\":{}}}",
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \"}}",
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"Paris\\\"}\"}}",
				"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}",
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_b\",\"name\":\"get_weather\",\"input\":{}}}",
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \\\"London\\\"}\"}}",
				"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}",
				"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":30}}",
				"event: message_stop\ndata: {\"type\":\"message_stop\"}")
		case results != 2 || len(msgs) != 3:
			fail(w, 400, "invalid_request_error", fmt.Sprintf("want 2 tool results in one user turn after the assistant turn, got %d results in %d turns", results, len(msgs)))
		case !stream:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"msg_2","type":"message","role":"assistant","model":"claude-test-2026","content":[{"type":"text","text":"Paris is sunny; London is rainy."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":80,"output_tokens":9}}`)
		default:
			sse(w,
				"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test-2026\",\"content\":[],\"usage\":{\"input_tokens\":80,\"output_tokens\":1}}}",
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Paris is sunny; \"}}",
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"London is rainy.\"}}",
				"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}",
				"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":9}}",
				"event: message_stop\ndata: {\"type\":\"message_stop\"}")
		}
	}))
	t.Cleanup(f.Close)
	return f
}
