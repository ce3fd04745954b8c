package llm

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/agenteval/agenteval/engine"
)

// ErrScriptExhausted is wrapped by the error a Scripted model returns when
// a call comes after the last scripted response and the script has no
// Repeat.
var ErrScriptExhausted = errors.New("script exhausted")

// Script is what a scripted model answers: Responses in order, then Repeat
// (if set) forever.
type Script struct {
	Responses []Response
	// Repeat is answered for every call after Responses run out ("then:
	// repeat"); each "{n}" in its strings is replaced by the 1-based call
	// number. Nil means that such a call is an error.
	Repeat *Response
	// ChunkSize is how many characters (runes) of an answer's text each
	// chunk carries when the model is streamed (stream_mode="messages");
	// 0 streams the text as one chunk. Tool calls and usage come with the
	// last chunk.
	ChunkSize int
}

// Response is one answer: a message, or an error to raise.
type Response struct {
	// Message is the AI message to answer with. Its Type must be
	// engine.TypeAI; an empty Type is taken as engine.TypeAI.
	Message engine.Message
	// Raise, when set, makes the call fail with this error instead.
	Raise *engine.Error
}

// Call is one recorded call to a scripted model.
type Call struct {
	// Model is the name of the model that was called.
	Model string
	// N is the call's 1-based number, counted per model.
	N int
	// Request is a deep copy of what was sent; the zero ModelRequest for
	// a call older than the model's request log keeps (WithRequestLog).
	Request engine.ModelRequest
}

// DefaultRequestLog is how many requests a Scripted model keeps, the most
// recent ones. A request holds the whole conversation, so keeping every
// one costs memory that grows with the square of the calls: a looping
// tool under a recursion limit of millions ran out of memory here.
const DefaultRequestLog = 1024

// Scripted is a chat model that answers from a Script. It is safe for
// concurrent use.
type Scripted struct {
	name   string
	script Script
	keep   int // requests kept in calls, the most recent

	mu    sync.Mutex
	calls []Call
}

// NewScripted returns a model called name that answers with script. The
// script is copied: changing it afterwards does not change the model.
func NewScripted(name string, script Script) *Scripted {
	c := Script{ChunkSize: script.ChunkSize}
	if script.Responses != nil {
		c.Responses = make([]Response, len(script.Responses))
		for i, r := range script.Responses {
			c.Responses[i] = r.clone()
		}
	}
	if script.Repeat != nil {
		r := script.Repeat.clone()
		c.Repeat = &r
	}
	return &Scripted{name: name, script: c, keep: DefaultRequestLog}
}

// WithRequestLog returns a new model with the same name and script, no
// calls yet, whose log keeps the requests of the n most recent calls (0:
// none, only that they were made). Every call stays listed in Calls; the
// requests of older ones are dropped.
func (s *Scripted) WithRequestLog(n int) *Scripted {
	return &Scripted{name: s.name, script: s.script, keep: max(n, 0)}
}

// CallCount returns how many calls the model has had.
func (s *Scripted) CallCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// Name returns the model's name.
func (s *Scripted) Name() string { return s.name }

// Generate records the call and answers it with the script's next
// response: a fresh copy of its message, or its error. It fails when ctx
// is already done (without recording the call) and when the script is
// exhausted.
func (s *Scripted) Generate(ctx context.Context, req engine.ModelRequest) (engine.Message, error) {
	if err := ctx.Err(); err != nil {
		return engine.Message{}, fmt.Errorf("scripted model %q: %w", s.name, err)
	}
	var rec engine.ModelRequest
	if s.keep > 0 {
		rec = cloneRequest(req)
	}
	s.mu.Lock()
	n := len(s.calls) + 1
	s.calls = append(s.calls, Call{Model: s.name, N: n, Request: rec})
	if old := len(s.calls) - 1 - s.keep; old >= 0 {
		s.calls[old].Request = engine.ModelRequest{}
	}
	s.mu.Unlock()

	resp, err := s.response(n)
	if err != nil {
		return engine.Message{}, err
	}
	if resp.Raise != nil {
		return engine.Message{}, resp.Raise
	}
	msg := resp.Message
	if msg.Type == "" {
		msg.Type = engine.TypeAI
	}
	if msg.Type != engine.TypeAI {
		return engine.Message{}, fmt.Errorf("scripted model %q: call %d: the scripted response is a %q message, but a chat model answers with an %q message", s.name, n, msg.Type, engine.TypeAI)
	}
	return msg, nil
}

// response returns a private copy of the response for call n, with "{n}"
// substituted when it comes from Repeat.
func (s *Scripted) response(n int) (Response, error) {
	if n <= len(s.script.Responses) {
		return s.script.Responses[n-1].clone(), nil
	}
	if s.script.Repeat != nil {
		return substitute(s.script.Repeat.clone(), strconv.Itoa(n)), nil
	}
	var have string
	switch len(s.script.Responses) {
	case 0:
		have = "no responses scripted"
	case 1:
		have = "only 1 response scripted"
	default:
		have = fmt.Sprintf("only %d responses scripted", len(s.script.Responses))
	}
	return Response{}, fmt.Errorf("scripted model %q: %w: call %d but %s (add responses or \"then: repeat\")", s.name, ErrScriptExhausted, n, have)
}

