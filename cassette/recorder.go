package cassette

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
)

// Options configures a Recorder. The zero value replays the cassette and
// never touches the network.
type Options struct {
	// Mode is what the recorder does; the zero value is ModeReplay.
	Mode Mode
	// Scenario names the scenario in errors ("cassette: scenario
	// \"weather\": ...").
	Scenario string
	// Transport carries requests to the real servers in record,
	// replay-or-record and live mode; nil means http.DefaultTransport.
	// Replay mode never uses it: its transport fails every request.
	Transport http.RoundTripper
	// Overwrite lets record mode replace an existing cassette file.
	Overwrite bool
	// IgnoreFields lists dotted JSON paths left out of body matching, on
	// top of the built-in equivalences, with "*" for any key or index:
	// "max_tokens", "messages.*.content.*.cache_control". Use it for
	// cassettes recorded by another client whose requests carry fields
	// the engine does not send. A lone "*" ignores the whole body.
	IgnoreFields []string
	// IgnoreQuery leaves the URL query out of matching.
	IgnoreQuery bool
	// Limits bounds the cassette file Open loads and the bodies a
	// recording decodes; the zero value means the defaults (see Limits).
	Limits Limits
	// Scrubbing adds a project's credential headers and secret values to
	// the credential table: recorded interactions are scrubbed of them,
	// and Open refuses a file that holds one (the error wraps
	// ErrCredential).
	Scrubbing Scrubbing
	// Now reads the clock for recorded latency; nil means time.Now. Tests
	// set it to record reproducible files.
	Now func() time.Time
}

// Call is one request a Recorder served.
type Call struct {
	// Interaction is the index of the interaction that answered it.
	Interaction int
	// Recorded is true when the request went to the real server in this
	// run (record and replay-or-record modes).
	Recorded bool
	Method   string
	URL      string
	// Code is the response's status code.
	Code int
	// Duration is the recorded latency of the interaction: what a live
	// run waited. Replay never sleeps.
	Duration time.Duration
}

// Recorder is an http.RoundTripper that replays and records a cassette.
// It is safe for concurrent use. Each interaction answers at most one
// request: a request takes the first unused interaction that matches, in
// recording order.
type Recorder struct {
	opts   Options
	path   string
	real   http.RoundTripper
	ignore []fieldPath
	now    func() time.Time

	mu       sync.Mutex
	cassette *Cassette
	keys     []requestKey
	used     []bool
	calls    []Call
	dirty    bool
	stopped  bool
	// failed is the first request of this run that could not be
	// recorded; a recording with a failure is never written.
	failed error
	// streams counts the streamed responses still being read, which
	// are stored when they end.
	streams int
	// seqs holds, for each interaction, the place of its request among
	// those this run recorded (-1 for an interaction loaded from the
	// file), and next the place the next request takes: an exchange is
	// stored in the order its request was sent, not the order it ended
	// (a streamed answer the client stopped reading at "data: [DONE]"
	// ends after the next request's answer when that one is quicker)
	seqs []int
	next int
}

// Open returns a recorder for the cassette at path. Replay mode loads and
// validates the file (a missing file wraps ErrCassetteNotFound); record
// mode refuses an existing file unless Options.Overwrite (wrapping
// ErrCassetteExists); replay-or-record loads the file when it exists;
// live mode reads nothing.
func Open(path string, opts Options) (*Recorder, error) {
	opts.Scrubbing.Values = SecretValues(opts.Scrubbing.Values...)
	r := &Recorder{opts: opts, path: path, ignore: parseFieldPaths(opts.IgnoreFields), now: opts.Now}
	if r.now == nil {
		r.now = time.Now
	}
	r.real = opts.Transport
	if r.real == nil {
		r.real = http.DefaultTransport
	}
	c := &Cassette{Path: path}
	switch opts.Mode {
	case ModeReplay:
		r.real = noNetwork{}
		loaded, err := opts.Limits.Load(path)
		if err != nil {
			return nil, r.wrap(err)
		}
		c = loaded
	case ModeRecord:
		if !opts.Overwrite {
			if _, err := os.Lstat(path); err == nil {
				return nil, r.wrap(fmt.Errorf("record %s: %w (record mode writes a fresh cassette: delete it, or use replay-or-record)", path, ErrCassetteExists))
			}
		}
	case ModeReplayOrRecord:
		loaded, err := opts.Limits.Load(path)
		switch {
		case err == nil:
			c = loaded
		case errors.Is(err, ErrCassetteNotFound):
		case errors.Is(err, ErrCassetteEmpty) && !errors.Is(err, ErrCredential):
			// an empty file holds nothing to keep: record over it
		default:
			return nil, r.wrap(err)
		}
	case ModeLive:
	default:
		return nil, fmt.Errorf("cassette %s: unknown mode %v", path, opts.Mode)
	}
	if err := c.checkScrubbing(&opts.Scrubbing); err != nil {
		return nil, r.wrap(err)
	}
	r.cassette = c
	r.keys = make([]requestKey, len(c.Interactions))
	for i, in := range c.Interactions {
		r.keys[i] = newRequestKey(in.Request.Method, in.Request.URL, in.Request.Body, r.ignore, opts.IgnoreQuery)
	}
	r.used = make([]bool, len(c.Interactions))
	r.seqs = slices.Repeat([]int{-1}, len(c.Interactions))
	return r, nil
}

