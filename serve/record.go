package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agenteval/agenteval/cassette"
)

// Default upstreams of Recorder.
const (
	OpenAIUpstream    = "https://api.openai.com"
	AnthropicUpstream = "https://api.anthropic.com"
	GeminiUpstream    = "https://generativelanguage.googleapis.com"
)

// RecorderOptions configures a Recorder. The zero value forwards to
// OpenAI and Anthropic with the key the client sent.
type RecorderOptions struct {
	// OpenAIUpstream and AnthropicUpstream are the scheme and host the
	// requests go to; the request's path is kept. "" means the real
	// providers (OpenAIUpstream, AnthropicUpstream).
	OpenAIUpstream, AnthropicUpstream string
	// GeminiUpstream is where Gemini requests go; "" means the Gemini
	// API (GeminiUpstream).
	GeminiUpstream string
	// OpenAIKey, AnthropicKey and GeminiKey, when set, replace the key
	// the client sent (an agent pointed at serve carries a dummy key);
	// Gemini's goes out as x-goog-api-key, never in the URL.
	OpenAIKey, AnthropicKey, GeminiKey string
}

// Recorder is a Source that forwards every request to the real provider
// through a recording cassette.Recorder, so the exchange is stored
// scrubbed as every recording is, and answers with the response as the
// recorder returns it: decoded (no Content-Encoding), the same bytes a
// later replay sends. A streamed answer (Content-Type
// text/event-stream) is relayed event by event as the provider sends
// it, and recorded whole, its events as they came, when it ends. The server does not check tool-result
// pairing for it: the provider's own answer to a bad request is what a
// recording wants.
type Recorder struct {
	rec  *cassette.Recorder
	opts RecorderOptions
}

// NewRecorder returns a source forwarding through rec, which should be
// in a recording mode (cassette.ModeRecord, ModeReplayOrRecord or
// ModeLive); the caller Stops rec to write the cassette.
func NewRecorder(rec *cassette.Recorder, opts RecorderOptions) *Recorder {
	if opts.OpenAIUpstream == "" {
		opts.OpenAIUpstream = OpenAIUpstream
	}
	if opts.AnthropicUpstream == "" {
		opts.AnthropicUpstream = AnthropicUpstream
	}
	if opts.GeminiUpstream == "" {
		opts.GeminiUpstream = GeminiUpstream
	}
	return &Recorder{rec: rec, opts: opts}
}

// hopHeaders are not forwarded: net/http sets them for the upstream
// connection itself.
var hopHeaders = []string{"Host", "Content-Length", "Connection", "Keep-Alive", "Transfer-Encoding", "Accept-Encoding"}

// Answer forwards the request and returns the provider's answer.
func (r *Recorder) Answer(ctx context.Context, req *Request) (Reply, error) {
	base, key := r.opts.OpenAIUpstream, r.opts.OpenAIKey
	switch req.Protocol {
	case Messages:
		base, key = r.opts.AnthropicUpstream, r.opts.AnthropicKey
	case Gemini:
		base, key = r.opts.GeminiUpstream, r.opts.GeminiKey
	}
	target := strings.TrimSuffix(base, "/") + req.Path
	if req.Query != "" {
		target += "?" + req.Query
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
	if key != "" {
		switch req.Protocol {
		case Messages:
			out.Header.Set("X-Api-Key", key)
		case Gemini:
			out.Header.Set("X-Goog-Api-Key", key)
		default:
			out.Header.Set("Authorization", "Bearer "+key)
		}
	}
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
