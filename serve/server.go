package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine/llm"
)

// Source answers the model requests a Server accepts: a script, a
// cassette, or the real provider. Answer is called once per request
// that passed the server's checks, possibly concurrently.
type Source interface {
	Answer(ctx context.Context, req *Request) (Reply, error)
}

// Reply is a Source's answer: a Turn for the server to render in the
// request's protocol, or a response to send as it is.
type Reply struct {
	// Turn, when set, is rendered in the request's protocol; N is its
	// 1-based number, which default response ids carry.
	Turn *Turn
	N    int
	// Status, Header and Body, when Turn is nil, are sent as they are;
	// a body that is an event stream goes out event by event, each
	// flushed, with its bytes as given.
	Status int
	Header http.Header
	Body   []byte
	// Stream, when Turn is nil and it is set, is the body instead of
	// Body, sent as it is read: an event stream (by Header's
	// Content-Type) event by event, each as soon as it is whole. The
	// server closes it.
	Stream io.ReadCloser
}

// Options configures a Server. Source is required; the zero value of
// every other field accepts any key and any model.
type Options struct {
	// Source answers the requests.
	Source Source
	// Key, when set, is the API key every model request must carry:
	// "Authorization: Bearer <key>" for the OpenAI protocols, "X-Api-Key:
	// <key>" with an "Anthropic-Version" header for Messages,
	// "X-Goog-Api-Key: <key>" or "?key=<key>" for Gemini. A wrong or
	// missing key is answered 401 (Gemini: 403 or 400, as Google does).
	Key string
	// Models, when set, are the only model names requests may ask for
	// (others are answered 404 model_not_found); /v1/models lists them.
	Models []string
	// MaxRequestBytes bounds a request body; 0 means
	// DefaultMaxRequestBytes. A larger body is answered 413, as the
	// providers answer it, and is never read whole.
	MaxRequestBytes int64
}

// DefaultMaxRequestBytes is the largest request body a Server reads by
// default: 64 MiB, twice the 32 MB that Anthropic's Messages API accepts
// (OpenAI's limits are lower), so no request a provider would take is
// refused, and a client that streams gigabytes cannot exhaust memory.
const DefaultMaxRequestBytes = 64 << 20

// Validate reports what is wrong with the options.
func (o Options) Validate() error {
	if o.Source == nil {
		return errors.New("serve: Options.Source is nil: give a script, a cassette or a recorder")
	}
	return nil
}

// Server is an http.Handler that speaks OpenAI Chat Completions, OpenAI
// Responses, Anthropic Messages and Gemini (JSON and SSE), answering from its
// Source, and keeps a log of every exchange. It is safe for concurrent
// use.
type Server struct {
	opts Options

	mu        sync.Mutex
	exchanges []*Exchange
	problems  []string
	// requests counts every request received, for the request ids
	requests int
	// calls are the tool call ids of every answer, for Responses requests
	// that send only the outputs of calls the server made.
	calls map[string]bool
}

// New returns a server for opts.
func New(opts Options) (*Server, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts.Models = slices.Clone(opts.Models)
	return &Server{opts: opts, calls: map[string]bool{}}, nil
}

