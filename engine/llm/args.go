package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// ParseToolArgs parses the arguments string of a tool call the way
// LangChain's parse_tool_call does: an empty string or "null" is {}; the
// text is read as JSON with raw control characters allowed inside strings
// (Python's json.loads(strict=False)); the result must be an object. Keys
// keep the order the model wrote them in. The error text follows
// LangChain's layout: "Function NAME arguments:\n\nARGS\n\nare not valid
// JSON. Received JSONDecodeError ..." (the decoder's own message is Go's,
// not Python's).
func ParseToolArgs(name, args string) (*engine.Object, error) {
	if strings.TrimSpace(args) == "" {
		return &engine.Object{}, nil
	}
	v, err := engine.DecodeJSON([]byte(args))
	if err != nil {
		if fixed, ok := escapeControlChars(args); ok {
			v, err = engine.DecodeJSON([]byte(fixed))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("Function %s arguments:\n\n%s\n\nare not valid JSON. Received JSONDecodeError %s", name, args, strings.TrimPrefix(err.Error(), "invalid JSON: "))
	}
	switch t := v.(type) {
	case nil:
		return &engine.Object{}, nil
	case *engine.Object:
		return t, nil
	default:
		return nil, fmt.Errorf("Function %s arguments:\n\n%s\n\nare not a JSON object", name, args)
	}
}

// escapeControlChars escapes raw control characters inside JSON string
// literals (json.loads(strict=False) accepts them, Go's decoder does not).
// It reports whether it changed anything.
func escapeControlChars(s string) (string, bool) {
	var b strings.Builder
	inString, escaped, changed := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString && c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
			changed = true
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), changed
}

// toolCallFromWire turns a wire tool call (name, id, raw arguments) into
// a tool call, or an invalid one when the arguments do not parse, as
// LangChain's make_invalid_tool_call does.
func toolCallFromWire(name, id, args string) (*engine.ToolCall, *engine.InvalidToolCall) {
	parsed, err := ParseToolArgs(name, args)
	if err != nil {
		return nil, &engine.InvalidToolCall{Name: name, Args: args, ID: id, Error: err.Error()}
	}
	return &engine.ToolCall{Name: name, Args: parsed, ID: id}, nil
}

// inventToolCallID returns a deterministic id for a tool call that came
// without one (Gemini's OpenAI endpoint sends id ""): "call_" and 24 hex
// digits of a SHA-256 over the response id, the call's position, name and
// arguments. The same response always gets the same id, in record and in
// replay.
func inventToolCallID(responseID string, index int, name, args string) string {
	h := sha256.Sum256([]byte(responseID + "\x00" + strconv.Itoa(index) + "\x00" + name + "\x00" + args))
	return "call_" + hex.EncodeToString(h[:])[:24]
}

// wireCall is a tool call as it came over the wire.
type wireCall struct {
	ID, Name, Args string
}

// finishCalls turns the wire calls of one message into tool calls and
// invalid tool calls, in wire order. Every call gets a usable id first:
// a missing id is invented, and a repeated one (Kimi numbers every call
// "0") is kept on its first call and replaced on later ones, so each tool
// message answers exactly one call.
func finishCalls(responseID string, wires []wireCall) ([]engine.ToolCall, []engine.InvalidToolCall) {
	var calls []engine.ToolCall
	var invalid []engine.InvalidToolCall
	seen := map[string]bool{}
	for i, w := range wires {
		if w.ID == "" || seen[w.ID] {
			w.ID = inventToolCallID(responseID, i, w.Name, w.Args)
		}
		seen[w.ID] = true
		tc, bad := toolCallFromWire(w.Name, w.ID, w.Args)
		if tc != nil {
			calls = append(calls, *tc)
		} else {
			invalid = append(invalid, *bad)
		}
	}
	return calls, invalid
}
