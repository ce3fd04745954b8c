package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/google/go-cmp/cmp"
)

func human(text string) engine.ModelRequest {
	return engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage(text))}
}

// outcome is what one Generate call gave, in a form cmp can diff.
type outcome struct {
	Message engine.Message
	Err     string
}

func generate(t *testing.T, m *llm.Scripted, calls int) []outcome {
	t.Helper()
	out := make([]outcome, calls)
	for i := range out {
		msg, err := m.Generate(t.Context(), human(fmt.Sprint("q", i+1)))
		out[i].Message = msg
		if err != nil {
			out[i].Err = err.Error()
		}
	}
	return out
}

func TestScriptedGenerate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		script llm.Script
		calls  int
		want   []outcome
	}{
		{
			reason: "call n gets Responses[n-1], then the script is exhausted and stays so (no cycling back)",
			script: llm.Script{Responses: []llm.Response{
				{Message: ai("ai1", "", engine.ToolCall{Name: "t", Args: obj(), ID: "c1"})},
				{Message: ai("ai2", "done")},
			}},
			calls: 4,
			want: []outcome{
				{Message: ai("ai1", "", engine.ToolCall{Name: "t", Args: obj(), ID: "c1"})},
				{Message: ai("ai2", "done")},
				{Err: `scripted model "m": script exhausted: call 3 but only 2 responses scripted (add responses or "then: repeat")`},
				{Err: `scripted model "m": script exhausted: call 4 but only 2 responses scripted (add responses or "then: repeat")`},
			},
		},
		{
			reason: "the exhaustion text counts in the singular",
			script: llm.Script{Responses: []llm.Response{{Message: ai("ai1", "x")}}},
			calls:  2,
			want: []outcome{
				{Message: ai("ai1", "x")},
				{Err: `scripted model "m": script exhausted: call 2 but only 1 response scripted (add responses or "then: repeat")`},
			},
		},
		{
			reason: "an empty script fails its first call",
			calls:  1,
			want:   []outcome{{Err: `scripted model "m": script exhausted: call 1 but no responses scripted (add responses or "then: repeat")`}},
		},
		{
			reason: "an empty message type means an AI message",
			script: llm.Script{Responses: []llm.Response{{Message: engine.Message{ID: "a", Content: engine.Text("hi")}}}},
			calls:  1,
			want:   []outcome{{Message: ai("a", "hi")}},
		},
		{
			reason: "a chat model cannot answer with another message type",
			script: llm.Script{Responses: []llm.Response{{Message: engine.HumanMessage("hi")}}},
			calls:  1,
			want:   []outcome{{Err: `scripted model "m": call 1: the scripted response is a "human" message, but a chat model answers with an "ai" message`}},
		},
		{
			reason: "a raise response fails the call with its text, and the script goes on",
			script: llm.Script{Responses: []llm.Response{
				{Raise: engine.NewError("ConnectionError", "provider down")},
				{Message: ai("ai2", "ok")},
			}},
			calls: 2,
			want:  []outcome{{Err: "provider down"}, {Message: ai("ai2", "ok")}},
		},
		{
			reason: "Raise wins over a message set alongside it",
			script: llm.Script{Responses: []llm.Response{{Message: ai("ai1", "x"), Raise: engine.NewError("ValueError", "no")}}},
			calls:  1,
			want:   []outcome{{Err: "no"}},
		},
		{
			reason: "Repeat answers after the responses, numbered by call",
			script: llm.Script{
				Responses: []llm.Response{{Message: ai("first", "")}},
				Repeat:    &llm.Response{Message: ai("ai{n}", "answer {n}")},
			},
			calls: 3,
			want:  []outcome{{Message: ai("first", "")}, {Message: ai("ai2", "answer 2")}, {Message: ai("ai3", "answer 3")}},
		},
		{
			reason: "a raising Repeat gets its message numbered too",
			script: llm.Script{Repeat: &llm.Response{Raise: engine.NewError("TimeoutError", "attempt {n} timed out")}},
			calls:  2,
			want:   []outcome{{Err: "attempt 1 timed out"}, {Err: "attempt 2 timed out"}},
		},
		{
			reason: "only Repeat is numbered: listed responses keep a literal {n}",
			script: llm.Script{Responses: []llm.Response{{Message: ai("ai{n}", "{n}")}}},
			calls:  1,
			want:   []outcome{{Message: ai("ai{n}", "{n}")}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			got := generate(t, llm.NewScripted("m", tc.script), tc.calls)
			if d := cmp.Diff(tc.want, got, valueOpts); d != "" {
				t.Errorf("Generate x%d mismatch (-want +got):\n%s\n(%s)", tc.calls, d, tc.reason)
			}
		})
	}
}

