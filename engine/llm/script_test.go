package llm_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/google/go-cmp/cmp"
)

// valueOpts compares engine values by their JSON form, which keeps key
// order and number literals visible in a diff.
var valueOpts = cmp.Options{
	cmp.Transformer("JSON", func(o *engine.Object) string {
		b, err := engine.MarshalValue(o)
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}),
	cmp.Transformer("Value", func(c engine.Content) any { return c.Value() }),
	cmp.Transformer("Messages", func(l engine.MessageList) []engine.Message { return l.Slice() }),
}

func obj(kv ...any) *engine.Object { return engine.NewObject(kv...) }

func ai(id, text string, calls ...engine.ToolCall) engine.Message {
	m := engine.AIMessage(text, calls...)
	m.ID = id
	return m
}

func TestParseScript(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		in     string
		want   llm.Script
	}{
		{
			reason: "the vectors' common shape: a tool call, then a final answer",
			in: `{"responses": [
				{"id": "ai1", "content": "", "tool_calls": [{"name": "get_weather", "args": {"city": "Paris", "days": 2}, "id": "call_1"}]},
				{"id": "ai2", "content": "It is sunny."}]}`,
			want: llm.Script{Responses: []llm.Response{
				{Message: ai("ai1", "", engine.ToolCall{Name: "get_weather", Args: obj("city", "Paris", "days", json.Number("2")), ID: "call_1"})},
				{Message: ai("ai2", "It is sunny.")},
			}},
		},
		{
			reason: "a raise response carries the exception kind and message",
			in:     `{"responses": [{"raise": {"error": "ConnectionError", "message": "provider down"}}]}`,
			want:   llm.Script{Responses: []llm.Response{{Raise: engine.NewError("ConnectionError", "provider down")}}},
		},
		{
			reason: "then.repeat becomes Repeat, placeholders kept for Generate to fill",
			in:     `{"responses": [], "then": {"repeat": {"id": "ai{n}", "content": "", "tool_calls": [{"name": "ping", "args": {}, "id": "call_{n}"}]}}}`,
			want: llm.Script{Responses: []llm.Response{}, Repeat: &llm.Response{
				Message: ai("ai{n}", "", engine.ToolCall{Name: "ping", Args: obj(), ID: "call_{n}"}),
			}},
		},
		{
			reason: "usage becomes UsageMetadata",
			in:     `{"responses": [{"id": "a", "content": "x", "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}]}`,
			want:   llm.Script{Responses: []llm.Response{{Message: withUsage(ai("a", "x"), &engine.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15})}}},
		},
		{
			reason: "a missing total_tokens is the sum, and token details are kept",
			in:     `{"responses": [{"usage": {"input_tokens": 3, "output_tokens": 4, "output_token_details": {"reasoning": 2}}}]}`,
			want:   llm.Script{Responses: []llm.Response{{Message: withUsage(ai("", ""), &engine.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7, OutputTokenDetails: obj("reasoning", json.Number("2"))})}}},
		},
		{
			reason: "null id, null content, null args, null tool_calls mean unset",
			in:     `{"responses": [{"id": null, "content": null, "tool_calls": [{"name": "t", "args": null, "id": null}]}, {"tool_calls": null}]}`,
			want: llm.Script{Responses: []llm.Response{
				{Message: ai("", "", engine.ToolCall{Name: "t", Args: obj()})},
				{Message: ai("", "")},
			}},
		},
		{
			reason: "list content stays a list of blocks; LangChain's tool call type is accepted",
			in:     `{"responses": [{"content": [{"type": "text", "text": "hi"}, "raw"], "tool_calls": [{"name": "t", "type": "tool_call"}]}]}`,
			want: llm.Script{Responses: []llm.Response{{Message: engine.Message{
				Type:      engine.TypeAI,
				Content:   engine.Blocks(obj("type", "text", "text", "hi"), "raw"),
				ToolCalls: []engine.ToolCall{{Name: "t", Args: obj()}},
			}}}},
		},
		{
			reason: "chunk_size sets how many characters each streamed chunk carries",
			in:     `{"responses": [{"id": "a", "content": "Hello there"}], "chunk_size": 4}`,
			want:   llm.Script{Responses: []llm.Response{{Message: ai("a", "Hello there")}}, ChunkSize: 4},
		},
		{
			reason: "an empty object is a script that answers nothing",
			in:     `{}`,
			want:   llm.Script{},
		},
		{
			reason: "a raise without a message raises with an empty one",
			in:     `{"then": {"repeat": {"raise": {"error": "TimeoutError"}}}}`,
			want:   llm.Script{Repeat: &llm.Response{Raise: engine.NewError("TimeoutError", "")}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			got, err := llm.ParseScript([]byte(tc.in))
			if err != nil {
				t.Fatalf("ParseScript(%s) error: %v\n(%s)", tc.in, err, tc.reason)
			}
			if d := cmp.Diff(tc.want, got, valueOpts); d != "" {
				t.Errorf("ParseScript(%s) mismatch (-want +got):\n%s\n(%s)", tc.in, d, tc.reason)
			}
		})
	}
}

