package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// ScriptError lists every problem ParseScript or ScriptFromValue found in
// a script, in document order.
type ScriptError struct {
	Problems []Problem
}

// Error returns the problems, one per line.
func (e *ScriptError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Problem is one thing wrong with a script: where it is and what was
// expected there.
type Problem struct {
	// Path is the JSON path of the problem, such as
	// "responses[2].tool_calls[0]"; empty for the document as a whole.
	Path string
	// Message says what is wrong and what was expected instead.
	Message string
}

// String returns "path: message", or the message alone when the path is
// empty.
func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// ParseScript reads a script in its JSON form (see the package doc). The
// error, when there is one, is a *ScriptError naming the JSON path of each
// problem and what was expected there; invalid JSON is reported as one
// problem of the whole document.
func ParseScript(data []byte) (Script, error) {
	if err := syntaxError(data); err != nil {
		return Script{}, &ScriptError{Problems: []Problem{{Message: err.Error()}}}
	}
	v, err := engine.DecodeJSON(data)
	if err != nil {
		return Script{}, &ScriptError{Problems: []Problem{{Message: err.Error()}}}
	}
	return ScriptFromValue(v)
}

// syntaxError reports where data stops being JSON, as "invalid JSON at
// line L, column C: what".
func syntaxError(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	// Offset counts the bytes read, the offending one included; at the
	// end of the input, point just past it.
	at := int(se.Offset) - 1
	if at < 0 || int(se.Offset) >= len(data) && strings.HasPrefix(se.Error(), "unexpected end") {
		at = int(se.Offset)
	}
	at = min(max(at, 0), len(data))
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(data[:at], '\n')
	return fmt.Errorf("invalid JSON at line %d, column %d: %s", line, col, se.Error())
}

// ScriptFromValue reads a script from a JSON value of the engine's value
// model (as engine.DecodeJSON returns), for callers that decoded the
// surrounding document themselves. Errors are as for ParseScript.
func ScriptFromValue(v any) (Script, error) {
	p := &scriptParser{}
	s := p.script(v)
	if len(p.problems) > 0 {
		return Script{}, &ScriptError{Problems: p.problems}
	}
	return s, nil
}

// scriptParser collects the problems of one script.
type scriptParser struct {
	problems []Problem
}

func (p *scriptParser) add(path, format string, args ...any) {
	p.problems = append(p.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// object checks that v is an object whose keys are all in known; it
// reports the problems and returns nil when v is not an object.
func (p *scriptParser) object(path string, v any, what string, known ...string) *engine.Object {
	o, ok := v.(*engine.Object)
	if !ok || o == nil {
		p.add(path, "expected %s, got %s", what, jsonType(v))
		return nil
	}
	for _, k := range o.Keys() {
		if !slices.Contains(known, k) {
			p.add(path, "unknown key %q (expected %s)", k, orList(known))
		}
	}
	return o
}

func (p *scriptParser) script(v any) Script {
	var s Script
	o := p.object("", v, `a script object with "responses", "then" and "chunk_size"`, "responses", "then", "chunk_size")
	if o == nil {
		return s
	}
	if cv, ok := o.Get("chunk_size"); ok {
		s.ChunkSize = p.chunkSize(cv)
	}
	if rv, ok := o.Get("responses"); ok {
		list, ok := rv.([]any)
		if !ok {
			p.add("responses", "expected an array of responses, got %s", jsonType(rv))
		} else {
			s.Responses = make([]Response, len(list))
			for i, e := range list {
				s.Responses[i] = p.response(fmt.Sprintf("responses[%d]", i), e)
			}
		}
	}
	if tv, ok := o.Get("then"); ok {
		then := p.object("then", tv, `an object with "repeat"`, "repeat")
		if then != nil {
			if rv, ok := then.Get("repeat"); ok {
				r := p.response("then.repeat", rv)
				s.Repeat = &r
			} else {
				p.add("then", `missing "repeat"`)
			}
		}
	}
	return s
}

// chunkSize reads chunk_size: a whole number of characters, 0 or more.
func (p *scriptParser) chunkSize(v any) int {
	n, ok := v.(json.Number)
	if !ok {
		p.add("chunk_size", "expected a whole number of characters (0 or more), got %s", jsonType(v))
		return 0
	}
	i, err := strconv.Atoi(n.String())
	if err != nil || i < 0 {
		p.add("chunk_size", "expected a whole number of characters (0 or more), got %s", n)
		return 0
	}
	return i
}

// responseKeys returns the keys a response object may have.
func responseKeys() []string { return []string{"id", "content", "tool_calls", "usage", "raise"} }

func (p *scriptParser) response(path string, v any) Response {
	var r Response
	o := p.object(path, v, "a response object", responseKeys()...)
	if o == nil {
		return r
	}
	if rv, ok := o.Get("raise"); ok {
		var others []string
		for _, k := range o.Keys() {
			if k != "raise" && slices.Contains(responseKeys(), k) {
				others = append(others, strconv.Quote(k))
			}
		}
		if len(others) > 0 {
			p.add(path, `"raise" cannot be combined with %s: a response either answers or raises`, strings.Join(others, ", "))
		}
		r.Raise = p.raise(path+".raise", rv)
		return r
	}
	m := engine.Message{Type: engine.TypeAI, Content: engine.Text("")}
	for _, k := range o.Keys() {
		fv, _ := o.Get(k)
		fpath := path + "." + k
		switch k {
		case "id":
			switch t := fv.(type) {
			case nil:
			case string:
				m.ID = t
			default:
				p.add(fpath, "expected a string or null, got %s", jsonType(fv))
			}
		case "content":
			m.Content = p.content(fpath, fv)
		case "tool_calls":
			m.ToolCalls = p.toolCalls(fpath, fv)
		case "usage":
			m.UsageMetadata = p.usage(fpath, fv)
		}
	}
	r.Message = m
	return r
}

func (p *scriptParser) raise(path string, v any) *engine.Error {
	o := p.object(path, v, `an object with "error" and "message"`, "error", "message")
	if o == nil {
		return &engine.Error{}
	}
	e := &engine.Error{}
	if ev, ok := o.Get("error"); !ok {
		p.add(path, `missing "error" (the exception class name, such as "ValueError")`)
	} else if s, ok := ev.(string); !ok || s == "" {
		p.add(path+".error", "expected a non-empty string (the exception class name), got %s", jsonType(ev))
	} else {
		e.Kind = s
	}
	if mv, ok := o.Get("message"); ok {
		if s, ok := mv.(string); ok {
			e.Message = s
		} else {
			p.add(path+".message", "expected a string, got %s", jsonType(mv))
		}
	}
	return e
}

func (p *scriptParser) content(path string, v any) engine.Content {
	switch t := v.(type) {
	case nil:
		return engine.Text("")
	case string:
		return engine.Text(t)
	case []any:
		for i, b := range t {
			switch b.(type) {
			case string, *engine.Object:
			default:
				p.add(fmt.Sprintf("%s[%d]", path, i), "expected a content block (an object with a \"type\") or a string, got %s", jsonType(b))
			}
		}
		return engine.Blocks(t...)
	default:
		p.add(path, "expected a string, an array of content blocks or null, got %s", jsonType(v))
		return engine.Text("")
	}
}

func (p *scriptParser) toolCalls(path string, v any) []engine.ToolCall {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		p.add(path, "expected an array of tool calls, got %s", jsonType(v))
		return nil
	}
	calls := make([]engine.ToolCall, 0, len(list))
	for i, e := range list {
		cpath := fmt.Sprintf("%s[%d]", path, i)
		o := p.object(cpath, e, `a tool call object with "name", "args" and "id"`, "name", "args", "id", "type")
		if o == nil {
			continue
		}
		tc := engine.ToolCall{Args: &engine.Object{}}
		if nv, ok := o.Get("name"); !ok {
			p.add(cpath, `missing "name"`)
		} else if s, ok := nv.(string); !ok || s == "" {
			p.add(cpath+".name", "expected a non-empty string, got %s", jsonType(nv))
		} else {
			tc.Name = s
		}
		if av, ok := o.Get("args"); ok && av != nil {
			if a, ok := av.(*engine.Object); ok {
				tc.Args = a
			} else {
				p.add(cpath+".args", "expected an object, got %s", jsonType(av))
			}
		}
		if iv, ok := o.Get("id"); ok && iv != nil {
			if s, ok := iv.(string); ok {
				tc.ID = s
			} else {
				p.add(cpath+".id", "expected a string or null, got %s", jsonType(iv))
			}
		}
		if tv, ok := o.Get("type"); ok && tv != "tool_call" {
			p.add(cpath+".type", `expected "tool_call", got %s`, jsonType(tv))
		}
		calls = append(calls, tc)
	}
	return calls
}

func (p *scriptParser) usage(path string, v any) *engine.Usage {
	if v == nil {
		return nil
	}
	o := p.object(path, v, `an object with "input_tokens", "output_tokens" and "total_tokens"`,
		"input_tokens", "output_tokens", "total_tokens", "input_token_details", "output_token_details")
	if o == nil {
		return nil
	}
	u := &engine.Usage{}
	count := func(key string, required bool) (int, bool) {
		nv, ok := o.Get(key)
		if !ok {
			if required {
				p.add(path, "missing %q", key)
			}
			return 0, false
		}
		n, ok := tokenCount(nv)
		if !ok {
			p.add(path+"."+key, "expected a non-negative integer, got %s", jsonType(nv))
		}
		return n, ok
	}
	u.InputTokens, _ = count("input_tokens", true)
	u.OutputTokens, _ = count("output_tokens", true)
	if n, ok := count("total_tokens", false); ok {
		u.TotalTokens = n
	} else if !o.Has("total_tokens") {
		u.TotalTokens = u.InputTokens + u.OutputTokens
	}
	details := func(key string) *engine.Object {
		dv, ok := o.Get(key)
		if !ok || dv == nil {
			return nil
		}
		d, ok := dv.(*engine.Object)
		if !ok {
			p.add(path+"."+key, "expected an object, got %s", jsonType(dv))
		}
		return d
	}
	u.InputTokenDetails = details("input_token_details")
	u.OutputTokenDetails = details("output_token_details")
	return u
}

// maxTokens bounds a token count so that the sum of two fits an int on
// every platform.
const maxTokens = 1<<30 - 1

// tokenCount reads a non-negative integer token count.
func tokenCount(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, ok := new(big.Int).SetString(string(n), 10)
	if !ok || i.Sign() < 0 || !i.IsInt64() || i.Int64() > maxTokens {
		return 0, false
	}
	return int(i.Int64()), true
}

// jsonType describes a JSON value for an error message: its JSON type,
// with the value itself for scalars.
func jsonType(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean " + strconv.FormatBool(t)
	case json.Number:
		return "number " + string(t)
	case string:
		if t == "" {
			return "an empty string"
		}
		if len(t) > 40 {
			t = t[:37] + "..."
		}
		return "string " + strconv.Quote(t)
	case []any:
		return "array"
	case *engine.Object:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// orList writes "a, b or c".
func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