// TestScriptedRepeatSubstitution: "{n}" is replaced in the ID, content
// text and text blocks, tool call names and IDs and string arguments at
// any depth — not in object keys, other block kinds or numbers.
func TestScriptedRepeatSubstitution(t *testing.T) {
	t.Parallel()
	repeat := engine.Message{
		Type: engine.TypeAI,
		ID:   "ai{n}",
		Content: engine.Blocks(
			obj("type", "text", "text", "step {n}"),
			"raw {n}",
			obj("type", "image_url", "image_url", "img{n}.png"),
		),
		ToolCalls: []engine.ToolCall{{
			Name: "tool_{n}",
			Args: obj("q", "x{n}", "key{n}", json.Number("7"), "list", []any{"{n}", json.Number("1"), obj("deep", "{n}{n}")}, "flag", true),
			ID:   "call_{n}",
		}},
	}
	m := llm.NewScripted("m", llm.Script{Repeat: &llm.Response{Message: repeat}})
	var got []engine.Message
	for range 12 {
		msg, err := m.Generate(t.Context(), human("go"))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, msg)
	}
	want := engine.Message{
		Type: engine.TypeAI,
		ID:   "ai12",
		Content: engine.Blocks(
			obj("type", "text", "text", "step 12"),
			"raw 12",
			obj("type", "image_url", "image_url", "img{n}.png"),
		),
		ToolCalls: []engine.ToolCall{{
			Name: "tool_12",
			Args: obj("q", "x12", "key{n}", json.Number("7"), "list", []any{"12", json.Number("1"), obj("deep", "1212")}, "flag", true),
			ID:   "call_12",
		}},
	}
	if d := cmp.Diff(want, got[11], valueOpts); d != "" {
		t.Errorf("call 12 mismatch (-want +got):\n%s", d)
	}
	if got[0].ID != "ai1" || got[0].ToolCalls[0].ID != "call_1" {
		t.Errorf("call 1 = %s / %s, want ai1 / call_1 (each call numbered from the template, not the previous answer)", got[0].ID, got[0].ToolCalls[0].ID)
	}
}