// ServeHTTP answers one request; see the package doc for the checks it
// makes and in which order.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := ProtocolOf(r.URL.Path)
	s.setRequestID(w.Header(), p, r)
	if r.Method == http.MethodGet && s.serveModels(w, r) {
		return
	}
	if p == NoProtocol || r.Method != http.MethodPost {
		s.problem("%s %s: no such route", r.Method, r.URL.Path)
		guess := guessProtocol(r.Header.Get("Anthropic-Version") != "", geminiKey(r.Header, r.URL.RawQuery) != "")
		e := errNoRoute(p, r.Method, r.URL.Path)
		if guess == Gemini {
			e = errNoRoute(Gemini, r.Method, r.URL.Path)
		}
		writeError(w, guess, e)
		return
	}
	if s.opts.Key != "" && !authorized(p, r, s.opts.Key) {
		s.problem("%s %s: missing or wrong API key", r.Method, r.URL.Path)
		e := errUnauthorized(p)
		if p == Gemini {
			e = geminiErrUnauthorized(r.Header, r.URL.RawQuery)
		}
		writeError(w, p, e)
		return
	}
	limit := s.opts.MaxRequestBytes
	if limit <= 0 {
		limit = DefaultMaxRequestBytes
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		s.problem("%s %s: the body is larger than %d bytes, the limit (Options.MaxRequestBytes)", r.Method, r.URL.Path, limit)
		writeError(w, p, &APIError{Status: http.StatusRequestEntityTooLarge, Message: "Request exceeds the maximum allowed number of bytes."})
		return
	}
	if err != nil {
		s.problem("%s %s: read body: %v", r.Method, r.URL.Path, err)
		writeError(w, p, &APIError{Status: 400, Message: "unreadable body"})
		return
	}
	query, raw := splitKey(r.URL.RawQuery, r.Header)
	req := &Request{Protocol: p, Method: r.Method, Path: r.URL.Path, Query: query, Header: cassette.ScrubHeaders(r.Header), Body: body, rawHeader: raw}
	x := s.arrive(req)
	tw := &teeWriter{ResponseWriter: w, s: s, x: x}
	s.answer(r.Context(), tw, req, x)
	s.mu.Lock()
	req.rawHeader = nil
	broken := x.broken
	s.mu.Unlock()
	if broken {
		// end the connection without the chunked body's last chunk, so
		// the client sees the stream break off as the provider's did
		panic(http.ErrAbortHandler)
	}
}

// The headers that carry an answer's request id: OpenAI's x-request-id
// and Anthropic's request-id (both providers send one with every
// answer, errors included).
const (
	openaiRequestID    = "X-Request-Id"
	anthropicRequestID = "Request-Id"
)

// setRequestID numbers the request and puts its id, "req_<n>" for the
// n-th request the server received, in the header of the provider that
// answers it: Anthropic's for Messages, OpenAI's for Chat Completions and
// Responses, and, for other paths (the model list, a route the server
// does not serve), Anthropic's when the client sent an Anthropic-Version
// header, as the error layout is chosen.
func (s *Server) setRequestID(h http.Header, p Protocol, r *http.Request) {
	s.mu.Lock()
	s.requests++
	n := s.requests
	s.mu.Unlock()
	if p == NoProtocol || r.Method != http.MethodPost {
		p = guessProtocol(r.Header.Get("Anthropic-Version") != "", geminiKey(r.Header, r.URL.RawQuery) != "")
	}
	if p == Gemini {
		return // Google's API sends no request id header
	}
	anthropic := p == Messages
	name := openaiRequestID
	if anthropic {
		name = anthropicRequestID
	}
	h[name] = []string{"req_" + strconv.Itoa(n)}
}

// arrive numbers the request and opens its exchange.
func (s *Server) arrive(req *Request) *Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.N = len(s.exchanges) + 1
	x := &Exchange{N: req.N, Request: req}
	s.exchanges = append(s.exchanges, x)
	return x
}

