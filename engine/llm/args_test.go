package llm_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

func TestParseToolArgs(t *testing.T) {
	tests := []struct {
		reason, args, want, wantErr string
	}{
		{"empty arguments are no arguments (parameter-less tools)", "", `{}`, ""},
		{"null is no arguments, as LangChain's `args or {}`", "null", `{}`, ""},
		{"keys keep the model's order", `{"b": 1, "a": [true, null], "c": {"z": 1, "y": 2.50}}`, `{"b":1,"a":[true,null],"c":{"z":1,"y":2.50}}`, ""},
		{"raw control characters inside strings are accepted (json.loads strict=False)", "{\"text\": \"line1\nline2\ttab\"}", `{"text":"line1\nline2\ttab"}`, ""},
		{"pretty-printed arguments", "{\n  \"name\": \"David\"\n}", `{"name":"David"}`, ""},
		{"truncated JSON is invalid", `{"city": "Par`, "", "Function get_weather arguments:\n\n{\"city\": \"Par\n\nare not valid JSON. Received JSONDecodeError"},
		{"a list is not an object", `[1, 2]`, "", "Function get_weather arguments:\n\n[1, 2]\n\nare not a JSON object"},
		{"trailing data is invalid", `{"a": 1} {"b": 2}`, "", "Function get_weather arguments:\n\n{\"a\": 1} {\"b\": 2}\n\nare not valid JSON. Received JSONDecodeError unexpected data after the value"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			got, err := llm.ParseToolArgs("get_weather", tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Errorf("ParseToolArgs(%q) = %v, %v; want error starting %q", tc.args, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseToolArgs(%q): %v", tc.args, err)
			}
			b, _ := engine.MarshalValue(got)
			if string(b) != tc.want {
				t.Errorf("ParseToolArgs(%q) = %s, want %s", tc.args, b, tc.want)
			}
		})
	}
}

// TestMalformedArgumentsBecomeInvalidToolCalls follows LangChain: a call
// whose arguments do not parse is kept, with its raw text, as an invalid
// tool call; the good calls of the same message stay tool calls.
func TestMalformedArgumentsBecomeInvalidToolCalls(t *testing.T) {
	body := `{"id":"r1","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[` +
		`{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}},` +
		`{"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Lon"}},` +
		`{"id":"","type":"function","function":{"name":"ping","arguments":""}}]}}]}`
	got, err := llm.ParseOpenAIResponse([]byte(body), llm.ProviderOpenAI)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.ToolCalls) != 2 || got.ToolCalls[0].ID != "call_1" || got.ToolCalls[1].Name != "ping" || !strings.HasPrefix(got.ToolCalls[1].ID, "call_") {
		t.Errorf("tool calls = %+v", got.ToolCalls)
	}
	if len(got.InvalidToolCalls) != 1 {
		t.Fatalf("invalid tool calls = %+v, want one", got.InvalidToolCalls)
	}
	inv := got.InvalidToolCalls[0]
	if inv.ID != "call_2" || inv.Name != "get_weather" || inv.Args != `{"city": "Lon` || !strings.Contains(inv.Error, "are not valid JSON") {
		t.Errorf("invalid tool call = %+v", inv)
	}
}

// TestRepeatedToolCallIDsAreMadeUnique: Kimi numbers every call "0"; a
// second call with the same id gets an invented one, so each tool
// message answers one call.
func TestRepeatedToolCallIDsAreMadeUnique(t *testing.T) {
	body := `{"id":"r1","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[` +
		`{"id":"0","function":{"name":"a","arguments":"{}"}},{"id":"0","function":{"name":"b","arguments":"{}"}}]}}]}`
	got, err := llm.ParseOpenAIResponse([]byte(body), llm.ProviderOpenAI)
	if err != nil {
		t.Fatal(err)
	}
	if got.ToolCalls[0].ID != "0" || got.ToolCalls[1].ID == "0" || got.ToolCalls[1].ID == "" {
		t.Errorf("ids = %q, %q; want 0 and an invented one", got.ToolCalls[0].ID, got.ToolCalls[1].ID)
	}
}