// Replay returns a replaying recorder over a cassette already in memory
// (an imported one, say); c.Path names it in errors. opts.Mode is
// ignored: the recorder only replays.
func Replay(c *Cassette, opts Options) *Recorder {
	r := &Recorder{opts: opts, path: c.Path, ignore: parseFieldPaths(opts.IgnoreFields), now: opts.Now, real: noNetwork{}}
	r.opts.Mode = ModeReplay
	if r.now == nil {
		r.now = time.Now
	}
	r.cassette = &Cassette{Path: c.Path, Interactions: append([]*vcr.Interaction(nil), c.Interactions...), Lines: append([]int(nil), c.Lines...)}
	r.keys = make([]requestKey, len(c.Interactions))
	for i, in := range c.Interactions {
		r.keys[i] = newRequestKey(in.Request.Method, in.Request.URL, in.Request.Body, r.ignore, opts.IgnoreQuery)
	}
	r.used = make([]bool, len(c.Interactions))
	return r
}

func (r *Recorder) wrap(err error) error {
	if err == nil || r.opts.Scenario == "" {
		return err
	}
	return fmt.Errorf("scenario %q: %w", r.opts.Scenario, err)
}

// Mode returns the recorder's mode.
func (r *Recorder) Mode() Mode { return r.opts.Mode }

// Client returns an *http.Client that sends its requests through r, for
// option.WithHTTPClient.
func (r *Recorder) Client() *http.Client { return &http.Client{Transport: r} }

// noNetwork is replay mode's real transport: it fails every request, so a
// replaying recorder cannot open a connection even by mistake.
type noNetwork struct{}

func (noNetwork) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return nil, fmt.Errorf("cassette: replay mode never opens a connection (%s %s)", req.Method, req.URL.Redacted())
}

// RoundTrip answers req from the cassette or sends it on, as the mode
// says. It reads and closes req.Body and changes nothing else in req.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if r.opts.Mode == ModeLive {
		return r.real.RoundTrip(req)
	}
	if err := req.Context().Err(); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("cassette %s: read request body: %w", r.path, err)
		}
	}
	if r.opts.Mode == ModeReplay || r.opts.Mode == ModeReplayOrRecord {
		// the recording holds the project's secret values as REDACTED:
		// the live request is matched as if it did too
		sc := &r.opts.Scrubbing
		key := newRequestKey(req.Method, sc.values(req.URL.String()), sc.values(string(body)), r.ignore, r.opts.IgnoreQuery)
		r.mu.Lock()
		for i, k := range r.keys {
			if !r.used[i] && k.equal(key) {
				r.used[i] = true
				in := r.cassette.Interactions[i]
				r.calls = append(r.calls, Call{Interaction: i, Method: req.Method, URL: req.URL.String(), Code: in.Response.Code, Duration: in.Response.Duration})
				r.mu.Unlock()
				return respond(req, in), nil
			}
		}
		if r.opts.Mode == ModeReplay {
			err := r.miss(req, key)
			r.mu.Unlock()
			return nil, err
		}
		r.mu.Unlock()
	}
	return r.record(req, body)
}

