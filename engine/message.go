package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agenteval/agenteval/engine/value"
)

// MessageType is the "type" of a LangChain message dict.
type MessageType string

// The message types LangChain's message dicts use.
const (
	TypeHuman  MessageType = "human"
	TypeAI     MessageType = "ai"
	TypeTool   MessageType = "tool"
	TypeSystem MessageType = "system"
	// TypeRemove marks a RemoveMessage: an instruction to the add_messages
	// reducer to delete the message with its ID (or all messages, with
	// RemoveAllMessages), never stored in state.
	TypeRemove MessageType = "remove"
)

// RemoveAllMessages is the ID of a RemoveMessage that clears the whole list,
// LangGraph's REMOVE_ALL_MESSAGES.
const RemoveAllMessages = "__remove_all__"

// Tool message statuses.
const (
	StatusSuccess = "success"
	StatusError   = "error"
)

// Message is one chat message, as plain data that maps 1:1 onto LangChain's
// message dict. Which fields apply depends on Type: ToolCalls and
// InvalidToolCalls on AI messages, ToolCallID, Status and Artifact on tool
// messages. Messages are values: code that changes one works on a copy.
type Message struct {
	Type    MessageType
	Content Content
	// Name is the optional name of the author (the agent's name on AI
	// messages, the tool's name on tool messages).
	Name string
	// ID identifies the message within a thread. The add_messages reducer
	// gives messages without one a deterministic ID.
	ID               string
	ToolCalls        []ToolCall
	InvalidToolCalls []InvalidToolCall
	ToolCallID       string
	// Status is "success" or "error" on tool messages.
	Status string
	// Artifact is a tool's non-content output, kept out of the model's view.
	Artifact         any
	UsageMetadata    *Usage
	AdditionalKwargs *Object
	ResponseMetadata *Object
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	Name string
	Args *Object
	ID   string
}

// InvalidToolCall is a tool call whose arguments could not be parsed; Args
// holds the raw text the model produced.
type InvalidToolCall struct {
	Name  string
	Args  string
	ID    string
	Error string
}

// Usage is a model call's token accounting (LangChain's usage_metadata).
type Usage struct {
	InputTokens        int
	OutputTokens       int
	TotalTokens        int
	InputTokenDetails  *Object
	OutputTokenDetails *Object
}

// Content is a message's content: a string, or a list of content blocks
// (each a JSON object with a "type").
type Content struct {
	text   string
	blocks []any
	isList bool
}

// Text returns string content.
func Text(s string) Content { return Content{text: s} }

// Blocks returns list content made of the given blocks (normally *Object
// values with a "type" key, such as {"type": "text", "text": "..."}).
func Blocks(blocks ...any) Content {
	if blocks == nil {
		blocks = []any{}
	}
	return Content{blocks: blocks, isList: true}
}

// IsList reports whether the content is a list of blocks.
func (c Content) IsList() bool { return c.isList }

// Blocks returns the content blocks, or nil for string content.
func (c Content) Blocks() []any { return c.blocks }

// String returns the content as text: the string itself, or the text of the
// text blocks joined (LangChain's BaseMessage.text).
func (c Content) String() string {
	if !c.isList {
		return c.text
	}
	var b strings.Builder
	for _, blk := range c.blocks {
		switch t := blk.(type) {
		case string:
			b.WriteString(t)
		case *Object:
			if typ, _ := t.Get("type"); typ == "text" {
				if s, ok := t.Get("text"); ok {
					if str, ok := s.(string); ok {
						b.WriteString(str)
					}
				}
			}
		}
	}
	return b.String()
}

// Value returns the content as a JSON value: a string or a []any.
func (c Content) Value() any {
	if c.isList {
		return c.blocks
	}
	return c.text
}

// ContentFromValue builds content from a JSON value (string or list); other
// values are an error.
func ContentFromValue(v any) (Content, error) {
	switch t := v.(type) {
	case nil:
		return Text(""), nil
	case string:
		return Text(t), nil
	case []any:
		return Blocks(t...), nil
	default:
		return Content{}, fmt.Errorf("content must be a string or a list of blocks, got %s", value.PyTypeName(v))
	}
}

// HumanMessage returns a human message with text content.
func HumanMessage(text string) Message { return Message{Type: TypeHuman, Content: Text(text)} }

// SystemMessage returns a system message with text content.
func SystemMessage(text string) Message { return Message{Type: TypeSystem, Content: Text(text)} }

// AIMessage returns an AI message with text content and the given tool calls.
func AIMessage(text string, calls ...ToolCall) Message {
	return Message{Type: TypeAI, Content: Text(text), ToolCalls: calls}
}

