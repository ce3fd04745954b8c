package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/google/go-cmp/cmp"
)

// retryFlakyTool fails its first n calls with kind, then answers "ok".
func retryFlakyTool(name string, n int32, kind string) (engine.Tool, *atomic.Int32) {
	var calls atomic.Int32
	return engine.NewTool(engine.ToolDef{Name: name, Description: "flaky"}, func(context.Context, engine.ToolInvocation) (any, error) {
		c := calls.Add(1)
		if c <= n {
			return nil, engine.NewError(kind, fmt.Sprintf("fail #%d", c))
		}
		return "ok", nil
	}), &calls
}

// retryToolAgent runs an agent whose model calls tool once, then answers
// "done"; it returns the tool message the call got.
func retryToolAgent(t *testing.T, tool engine.Tool, clock engine.Clock, mw ...engine.Middleware) (engine.Message, error) {
	t.Helper()
	var turn atomic.Int32
	model := engine.ChatModelFunc(func(context.Context, engine.ModelRequest) (engine.Message, error) {
		if turn.Add(1) == 1 {
			m := engine.AIMessage("", engine.ToolCall{Name: tool.Definition().Name, Args: &engine.Object{}, ID: "c1"})
			m.ID = "ai1"
			return m, nil
		}
		return engine.AIMessage("done"), nil
	})
	agent, err := engine.CreateAgent(engine.AgentConfig{Model: model, Tools: []engine.Tool{tool}, Middleware: mw, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	res, err := agent.Invoke(context.Background(), engine.State{"messages": []engine.Message{engine.HumanMessage("go")}}, engine.Config{})
	if err != nil {
		return engine.Message{}, err
	}
	for _, m := range res.Values.Messages("") {
		if m.Type == engine.TypeTool {
			return m, nil
		}
	}
	t.Fatal("no tool message")
	return engine.Message{}, nil
}

// retryShow renders a message as JSON for diffs.
func retryShow(t *testing.T, m engine.Message) string {
	t.Helper()
	b, err := engine.MarshalValue(m.ToValue())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newToolRetry(t *testing.T, o middleware.ToolRetryOptions) *middleware.ToolRetry {
	t.Helper()
	r, err := middleware.NewToolRetry(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestToolRetryFakeClock: backoff waits go through the run's clock, so
// minutes of backoff take no time with a fake one, and the waits are
// exactly calculate_delay's.
func TestToolRetryFakeClock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reason  string
		backoff middleware.Backoff
		fails   int32
		want    []time.Duration
		content string
	}{
		{
			name:    "constant minute",
			reason:  "a 60 s constant backoff waits 60 s before each retry",
			backoff: middleware.Backoff{MaxRetries: 2, InitialDelay: time.Minute, MaxDelay: time.Minute},
			fails:   2,
			want:    []time.Duration{time.Minute, time.Minute},
			content: "ok",
		},
		{
			name:    "exponential capped at a minute",
			reason:  "15 s doubling, capped at 60 s; the last failure is not followed by a wait",
			backoff: middleware.Backoff{MaxRetries: 4, BackoffFactor: 2, InitialDelay: 15 * time.Second, MaxDelay: time.Minute},
			fails:   9,
			want:    []time.Duration{15 * time.Second, 30 * time.Second, time.Minute, time.Minute},
			content: "Tool 'flaky' failed after 5 attempts with TimeoutError: fail #5. Please try again.",
		},
		{
			name:    "no wait for zero delays",
			reason:  "a zero delay does not call the clock (if delay > 0: time.sleep(delay))",
			backoff: middleware.Backoff{MaxRetries: 3},
			fails:   3,
			want:    nil,
			content: "ok",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := newRetryClock()
			tool, calls := retryFlakyTool("flaky", tc.fails, "TimeoutError")
			start := time.Now()
			msg, err := retryToolAgent(t, tool, clock, newToolRetry(t, middleware.ToolRetryOptions{Backoff: tc.backoff}))
			if err != nil {
				t.Fatal(err)
			}
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("run took %v of wall time: the backoff did not use the run's clock", elapsed)
			}
			if d := cmp.Diff(tc.want, clock.sleeps()); d != "" {
				t.Errorf("sleeps (%s) mismatch (-want +got):\n%s", tc.reason, d)
			}
			if got := msg.Text(); got != tc.content {
				t.Errorf("tool message = %q, want %q", got, tc.content)
			}
			if want := int32(len(tc.want) + 1); calls.Load() != want && tc.backoff.InitialDelay > 0 {
				t.Errorf("tool ran %d times, want %d", calls.Load(), want)
			}
		})
	}
}

// TestToolRetryJitter: jitter stays within ±25%, and the same seed and
// call give the same waits on every run.
func TestToolRetryJitter(t *testing.T) {
	t.Parallel()
	run := func(seed uint64) []time.Duration {
		clock := newRetryClock()
		tool, _ := retryFlakyTool("flaky", 3, "ValueError")
		b := middleware.Backoff{MaxRetries: 3, BackoffFactor: 2, InitialDelay: 10 * time.Second, MaxDelay: time.Hour, Jitter: true, Seed: seed}
		if _, err := retryToolAgent(t, tool, clock, newToolRetry(t, middleware.ToolRetryOptions{Backoff: b})); err != nil {
			t.Fatal(err)
		}
		return clock.sleeps()
	}
	first, again, other := run(7), run(7), run(8)
	if d := cmp.Diff(first, again); d != "" {
		t.Errorf("same seed, different waits (-first +again):\n%s", d)
	}
	if cmp.Equal(first, other) {
		t.Errorf("seeds 7 and 8 gave the same waits %v", first)
	}
	for i, d := range first {
		base := 10 * time.Second << i
		if d < base*3/4 || d > base*5/4 {
			t.Errorf("wait %d = %v, want within ±25%% of %v", i, d, base)
		}
		if d == base {
			t.Errorf("wait %d = %v exactly: no jitter applied", i, d)
		}
	}
}

// TestToolRetryWrap: what wrap_tool_call returns for each outcome.
func TestToolRetryWrap(t *testing.T) {
	t.Parallel()
	interrupt := &engine.InterruptError{Interrupts: []engine.InterruptValue{{Value: "review", ID: "i1"}}}
	tests := []struct {
		name   string
		reason string
		opts   middleware.ToolRetryOptions
		tool   string
		errs   []error // the executor's errors, in order; then it succeeds
		want   string  // the tool message text, or "error: <kind>: <text>"
		calls  int
	}{
		{
			name:   "succeeds after failures",
			reason: "the result of the first successful attempt is returned",
			opts:   middleware.ToolRetryOptions{Backoff: middleware.Backoff{MaxRetries: 2}},
			errs:   []error{engine.NewError("ValueError", "a"), engine.NewError("ValueError", "b")},
			want:   "ok", calls: 3,
		},
		{
			name:   "exhausted",
			reason: "the message names the tool, the attempts, the last error's type and text",
			opts:   middleware.ToolRetryOptions{Backoff: middleware.Backoff{MaxRetries: 1}},
			errs:   []error{engine.NewError("ValueError", "a"), engine.NewError("KeyError", "b")},
			want:   "Tool 'search' failed after 2 attempts with KeyError: 'b'. Please try again.", calls: 2,
		},
		{
			name:   "one attempt",
			reason: "attempt is singular after one attempt",
			opts:   middleware.ToolRetryOptions{},
			errs:   []error{errors.New("plain go error")},
			want:   "Tool 'search' failed after 1 attempt with Exception: plain go error. Please try again.", calls: 1,
		},
		{
			name:   "not retried",
			reason: "langchain 1.1.3 hands an error retry_on does not match to on_failure at once",
			opts:   middleware.ToolRetryOptions{Backoff: middleware.Backoff{MaxRetries: 5}, RetryOn: middleware.RetryOn{Kinds: []string{"OSError"}}},
			errs:   []error{engine.NewError("ConnectionError", "x"), engine.NewError("ValueError", "y")},
			want:   "Tool 'search' failed after 2 attempts with ValueError: y. Please try again.", calls: 2,
		},
		{
			name:   "retry_on func",
			reason: "a callable retry_on decides instead of the kinds",
			opts: middleware.ToolRetryOptions{Backoff: middleware.Backoff{MaxRetries: 5}, RetryOn: middleware.RetryOn{
				Kinds: []string{"KeyError"},
				Func:  func(err error) bool { return engine.ErrorMessage(err) == "again" },
			}},
			errs: []error{engine.NewError("ValueError", "again"), engine.NewError("ValueError", "stop")},
			want: "Tool 'search' failed after 2 attempts with ValueError: stop. Please try again.", calls: 2,
		},
		{
			name:   "error",
			reason: "on_failure error returns the last error itself",
			opts:   middleware.ToolRetryOptions{Backoff: middleware.Backoff{MaxRetries: 1}, OnFailure: middleware.OnFailureError},
			errs:   []error{engine.NewError("ValueError", "a"), engine.NewError("TypeError", "b")},
			want:   "error: TypeError: b", calls: 2,
		},
		{
			name:   "deprecated raise",
			reason: "on_failure='raise' still means 'error'",
			opts:   middleware.ToolRetryOptions{OnFailure: "raise"},
			errs:   []error{engine.NewError("ValueError", "a")},
			want:   "error: ValueError: a", calls: 1,
		},
		{
			name:   "deprecated return_message",
			reason: "on_failure='return_message' still means 'continue'",
			opts:   middleware.ToolRetryOptions{OnFailure: "return_message"},
			errs:   []error{engine.NewError("ValueError", "a")},
			want:   "Tool 'search' failed after 1 attempt with ValueError: a. Please try again.", calls: 1,
		},
		{
			name:   "formatter",
			reason: "a callable on_failure writes the message",
			opts: middleware.ToolRetryOptions{Backoff: middleware.Backoff{MaxRetries: 1}, FailureMessage: func(err error) string {
				return "custom " + engine.ErrorKind(err) + " " + middleware.ExceptionStr(err)
			}},
			errs: []error{engine.NewError("ValueError", "a"), engine.NewError("ValueError", "b")},
			want: "custom ValueError b", calls: 2,
		},
		{
			name:   "other tool",
			reason: "a tool outside tools= runs once and its error passes through",
			opts:   middleware.ToolRetryOptions{Backoff: middleware.Backoff{MaxRetries: 3}, Tools: []string{"other"}},
			errs:   []error{engine.NewError("ValueError", "a")},
			want:   "error: ValueError: a", calls: 1,
		},
		{
			name:   "listed tool",
			reason: "a tool in tools= is retried",
			opts:   middleware.ToolRetryOptions{Backoff: middleware.Backoff{MaxRetries: 3}, Tools: []string{"other", "search"}},
			errs:   []error{engine.NewError("ValueError", "a")},
			want:   "ok", calls: 2,
		},
		{
			name:   "interrupt",
			reason: "an interrupt is control flow (GraphBubbleUp): not retried, not turned into a message",
			opts:   middleware.ToolRetryOptions{Backoff: middleware.Backoff{MaxRetries: 3}},
			errs:   []error{interrupt},
			want:   "error: Exception: graph interrupted: 'review'", calls: 1,
		},
		{
			name:   "unknown tool",
			reason: "a call of an unknown tool is named by the call",
			opts:   middleware.ToolRetryOptions{},
			tool:   "-",
			errs:   []error{engine.NewError("ValueError", "a")},
			want:   "Tool 'search' failed after 1 attempt with ValueError: a. Please try again.", calls: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newToolRetry(t, tc.opts)
			req := engine.ToolCallRequest{Call: engine.ToolCall{Name: "search", ID: "c1"}}
			if tc.tool != "-" {
				req.Tool = engine.NewTool(engine.ToolDef{Name: "search"}, nil)
			}
			calls := 0
			next := func(_ context.Context, req engine.ToolCallRequest) (any, error) {
				calls++
				if calls <= len(tc.errs) {
					return nil, tc.errs[calls-1]
				}
				return engine.ToolMessage(engine.Text("ok"), req.Call.Name, req.Call.ID), nil
			}
			res, err := r.WrapToolCall(context.Background(), req, next)
			got := ""
			if err != nil {
				got = "error: " + engine.ErrorKind(err) + ": " + engine.ErrorMessage(err)
			} else {
				m := res.(engine.Message)
				got = m.Text()
				if m.Text() != "ok" {
					want := engine.Message{Type: engine.TypeTool, Content: engine.Text(got), Name: "search", ToolCallID: "c1", Status: engine.StatusError}
					if d := cmp.Diff(retryShow(t, want), retryShow(t, m)); d != "" {
						t.Errorf("failure message mismatch (-want +got):\n%s", d)
					}
				}
			}
			if got != tc.want {
				t.Errorf("WrapToolCall = %q, want %q (%s)", got, tc.want, tc.reason)
			}
			if calls != tc.calls {
				t.Errorf("executor ran %d times, want %d (%s)", calls, tc.calls, tc.reason)
			}
			if errors.Is(tc.errs[len(tc.errs)-1], interrupt) && err != interrupt {
				t.Errorf("the interrupt was not passed on as it was: %v", err)
			}
		})
	}
}

