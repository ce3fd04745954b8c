package serve_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/serve"
)

// specShapes are the answers a script can give, each a reason to
// exist: every way an answer's body or stream differs.
func specShapes() []struct {
	name string
	turn serve.Turn
} {
	return []struct {
		name string
		turn serve.Turn
	}{
		{"text", serve.Turn{Text: "Sunny, 21 °C.", Usage: serve.Usage{Input: 12, Output: 5}}},
		{"text with cache reads", serve.Turn{Text: "Cached.", Usage: serve.Usage{Input: 40, Output: 3, CacheRead: 32}}},
		{"no usage", serve.Turn{Text: "No usage."}},
		{"empty answer", serve.Turn{}},
		{"one call with an id", serve.Turn{ToolCalls: []serve.ToolCall{{ID: "call_a", Name: "get_weather", Args: `{"city":"Paris"}`}}, Usage: serve.Usage{Input: 9, Output: 4}}},
		{"one call without an id", serve.Turn{ToolCalls: []serve.ToolCall{{Name: "get_weather", Args: `{"city":"Paris"}`}}}},
		{"parallel calls, ids mixed", serve.Turn{ToolCalls: []serve.ToolCall{
			{ID: "call_b", Name: "get_weather", Args: `{"city":"Paris"}`}, {Name: "get_weather", Args: `{"city":"London"}`}, {Name: "get_time", Args: ``}}}},
		{"text and a call", serve.Turn{Text: "Let me check.", ToolCalls: []serve.ToolCall{{ID: "toolu_c", Name: "get_time", Args: `{}`}}}},
		{"structured output", serve.Turn{Text: `{"city":"Paris","temperature":21}`, Usage: serve.Usage{Input: 30, Output: 9}}},
		{"response id and model", serve.Turn{ID: "resp_custom", Model: "a-served-model", Text: "ok"}},
		{"error 400", serve.Turn{Error: &serve.APIError{Status: 400, Message: "bad"}}},
		{"error 401", serve.Turn{Error: &serve.APIError{Status: 401, Message: "no key"}}},
		{"error 402", serve.Turn{Error: &serve.APIError{Status: 402, Message: "no credit"}}},
		{"error 403", serve.Turn{Error: &serve.APIError{Status: 403, Message: "no"}}},
		{"error 404", serve.Turn{Error: &serve.APIError{Status: 404, Message: "none"}}},
		{"error 409", serve.Turn{Error: &serve.APIError{Status: 409, Message: "conflict"}}},
		{"error 413", serve.Turn{Error: &serve.APIError{Status: 413, Message: "too large"}}},
		{"error 422", serve.Turn{Error: &serve.APIError{Status: 422, Message: "unprocessable"}}},
		{"error 429 with a code", serve.Turn{Error: &serve.APIError{Status: 429, Code: "rate_limit_exceeded", Message: "slow down"}}},
		{"error 500", serve.Turn{Error: &serve.APIError{Status: 500, Message: "boom"}}},
		{"error 503", serve.Turn{Error: &serve.APIError{Status: 503, Message: "unavailable"}}},
		{"error 504", serve.Turn{Error: &serve.APIError{Status: 504, Message: "timeout"}}},
		{"error 529", serve.Turn{Error: &serve.APIError{Status: 529, Message: "overloaded"}}},
	}
}

