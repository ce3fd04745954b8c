package llmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Turn is one scripted answer. The zero Turn answers with empty text and
// zero usage.
type Turn struct {
	// Text is the answer's text; "" for none.
	Text string
	// ToolCalls are the tool calls the answer makes, in order.
	ToolCalls []ToolCall
	// Usage is the token count the answer reports.
	Usage Usage
	// Model is the model name the answer reports; "" reports the model
	// the request named.
	Model string
	// ID is the response id; "" means "chatcmpl-<n>" (OpenAI) or
	// "msg_<n>" (Anthropic) for turn n (1-based).
	ID string
	// Error, when set, answers with an error status instead of a message.
	Error *Error
	// Check, when set, inspects the request before the turn answers it.
	// An error it returns is answered with status 400 and kept as a
	// problem (see Server.Err); the turn is not used up.
	Check func(Request) error
}

// ToolCall is one tool call of an answer.
type ToolCall struct {
	// ID is the call's id ("call_1", "toolu_1"); "" sends none, as some
	// OpenAI-compatible servers do.
	ID string
	// Name is the tool's name.
	Name string
	// Args is the arguments as JSON text, sent as given: OpenAI's
	// arguments string (which need not parse, to test invalid calls) or
	// Anthropic's input object ("" means {}).
	Args string
}

// Usage is the token count of an answer.
type Usage struct {
	// Input and Output count the prompt and completion tokens.
	Input, Output int
	// CacheRead counts prompt tokens read from a cache: OpenAI reports
	// them among Input (prompt_tokens_details.cached_tokens), Anthropic
	// besides it (cache_read_input_tokens). Zero sends no such field.
	CacheRead int
}

// Error is an error answer.
type Error struct {
	// Status is the HTTP status (429, 500, 529, ...).
	Status int
	// Type is the error's type ("rate_limit_error", "overloaded_error",
	// "requests").
	Type string
	// Code is OpenAI's error code ("rate_limit_exceeded"); Anthropic has
	// none.
	Code string
	// Message is the error's message.
	Message string
}

// Request is a request a server received.
type Request struct {
	// N is the request's number, from 1, in the order requests arrived.
	N int
	// Method, Path and Header are the request's.
	Method string
	Path   string
	Header http.Header
	// Body is the request body as received.
	Body []byte
	// Stream says the body asked for a stream.
	Stream bool
}

