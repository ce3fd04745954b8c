package serve_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/serve"
)

// TestBadInput sends what a broken client might: each request gets the
// status and error body the real provider gives, and the server's Err
// names the request — and nothing hangs (the client gives up after 5s).
func TestBadInput(t *testing.T) {
	const (
		oaMalformed = `{"error":{"message":"We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)","type":"invalid_request_error","param":null,"code":null}}`
		chat        = "/v1/chat/completions"
		resp        = "/v1/responses"
		msgs        = "/v1/messages"
	)
	tests := []struct {
		reason     string
		method     string
		path, body string
		anthropic  bool
		wantStatus int
		wantBody   string
		// wantProblem is part of Err's line for the request; "" when the
		// request is not logged as an exchange.
		wantProblem string
	}{
		{"Chat Completions: malformed JSON is OpenAI's 400 with its parse message",
			"POST", chat, `{"model": "gpt-4.1-mini", "messages": [`, false, 400, oaMalformed, "request 1 (POST /v1/chat/completions): the body is not a request: unexpected end of JSON input"},
		{"Responses: malformed JSON, the same OpenAI error",
			"POST", resp, `not json`, false, 400, oaMalformed, "request 1 (POST /v1/responses)"},
		{"Messages: malformed JSON is Anthropic's invalid_request_error layout",
			"POST", msgs, `{"model":`, true, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"There was an error parsing the body: unexpected end of JSON input"},"request_id":"req_1"}`, "request 1 (POST /v1/messages)"},
		{"a JSON array is not a request body",
			"POST", chat, `[]`, false, 400, oaMalformed, "the body is not a JSON object"},
		{"Chat Completions: no model is a missing required parameter",
			"POST", chat, `{"messages":[]}`, false, 400, `{"error":{"message":"Missing required parameter: 'model'. You must provide a model parameter.","type":"invalid_request_error","param":"model","code":null}}`, "Missing required parameter: 'model'"},
		{"Messages: max_tokens is required, as Anthropic requires it",
			"POST", msgs, `{"model":"claude-sonnet-4-5","messages":[]}`, true, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"},"request_id":"req_1"}`, "max_tokens: Field required"},
		{"Chat Completions: a model the server does not serve is 404 model_not_found",
			"POST", chat, `{"model":"gpt-nope","messages":[{"role":"user","content":"hi"}]}`, false, 404, "{\"error\":{\"message\":\"The model `gpt-nope` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}", `unknown model "gpt-nope"`},
		{"Messages: an unknown model is Anthropic's 404 not_found_error",
			"POST", msgs, `{"model":"claude-nope","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, true, 404, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-nope"},"request_id":"req_1"}`, `unknown model "claude-nope"`},
		{"Chat Completions: a tool result for a call id no assistant message made",
			"POST", chat, `{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_zz","content":"ok"}]}`, false, 400,
			`{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (tool_call_id call_zz)","type":"invalid_request_error","param":"messages.[1].role","code":null}}`, `tool result for unknown call id "call_zz"`},
		{"Messages: a tool_result whose tool_use_id no tool_use carries",
			"POST", msgs, `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_zz","content":"ok"}]}]}`, true, 400,
			"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_zz. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.\"},\"request_id\":\"req_1\"}", `"toolu_zz"`},
		{"Responses: a function_call_output for a call the server never made",
			"POST", resp, `{"model":"gpt-4.1-mini","input":[{"type":"function_call_output","call_id":"call_zz","output":"ok"}]}`, false, 400,
			`{"error":{"message":"No tool call found for function call output with call_id call_zz.","type":"invalid_request_error","param":"input","code":null}}`, `"call_zz"`},
		{"Chat Completions: an unknown role",
			"POST", chat, `{"model":"gpt-4.1-mini","messages":[{"role":"robot","content":"hi"}]}`, false, 400,
			`{"error":{"message":"Invalid value for 'messages.[0].role': unknown role \"robot\"","type":"invalid_request_error","param":"messages.[0].role","code":null}}`, `unknown role`},
		{"a request the cassette lacks: the cassette records no Messages call",
			"POST", msgs, `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, true, 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"agenteval serve: replay-ordered: request 1 (POST /v1/messages, model claude-sonnet-4-5) is messages request 1, but cassette test.yaml records 0"},"request_id":"req_1"}`, "records 0"},
		{"a path no protocol has is OpenAI's 404",
			"POST", "/v1/embeddings", `{}`, false, 404, `{"error":{"message":"Invalid URL (POST /v1/embeddings)","type":"invalid_request_error","param":null,"code":null}}`, ""},
		{"GET on a model endpoint is a 404, not a model call",
			"GET", chat, ``, false, 404, `{"error":{"message":"Invalid URL (GET /v1/chat/completions)","type":"invalid_request_error","param":null,"code":null}}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			c := &cassette.Cassette{Path: "test.yaml"}
			srv, ts := start(t, serve.Options{Source: serve.NewReplayOrdered(c), Models: []string{"gpt-4.1-mini", "claude-sonnet-4-5"}}, true)
			req, _ := http.NewRequest(tc.method, ts.URL+tc.path, strings.NewReader(tc.body))
			if tc.anthropic {
				req.Header.Set("Anthropic-Version", "2023-06-01")
			}
			client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || string(body) != tc.wantBody {
				t.Errorf("answer = %d %s\nwant     %d %s", resp.StatusCode, body, tc.wantStatus, tc.wantBody)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			err = srv.Err()
			if err == nil {
				t.Fatal("Err() = nil, want the refused request")
			}
			if !strings.Contains(err.Error(), tc.wantProblem) {
				t.Errorf("Err() = %q, want it to contain %q", err, tc.wantProblem)
			}
			xs := srv.Exchanges()
			if tc.wantProblem != "" && (len(xs) != 1 || xs[0].Problem == "" || xs[0].Status != tc.wantStatus) {
				t.Errorf("Exchanges() = %+v, want the refused exchange with its problem and status", xs)
			}
		})
	}
}
