package llm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// Chunk is one piece of a streamed answer, as it arrives: some text, or a
// piece of a tool call (LangChain's AIMessageChunk content and
// tool_call_chunks). A "messages" stream mode can forward these as they
// come; the model's Generate still returns the whole assembled message.
type Chunk struct {
	// Model is the model's name ("openai:gpt-4o").
	Model string
	// Text is a piece of the message content.
	Text string
	// ToolCall is a piece of a tool call; nil for text.
	ToolCall *ToolCallChunk
}

// ToolCallChunk is a piece of a streamed tool call: the call at Index
// gets its ID and Name once and its arguments text in pieces.
type ToolCallChunk struct {
	Index int
	ID    string
	Name  string
	Args  string
}

// ChunkFunc receives the chunks of a streamed answer in order. It is
// called on the goroutine that called Generate.
type ChunkFunc func(Chunk)

type chunkKey struct{}

// MaxErrorBodyBytes is how much of a provider's error response an
// APIError keeps: 1 MiB, far more than any provider's error message, so
// that a broken or hostile server cannot make an error hold gigabytes.
const MaxErrorBodyBytes = 1 << 20

// MaxResponseBodyBytes bounds a provider's answer, whole or streamed:
// 64 MiB, hundreds of times the largest answer a model gives, so that a
// broken or hostile server that never stops sending fails the call with a
// clear error instead of filling the machine's memory.
const MaxResponseBodyBytes = 64 << 20

// responseLimit is a config's MaxResponseBytes, 0 meaning
// MaxResponseBodyBytes.
func responseLimit(n int64) int64 {
	if n > 0 {
		return n
	}
	return MaxResponseBodyBytes
}

// boundedBody reads r and fails once more than max bytes came through.
type boundedBody struct {
	r    io.Reader
	n    int64
	max  int64
	what string
}

// limitBody returns r, failing with an error that names the limit after
// max bytes; what names the body in that error.
func limitBody(r io.Reader, max int64, what string) io.Reader {
	return &boundedBody{r: r, max: max, what: what}
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.n > b.max {
		return 0, b.tooLong()
	}
	if rest := b.max + 1 - b.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > b.max {
		return n, b.tooLong()
	}
	return n, err
}

func (b *boundedBody) tooLong() error {
	return fmt.Errorf("%s is longer than %d bytes, the limit (MaxResponseBytes of the model's config, default 64 MiB)", b.what, b.max)
}

// WithChunkFunc returns a context whose streamed model calls report their
// chunks to fn (in addition to any OnChunk of the model's config). Models
// that do not stream report nothing.
func WithChunkFunc(ctx context.Context, fn ChunkFunc) context.Context {
	return context.WithValue(ctx, chunkKey{}, fn)
}

// emitter calls the chunk funcs of a config and a context.
type emitter struct {
	model string
	fns   []ChunkFunc
}

func newEmitter(ctx context.Context, model string, own ChunkFunc) emitter {
	e := emitter{model: model}
	if own != nil {
		e.fns = append(e.fns, own)
	}
	if fn, ok := ctx.Value(chunkKey{}).(ChunkFunc); ok && fn != nil {
		e.fns = append(e.fns, fn)
	}
	return e
}

func (e emitter) text(s string) {
	if s == "" {
		return
	}
	for _, fn := range e.fns {
		fn(Chunk{Model: e.model, Text: s})
	}
}

func (e emitter) toolCall(tc ToolCallChunk) {
	for _, fn := range e.fns {
		c := tc
		fn(Chunk{Model: e.model, ToolCall: &c})
	}
}

// APIError is an error status from a provider, with what its body said.
// It unwraps to an *engine.Error whose Kind is the Python SDK's exception
// class for the status (AuthenticationError for 401, RateLimitError for
// 429, ...), so middleware can treat it as LangChain code would.
type APIError struct {
	// Provider is "openai", "anthropic" or "openai-compatible".
	Provider string
	// Model is the model's name.
	Model      string
	StatusCode int
	// Type and Code are the error's type and code from the body
	// ("invalid_request_error", "invalid_api_key"), when given.
	Type, Code string
	// Message is the error message from the body.
	Message string
	// Body is the response body as received.
	Body string
}

// Error reads "model "openai:gpt-4o": 401 Unauthorized: invalid_api_key:
// Incorrect API key provided".
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model %q: %d", e.Model, e.StatusCode)
	if text := http.StatusText(e.StatusCode); text != "" {
		fmt.Fprintf(&b, " %s", text)
	}
	switch {
	case e.Code != "":
		fmt.Fprintf(&b, ": %s", e.Code)
	case e.Type != "":
		fmt.Fprintf(&b, ": %s", e.Type)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	return b.String()
}

// Unwrap returns the error as the Python SDK's exception kind.
func (e *APIError) Unwrap() error { return engine.NewError(pyErrorKind(e.StatusCode), e.Error()) }

