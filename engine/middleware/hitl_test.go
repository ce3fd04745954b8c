package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/google/go-cmp/cmp"
)

// hitlJSON decodes a JSON literal of a test case.
func hitlJSON(t testing.TB, s string) any {
	t.Helper()
	v, err := engine.DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// hitlShow renders engine values as compact JSON for diffs.
func hitlShow(t testing.TB, v any) string {
	t.Helper()
	b, err := engine.MarshalValue(engine.ValueForJSON(v))
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

func newHITL(t testing.TB, opts middleware.HumanInTheLoopOptions) *middleware.HumanInTheLoop {
	t.Helper()
	h, err := middleware.NewHumanInTheLoop(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func call(name, id, args string) engine.ToolCall {
	v, _ := engine.DecodeJSON([]byte(args))
	o, _ := v.(*engine.Object)
	return engine.ToolCall{Name: name, Args: o, ID: id}
}

// TestHITLRequest: which calls are reviewed and what the interrupt says
// about them (human_in_the_loop.py, _create_action_and_config).
func TestHITLRequest(t *testing.T) {
	t.Parallel()
	describe := func(_ context.Context, tc engine.ToolCall, s engine.State) (string, error) {
		return fmt.Sprintf("%s for %v", tc.ID, s["user"]), nil
	}
	tests := []struct {
		name   string
		reason string
		opts   middleware.HumanInTheLoopOptions
		calls  []engine.ToolCall
		want   string // JSON; "null" for no interrupt
	}{
		{
			name:   "python reprs in the default description",
			reason: "Args is Python's repr of the dict: True/None/numbers/nested lists, quotes as Python picks them",
			opts:   middleware.HumanInTheLoopOptions{InterruptOn: map[string]middleware.InterruptOn{"run": {AllowedDecisions: middleware.AllDecisions()}}},
			calls:  []engine.ToolCall{call("run", "c1", `{"ok": true, "none": null, "n": 1.5, "l": [1, "it's"], "d": {"k": "v"}}`)},
			want:   `{"action_requests":[{"name":"run","args":{"ok":true,"none":null,"n":1.5,"l":[1,"it's"],"d":{"k":"v"}},"description":"Tool execution requires approval\n\nTool: run\nArgs: {'ok': True, 'none': None, 'n': 1.5, 'l': [1, \"it's\"], 'd': {'k': 'v'}}"}],"review_configs":[{"action_name":"run","allowed_decisions":["approve","edit","reject"]}]}`,
		},
		{
			name:   "nil args",
			reason: "a call without arguments shows and sends an empty dict",
			opts:   middleware.HumanInTheLoopOptions{InterruptOn: map[string]middleware.InterruptOn{"run": {AllowedDecisions: []string{"approve"}}}, DescriptionPrefix: "Check"},
			calls:  []engine.ToolCall{{Name: "run", ID: "c1"}},
			want:   `{"action_requests":[{"name":"run","args":{},"description":"Check\n\nTool: run\nArgs: {}"}],"review_configs":[{"action_name":"run","allowed_decisions":["approve"]}]}`,
		},
		{
			name:   "empty allowed decisions auto-approve",
			reason: "langchain drops an InterruptOnConfig whose allowed_decisions is empty: the tool is not reviewed",
			opts:   middleware.HumanInTheLoopOptions{InterruptOn: map[string]middleware.InterruptOn{"run": {}, "other": {AllowedDecisions: []string{}}}},
			calls:  []engine.ToolCall{call("run", "c1", `{}`), call("other", "c2", `{}`)},
			want:   `null`,
		},
		{
			name:   "unlisted tools and call order",
			reason: "only listed tools are reviewed, in the order of the calls, one entry per call even for the same tool",
			opts: middleware.HumanInTheLoopOptions{InterruptOn: map[string]middleware.InterruptOn{
				"b": {AllowedDecisions: []string{"reject", "approve"}, Description: "B!"},
				"a": {AllowedDecisions: []string{"edit"}},
			}},
			calls: []engine.ToolCall{call("b", "1", `{"x":1}`), call("free", "2", `{}`), call("a", "3", `{}`), call("b", "4", `{"x":2}`)},
			want:  `{"action_requests":[{"name":"b","args":{"x":1},"description":"B!"},{"name":"a","args":{},"description":"Tool execution requires approval\n\nTool: a\nArgs: {}"},{"name":"b","args":{"x":2},"description":"B!"}],"review_configs":[{"action_name":"b","allowed_decisions":["reject","approve"]},{"action_name":"a","allowed_decisions":["edit"]},{"action_name":"b","allowed_decisions":["reject","approve"]}]}`,
		},
		{
			name:   "description function",
			reason: "a callable description sees the call and the state and wins over a static one",
			opts:   middleware.HumanInTheLoopOptions{InterruptOn: map[string]middleware.InterruptOn{"run": {AllowedDecisions: []string{"approve"}, Description: "static", Describe: describe}}},
			calls:  []engine.ToolCall{call("run", "c9", `{}`)},
			want:   `{"action_requests":[{"name":"run","args":{},"description":"c9 for ann"}],"review_configs":[{"action_name":"run","allowed_decisions":["approve"]}]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := newHITL(t, tc.opts).Request(t.Context(), tc.calls, engine.State{"user": "ann"})
			if err != nil {
				t.Fatal(err)
			}
			var gotJSON string
			if got == nil {
				gotJSON = "null"
			} else {
				gotJSON = hitlShow(t, got)
			}
			if diff := cmp.Diff(tc.want, gotJSON); diff != "" {
				t.Errorf("Request mismatch (%s) (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestHITLRequestDescribeError: a failing description function fails the
// hook with the call it was describing.
func TestHITLRequestDescribeError(t *testing.T) {
	t.Parallel()
	h := newHITL(t, middleware.HumanInTheLoopOptions{InterruptOn: map[string]middleware.InterruptOn{"run": {
		AllowedDecisions: []string{"approve"},
		Describe: func(context.Context, engine.ToolCall, engine.State) (string, error) {
			return "", errors.New("no template")
		},
	}}})
	_, err := h.Request(t.Context(), []engine.ToolCall{call("run", "c1", `{}`)}, nil)
	if err == nil || !strings.Contains(err.Error(), "describe run call c1: no template") {
		t.Errorf("Request error = %v, want one naming the call and the cause", err)
	}
}

// TestHITLApply: decisions applied to an AI message: what comes out, and
// the exact errors langchain raises for bad resume values.
func TestHITLApply(t *testing.T) {
	t.Parallel()
	h := newHITL(t, middleware.HumanInTheLoopOptions{InterruptOn: map[string]middleware.InterruptOn{
		"send":   {AllowedDecisions: middleware.AllDecisions()},
		"delete": {AllowedDecisions: []string{"approve", "reject"}},
	}})
	ai := engine.Message{Type: engine.TypeAI, ID: "ai1", Content: engine.Text("thinking"), ToolCalls: []engine.ToolCall{
		call("search", "c1", `{"q":"x"}`),
		call("send", "c2", `{"to":"a"}`),
		call("delete", "c3", `{"path":"/x"}`),
		call("send", "c4", `{"to":"b"}`),
	}}
	tests := []struct {
		name    string
		reason  string
		resume  string
		want    string // JSON of the messages
		wantErr string // "Kind: message"
	}{
		{
			name:   "approve all",
			reason: "approved calls stay as they are; the auto-approved search is not counted",
			resume: `{"decisions":[{"type":"approve"},{"type":"approve"},{"type":"approve"}]}`,
			want:   `[{"type":"ai","content":"thinking","id":"ai1","tool_calls":[{"name":"search","args":{"q":"x"},"id":"c1"},{"name":"send","args":{"to":"a"},"id":"c2"},{"name":"delete","args":{"path":"/x"},"id":"c3"},{"name":"send","args":{"to":"b"},"id":"c4"}]}]`,
		},
		{
			name:   "edit renames under the same id",
			reason: "an edit may change the tool; the call keeps its id and its place",
			resume: `{"decisions":[{"type":"edit","edited_action":{"name":"search","args":{"q":"y"}}},{"type":"approve"},{"type":"approve"}]}`,
			want:   `[{"type":"ai","content":"thinking","id":"ai1","tool_calls":[{"name":"search","args":{"q":"x"},"id":"c1"},{"name":"search","args":{"q":"y"},"id":"c2"},{"name":"delete","args":{"path":"/x"},"id":"c3"},{"name":"send","args":{"to":"b"},"id":"c4"}]}]`,
		},
		{
			name:   "rejections follow the AI message in call order",
			reason: "rejected calls stay in the AI message; their error tool messages come after it, default text when the message is empty or absent",
			resume: `{"decisions":[{"type":"reject","message":""},{"type":"reject"},{"type":"reject","message":"not b"}]}`,
			want:   `[{"type":"ai","content":"thinking","id":"ai1","tool_calls":[{"name":"search","args":{"q":"x"},"id":"c1"},{"name":"send","args":{"to":"a"},"id":"c2"},{"name":"delete","args":{"path":"/x"},"id":"c3"},{"name":"send","args":{"to":"b"},"id":"c4"}]},{"type":"tool","content":"User rejected the tool call for ` + "`send`" + ` with id c2","name":"send","id":null,"tool_call_id":"c2","status":"error"},{"type":"tool","content":"User rejected the tool call for ` + "`delete`" + ` with id c3","name":"delete","id":null,"tool_call_id":"c3","status":"error"},{"type":"tool","content":"not b","name":"send","id":null,"tool_call_id":"c4","status":"error"}]`,
		},
		{
			name:    "too few decisions",
			reason:  "hitl_wrong_number_of_decisions: auto-approved calls are not counted",
			resume:  `{"decisions":[{"type":"approve"}]}`,
			wantErr: "ValueError: Number of human decisions (1) does not match number of hanging tool calls (3).",
		},
		{
			name:    "too many decisions",
			reason:  "one decision per auto-approved call too is still a wrong count",
			resume:  `{"decisions":[{"type":"approve"},{"type":"approve"},{"type":"approve"},{"type":"approve"}]}`,
			wantErr: "ValueError: Number of human decisions (4) does not match number of hanging tool calls (3).",
		},
		{
			name:    "count is checked before the decisions",
			reason:  "langchain counts first, so a malformed decision in a list of the wrong length reports the count",
			resume:  `{"decisions":["junk"]}`,
			wantErr: "ValueError: Number of human decisions (1) does not match number of hanging tool calls (3).",
		},
		{
			name:    "disallowed decision",
			reason:  "delete allows approve and reject; the text embeds the decision's and the list's Python reprs",
			resume:  `{"decisions":[{"type":"approve"},{"type":"edit","edited_action":{"name":"delete","args":{"path":"/tmp/x"}}},{"type":"approve"}]}`,
			wantErr: "ValueError: Unexpected human decision: {'type': 'edit', 'edited_action': {'name': 'delete', 'args': {'path': '/tmp/x'}}}. Decision type 'edit' is not allowed for tool 'delete'. Expected one of ['approve', 'reject'] based on the tool's configuration.",
		},
		{
			name:    "policy before fields",
			reason:  "a disallowed edit without edited_action is a ValueError, not a KeyError",
			resume:  `{"decisions":[{"type":"approve"},{"type":"edit"},{"type":"approve"}]}`,
			wantErr: "ValueError: Unexpected human decision: {'type': 'edit'}. Decision type 'edit' is not allowed for tool 'delete'. Expected one of ['approve', 'reject'] based on the tool's configuration.",
		},
		{
			name:    "unknown decision type",
			reason:  "types other than approve/edit/reject are disallowed decisions; a non-string type prints as Python's str()",
			resume:  `{"decisions":[{"type":true},{"type":"approve"},{"type":"approve"}]}`,
			wantErr: "ValueError: Unexpected human decision: {'type': True}. Decision type 'True' is not allowed for tool 'send'. Expected one of ['approve', 'edit', 'reject'] based on the tool's configuration.",
		},
		{
			name:    "first bad decision wins",
			reason:  "decisions are processed in call order and the first failure is raised",
			resume:  `{"decisions":[{"type":"nope"},{"type":"edit"},{"type":"approve"}]}`,
			wantErr: "ValueError: Unexpected human decision: {'type': 'nope'}. Decision type 'nope' is not allowed for tool 'send'. Expected one of ['approve', 'edit', 'reject'] based on the tool's configuration.",
		},
		{
			name:    "missing type",
			reason:  "decision['type'] raises KeyError",
			resume:  `{"decisions":[{"message":"x"},{"type":"approve"},{"type":"approve"}]}`,
			wantErr: "KeyError: type",
		},
		{
			name:    "edit without edited_action",
			reason:  "an allowed edit reads edited_action, then its name and args",
			resume:  `{"decisions":[{"type":"edit"},{"type":"approve"},{"type":"approve"}]}`,
			wantErr: "KeyError: edited_action",
		},
		{
			name:    "edit without args",
			reason:  "edited_action['args'] raises KeyError",
			resume:  `{"decisions":[{"type":"edit","edited_action":{"name":"send"}},{"type":"approve"},{"type":"approve"}]}`,
			wantErr: "KeyError: args",
		},
		{
			name:    "edit with non-dict args",
			reason:  "langchain would store them and fail later; here the edit fails at once",
			resume:  `{"decisions":[{"type":"edit","edited_action":{"name":"send","args":[1]}},{"type":"approve"},{"type":"approve"}]}`,
			wantErr: "TypeError: edited_action.args must be a dict, got list",
		},
		{
			name:    "reject with a non-string message",
			reason:  "a tool message needs text content",
			resume:  `{"decisions":[{"type":"reject","message":5},{"type":"approve"},{"type":"approve"}]}`,
			wantErr: "TypeError: reject message must be a string, got int",
		},
		{
			name:    "no decisions key",
			reason:  "interrupt(...)['decisions'] raises KeyError",
			resume:  `{"decision":[]}`,
			wantErr: "KeyError: decisions",
		},
		{
			name:    "resume is a list",
			reason:  "subscripting a list with a string is a TypeError in Python",
			resume:  `[{"type":"approve"}]`,
			wantErr: "TypeError: list indices must be integers or slices, not str",
		},
		{
			name:    "resume is null",
			reason:  "subscripting None is a TypeError in Python",
			resume:  `null`,
			wantErr: "TypeError: 'NoneType' object is not subscriptable",
		},
		{
			name:    "decisions is a dict",
			reason:  "a plain message instead of Python's confusing len() of a dict",
			resume:  `{"decisions":{"type":"approve"}}`,
			wantErr: "TypeError: decisions must be a list of decisions, got dict",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before := hitlShow(t, ai)
			got, err := h.Apply(ai, hitlJSON(t, tc.resume))
			if after := hitlShow(t, ai); after != before {
				t.Errorf("Apply changed its input message:\nbefore %s\nafter  %s", before, after)
			}
			if tc.wantErr != "" {
				gotErr := "<nil>"
				if err != nil {
					gotErr = engine.ErrorKind(err) + ": " + engine.ErrorMessage(err)
				}
				if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
					t.Errorf("Apply(%s) error mismatch (%s) (-want +got):\n%s", tc.resume, tc.reason, diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%s): %v", tc.resume, err)
			}
			if diff := cmp.Diff(tc.want, hitlShow(t, got)); diff != "" {
				t.Errorf("Apply(%s) mismatch (%s) (-want +got):\n%s", tc.resume, tc.reason, diff)
			}
		})
	}
}

// TestHITLApplyGoValues: resume values built in Go (Resume, maps) work as
// the JSON ones do.
func TestHITLApplyGoValues(t *testing.T) {
	t.Parallel()
	h := newHITL(t, middleware.HumanInTheLoopOptions{InterruptOn: map[string]middleware.InterruptOn{"send": {AllowedDecisions: middleware.AllDecisions()}}})
	ai := engine.AIMessage("", call("send", "c1", `{"to":"a"}`), call("send", "c2", `{"to":"b"}`), call("send", "c3", `{}`))
	want := `[{"type":"ai","content":"","id":null,"tool_calls":[{"name":"send","args":{"to":"a"},"id":"c1"},{"name":"mail","args":{"to":"z"},"id":"c2"},{"name":"send","args":{},"id":"c3"}]},{"type":"tool","content":"no","name":"send","id":null,"tool_call_id":"c3","status":"error"}]`
	for _, tc := range []struct {
		reason string
		resume any
	}{
		{"the Resume helper", middleware.Resume(middleware.Approve(), middleware.Edit("mail", engine.NewObject("to", "z")), middleware.Reject("no")).Resume},
		{"plain Go maps and slices", map[string]any{"decisions": []any{
			map[string]any{"type": "approve"},
			map[string]any{"type": "edit", "edited_action": map[string]any{"name": "mail", "args": map[string]any{"to": "z"}}},
			map[string]any{"type": "reject", "message": "no"},
		}}},
	} {
		got, err := h.Apply(ai, tc.resume)
		if err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		if diff := cmp.Diff(want, hitlShow(t, got)); diff != "" {
			t.Errorf("Apply with %s mismatch (-want +got):\n%s", tc.reason, diff)
		}
	}
}

// TestHITLDecisionValue: the dicts Decision writes are langchain's.
func TestHITLDecisionValue(t *testing.T) {
	t.Parallel()
	got := hitlShow(t, middleware.Resume(middleware.Approve(), middleware.Edit("x", nil), middleware.Reject(""), middleware.Reject("why")).Resume)
	want := `{"decisions":[{"type":"approve"},{"type":"edit","edited_action":{"name":"x","args":{}}},{"type":"reject"},{"type":"reject","message":"why"}]}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Resume mismatch (-want +got):\n%s", diff)
	}
	b, err := middleware.Edit("x", engine.NewObject("a", 1)).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"type":"edit","edited_action":{"name":"x","args":{"a":1}}}`, string(b)); diff != "" {
		t.Errorf("MarshalJSON mismatch (-want +got):\n%s", diff)
	}
}

// TestHITLOptionsValidate: options NewHumanInTheLoop refuses, with errors
// naming the option.
func TestHITLOptionsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reason  string
		opts    middleware.HumanInTheLoopOptions
		wantErr string
	}{
		{"zero", "the zero value reviews nothing and is valid", middleware.HumanInTheLoopOptions{}, ""},
		{"unknown decision", "a decision langchain would never accept", middleware.HumanInTheLoopOptions{InterruptOn: map[string]middleware.InterruptOn{"x": {AllowedDecisions: []string{"approve", "accept"}}}},
			`HumanInTheLoopMiddleware: interrupt_on["x"].allowed_decisions: "accept" is not a decision: expected approve, edit or reject`},
		{"empty tool name", "no tool can be called \"\"", middleware.HumanInTheLoopOptions{InterruptOn: map[string]middleware.InterruptOn{"": {AllowedDecisions: []string{"approve"}}}},
			"HumanInTheLoopMiddleware: interrupt_on: a tool name is empty"},
	}
	for _, tc := range tests {
		_, err := middleware.NewHumanInTheLoop(tc.opts)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if diff := cmp.Diff(tc.wantErr, got); diff != "" {
			t.Errorf("NewHumanInTheLoop(%s) error mismatch (%s) (-want +got):\n%s", tc.name, tc.reason, diff)
		}
	}
}

// TestHITLAfterModelNoReview: no interrupt (and no update) when the last
// AI message has no reviewed call, or there is none.
func TestHITLAfterModelNoReview(t *testing.T) {
	t.Parallel()
	h := newHITL(t, middleware.HumanInTheLoopOptions{InterruptOn: map[string]middleware.InterruptOn{"send": {AllowedDecisions: middleware.AllDecisions()}}})
	for _, tc := range []struct {
		reason string
		msgs   []engine.Message
	}{
		{"no messages", nil},
		{"no AI message", []engine.Message{engine.HumanMessage("hi")}},
		{"AI message without calls", []engine.Message{engine.HumanMessage("hi"), engine.AIMessage("hello")}},
		{"only unreviewed calls", []engine.Message{engine.AIMessage("", call("search", "c1", `{}`))}},
		{"an older AI message had the reviewed call", []engine.Message{engine.AIMessage("", call("send", "c1", `{}`)), engine.ToolMessage(engine.Text("ok"), "send", "c1"), engine.AIMessage("done")}},
	} {
		// outside a graph, an interrupt would be an error: nil, nil shows
		// that none was attempted
		got, err := h.AfterModel(t.Context(), engine.State{"messages": tc.msgs})
		if err != nil || got != nil {
			t.Errorf("AfterModel with %s = %v, %v; want nil, nil", tc.reason, got, err)
		}
	}
}

// FuzzHITLResume feeds arbitrary resume values to Apply: it never panics,
// every error is an engine error of a Python kind, and a success keeps the
// AI message's id and call ids in order and answers each rejected call
// once.
func FuzzHITLResume(f *testing.F) {
	for _, seed := range []string{
		`{"decisions":[{"type":"approve"},{"type":"approve"}]}`,
		`{"decisions":[{"type":"edit","edited_action":{"name":"delete","args":{"path":"y"}}},{"type":"reject","message":"no"}]}`,
		`{"decisions":[{"type":"reject"},{"type":"edit","edited_action":{"name":"x","args":{}}}]}`,
		`{"decisions":[{"type":"approve"}]}`,
		`{"decisions":[{"type":"edit"},{}]}`,
		`{"decisions":"approve"}`,
		`[]`,
		`"x"`,
		`7`,
	} {
		f.Add([]byte(seed))
	}
	h := newHITL(f, middleware.HumanInTheLoopOptions{InterruptOn: map[string]middleware.InterruptOn{
		"send":   {AllowedDecisions: middleware.AllDecisions()},
		"delete": {AllowedDecisions: []string{"edit", "reject"}},
	}})
	ai := engine.Message{Type: engine.TypeAI, ID: "ai1", ToolCalls: []engine.ToolCall{call("send", "c1", `{"to":"a"}`), call("free", "c2", `{}`), call("delete", "c3", `{"path":"x"}`)}}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := engine.DecodeJSON(data)
		if err != nil {
			return
		}
		out, err := h.Apply(ai, v)
		if err != nil {
			var e *engine.Error
			if !errors.As(err, &e) {
				t.Fatalf("Apply(%s) error %v is not an *engine.Error", data, err)
			}
			return
		}
		got := out[0]
		if got.ID != ai.ID || len(got.ToolCalls) != len(ai.ToolCalls) {
			t.Fatalf("Apply(%s) AI message = %s, want id %s with %d calls", data, hitlShow(t, got), ai.ID, len(ai.ToolCalls))
		}
		for i, tc := range got.ToolCalls {
			if tc.ID != ai.ToolCalls[i].ID {
				t.Fatalf("Apply(%s) call %d has id %q, want %q", data, i, tc.ID, ai.ToolCalls[i].ID)
			}
		}
		if got.ToolCalls[1].Name != "free" {
			t.Fatalf("Apply(%s) changed the auto-approved call: %s", data, hitlShow(t, got.ToolCalls[1]))
		}
		seen := map[string]bool{}
		for _, m := range out[1:] {
			if m.Type != engine.TypeTool || m.Status != engine.StatusError || seen[m.ToolCallID] || m.ToolCallID == "c2" {
				t.Fatalf("Apply(%s) rejection %s: want one error tool message per reviewed call at most", data, hitlShow(t, m))
			}
			seen[m.ToolCallID] = true
		}
	})
}