// FuzzParseToolArgs checks ParseToolArgs against encoding/json: it never
// panics, accepts every JSON object encoding/json accepts, and what it
// returns survives a marshal and decode unchanged.
func FuzzParseToolArgs(f *testing.F) {
	for _, s := range []string{"", "null", "{}", `{"a":1}`, `{"b": [1, 2.5e3, "x"], "a": {"c": null}}`, "{\"t\": \"a\nb\"}", `{"a":`, `[1]`, `"str"`, `{"a":1}{}`, `{"\u00e9": "\ud83d\ude00"}`, `{"n": 1e400}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		got, err := llm.ParseToolArgs("tool", args)
		var std any
		stdErr := json.Unmarshal([]byte(args), &std)
		if _, isObj := std.(map[string]any); stdErr == nil && isObj && err != nil {
			t.Fatalf("encoding/json reads %q as an object, ParseToolArgs fails: %v", args, err)
		}
		if err != nil {
			if got != nil {
				t.Fatalf("ParseToolArgs(%q) returned a value and an error", args)
			}
			return
		}
		b, merr := engine.MarshalValue(got)
		if merr != nil {
			t.Fatalf("marshal %q: %v", args, merr)
		}
		back, derr := engine.DecodeJSON(b)
		if derr != nil || !engine.ValueEqual(got, back) {
			t.Fatalf("round trip of %q: %s, %v", args, b, derr)
		}
	})
}

// FuzzParseStreams feeds arbitrary bytes to both stream parsers: they may
// fail, but not panic, and a message they return is well formed.
func FuzzParseStreams(f *testing.F) {
	f.Add([]byte("data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\",\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":1}\"}}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-1}]}}]}\n\n: comment\r\ndata: x\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, parse := range []func() (engine.Message, error){
			func() (engine.Message, error) {
				return llm.ParseOpenAIStream(bytes.NewReader(body), llm.ProviderOpenAI)
			},
			func() (engine.Message, error) { return llm.ParseAnthropicStream(bytes.NewReader(body)) },
			func() (engine.Message, error) { return llm.ParseRecordedResponse("/v1/chat/completions", body) },
			func() (engine.Message, error) { return llm.ParseRecordedResponse("/v1/messages", body) },
		} {
			m, err := parse()
			if err != nil {
				continue
			}
			if m.Type != engine.TypeAI {
				t.Fatalf("parsed a %q message", m.Type)
			}
			seen := map[string]bool{}
			for _, tc := range m.ToolCalls {
				if tc.ID == "" || seen[tc.ID] || tc.Args == nil {
					t.Fatalf("tool call without a unique id or args: %+v", m.ToolCalls)
				}
				seen[tc.ID] = true
			}
			if _, err := engine.MarshalValue(m.ToValue()); err != nil {
				t.Fatalf("message does not marshal: %v", err)
			}
		}
	})
}

func TestStreamedMalformedArgumentsBecomeInvalidToolCalls(t *testing.T) {
	anth := "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"f\",\"input\":{}}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\"}}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"}}\n\n"
	m, err := llm.ParseAnthropicStream(strings.NewReader(anth))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ToolCalls) != 0 || len(m.InvalidToolCalls) != 1 || m.InvalidToolCalls[0].Args != `{"a":` || m.InvalidToolCalls[0].ID != "toolu_1" {
		t.Errorf("anthropic: calls %+v, invalid %+v", m.ToolCalls, m.InvalidToolCalls)
	}
	oa := "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\": tru\"}}]},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n"
	m, err = llm.ParseOpenAIStream(strings.NewReader(oa), llm.ProviderOpenAI)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ToolCalls) != 0 || len(m.InvalidToolCalls) != 1 || m.InvalidToolCalls[0].Args != `{"a": tru` {
		t.Errorf("openai: calls %+v, invalid %+v", m.ToolCalls, m.InvalidToolCalls)
	}
}
