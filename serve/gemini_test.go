package serve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/serve"
)

// geminiScript has every script shape a Gemini answer takes: parallel
// calls with ids, a call without an id (which gets call_<n>_<i>), text
// beside a call, a text answer with a cache read, an empty answer, and a
// raised error.
func geminiScript(t *testing.T) llm.Script {
	t.Helper()
	s, err := llm.ParseScript([]byte(`{"responses": [
	  {"content": "", "tool_calls": [
	    {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_paris"},
	    {"name": "get_weather", "args": {"city": "London"}, "id": "call_london"}],
	   "usage": {"input_tokens": 80, "output_tokens": 30}},
	  {"content": "Let me look.", "tool_calls": [{"name": "get_weather", "args": {"city": "Tokyo"}}]},
	  {"content": "Paris is sunny — London is rainy.", "usage": {"input_tokens": 140, "output_tokens": 15, "input_token_details": {"cache_read": 40}}},
	  {"content": ""},
	  {"raise": {"error": "RateLimitError", "message": "Resource has been exhausted (e.g. check quota)."}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// geminiPost sends a generateContent request with the key in the
// x-goog-api-key header.
func geminiPost(t *testing.T, base, path, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Goog-Api-Key", testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

const geminiHello = `{"systemInstruction": {"parts": [{"text": "You are a helpful weather assistant."}]},
  "contents": [{"role": "user", "parts": [{"text": "Weather in Paris and London?"}]}],
  "tools": [{"functionDeclarations": [{"name": "get_weather", "parameters": {"type": "OBJECT"}}]}]}`

// TestGeminiAnswers pins the bytes of each answer shape, JSON and
// streamed (SSE and the JSON array), so a change of the writer shows as
// a diff; TestGeminiSpec validates the same bodies against Google's
// schema.
func TestGeminiAnswers(t *testing.T) {
	t.Parallel()
	_, ts := start(t, serve.Options{Source: serve.NewScript(geminiScript(t))}, false)
	path := "/v1beta/models/gemini-2.5-flash:generateContent"
	tests := []struct {
		path, want string
		reason     string
	}{
		{path, `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call_paris","name":"get_weather","args":{"city":"Paris"}}},{"functionCall":{"id":"call_london","name":"get_weather","args":{"city":"London"}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":80,"candidatesTokenCount":30,"totalTokenCount":110},"modelVersion":"gemini-2.5-flash","responseId":"response-1"}`,
			"parallel calls in one content, finishReason STOP as Gemini sends it for calls"},
		{path, `{"candidates":[{"content":{"role":"model","parts":[{"text":"Let me look."},{"functionCall":{"id":"call_2_0","name":"get_weather","args":{"city":"Tokyo"}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":0,"totalTokenCount":0},"modelVersion":"gemini-2.5-flash","responseId":"response-2"}`,
			"a scripted call without an id gets call_<n>_<i>; the text comes first"},
		{"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Paris is sunny —\"}]},\"index\":0}],\"modelVersion\":\"gemini-2.5-flash\",\"responseId\":\"response-3\"}\n\n" +
			"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\" London is rainy.\"}]},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":140,\"candidatesTokenCount\":15,\"totalTokenCount\":155,\"cachedContentTokenCount\":40},\"modelVersion\":\"gemini-2.5-flash\",\"responseId\":\"response-3\"}\n\n",
			"alt=sse: a chunk per piece of text, the last with the finish reason and the usage (cache reads counted in the prompt, as Gemini counts them)"},
		{"/v1beta/models/gemini-2.5-flash:streamGenerateContent", `[{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":0,"totalTokenCount":0},"modelVersion":"gemini-2.5-flash","responseId":"response-4"}]`,
			"without alt=sse the stream is one JSON array; an empty answer is one empty text part"},
		{path, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`,
			"a raised RateLimitError is Google's 429 RESOURCE_EXHAUSTED"},
	}
	for _, tc := range tests {
		_, got := geminiPost(t, ts.URL, tc.path, geminiHello)
		if diff := cmp.Diff(tc.want, string(got)); diff != "" {
			t.Errorf("%s: %s: answer mismatch (-want +got):\n%s", tc.path, tc.reason, diff)
		}
	}
}

// TestGeminiChecks: the checks of serve's documented order, each
// answered in Google's error layout with Google's wording.
func TestGeminiChecks(t *testing.T) {
	t.Parallel()
	srv, ts := start(t, serve.Options{Source: serve.NewScript(geminiScript(t)), Key: testKey, Models: []string{"gemini-2.5-flash"}}, true)
	gen := "/v1beta/models/gemini-2.5-flash:generateContent"
	tests := []struct {
		reason     string
		path, key  string
		body       string
		wantStatus int
		wantError  string
	}{
		{"a path of no method is 404", "/v1beta/models/gemini-2.5-flash:countTokens", testKey, geminiHello, 404, "NOT_FOUND"},
		{"no key is 403, as Google answers unregistered callers", gen, "", geminiHello, 403, "PERMISSION_DENIED"},
		{"a wrong key is 400 API key not valid", gen, "wrong", geminiHello, 400, "INVALID_ARGUMENT"},
		{"a body that is not JSON", gen, testKey, `{"contents": [`, 400, "INVALID_ARGUMENT"},
		{"no contents", gen, testKey, `{}`, 400, "INVALID_ARGUMENT"},
		{"a role Gemini does not have", gen, testKey, `{"contents": [{"role": "assistant", "parts": [{"text": "hi"}]}]}`, 400, "INVALID_ARGUMENT"},
		{"a model not served", "/v1beta/models/gemini-1.0-pro:generateContent", testKey, geminiHello, 404, "NOT_FOUND"},
		{"a function response whose id no call carries", gen, testKey, `{"contents": [{"role": "user", "parts": [{"text": "hi"}]},
		  {"role": "model", "parts": [{"functionCall": {"id": "call_1", "name": "get_weather", "args": {}}}]},
		  {"role": "user", "parts": [{"functionResponse": {"id": "call_9", "name": "get_weather", "response": {"result": "sunny"}}}]}]}`, 400, "INVALID_ARGUMENT"},
		{"a function response without an id, of a name no call has", gen, testKey, `{"contents": [{"role": "user", "parts": [{"text": "hi"}]},
		  {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {}}}]},
		  {"role": "user", "parts": [{"functionResponse": {"name": "get_time", "response": {"result": "noon"}}}]}]}`, 400, "INVALID_ARGUMENT"},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+tc.path, strings.NewReader(tc.body))
		if tc.key != "" {
			req.Header.Set("X-Goog-Api-Key", tc.key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			Error struct {
				Code   int    `json:"code"`
				Status string `json:"status"`
			} `json:"error"`
		}
		json.Unmarshal(b, &e)
		if resp.StatusCode != tc.wantStatus || e.Error.Code != tc.wantStatus || e.Error.Status != tc.wantError {
			t.Errorf("%s: got %d %s, want %d %s\n%s", tc.reason, resp.StatusCode, b, tc.wantStatus, tc.wantError, b)
		}
	}
	if n := len(srv.Problems()); n != len(tests) {
		t.Errorf("the server kept %d problems, want one per refused request (%d):\n%v", n, len(tests), srv.Err())
	}
	// the key may come as ?key= instead; it is not kept in the request
	resp, err := http.Post(ts.URL+gen+"?key="+testKey, "application/json", strings.NewReader(geminiHello))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a request with ?key= got %d, want 200", resp.StatusCode)
	}
	xs := srv.Exchanges()
	if last := xs[len(xs)-1].Request; strings.Contains(last.Query, testKey) || last.Query != "" {
		t.Errorf("the request keeps the query %q: the key must not be kept", last.Query)
	}
}

// TestGeminiPairing: tool results pair with calls by id when they carry
// one, else by name and order; the conversation is read into engine
// messages the invariants are checked on.
func TestGeminiPairing(t *testing.T) {
	t.Parallel()
	srv, ts := start(t, serve.Options{Source: serve.NewScript(geminiScript(t))}, false)
	body := `{"contents": [{"role": "user", "parts": [{"text": "Paris, London and Rome?"}]},
	  {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
	    {"functionCall": {"name": "get_weather", "args": {"city": "London"}}},
	    {"functionCall": {"id": "call_rome", "name": "get_weather", "args": {"city": "Rome"}}}]},
	  {"role": "user", "parts": [{"functionResponse": {"id": "call_rome", "name": "get_weather", "response": {"result": "hot"}}},
	    {"functionResponse": {"name": "get_weather", "response": {"result": "sunny"}}},
	    {"functionResponse": {"name": "get_weather", "response": {"error": "no such city"}}}]}]}`
	if resp, b := geminiPost(t, ts.URL, "/v1beta/models/gemini-2.5-flash:generateContent", body); resp.StatusCode != 200 {
		t.Fatalf("got %d: %s", resp.StatusCode, b)
	}
	var got []string
	for _, m := range srv.Exchanges()[0].Request.Messages {
		line := string(m.Type) + " " + m.Text()
		for _, c := range m.ToolCalls {
			line += " → " + c.ID
		}
		if m.ToolCallID != "" {
			line += " ← " + m.ToolCallID + " " + m.Status
		}
		got = append(got, line)
	}
	want := []string{
		"human Paris, London and Rome?",
		"ai  → get_weather#1.0 → get_weather#1.1 → call_rome",
		"tool hot ← call_rome success",
		"tool sunny ← get_weather#1.0 success",
		"tool no such city ← get_weather#1.1 error",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conversation mismatch (-want +got):\n%s", diff)
	}
	if v := serve.CheckClient(srv.Exchanges()); len(v) != 2 {
		// the answer's two calls (call_paris, call_london) dangle
		t.Errorf("CheckClient = %v, want the answer's two calls dangling", v)
	}
}

// TestGeminiAnswerRead: the server reads its own answers back (as a
// command agent's run is rebuilt from its traffic), JSON and streamed.
func TestGeminiAnswerRead(t *testing.T) {
	t.Parallel()
	srv, ts := start(t, serve.Options{Source: serve.NewScript(geminiScript(t))}, false)
	geminiPost(t, ts.URL, "/v1beta/models/m:generateContent", geminiHello)
	geminiPost(t, ts.URL, "/v1beta/models/m:streamGenerateContent?alt=sse", geminiHello)
	var got []string
	for _, x := range srv.Exchanges() {
		m, err := x.Answer()
		if err != nil {
			t.Fatal(err)
		}
		var calls []string
		for _, c := range m.ToolCalls {
			b, _ := json.Marshal(c.Args)
			calls = append(calls, c.ID+" "+c.Name+string(b))
		}
		got = append(got, fmt.Sprintf("%s %q %v %v", m.ID, m.Text(), calls, x.Calls))
	}
	want := []string{
		`response-1 "" [call_paris get_weather{"city":"Paris"} call_london get_weather{"city":"London"}] [call_paris call_london]`,
		`response-2 "Let me look." [call_2_0 get_weather{"city":"Tokyo"}] [call_2_0]`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers read back mismatch (-want +got):\n%s", diff)
	}
}

// TestGeminiModels: the model list and lookup in Google's layout.
func TestGeminiModels(t *testing.T) {
	t.Parallel()
	_, ts := start(t, serve.Options{Source: serve.NewScript(llm.Script{}), Models: []string{"gemini-2.5-flash"}}, false)
	for path, want := range map[string]string{
		"/v1beta/models?key=k":                  `{"models":[{"name":"models/gemini-2.5-flash","baseModelId":"gemini-2.5-flash","version":"001","displayName":"gemini-2.5-flash","supportedGenerationMethods":["generateContent","streamGenerateContent"]}]}`,
		"/v1beta/models/gemini-2.5-flash?key=k": `{"name":"models/gemini-2.5-flash","baseModelId":"gemini-2.5-flash","version":"001","displayName":"gemini-2.5-flash","supportedGenerationMethods":["generateContent","streamGenerateContent"]}`,
	} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if diff := cmp.Diff(want, string(bytes.TrimSpace(b))); diff != "" {
			t.Errorf("GET %s mismatch (-want +got):\n%s", path, diff)
		}
	}
}
