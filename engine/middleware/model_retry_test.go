package middleware_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/google/go-cmp/cmp"
)

// TestModelRetryWrap: what wrap_model_call returns for each outcome.
func TestModelRetryWrap(t *testing.T) {
	t.Parallel()
	down := engine.NewError("ConnectionError", "provider down")
	tests := []struct {
		name   string
		reason string
		opts   middleware.ModelRetryOptions
		errs   []error // the handler's errors, in order; then it answers
		want   string  // the AI message text, or "error: <kind>: <text>"
		calls  int
	}{
		{
			name:   "succeeds",
			reason: "the first answer after failures is returned as it is",
			opts:   middleware.ModelRetryOptions{Backoff: middleware.Backoff{MaxRetries: 2}},
			errs:   []error{down, down},
			want:   "answer", calls: 3,
		},
		{
			name:   "exhausted",
			reason: "on_failure continue answers with the last error, without a trailing period",
			opts:   middleware.ModelRetryOptions{Backoff: middleware.Backoff{MaxRetries: 1}},
			errs:   []error{down, engine.NewError("TimeoutError", "slow")},
			want:   "Model call failed after 2 attempts with TimeoutError: slow", calls: 2,
		},
		{
			name:   "single attempt",
			reason: "attempt is singular after one attempt",
			opts:   middleware.ModelRetryOptions{},
			errs:   []error{down},
			want:   "Model call failed after 1 attempt with ConnectionError: provider down", calls: 1,
		},
		{
			name:   "not retried",
			reason: "an error retry_on does not match goes to on_failure at once",
			opts:   middleware.ModelRetryOptions{Backoff: middleware.Backoff{MaxRetries: 3}, RetryOn: middleware.RetryOn{Kinds: []string{"TimeoutError"}}},
			errs:   []error{down},
			want:   "Model call failed after 1 attempt with ConnectionError: provider down", calls: 1,
		},
		{
			name:   "error",
			reason: "on_failure error returns the last error",
			opts:   middleware.ModelRetryOptions{Backoff: middleware.Backoff{MaxRetries: 1}, OnFailure: middleware.OnFailureError},
			errs:   []error{down, down},
			want:   "error: ConnectionError: provider down", calls: 2,
		},
		{
			name:   "formatter",
			reason: "a callable on_failure writes the AI message",
			opts:   middleware.ModelRetryOptions{FailureMessage: func(err error) string { return "sorry: " + err.Error() }},
			errs:   []error{down},
			want:   "sorry: provider down", calls: 1,
		},
		{
			name:   "interrupt",
			reason: "interrupts pass through untouched",
			opts:   middleware.ModelRetryOptions{Backoff: middleware.Backoff{MaxRetries: 3}},
			errs:   []error{&engine.InterruptError{}},
			want:   "error: Exception: graph interrupted", calls: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := middleware.NewModelRetry(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			next := func(context.Context, engine.AgentModelRequest) (*engine.AgentModelResponse, error) {
				calls++
				if calls <= len(tc.errs) {
					return nil, tc.errs[calls-1]
				}
				return &engine.AgentModelResponse{Result: []engine.Message{engine.AIMessage("answer")}}, nil
			}
			res, err := r.WrapModelCall(context.Background(), engine.AgentModelRequest{}, next)
			got := ""
			if err != nil {
				got = "error: " + engine.ErrorKind(err) + ": " + engine.ErrorMessage(err)
			} else {
				if len(res.Result) != 1 || res.Result[0].Type != engine.TypeAI || res.Result[0].ID != "" {
					t.Errorf("result = %+v, want one AI message without an ID", res.Result)
				}
				got = res.Result[0].Text()
			}
			if got != tc.want {
				t.Errorf("WrapModelCall = %q, want %q (%s)", got, tc.want, tc.reason)
			}
			if calls != tc.calls {
				t.Errorf("handler ran %d times, want %d (%s)", calls, tc.calls, tc.reason)
			}
		})
	}
}

// TestModelRetryAgent: through a real agent with a fake clock, the waits
// are LangChain's default schedule and the answer is the model's.
func TestModelRetryAgent(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	model := engine.ChatModelFunc(func(context.Context, engine.ModelRequest) (engine.Message, error) {
		if calls.Add(1) <= 2 {
			return engine.Message{}, engine.NewError("ConnectionError", "provider down")
		}
		return engine.AIMessage("finally"), nil
	})
	o := middleware.DefaultModelRetryOptions()
	o.Jitter = false
	r, err := middleware.NewModelRetry(o)
	if err != nil {
		t.Fatal(err)
	}
	clock := newRetryClock()
	agent, err := engine.CreateAgent(engine.AgentConfig{Model: model, Middleware: []engine.Middleware{r}, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	res, err := agent.Invoke(context.Background(), engine.State{"messages": []engine.Message{engine.HumanMessage("hi")}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := res.Values.Messages("")
	if got := msgs[len(msgs)-1].Text(); got != "finally" {
		t.Errorf("last message = %q, want %q", got, "finally")
	}
	if d := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, clock.sleeps()); d != "" {
		t.Errorf("sleeps mismatch (-want +got):\n%s", d)
	}
}

// TestModelRetryOptionsValidate: constructor errors name the option.
func TestModelRetryOptionsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		opts   middleware.ModelRetryOptions
		want   string
	}{
		{name: "defaults", reason: "langchain's defaults are valid", opts: middleware.DefaultModelRetryOptions()},
		{
			name: "negative delay", reason: "delays must not be negative",
			opts: middleware.ModelRetryOptions{Backoff: middleware.Backoff{InitialDelay: -time.Second}},
			want: "ModelRetryMiddleware: initial_delay must be >= 0",
		},
		{
			name: "bad on_failure", reason: "on_failure is continue or error",
			opts: middleware.ModelRetryOptions{OnFailure: "retry"},
			want: `ModelRetryMiddleware: on_failure: "retry" is not an action: expected "continue" or "error"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := ""
			if _, err := middleware.NewModelRetry(tc.opts); err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("NewModelRetry (%s) mismatch (-want +got):\n%s", tc.reason, d)
			}
		})
	}
}