// pyErrorKind names the openai/anthropic Python SDK exception for a
// status code.
func pyErrorKind(code int) string {
	switch {
	case code == 400:
		return "BadRequestError"
	case code == 401:
		return "AuthenticationError"
	case code == 403:
		return "PermissionDeniedError"
	case code == 404:
		return "NotFoundError"
	case code == 409:
		return "ConflictError"
	case code == 422:
		return "UnprocessableEntityError"
	case code == 429:
		return "RateLimitError"
	case code >= 500:
		return "InternalServerError"
	}
	return "APIStatusError"
}

// newAPIError builds an APIError from an error response.
func newAPIError(provider, model string, resp *http.Response) *APIError {
	e := &APIError{Provider: provider, Model: model}
	if resp == nil {
		return e
	}
	e.StatusCode = resp.StatusCode
	if resp.Body != nil {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBodyBytes))
		resp.Body.Close()
		e.Body = string(b)
	}
	if v, err := engine.DecodeJSON([]byte(e.Body)); err == nil {
		o, _ := v.(*engine.Object)
		if inner, ok := o.Get("error"); ok {
			if inObj, ok := inner.(*engine.Object); ok {
				o = inObj
			} else if s, ok := inner.(string); ok {
				e.Message = s
			}
		}
		e.Type, e.Code = str(o, "type"), str(o, "code")
		if m := str(o, "message"); m != "" {
			e.Message = m
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(e.Body)
	}
	return e
}

// str returns o[key] when it is a string (or a number, as text).
func str(o *engine.Object, key string) string {
	v, _ := o.Get(key)
	switch t := v.(type) {
	case string:
		return t
	case fmt.Stringer:
		return t.String()
	}
	return ""
}

// obj returns o[key] when it is an object.
func obj(o *engine.Object, key string) *engine.Object {
	v, _ := o.Get(key)
	r, _ := v.(*engine.Object)
	return r
}

// list returns o[key] when it is a list.
func list(o *engine.Object, key string) []any {
	v, _ := o.Get(key)
	r, _ := v.([]any)
	return r
}

// num returns o[key] as an int when it is a JSON number.
func num(o *engine.Object, key string) (int, bool) {
	v, ok := o.Get(key)
	if !ok {
		return 0, false
	}
	n, ok := v.(interface{ Int64() (int64, error) })
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	if err != nil {
		return 0, false
	}
	return int(i), true
}

// sseEvent is one server-sent event.
type sseEvent struct {
	Type string
	Data string
}

// readSSE splits a server-sent event stream into events as they arrive
// (the WHATWG rules: "event:" and "data:" fields, data lines joined with
// "\n", comments and other fields ignored, an event ends at a blank line
// or at the end of the stream).
func readSSE(r io.Reader, fn func(sseEvent) error) error {
	br := bufio.NewReader(r)
	var ev sseEvent
	var dataLines []string
	flush := func() error {
		if len(dataLines) == 0 && ev.Type == "" {
			return nil
		}
		ev.Data = strings.Join(dataLines, "\n")
		err := fn(ev)
		ev, dataLines = sseEvent{}, nil
		return err
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return err
		}
		eof := err == io.EOF
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		switch {
		case line == "":
			if ferr := flush(); ferr != nil {
				return ferr
			}
		case strings.HasPrefix(line, ":"):
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				ev.Type = value
			case "data":
				dataLines = append(dataLines, value)
			}
		}
		if eof {
			return flush()
		}
	}
}

// streamAnswer runs generate as a streamed call ("stream": true set in
// the request's options) for engine.StreamingChatModel: each piece of
// text goes to onChunk as an AI message chunk as it arrives, and a last
// chunk carries the tool calls, usage and response metadata once the
// stream is complete. Chunk funcs already in ctx or in the model's config
// still get every piece. An error from onChunk ends the call with it.
func streamAnswer(ctx context.Context, req engine.ModelRequest, onChunk func(engine.Message) error,
	generate func(context.Context, engine.ModelRequest) (engine.Message, error)) (engine.Message, error) {
	opts := req.Options.Clone()
	if opts == nil {
		opts = &engine.Object{}
	}
	opts.Set("stream", true)
	req.Options = opts
	var cbErr error
	outer, _ := ctx.Value(chunkKey{}).(ChunkFunc)
	ctx = WithChunkFunc(ctx, func(c Chunk) {
		if outer != nil {
			outer(c)
		}
		if cbErr == nil && c.Text != "" {
			cbErr = onChunk(engine.Message{Type: engine.TypeAI, Content: engine.Text(c.Text)})
		}
	})
	msg, err := generate(ctx, req)
	if err != nil {
		return msg, err
	}
	if cbErr != nil {
		return engine.Message{}, cbErr
	}
	last := engine.Message{Type: engine.TypeAI, Content: engine.Text(""), ToolCalls: msg.ToolCalls, InvalidToolCalls: msg.InvalidToolCalls,
		UsageMetadata: msg.UsageMetadata, ResponseMetadata: msg.ResponseMetadata}
	if err := onChunk(last); err != nil {
		return engine.Message{}, err
	}
	return msg, nil
}