// specRequest is a request of protocol p asking for a stream or not;
// opts adds protocol options (structured output, instructions, usage in
// a Chat stream).
func specRequest(p serve.Protocol, stream bool, opts string) (path, body string, header http.Header) {
	header = http.Header{"Content-Type": {"application/json"}}
	s := fmt.Sprintf(`"stream":%v`, stream)
	if opts != "" {
		s += "," + opts
	}
	switch p {
	case serve.OpenAIChat:
		return "/v1/chat/completions", `{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"Weather in Paris?"}],` + s + `}`, header
	case serve.OpenAIResponses:
		return "/v1/responses", `{"model":"gpt-4.1-mini","input":"Weather in Paris?",` + s + `}`, header
	}
	header.Set("Anthropic-Version", "2023-06-01")
	return "/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":256,"messages":[{"role":"user","content":"Weather in Paris?"}],` + s + `}`, header
}

// protocolOptions are the request options that change an answer's
// shape, per protocol.
var protocolOptions = map[serve.Protocol][]string{
	serve.OpenAIChat: {"", `"stream_options":{"include_usage":true}`,
		`"response_format":{"type":"json_schema","json_schema":{"name":"w","schema":{"type":"object"}}}`},
	serve.OpenAIResponses: {"", `"instructions":"Be brief."`, `"previous_response_id":"resp_0"`,
		`"text":{"format":{"type":"json_schema","name":"w","schema":{"type":"object"}}}`},
	serve.Messages: {"", `"system":"Be brief."`},
}

var specProtocols = []serve.Protocol{serve.OpenAIChat, serve.OpenAIResponses, serve.Messages}

// post sends one request to h in process and returns the answer as sent.
func post(h http.Handler, method, path, body string, header http.Header) specAnswer {
	req := httptest.NewRequest(method, "http://serve.test"+path, strings.NewReader(body))
	for k, v := range header {
		req.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	res := w.Result()
	return specAnswer{protocol: serve.ProtocolOf(path), status: res.StatusCode, header: res.Header, body: w.Body.Bytes()}
}

// producedAnswers is every answer serve's writers can produce, by name:
// every protocol, streamed and not, every script shape and request
// option, scripted raises, and every refusal (route, key, body, model,
// tool result, size, an exhausted script, a failing source), plus the
// model listings.
func producedAnswers(t *testing.T) map[string]specAnswer {
	t.Helper()
	out := map[string]specAnswer{}
	add := func(name string, a specAnswer) {
		if _, dup := out[name]; dup {
			t.Fatalf("answer %q twice", name)
		}
		out[name] = a
	}
	for _, p := range specProtocols {
		for _, stream := range []bool{false, true} {
			for _, opts := range protocolOptions[p] {
				for _, sh := range specShapes() {
					srv, err := serve.New(serve.Options{Source: serve.NewTurns(sh.turn)})
					if err != nil {
						t.Fatal(err)
					}
					path, body, header := specRequest(p, stream, opts)
					a := post(srv, "POST", path, body, header)
					if err := srv.Err(); err != nil {
						t.Fatalf("%s %s: %v", p, sh.name, err)
					}
					add(fmt.Sprintf("%s stream=%v %s {%s}", p, stream, sh.name, opts), a)
				}
			}
			// the script form: raises, calls without ids, usage absent
			script, err := llm.ParseScript([]byte(`{"responses": [
			  {"tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}}, {"name": "get_time", "args": {}}]},
			  {"content": "done", "usage": {"input_tokens": 9, "output_tokens": 2, "input_token_details": {"cache_read": 4}}},
			  {"raise": {"error": "RateLimitError", "message": "slow down"}},
			  {"raise": {"error": "ConflictError", "message": "conflict"}},
			  {"raise": {"error": "UnprocessableEntityError", "message": "unprocessable"}},
			  {"raise": {"error": "OverloadedError", "message": "busy"}},
			  {"raise": {"error": "ConnectionError", "message": "provider down"}}
			]}`))
			if err != nil {
				t.Fatal(err)
			}
			srv, err := serve.New(serve.Options{Source: serve.NewScript(script)})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 8 { // the 8th runs past the script: refused 400
				path, body, header := specRequest(p, stream, "")
				add(fmt.Sprintf("%s stream=%v script answer %d", p, stream, i+1), post(srv, "POST", path, body, header))
			}
		}
		for name, a := range refusals(t, p) {
			add(fmt.Sprintf("%s refused: %s", p, name), a)
		}
	}
	for name, a := range modelListings(t) {
		add(name, a)
	}
	return out
}

// failingSource answers every request with an error that is not an
// APIError: the server's own 500.
type failingSource struct{}

func (failingSource) Answer(context.Context, *serve.Request) (serve.Reply, error) {
	return serve.Reply{}, errors.New("the source broke")
}

// refusals are the answers to requests the server refuses, in p.
func refusals(t *testing.T, p serve.Protocol) map[string]specAnswer {
	t.Helper()
	out := map[string]specAnswer{}
	newServer := func(opts serve.Options) *serve.Server {
		if opts.Source == nil {
			opts.Source = serve.NewTurns(serve.Turn{Text: "ok"})
		}
		srv, err := serve.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		return srv
	}
	path, body, header := specRequest(p, false, "")
	out["no such route"] = func() specAnswer {
		a := post(newServer(serve.Options{}), "POST", strings.Replace(path, "/v1/", "/v1/nothing/", 1)+"/x", body, header)
		a.protocol = p
		return a
	}()
	out["GET on a model path"] = post(newServer(serve.Options{}), "GET", path, "", header)
	out["wrong key"] = post(newServer(serve.Options{Key: "sk-right"}), "POST", path, body, header)
	out["not JSON"] = post(newServer(serve.Options{}), "POST", path, `{"model":`, header)
	out["not an object"] = post(newServer(serve.Options{}), "POST", path, `[1]`, header)
	out["no model"] = post(newServer(serve.Options{}), "POST", path, strings.Replace(body, `"model":`, `"modelx":`, 1), header)
	out["unknown model"] = post(newServer(serve.Options{Models: []string{"other"}}), "POST", path, body, header)
	out["too large"] = post(newServer(serve.Options{MaxRequestBytes: 16}), "POST", path, body, header)
	out["source fails"] = post(newServer(serve.Options{Source: failingSource{}}), "POST", path, body, header)
	var orphan string
	switch p {
	case serve.OpenAIChat:
		orphan = `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_x","content":"r"}]}`
		out["no messages"] = post(newServer(serve.Options{}), "POST", path, `{"model":"m"}`, header)
	case serve.OpenAIResponses:
		orphan = `{"model":"m","input":[{"type":"function_call_output","call_id":"call_x","output":"r"}]}`
	case serve.Messages:
		orphan = `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"r"}]}]}`
		out["no messages"] = post(newServer(serve.Options{}), "POST", path, `{"model":"m","max_tokens":9}`, header)
		out["no max_tokens"] = post(newServer(serve.Options{}), "POST", path, `{"model":"m","messages":[]}`, header)
	}
	out["unknown tool call id"] = post(newServer(serve.Options{}), "POST", path, orphan, header)
	exhausted := newServer(serve.Options{Source: serve.NewTurns()})
	out["script exhausted"] = post(exhausted, "POST", path, body, header)
	return out
}

