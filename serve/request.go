package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// Request is a model request a Server received, with its conversation
// read into engine messages.
type Request struct {
	// N is the request's 1-based number, counted over every request the
	// server received, in the order they arrived.
	N int
	// Protocol is the protocol the path asked for.
	Protocol Protocol
	// Method and Path are the request's; Header is a copy with
	// credentials scrubbed (see cassette.ScrubHeaders).
	Method string
	Path   string
	// Query is the request URL's raw query, which a Recorder forwards
	// (UpstreamURL), with any key= parameter removed (Gemini's API key
	// may travel there; a Recorder sends it as x-goog-api-key).
	Query  string
	Header http.Header
	// Body is the request body as received.
	Body []byte
	// Model is the body's "model".
	Model string
	// Stream says the body asked for a stream ("stream": true).
	Stream bool
	// SSE says a Gemini streamGenerateContent request asked for
	// server-sent events (alt=sse); without it the stream is one JSON
	// array.
	SSE bool
	// IncludeUsage says a Chat Completions stream asked for its usage
	// chunk (stream_options.include_usage).
	IncludeUsage bool
	// Instructions is a Responses request's "instructions".
	Instructions string
	// PreviousResponseID is a Responses request's
	// "previous_response_id".
	PreviousResponseID string
	// Messages is the conversation as engine messages, in order: the
	// system prompt (Chat's system and developer messages, Anthropic's
	// "system", Responses' "instructions"), human, AI (with their tool
	// calls) and tool messages (one per tool result, with its call id).
	// Nil when the body did not parse.
	Messages []engine.Message

	// rawHeader is the header as received, credentials included, which
	// a Recorder forwards; it is dropped once the request is answered.
	rawHeader http.Header
	// at is, for each message, where it came from in the wire request,
	// as the provider names such a place in its errors.
	at []string
}

// JSON decodes the body into generic values (maps, slices, strings,
// json.Number, bools, nil).
func (r *Request) JSON() (map[string]any, error) {
	d := json.NewDecoder(strings.NewReader(string(r.Body)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("request %d: %w", r.N, err)
	}
	return m, nil
}

// String names the request for problems and failures: "request 3 (POST
// /v1/chat/completions, model gpt-4.1-mini)".
func (r *Request) String() string {
	if r.Model == "" {
		return fmt.Sprintf("request %d (%s %s)", r.N, r.Method, r.Path)
	}
	return fmt.Sprintf("request %d (%s %s, model %s)", r.N, r.Method, r.Path, r.Model)
}

// ToolResults returns the tool messages of the conversation.
func (r *Request) ToolResults() []engine.Message {
	var out []engine.Message
	for _, m := range r.Messages {
		if m.Type == engine.TypeTool {
			out = append(out, m)
		}
	}
	return out
}

// errBadField is a body field with the wrong shape; the provider's error
// names it.
type errBadField struct {
	field, what string
}

func (e *errBadField) Error() string { return e.field + ": " + e.what }

// parse reads the body of a request of protocol r.Protocol into r. The
// error is the provider's answer to a body it cannot take.
//
// The body is read with encoding/json into raw fields first, and only
// the conversation is decoded further (content and arguments into the
// engine's ordered values): tool schemas and other options are never
// decoded. Decoding the whole body into engine values took half of the
// server's time per request (60 of 120 µs for a four-message request).
func (r *Request) parse() *APIError {
	if r.Protocol == Gemini {
		return r.parseGemini()
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &body); err != nil || body == nil {
		if err == nil || isTypeError(err) {
			err = errors.New("the body is not a JSON object")
		}
		return errMalformed(r.Protocol, err)
	}
	str := func(key string) string {
		var s string
		json.Unmarshal(body[key], &s)
		return s
	}
	r.Model = str("model")
	if r.Model == "" {
		return errMissing(r.Protocol, "model", "You must provide a model parameter.")
	}
	json.Unmarshal(body["stream"], &r.Stream)
	var so struct {
		IncludeUsage bool `json:"include_usage"`
	}
	if json.Unmarshal(body["stream_options"], &so) == nil {
		r.IncludeUsage = so.IncludeUsage
	}
	c := &conversation{}
	var err error
	switch r.Protocol {
	case OpenAIChat, Messages:
		var list []json.RawMessage
		if json.Unmarshal(body["messages"], &list) != nil || list == nil {
			what := ""
			if r.Protocol == OpenAIChat {
				what = "You must provide a messages parameter."
			}
			return errMissing(r.Protocol, "messages", what)
		}
		if r.Protocol == OpenAIChat {
			err = c.chat(list)
			break
		}
		if _, ok := body["max_tokens"]; !ok {
			return errMissing(r.Protocol, "max_tokens", "")
		}
		if sys, ok := body["system"]; ok && string(sys) != "null" {
			c.add(engine.Message{Type: engine.TypeSystem, Content: content(sys)}, "system")
		}
		err = c.anthropic(list)
	case OpenAIResponses:
		r.Instructions = str("instructions")
		r.PreviousResponseID = str("previous_response_id")
		if r.Instructions != "" {
			c.add(engine.SystemMessage(r.Instructions), "instructions")
		}
		err = c.responses(body["input"])
	}
	if err != nil {
		var bf *errBadField
		if errors.As(err, &bf) {
			if r.Protocol == Messages {
				return &APIError{Status: 400, Message: bf.Error()}
			}
			return &APIError{Status: 400, Param: bf.field, Message: "Invalid value for '" + bf.field + "': " + bf.what}
		}
		return &APIError{Status: 400, Message: err.Error()}
	}
	r.Messages, r.at = c.msgs, c.at
	return nil
}

// isTypeError reports a JSON document of the wrong type (an array where
// an object was wanted), as opposed to one that is not JSON.
func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// get returns o[key] when it has type T.
func get[T any](o *engine.Object, key string) (T, bool) {
	v, _ := o.Get(key)
	t, ok := v.(T)
	return t, ok
}

// content reads a content value (a string, a list of blocks, or null);
// anything else is empty.
func content(raw json.RawMessage) engine.Content {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return engine.Text(s)
		}
	}
	if len(raw) == 0 || raw[0] != '[' {
		return engine.Text("")
	}
	v, err := engine.DecodeJSON(raw)
	if err != nil {
		return engine.Text("")
	}
	c, err := engine.ContentFromValue(v)
	if err != nil {
		return engine.Text("")
	}
	return c
}

