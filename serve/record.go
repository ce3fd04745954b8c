package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/cassette"
)

// Upstream is where a Recorder forwards the requests of one provider.
type Upstream struct {
	// BaseURL is the provider's base URL as its official SDK takes one:
	// scheme, host, an optional path prefix and an optional query, such
	// as "https://api.openai.com/v1", "http://127.0.0.1:8000/v1" (vLLM,
	// Ollama, LiteLLM) or
	// "https://NAME.openai.azure.com/openai/deployments/DEPLOYMENT?api-version=2024-10-21".
	// "" means the provider's public endpoint (DefaultBaseURL). The
	// request's URL is built from it by UpstreamURL.
	BaseURL string
	// Key, when set, replaces the key the client sent (an agent pointed
	// at serve carries a dummy key).
	Key string
}

// RecorderOptions configures a Recorder. The zero value forwards every
// provider's requests to its public endpoint with the key the client
// sent.
type RecorderOptions struct {
	// Upstreams maps a provider ("openai" for Chat Completions and
	// Responses, "anthropic" for Messages; see ProviderOf) to where its
	// requests go. Nil forwards every provider to its public endpoint.
	// A non-nil map forwards only the providers it lists: a request of
	// another provider is refused (400) and goes nowhere, so naming one
	// endpoint means no traffic reaches any other host.
	Upstreams map[string]Upstream
}

// wire is what a Recorder needs to know of a protocol's provider: its
// name, its public base URL as the official SDK has it, where the
// client's path begins to be relative to that base URL (from: the
// request path from the last occurrence of it on; the whole of it when
// the path does not hold it), the header that carries the key and the
// environment variable the provider's SDKs read the key from.
type wire struct {
	provider, base, from string
	keyHeader, keyPrefix string
	keyEnv               string
}

// wires lists the protocols a Recorder forwards: a new protocol is one
// line here.
var wires = map[Protocol]wire{
	OpenAIChat:      {provider: "openai", base: "https://api.openai.com/v1", from: "/chat/completions", keyHeader: "Authorization", keyPrefix: "Bearer ", keyEnv: "OPENAI_API_KEY"},
	OpenAIResponses: {provider: "openai", base: "https://api.openai.com/v1", from: "/responses", keyHeader: "Authorization", keyPrefix: "Bearer ", keyEnv: "OPENAI_API_KEY"},
	Messages:        {provider: "anthropic", base: "https://api.anthropic.com", from: "/v1/messages", keyHeader: "X-Api-Key", keyEnv: "ANTHROPIC_API_KEY"},
	// Gemini's base URL, as @google/genai takes it, has no API version:
	// the client's path from "/v1beta/models/" on ("/v1/models/..." goes
	// whole); the key goes in x-goog-api-key, never in the URL (serve
	// took a key= parameter out of the query)
	Gemini: {provider: "gemini", base: "https://generativelanguage.googleapis.com", from: "/v1beta/models/", keyHeader: "X-Goog-Api-Key", keyEnv: "GEMINI_API_KEY"},
}

// ProviderOf names the provider whose protocol p is ("openai",
// "anthropic"), the key of RecorderOptions.Upstreams; "" for
// NoProtocol.
func ProviderOf(p Protocol) string { return wires[p].provider }

// KeyEnv is the environment variable the official SDKs of provider
// read its key from ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"); "" for a
// provider serve does not speak.
func KeyEnv(provider string) string {
	for _, w := range wires {
		if w.provider == provider {
			return w.keyEnv
		}
	}
	return ""
}

// PublicUpstreams is every provider at its public endpoint, each with
// the key lookup finds in its KeyEnv variable (none when unset): what
// a recording forwards to when the scenario names no base URL.
func PublicUpstreams(lookup func(string) (string, bool)) map[string]Upstream {
	ups := map[string]Upstream{}
	for _, w := range wires {
		key, _ := lookup(w.keyEnv)
		ups[w.provider] = Upstream{Key: key}
	}
	return ups
}

// DefaultBaseURL is the public base URL of the provider whose protocol
// p is, as its official SDK has it: "https://api.openai.com/v1",
// "https://api.anthropic.com".
func DefaultBaseURL(p Protocol) string { return wires[p].base }

