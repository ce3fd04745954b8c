package serve_test

import (
	"net/http"
	"strings"
	"testing"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/serve"
)

// recorded is a cassette of chat requests at url, each answered with
// its body.
func recorded(url string, pairs ...string) *cassette.Cassette {
	c := &cassette.Cassette{Path: "c.yaml"}
	for i := 0; i < len(pairs); i += 2 {
		c.Interactions = append(c.Interactions, &vcr.Interaction{
			Request:  vcr.Request{Method: "POST", URL: url, Body: pairs[i], Headers: http.Header{}},
			Response: vcr.Response{Code: 200, Body: pairs[i+1], Headers: http.Header{"Content-Type": {"application/json"}}},
		})
	}
	return c
}

func chatAnswer(text string) string {
	return `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` + text + `"},"finish_reason":"stop"}]}`
}

// TestReplayMatchesByContent: a request gets the answer recorded for
// its content, whatever order the requests come in; identical requests
// take their answers in recorded order; a request no unused interaction
// matches is refused with the closest recorded one and the body diff.
func TestReplayMatchesByContent(t *testing.T) {
	t.Parallel()
	a := `{"model":"m","messages":[{"role":"user","content":"a"}]}`
	b := `{"model":"m","messages":[{"role":"user","content":"b"}]}`
	c := recorded("https://api.openai.com/v1/chat/completions",
		a, chatAnswer("first a"),
		b, chatAnswer("b"),
		a, chatAnswer("second a"))
	srv, ts := start(t, serve.Options{Source: serve.NewReplay(c, serve.ReplayOptions{Rerecord: "agenteval run --mode record --overwrite s.yaml"})}, true)
	for _, step := range []struct {
		reason, body, want string
	}{
		{"out of recorded order: b's answer, not a's", `{"messages":[{"content":"b","role":"user"}],"model":"m"}`, chatAnswer("b")},
		{"the first of two identical requests: the first recorded", a, chatAnswer("first a")},
		{"key order, whitespace and a default stream:false are not the request's content", `{"stream": false, "model": "m", "messages": [{"role": "user", "content": "a"}]}`, chatAnswer("second a")},
	} {
		got := rawPost(t, ts.URL, "/v1/chat/completions", nil, step.body)
		if got.status != 200 || string(got.body()) != step.want {
			t.Errorf("%s: status %d body %s, want the recorded %s", step.reason, got.status, got.body(), step.want)
		}
	}
	miss := rawPost(t, ts.URL, "/v1/chat/completions", nil, a)
	if miss.status != 400 {
		t.Fatalf("a third a, recorded twice: status %d, want 400", miss.status)
	}
	err := srv.Err()
	if err == nil {
		t.Fatal("the miss is not among the server's problems")
	}
	for _, want := range []string{
		"request 4 (POST /v1/chat/completions, model m): replay: no recorded request of cassette c.yaml matches it",
		"record again: agenteval run --mode record --overwrite s.yaml",
		"closest recorded request: interaction 0 at c.yaml: POST https://api.openai.com/v1/chat/completions (already replayed: each interaction answers one request)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the miss does not say\n%s\nit says\n%s", want, err)
		}
	}
	changed := rawPost(t, ts.URL, "/v1/chat/completions", nil, `{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"a"}]}`)
	if changed.status != 400 {
		t.Fatalf("a changed request: status %d, want 400", changed.status)
	}
	if got := srv.Err().Error(); !strings.Contains(got, "body (-recorded +requested):") || !strings.Contains(got, `+           "text": "be brief"`) {
		t.Errorf("the miss of a changed request shows no body diff:\n%s", got)
	}
}

// TestReplayAtBaseURL: a cassette recorded from a base URL with a path
// prefix and a query is matched at the URL a Recorder would have used,
// so the same base URL replays it and another path misses.
func TestReplayAtBaseURL(t *testing.T) {
	t.Parallel()
	body := `{"model":"m","messages":[{"role":"user","content":"a"}]}`
	c := recorded("http://127.0.0.1:1/openai/deployments/d/chat/completions?api-version=7", body, chatAnswer("azure"))
	_, ts := start(t, serve.Options{Source: serve.NewReplay(c, serve.ReplayOptions{BaseURL: map[string]string{"openai": "http://elsewhere:9/openai/deployments/d?api-version=7"}})}, false)
	if got := rawPost(t, ts.URL, "/v1/chat/completions", nil, body); got.status != 200 || string(got.body()) != chatAnswer("azure") {
		t.Errorf("status %d body %s, want the recorded answer (the host is not compared)", got.status, got.body())
	}
	srv, ts := start(t, serve.Options{Source: serve.NewReplay(c, serve.ReplayOptions{})}, true)
	if got := rawPost(t, ts.URL, "/v1/chat/completions", nil, body); got.status != 400 {
		t.Errorf("without the base URL: status %d, want 400 (path and query differ)", got.status)
	}
	if err := srv.Err(); err == nil || !strings.Contains(err.Error(), "differs in: path (/openai/deployments/d/chat/completions recorded), query") {
		t.Errorf("the miss does not name the path and query: %v", err)
	}
}

// TestReplayStreamsAsRecorded: a recorded event stream goes out byte
// for byte in its recorded events, as ReplayOrdered sends it.
func TestReplayStreamsAsRecorded(t *testing.T) {
	t.Parallel()
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"a"}]}`
	stream := "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	c := recorded("https://api.openai.com/v1/chat/completions", body, stream)
	c.Interactions[0].Response.Headers = http.Header{"Content-Type": {"text/event-stream"}}
	_, byContent := start(t, serve.Options{Source: serve.NewReplay(c, serve.ReplayOptions{})}, false)
	_, byOrder := start(t, serve.Options{Source: serve.NewReplayOrdered(c)}, false)
	got := rawPost(t, byContent.URL, "/v1/chat/completions", nil, body)
	want := rawPost(t, byOrder.URL, "/v1/chat/completions", nil, body)
	if string(got.body()) != stream || len(got.chunks) != len(want.chunks) || len(got.chunks) != 3 {
		t.Errorf("replay by content sent %d chunks %q; by order %d chunks; want the 3 recorded events byte for byte", len(got.chunks), got.body(), len(want.chunks))
	}
}