// modelListings are the answers to GET .../models and .../models/{id},
// in OpenAI's and Anthropic's layouts, found and not.
func modelListings(t *testing.T) map[string]specAnswer {
	t.Helper()
	out := map[string]specAnswer{}
	for _, models := range [][]string{nil, {"gpt-4.1-mini", "claude-sonnet-4-5"}} {
		srv, err := serve.New(serve.Options{Source: serve.NewTurns(), Models: models})
		if err != nil {
			t.Fatal(err)
		}
		for _, anth := range []bool{false, true} {
			header := http.Header{}
			p := serve.OpenAIChat
			if anth {
				header.Set("Anthropic-Version", "2023-06-01")
				p = serve.Messages
			}
			name := fmt.Sprintf("%s models (%d served)", p, len(models))
			list := post(srv, "GET", "/v1/models", "", header)
			list.protocol, list.models, list.list = p, true, true
			out[name+" list"] = list
			one := post(srv, "GET", "/v1/models/gpt-4.1-mini", "", header)
			one.protocol, one.models = p, true
			out[name+" one"] = one
			missing := post(srv, "GET", "/v1/models/no-such-model", "", header)
			missing.protocol, missing.models = p, true
			out[name+" missing"] = missing
		}
	}
	return out
}

// TestAnswersMatchPublishedSpecs checks every answer serve's writers can
// produce against the providers' published schemas (testdata/spec):
// OpenAI's OpenAPI document for Chat Completions and Responses,
// Anthropic's official SDK types for Messages; headers included.
func TestAnswersMatchPublishedSpecs(t *testing.T) {
	t.Parallel()
	sp := mustSpecs(t)
	answers := producedAnswers(t)
	violations := 0
	for _, name := range sortedKeys(answersByName(answers)) {
		a := answers[name]
		if bad := sp.check(a); len(bad) > 0 {
			violations += len(bad)
			t.Errorf("%s (status %d):\n  %s", name, a.status, strings.Join(bad, "\n  "))
		}
	}
	t.Logf("%d answers checked, %d violations", len(answers), violations)
}

func answersByName(m map[string]specAnswer) map[string]string {
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = k
	}
	return out
}