// answer checks the request and writes the source's answer.
func (s *Server) answer(ctx context.Context, w http.ResponseWriter, req *Request, x *Exchange) {
	fail := func(e *APIError, format string, args ...any) {
		msg := req.String() + ": " + fmt.Sprintf(format, args...)
		s.mu.Lock()
		x.Problem = msg
		s.problems = append(s.problems, msg)
		s.mu.Unlock()
		writeError(w, req.Protocol, e)
	}
	if e := req.parse(); e != nil {
		why := e.Message
		if e.cause != nil {
			why = "the body is not a request: " + e.cause.Error()
		}
		fail(e, "%s", why)
		return
	}
	if len(s.opts.Models) > 0 && !slices.Contains(s.opts.Models, req.Model) {
		fail(errUnknownModel(req.Protocol, req.Model), "unknown model %q (serving %s)", req.Model, strings.Join(s.opts.Models, ", "))
		return
	}
	if _, forwards := s.opts.Source.(*Recorder); !forwards {
		known := func(string) bool { return false }
		if req.Protocol == OpenAIResponses {
			known = s.knownCall
		}
		if id, at, ok := req.unpaired(known); ok {
			fail(errUnknownCall(req.Protocol, at, id), "%s: tool result for unknown call id %q", at, id)
			return
		}
	}
	reply, err := s.opts.Source.Answer(ctx, req)
	if err != nil {
		var ae *APIError
		if !errors.As(err, &ae) {
			ae = &APIError{Status: 500, Message: err.Error()}
		}
		fail(ae, "%v", err)
		return
	}
	if reply.Turn == nil {
		s.sendAsIs(w, req, x, reply)
		return
	}
	t := *reply.Turn
	if t.Error != nil {
		writeError(w, req.Protocol, t.Error)
		return
	}
	model := req.Model
	if t.Model != "" {
		model = t.Model
	}
	id := t.ID
	t.ToolCalls = withCallIDs(t.ToolCalls, req.Protocol, reply.N)
	// the calls are logged before the answer goes out: a client that has
	// it may send their results at once
	var ids []string
	for _, c := range t.ToolCalls {
		ids = append(ids, c.ID)
	}
	s.remember(x, ids)
	switch req.Protocol {
	case OpenAIChat:
		if id == "" {
			id = fmt.Sprintf("chatcmpl-%d", reply.N)
		}
		answerChat(w, t, model, id, req)
	case OpenAIResponses:
		if id == "" {
			id = fmt.Sprintf("resp_%d", reply.N)
		}
		answerResponses(w, t, model, id, reply.N, req)
	case Messages:
		if id == "" {
			id = fmt.Sprintf("msg_%d", reply.N)
		}
		answerMessages(w, t, model, id, req)
	case Gemini:
		if id == "" {
			id = fmt.Sprintf("response-%d", reply.N)
		}
		answerGemini(w, t, model, id, reply.N, req)
	}
}

// withCallIDs gives every tool call of answer n that has no id the id
// "call_<n>_<i>" (Chat Completions, Responses) or "toolu_<n>_<i>"
// (Messages), i its 0-based place in the answer: every protocol requires
// an id, and the client needs it to send the call's result back. A
// Turn's call marked NoID keeps none, but on Responses. The calls are
// copied, not changed in place, when one needs an id.
func withCallIDs(calls []ToolCall, p Protocol, n int) []ToolCall {
	prefix := "call_"
	if p == Messages {
		prefix = "toolu_"
	}
	var out []ToolCall
	for i, c := range calls {
		if c.ID != "" || c.NoID && p != OpenAIResponses {
			continue
		}
		if out == nil {
			out = slices.Clone(calls)
		}
		out[i].ID = prefix + strconv.Itoa(n) + "_" + strconv.Itoa(i)
	}
	if out == nil {
		return calls
	}
	return out
}

// sendAsIs sends a reply that is a response already made (a replayed
// or forwarded one): event streams event by event, each flushed, as a
// provider sends them. A forwarded stream that breaks off is a problem
// of the request; the client gets what came, then the connection is cut
// (ServeHTTP aborts it), as the provider's was.
func (s *Server) sendAsIs(w http.ResponseWriter, req *Request, x *Exchange, reply Reply) {
	h := w.Header()
	// the answer goes out with the headers it was made with: the
	// recorded or forwarded request id, not the server's
	h.Del(openaiRequestID)
	h.Del(anthropicRequestID)
	for k, v := range reply.Header {
		h[k] = slices.Clone(v)
	}
	noDate(w)
	w.WriteHeader(reply.Status)
	if reply.Stream == nil {
		// a whole body: its calls are logged before it goes out
		s.remember(x, callsOf(req.Protocol, req.Path, reply.Body))
		if llm.IsEventStream(reply.Body) {
			relay(w, bytes.NewReader(reply.Body), true)
		} else {
			w.Write(reply.Body)
		}
		return
	}
	defer reply.Stream.Close()
	var sent bytes.Buffer
	err := relay(w, io.TeeReader(reply.Stream, &sent), strings.HasPrefix(h.Get("Content-Type"), "text/event-stream"))
	var gone *clientGone
	if err != nil && !errors.As(err, &gone) {
		msg := fmt.Sprintf("%s: the answer broke off: %v", req, err)
		s.mu.Lock()
		x.Problem, x.broken = msg, true
		s.problems = append(s.problems, msg)
		s.mu.Unlock()
	}
	s.remember(x, callsOf(req.Protocol, req.Path, sent.Bytes()))
}

