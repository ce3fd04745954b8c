package serve_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/serve"
)

// FuzzServeRequest feeds arbitrary bodies to each protocol's endpoint.
// Whatever the body, the server answers (never panics, never hangs)
// with 200 and an answer, or a 4xx in the protocol's error layout.
func FuzzServeRequest(f *testing.F) {
	seeds := []struct {
		path, body string
	}{
		{"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`},
		{"/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`},
		{"/v1/responses", `{"model":"m","input":"hi"}`},
		{"/v1/responses", `{"model":"m","instructions":"be brief","stream":true,"input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`},
		{"/v1/messages", `{"model":"m","max_tokens":5,"system":"s","messages":[{"role":"user","content":"hi"}]}`},
		{"/v1/messages", `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":true}]}]}`},
		{"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"zz"}]}]}`},
		{"/v1/chat/completions", `{"model":1}`},
		{"/v1/responses", `{"model":"m","input":[null]}`},
		{"/v1beta/models/m:generateContent", `{"systemInstruction":{"parts":[{"text":"s"}]},"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`},
		{"/v1beta/models/m:streamGenerateContent", `{"contents":[{"parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}},{"functionCall":{"id":"c1","name":"f"}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"error":"x"}}},{"function_response":{"id":"c1","name":"f","response":{}}}]}]}`},
		{"/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"g","response":{"result":"ok"}}}]}]}`},
		{"/v1beta/models/m:generateContent", `{"contents":[null]}`},
	}
	for _, s := range seeds {
		f.Add(s.path, s.body)
	}
	repeat, err := llm.ParseScript([]byte(`{"then": {"repeat": {"content": "answer {n}", "tool_calls": [{"name": "f", "args": {"n": "{n}"}, "id": "call_{n}"}]}}}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, path, body string) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		srv, err := serve.New(serve.Options{Source: serve.NewScript(repeat)})
		if err != nil {
			t.Fatal(err)
		}
		p := serve.ProtocolOf(path)
		req := httptest.NewRequest("POST", "http://serve.test"+escapePath(path), strings.NewReader(body))
		if p == serve.Messages {
			req.Header.Set("Anthropic-Version", "2023-06-01")
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		got := w.Body.Bytes()
		switch {
		case w.Code == 200 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream"):
			if !strings.HasPrefix(string(got), "data: ") && !strings.HasPrefix(string(got), "event: ") {
				t.Fatalf("stream answer does not start with an event:\n%s", got)
			}
		case w.Code == 200:
			if !json.Valid(got) {
				t.Fatalf("answer is not JSON:\n%s", got)
			}
		case w.Code >= 400 && w.Code < 500:
			if p == serve.Gemini {
				var g struct {
					Error *struct {
						Code            int
						Message, Status string
					} `json:"error"`
				}
				if err := json.Unmarshal(got, &g); err != nil || g.Error == nil || g.Error.Message == "" || g.Error.Status == "" || g.Error.Code != w.Code {
					t.Fatalf("error answer %d is not in Google's layout:\n%s", w.Code, got)
				}
				return
			}
			var oa struct {
				Error *struct{ Message, Type string } `json:"error"`
				Type  string                          `json:"type"`
			}
			if err := json.Unmarshal(got, &oa); err != nil || oa.Error == nil || oa.Error.Message == "" || oa.Error.Type == "" {
				t.Fatalf("error answer %d is in no provider's layout:\n%s", w.Code, got)
			}
			if (p == serve.Messages) != (oa.Type == "error") {
				t.Fatalf("error answer %d is in the wrong provider's layout for %s:\n%s", w.Code, p, got)
			}
		default:
			t.Fatalf("status %d for %s %q:\n%s", w.Code, path, body, got)
		}
	})
}

// escapePath keeps a fuzzed path a valid request target.
func escapePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r > ' ' && r < 0x7f && r != '?' && r != '#' && r != '%' {
			b.WriteRune(r)
		} else {
			b.WriteString("_")
		}
	}
	return b.String()
}
