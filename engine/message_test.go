package engine_test

import (
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
)

func TestMessageFromValue(t *testing.T) {
	tests := []struct {
		reason string
		in     string
		want   string // the message as a LangChain dict, or an error substring
		err    bool
	}{
		{"OpenAI roles map to LangChain types", `{"role":"user","content":"hi"}`, `{"type":"human","content":"hi","id":null}`, false},
		{"assistant with tool calls", `{"role":"assistant","content":"","tool_calls":[{"name":"f","args":{"b":1,"a":2},"id":"c1"}]}`,
			`{"type":"ai","content":"","id":null,"tool_calls":[{"name":"f","args":{"b":1,"a":2},"id":"c1"}]}`, false},
		{"tool messages default to success", `{"type":"tool","content":"ok","tool_call_id":"c1","name":"f"}`, `{"type":"tool","content":"ok","name":"f","id":null,"tool_call_id":"c1","status":"success"}`, false},
		{"content blocks stay a list", `{"type":"human","content":[{"type":"text","text":"a"}],"id":"h1"}`, `{"type":"human","content":[{"type":"text","text":"a"}],"id":"h1"}`, false},
		{"a remove message keeps only its id", `{"type":"remove","id":"m1"}`, `{"type":"remove","id":"m1"}`, false},
		{"a bare string is a human message", `"hello"`, `{"type":"human","content":"hello","id":null}`, false},
		{"a [role, content] pair is a message", `["system","be brief"]`, `{"type":"system","content":"be brief","id":null}`, false},
		{"unknown roles are named", `{"role":"robot","content":"x"}`, `message type "robot" is not one of`, true},
		{"a dict needs a type or role", `{"content":"x"}`, `needs a "type" or "role" key`, true},
		{"tool messages need a call id", `{"type":"tool","content":"x"}`, `needs a tool_call_id`, true},
		{"tool call args must be a dict", `{"type":"ai","content":"","tool_calls":[{"name":"f","args":"{}","id":"c"}]}`, `tool_calls[0]: tool call args must be a dict, got str`, true},
		{"tool calls need a name", `{"type":"ai","content":"","tool_calls":[{"args":{}}]}`, `tool_calls[0]: a tool call needs a string "name"`, true},
		{"content must be text or blocks", `{"type":"human","content":5}`, `content must be a string or a list of blocks, got int`, true},
		{"a status is success or error", `{"type":"tool","content":"x","tool_call_id":"c","status":"meh"}`, `status must be "success" or "error"`, true},
	}
	for _, tc := range tests {
		v, err := engine.DecodeJSON([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		m, err := engine.MessageFromValue(v)
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error = %v, want %q", tc.reason, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.reason, err)
			continue
		}
		b, _ := m.MarshalJSON()
		if string(b) != tc.want {
			t.Errorf("%s: got %s, want %s", tc.reason, b, tc.want)
		}
	}
}

func TestAddMessages(t *testing.T) {
	msg := func(id, text string) engine.Message {
		m := engine.HumanMessage(text)
		m.ID = id
		return m
	}
	tests := []struct {
		reason      string
		left, right []engine.Message
		want        string
		err         string
	}{
		{"new ids append", []engine.Message{msg("a", "1")}, []engine.Message{msg("b", "2")}, "a:1 b:2", ""},
		{"a known id replaces in place", []engine.Message{msg("a", "1"), msg("b", "2")}, []engine.Message{msg("a", "1'")}, "a:1' b:2", ""},
		{"remove deletes by id", []engine.Message{msg("a", "1"), msg("b", "2")}, []engine.Message{engine.RemoveMessage("a")}, "b:2", ""},
		{"remove-all keeps what follows it", []engine.Message{msg("a", "1")}, []engine.Message{msg("x", "0"), engine.RemoveMessage(engine.RemoveAllMessages), msg("c", "3")}, "c:3", ""},
		{"a replacement after a removal restores", []engine.Message{msg("a", "1")}, []engine.Message{engine.RemoveMessage("a"), msg("a", "again")}, "a:again", ""},
		{"removing an unknown id is LangGraph's error", []engine.Message{msg("a", "1")}, []engine.Message{engine.RemoveMessage("zz")}, "", "Attempting to delete a message with an ID that doesn't exist ('zz')"},
	}
	for _, tc := range tests {
		left := append([]engine.Message(nil), tc.left...)
		got, err := engine.AddMessages(tc.left, tc.right)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: error = %v, want %q", tc.reason, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.reason, err)
			continue
		}
		var parts []string
		for _, m := range got {
			parts = append(parts, m.ID+":"+m.Text())
		}
		if s := strings.Join(parts, " "); s != tc.want {
			t.Errorf("%s: got %q, want %q", tc.reason, s, tc.want)
		}
		for i := range left {
			if left[i].Text() != tc.left[i].Text() || left[i].ID != tc.left[i].ID {
				t.Errorf("%s: AddMessages modified its left argument", tc.reason)
			}
		}
	}
	// messages without ids get stable ones
	a, _ := engine.AddMessages(nil, []engine.Message{engine.HumanMessage("x")})
	b, _ := engine.AddMessages(nil, []engine.Message{engine.HumanMessage("x")})
	if a[0].ID == "" || a[0].ID != b[0].ID {
		t.Errorf("ids %q and %q: want the same non-empty id", a[0].ID, b[0].ID)
	}
}

// FuzzMessageFromJSON: message dicts from outside never panic the parser,
// and what it accepts survives a round trip through its LangChain dict.
func FuzzMessageFromJSON(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"hi"}`,
		`{"type":"ai","content":"","id":"a","tool_calls":[{"name":"f","args":{"x":[1,2.5,null]},"id":"c"}],"usage_metadata":{"input_tokens":3,"output_tokens":4,"total_tokens":7}}`,
		`{"type":"tool","content":[{"type":"text","text":"t"}],"tool_call_id":"c","status":"error","artifact":{"k":1}}`,
		`["user","x"]`, `"plain"`, `{"type":"remove","id":"r"}`, `[1]`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := engine.DecodeJSON(data)
		if err != nil {
			return
		}
		m, err := engine.MessageFromValue(v)
		if err != nil {
			return
		}
		b1, err := m.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON: %v", err)
		}
		var back engine.Message
		if err := back.UnmarshalJSON(b1); err != nil {
			t.Fatalf("round trip of %s: %v", b1, err)
		}
		b2, _ := back.MarshalJSON()
		if string(b1) != string(b2) {
			t.Fatalf("round trip changed the message:\n%s\n%s", b1, b2)
		}
	})
}
