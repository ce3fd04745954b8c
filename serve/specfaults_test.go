package serve_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/serve"
)

// TestSpecCheckFindsPlantedFaults plants, in answers serve produced,
// the faults a writer could make — among them the ones the spec test
// found and serve no longer makes — and requires the check to reject
// each, with what it says: a check that passes everything would pass
// TestAnswersMatchPublishedSpecs too. Each protocol, JSON and stream,
// has its faults; the mutations edit the produced JSON, so no hook in
// the writers is needed.
func TestSpecCheckFindsPlantedFaults(t *testing.T) {
	t.Parallel()
	sp := mustSpecs(t)
	answers := producedAnswers(t)
	tests := []struct {
		reason string
		answer string // a key of producedAnswers
		plant  func(t *testing.T, a specAnswer) specAnswer
		want   string // in the check's findings
	}{
		{"Chat: a tool call without an id (what serve sent for an id-less scripted call)",
			"chat-completions stream=false one call with an id {}",
			body(func(m obj) { delete(path(m, "choices", 0, "message", "tool_calls", 0), "id") }), "missing property 'id'"},
		{"Chat: a choice without logprobs (left out before)",
			"chat-completions stream=false text {}",
			body(func(m obj) { delete(path(m, "choices", 0), "logprobs") }), "missing property 'logprobs'"},
		{"Chat: a finish_reason the API does not have",
			"chat-completions stream=false text {}",
			body(func(m obj) { path(m, "choices", 0)["finish_reason"] = "done" }), "finish_reason"},
		{"Chat stream: a chunk's choice without its index",
			"chat-completions stream=true text {}",
			event("", 1, func(m obj) { delete(path(m, "choices", 0), "index") }), "missing property 'index'"},
		{"Chat stream: a usage chunk whose usage lacks total_tokens",
			`chat-completions stream=true text {"stream_options":{"include_usage":true}}`,
			event("", -2, func(m obj) { delete(path(m, "usage"), "total_tokens") }), "total_tokens"},
		{"Chat stream: no data: [DONE] at the end",
			"chat-completions stream=true text {}",
			func(t *testing.T, a specAnswer) specAnswer {
				a.body = bytes.TrimSuffix(a.body, []byte("data: [DONE]\n\n"))
				return a
			}, "want data: [DONE]"},
		{"Responses: output null for an empty answer (what serve sent)",
			"responses stream=false empty answer {}",
			body(func(m obj) { m["output"] = nil }), "output"},
		{"Responses: no metadata (left out before)",
			"responses stream=false text {}",
			body(func(m obj) { delete(m, "metadata") }), "missing property 'metadata'"},
		{"Responses: a function_call without its call_id",
			"responses stream=false one call with an id {}",
			body(func(m obj) { delete(path(m, "output", 0), "call_id") }), "output/0"},
		{"Responses stream: function_call_arguments.done without name (what serve sent)",
			"responses stream=true one call with an id {}",
			event("response.function_call_arguments.done", 0, func(m obj) { delete(m, "name") }), "missing property 'name'"},
		{"Responses stream: an output_text part without logprobs (left out before)",
			"responses stream=true text {}",
			event("response.content_part.done", 0, func(m obj) { delete(path(m, "part"), "logprobs") }), "part"},
		{"Responses stream: an event whose SSE name is not its type",
			"responses stream=true text {}",
			rename("response.output_text.delta", "response.text.delta"), `event name "response.text.delta"`},
		{"Responses stream: a delta without its sequence_number",
			"responses stream=true text {}",
			event("response.output_text.delta", 0, func(m obj) { delete(m, "sequence_number") }), "sequence_number"},
		{"Messages: a tool_use block without an id (what serve sent for an id-less scripted call)",
			"messages stream=false one call with an id {}",
			body(func(m obj) { delete(path(m, "content", 0), "id") }), "content/0"},
		{"Messages: no stop_sequence (a required null)",
			"messages stream=false text {}",
			body(func(m obj) { delete(m, "stop_sequence") }), "stop_sequence"},
		{"Messages: a stop_reason the API does not have",
			"messages stream=false text {}",
			body(func(m obj) { m["stop_reason"] = "done" }), "stop_reason"},
		{"Messages: usage without cache_read_input_tokens (left out before)",
			"messages stream=false text {}",
			body(func(m obj) { delete(path(m, "usage"), "cache_read_input_tokens") }), "cache_read_input_tokens"},
		{"Messages stream: message_delta's delta without stop_sequence (left out before)",
			"messages stream=true text {}",
			event("message_delta", 0, func(m obj) { delete(path(m, "delta"), "stop_sequence") }), "stop_sequence"},
		{"Messages stream: a content_block_delta without its index",
			"messages stream=true text {}",
			event("content_block_delta", 0, func(m obj) { delete(m, "index") }), "index"},
		{"Messages stream: an event type Anthropic does not send",
			"messages stream=true text {}",
			rename("message_stop", "message_end"), `event name "message_end"`},
		{"Messages error: api_error for a 409 (what serve sent; Anthropic says invalid_request_error)",
			"messages stream=false error 409 {}",
			body(func(m obj) { path(m, "error")["type"] = "api_error" }), `want Anthropic's "invalid_request_error"`},
		{"Messages error: no request_id (left out before)",
			"messages stream=false error 400 {}",
			body(func(m obj) { delete(m, "request_id") }), "request_id"},
		{"OpenAI error: no param (a required null)",
			"chat-completions stream=false error 400 {}",
			body(func(m obj) { delete(path(m, "error"), "param") }), "param"},
		{"OpenAI: no x-request-id header (none was sent)",
			"responses stream=false text {}",
			header("X-Request-Id", ""), "no X-Request-Id header"},
		{"Anthropic: no request-id header (none was sent)",
			"messages stream=true text {}",
			header("Request-Id", ""), "no Request-Id header"},
		{"a JSON answer sent as text/plain",
			"chat-completions stream=false text {}",
			header("Content-Type", "text/plain"), "Content-Type"},
		{"Anthropic ModelInfo without max_tokens (left out before)",
			"messages models (2 served) one",
			body(func(m obj) { delete(m, "max_tokens") }), "max_tokens"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			a, ok := answers[tc.answer]
			if !ok {
				t.Fatalf("no produced answer %q", tc.answer)
			}
			if bad := sp.check(a); len(bad) > 0 {
				t.Fatalf("the answer as produced already fails: %v", bad)
			}
			bad := sp.check(tc.plant(t, a))
			if len(bad) == 0 {
				t.Fatalf("the planted fault passed the check")
			}
			if all := strings.Join(bad, "\n"); !strings.Contains(all, tc.want) {
				t.Errorf("the check says\n%s\nwant it to say %q", all, tc.want)
			}
		})
	}
}

