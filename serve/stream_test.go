package serve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"

	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/serve"
)

// streamScript has the three shapes of answer whose streams differ: tool
// calls only (two, in parallel), text with a call, and text only.
func streamScript(t *testing.T) llm.Script {
	t.Helper()
	s, err := llm.ParseScript([]byte(`{"responses": [
	  {"id": "ai1", "content": "", "tool_calls": [
	    {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_a"},
	    {"name": "get_weather", "args": {"city": "London"}, "id": "call_b"}],
	   "usage": {"input_tokens": 50, "output_tokens": 20}},
	  {"id": "ai2", "content": "Let me check.", "tool_calls": [{"name": "get_time", "args": {}, "id": "call_c"}],
	   "usage": {"input_tokens": 60, "output_tokens": 5}},
	  {"id": "ai3", "content": "Sunny.", "usage": {"input_tokens": 70, "output_tokens": 2}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// eventKind names one event by what a provider's stream is made of, so
// the order of a stream reads as a list.
type eventKind func(t *testing.T, chunk string) string

// chatKind: "role", `content:""`, "content:null", "text", "call<i>:<name>"
// (a call's head), "args<i>", "finish:<reason>", joined with "+" when one
// delta carries several; "usage" for the usage-only chunk; "[DONE]".
func chatKind(t *testing.T, chunk string) string {
	data := dataOf(t, chunk)
	if data == "[DONE]" {
		return data
	}
	var c struct {
		Choices []struct {
			Delta struct {
				Role      string          `json:"role"`
				Content   json.RawMessage `json:"content"`
				ToolCalls []struct {
					Index    int    `json:"index"`
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatalf("chunk %q: %v", chunk, err)
	}
	if len(c.Choices) == 0 {
		return "usage"
	}
	var parts []string
	d := c.Choices[0].Delta
	if d.Role != "" {
		parts = append(parts, "role")
	}
	switch string(d.Content) {
	case "":
	case "null", `""`:
		parts = append(parts, "content:"+string(d.Content))
	default:
		parts = append(parts, "text")
	}
	for _, tc := range d.ToolCalls {
		if tc.ID != "" {
			parts = append(parts, fmt.Sprintf("call%d:%s%q", tc.Index, tc.Function.Name, tc.Function.Arguments))
		} else {
			parts = append(parts, fmt.Sprintf("args%d", tc.Index))
		}
	}
	if f := c.Choices[0].FinishReason; f != nil {
		parts = append(parts, "finish:"+*f)
	}
	return strings.Join(parts, "+")
}

// responsesKind is the event's type, which must be its name too.
func responsesKind(t *testing.T, chunk string) string {
	var ev struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal([]byte(dataOf(t, chunk)), &ev); err != nil {
		t.Fatalf("chunk %q: %v", chunk, err)
	}
	if name := nameOf(chunk); name != ev.Type {
		t.Errorf("event named %q carries type %q", name, ev.Type)
	}
	return strings.TrimPrefix(ev.Type, "response.")
}

// messagesKind is the event's name, with the block type of a
// content_block_start and the delta type of a content_block_delta.
func messagesKind(t *testing.T, chunk string) string {
	var ev struct {
		Type         string `json:"type"`
		ContentBlock struct {
			Type string `json:"type"`
		} `json:"content_block"`
		Delta struct {
			Type string `json:"type"`
		} `json:"delta"`
	}
	if err := json.Unmarshal([]byte(dataOf(t, chunk)), &ev); err != nil {
		t.Fatalf("chunk %q: %v", chunk, err)
	}
	if name := nameOf(chunk); name != ev.Type {
		t.Errorf("event named %q carries type %q", name, ev.Type)
	}
	switch ev.Type {
	case "content_block_start":
		return ev.Type + ":" + ev.ContentBlock.Type
	case "content_block_delta":
		return ev.Type + ":" + ev.Delta.Type
	}
	return ev.Type
}

// dataOf is the data of a one-event chunk.
func dataOf(t *testing.T, chunk string) string {
	for _, line := range strings.Split(chunk, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			return d
		}
	}
	t.Fatalf("chunk %q has no data line", chunk)
	return ""
}

// nameOf is the event name of a one-event chunk, or "".
func nameOf(chunk string) string {
	for _, line := range strings.Split(chunk, "\n") {
		if n, ok := strings.CutPrefix(line, "event: "); ok {
			return n
		}
	}
	return ""
}

// TestStreamsArriveEventByEvent reads each protocol's scripted streams
// off a real connection, HTTP chunk by HTTP chunk: every event must come
// in a chunk of its own (the server writes and flushes each one, as a
// provider does, so a client can act on it before the stream ends), and
// the events must come in the order the real service sends them — the
// order of the streams OpenAI and Anthropic recorded in
// ../shared/real-cassettes (docker-agent's TestExec_*_ToolCall): for
// Chat Completions, an answer that only calls tools starts with the role,
// content null and the first call's head (arguments ""), the arguments
// follow in deltas, then the finish chunk, the usage chunk and [DONE];
// for Messages, ping comes after the first content_block_start and a
// tool_use block's deltas start with an empty partial_json. The bytes
// are in testdata/stream-*.golden (`go test ./serve -update`).
func TestStreamsArriveEventByEvent(t *testing.T) {
	tests := []struct {
		name, path string
		header     http.Header
		body       string // a request; %s is replaced by the turn's history
		kind       eventKind
		want       [][]string // per turn
	}{
		{
			name: "chat-completions", path: "/v1/chat/completions", kind: chatKind,
			body: `{"model":"gpt-4.1-mini","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"weather?"}%s]}`,
			want: [][]string{
				{`role+content:null+call0:get_weather""`, "args0", "args0", `call1:get_weather""`, "args1", "args1", "finish:tool_calls", "usage", "[DONE]"},
				{`role+content:""`, "text", "text", `call0:get_time""`, "args0", "args0", "finish:tool_calls", "usage", "[DONE]"},
				{`role+content:""`, "text", "text", "finish:stop", "usage", "[DONE]"},
			},
		},
		{
			name: "responses", path: "/v1/responses", kind: responsesKind,
			body: `{"model":"gpt-4.1-mini","stream":true,"input":[{"role":"user","content":"weather?"}%s]}`,
			want: [][]string{
				{"created", "in_progress",
					"output_item.added", "function_call_arguments.delta", "function_call_arguments.delta", "function_call_arguments.done", "output_item.done",
					"output_item.added", "function_call_arguments.delta", "function_call_arguments.delta", "function_call_arguments.done", "output_item.done",
					"completed"},
				{"created", "in_progress",
					"output_item.added", "content_part.added", "output_text.delta", "output_text.delta", "output_text.done", "content_part.done", "output_item.done",
					"output_item.added", "function_call_arguments.delta", "function_call_arguments.delta", "function_call_arguments.done", "output_item.done",
					"completed"},
				{"created", "in_progress",
					"output_item.added", "content_part.added", "output_text.delta", "output_text.delta", "output_text.done", "content_part.done", "output_item.done",
					"completed"},
			},
		},
		{
			name: "messages", path: "/v1/messages", kind: messagesKind,
			header: http.Header{"Anthropic-Version": {"2023-06-01"}},
			body:   `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"weather?"}%s]}`,
			want: [][]string{
				{"message_start",
					"content_block_start:tool_use", "ping", "content_block_delta:input_json_delta", "content_block_delta:input_json_delta", "content_block_delta:input_json_delta", "content_block_stop",
					"content_block_start:tool_use", "content_block_delta:input_json_delta", "content_block_delta:input_json_delta", "content_block_delta:input_json_delta", "content_block_stop",
					"message_delta", "message_stop"},
				{"message_start",
					"content_block_start:text", "ping", "content_block_delta:text_delta", "content_block_delta:text_delta", "content_block_stop",
					"content_block_start:tool_use", "content_block_delta:input_json_delta", "content_block_delta:input_json_delta", "content_block_delta:input_json_delta", "content_block_stop",
					"message_delta", "message_stop"},
				{"message_start",
					"content_block_start:text", "ping", "content_block_delta:text_delta", "content_block_delta:text_delta", "content_block_stop",
					"message_delta", "message_stop"},
			},
		},
	}
	// the history each turn's request carries: the results of the
	// calls the turn before made
	history := map[string][]string{
		"chat-completions": {"",
			`,{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{}"}},{"id":"call_b","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_a","content":"sunny"},{"role":"tool","tool_call_id":"call_b","content":"rainy"}`,
			`,{"role":"assistant","content":"Let me check.","tool_calls":[{"id":"call_c","type":"function","function":{"name":"get_time","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_c","content":"noon"}`},
		"responses": {"",
			`,{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{}"},{"type":"function_call","call_id":"call_b","name":"get_weather","arguments":"{}"},{"type":"function_call_output","call_id":"call_a","output":"sunny"},{"type":"function_call_output","call_id":"call_b","output":"rainy"}`,
			`,{"type":"function_call","call_id":"call_c","name":"get_time","arguments":"{}"},{"type":"function_call_output","call_id":"call_c","output":"noon"}`},
		"messages": {"",
			`,{"role":"assistant","content":[{"type":"tool_use","id":"call_a","name":"get_weather","input":{}},{"type":"tool_use","id":"call_b","name":"get_weather","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_a","content":"sunny"},{"type":"tool_result","tool_use_id":"call_b","content":"rainy"}]}`,
			`,{"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"call_c","name":"get_time","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_c","content":"noon"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !updating() {
				t.Parallel()
			}
			srv, ts := start(t, serve.Options{Source: serve.NewScript(streamScript(t))}, false)
			var transcript strings.Builder
			for turn, want := range tc.want {
				a := rawPost(t, ts.URL, tc.path, tc.header, fmt.Sprintf(tc.body, history[tc.name][turn]))
				if a.status != 200 || !a.chunked || a.header.Get("Content-Length") != "" || a.header.Get("Content-Type") != "text/event-stream" {
					t.Fatalf("turn %d: status %d, chunked %v, Content-Length %q, Content-Type %q; want 200, a chunked text/event-stream",
						turn+1, a.status, a.chunked, a.header.Get("Content-Length"), a.header.Get("Content-Type"))
				}
				var got []string
				fmt.Fprintf(&transcript, "=== turn %d: %d chunks\n", turn+1, len(a.chunks))
				for i, c := range a.chunks {
					if evs := recordedEvents(string(c)); len(evs) != 1 || !bytes.HasSuffix(c, []byte("\n\n")) {
						t.Errorf("turn %d, chunk %d holds %d events, want exactly one:\n%q", turn+1, i+1, len(evs), c)
					}
					got = append(got, tc.kind(t, string(c)))
					fmt.Fprintf(&transcript, "--- chunk %d\n%s", i+1, c)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("turn %d: events mismatch (-want +got):\n%s", turn+1, diff)
				}
			}
			if v := serve.CheckClient(srv.Exchanges()); len(v) > 0 {
				t.Errorf("CheckClient = %v, want none", v)
			}
			g := goldie.New(t, goldie.WithFixtureDir("testdata"), goldie.WithNameSuffix(".golden"))
			g.Assert(t, "stream-"+tc.name, []byte(transcript.String()))
		})
	}
}