// TestScriptedAnswersAreFreshCopies: callers may change what they get
// without changing later answers, and changing the script after NewScripted
// changes nothing.
func TestScriptedAnswersAreFreshCopies(t *testing.T) {
	t.Parallel()
	resp := ai("ai1", "", engine.ToolCall{Name: "t", Args: obj("a", "1"), ID: "c1"})
	script := llm.Script{
		Responses: []llm.Response{{Message: resp}, {Raise: engine.NewError("ValueError", "boom")}},
		Repeat:    &llm.Response{Message: ai("ai{n}", "", engine.ToolCall{Name: "t", Args: obj("a", "{n}"), ID: "c{n}"})},
	}
	m := llm.NewScripted("m", script)
	// change the script the caller still holds
	resp.ToolCalls[0].Args.Set("a", "changed")
	script.Responses[1].Raise.Message = "changed"
	script.Repeat.Message.ToolCalls[0].Args.Set("a", "changed")

	first, err := m.Generate(t.Context(), human("q"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ai("ai1", "", engine.ToolCall{Name: "t", Args: obj("a", "1"), ID: "c1"}), first, valueOpts); d != "" {
		t.Errorf("answer 1 after changing the caller's script mismatch (-want +got):\n%s", d)
	}
	_, err = m.Generate(t.Context(), human("q"))
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Kind != "ValueError" || ee.Message != "boom" {
		t.Fatalf("answer 2 error = %#v, want ValueError('boom')", err)
	}
	ee.Message = "mutated by the caller"
	for n := 3; n <= 4; n++ {
		msg, err := m.Generate(t.Context(), human("q"))
		if err != nil {
			t.Fatal(err)
		}
		want := ai(fmt.Sprint("ai", n), "", engine.ToolCall{Name: "t", Args: obj("a", strconv.Itoa(n)), ID: fmt.Sprint("c", n)})
		if d := cmp.Diff(want, msg, valueOpts); d != "" {
			t.Errorf("answer %d mismatch (-want +got):\n%s", n, d)
		}
		msg.ToolCalls[0].Args.Set("a", "mutated by the caller")
	}
}

// TestScriptedRecordsDeepCopies: the record shows what was sent at the
// time of the call, whatever the caller does with its request afterwards,
// and failing calls are recorded too.
func TestScriptedRecordsDeepCopies(t *testing.T) {
	t.Parallel()
	parallel := true
	req := engine.ModelRequest{
		Messages: engine.NewMessageList(
			engine.HumanMessage("hi"),
			engine.Message{Type: engine.TypeHuman, Content: engine.Blocks(obj("type", "text", "text", "block"))},
			ai("ai0", "", engine.ToolCall{Name: "t", Args: obj("city", "Paris"), ID: "c0"}),
		),
		Tools:             []engine.ToolSchema{{Name: "t", Description: "d", Parameters: obj("type", "object")}},
		ToolChoice:        "any",
		ParallelToolCalls: &parallel,
		ResponseFormat:    obj("type", "json_schema"),
		Options:           obj("temperature", json.Number("0")),
	}
	want := llm.Call{Model: "m", N: 1, Request: engine.ModelRequest{
		Messages: engine.NewMessageList(
			engine.HumanMessage("hi"),
			engine.Message{Type: engine.TypeHuman, Content: engine.Blocks(obj("type", "text", "text", "block"))},
			ai("ai0", "", engine.ToolCall{Name: "t", Args: obj("city", "Paris"), ID: "c0"}),
		),
		Tools:             []engine.ToolSchema{{Name: "t", Description: "d", Parameters: obj("type", "object")}},
		ToolChoice:        "any",
		ParallelToolCalls: new(true),
		ResponseFormat:    obj("type", "json_schema"),
		Options:           obj("temperature", json.Number("0")),
	}}
	m := llm.NewScripted("m", llm.Script{Responses: []llm.Response{{Raise: engine.NewError("ValueError", "boom")}}})
	if _, err := m.Generate(t.Context(), req); err == nil {
		t.Fatal("Generate succeeded, want the scripted raise")
	}

	// a MessageList cannot change; what its messages point to can
	req.Messages.At(1).Content.Blocks()[0].(*engine.Object).Set("text", "changed")
	req.Messages.At(2).ToolCalls[0].Args.Set("city", "Rome")
	req.Messages.At(2).ToolCalls[0].ID = "changed"
	req.Messages = req.Messages.Append(engine.HumanMessage("appended"))
	req.Tools[0].Parameters.Set("type", "string")
	req.Tools[0].Name = "changed"
	parallel = false
	req.ResponseFormat.Set("type", "text")
	req.Options.Set("temperature", json.Number("1"))

	calls := m.Calls()
	if d := cmp.Diff([]llm.Call{want}, calls, valueOpts); d != "" {
		t.Errorf("Calls() after changing the request mismatch (-want +got):\n%s", d)
	}
	// changing what Calls returned does not change the record either
	calls[0].Request.Messages.At(2).ToolCalls[0].Args.Set("city", "Oslo")
	calls[0].Request.Tools[0].Parameters.Set("type", "array")
	if d := cmp.Diff([]llm.Call{want}, m.Calls(), valueOpts); d != "" {
		t.Errorf("Calls() after changing an earlier result mismatch (-want +got):\n%s", d)
	}
}

// TestScriptedHonorsCancellation: a call whose context is done fails with
// the context's error, is not recorded and uses up no response.
func TestScriptedHonorsCancellation(t *testing.T) {
	t.Parallel()
	m := llm.NewScripted("m", llm.Script{Responses: []llm.Response{{Message: ai("ai1", "one")}}})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := m.Generate(ctx, human("q")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Generate with a cancelled context: error = %v, want context.Canceled", err)
	}
	if n := len(m.Calls()); n != 0 {
		t.Errorf("after a cancelled call: %d calls recorded, want 0", n)
	}
	msg, err := m.Generate(t.Context(), human("q"))
	if err != nil || msg.ID != "ai1" {
		t.Errorf("next call = %q, %v; want ai1, the response the cancelled call did not use", msg.ID, err)
	}
}

// TestScriptedConcurrentCalls: calls from many goroutines each get their
// own number, the record holds each request under the number its answer
// was chosen by, and nothing races (run with -race).
func TestScriptedConcurrentCalls(t *testing.T) {
	t.Parallel()
	const n = 64
	m := llm.NewScripted("m", llm.Script{
		Responses: []llm.Response{{Message: ai("ai1", "1")}},
		Repeat:    &llm.Response{Message: ai("ai{n}", "{n}")},
	})
	answers := make([]string, n) // by goroutine
	errs := make([]error, n)
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			msg, err := m.Generate(t.Context(), human(strconv.Itoa(g)))
			answers[g], errs[g] = msg.Text(), err
			_ = m.Calls() // reading the record while others write it
		})
	}
	wg.Wait()
	for g, err := range errs {
		if err != nil {
			t.Fatalf("goroutine %d: %v", g, err)
		}
	}
	calls := m.Calls()
	if len(calls) != n {
		t.Fatalf("%d calls recorded, want %d", len(calls), n)
	}
	for i, c := range calls {
		if c.N != i+1 || c.Model != "m" {
			t.Errorf("calls[%d] = model %q number %d, want model \"m\" number %d", i, c.Model, c.N, i+1)
		}
		g, err := strconv.Atoi(c.Request.Messages.At(0).Text())
		if err != nil {
			t.Fatalf("calls[%d]: unexpected request %v", i, c.Request.Messages)
		}
		if answers[g] != strconv.Itoa(c.N) {
			t.Errorf("goroutine %d was recorded as call %d but answered %q", g, c.N, answers[g])
		}
	}
}