// Calls returns every call so far in call order, with the requests the
// log keeps (DefaultRequestLog, WithRequestLog). The calls are copies:
// changing them does not change the record.
func (s *Scripted) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Call, len(s.calls))
	for i, c := range s.calls {
		out[i] = Call{Model: c.Model, N: c.N, Request: cloneRequest(c.Request)}
	}
	return out
}

// clone returns a deep copy of r.
func (r Response) clone() Response {
	c := Response{Message: r.Message.Clone()}
	if r.Raise != nil {
		e := *r.Raise
		c.Raise = &e
	}
	return c
}

// cloneRequest returns a deep copy of req: messages cloned, tool schemas,
// the response format and the options copied.
func cloneRequest(req engine.ModelRequest) engine.ModelRequest {
	c := req
	if req.Messages.Len() > 0 {
		msgs := make([]engine.Message, 0, req.Messages.Len())
		for _, m := range req.Messages.All() {
			msgs = append(msgs, m.Clone())
		}
		c.Messages = engine.NewMessageList(msgs...)
	}
	if req.Tools != nil {
		c.Tools = make([]engine.ToolSchema, len(req.Tools))
		for i, t := range req.Tools {
			c.Tools[i] = engine.ToolSchema{Name: t.Name, Description: t.Description, Parameters: t.Parameters.Clone(), Provider: t.Provider.Clone()}
		}
	}
	if req.ParallelToolCalls != nil {
		b := *req.ParallelToolCalls
		c.ParallelToolCalls = &b
	}
	c.ResponseFormat = req.ResponseFormat.Clone()
	c.Options = req.Options.Clone()
	return c
}

// substitute replaces "{n}" by n in r, which must be a private copy: the
// message ID, string content, the text of text blocks and string blocks,
// tool call IDs and names, string argument values at any depth, and the
// raised error's message.
func substitute(r Response, n string) Response {
	sub := func(s string) string { return strings.ReplaceAll(s, "{n}", n) }
	if r.Raise != nil {
		r.Raise.Message = sub(r.Raise.Message)
	}
	m := &r.Message
	m.ID = sub(m.ID)
	if m.Content.IsList() {
		blocks := m.Content.Blocks()
		for i, b := range blocks {
			switch t := b.(type) {
			case string:
				blocks[i] = sub(t)
			case *engine.Object:
				if typ, _ := t.Get("type"); typ == "text" {
					if text, ok := t.Get("text"); ok {
						if s, ok := text.(string); ok {
							t.Set("text", sub(s))
						}
					}
				}
			}
		}
		m.Content = engine.Blocks(blocks...)
	} else {
		m.Content = engine.Text(sub(m.Content.String()))
	}
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		tc.Name = sub(tc.Name)
		tc.ID = sub(tc.ID)
		if tc.Args != nil {
			tc.Args = substituteValue(tc.Args, sub).(*engine.Object)
		}
	}
	return r
}

// substituteValue applies sub to every string value inside v (object keys
// stay as they are), changing v in place and returning it.
func substituteValue(v any, sub func(string) string) any {
	switch t := v.(type) {
	case string:
		return sub(t)
	case []any:
		for i, e := range t {
			t[i] = substituteValue(e, sub)
		}
		return t
	case *engine.Object:
		for _, k := range t.Keys() {
			e, _ := t.Get(k)
			t.Set(k, substituteValue(e, sub))
		}
		return t
	default:
		return v
	}
}

// GenerateStream answers like Generate and streams the answer in chunks
// of Script.ChunkSize characters, every chunk with the answer's ID; the
// last chunk carries the tool calls and usage. Text content is split;
// content given as a list of blocks is one chunk.
func (s *Scripted) GenerateStream(ctx context.Context, req engine.ModelRequest, onChunk func(engine.Message) error) (engine.Message, error) {
	msg, err := s.Generate(ctx, req)
	if err != nil {
		return msg, err
	}
	for _, c := range ChunkMessage(msg, s.script.ChunkSize) {
		if err := onChunk(c); err != nil {
			return engine.Message{}, err
		}
	}
	return msg, nil
}

// ChunkMessage splits an AI message into the chunks a streaming model
// would send: its text in pieces of size runes (one piece when size is 0
// or the content is a list of blocks), then the tool calls, usage and
// metadata on the last chunk. Every chunk keeps the message's ID and name.
func ChunkMessage(msg engine.Message, size int) []engine.Message {
	base := engine.Message{Type: engine.TypeAI, ID: msg.ID, Name: msg.Name}
	var pieces []engine.Content
	if msg.Content.IsList() || size <= 0 {
		pieces = []engine.Content{msg.Content}
	} else {
		runes := []rune(msg.Text())
		for i := 0; i < len(runes); i += size {
			pieces = append(pieces, engine.Text(string(runes[i:min(i+size, len(runes))])))
		}
		if len(pieces) == 0 {
			pieces = []engine.Content{engine.Text("")}
		}
	}
	out := make([]engine.Message, 0, len(pieces)+1)
	for _, p := range pieces {
		c := base
		c.Content = p
		out = append(out, c)
	}
	last := &out[len(out)-1]
	last.ToolCalls = msg.ToolCalls
	last.UsageMetadata = msg.UsageMetadata
	last.ResponseMetadata = msg.ResponseMetadata
	return out
}
