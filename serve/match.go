package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/agenteval/agenteval/cassette"
)

// Replay is a Source that answers each request with the recorded
// interaction whose request matches it by content, as the engine's
// cassettes do (cassette.Recorder): the method, the path and query of the
// URL the request was recorded at, and the canonical JSON body with
// cassette's equivalences (see package cassette, Matching). The URL a
// request is matched at is the one a Recorder forwarding it would have
// used (UpstreamURL with ReplayOptions.BaseURL), so a cassette recorded
// from base_url "http://h:8000/v1?api-version=1" matches
// /v1/chat/completions?api-version=1; the scheme and host are not
// compared. Each interaction answers one request; among identical
// requests (an agent asking the same thing twice) the first unused
// interaction answers, in recording order. The recorded status and body
// go out byte for byte, an event stream in its recorded events, as
// ReplayOrdered sends them.
//
// A request that matches no unused interaction is answered 400, and the
// server's problem names it, shows the closest recorded request with the
// body diff (-recorded +requested) and says how to record again. Replay
// never opens a connection.
type Replay struct {
	c    *cassette.Cassette
	rec  *cassette.Recorder
	opts ReplayOptions
}

// ReplayOptions configures a Replay. The zero value matches requests at
// the providers' public URLs with cassette's equivalences alone.
type ReplayOptions struct {
	// BaseURL is the base URL the cassette was recorded from, per
	// provider as in RecorderOptions.Upstreams ("" or a missing provider:
	// the provider's public one); the path and query of a request's
	// UpstreamURL are what it is matched at.
	BaseURL map[string]string
	// Scenario names the scenario in a miss.
	Scenario string
	// IgnoreFields lists more body paths left out of matching, as
	// cassette.Options.IgnoreFields does.
	IgnoreFields []string
	// Rerecord says, in a miss, how to record the cassette again (a
	// command line); "" says nothing.
	Rerecord string
}

// NewReplay returns a source replaying c by request content.
func NewReplay(c *cassette.Cassette, opts ReplayOptions) *Replay {
	return &Replay{c: c, opts: opts, rec: cassette.Replay(c, cassette.Options{Scenario: opts.Scenario, IgnoreFields: opts.IgnoreFields})}
}

// Answer sends the recorded answer to the request's content.
func (r *Replay) Answer(ctx context.Context, req *Request) (Reply, error) {
	target, err := UpstreamURL(req.Protocol, r.opts.BaseURL[ProviderOf(req.Protocol)], req.Path, req.Query)
	if err != nil {
		return Reply{}, fmt.Errorf("%s: replay: %w", req, err)
	}
	hreq, err := http.NewRequestWithContext(ctx, req.Method, target, bytes.NewReader(req.Body))
	if err != nil {
		return Reply{}, fmt.Errorf("%s: replay: %w", req, err)
	}
	resp, err := r.rec.RoundTrip(hreq)
	var miss *cassette.MissError
	if errors.As(err, &miss) {
		return Reply{}, r.miss(req, target, miss)
	}
	if err != nil {
		return Reply{}, fmt.Errorf("%s: replay: %w", req, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Reply{}, fmt.Errorf("%s: replay: %w", req, err)
	}
	return Reply{Status: resp.StatusCode, Header: replayHeader(resp.Header, req, body), Body: body}, nil
}

// miss is the answer to a request no unused interaction matches.
func (r *Replay) miss(req *Request, target string, m *cassette.MissError) error {
	api := &APIError{Status: 400, Message: fmt.Sprintf("agenteval serve: replay: %s matches no recorded request of cassette %s", req, r.c.Path)}
	summary := fmt.Sprintf("replay: no recorded request of cassette %s matches it (matched at %s %s, by content: the agent sent something it did not send when the cassette was recorded)", r.c.Path, req.Method, cassette.ScrubURL(target))
	if r.opts.Rerecord != "" {
		summary += "; if the change is meant, record again: " + r.opts.Rerecord
	}
	e := &replayMiss{api: api, summary: summary}
	if m.Closest != nil {
		e.closest = m.Closest.Describe(r.c.Path)
	}
	return e
}