// record sends the request to the real transport, stores a scrubbed,
// decoded copy of the exchange and answers with the server's own
// response: the live run sees exactly what the provider sent (status,
// headers and body bytes, an encoding the client asked for included),
// never the scrubbed copy, whose redactions would otherwise reach the
// agent and go back to the provider in its next request.
func (r *Recorder) record(req *http.Request, body []byte) (*http.Response, error) {
	out := req.Clone(req.Context())
	out.Header = req.Header.Clone()
	if body != nil {
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		out.ContentLength = int64(len(body))
	}
	r.mu.Lock()
	seq := r.next
	r.next++
	r.mu.Unlock()
	start := r.now()
	resp, err := r.real.RoundTrip(out)
	if err != nil {
		r.fail(fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), err))
		return nil, err
	}
	if isEventStream(resp.Header) {
		r.mu.Lock()
		r.streams++
		r.mu.Unlock()
		resp.Body = &streamBody{r: r, req: req, reqBody: body, resp: resp, src: resp.Body, start: start, seq: seq}
		resp.Request = req
		return resp, nil
	}
	max := r.opts.Limits.maxBody()
	respBody, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	resp.Body.Close()
	if err == nil && int64(len(respBody)) > max {
		respBody, err = nil, fmt.Errorf("the body is longer than %d bytes, the body limit (Limits.MaxBodyBytes)", max)
	}
	if err != nil {
		err = fmt.Errorf("cassette %s: read response body: %w", r.path, err)
		r.fail(fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), err))
		return nil, err
	}
	if err := r.store(req, body, resp, respBody, r.now().Sub(start), seq); err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	resp.Request = req
	return resp, nil
}

// store keeps a scrubbed, decoded copy of one exchange, the seq-th
// request this run recorded, after the interactions of the requests sent
// before it.
func (r *Recorder) store(req *http.Request, body []byte, resp *http.Response, respBody []byte, elapsed time.Duration, seq int) error {
	in := &vcr.Interaction{
		Request: vcr.Request{
			Body:    string(body),
			Headers: req.Header.Clone(),
			URL:     req.URL.String(),
			Method:  req.Method,
		},
		Response: vcr.Response{
			Body:     string(respBody),
			Headers:  resp.Header.Clone(),
			Status:   resp.Status,
			Code:     resp.StatusCode,
			Duration: elapsed,
		},
	}
	if err := decodeBodies(in, r.opts.Limits.maxBody()); err != nil {
		err = fmt.Errorf("cassette %s: %w", r.path, err)
		r.fail(err)
		return err
	}
	stored := r.opts.Scrubbing.Scrub(in)
	key := newRequestKey(stored.Request.Method, stored.Request.URL, stored.Request.Body, r.ignore, r.opts.IgnoreQuery)
	r.mu.Lock()
	defer r.mu.Unlock()
	idx := len(r.cassette.Interactions)
	for idx > 0 && r.seqs[idx-1] > seq {
		idx--
	}
	r.cassette.Interactions = slices.Insert(r.cassette.Interactions, idx, stored)
	r.cassette.Lines = slices.Insert(r.cassette.Lines, idx, 0)
	r.keys = slices.Insert(r.keys, idx, key)
	r.used = slices.Insert(r.used, idx, true)
	r.seqs = slices.Insert(r.seqs, idx, seq)
	for i := range r.calls {
		// the calls stored before this one whose interactions moved up
		if r.calls[i].Interaction >= idx {
			r.calls[i].Interaction++
		}
	}
	r.calls = append(r.calls, Call{Interaction: idx, Recorded: true, Method: req.Method, URL: req.URL.String(), Code: stored.Response.Code, Duration: elapsed})
	r.dirty = true
	return nil
}

// isEventStream reports whether a live response is a server-sent event
// stream, by its Content-Type.
func isEventStream(h http.Header) bool {
	ct := strings.TrimSpace(strings.ToLower(h.Get("Content-Type")))
	return strings.HasPrefix(ct, "text/event-stream")
}

