package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

// ReplayOrdered is a Source that replays a cassette by order: the n-th
// request of a protocol gets the n-th recorded interaction of that
// protocol (told apart by the recorded URL's path, as requests are),
// whatever its body says. Its name says what it does not do: it does not
// match request bodies, as cassette.Recorder does, because the client in
// front of it is not the one that recorded the cassette — a Go SDK
// replaying a cassette that a Python SDK recorded sends other bytes for
// the same question. The recorded status and body go out byte for byte,
// an event stream with its events as recorded.
type ReplayOrdered struct {
	c *cassette.Cassette
	// byProt lists the indexes in c of each protocol's interactions.
	byProt map[Protocol][]int

	mu   sync.Mutex
	next map[Protocol]int
}

// NewReplayOrdered returns a source replaying c by order.
func NewReplayOrdered(c *cassette.Cassette) *ReplayOrdered {
	r := &ReplayOrdered{c: c, byProt: map[Protocol][]int{}, next: map[Protocol]int{}}
	for i, in := range c.Interactions {
		p := NoProtocol
		if u, err := url.Parse(in.Request.URL); err == nil {
			p = ProtocolOf(u.Path)
		}
		r.byProt[p] = append(r.byProt[p], i)
	}
	return r
}

// Answer sends the next recorded interaction of the request's protocol.
// A request past the last one is answered 400, naming the request and
// the cassette; the server's problem shows, besides, the recorded
// request closest to it (cassette.NearestTo) and how they differ.
func (r *ReplayOrdered) Answer(_ context.Context, req *Request) (Reply, error) {
	r.mu.Lock()
	list := r.byProt[req.Protocol]
	i := r.next[req.Protocol]
	if i < len(list) {
		r.next[req.Protocol] = i + 1
	}
	var used []bool
	if i >= len(list) {
		used = r.usedLocked()
	}
	r.mu.Unlock()
	if i >= len(list) {
		api := &APIError{Status: 400, Message: fmt.Sprintf("agenteval serve: replay-ordered: %s is %s request %d, but cassette %s records %d", req, req.Protocol, i+1, r.c.Path, len(list))}
		miss := &replayMiss{api: api, summary: fmt.Sprintf("replay-ordered: it is %s request %d, but cassette %s records %d (the client made more requests than the recording)", req.Protocol, i+1, r.c.Path, len(list))}
		if n := cassette.NearestTo(r.c, req.Method, req.Path, string(req.Body), used, cassette.Options{}); n != nil {
			miss.closest = n.Describe(r.c.Path)
		}
		return Reply{}, miss
	}
	in := r.c.Interactions[list[i]]
	return Reply{Status: in.Response.Code, Header: replayHeader(in.Response.Headers, req, []byte(in.Response.Body)), Body: []byte(in.Response.Body)}, nil
}

// usedLocked marks the interactions the replay has answered with. The
// caller holds r.mu.
func (r *ReplayOrdered) usedLocked() []bool {
	used := make([]bool, len(r.c.Interactions))
	for p, list := range r.byProt {
		for _, i := range list[:r.next[p]] {
			used[i] = true
		}
	}
	return used
}

// replayMiss is the answer to a request past the end of a replay by
// order: the client gets api, in its protocol's error layout; the
// server's problem says what ran out and shows the closest recorded
// request.
type replayMiss struct {
	api              *APIError
	summary, closest string
}

func (e *replayMiss) Error() string {
	if e.closest == "" {
		return e.summary
	}
	return e.summary + "\n" + e.closest
}

func (e *replayMiss) Unwrap() error { return e.api }

// Remaining is how many recorded interactions no request has used.
func (r *ReplayOrdered) Remaining() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for p, list := range r.byProt {
		if p != NoProtocol {
			n += len(list) - r.next[p]
		}
	}
	return n
}

// replayHeader is the header a recorded response goes out with: the
// recorded one without the headers that described the recorded bytes on
// the wire (the body was decoded on load, and net/http frames it anew),
// and with a Content-Type when the recording has none or a wrong one: an
// event stream for a body that is one, JSON otherwise.
func replayHeader(recorded http.Header, req *Request, body []byte) http.Header {
	h := http.Header{}
	for k, v := range recorded {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Length", "Content-Encoding", "Transfer-Encoding", "Connection", "Keep-Alive":
			continue
		}
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), v...)
	}
	stream := llm.IsEventStream(body)
	ct := h.Get("Content-Type")
	switch {
	case stream && !strings.HasPrefix(ct, "text/event-stream"):
		h.Set("Content-Type", "text/event-stream")
	case ct == "":
		h.Set("Content-Type", "application/json")
	}
	return h
}

// parseRecorded reads a Chat Completions or Messages answer.
func parseRecorded(path string, body []byte) (engine.Message, error) {
	return llm.ParseRecordedResponse(path, body)
}

// responsesCallIDs reads the call ids of a Responses answer: the
// function_call items of its output, from the response object or from a
// stream's output_item.done events.
func responsesCallIDs(body []byte) []string {
	type item struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
	}
	var ids []string
	if !llm.IsEventStream(body) {
		var r struct {
			Output []item `json:"output"`
		}
		if json.Unmarshal(body, &r) != nil {
			return nil
		}
		for _, it := range r.Output {
			if it.Type == "function_call" {
				ids = append(ids, it.CallID)
			}
		}
		return ids
	}
	for _, line := range bytes.Split(body, []byte("\n")) {
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		var ev struct {
			Type string `json:"type"`
			Item item   `json:"item"`
		}
		if json.Unmarshal(bytes.TrimSpace(data), &ev) == nil && ev.Type == "response.output_item.done" && ev.Item.Type == "function_call" {
			ids = append(ids, ev.Item.CallID)
		}
	}
	return ids
}