// toolCall builds an engine tool call from arguments as a JSON string
// holding JSON text (Chat, Responses) or an object (Anthropic);
// arguments that are not an object become an empty one, since only the
// id matters to the server.
func toolCall(id, name string, raw json.RawMessage) engine.ToolCall {
	var text string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &text) == nil {
		raw = json.RawMessage(text)
	}
	var args any
	if len(raw) > 0 && raw[0] == '{' {
		args, _ = engine.DecodeJSON(raw)
	}
	o, ok := args.(*engine.Object)
	if !ok || o == nil {
		o = &engine.Object{}
	}
	return engine.ToolCall{ID: id, Name: name, Args: o}
}

// conversation collects the messages of a request and where each came
// from.
type conversation struct {
	msgs []engine.Message
	at   []string
}

func (c *conversation) add(m engine.Message, at string) {
	c.msgs = append(c.msgs, m)
	c.at = append(c.at, at)
}

// wireMessage is a message of any protocol, as far as the server reads
// it.
type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// wireBlock is an Anthropic content block, or a Responses input item.
type wireBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Role      string          `json:"role"`
	CallID    string          `json:"call_id"`
	Arguments json.RawMessage `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

// chat reads Chat Completions messages.
func (c *conversation) chat(list []json.RawMessage) error {
	for i, raw := range list {
		at := fmt.Sprintf("messages.[%d]", i)
		var m wireMessage
		if err := json.Unmarshal(raw, &m); err != nil || raw[0] != '{' {
			return &errBadField{at, "expected an object"}
		}
		switch m.Role {
		case "system", "developer":
			c.add(engine.Message{Type: engine.TypeSystem, Content: content(m.Content)}, at)
		case "user":
			c.add(engine.Message{Type: engine.TypeHuman, Content: content(m.Content)}, at)
		case "assistant":
			ai := engine.Message{Type: engine.TypeAI, Content: content(m.Content)}
			for _, tc := range m.ToolCalls {
				ai.ToolCalls = append(ai.ToolCalls, toolCall(tc.ID, tc.Function.Name, tc.Function.Arguments))
			}
			c.add(ai, at)
		case "tool":
			c.add(engine.Message{Type: engine.TypeTool, Content: content(m.Content), ToolCallID: m.ToolCallID, Status: engine.StatusSuccess}, at+".role")
		case "function":
			// the legacy function role: not a tool call the server tracks
		default:
			return &errBadField{at + ".role", fmt.Sprintf("unknown role %q", m.Role)}
		}
	}
	return nil
}

// anthropic reads Messages messages: a user message's tool_result blocks
// become tool messages, its other blocks one human message after them.
func (c *conversation) anthropic(list []json.RawMessage) error {
	for i, raw := range list {
		at := fmt.Sprintf("messages.%d", i)
		var m wireMessage
		if err := json.Unmarshal(raw, &m); err != nil || raw[0] != '{' {
			return &errBadField{at, "Input should be a valid dictionary"}
		}
		var blocks []json.RawMessage
		isList := len(m.Content) > 0 && m.Content[0] == '[' && json.Unmarshal(m.Content, &blocks) == nil
		switch m.Role {
		case "user":
			if !isList {
				c.add(engine.Message{Type: engine.TypeHuman, Content: content(m.Content)}, at)
				continue
			}
			var rest []any
			for j, braw := range blocks {
				var b wireBlock
				if json.Unmarshal(braw, &b) != nil || b.Type != "tool_result" {
					if v, err := engine.DecodeJSON(braw); err == nil {
						rest = append(rest, v)
					}
					continue
				}
				status := engine.StatusSuccess
				if b.IsError {
					status = engine.StatusError
				}
				c.add(engine.Message{Type: engine.TypeTool, Content: content(b.Content), ToolCallID: b.ToolUseID, Status: status}, fmt.Sprintf("%s.content.%d", at, j))
			}
			if len(rest) > 0 {
				c.add(engine.Message{Type: engine.TypeHuman, Content: engine.Blocks(rest...)}, at)
			}
		case "assistant":
			ai := engine.Message{Type: engine.TypeAI, Content: content(m.Content)}
			if isList {
				var text []any
				for _, braw := range blocks {
					var b wireBlock
					if json.Unmarshal(braw, &b) == nil && b.Type == "tool_use" {
						ai.ToolCalls = append(ai.ToolCalls, toolCall(b.ID, b.Name, b.Input))
					} else if v, err := engine.DecodeJSON(braw); err == nil {
						text = append(text, v)
					}
				}
				ai.Content = engine.Blocks(text...)
			}
			c.add(ai, at)
		default:
			return &errBadField{at + ".role", fmt.Sprintf("Input should be 'user' or 'assistant', got %q", m.Role)}
		}
	}
	return nil
}

// responses reads a Responses request's input: a string, or a list of
// items — messages (with or without "type": "message"), function_call
// items (joined to the AI message before them) and function_call_output
// items. Other items (reasoning, built-in tool calls) are skipped.
func (c *conversation) responses(in json.RawMessage) error {
	if len(in) == 0 || string(in) == "null" {
		return nil
	}
	var text string
	if in[0] == '"' && json.Unmarshal(in, &text) == nil {
		c.add(engine.HumanMessage(text), "input")
		return nil
	}
	var items []json.RawMessage
	if in[0] != '[' || json.Unmarshal(in, &items) != nil {
		return &errBadField{"input", "expected a string or an array of input items"}
	}
	for i, raw := range items {
		at := fmt.Sprintf("input[%d]", i)
		var item wireBlock
		if err := json.Unmarshal(raw, &item); err != nil || raw[0] != '{' {
			return &errBadField{at, "expected an object"}
		}
		switch {
		case item.Type == "function_call":
			call := toolCall(item.CallID, item.Name, item.Arguments)
			if n := len(c.msgs); n > 0 && c.msgs[n-1].Type == engine.TypeAI {
				c.msgs[n-1].ToolCalls = append(c.msgs[n-1].ToolCalls, call)
			} else {
				c.add(engine.Message{Type: engine.TypeAI, Content: engine.Text(""), ToolCalls: []engine.ToolCall{call}}, at)
			}
		case item.Type == "function_call_output":
			c.add(engine.Message{Type: engine.TypeTool, Content: content(item.Output), ToolCallID: item.CallID, Status: engine.StatusSuccess}, at)
		case item.Type == "message" || item.Type == "" && item.Role != "":
			switch item.Role {
			case "user":
				c.add(engine.Message{Type: engine.TypeHuman, Content: content(item.Content)}, at)
			case "system", "developer":
				c.add(engine.Message{Type: engine.TypeSystem, Content: content(item.Content)}, at)
			case "assistant":
				c.add(engine.Message{Type: engine.TypeAI, Content: content(item.Content)}, at)
			default:
				return &errBadField{at + ".role", fmt.Sprintf("unknown role %q", item.Role)}
			}
		}
	}
	return nil
}

// unpaired returns the first tool message whose call id no AI message
// before it (nor known, the calls the server answered with earlier)
// carries, and where it is; ok is false when every result pairs.
func (r *Request) unpaired(known func(id string) bool) (id, at string, ok bool) {
	calls := map[string]bool{}
	for i, m := range r.Messages {
		switch m.Type {
		case engine.TypeAI:
			for _, c := range m.ToolCalls {
				calls[c.ID] = true
			}
		case engine.TypeTool:
			if !calls[m.ToolCallID] && !known(m.ToolCallID) {
				return m.ToolCallID, r.at[i], true
			}
		}
	}
	return "", "", false
}