// streamBody is the body of a streamed response being recorded: it
// passes the provider's bytes through as they arrive, so the client
// reads each event when the provider sends it, and keeps a copy; when
// the stream ends the exchange is stored as one interaction whose body
// is the whole stream, its events as they came. A client that closes the
// body before the end (an SDK stops reading at "data: [DONE]") has the
// rest read for it, so the recording is whole; a stream that breaks off
// fails the recording.
type streamBody struct {
	r       *Recorder
	req     *http.Request
	reqBody []byte
	resp    *http.Response
	src     io.ReadCloser
	start   time.Time
	seq     int // the request's place (see Recorder.seqs)

	mu   sync.Mutex
	buf  bytes.Buffer
	done bool
}

// Read implements io.Reader.
func (b *streamBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return 0, io.EOF
	}
	n, err := b.src.Read(p)
	b.buf.Write(p[:n])
	switch {
	case errors.Is(err, io.EOF):
		b.finish(nil)
	case err != nil:
		b.finish(err)
	case int64(b.buf.Len()) > b.r.opts.Limits.maxBody():
		b.finish(fmt.Errorf("the stream is longer than %d bytes, the body limit (Limits.MaxBodyBytes)", b.r.opts.Limits.maxBody()))
	}
	return n, err
}

// Close reads what the client left unread, stores the exchange and
// closes the provider's body.
func (b *streamBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.done {
		_, err := io.Copy(&b.buf, io.LimitReader(b.src, b.r.opts.Limits.maxBody()-int64(b.buf.Len())+1))
		if err == nil && int64(b.buf.Len()) > b.r.opts.Limits.maxBody() {
			err = fmt.Errorf("the stream is longer than %d bytes, the body limit (Limits.MaxBodyBytes)", b.r.opts.Limits.maxBody())
		}
		b.finish(err)
	}
	return b.src.Close()
}

// finish stores the exchange, or fails the recording with err. The
// caller holds b.mu.
func (b *streamBody) finish(err error) {
	b.done = true
	r := b.r
	if err != nil {
		r.fail(fmt.Errorf("%s %s: cassette %s: read the streamed response: %w", b.req.Method, b.req.URL.Redacted(), r.path, err))
	} else {
		r.store(b.req, b.reqBody, b.resp, b.buf.Bytes(), r.now().Sub(b.start), b.seq)
	}
	r.mu.Lock()
	r.streams--
	r.mu.Unlock()
}

// fail remembers the first request that could not be recorded.
func (r *Recorder) fail(err error) {
	r.mu.Lock()
	if r.failed == nil {
		r.failed = err
	}
	r.mu.Unlock()
}

// respond builds the response to req from a recorded interaction. The
// recorded latency is not waited for.
func respond(req *http.Request, in *vcr.Interaction) *http.Response {
	h := in.Response.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	status := in.Response.Status
	if status == "" {
		status = statusLine(in.Response.Code, "")
	} else if !strings.HasPrefix(status, strconv.Itoa(in.Response.Code)) {
		status = strconv.Itoa(in.Response.Code) + " " + status
	}
	return &http.Response{
		Status:        status,
		StatusCode:    in.Response.Code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(strings.NewReader(in.Response.Body)),
		ContentLength: int64(len(in.Response.Body)),
		Request:       req,
	}
}

// miss builds the error for a request no unused interaction matched.
// The caller holds r.mu.
func (r *Recorder) miss(req *http.Request, key requestKey) error {
	e := &MissError{Scenario: r.opts.Scenario, Path: r.path, Method: req.Method, URL: req.URL.Redacted()}
	e.Closest = nearest(r.cassette, r.keys, r.used, key)
	return e
}

