package middleware_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/google/go-cmp/cmp"
)

// limitShow renders a hook's result as compact JSON for diffs.
func limitShow(t testing.TB, v any) string {
	t.Helper()
	if v == nil {
		return "null"
	}
	b, err := engine.MarshalValue(engine.ValueForJSON(v))
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

// limitErrText is the error's Python kind and message, "" for nil.
func limitErrText(err error) string {
	if err == nil {
		return ""
	}
	return engine.ErrorKind(err) + ": " + engine.ErrorMessage(err)
}

func TestModelCallLimitOptionsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		opts   middleware.ModelCallLimitOptions
		want   []string // substrings of the error; nil means valid
	}{
		{
			name:   "no limit",
			reason: "langchain refuses a middleware with neither limit",
			opts:   middleware.ModelCallLimitOptions{},
			want:   []string{"thread_limit, run_limit: at least one limit must be specified"},
		},
		{
			name:   "run limit only",
			reason: "one limit is enough; exit_behavior defaults to end",
			opts:   middleware.ModelCallLimitOptions{RunLimit: middleware.CallLimit(2)},
		},
		{
			name:   "zero limit",
			reason: "a limit of 0 is allowed: the first model call is refused",
			opts:   middleware.ModelCallLimitOptions{ThreadLimit: middleware.CallLimit(0)},
		},
		{
			name:   "continue is not a model call exit",
			reason: "only ToolCallLimit knows continue; every problem is reported at once",
			opts:   middleware.ModelCallLimitOptions{RunLimit: middleware.CallLimit(-1), ExitBehavior: "continue"},
			want:   []string{`exit_behavior: "continue": expected "end" or "error"`, "run_limit: -1: expected a limit >= 0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.opts.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil (%s)", err, tt.reason)
				}
				if _, err := middleware.NewModelCallLimit(tt.opts); err != nil {
					t.Fatalf("NewModelCallLimit() = %v, want nil (%s)", err, tt.reason)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want an error (%s)", tt.reason)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q, want it to contain %q (%s)", err, w, tt.reason)
				}
			}
			if _, err := middleware.NewModelCallLimit(tt.opts); err == nil || !strings.HasPrefix(err.Error(), "ModelCallLimitMiddleware: ") {
				t.Errorf("NewModelCallLimit() = %v, want the validation error under the class name (%s)", err, tt.reason)
			}
		})
	}
}

// TestModelCallLimitBeforeModel: when the run stops and what it says
// (model_call_limit.py, before_model and _build_limit_exceeded_message).
func TestModelCallLimitBeforeModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reason  string
		opts    middleware.ModelCallLimitOptions
		state   engine.State
		want    string
		wantErr string
	}{
		{
			name:   "fresh thread",
			reason: "absent counters are zero",
			opts:   middleware.ModelCallLimitOptions{RunLimit: middleware.CallLimit(1)},
			state:  engine.State{},
			want:   "null",
		},
		{
			name:   "below the limit",
			reason: "the check is count >= limit, so count limit-1 still calls the model",
			opts:   middleware.ModelCallLimitOptions{ThreadLimit: middleware.CallLimit(3)},
			state:  engine.State{middleware.ThreadModelCallCountKey: 2},
			want:   "null",
		},
		{
			name:   "thread limit reached, end",
			reason: "end adds an AI message and jumps to the end",
			opts:   middleware.ModelCallLimitOptions{ThreadLimit: middleware.CallLimit(3), RunLimit: middleware.CallLimit(5)},
			state:  engine.State{middleware.ThreadModelCallCountKey: 3, middleware.RunModelCallCountKey: 1},
			want:   `{"jump_to":"end","messages":[{"type":"ai","content":"Model call limits exceeded: thread limit (3/3)","id":null,"tool_calls":[]}]}`,
		},
		{
			name:    "both limits reached, error",
			reason:  "the message names every limit reached, thread first, joined by a comma",
			opts:    middleware.ModelCallLimitOptions{ThreadLimit: middleware.CallLimit(3), RunLimit: middleware.CallLimit(2), ExitBehavior: middleware.ExitBehaviorError},
			state:   engine.State{middleware.ThreadModelCallCountKey: json.Number("4"), middleware.RunModelCallCountKey: 2},
			wantErr: "ModelCallLimitExceededError: Model call limits exceeded: thread limit (4/3), run limit (2/2)",
		},
		{
			name:    "count of the wrong type",
			reason:  "a counter set by hand to a non-integer is an error, not a panic",
			opts:    middleware.ModelCallLimitOptions{RunLimit: middleware.CallLimit(1)},
			state:   engine.State{middleware.RunModelCallCountKey: "two"},
			wantErr: "Exception: run_model_call_count: expected an integer count, got 'two'",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := middleware.NewModelCallLimit(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.BeforeModel(context.Background(), tt.state)
			if d := cmp.Diff(tt.wantErr, limitErrText(err)); d != "" {
				t.Fatalf("BeforeModel error mismatch (-want +got) (%s):\n%s", tt.reason, d)
			}
			if err != nil {
				return
			}
			if d := cmp.Diff(tt.want, limitShow(t, got)); d != "" {
				t.Errorf("BeforeModel mismatch (-want +got) (%s):\n%s", tt.reason, d)
			}
		})
	}
}