// JSON decodes the body into a generic value (maps, slices, strings,
// json.Number, bools, nil).
func (r Request) JSON() (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(r.Body))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// Messages returns the body's "messages" list, each message as a map;
// nil when the body has none.
func (r Request) Messages() []map[string]any {
	m, err := r.JSON()
	if err != nil {
		return nil
	}
	list, _ := m["messages"].([]any)
	var out []map[string]any
	for _, x := range list {
		if o, ok := x.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out
}

// api is what differs between the two wire formats.
type api interface {
	name() string
	route(path string) bool
	authorized(h http.Header, key string) bool
	fail(w http.ResponseWriter, e Error)
	answer(w http.ResponseWriter, t Turn, model, id string, stream bool)
	defaultID(n int) string
}

// Server is a fake provider that answers a script of turns. It is safe
// for concurrent use; concurrent requests take turns in the order they
// acquire its lock.
type Server struct {
	api   api
	key   string
	turns []Turn

	// turnMu makes taking, checking and using up a turn one step, so
	// concurrent requests cannot answer with the same turn.
	turnMu sync.Mutex

	mu       sync.Mutex
	next     int
	requests []Request
	problems []string
}

// NewOpenAI returns a fake Chat Completions server that wants the key as
// a bearer token (an empty key accepts any request) and answers with the
// turns in order.
func NewOpenAI(key string, turns ...Turn) *Server {
	return &Server{api: openaiAPI{}, key: key, turns: turns}
}

// NewAnthropic returns a fake Messages server that wants the key in
// X-Api-Key (an empty key accepts any request) and answers with the turns
// in order.
func NewAnthropic(key string, turns ...Turn) *Server {
	return &Server{api: anthropicAPI{}, key: key, turns: turns}
}

// ServeHTTP answers a request with the next turn, after the checks the
// package doc lists.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.api.route(r.URL.Path) {
		s.problem("%s %s: no such route", r.Method, r.URL.Path)
		s.api.fail(w, Error{Status: http.StatusNotFound, Type: "not_found_error", Message: "no route " + r.URL.Path})
		return
	}
	if s.key != "" && !s.api.authorized(r.Header, s.key) {
		s.problem("%s %s: missing or wrong API key", r.Method, r.URL.Path)
		s.api.fail(w, Error{Status: http.StatusUnauthorized, Type: "authentication_error", Code: "invalid_api_key", Message: "Incorrect API key provided"})
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.problem("read body: %v", err)
		s.api.fail(w, Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "unreadable body"})
		return
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	m, jerr := req.JSON()
	if jerr == nil {
		req.Stream = m["stream"] == true
	}

	s.turnMu.Lock()
	defer s.turnMu.Unlock()
	s.mu.Lock()
	req.N = len(s.requests) + 1
	s.requests = append(s.requests, req)
	var (
		turn Turn
		have bool
	)
	n := s.next + 1
	if s.next < len(s.turns) {
		turn, have = s.turns[s.next], true
	}
	s.mu.Unlock()

	model, _ := m["model"].(string)
	_, hasMessages := m["messages"].([]any)
	switch {
	case jerr != nil:
		s.problem("request %d: body is not a JSON object: %v", req.N, jerr)
		s.api.fail(w, Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "body is not a JSON object"})
		return
	case model == "" || !hasMessages:
		s.problem("request %d: body lacks a \"model\" string or a \"messages\" list", req.N)
		s.api.fail(w, Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "model and messages are required"})
		return
	case !have:
		s.problem("request %d: the script has only %d turns", req.N, len(s.turns))
		s.api.fail(w, Error{Status: http.StatusInternalServerError, Type: "api_error", Message: fmt.Sprintf("llmtest: script exhausted after %d turns", len(s.turns))})
		return
	}
	if turn.Check != nil {
		if err := turn.Check(req); err != nil {
			s.problem("request %d: %v", req.N, err)
			s.api.fail(w, Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: err.Error()})
			return
		}
	}

	s.mu.Lock()
	s.next++
	s.mu.Unlock()
	if e := turn.Error; e != nil {
		s.api.fail(w, *e)
		return
	}
	if turn.Model != "" {
		model = turn.Model
	}
	id := turn.ID
	if id == "" {
		id = s.api.defaultID(n)
	}
	s.api.answer(w, turn, model, id, req.Stream)
}

func (s *Server) problem(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.problems = append(s.problems, s.api.name()+": "+fmt.Sprintf(format, args...))
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Remaining is how many turns of the script are still unanswered.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns) - s.next
}

// Err reports every failed check so far, one per line, or nil when every
// request passed them. A turn's scripted Error is an answer, not a
// problem.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(s.problems, "\n"))
}

// Listen serves h on addr ("127.0.0.1:18731") and returns the running
// server; Close it when done. Use it when the URL must be fixed in
// advance, as in a scenario's base_url; httptest.NewServer picks a free
// port instead.
func Listen(addr string, h http.Handler) (*httptest.Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("llmtest: listen on %s: %w", addr, err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Listener.Close()
	ts.Listener = l
	ts.Start()
	return ts, nil
}

// writeJSON answers with a JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest: marshal answer: %v", err)) // our own types always marshal
	}
	noDate(w)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// noDate keeps net/http from adding a Date header, so that a recorded
// answer does not depend on the clock.
func noDate(w http.ResponseWriter) { w.Header()["Date"] = nil }

// event is one server-sent event: an event name (or "") and a value
// marshalled as its data, or raw data when the value is a string.
type event struct {
	name string
	data any
}

// writeEvents answers with a stream of server-sent events.
func writeEvents(w http.ResponseWriter, evs []event) {
	noDate(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	var b bytes.Buffer
	for _, ev := range evs {
		if ev.name != "" {
			fmt.Fprintf(&b, "event: %s\n", ev.name)
		}
		data, ok := ev.data.(string)
		if !ok {
			raw, err := json.Marshal(ev.data)
			if err != nil {
				panic(fmt.Sprintf("llmtest: marshal event: %v", err))
			}
			data = string(raw)
		}
		fmt.Fprintf(&b, "data: %s\n\n", data)
	}
	w.Write(b.Bytes())
}

// halves splits s in two at a rune boundary near its middle, so streams
// carry every text in more than one piece; a text shorter than two runes
// is one piece.
func halves(s string) []string {
	r := []rune(s)
	if len(r) < 2 {
		return []string{s}
	}
	return []string{string(r[:len(r)/2]), string(r[len(r)/2:])}
}