func withUsage(m engine.Message, u *engine.Usage) engine.Message {
	m.UsageMetadata = u
	return m
}

func TestParseScriptErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		in     string
		want   string
	}{
		{"a tool call must name its tool", `{"responses": [{}, {}, {"tool_calls": [{"args": {}, "id": "c1"}]}]}`,
			`responses[2].tool_calls[0]: missing "name"`},
		{"invalid JSON is one problem of the whole document, with its position", `{"responses": [`,
			`invalid JSON at line 1, column 16: unexpected end of JSON input`},
		{"the position counts lines and columns from 1", "{\n  \"responses\": x}",
			`invalid JSON at line 2, column 16: invalid character 'x' looking for beginning of value`},
		{"trailing data is invalid JSON", `{} {}`,
			`invalid JSON at line 1, column 4: invalid character '{' after top-level value`},
		{"empty input is invalid JSON", ``,
			`invalid JSON at line 1, column 1: unexpected end of JSON input`},
		{"the document must be an object", `[1]`,
			`expected a script object with "responses", "then" and "chunk_size", got array`},
		{"unknown top-level keys are typos", `{"response": []}`,
			`unknown key "response" (expected responses, then or chunk_size)`},
		{"chunk_size counts characters: a whole number", `{"responses": [], "chunk_size": 2.5}`,
			`chunk_size: expected a whole number of characters (0 or more), got 2.5`},
		{"chunk_size cannot be negative", `{"responses": [], "chunk_size": -1}`,
			`chunk_size: expected a whole number of characters (0 or more), got -1`},
		{"chunk_size is a number, not text", `{"responses": [], "chunk_size": "4"}`,
			`chunk_size: expected a whole number of characters (0 or more), got string "4"`},
		{"responses must be an array", `{"responses": {"id": "a"}}`,
			`responses: expected an array of responses, got object`},
		{"a response must be an object", `{"responses": ["hello"]}`,
			`responses[0]: expected a response object, got string "hello"`},
		{"unknown response keys are typos", `{"responses": [{"id": "a", "contnet": "x"}]}`,
			`responses[0]: unknown key "contnet" (expected id, content, tool_calls, usage or raise)`},
		{"a response answers or raises, not both", `{"responses": [{"id": "a", "content": "x", "raise": {"error": "ValueError"}}]}`,
			`responses[0]: "raise" cannot be combined with "id", "content": a response either answers or raises`},
		{"an unknown key next to raise is reported once, as unknown", `{"responses": [{"raise": {"error": "E"}, "foo": 1}]}`,
			`responses[0]: unknown key "foo" (expected id, content, tool_calls, usage or raise)`},
		{"raise needs the exception kind", `{"responses": [{"raise": {"message": "boom"}}]}`,
			`responses[0].raise: missing "error" (the exception class name, such as "ValueError")`},
		{"raise error must be a non-empty string", `{"responses": [{"raise": {"error": ""}}]}`,
			`responses[0].raise.error: expected a non-empty string (the exception class name), got an empty string`},
		{"raise must be an object", `{"responses": [{"raise": "ValueError"}]}`,
			`responses[0].raise: expected an object with "error" and "message", got string "ValueError"`},
		{"raise message must be a string", `{"responses": [{"raise": {"error": "E", "message": 3}}]}`,
			`responses[0].raise.message: expected a string, got number 3`},
		{"unknown raise keys are typos", `{"responses": [{"raise": {"error": "E", "msg": "x"}}]}`,
			`responses[0].raise: unknown key "msg" (expected error or message)`},
		{"id must be a string", `{"responses": [{"id": 1}]}`,
			`responses[0].id: expected a string or null, got number 1`},
		{"content must be text or blocks", `{"responses": [{"content": {"text": "x"}}]}`,
			`responses[0].content: expected a string, an array of content blocks or null, got object`},
		{"content blocks must be objects or strings", `{"responses": [{"content": ["a", 1]}]}`,
			`responses[0].content[1]: expected a content block (an object with a "type") or a string, got number 1`},
		{"tool_calls must be an array", `{"responses": [{"tool_calls": {"name": "t"}}]}`,
			`responses[0].tool_calls: expected an array of tool calls, got object`},
		{"a tool call must be an object", `{"responses": [{"tool_calls": ["t"]}]}`,
			`responses[0].tool_calls[0]: expected a tool call object with "name", "args" and "id", got string "t"`},
		{"a tool name must not be empty", `{"responses": [{"tool_calls": [{"name": ""}]}]}`,
			`responses[0].tool_calls[0].name: expected a non-empty string, got an empty string`},
		{"tool args must be an object", `{"responses": [{"tool_calls": [{"name": "t", "args": "{\"a\": 1}"}]}]}`,
			`responses[0].tool_calls[0].args: expected an object, got string "{\"a\": 1}"`},
		{"a tool call id must be a string", `{"responses": [{"tool_calls": [{"name": "t", "id": true}]}]}`,
			`responses[0].tool_calls[0].id: expected a string or null, got boolean true`},
		{"a tool call type can only be tool_call", `{"responses": [{"tool_calls": [{"name": "t", "type": "function"}]}]}`,
			`responses[0].tool_calls[0].type: expected "tool_call", got string "function"`},
		{"unknown tool call keys are typos", `{"responses": [{"tool_calls": [{"name": "t", "arguments": {}}]}]}`,
			`responses[0].tool_calls[0]: unknown key "arguments" (expected name, args, id or type)`},
		{"usage needs input and output tokens", `{"responses": [{"usage": {"total_tokens": 3}}]}`,
			"responses[0].usage: missing \"input_tokens\"\nresponses[0].usage: missing \"output_tokens\""},
		{"token counts are non-negative integers", `{"responses": [{"usage": {"input_tokens": -1, "output_tokens": 2.5, "total_tokens": "3"}}]}`,
			"responses[0].usage.input_tokens: expected a non-negative integer, got number -1\n" +
				"responses[0].usage.output_tokens: expected a non-negative integer, got number 2.5\n" +
				"responses[0].usage.total_tokens: expected a non-negative integer, got string \"3\""},
		{"usage must be an object", `{"responses": [{"usage": 3}]}`,
			`responses[0].usage: expected an object with "input_tokens", "output_tokens" and "total_tokens", got number 3`},
		{"token details must be objects", `{"responses": [{"usage": {"input_tokens": 1, "output_tokens": 1, "input_token_details": []}}]}`,
			`responses[0].usage.input_token_details: expected an object, got array`},
		{"then must be an object", `{"then": "repeat"}`,
			`then: expected an object with "repeat", got string "repeat"`},
		{"then needs repeat", `{"then": {}}`,
			`then: missing "repeat"`},
		{"unknown then keys are typos", `{"then": {"repeat": {}, "cycle": true}}`,
			`then: unknown key "cycle" (expected repeat)`},
		{"the repeat response is checked like the others", `{"then": {"repeat": {"tool_calls": [{"id": "call_{n}"}]}}}`,
			`then.repeat.tool_calls[0]: missing "name"`},
		{"every problem is reported at once, in document order", `{"responses": [{"id": 1, "tool_calls": [{}]}, 7], "then": {}}`,
			"responses[0].id: expected a string or null, got number 1\n" +
				"responses[0].tool_calls[0]: missing \"name\"\n" +
				"responses[1]: expected a response object, got number 7\n" +
				"then: missing \"repeat\""},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			_, err := llm.ParseScript([]byte(tc.in))
			if err == nil {
				t.Fatalf("ParseScript(%s) succeeded, want error %q\n(%s)", tc.in, tc.want, tc.reason)
			}
			if d := cmp.Diff(tc.want, err.Error()); d != "" {
				t.Errorf("ParseScript(%s) error mismatch (-want +got):\n%s\n(%s)", tc.in, d, tc.reason)
			}
			var se *llm.ScriptError
			if !errors.As(err, &se) || len(se.Problems) == 0 {
				t.Errorf("ParseScript(%s) error is %T, want a *llm.ScriptError with problems", tc.in, err)
			}
		})
	}
}