// UpstreamURL is the URL a request of protocol p, sent to serve at path
// with the raw query query, goes to upstream at the base URL base (""
// for the provider's public one). The client's path is made relative to
// the base URL its SDK was given, as the SDK made it: for OpenAI's
// protocols the path from "/chat/completions" or "/responses" on (the
// "/v1" is part of an OpenAI base URL), for Anthropic's from
// "/v1/messages" on (Anthropic's base URL has no "/v1"). That relative
// path is joined to the base URL's path, and the query is the base URL's
// parameters, then the client's parameters the base URL does not set,
// sorted by key. So with base_url "http://h:8000/v1?api-version=1", a
// client's POST /v1/chat/completions goes to
// http://h:8000/v1/chat/completions?api-version=1.
func UpstreamURL(p Protocol, base, path, query string) (string, error) {
	w, ok := wires[p]
	if !ok {
		return "", fmt.Errorf("%s: no upstream for this path", path)
	}
	if base == "" {
		base = w.base
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("base URL %q: %w", base, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("base URL %q: want an http or https URL with a host", base)
	}
	rel := path
	if i := strings.LastIndex(path, w.from); i >= 0 {
		rel = path[i:]
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + rel
	u.RawPath = ""
	q := u.Query()
	if cq, err := url.ParseQuery(query); err == nil {
		for k, v := range cq {
			if _, set := q[k]; !set {
				q[k] = v
			}
		}
	}
	u.RawQuery = q.Encode()
	u.Fragment = ""
	return u.String(), nil
}

// Recorder is a Source that forwards every request to the provider's
// endpoint (RecorderOptions.Upstreams) through a recording
// cassette.Recorder, so the exchange is stored scrubbed as every
// recording is, and answers with the response as the recorder returns
// it: decoded (no Content-Encoding), the same bytes a later replay
// sends. A streamed answer (Content-Type text/event-stream) is relayed
// event by event as the provider sends it, and recorded whole, its
// events as they came, when it ends. The server does not check
// tool-result pairing for it: the provider's own answer to a bad
// request is what a recording wants.
type Recorder struct {
	rec  *cassette.Recorder
	opts RecorderOptions
}

// NewRecorder returns a source forwarding through rec, which should be
// in a recording mode (cassette.ModeRecord, ModeReplayOrRecord or
// ModeLive); the caller Stops rec to write the cassette.
func NewRecorder(rec *cassette.Recorder, opts RecorderOptions) *Recorder {
	return &Recorder{rec: rec, opts: opts}
}

// hopHeaders are not forwarded: net/http sets them for the upstream
// connection itself.
var hopHeaders = []string{"Host", "Content-Length", "Connection", "Keep-Alive", "Transfer-Encoding", "Accept-Encoding"}

// upstream is where req goes: its provider's Upstream, or an error
// when the options name upstreams and not this one.
func (r *Recorder) upstream(req *Request) (Upstream, error) {
	provider := ProviderOf(req.Protocol)
	if r.opts.Upstreams == nil {
		return Upstream{}, nil
	}
	up, ok := r.opts.Upstreams[provider]
	if !ok {
		named := slices.Sorted(maps.Keys(r.opts.Upstreams))
		return Upstream{}, &APIError{Status: 400, Message: fmt.Sprintf("agenteval serve: record: %s is a %s request, but this recording forwards only to %s: it is sent nowhere", req, provider, strings.Join(named, ", "))}
	}
	return up, nil
}

// Answer forwards the request and returns the provider's answer.
func (r *Recorder) Answer(ctx context.Context, req *Request) (Reply, error) {
	up, err := r.upstream(req)
	if err != nil {
		return Reply{}, err
	}
	target, err := UpstreamURL(req.Protocol, up.BaseURL, req.Path, req.Query)
	if err != nil {
		return Reply{}, fmt.Errorf("%s: forward: %w", req, err)
	}
	uctx, done := upstreamContext(ctx)
	out, err := http.NewRequestWithContext(uctx, req.Method, target, bytes.NewReader(req.Body))
	if err != nil {
		done()
		return Reply{}, fmt.Errorf("%s: forward: %w", req, err)
	}
	out.Header = req.rawHeader.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	if up.Key != "" {
		w := wires[req.Protocol]
		out.Header.Set(w.keyHeader, w.keyPrefix+up.Key)
		if out.Header.Get("Api-Key") != "" {
			// Azure OpenAI's SDKs send the key in api-key
			out.Header.Set("Api-Key", up.Key)
		}
	}
	base := out.URL.Scheme + "://" + out.URL.Host
	resp, err := r.rec.Client().Do(out)
	if err != nil {
		done()
		return Reply{}, fmt.Errorf("%s: forward to %s: %w", req, base, err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// relayed event by event as the provider sends them; the
		// recorder stores the stream when the server closes it
		return Reply{Status: resp.StatusCode, Header: replayHeader(resp.Header, req, nil), Stream: closeThen{resp.Body, done}}, nil
	}
	defer done()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Reply{}, fmt.Errorf("%s: read the answer of %s: %w", req, base, err)
	}
	return Reply{Status: resp.StatusCode, Header: replayHeader(resp.Header, req, body), Body: body}, nil
}

// upstreamContext is the context of a request forwarded for a client's
// request with context ctx: it outlives the client's, so that a client
// that hangs up once it has the last event (an SDK stops reading at
// "data: [DONE]") does not cut the recording of the stream's tail, and
// it ends with the Listener serving the client, when there is one, so a
// provider that never finishes cannot hold the server open. done
// releases it.
func upstreamContext(ctx context.Context) (_ context.Context, done func()) {
	u, cancel := context.WithCancel(context.WithoutCancel(ctx))
	life, ok := ctx.Value(lifetimeKey{}).(context.Context)
	if !ok {
		return u, cancel
	}
	stop := context.AfterFunc(life, cancel)
	return u, func() { stop(); cancel() }
}

// closeThen is a body that calls then once it is closed.
type closeThen struct {
	io.ReadCloser
	then func()
}

func (c closeThen) Close() error {
	err := c.ReadCloser.Close()
	c.then()
	return err
}