// ToolMessage returns a successful tool message answering the call with id.
func ToolMessage(content Content, name, toolCallID string) Message {
	return Message{Type: TypeTool, Content: content, Name: name, ToolCallID: toolCallID, Status: StatusSuccess}
}

// RemoveMessage returns an instruction to delete the message with id from a
// messages list (RemoveAllMessages clears it).
func RemoveMessage(id string) Message { return Message{Type: TypeRemove, ID: id} }

// Text returns the message's content as text.
func (m Message) Text() string { return m.Content.String() }

// Clone returns a deep copy of m.
func (m Message) Clone() Message {
	c := m
	if m.Content.isList {
		c.Content = Blocks(CloneValue(m.Content.blocks).([]any)...)
	}
	if m.ToolCalls != nil {
		c.ToolCalls = make([]ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			c.ToolCalls[i] = ToolCall{Name: tc.Name, Args: tc.Args.Clone(), ID: tc.ID}
		}
	}
	if m.InvalidToolCalls != nil {
		c.InvalidToolCalls = append([]InvalidToolCall(nil), m.InvalidToolCalls...)
	}
	c.Artifact = CloneValue(m.Artifact)
	if m.UsageMetadata != nil {
		u := *m.UsageMetadata
		u.InputTokenDetails = u.InputTokenDetails.Clone()
		u.OutputTokenDetails = u.OutputTokenDetails.Clone()
		c.UsageMetadata = &u
	}
	c.AdditionalKwargs = m.AdditionalKwargs.Clone()
	c.ResponseMetadata = m.ResponseMetadata.Clone()
	return c
}

// ToValue returns the message as a LangChain message dict: type, content,
// name (when set), id (null when unset), tool_calls (always, on AI
// messages), invalid_tool_calls, usage_metadata, tool_call_id and status
// (tool messages), artifact, additional_kwargs and response_metadata (each
// only when set).
func (m Message) ToValue() *Object {
	o := &Object{}
	o.Set("type", string(m.Type))
	if m.Type == TypeRemove {
		o.Set("id", m.ID)
		return o
	}
	o.Set("content", m.Content.Value())
	if m.Name != "" {
		o.Set("name", m.Name)
	}
	if m.ID != "" {
		o.Set("id", m.ID)
	} else {
		o.Set("id", nil)
	}
	if m.Type == TypeAI {
		calls := make([]any, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			calls[i] = tc.ToValue()
		}
		o.Set("tool_calls", calls)
		if len(m.InvalidToolCalls) > 0 {
			inv := make([]any, len(m.InvalidToolCalls))
			for i, tc := range m.InvalidToolCalls {
				inv[i] = tc.ToValue()
			}
			o.Set("invalid_tool_calls", inv)
		}
		if m.UsageMetadata != nil {
			o.Set("usage_metadata", m.UsageMetadata.ToValue())
		}
	}
	if m.Type == TypeTool {
		o.Set("tool_call_id", m.ToolCallID)
		status := m.Status
		if status == "" {
			status = StatusSuccess
		}
		o.Set("status", status)
		if m.Artifact != nil {
			o.Set("artifact", m.Artifact)
		}
	}
	if m.AdditionalKwargs.Len() > 0 {
		o.Set("additional_kwargs", m.AdditionalKwargs)
	}
	if m.ResponseMetadata.Len() > 0 {
		o.Set("response_metadata", m.ResponseMetadata)
	}
	return o
}