func TestScriptedName(t *testing.T) {
	t.Parallel()
	if got := llm.NewScripted("summarizer", llm.Script{}).Name(); got != "summarizer" {
		t.Errorf("Name() = %q, want %q", got, "summarizer")
	}
}

// the scripted model is an engine.ChatModel
var _ engine.ChatModel = (*llm.Scripted)(nil)

// TestScriptedRequestLogBounded: the log keeps only the most recent
// requests, so a model called thousands of times with a growing history
// does not hold every history (issue 19: a looping tool under a huge
// recursion limit ran out of memory in cloneRequest).
func TestScriptedRequestLogBounded(t *testing.T) {
	t.Parallel()
	repeat := llm.Response{Message: engine.AIMessage("again")}
	m := llm.NewScripted("m", llm.Script{Repeat: &repeat}).WithRequestLog(2)
	for i := range 5 {
		req := engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage(fmt.Sprint("q", i)))}
		if _, err := m.Generate(t.Context(), req); err != nil {
			t.Fatal(err)
		}
	}
	calls := m.Calls()
	if len(calls) != 5 || m.CallCount() != 5 {
		t.Fatalf("Calls() has %d calls, CallCount() = %d, want 5", len(calls), m.CallCount())
	}
	var kept []string
	for _, c := range calls {
		if c.Request.Messages.Len() > 0 {
			kept = append(kept, c.Request.Messages.At(0).Text())
		}
	}
	if d := cmp.Diff([]string{"q3", "q4"}, kept); d != "" {
		t.Errorf("requests kept mismatch (-want +got):\n%s", d)
	}
	none := llm.NewScripted("m", llm.Script{Repeat: &repeat}).WithRequestLog(0)
	if _, err := none.Generate(t.Context(), engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("q"))}); err != nil {
		t.Fatal(err)
	}
	if c := none.Calls(); len(c) != 1 || c[0].N != 1 || c[0].Request.Messages.Len() != 0 {
		t.Errorf("WithRequestLog(0).Calls() = %+v, want one call without its request", c)
	}
}