// nearest finds the interaction of c (whose request keys are keys)
// closest to key, an unused one on a tie, or nil when c is empty.
func nearest(c *Cassette, keys []requestKey, used []bool, key requestKey) *Nearest {
	best, bestD := -1, 0
	reqDisplay := key.display()
	for i, k := range keys {
		d := k.distance(key, reqDisplay)
		if used[i] {
			d++ // prefer an unused interaction on a tie
		}
		if best < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	if best < 0 {
		return nil
	}
	in := c.Interactions[best]
	rec := keys[best]
	n := &Nearest{Index: best, Line: c.line(best), Method: in.Request.Method, URL: in.Request.URL, Used: used[best], Differences: rec.differences(key)}
	if rec.body != key.body {
		n.Diff = formatDiff(rec.display(), reqDisplay, 3, 80)
	}
	return n
}

// NearestTo returns the interaction of c whose request is closest to the
// one given (method, URL and body), as a MissError shows it: its index,
// line, what differs and a diff of the canonical bodies; nil when c has
// no interactions. used, when not nil, marks the interactions a replay
// has already answered with (one per interaction); opts.IgnoreFields and
// opts.IgnoreQuery apply as in matching. A replay that answers by
// another rule than matching (serve's replay by order) uses it to show
// what a request that found no answer was closest to.
func NearestTo(c *Cassette, method, url, body string, used []bool, opts Options) *Nearest {
	ignore := parseFieldPaths(opts.IgnoreFields)
	keys := make([]requestKey, len(c.Interactions))
	for i, in := range c.Interactions {
		keys[i] = newRequestKey(in.Request.Method, in.Request.URL, in.Request.Body, ignore, opts.IgnoreQuery)
	}
	if used == nil {
		used = make([]bool, len(keys))
	}
	return nearest(c, keys, used, newRequestKey(method, url, body, ignore, opts.IgnoreQuery))
}

// Calls returns the requests served so far, in the order they were
// answered.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// Unused returns the indexes of interactions no request has used: after
// a replay, a non-empty list means the scenario made fewer calls than
// were recorded.
func (r *Recorder) Unused() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int
	for i, u := range r.used {
		if !u {
			out = append(out, i)
		}
	}
	return out
}

// Cassette returns a copy of the cassette as it stands: loaded
// interactions plus those recorded in this run.
func (r *Recorder) Cassette() *Cassette {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &Cassette{
		Path:         r.cassette.Path,
		Interactions: append([]*vcr.Interaction(nil), r.cassette.Interactions...),
		Lines:        append([]int(nil), r.cassette.Lines...),
	}
}

// Stop ends a recording that holds what the run did and writes it,
// atomically and durably (see Cassette.Save): record mode writes
// the cassette, replay-or-record mode rewrites it when something new was
// recorded; replay and live write nothing. A recording is never written
// when one of its requests failed (a refused connection, a broken body)
// or, in record mode, when the run made no request at all: Stop then
// writes nothing, leaves an earlier file byte for byte as it was, and
// returns an error wrapping ErrRecordingFailed. Stop is idempotent.
func (r *Recorder) Stop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return nil
	}
	r.stopped = true
	if !r.opts.Mode.Recording() || r.opts.Mode == ModeLive {
		return nil
	}
	if r.failed != nil {
		return r.wrap(fmt.Errorf("cassette %s: %w: %w", r.path, ErrRecordingFailed, r.failed))
	}
	if r.streams > 0 {
		return r.wrap(fmt.Errorf("cassette %s: %w: %d streamed responses were still being read (close a response body before Stop)", r.path, ErrRecordingFailed, r.streams))
	}
	switch r.opts.Mode {
	case ModeRecord:
		if len(r.cassette.Interactions) == 0 {
			return r.wrap(fmt.Errorf("cassette %s: %w: the run made no request to record", r.path, ErrRecordingFailed))
		}
		return r.wrap(r.cassette.save(r.path, r.opts.Overwrite, &r.opts.Scrubbing))
	case ModeReplayOrRecord:
		if r.dirty {
			return r.wrap(r.cassette.save(r.path, true, &r.opts.Scrubbing))
		}
	}
	return nil
}

// Finish ends the recording of a run that ended with runErr: Stop when
// the run succeeded, Discard when it failed.
func (r *Recorder) Finish(runErr error) error {
	if runErr != nil {
		return r.Discard()
	}
	return r.Stop()
}

// Discard ends a recording without writing anything, for a run that
// failed: what it recorded is not what a complete run does, so an
// earlier cassette stays as it was. It returns what Stop would have
// refused for, or nil; after Stop or Discard, both do nothing.
func (r *Recorder) Discard() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return nil
	}
	r.stopped = true
	if r.failed != nil {
		return r.wrap(fmt.Errorf("cassette %s: %w: %w", r.path, ErrRecordingFailed, r.failed))
	}
	return nil
}
