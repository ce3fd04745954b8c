package checkpoint

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/agenteval/agenteval/engine"
)

// The SQLite checkpointer stores channel values and pending write values in
// a tagged JSON envelope, {"t": tag, "v": payload}, that keeps every Go
// type the engine writes exactly: a value read back has the same dynamic
// types, *engine.Object key order, json.Number literals, nil-versus-empty
// slices and maps, and the same bytes in strings (invalid UTF-8 included)
// as the value put. A value of any other type is refused with an error
// naming its Go type and where it sits; nothing is dropped silently.
//
//	tag             Go value                      payload
//	json            nil, bool, json.Number,       the JSON value itself, when every
//	                string, []any, *Object         part is plain (valid UTF-8, valid
//	                                               number literals, no nil list/object)
//	string          string (invalid UTF-8)        {"b": base64}
//	number          json.Number (not a literal)   the text
//	int, int64      int, int64                    the number
//	float64         float64                       strconv 'g' text (NaN, ±Inf, -0 kept)
//	list            []any                         null or [envelope...]
//	object          *engine.Object                null or [[key, envelope]...]
//	messages        []engine.Message              null or [message...]
//	messages+       []engine.Message              {"list": id, "n": n, "tail": [message...]}:
//	                                               the first n elements of a stored list
//	                                               (the checkpoint's own message list)
//	                                               followed by tail; read, no longer
//	                                               written (a slice is stored whole)
//	msglist         engine.MessageList            [message...]
//	msglist+        engine.MessageList            {"list": id, "n": n, "tail": [message...]}:
//	                                               as messages+, for a list that shares
//	                                               the stored list's first n messages
//	message         engine.Message                message
//	message*        *engine.Message               null or message
//	state, map      engine.State, map[string]any  null or [[key, envelope]...], keys sorted
//	send            engine.Send                   {"node", "arg": envelope}
//	tool_call(s)    engine.ToolCall, []ToolCall   call, null or [call...]
//	tool_call_ctx   engine.ToolCallWithContext    {"call", "state": null or pairs}
//	interrupt(s)    engine.InterruptValue, []...  {"value": envelope, "id"}, null or [...]
//	strings         []string                      null or [string...]
//
// A message is an object with only the fields that are set (a nil slice is
// absent, an empty one is []); strings that are not valid UTF-8 are written
// as {"b": base64} wherever they occur.

// envelope is one encoded value.
type envelope struct {
	T string          `json:"t"`
	V json.RawMessage `json:"v,omitempty"`
}

// xstr is a string that survives JSON exactly: valid UTF-8 is a JSON
// string, anything else {"b": base64}.
type xstr string

func (s xstr) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(s)) {
		return json.Marshal(string(s))
	}
	return json.Marshal(struct {
		B string `json:"b"`
	}{base64.StdEncoding.EncodeToString([]byte(s))})
}

func (s *xstr) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var str string
		if err := json.Unmarshal(data, &str); err != nil {
			return err
		}
		*s = xstr(str)
		return nil
	}
	var b struct {
		B *string `json:"b"`
	}
	if err := json.Unmarshal(data, &b); err != nil || b.B == nil {
		return fmt.Errorf("a string must be a JSON string or {\"b\": base64}, got %.40s", data)
	}
	raw, err := base64.StdEncoding.DecodeString(*b.B)
	if err != nil {
		return fmt.Errorf("string in base64: %w", err)
	}
	*s = xstr(raw)
	return nil
}

func xstrp(s string) *xstr {
	if s == "" {
		return nil
	}
	x := xstr(s)
	return &x
}

func strOf(p *xstr) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

// pair is one key of an object, state or map.
type pair struct {
	Key   xstr
	Value json.RawMessage
}

func (p pair) MarshalJSON() ([]byte, error) {
	k, err := p.Key.MarshalJSON()
	if err != nil {
		return nil, err
	}
	out := append([]byte{'['}, k...)
	out = append(out, ',')
	out = append(out, p.Value...)
	return append(out, ']'), nil
}