// remember keeps the tool call ids of an answer.
func (s *Server) remember(x *Exchange, ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x.Calls = ids
	for _, id := range ids {
		s.calls[id] = true
	}
}

func (s *Server) knownCall(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[id]
}

func (s *Server) problem(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.problems = append(s.problems, fmt.Sprintf(format, args...))
}

// authorized checks the key the way the provider of p expects it.
func authorized(p Protocol, r *http.Request, key string) bool {
	h := r.Header
	switch p {
	case Messages:
		return h.Get("X-Api-Key") == key && h.Get("Anthropic-Version") != ""
	case Gemini:
		return geminiKey(h, r.URL.RawQuery) == key
	}
	return h.Get("Authorization") == "Bearer "+key
}

// splitKey takes a key= parameter (Gemini's API key) out of a query: the
// query without it is what the server keeps and forwards, and the key
// moves into the header a Recorder forwards, as x-goog-api-key (unless
// that header is already set), so it never reaches a URL that is stored.
func splitKey(rawQuery string, h http.Header) (query string, header http.Header) {
	if !strings.Contains(rawQuery, "key=") {
		return rawQuery, h
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil || !q.Has("key") {
		return rawQuery, h
	}
	key := q.Get("key")
	q.Del("key")
	header = h
	if h.Get("X-Goog-Api-Key") == "" {
		header = h.Clone()
		header.Set("X-Goog-Api-Key", key)
	}
	return q.Encode(), header
}

// Exchanges returns a copy of every exchange so far, in the order the
// requests arrived. An exchange still being answered holds what has been
// sent so far (Status 0 before its headers went out); what a client has
// received is always in it.
func (s *Server) Exchanges() []Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Exchange, len(s.exchanges))
	for i, x := range s.exchanges {
		out[i] = *x
		out[i].Calls = slices.Clone(x.Calls)
		out[i].Response = slices.Clip(x.Response)
	}
	return out
}

// Err reports every request the server refused (a route it does not
// serve, a wrong key, a body it cannot take, an unknown model or call id,
// a request the source has no answer for), one per line naming the
// request, or nil when it answered every request. A scripted error
// answer (Turn.Error, a script's "raise") is an answer, not a problem.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(s.problems, "\n"))
}

// Problems returns what Err reports, one entry per refused request, in
// the order they were refused; an entry may run over several lines (a
// replay that ran out shows the closest recorded request).
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.problems)
}

// Exchange is one request and the answer the server gave.
type Exchange struct {
	// N is the request's 1-based number, in arrival order.
	N int
	// Request is the request, read.
	Request *Request
	// Status, Header and Response are the answer as sent: the status,
	// headers and body (a whole event stream for a streamed answer).
	Status   int
	Header   http.Header
	Response []byte
	// Calls are the ids of the tool calls the answer made, in order.
	Calls []string
	// Problem says why the server refused the request, or that a
	// forwarded answer broke off; "" when the source answered it.
	Problem string

	// broken: the forwarded answer broke off, so the connection is cut.
	broken bool
}

// teeWriter keeps what is sent in the exchange's log as it is sent —
// the status and headers before they go out, each piece of the body
// before the client can have it — so that a client that has read an
// answer finds it in the log whole, even while the handler is still
// returning.
type teeWriter struct {
	http.ResponseWriter
	s *Server
	x *Exchange
}

