package serve_test

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/serve"
)

// TestUpstreamURL pins how a base URL's path prefix and query combine
// with the path and query a client sent to serve.
func TestUpstreamURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		reason      string
		p           serve.Protocol
		base, path  string
		query, want string
	}{
		{reason: "no base URL: OpenAI's public endpoint, /v1 included", p: serve.OpenAIChat, path: "/v1/chat/completions", want: "https://api.openai.com/v1/chat/completions"},
		{reason: "no base URL: Anthropic's public endpoint, whose base URL has no /v1", p: serve.Messages, path: "/v1/messages", want: "https://api.anthropic.com/v1/messages"},
		{reason: "a local OpenAI-compatible server's base URL carries /v1, as the SDK's does", p: serve.OpenAIChat, base: "http://127.0.0.1:8000/v1", path: "/v1/chat/completions", want: "http://127.0.0.1:8000/v1/chat/completions"},
		{reason: "a trailing slash on the base URL is not doubled", p: serve.OpenAIResponses, base: "http://127.0.0.1:8000/v1/", path: "/v1/responses", want: "http://127.0.0.1:8000/v1/responses"},
		{reason: "Azure: a deployment path and api-version, as the SDK builds the URL", p: serve.OpenAIChat, base: "https://x.openai.azure.com/openai/deployments/d1?api-version=2024-10-21", path: "/v1/chat/completions", want: "https://x.openai.azure.com/openai/deployments/d1/chat/completions?api-version=2024-10-21"},
		{reason: "the client's own parameters are kept, the base URL's win on the same key, sorted", p: serve.OpenAIChat, base: "http://h/v1?api-version=2", path: "/v1/chat/completions", query: "z=1&api-version=1", want: "http://h/v1/chat/completions?api-version=2&z=1"},
		{reason: "a client whose base URL had another prefix: the path from the endpoint on", p: serve.OpenAIChat, base: "http://h/v1", path: "/v1beta/openai/chat/completions", want: "http://h/v1/chat/completions"},
		{reason: "a LiteLLM-style proxy prefix on Anthropic's base URL", p: serve.Messages, base: "http://h:4000/anthropic", path: "/v1/messages", want: "http://h:4000/anthropic/v1/messages"},
	}
	for _, tc := range cases {
		got, err := serve.UpstreamURL(tc.p, tc.base, tc.path, tc.query)
		if err != nil || got != tc.want {
			t.Errorf("%s: UpstreamURL(%s, %q, %q, %q) = %q, %v; want %q", tc.reason, tc.p, tc.base, tc.path, tc.query, got, err, tc.want)
		}
	}
	for _, base := range []string{"ftp://h/v1", "/v1", "http:///v1"} {
		if got, err := serve.UpstreamURL(serve.OpenAIChat, base, "/v1/chat/completions", ""); err == nil {
			t.Errorf("UpstreamURL with base %q = %q, want an error", base, got)
		}
	}
}

// TestRecorderForwardsOnlyWhereNamed records through a Recorder whose
// options name one upstream (a local server standing in for vLLM, at a
// base URL with a query): its provider's requests go there, query
// included, with the real key; a request of another provider is refused
// with 400 and no connection is made for it.
func TestRecorderForwardsOnlyWhereNamed(t *testing.T) {
	t.Parallel()
	upstream, up := start(t, serve.Options{Key: testKey, Source: serve.NewTurns(serve.Turn{Text: "local"})}, false)
	var dialed []string
	tr := &onlyHost{host: strings.TrimPrefix(up.URL, "http://"), dialed: &dialed}
	rec, err := cassette.Open(filepath.Join(t.TempDir(), "c.yaml"), cassette.Options{Mode: cassette.ModeRecord, Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	_, ts := start(t, serve.Options{Source: serve.NewRecorder(rec, serve.RecorderOptions{Upstreams: map[string]serve.Upstream{
		"openai": {BaseURL: up.URL + "/v1?api-version=7", Key: testKey}}})}, true)
	a := rawPost(t, ts.URL, "/v1/chat/completions", nil, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if a.status != 200 || !strings.Contains(string(a.body()), "local") {
		t.Fatalf("the named upstream's answer: status %d body %s", a.status, a.body())
	}
	b := rawPost(t, ts.URL, "/v1/messages", http.Header{"Anthropic-Version": {"2023-06-01"}}, `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`)
	if b.status != 400 || !strings.Contains(string(b.body()), "forwards only to openai") {
		t.Errorf("a request of a provider not named: status %d body %s, want 400 saying where the recording forwards", b.status, b.body())
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	if xs := upstream.Exchanges(); len(xs) != 1 || xs[0].Request.Path != "/v1/chat/completions" {
		t.Errorf("the upstream saw %d requests, want the one chat request at /v1/chat/completions", len(xs))
	}
	got := rec.Cassette().Interactions[0].Request.URL
	if want := up.URL + "/v1/chat/completions?api-version=7"; got != want {
		t.Errorf("recorded URL %q, want %q", got, want)
	}
	if len(dialed) != 0 {
		t.Errorf("connections to hosts not named: %v", dialed)
	}
}

// onlyHost carries requests to one host and refuses any other,
// noting it.
type onlyHost struct {
	host   string
	dialed *[]string
}

func (o *onlyHost) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != o.host {
		*o.dialed = append(*o.dialed, req.URL.Host)
		return nil, context.Canceled
	}
	return http.DefaultTransport.RoundTrip(req)
}

// FuzzUpstreamURL: whatever base URL a scenario names and whatever path
// and query a client sends, UpstreamURL never panics, and a URL it
// returns goes to the base URL's host and no other.
func FuzzUpstreamURL(f *testing.F) {
	f.Add("http://127.0.0.1:8000/v1?api-version=1", "/v1/chat/completions", "a=1")
	f.Add("https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21", "/v1/responses", "")
	f.Add("http://h:4000/anthropic/", "/v1/messages", "beta=true")
	f.Add("http://h/%2F/v1", "//evil.example/chat/completions", "x=%zz")
	f.Fuzz(func(t *testing.T, base, path, query string) {
		for _, p := range []serve.Protocol{serve.OpenAIChat, serve.OpenAIResponses, serve.Messages} {
			got, err := serve.UpstreamURL(p, base, path, query)
			if err != nil {
				continue
			}
			u, err := url.Parse(got)
			if err != nil {
				t.Fatalf("UpstreamURL(%q, %q, %q) = %q, which does not parse: %v", base, path, query, got, err)
			}
			b, _ := url.Parse(base)
			if u.Host != b.Host || u.Scheme != b.Scheme {
				t.Fatalf("UpstreamURL(%q, %q, %q) = %q: not the base URL's host", base, path, query, got)
			}
		}
	})
}