func TestModelCallLimitAfterModel(t *testing.T) {
	t.Parallel()
	m, err := middleware.NewModelCallLimit(middleware.ModelCallLimitOptions{RunLimit: middleware.CallLimit(1)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.AfterModel(context.Background(), engine.State{middleware.ThreadModelCallCountKey: json.Number("4")})
	if err != nil {
		t.Fatal(err)
	}
	// both counters go up by one; the run counter starts from zero
	want := `{"run_model_call_count":1,"thread_model_call_count":5}`
	if d := cmp.Diff(want, limitShow(t, got)); d != "" {
		t.Errorf("AfterModel mismatch (-want +got):\n%s", d)
	}
}

func TestModelCallLimitExceededErrorAs(t *testing.T) {
	t.Parallel()
	m, err := middleware.NewModelCallLimit(middleware.ModelCallLimitOptions{RunLimit: middleware.CallLimit(0), ExitBehavior: middleware.ExitBehaviorError})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.BeforeModel(context.Background(), engine.State{})
	var e *middleware.ModelCallLimitExceededError
	if !errors.As(err, &e) {
		t.Fatalf("BeforeModel error %v is not a *ModelCallLimitExceededError", err)
	}
	if e.RunCount != 0 || *e.RunLimit != 0 || e.ThreadLimit != nil {
		t.Errorf("error fields = %+v, want run 0/0 and no thread limit", *e)
	}
}

// TestModelCallLimitAgent: the thread counter survives runs of a thread,
// the run counter does not (UntrackedValue), through a real agent.
func TestModelCallLimitAgent(t *testing.T) {
	t.Parallel()
	m, err := middleware.NewModelCallLimit(middleware.ModelCallLimitOptions{ThreadLimit: middleware.CallLimit(2), RunLimit: middleware.CallLimit(1)})
	if err != nil {
		t.Fatal(err)
	}
	model := engine.ChatModelFunc(func(_ context.Context, _ engine.ModelRequest) (engine.Message, error) {
		return engine.AIMessage("answer"), nil
	})
	agent, err := engine.CreateAgent(engine.AgentConfig{Model: model, Middleware: []engine.Middleware{m}, Checkpointer: checkpoint.NewMemory()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range []string{"one", "two", "three"} {
		res, err := agent.Invoke(context.Background(), engine.State{"messages": []engine.Message{engine.HumanMessage(q)}}, engine.Config{ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		msgs := res.Values.Messages("")
		got = append(got, msgs[len(msgs)-1].Text())
	}
	want := []string{"answer", "answer", "Model call limits exceeded: thread limit (2/2)"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("last messages mismatch (-want +got):\n%s", d)
	}
}