func (p *pair) UnmarshalJSON(data []byte) error {
	var two []json.RawMessage
	if err := json.Unmarshal(data, &two); err != nil || len(two) != 2 {
		return fmt.Errorf("a key-value pair must be [key, value], got %.40s", data)
	}
	if err := json.Unmarshal(two[0], &p.Key); err != nil {
		return err
	}
	p.Value = two[1]
	return nil
}

type messageRec struct {
	Type       xstr            `json:"type"`
	Text       *xstr           `json:"text,omitempty"`
	Blocks     json.RawMessage `json:"blocks,omitempty"`
	Name       *xstr           `json:"name,omitempty"`
	ID         *xstr           `json:"id,omitempty"`
	ToolCalls  *[]toolCallRec  `json:"tool_calls,omitempty"`
	Invalid    *[]invalidRec   `json:"invalid_tool_calls,omitempty"`
	ToolCallID *xstr           `json:"tool_call_id,omitempty"`
	Status     *xstr           `json:"status,omitempty"`
	Artifact   json.RawMessage `json:"artifact,omitempty"`
	Usage      *usageRec       `json:"usage,omitempty"`
	Kwargs     json.RawMessage `json:"additional_kwargs,omitempty"`
	Metadata   json.RawMessage `json:"response_metadata,omitempty"`
}

