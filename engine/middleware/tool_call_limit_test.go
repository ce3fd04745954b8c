package middleware_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// limitAI is an AI message calling the named tools, ids c1, c2, ...
func limitAI(names ...string) engine.Message {
	calls := make([]engine.ToolCall, len(names))
	for i, n := range names {
		calls[i] = engine.ToolCall{Name: n, Args: &engine.Object{}, ID: "c" + string(rune('1'+i))}
	}
	return engine.AIMessage("", calls...)
}

func TestToolCallLimitOptionsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		opts   middleware.ToolCallLimitOptions
		want   []string
	}{
		{
			name:   "no limit",
			reason: "langchain refuses a middleware with neither limit",
			opts:   middleware.ToolCallLimitOptions{ToolName: "ping"},
			want:   []string{"at least one limit must be specified"},
		},
		{
			name:   "run limit above thread limit",
			reason: "a run can never make more calls than its thread",
			opts:   middleware.ToolCallLimitOptions{ThreadLimit: middleware.CallLimit(2), RunLimit: middleware.CallLimit(3)},
			want:   []string{"run_limit: 3: cannot exceed thread_limit (2)"},
		},
		{
			name:   "equal limits",
			reason: "run_limit == thread_limit is allowed",
			opts:   middleware.ToolCallLimitOptions{ThreadLimit: middleware.CallLimit(2), RunLimit: middleware.CallLimit(2)},
		},
		{
			name:   "unknown exit behaviour",
			reason: "the error names the option and the values it takes",
			opts:   middleware.ToolCallLimitOptions{RunLimit: middleware.CallLimit(1), ExitBehavior: "stop"},
			want:   []string{`exit_behavior: "stop": expected "continue", "error" or "end"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := middleware.NewToolCallLimit(tt.opts)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("NewToolCallLimit() = %v, want nil (%s)", err, tt.reason)
				}
				return
			}
			if err == nil {
				t.Fatalf("NewToolCallLimit() = nil error, want one (%s)", tt.reason)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("NewToolCallLimit() = %q, want it to contain %q (%s)", err, w, tt.reason)
				}
			}
		})
	}
}

func TestToolCallLimitName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ tool, want string }{
		{"", "ToolCallLimitMiddleware"},
		{"ping", "ToolCallLimitMiddleware[ping]"},
	} {
		m, err := middleware.NewToolCallLimit(middleware.ToolCallLimitOptions{ToolName: tt.tool, RunLimit: middleware.CallLimit(1)})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Name(); got != tt.want {
			t.Errorf("Name() with tool %q = %q, want %q", tt.tool, got, tt.want)
		}
	}
}

// TestToolCallLimitAfterModel: which calls are blocked, how they count and
// what the agent is told (tool_call_limit.py, after_model).
func TestToolCallLimitAfterModel(t *testing.T) {
	t.Parallel()
	human := engine.HumanMessage("go")
	tests := []struct {
		name    string
		reason  string
		opts    middleware.ToolCallLimitOptions
		state   engine.State
		want    string
		wantErr string
	}{
		{
			name:   "no AI message",
			reason: "nothing to count",
			opts:   middleware.ToolCallLimitOptions{RunLimit: middleware.CallLimit(1)},
			state:  engine.State{"messages": []engine.Message{human}},
			want:   "null",
		},
		{
			name:   "final answer",
			reason: "an AI message without tool calls leaves the counters alone",
			opts:   middleware.ToolCallLimitOptions{RunLimit: middleware.CallLimit(1)},
			state:  engine.State{"messages": []engine.Message{human, engine.AIMessage("done")}},
			want:   "null",
		},
		{
			name:   "other tools only",
			reason: "a per-tool limit ignores calls to other tools, and writes nothing",
			opts:   middleware.ToolCallLimitOptions{ToolName: "ping", RunLimit: middleware.CallLimit(1)},
			state:  engine.State{"messages": []engine.Message{human, limitAI("search", "search")}},
			want:   "null",
		},
		{
			name:   "within the limit",
			reason: "allowed calls raise both counters; other keys of the shared counters are kept",
			opts:   middleware.ToolCallLimitOptions{ToolName: "ping", ThreadLimit: middleware.CallLimit(3)},
			state: engine.State{
				"messages":                        []engine.Message{human, limitAI("ping", "search", "ping")},
				middleware.ThreadToolCallCountKey: engine.NewObject("__all__", json.Number("7"), "ping", json.Number("1")),
			},
			want: `{"run_tool_call_count":{"ping":2},"thread_tool_call_count":{"__all__":7,"ping":3}}`,
		},
		{
			name:   "thread limit continue",
			reason: "blocked calls count only in the run; the tool message names no limit",
			opts:   middleware.ToolCallLimitOptions{ThreadLimit: middleware.CallLimit(2)},
			state: engine.State{
				"messages":                        []engine.Message{human, limitAI("a", "b", "c")},
				middleware.ThreadToolCallCountKey: map[string]any{"__all__": 1},
			},
			want: `{"messages":[` +
				`{"type":"tool","content":"Tool call limit exceeded. Do not make additional tool calls.","name":"b","id":null,"tool_call_id":"c2","status":"error"},` +
				`{"type":"tool","content":"Tool call limit exceeded. Do not make additional tool calls.","name":"c","id":null,"tool_call_id":"c3","status":"error"}],` +
				`"run_tool_call_count":{"__all__":3},"thread_tool_call_count":{"__all__":2}}`,
		},
		{
			name:   "per tool end",
			reason: "end adds the user-facing AI message with the hypothetical thread count, and jumps",
			opts:   middleware.ToolCallLimitOptions{ToolName: "ping", ThreadLimit: middleware.CallLimit(2), RunLimit: middleware.CallLimit(1), ExitBehavior: middleware.ExitBehaviorEnd},
			state:  engine.State{"messages": []engine.Message{human, limitAI("ping", "ping")}},
			want: `{"jump_to":"end","messages":[` +
				`{"type":"tool","content":"Tool call limit exceeded. Do not call 'ping' again.","name":"ping","id":null,"tool_call_id":"c2","status":"error"},` +
				`{"type":"ai","content":"'ping' tool call limit reached: run limit exceeded (2/1 calls).","id":null,"tool_calls":[]}],` +
				`"run_tool_call_count":{"ping":2},"thread_tool_call_count":{"ping":1}}`,
		},
		{
			name:    "per tool end with other tools",
			reason:  "langchain cannot end while calls to other tools are pending; names in call order, once each",
			opts:    middleware.ToolCallLimitOptions{ToolName: "ping", RunLimit: middleware.CallLimit(0), ExitBehavior: middleware.ExitBehaviorEnd},
			state:   engine.State{"messages": []engine.Message{human, limitAI("search", "ping", "fetch", "search")}},
			wantErr: "NotImplementedError: Cannot end execution with other tool calls pending. Found calls to: search, fetch. Use 'continue' or 'error' behavior instead.",
		},
		{
			name:   "both limits error",
			reason: "the error names both limits, joined by 'and'",
			opts:   middleware.ToolCallLimitOptions{ThreadLimit: middleware.CallLimit(2), RunLimit: middleware.CallLimit(1), ExitBehavior: middleware.ExitBehaviorError},
			state: engine.State{
				"messages":                        []engine.Message{human, limitAI("a", "b")},
				middleware.ThreadToolCallCountKey: engine.NewObject("__all__", 1),
			},
			wantErr: "ToolCallLimitExceededError: Tool call limit reached: thread limit exceeded (3/2 calls) and run limit exceeded (2/1 calls).",
		},
		{
			name:    "bad counters",
			reason:  "counters that are not an object of counts are an error, not a panic",
			opts:    middleware.ToolCallLimitOptions{RunLimit: middleware.CallLimit(1)},
			state:   engine.State{"messages": []engine.Message{human, limitAI("a")}, middleware.RunToolCallCountKey: []any{1}},
			wantErr: "Exception: ToolCallLimitMiddleware: run_tool_call_count: expected an object of counts, got [1]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := middleware.NewToolCallLimit(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.AfterModel(context.Background(), tt.state)
			if d := cmp.Diff(tt.wantErr, limitErrText(err)); d != "" {
				t.Fatalf("AfterModel error mismatch (-want +got) (%s):\n%s", tt.reason, d)
			}
			if err != nil {
				return
			}
			if d := cmp.Diff(tt.want, limitShow(t, got)); d != "" {
				t.Errorf("AfterModel mismatch (-want +got) (%s):\n%s", tt.reason, d)
			}
		})
	}
}

// TestToolCallLimitAgentEnd: with "end", the allowed call of an AI message
// that went over the limit never runs, and the blocked call's tool message
// comes right after the AI message.
func TestToolCallLimitAgentEnd(t *testing.T) {
	t.Parallel()
	m, err := middleware.NewToolCallLimit(middleware.ToolCallLimitOptions{RunLimit: middleware.CallLimit(1), ExitBehavior: middleware.ExitBehaviorEnd})
	if err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int32
	ping := engine.NewTool(engine.ToolDef{Name: "ping", Description: "ping"}, func(context.Context, engine.ToolInvocation) (any, error) {
		ran.Add(1)
		return "pong", nil
	})
	model := engine.ChatModelFunc(func(context.Context, engine.ModelRequest) (engine.Message, error) {
		return limitAI("ping", "ping"), nil
	})
	agent, err := engine.CreateAgent(engine.AgentConfig{Model: model, Tools: []engine.Tool{ping}, Middleware: []engine.Middleware{m}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := agent.Invoke(context.Background(), engine.State{"messages": []engine.Message{engine.HumanMessage("go")}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range res.Values.Messages("") {
		got = append(got, string(msg.Type)+":"+msg.Text())
	}
	want := []string{
		"human:go",
		"ai:",
		"tool:Tool call limit exceeded. Do not make additional tool calls.",
		"ai:Tool call limit reached: run limit exceeded (2/1 calls).",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", d)
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("ping ran %d times, want 0", n)
	}
}

// TestPropToolCallLimitCounts: for random batches, prior counts and
// limits (exit "continue"), ToolCallLimit's after_model
//   - runs a prefix of the matching calls and blocks the rest, in call
//     order, with one error tool message each;
//   - adds the allowed calls to the thread count and every matching call
//     to the run count;
//   - never lets the calls it allows take a count past its limit.
func TestPropToolCallLimitCounts(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propToolCallLimitCounts)
}

func FuzzToolCallLimitCounts(f *testing.F) {
	f.Add(make([]byte, 64))
	f.Add(bytes.Repeat([]byte{0x03, 0xff, 0x01}, 32))
	f.Fuzz(rapid.MakeFuzz(propToolCallLimitCounts))
}

func propToolCallLimitCounts(t *rapid.T) {
	tool := rapid.SampledFrom([]string{"", "a"}).Draw(t, "tool_name")
	var opts middleware.ToolCallLimitOptions
	opts.ToolName = tool
	if rapid.Bool().Draw(t, "has_thread_limit") {
		opts.ThreadLimit = middleware.CallLimit(rapid.IntRange(0, 5).Draw(t, "thread_limit"))
	}
	if opts.ThreadLimit == nil || rapid.Bool().Draw(t, "has_run_limit") {
		hi := 5
		if opts.ThreadLimit != nil {
			hi = *opts.ThreadLimit
		}
		opts.RunLimit = middleware.CallLimit(rapid.IntRange(0, hi).Draw(t, "run_limit"))
	}
	priorThread := rapid.IntRange(0, 6).Draw(t, "prior_thread")
	priorRun := rapid.IntRange(0, 6).Draw(t, "prior_run")
	names := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b"}), 0, 6).Draw(t, "calls")

	m, err := middleware.NewToolCallLimit(opts)
	if err != nil {
		t.Fatal(err)
	}
	key := tool
	if key == "" {
		key = middleware.AllToolsCountKey
	}
	ai := limitAI(names...)
	state := engine.State{
		"messages":                        []engine.Message{engine.HumanMessage("go"), ai},
		middleware.ThreadToolCallCountKey: engine.NewObject(key, priorThread),
		middleware.RunToolCallCountKey:    engine.NewObject(key, priorRun),
	}
	out, err := m.AfterModel(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	var matching []string
	for _, tc := range ai.ToolCalls {
		if tool == "" || tc.Name == tool {
			matching = append(matching, tc.ID)
		}
	}
	if len(matching) == 0 {
		if out != nil {
			t.Fatalf("no matching call, got update %v", out)
		}
		return
	}
	update, ok := out.(engine.State)
	if !ok {
		t.Fatalf("AfterModel = %T, want a state update", out)
	}
	msgs, _ := update["messages"].([]engine.Message)
	var blocked []string
	for _, msg := range msgs {
		if msg.Type != engine.TypeTool || msg.Status != engine.StatusError {
			t.Fatalf("unexpected message %v", msg)
		}
		blocked = append(blocked, msg.ToolCallID)
	}
	allowed := len(matching) - len(blocked)
	if d := cmp.Diff(matching[allowed:], blocked, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("blocked calls are not the tail of the matching calls (-want +got):\n%s", d)
	}
	count := func(k string) int {
		v, _ := update[k].(*engine.Object).Get(key)
		return v.(int)
	}
	if got, want := count(middleware.ThreadToolCallCountKey), priorThread+allowed; got != want {
		t.Fatalf("thread count %d, want %d", got, want)
	}
	if got, want := count(middleware.RunToolCallCountKey), priorRun+len(matching); got != want {
		t.Fatalf("run count %d, want %d", got, want)
	}
	if l := opts.ThreadLimit; l != nil && allowed > 0 && priorThread+allowed > *l {
		t.Fatalf("allowed %d calls past the thread limit %d (prior %d)", allowed, *l, priorThread)
	}
	if l := opts.RunLimit; l != nil && allowed > 0 && priorRun+allowed > *l {
		t.Fatalf("allowed %d calls past the run limit %d (prior %d)", allowed, *l, priorRun)
	}
}