func (t *teeWriter) WriteHeader(code int) {
	t.s.mu.Lock()
	if t.x.Status == 0 {
		t.x.Status, t.x.Header = code, t.Header().Clone()
	}
	t.s.mu.Unlock()
	t.ResponseWriter.WriteHeader(code)
}

func (t *teeWriter) Write(b []byte) (int, error) {
	t.s.mu.Lock()
	if t.x.Status == 0 {
		t.x.Status, t.x.Header = http.StatusOK, t.Header().Clone()
	}
	t.x.Response = append(t.x.Response, b...)
	t.s.mu.Unlock()
	return t.ResponseWriter.Write(b)
}

// Flush passes a flush on, so streamed answers reach the client as they
// are written.
func (t *teeWriter) Flush() {
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// callsOf reads the tool call ids of a response body sent as is (a
// replayed or forwarded one), in any protocol, JSON or stream; a body it
// cannot read has none.
func callsOf(p Protocol, path string, body []byte) []string {
	var ids []string
	switch p {
	case OpenAIResponses:
		ids = responsesCallIDs(body)
	case Gemini:
		ids = geminiCallIDs(body)
	case OpenAIChat, Messages:
		m, err := parseRecorded(path, body)
		if err != nil {
			return nil
		}
		for _, c := range m.ToolCalls {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// Listen serves h on addr ("127.0.0.1:0" for a free port) until ctx is
// done or Close is called; URL is its base, "http://127.0.0.1:PORT".
func Listen(ctx context.Context, addr string, h http.Handler) (*Listener, error) {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serve: listen on %s: %w", addr, err)
	}
	ln := &Listener{URL: "http://" + l.Addr().String(), done: make(chan struct{})}
	ln.idle = sync.NewCond(&ln.mu)
	life, endLife := context.WithCancel(ctx)
	ln.endLife = endLife
	// every handler is counted, so Close can wait for the last answer
	// (and the recording of a relayed stream) to be finished
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ln.mu.Lock()
		ln.active++
		ln.mu.Unlock()
		defer func() {
			ln.mu.Lock()
			ln.active--
			ln.idle.Broadcast()
			ln.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
	base := context.WithValue(ctx, lifetimeKey{}, life)
	ln.srv = &http.Server{Handler: counted, BaseContext: func(net.Listener) context.Context { return base }}
	go func() {
		defer close(ln.done)
		if err := ln.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			ln.err = err
		}
	}()
	ln.stop = context.AfterFunc(ctx, func() { ln.srv.Close() })
	return ln, nil
}

// Listener is a running server.
type Listener struct {
	// URL is the server's base, "http://127.0.0.1:PORT".
	URL  string
	srv  *http.Server
	done chan struct{}
	stop func() bool
	err  error
	// endLife ends the requests a Recorder still has with providers.
	endLife context.CancelFunc

	mu     sync.Mutex
	active int // handlers running
	idle   *sync.Cond
}

// waitHandlers blocks until no handler is running.
func (l *Listener) waitHandlers() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.active > 0 {
		l.idle.Wait()
	}
}

// lifetimeKey holds, in a request's context, the context of the
// Listener serving it, which ends when the listener closes: the
// requests a Recorder forwards outlive their client's (see
// upstreamContext) but not the server.
type lifetimeKey struct{}

// Close stops the server, closing open connections (which cancels the
// requests still being answered, and the providers' answers a Recorder
// is still reading), and waits for it and for every handler to return,
// so the exchange log is complete and a relayed stream recorded once
// Close returns.
func (l *Listener) Close() error {
	l.stop()
	err := l.srv.Close()
	<-l.done
	l.endLife()
	l.waitHandlers()
	if l.err != nil {
		return l.err
	}
	return err
}

// Wait blocks until the server stops (its context is done or Close is
// called) and returns why it failed, or nil.
func (l *Listener) Wait() error {
	<-l.done
	l.endLife()
	l.waitHandlers()
	return l.err
}