type toolCallRec struct {
	Name xstr            `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
	ID   *xstr           `json:"id,omitempty"`
}

type invalidRec struct {
	Name  xstr `json:"name"`
	Args  xstr `json:"args"`
	ID    xstr `json:"id"`
	Error xstr `json:"error"`
}

type usageRec struct {
	In         int             `json:"in"`
	Out        int             `json:"out"`
	Total      int             `json:"total"`
	InDetails  json.RawMessage `json:"in_details,omitempty"`
	OutDetails json.RawMessage `json:"out_details,omitempty"`
}

type sendRec struct {
	Node xstr            `json:"node"`
	Arg  json.RawMessage `json:"arg"`
}

type toolCallCtxRec struct {
	Call  toolCallRec `json:"call"`
	State []pair      `json:"state"`
}

type interruptRec struct {
	Value json.RawMessage `json:"value"`
	ID    xstr            `json:"id"`
}

type messagesRefRec struct {
	List int64        `json:"list"`
	N    int          `json:"n"`
	Tail []messageRec `json:"tail"`
}

// baseList is a stored message list that encoded values may refer to
// instead of repeating its messages.
type baseList struct {
	id   int64
	list engine.MessageList
}

// encoder encodes values, referring to bases for long message lists.
type encoder struct {
	bases []baseList
}

// minRef is the shortest common prefix worth a reference.
const minRef = 4

// encode returns the envelope of v; path names v in errors.
func (e *encoder) encode(v any, path string) (json.RawMessage, error) {
	if plainJSON(v) {
		b, err := engine.MarshalValue(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return wrap("json", b)
	}
	switch t := v.(type) {
	case string:
		return wrapValue("string", xstr(t))
	case json.Number:
		return wrapValue("number", string(t))
	case int:
		return wrap("int", []byte(strconv.Itoa(t)))
	case int64:
		return wrap("int64", []byte(strconv.FormatInt(t, 10)))
	case float64:
		return wrapValue("float64", strconv.FormatFloat(t, 'g', -1, 64))
	case []any:
		if t == nil {
			return wrap("list", nil)
		}
		out := make([]json.RawMessage, len(t))
		for i, el := range t {
			b, err := e.encode(el, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = b
		}
		return wrapValue("list", out)
	case *engine.Object:
		if t == nil {
			return wrap("object", nil)
		}
		pairs, err := e.objectPairs(t, path)
		if err != nil {
			return nil, err
		}
		return wrapValue("object", pairs)
	case []engine.Message:
		if t == nil {
			return wrap("messages", nil)
		}
		recs, err := messageRecs(t, path)
		if err != nil {
			return nil, err
		}
		return wrapValue("messages", recs)
	case engine.MessageList:
		if ref, ok := e.reference(t); ok {
			tail, err := messageRecs(t.Since(ref.N), path)
			if err != nil {
				return nil, err
			}
			ref.Tail = tail
			return wrapValue("msglist+", ref)
		}
		recs, err := messageRecs(t.Slice(), path)
		if err != nil {
			return nil, err
		}
		if recs == nil {
			recs = []messageRec{}
		}
		return wrapValue("msglist", recs)
	case engine.Message:
		rec, err := encodeMessage(t, path)
		if err != nil {
			return nil, err
		}
		return wrapValue("message", rec)
	case *engine.Message:
		if t == nil {
			return wrap("message*", nil)
		}
		rec, err := encodeMessage(*t, path)
		if err != nil {
			return nil, err
		}
		return wrapValue("message*", rec)
	case engine.State:
		if t == nil {
			return wrap("state", nil)
		}
		pairs, err := e.mapPairs(t, path)
		if err != nil {
			return nil, err
		}
		return wrapValue("state", pairs)
	case map[string]any:
		if t == nil {
			return wrap("map", nil)
		}
		pairs, err := e.mapPairs(t, path)
		if err != nil {
			return nil, err
		}
		return wrapValue("map", pairs)
	case engine.Send:
		arg, err := e.encode(t.Arg, path+".Arg")
		if err != nil {
			return nil, err
		}
		return wrapValue("send", sendRec{Node: xstr(t.Node), Arg: arg})
	case engine.ToolCall:
		rec, err := encodeToolCall(t, path)
		if err != nil {
			return nil, err
		}
		return wrapValue("tool_call", rec)
	case []engine.ToolCall:
		if t == nil {
			return wrap("tool_calls", nil)
		}
		recs, err := toolCallRecs(t, path)
		if err != nil {
			return nil, err
		}
		return wrapValue("tool_calls", recs)
	case engine.ToolCallWithContext:
		call, err := encodeToolCall(t.Call, path+".Call")
		if err != nil {
			return nil, err
		}
		var state []pair
		if t.State != nil {
			if state, err = e.mapPairs(t.State, path+".State"); err != nil {
				return nil, err
			}
		}
		return wrapValue("tool_call_ctx", toolCallCtxRec{Call: call, State: state})
	case engine.InterruptValue:
		rec, err := e.interrupt(t, path)
		if err != nil {
			return nil, err
		}
		return wrapValue("interrupt", rec)
	case []engine.InterruptValue:
		if t == nil {
			return wrap("interrupts", nil)
		}
		recs := make([]interruptRec, len(t))
		for i, in := range t {
			rec, err := e.interrupt(in, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			recs[i] = rec
		}
		return wrapValue("interrupts", recs)
	case []string:
		if t == nil {
			return wrap("strings", nil)
		}
		out := make([]xstr, len(t))
		for i, s := range t {
			out[i] = xstr(s)
		}
		return wrapValue("strings", out)
	}
	return nil, fmt.Errorf("%s: cannot store a value of Go type %T", path, v)
}

func (e *encoder) interrupt(in engine.InterruptValue, path string) (interruptRec, error) {
	v, err := e.encode(in.Value, path+".Value")
	if err != nil {
		return interruptRec{}, err
	}
	return interruptRec{Value: v, ID: xstr(in.ID)}, nil
}

func (e *encoder) objectPairs(o *engine.Object, path string) ([]pair, error) {
	pairs := make([]pair, 0, o.Len())
	for _, k := range o.Keys() {
		el, _ := o.Get(k)
		b, err := e.encode(el, fmt.Sprintf("%s[%q]", path, k))
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, pair{Key: xstr(k), Value: b})
	}
	return pairs, nil
}

func (e *encoder) mapPairs(m map[string]any, path string) ([]pair, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	pairs := make([]pair, 0, len(m))
	for _, k := range keys {
		b, err := e.encode(m[k], fmt.Sprintf("%s[%q]", path, k))
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, pair{Key: xstr(k), Value: b})
	}
	return pairs, nil
}

// reference finds the base list sharing the longest prefix with l (the
// messages the lists share by construction: MessageList.SharedPrefix).
func (e *encoder) reference(l engine.MessageList) (messagesRefRec, bool) {
	best := messagesRefRec{}
	for _, b := range e.bases {
		if n := l.SharedPrefix(b.list); n > best.N {
			best = messagesRefRec{List: b.id, N: n}
		}
	}
	return best, best.N >= minRef
}

func wrap(tag string, payload []byte) (json.RawMessage, error) {
	if payload == nil {
		payload = []byte("null")
	}
	var b bytes.Buffer
	b.Grow(len(payload) + len(tag) + 14)
	b.WriteString(`{"t":"`)
	b.WriteString(tag)
	b.WriteString(`","v":`)
	b.Write(payload)
	b.WriteByte('}')
	return b.Bytes(), nil
}

func wrapValue(tag string, v any) (json.RawMessage, error) {
	payload, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return wrap(tag, payload)
}

// marshal is json.Marshal without HTML escaping.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// plainJSON reports whether v is a JSON value that engine.MarshalValue and
// engine.DecodeJSON carry exactly.
func plainJSON(v any) bool {
	switch t := v.(type) {
	case nil, bool:
		return true
	case string:
		return utf8.ValidString(t)
	case json.Number:
		return validNumber(string(t))
	case []any:
		if t == nil {
			return false
		}
		for _, el := range t {
			if !plainJSON(el) {
				return false
			}
		}
		return true
	case *engine.Object:
		if t == nil {
			return false
		}
		for _, k := range t.Keys() {
			el, _ := t.Get(k)
			if !utf8.ValidString(k) || !plainJSON(el) {
				return false
			}
		}
		return true
	}
	return false
}

// validNumber reports whether s is a JSON number literal (RFC 8259).
func validNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		for s != "" && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	default:
		return false
	}
	if s != "" && s[0] == '.' {
		s = s[1:]
		if s == "" || s[0] < '0' || s[0] > '9' {
			return false
		}
		for s != "" && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if s != "" && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s != "" && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		if s == "" || s[0] < '0' || s[0] > '9' {
			return false
		}
		for s != "" && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}