// FuzzParseScript: no input makes ParseScript panic, an error is always a
// *ScriptError that says something, and a script it accepts can be run.
func FuzzParseScript(f *testing.F) {
	for _, s := range []string{
		`{"responses": [{"id": "ai1", "content": "", "tool_calls": [{"name": "t", "args": {"a": [1, {"b": "{n}"}]}, "id": "c1"}]}]}`,
		`{"responses": [{"raise": {"error": "ValueError", "message": "boom"}}], "then": {"repeat": {"id": "ai{n}", "content": [{"type": "text", "text": "{n}"}]}}}`,
		`{"responses": [{"usage": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}}]}`,
		`{"responses": [{"id": 1, "tool_calls": [{}]}, 7], "then": {}}`,
		`{"responses": [`,
		`null`,
		`{"responses": [{"content": "héllo wörld, 中文"}, {"content": [{"type": "text", "text": "x"}]}], "chunk_size": 3}`,
		`{"chunk_size": -2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		script, err := llm.ParseScript(data)
		if err != nil {
			var se *llm.ScriptError
			if !errors.As(err, &se) || len(se.Problems) == 0 || err.Error() == "" {
				t.Fatalf("ParseScript(%q) error %v (%T), want a *llm.ScriptError with problems", data, err, err)
			}
			return
		}
		m := llm.NewScripted("fuzz", script)
		for range len(script.Responses) + 2 {
			if _, err := m.Generate(t.Context(), engine.ModelRequest{}); err != nil && !isExpected(err) {
				t.Fatalf("Generate on a parsed script: unexpected error %v", err)
			}
		}
		// streamed, every answer's chunks add up to its text
		s := llm.NewScripted("fuzz", script)
		for range len(script.Responses) + 2 {
			var text strings.Builder
			msg, err := s.GenerateStream(t.Context(), engine.ModelRequest{}, func(c engine.Message) error {
				text.WriteString(c.Text())
				return nil
			})
			if err != nil {
				if !isExpected(err) {
					t.Fatalf("GenerateStream on a parsed script: unexpected error %v", err)
				}
				continue
			}
			if text.String() != msg.Text() {
				t.Fatalf("GenerateStream chunks %q, want the answer's text %q", text.String(), msg.Text())
			}
		}
	})
}

// isExpected reports whether err is one a parsed script may produce: a
// raised error or exhaustion.
func isExpected(err error) bool {
	var ee *engine.Error
	return errors.As(err, &ee) || errors.Is(err, llm.ErrScriptExhausted)
}