// writeJSON writes the message's dict as value.WriteJSON(b, m.ToValue())
// does, byte for byte, without building it: run seeds and the IDs of
// messages that come without one hash this text (seedOf, withIDs), and
// building the dict was most of their cost (an AI message of 256 calls:
// an object, a boxed string and an argument list per call).
func (m *Message) writeJSON(b *bytes.Buffer) error {
	b.WriteString(`{"type":`)
	value.WriteJSONString(b, string(m.Type))
	if m.Type == TypeRemove {
		b.WriteString(`,"id":`)
		value.WriteJSONString(b, m.ID)
		b.WriteByte('}')
		return nil
	}
	b.WriteString(`,"content":`)
	if m.Content.isList {
		if err := value.WriteJSON(b, m.Content.blocks); err != nil {
			return err
		}
	} else {
		value.WriteJSONString(b, m.Content.text)
	}
	if m.Name != "" {
		b.WriteString(`,"name":`)
		value.WriteJSONString(b, m.Name)
	}
	b.WriteString(`,"id":`)
	writeJSONStringOrNull(b, m.ID)
	if m.Type == TypeAI {
		if err := m.writeCallsJSON(b); err != nil {
			return err
		}
	}
	if m.Type == TypeTool {
		b.WriteString(`,"tool_call_id":`)
		value.WriteJSONString(b, m.ToolCallID)
		b.WriteString(`,"status":`)
		status := m.Status
		if status == "" {
			status = StatusSuccess
		}
		value.WriteJSONString(b, status)
		if m.Artifact != nil {
			b.WriteString(`,"artifact":`)
			if err := value.WriteJSON(b, m.Artifact); err != nil {
				return err
			}
		}
	}
	if m.AdditionalKwargs.Len() > 0 {
		b.WriteString(`,"additional_kwargs":`)
		if err := value.WriteJSON(b, m.AdditionalKwargs); err != nil {
			return err
		}
	}
	if m.ResponseMetadata.Len() > 0 {
		b.WriteString(`,"response_metadata":`)
		if err := value.WriteJSON(b, m.ResponseMetadata); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// writeCallsJSON writes the keys an AI message's dict adds: tool_calls,
// invalid_tool_calls and usage_metadata, as ToValue sets them.
func (m *Message) writeCallsJSON(b *bytes.Buffer) error {
	b.WriteString(`,"tool_calls":[`)
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":`)
		value.WriteJSONString(b, tc.Name)
		b.WriteString(`,"args":`)
		if tc.Args == nil {
			b.WriteString(`{}`)
		} else if err := value.WriteJSON(b, tc.Args); err != nil {
			return err
		}
		b.WriteString(`,"id":`)
		writeJSONStringOrNull(b, tc.ID)
		b.WriteByte('}')
	}
	b.WriteByte(']')
	if len(m.InvalidToolCalls) > 0 {
		b.WriteString(`,"invalid_tool_calls":[`)
		for i, tc := range m.InvalidToolCalls {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"name":`)
			value.WriteJSONString(b, tc.Name)
			b.WriteString(`,"args":`)
			value.WriteJSONString(b, tc.Args)
			b.WriteString(`,"id":`)
			writeJSONStringOrNull(b, tc.ID)
			b.WriteString(`,"error":`)
			writeJSONStringOrNull(b, tc.Error)
			b.WriteByte('}')
		}
		b.WriteByte(']')
	}
	if m.UsageMetadata != nil {
		b.WriteString(`,"usage_metadata":`)
		if err := value.WriteJSON(b, m.UsageMetadata.ToValue()); err != nil {
			return err
		}
	}
	return nil
}

// writeJSONStringOrNull writes s, or null when it is empty (an unset ID).
func writeJSONStringOrNull(b *bytes.Buffer, s string) {
	if s == "" {
		b.WriteString("null")
		return
	}
	value.WriteJSONString(b, s)
}

// ToValue returns the tool call as {"name", "args", "id"}.
func (tc ToolCall) ToValue() *Object {
	args := tc.Args
	if args == nil {
		args = &Object{}
	}
	var id any
	if tc.ID != "" {
		id = tc.ID
	}
	return NewObject("name", tc.Name, "args", args, "id", id)
}

// ToValue returns the invalid tool call as a dict.
func (tc InvalidToolCall) ToValue() *Object {
	o := NewObject("name", tc.Name, "args", tc.Args)
	if tc.ID != "" {
		o.Set("id", tc.ID)
	} else {
		o.Set("id", nil)
	}
	if tc.Error != "" {
		o.Set("error", tc.Error)
	} else {
		o.Set("error", nil)
	}
	return o
}

// ToValue returns the usage as LangChain's usage_metadata dict.
func (u *Usage) ToValue() *Object {
	o := NewObject("input_tokens", intNumber(u.InputTokens), "output_tokens", intNumber(u.OutputTokens), "total_tokens", intNumber(u.TotalTokens))
	if u.InputTokenDetails.Len() > 0 {
		o.Set("input_token_details", u.InputTokenDetails)
	}
	if u.OutputTokenDetails.Len() > 0 {
		o.Set("output_token_details", u.OutputTokenDetails)
	}
	return o
}

func intNumber(n int) json.Number { return json.Number(fmt.Sprint(n)) }

// MarshalJSON writes the message as its LangChain dict.
func (m Message) MarshalJSON() ([]byte, error) { return MarshalValue(m.ToValue()) }

// UnmarshalJSON reads a LangChain message dict (or OpenAI-style
// {"role", "content"}), as MessageFromValue does.
func (m *Message) UnmarshalJSON(data []byte) error {
	v, err := DecodeJSON(data)
	if err != nil {
		return err
	}
	msg, err := MessageFromValue(v)
	if err != nil {
		return err
	}
	*m = msg
	return nil
}

var roleToType = map[string]MessageType{
	"human": TypeHuman, "user": TypeHuman,
	"ai": TypeAI, "assistant": TypeAI,
	"system": TypeSystem, "developer": TypeSystem,
	"tool":   TypeTool,
	"remove": TypeRemove,
}

// MessageFromValue coerces a message-like value into a Message, the way
// LangChain's convert_to_messages does: a Message, a string (a human
// message), a [role, content] pair, or a dict with "type" or "role" and
// "content" (plus name, id, tool_calls, tool_call_id, status, ...).
func MessageFromValue(v any) (Message, error) {
	switch t := v.(type) {
	case Message:
		return t, nil
	case *Message:
		if t == nil {
			return Message{}, fmt.Errorf("nil message")
		}
		return *t, nil
	case string:
		return HumanMessage(t), nil
	case []any:
		if len(t) == 2 {
			role, ok1 := t[0].(string)
			if ok1 {
				typ, ok := roleToType[role]
				if !ok {
					return Message{}, fmt.Errorf("unknown message role %q: expected one of human, user, ai, assistant, system, developer, tool", role)
				}
				c, err := ContentFromValue(t[1])
				if err != nil {
					return Message{}, err
				}
				return Message{Type: typ, Content: c}, nil
			}
		}
		return Message{}, fmt.Errorf("a message as a list must be [role, content], got %s", PyRepr(t))
	case *Object:
		return messageFromObject(t)
	case map[string]any:
		o, err := ToValue(t)
		if err != nil {
			return Message{}, err
		}
		return messageFromObject(o.(*Object))
	default:
		return Message{}, fmt.Errorf("cannot use %T as a message: expected a message, a string, a [role, content] pair or a dict with role/type and content", v)
	}
}

func messageFromObject(o *Object) (Message, error) {
	var m Message
	typ := ""
	if v, ok := o.Get("type"); ok {
		s, _ := v.(string)
		typ = s
	} else if v, ok := o.Get("role"); ok {
		s, _ := v.(string)
		typ = s
	}
	mt, ok := roleToType[typ]
	if !ok {
		if typ == "" {
			return m, fmt.Errorf("message dict needs a \"type\" or \"role\" key, got %s", PyRepr(o))
		}
		return m, fmt.Errorf("message type %q is not one of human, user, ai, assistant, system, developer, tool, remove", typ)
	}
	m.Type = mt
	str := func(key string) (string, error) {
		v, ok := o.Get(key)
		if !ok || v == nil {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("message field %q must be a string, got %s", key, value.PyTypeName(v))
		}
		return s, nil
	}
	var err error
	if m.ID, err = str("id"); err != nil {
		return m, err
	}
	if mt == TypeRemove {
		if m.ID == "" {
			return m, fmt.Errorf("a remove message needs an id")
		}
		return m, nil
	}
	if c, ok := o.Get("content"); ok {
		if m.Content, err = ContentFromValue(c); err != nil {
			return m, err
		}
	}
	if m.Name, err = str("name"); err != nil {
		return m, err
	}
	if m.ToolCallID, err = str("tool_call_id"); err != nil {
		return m, err
	}
	if m.Status, err = str("status"); err != nil {
		return m, err
	}
	if mt == TypeTool {
		if m.Status == "" {
			m.Status = StatusSuccess
		}
		if m.Status != StatusSuccess && m.Status != StatusError {
			return m, fmt.Errorf("tool message status must be \"success\" or \"error\", got %q", m.Status)
		}
		if m.ToolCallID == "" {
			return m, fmt.Errorf("a tool message needs a tool_call_id")
		}
	}
	if a, ok := o.Get("artifact"); ok {
		m.Artifact = a
	}
	if v, ok := o.Get("tool_calls"); ok && v != nil {
		if m.ToolCalls, err = toolCallsFromValue(v); err != nil {
			return m, err
		}
	}
	if v, ok := o.Get("invalid_tool_calls"); ok && v != nil {
		if m.InvalidToolCalls, err = invalidToolCallsFromValue(v); err != nil {
			return m, err
		}
	}
	if v, ok := o.Get("additional_kwargs"); ok {
		if ao, ok := v.(*Object); ok {
			m.AdditionalKwargs = ao
		}
	}
	if v, ok := o.Get("response_metadata"); ok {
		if ro, ok := v.(*Object); ok {
			m.ResponseMetadata = ro
		}
	}
	if v, ok := o.Get("usage_metadata"); ok && v != nil {
		if m.UsageMetadata, err = usageFromValue(v); err != nil {
			return m, err
		}
	}
	return m, nil
}

// toolCallsFromValue reads a message dict's "tool_calls" list.
func toolCallsFromValue(v any) ([]ToolCall, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("tool_calls must be a list, got %s", value.PyTypeName(v))
	}
	var out []ToolCall
	for i, e := range list {
		tc, err := toolCallFromValue(e)
		if err != nil {
			return out, fmt.Errorf("tool_calls[%d]: %w", i, err)
		}
		out = append(out, tc)
	}
	return out, nil
}

// invalidToolCallsFromValue reads a message dict's "invalid_tool_calls"
// list; a missing or non-string field reads as "".
func invalidToolCallsFromValue(v any) ([]InvalidToolCall, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("invalid_tool_calls must be a list, got %s", value.PyTypeName(v))
	}
	var out []InvalidToolCall
	for i, e := range list {
		eo, ok := e.(*Object)
		if !ok {
			return out, fmt.Errorf("invalid_tool_calls[%d] must be a dict", i)
		}
		get := func(k string) string {
			v, _ := eo.Get(k)
			s, _ := v.(string)
			return s
		}
		out = append(out, InvalidToolCall{Name: get("name"), Args: get("args"), ID: get("id"), Error: get("error")})
	}
	return out, nil
}

// usageFromValue reads a message dict's "usage_metadata"; a missing or
// non-integer count reads as 0.
func usageFromValue(v any) (*Usage, error) {
	uo, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("usage_metadata must be a dict")
	}
	u := &Usage{}
	num := func(k string) int {
		v, _ := uo.Get(k)
		n, _ := v.(json.Number)
		i, _ := n.Int64()
		return int(i)
	}
	u.InputTokens, u.OutputTokens, u.TotalTokens = num("input_tokens"), num("output_tokens"), num("total_tokens")
	if d, ok := uo.Get("input_token_details"); ok {
		u.InputTokenDetails, _ = d.(*Object)
	}
	if d, ok := uo.Get("output_token_details"); ok {
		u.OutputTokenDetails, _ = d.(*Object)
	}
	return u, nil
}

func toolCallFromValue(v any) (ToolCall, error) {
	o, ok := v.(*Object)
	if !ok {
		return ToolCall{}, fmt.Errorf("a tool call must be a dict with name, args and id, got %s", value.PyTypeName(v))
	}
	var tc ToolCall
	n, _ := o.Get("name")
	name, ok := n.(string)
	if !ok || name == "" {
		return tc, fmt.Errorf("a tool call needs a string \"name\"")
	}
	tc.Name = name
	if id, ok := o.Get("id"); ok && id != nil {
		s, ok := id.(string)
		if !ok {
			return tc, fmt.Errorf("tool call id must be a string, got %s", value.PyTypeName(id))
		}
		tc.ID = s
	}
	args, _ := o.Get("args")
	switch a := args.(type) {
	case nil:
		tc.Args = &Object{}
	case *Object:
		tc.Args = a
	default:
		return tc, fmt.Errorf("tool call args must be a dict, got %s", value.PyTypeName(args))
	}
	return tc, nil
}

// MessagesFromValue coerces a message or a list of message-likes (a
// [role, content] pair inside the list is one message).
func MessagesFromValue(v any) ([]Message, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case []Message:
		return t, nil
	case MessageList:
		return t.Slice(), nil
	case Message, *Message, string, *Object, map[string]any:
		m, err := MessageFromValue(t)
		if err != nil {
			return nil, err
		}
		return []Message{m}, nil
	case []any:
		out := make([]Message, 0, len(t))
		for i, e := range t {
			m, err := MessageFromValue(e)
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
			out = append(out, m)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("cannot use %T as messages", v)
	}
}

// messageListFromValue is MessagesFromValue as a MessageList: a
// MessageList as it is, anything else coerced into a new list.
func messageListFromValue(v any) (MessageList, error) {
	if l, ok := v.(MessageList); ok {
		return l, nil
	}
	msgs, err := MessagesFromValue(v)
	if err != nil {
		return MessageList{}, err
	}
	if _, isSlice := v.([]Message); isSlice {
		// the caller's slice: copied, as it may change it
		return NewMessageList(msgs...), nil
	}
	return listOf(msgs), nil
}

// MessagesToValue returns the messages as a list of LangChain dicts.
func MessagesToValue(msgs []Message) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		out[i] = m.ToValue()
	}
	return out
}

// PyDictRepr is the Python repr of a tool call, as LangChain prints one in
// error texts: {'name': 'x', 'args': {...}, 'id': 'c1', 'type': 'tool_call'}.
func (tc ToolCall) PyDictRepr() string {
	o := tc.ToValue()
	o.Set("type", "tool_call")
	return PyRepr(o)
}