// objectField encodes a *Object field of a message: absent when nil.
func objectField(o *engine.Object, path string) (json.RawMessage, error) {
	if o == nil {
		return nil, nil
	}
	var e encoder
	return e.encode(o, path)
}

func encodeToolCall(tc engine.ToolCall, path string) (toolCallRec, error) {
	args, err := objectField(tc.Args, path+".Args")
	if err != nil {
		return toolCallRec{}, err
	}
	return toolCallRec{Name: xstr(tc.Name), Args: args, ID: xstrp(tc.ID)}, nil
}

func toolCallRecs(calls []engine.ToolCall, path string) ([]toolCallRec, error) {
	recs := make([]toolCallRec, len(calls))
	for i, tc := range calls {
		rec, err := encodeToolCall(tc, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		recs[i] = rec
	}
	return recs, nil
}

func messageRecs(msgs []engine.Message, path string) ([]messageRec, error) {
	recs := make([]messageRec, len(msgs))
	for i, m := range msgs {
		rec, err := encodeMessage(m, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		recs[i] = rec
	}
	return recs, nil
}

// encodeMessage returns the record of m; values inside it (content blocks,
// artifact, arguments, metadata) never refer to stored lists.
func encodeMessage(m engine.Message, path string) (messageRec, error) {
	var e encoder
	rec := messageRec{Type: xstr(m.Type), Name: xstrp(m.Name), ID: xstrp(m.ID), ToolCallID: xstrp(m.ToolCallID), Status: xstrp(m.Status)}
	var err error
	if m.Content.IsList() {
		if rec.Blocks, err = e.encode(m.Content.Blocks(), path+".Content"); err != nil {
			return rec, err
		}
	} else {
		rec.Text = xstrp(m.Content.String())
	}
	if m.ToolCalls != nil {
		recs, err := toolCallRecs(m.ToolCalls, path+".ToolCalls")
		if err != nil {
			return rec, err
		}
		rec.ToolCalls = &recs
	}
	if m.InvalidToolCalls != nil {
		recs := make([]invalidRec, len(m.InvalidToolCalls))
		for i, tc := range m.InvalidToolCalls {
			recs[i] = invalidRec{Name: xstr(tc.Name), Args: xstr(tc.Args), ID: xstr(tc.ID), Error: xstr(tc.Error)}
		}
		rec.Invalid = &recs
	}
	if m.Artifact != nil {
		if rec.Artifact, err = e.encode(m.Artifact, path+".Artifact"); err != nil {
			return rec, err
		}
	}
	if u := m.UsageMetadata; u != nil {
		rec.Usage = &usageRec{In: u.InputTokens, Out: u.OutputTokens, Total: u.TotalTokens}
		if rec.Usage.InDetails, err = objectField(u.InputTokenDetails, path+".UsageMetadata.InputTokenDetails"); err != nil {
			return rec, err
		}
		if rec.Usage.OutDetails, err = objectField(u.OutputTokenDetails, path+".UsageMetadata.OutputTokenDetails"); err != nil {
			return rec, err
		}
	}
	if rec.Kwargs, err = objectField(m.AdditionalKwargs, path+".AdditionalKwargs"); err != nil {
		return rec, err
	}
	if rec.Metadata, err = objectField(m.ResponseMetadata, path+".ResponseMetadata"); err != nil {
		return rec, err
	}
	return rec, nil
}

// resolver returns the first n elements of a stored message list.
type resolver func(list int64, n int) (engine.MessageList, error)

// decoder decodes envelopes; resolve reads stored lists for messages+.
type decoder struct {
	resolve resolver
}

var errNoResolver = errors.New("a message list reference cannot be read here")

// reference reads a messages+ or msglist+ payload: the first n messages
// of the stored list it names, and its tail.
func (d *decoder) reference(raw json.RawMessage) (engine.MessageList, []engine.Message, error) {
	var ref messagesRefRec
	if err := json.Unmarshal(raw, &ref); err != nil {
		return engine.MessageList{}, nil, err
	}
	if d.resolve == nil {
		return engine.MessageList{}, nil, errNoResolver
	}
	head, err := d.resolve(ref.List, ref.N)
	if err != nil {
		return engine.MessageList{}, nil, err
	}
	tail, err := decodeMessages(ref.Tail)
	if err != nil {
		return engine.MessageList{}, nil, err
	}
	return head, tail, nil
}

func (d *decoder) decode(raw json.RawMessage) (any, error) {
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("decode stored value: %w", err)
	}
	v, err := d.decodeEnvelope(env)
	if err != nil {
		return nil, fmt.Errorf("decode stored %s value: %w", env.T, err)
	}
	return v, nil
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

func (d *decoder) decodeEnvelope(env envelope) (any, error) {
	raw := env.V
	switch env.T {
	case "json":
		if isNull(raw) {
			return nil, nil
		}
		return engine.DecodeJSON(raw)
	case "string":
		var s xstr
		err := json.Unmarshal(raw, &s)
		return string(s), err
	case "number":
		var s string
		err := json.Unmarshal(raw, &s)
		return json.Number(s), err
	case "int":
		return strconv.Atoi(string(raw))
	case "int64":
		return strconv.ParseInt(string(raw), 10, 64)
	case "float64":
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !math.IsInf(f, 0) {
			return nil, err
		}
		return f, nil
	case "list":
		if isNull(raw) {
			return []any(nil), nil
		}
		var els []json.RawMessage
		if err := json.Unmarshal(raw, &els); err != nil {
			return nil, err
		}
		out := make([]any, len(els))
		for i, el := range els {
			v, err := d.decode(el)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case "object":
		if isNull(raw) {
			return (*engine.Object)(nil), nil
		}
		var pairs []pair
		if err := json.Unmarshal(raw, &pairs); err != nil {
			return nil, err
		}
		o := &engine.Object{}
		for _, p := range pairs {
			v, err := d.decode(p.Value)
			if err != nil {
				return nil, err
			}
			o.Set(string(p.Key), v)
		}
		return o, nil
	case "messages":
		if isNull(raw) {
			return []engine.Message(nil), nil
		}
		var recs []messageRec
		if err := json.Unmarshal(raw, &recs); err != nil {
			return nil, err
		}
		return decodeMessages(recs)
	case "messages+":
		head, tail, err := d.reference(raw)
		if err != nil {
			return nil, err
		}
		out := make([]engine.Message, 0, head.Len()+len(tail))
		for _, m := range head.All() {
			out = append(out, m)
		}
		return append(out, tail...), nil
	case "msglist":
		var recs []messageRec
		if err := json.Unmarshal(raw, &recs); err != nil {
			return nil, err
		}
		msgs, err := decodeMessages(recs)
		if err != nil {
			return nil, err
		}
		return engine.NewMessageList(msgs...), nil
	case "msglist+":
		head, tail, err := d.reference(raw)
		if err != nil {
			return nil, err
		}
		return head.Append(tail...), nil
	case "message", "message*":
		if env.T == "message*" && isNull(raw) {
			return (*engine.Message)(nil), nil
		}
		var rec messageRec
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, err
		}
		m, err := decodeMessage(rec)
		if err != nil {
			return nil, err
		}
		if env.T == "message*" {
			return &m, nil
		}
		return m, nil
	case "state", "map":
		var m map[string]any
		if !isNull(raw) {
			var pairs []pair
			if err := json.Unmarshal(raw, &pairs); err != nil {
				return nil, err
			}
			var err error
			if m, err = d.decodePairs(pairs); err != nil {
				return nil, err
			}
		}
		if env.T == "state" {
			return engine.State(m), nil
		}
		return m, nil
	case "send":
		var rec sendRec
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, err
		}
		arg, err := d.decode(rec.Arg)
		if err != nil {
			return nil, err
		}
		return engine.Send{Node: string(rec.Node), Arg: arg}, nil
	case "tool_call":
		var rec toolCallRec
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, err
		}
		return decodeToolCall(rec)
	case "tool_calls":
		if isNull(raw) {
			return []engine.ToolCall(nil), nil
		}
		var recs []toolCallRec
		if err := json.Unmarshal(raw, &recs); err != nil {
			return nil, err
		}
		return decodeToolCalls(recs)
	case "tool_call_ctx":
		var rec toolCallCtxRec
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, err
		}
		call, err := decodeToolCall(rec.Call)
		if err != nil {
			return nil, err
		}
		out := engine.ToolCallWithContext{Call: call}
		if rec.State != nil {
			m, err := d.decodePairs(rec.State)
			if err != nil {
				return nil, err
			}
			out.State = m
		}
		return out, nil
	case "interrupt":
		var rec interruptRec
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, err
		}
		return d.decodeInterrupt(rec)
	case "interrupts":
		if isNull(raw) {
			return []engine.InterruptValue(nil), nil
		}
		var recs []interruptRec
		if err := json.Unmarshal(raw, &recs); err != nil {
			return nil, err
		}
		out := make([]engine.InterruptValue, len(recs))
		for i, rec := range recs {
			in, err := d.decodeInterrupt(rec)
			if err != nil {
				return nil, err
			}
			out[i] = in
		}
		return out, nil
	case "strings":
		if isNull(raw) {
			return []string(nil), nil
		}
		var xs []xstr
		if err := json.Unmarshal(raw, &xs); err != nil {
			return nil, err
		}
		out := make([]string, len(xs))
		for i, s := range xs {
			out[i] = string(s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown value tag %q (written by a newer agenteval?)", env.T)
}

func (d *decoder) decodePairs(pairs []pair) (map[string]any, error) {
	m := make(map[string]any, len(pairs))
	for _, p := range pairs {
		v, err := d.decode(p.Value)
		if err != nil {
			return nil, err
		}
		m[string(p.Key)] = v
	}
	return m, nil
}

func (d *decoder) decodeInterrupt(rec interruptRec) (engine.InterruptValue, error) {
	v, err := d.decode(rec.Value)
	if err != nil {
		return engine.InterruptValue{}, err
	}
	return engine.InterruptValue{Value: v, ID: string(rec.ID)}, nil
}

// decodeObjectField decodes an optional *Object field of a message.
func decodeObjectField(raw json.RawMessage) (*engine.Object, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var d decoder
	v, err := d.decode(raw)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*engine.Object)
	if !ok {
		return nil, fmt.Errorf("expected a stored object, got %T", v)
	}
	return o, nil
}

