package middleware_test

import (
	"context"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/google/go-cmp/cmp"
)

func newTodoList(t testing.TB, opts middleware.TodoListOptions) engine.Middleware {
	t.Helper()
	m, err := middleware.NewTodoList(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTodoListSystemMessage: the system message the model gets
// (todo.py, wrap_model_call): content blocks, the prompt after "\n\n".
func TestTodoListSystemMessage(t *testing.T) {
	t.Parallel()
	sys := func(c engine.Content) *engine.Message {
		m := engine.Message{Type: engine.TypeSystem, Content: c}
		return &m
	}
	tests := []struct {
		name   string
		reason string
		opts   middleware.TodoListOptions
		system *engine.Message
		want   string
	}{
		{
			name:   "no system message",
			reason: "the prompt alone, as a single text block without the leading blank line",
			opts:   middleware.TodoListOptions{SystemPrompt: "Plan."},
			want:   `{"type":"system","content":[{"type":"text","text":"Plan."}],"id":null}`,
		},
		{
			name:   "string system message",
			reason: "a string becomes a text block; the prompt follows in its own block",
			opts:   middleware.TodoListOptions{SystemPrompt: "Plan."},
			system: sys(engine.Text("Base.")),
			want:   `{"type":"system","content":[{"type":"text","text":"Base."},{"type":"text","text":"\n\nPlan."}],"id":null}`,
		},
		{
			name:   "block system message",
			reason: "existing blocks are kept as they are, bare strings become text blocks",
			opts:   middleware.TodoListOptions{SystemPrompt: "Plan."},
			system: sys(engine.Blocks("a", engine.NewObject("type", "text", "text", "b", "cache_control", engine.NewObject("type", "ephemeral")))),
			want:   `{"type":"system","content":[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}},{"type":"text","text":"\n\nPlan."}],"id":null}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newTodoList(t, tt.opts).(engine.ModelCallWrapperHook)
			var got *engine.Message
			next := func(_ context.Context, req engine.AgentModelRequest) (*engine.AgentModelResponse, error) {
				got = req.SystemMessage
				return &engine.AgentModelResponse{}, nil
			}
			if _, err := m.WrapModelCall(context.Background(), engine.AgentModelRequest{SystemMessage: tt.system}, next); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, limitShow(t, *got)); d != "" {
				t.Errorf("system message mismatch (-want +got) (%s):\n%s", tt.reason, d)
			}
		})
	}
}

func TestTodoListDefaults(t *testing.T) {
	t.Parallel()
	m := newTodoList(t, middleware.TodoListOptions{}).(*middleware.TodoList)
	if d := cmp.Diff(middleware.WriteTodosSystemPrompt, m.Options().SystemPrompt); d != "" {
		t.Errorf("default system prompt mismatch (-want +got):\n%s", d)
	}
	tools := m.Tools()
	if len(tools) != 1 {
		t.Fatalf("Tools() = %d tools, want 1", len(tools))
	}
	def := tools[0].Definition()
	if def.Name != "write_todos" || def.Description != middleware.WriteTodosToolDescription {
		t.Errorf("tool = %q %.40q..., want write_todos with the default description", def.Name, def.Description)
	}
	if _, ok := engine.Middleware(m).(engine.AfterModelHook); ok {
		t.Errorf("langchain 1.1.3's TodoListMiddleware has no after_model hook")
	}
}

// TestTodoListWriteTodos: the tool's Command, through a ToolNode so the
// arguments are validated as langchain's pydantic model does.
func TestTodoListWriteTodos(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		args   string
		want   string
	}{
		{
			name:   "two todos",
			reason: "the todos replace the state key and the answer is their Python repr",
			args:   `{"todos":[{"content":"step one","status":"in_progress"},{"content":"it's","status":"pending"}]}`,
			want: `{"messages":[{"type":"tool","content":"Updated todo list to [{'content': 'step one', 'status': 'in_progress'}, {'content': \"it's\", 'status': 'pending'}]","name":"write_todos","id":null,"tool_call_id":"c1","status":"success"}],` +
				`"todos":[{"content":"step one","status":"in_progress"},{"content":"it's","status":"pending"}]}`,
		},
		{
			name:   "empty list",
			reason: "clearing the list is a valid write",
			args:   `{"todos":[]}`,
			want:   `{"messages":[{"type":"tool","content":"Updated todo list to []","name":"write_todos","id":null,"tool_call_id":"c1","status":"success"}],"todos":[]}`,
		},
		{
			name:   "bad status",
			reason: "a status outside the enum is refused before the tool runs: no todos written",
			args:   `{"todos":[{"content":"x","status":"done"}]}`,
			want:   "error",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newTodoList(t, middleware.TodoListOptions{}).(engine.MiddlewareTools)
			tn, err := engine.NewToolNode(m.Tools(), engine.ToolNodeOptions{HandleToolErrors: engine.ToolErrors{InvalidArgsOnly: true}})
			if err != nil {
				t.Fatal(err)
			}
			v, err := engine.DecodeJSON([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			ai := engine.AIMessage("", engine.ToolCall{Name: "write_todos", Args: v.(*engine.Object), ID: "c1"})
			out, err := tn.Invoke(context.Background(), engine.State{"messages": []engine.Message{ai}})
			if err != nil {
				t.Fatal(err)
			}
			got := limitTodoUpdate(t, out)
			if tt.want == "error" {
				if got != "error" {
					t.Errorf("Invoke = %s, want an error tool message and no todos (%s)", got, tt.reason)
				}
				return
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Invoke mismatch (-want +got) (%s):\n%s", tt.reason, d)
			}
		})
	}
}

// limitTodoUpdate renders a ToolNode result holding one Command as its
// update, or "error" for a single error tool message.
func limitTodoUpdate(t testing.TB, out any) string {
	t.Helper()
	switch o := out.(type) {
	case []any:
		if len(o) == 1 {
			if c, ok := o[0].(*engine.Command); ok {
				return limitShow(t, c.Update)
			}
		}
	case engine.State:
		if msgs := o.Messages(""); len(msgs) == 1 && msgs[0].Status == engine.StatusError && o["todos"] == nil {
			return "error"
		}
	}
	return limitShow(t, out)
}

// TestTodoListParallelGuard: the after_model hook of later langchain
// releases answers every write_todos call of a message that made several.
func TestTodoListParallelGuard(t *testing.T) {
	t.Parallel()
	m := newTodoList(t, middleware.TodoListOptions{RejectParallelWrites: true})
	hook, ok := m.(engine.AfterModelHook)
	if !ok {
		t.Fatal("RejectParallelWrites: the middleware has no after_model hook")
	}
	if m.Name() != "TodoListMiddleware" {
		t.Errorf("Name() = %q, want TodoListMiddleware", m.Name())
	}
	errMsg := func(id string) string {
		return `{"type":"tool","content":"` + middleware.WriteTodosParallelError + `","id":null,"tool_call_id":"` + id + `","status":"error"}`
	}
	tests := []struct {
		name   string
		reason string
		last   engine.Message
		want   string
	}{
		{
			name:   "one write",
			reason: "a single write_todos call runs normally",
			last:   limitAI("write_todos", "search"),
			want:   "null",
		},
		{
			name:   "two writes among others",
			reason: "only the write_todos calls are answered, in call order; the others still run",
			last:   limitAI("write_todos", "search", "write_todos"),
			want:   `{"messages":[` + errMsg("c1") + `,` + errMsg("c3") + `]}`,
		},
		{
			name:   "no tool calls",
			reason: "a final answer is left alone",
			last:   engine.AIMessage("done"),
			want:   "null",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := hook.AfterModel(context.Background(), engine.State{"messages": []engine.Message{engine.HumanMessage("go"), tt.last}})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, limitShow(t, got)); d != "" {
				t.Errorf("AfterModel mismatch (-want +got) (%s):\n%s", tt.reason, d)
			}
		})
	}
}