type obj = map[string]any

// path walks m by keys and list indexes to an object.
func path(m obj, steps ...any) obj {
	var v any = m
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			v = v.(obj)[s]
		case int:
			v = v.([]any)[s]
		}
	}
	return v.(obj)
}

func decodeObj(t *testing.T, data []byte) obj {
	t.Helper()
	var m obj
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return m
}

func encodeObj(t *testing.T, m obj) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// body plants a fault in a JSON answer's body.
func body(edit func(obj)) func(*testing.T, specAnswer) specAnswer {
	return func(t *testing.T, a specAnswer) specAnswer {
		m := decodeObj(t, a.body)
		edit(m)
		a.body = encodeObj(t, m)
		return a
	}
}

// event plants a fault in the data of one event of a stream: the n-th
// (0-based) of those named name, or, for unnamed events (Chat), the n-th
// event counted from the start (n >= 0) or the end (n < 0).
func event(name string, n int, edit func(obj)) func(*testing.T, specAnswer) specAnswer {
	return func(t *testing.T, a specAnswer) specAnswer {
		evs, err := readEvents(a.body)
		if err != nil {
			t.Fatal(err)
		}
		target := -1
		if name == "" {
			target = n
			if n < 0 {
				target = len(evs) + n
			}
		} else {
			for i, ev := range evs {
				if ev.name == name {
					if n == 0 {
						target = i
						break
					}
					n--
				}
			}
		}
		if target < 0 || target >= len(evs) {
			t.Fatalf("no such event in\n%s", a.body)
		}
		m := decodeObj(t, []byte(evs[target].data))
		edit(m)
		evs[target].data = string(encodeObj(t, m))
		a.body = writeSSE(evs)
		return a
	}
}

// rename gives the first event named from, and its data's type, the name
// to: the SSE name then no longer matches a type the spec has (or the
// type is unknown).
func rename(from, to string) func(*testing.T, specAnswer) specAnswer {
	return func(t *testing.T, a specAnswer) specAnswer {
		evs, err := readEvents(a.body)
		if err != nil {
			t.Fatal(err)
		}
		for i, ev := range evs {
			if ev.name == from {
				evs[i].name = to
				a.body = writeSSE(evs)
				return a
			}
		}
		t.Fatalf("no event %s", from)
		return a
	}
}

// header sets (or, with "", removes) a header of the answer.
func header(name, value string) func(*testing.T, specAnswer) specAnswer {
	return func(t *testing.T, a specAnswer) specAnswer {
		h := http.Header{}
		for k, v := range a.header {
			h[k] = v
		}
		if value == "" {
			h.Del(name)
		} else {
			h.Set(name, value)
		}
		a.header = h
		return a
	}
}

func writeSSE(evs []sseEvent) []byte {
	var b bytes.Buffer
	for _, ev := range evs {
		if ev.name != "" {
			b.WriteString("event: " + ev.name + "\n")
		}
		b.WriteString("data: " + ev.data + "\n\n")
	}
	return b.Bytes()
}

// TestNoIDIsOffSpec: a Turn's call marked NoID (an Ollama-style server's
// answer, for testing clients) goes out without an id on Chat Completions
// and Messages, which the spec check rejects; Responses still gets one.
func TestNoIDIsOffSpec(t *testing.T) {
	t.Parallel()
	sp := mustSpecs(t)
	for _, p := range specProtocols {
		srv, err := serve.New(serve.Options{Source: serve.NewTurns(serve.Turn{ToolCalls: []serve.ToolCall{{Name: "f", Args: `{}`, NoID: true}}})})
		if err != nil {
			t.Fatal(err)
		}
		path, reqBody, h := specRequest(p, false, "")
		bad := sp.check(post(srv, "POST", path, reqBody, h))
		if offSpec := p != serve.OpenAIResponses; offSpec != (len(bad) > 0) {
			t.Errorf("%s: findings %v, want them only where the call has no id", p, bad)
		}
	}
}