// TestToolRetryCancel: a cancelled run stops the backoff and is not
// turned into a message.
func TestToolRetryCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	r := newToolRetry(t, middleware.ToolRetryOptions{Backoff: middleware.Backoff{MaxRetries: 3}})
	calls := 0
	_, err := r.WrapToolCall(ctx, engine.ToolCallRequest{Call: engine.ToolCall{Name: "t", ID: "c"}}, func(context.Context, engine.ToolCallRequest) (any, error) {
		calls++
		cancel()
		return nil, engine.NewError("ValueError", "boom")
	})
	if err == nil || calls != 1 {
		t.Errorf("WrapToolCall after cancel = %v after %d calls, want the error after 1 call", err, calls)
	}
}

// TestToolRetryOptionsValidate: constructor errors name the option.
func TestToolRetryOptionsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		opts   middleware.ToolRetryOptions
		want   string
	}{
		{name: "defaults", reason: "langchain's defaults are valid", opts: middleware.DefaultToolRetryOptions()},
		{name: "zero", reason: "the zero value is valid", opts: middleware.ToolRetryOptions{}},
		{
			name: "bad on_failure", reason: "on_failure is continue or error",
			opts: middleware.ToolRetryOptions{OnFailure: "ignore"},
			want: `ToolRetryMiddleware: on_failure: "ignore" is not an action: expected "continue" or "error"`,
		},
		{
			name: "error with formatter", reason: "a formatter has nothing to format when the error is raised",
			opts: middleware.ToolRetryOptions{OnFailure: "error", FailureMessage: func(error) string { return "" }},
			want: `ToolRetryMiddleware: on_failure: a failure message formatter cannot be combined with "error"`,
		},
		{
			name: "several", reason: "all problems are reported together",
			opts: middleware.ToolRetryOptions{Backoff: middleware.Backoff{MaxRetries: -2}, Tools: []string{""}, RetryOn: middleware.RetryOn{Kinds: []string{""}}},
			want: "ToolRetryMiddleware: max_retries must be >= 0\ntools: a tool name is empty\nretry_on: an exception kind is empty",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := ""
			if _, err := middleware.NewToolRetry(tc.opts); err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("NewToolRetry (%s) mismatch (-want +got):\n%s", tc.reason, d)
			}
		})
	}
}