func decodeToolCall(rec toolCallRec) (engine.ToolCall, error) {
	args, err := decodeObjectField(rec.Args)
	if err != nil {
		return engine.ToolCall{}, err
	}
	return engine.ToolCall{Name: string(rec.Name), Args: args, ID: strOf(rec.ID)}, nil
}

func decodeToolCalls(recs []toolCallRec) ([]engine.ToolCall, error) {
	out := make([]engine.ToolCall, len(recs))
	for i, rec := range recs {
		tc, err := decodeToolCall(rec)
		if err != nil {
			return nil, err
		}
		out[i] = tc
	}
	return out, nil
}

func decodeMessages(recs []messageRec) ([]engine.Message, error) {
	out := make([]engine.Message, len(recs))
	for i, rec := range recs {
		m, err := decodeMessage(rec)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out[i] = m
	}
	return out, nil
}

func decodeMessage(rec messageRec) (engine.Message, error) {
	m := engine.Message{Type: engine.MessageType(rec.Type), Name: strOf(rec.Name), ID: strOf(rec.ID), ToolCallID: strOf(rec.ToolCallID), Status: strOf(rec.Status)}
	var d decoder
	if len(rec.Blocks) > 0 {
		v, err := d.decode(rec.Blocks)
		if err != nil {
			return m, err
		}
		blocks, ok := v.([]any)
		if !ok {
			return m, fmt.Errorf("content blocks: expected a stored list, got %T", v)
		}
		m.Content = engine.Blocks(blocks...)
	} else {
		m.Content = engine.Text(strOf(rec.Text))
	}
	if rec.ToolCalls != nil {
		calls, err := decodeToolCalls(*rec.ToolCalls)
		if err != nil {
			return m, err
		}
		m.ToolCalls = calls
	}
	if rec.Invalid != nil {
		m.InvalidToolCalls = make([]engine.InvalidToolCall, len(*rec.Invalid))
		for i, r := range *rec.Invalid {
			m.InvalidToolCalls[i] = engine.InvalidToolCall{Name: string(r.Name), Args: string(r.Args), ID: string(r.ID), Error: string(r.Error)}
		}
	}
	if len(rec.Artifact) > 0 {
		v, err := d.decode(rec.Artifact)
		if err != nil {
			return m, err
		}
		m.Artifact = v
	}
	var err error
	if u := rec.Usage; u != nil {
		m.UsageMetadata = &engine.Usage{InputTokens: u.In, OutputTokens: u.Out, TotalTokens: u.Total}
		if m.UsageMetadata.InputTokenDetails, err = decodeObjectField(u.InDetails); err != nil {
			return m, err
		}
		if m.UsageMetadata.OutputTokenDetails, err = decodeObjectField(u.OutDetails); err != nil {
			return m, err
		}
	}
	if m.AdditionalKwargs, err = decodeObjectField(rec.Kwargs); err != nil {
		return m, err
	}
	if m.ResponseMetadata, err = decodeObjectField(rec.Metadata); err != nil {
		return m, err
	}
	return m, nil
}
