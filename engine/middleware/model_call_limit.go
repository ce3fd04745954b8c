package middleware

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// Exit behaviours of the call-limit middleware: what happens once a limit
// is reached.
const (
	// ExitBehaviorEnd jumps to the end of the run with an AI message saying
	// which limit was reached.
	ExitBehaviorEnd = "end"
	// ExitBehaviorError fails the run with the middleware's error.
	ExitBehaviorError = "error"
	// ExitBehaviorContinue (ToolCallLimit only) answers each call over the
	// limit with an error tool message and lets the model go on.
	ExitBehaviorContinue = "continue"
)

// State keys of ModelCallLimit. The thread count is saved in checkpoints
// and so survives across runs of a thread; the run count is untracked and
// starts from zero in every run.
const (
	ThreadModelCallCountKey = "thread_model_call_count"
	RunModelCallCountKey    = "run_model_call_count"
)

// CallLimit returns a pointer to n, for the optional limits of
// ModelCallLimitOptions and ToolCallLimitOptions.
func CallLimit(n int) *int { return &n }

// ModelCallLimitOptions configures ModelCallLimit. The zero value has no
// limit and is invalid: set ThreadLimit, RunLimit or both.
type ModelCallLimitOptions struct {
	// ThreadLimit is the most model calls a thread may make over all its
	// runs (needs a checkpointer to span runs); nil means no limit.
	ThreadLimit *int `json:"thread_limit,omitempty"`
	// RunLimit is the most model calls one run may make; nil means no
	// limit.
	RunLimit *int `json:"run_limit,omitempty"`
	// ExitBehavior is ExitBehaviorEnd (the default, "") or
	// ExitBehaviorError.
	ExitBehavior string `json:"exit_behavior,omitempty"`
}

// Validate reports what is wrong with the options, naming the option.
func (o ModelCallLimitOptions) Validate() error {
	var errs []error
	if o.ThreadLimit == nil && o.RunLimit == nil {
		errs = append(errs, errors.New("thread_limit, run_limit: at least one limit must be specified"))
	}
	if o.ThreadLimit != nil && *o.ThreadLimit < 0 {
		errs = append(errs, fmt.Errorf("thread_limit: %d: expected a limit >= 0", *o.ThreadLimit))
	}
	if o.RunLimit != nil && *o.RunLimit < 0 {
		errs = append(errs, fmt.Errorf("run_limit: %d: expected a limit >= 0", *o.RunLimit))
	}
	switch o.ExitBehavior {
	case "", ExitBehaviorEnd, ExitBehaviorError:
	default:
		errs = append(errs, fmt.Errorf("exit_behavior: %q: expected %q or %q", o.ExitBehavior, ExitBehaviorEnd, ExitBehaviorError))
	}
	return errors.Join(errs...)
}

// ModelCallLimit mirrors langchain's ModelCallLimitMiddleware
// (langchain/agents/middleware/model_call_limit.py): it counts the agent's
// model calls, per thread and per run, and stops the agent before a call
// that would go over a limit.
//
// Options (ModelCallLimitOptions): thread_limit, run_limit, exit_behavior
// ("end" or "error").
//
// Its after_model hook adds one to thread_model_call_count (kept in the
// thread's checkpoints) and run_model_call_count (untracked: every run
// starts at zero). Its before_model hook checks the counts against the
// limits (count >= limit): with "end" it jumps to the end, adding the AI
// message "Model call limits exceeded: run limit (2/2)"; with "error" it
// fails with a *ModelCallLimitExceededError carrying the same text.
type ModelCallLimit struct {
	opts ModelCallLimitOptions
}

// NewModelCallLimit returns a ModelCallLimit, or the options' errors.
func NewModelCallLimit(opts ModelCallLimitOptions) (*ModelCallLimit, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("ModelCallLimitMiddleware: %w", err)
	}
	if opts.ExitBehavior == "" {
		opts.ExitBehavior = ExitBehaviorEnd
	}
	return &ModelCallLimit{opts: opts}, nil
}

// Name is the middleware's node prefix.
func (m *ModelCallLimit) Name() string { return "ModelCallLimitMiddleware" }

// Options returns the options the middleware was built with, defaults
// filled in.
func (m *ModelCallLimit) Options() ModelCallLimitOptions { return m.opts }

// StateFields adds the two counters. langchain marks them private
// (PrivateStateAttr: left out of the input and output schemas), yet
// LangGraph streams every channel, so they show in the values and updates
// streams and the state; here they are kept out of the input only, since
// engine.Field's Private also hides a key from the streams.
func (m *ModelCallLimit) StateFields() []engine.Field {
	return []engine.Field{
		{Name: ThreadModelCallCountKey, OmitFromInput: true},
		{Name: RunModelCallCountKey, OmitFromInput: true, Untracked: true},
	}
}

// CanJumpTo lets before_model end the run.
func (m *ModelCallLimit) CanJumpTo(hook string) []string {
	if hook == "before_model" {
		return []string{"end"}
	}
	return nil
}

// BeforeModel stops the run when a limit has been reached.
func (m *ModelCallLimit) BeforeModel(_ context.Context, state engine.State) (any, error) {
	thread, err := limitCount(state[ThreadModelCallCountKey])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ThreadModelCallCountKey, err)
	}
	run, err := limitCount(state[RunModelCallCountKey])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", RunModelCallCountKey, err)
	}
	if !limitReached(thread, m.opts.ThreadLimit) && !limitReached(run, m.opts.RunLimit) {
		return nil, nil
	}
	e := &ModelCallLimitExceededError{ThreadCount: thread, RunCount: run, ThreadLimit: m.opts.ThreadLimit, RunLimit: m.opts.RunLimit}
	if m.opts.ExitBehavior == ExitBehaviorError {
		return nil, e
	}
	return engine.State{"jump_to": "end", "messages": []engine.Message{engine.AIMessage(e.Error())}}, nil
}

// AfterModel counts the call that just happened.
func (m *ModelCallLimit) AfterModel(_ context.Context, state engine.State) (any, error) {
	thread, err := limitCount(state[ThreadModelCallCountKey])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ThreadModelCallCountKey, err)
	}
	run, err := limitCount(state[RunModelCallCountKey])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", RunModelCallCountKey, err)
	}
	return engine.State{ThreadModelCallCountKey: thread + 1, RunModelCallCountKey: run + 1}, nil
}

// ModelCallLimitExceededError is langchain's ModelCallLimitExceededError:
// the run stopped because a model call limit was reached. It unwraps to an
// *engine.Error of that kind.
type ModelCallLimitExceededError struct {
	ThreadCount, RunCount int
	ThreadLimit, RunLimit *int
}

// Error is langchain's text: "Model call limits exceeded: thread limit
// (3/3), run limit (2/2)", naming each limit reached.
func (e *ModelCallLimitExceededError) Error() string {
	var parts []string
	if limitReached(e.ThreadCount, e.ThreadLimit) {
		parts = append(parts, fmt.Sprintf("thread limit (%d/%d)", e.ThreadCount, *e.ThreadLimit))
	}
	if limitReached(e.RunCount, e.RunLimit) {
		parts = append(parts, fmt.Sprintf("run limit (%d/%d)", e.RunCount, *e.RunLimit))
	}
	return "Model call limits exceeded: " + strings.Join(parts, ", ")
}

// Unwrap returns the error as the Python exception it stands for.
func (e *ModelCallLimitExceededError) Unwrap() error {
	return engine.NewError("ModelCallLimitExceededError", e.Error())
}

// limitReached is langchain's `limit is not None and count >= limit`.
func limitReached(count int, limit *int) bool { return limit != nil && count >= *limit }

// limitCount reads a counter from the state: absent is zero.
func limitCount(v any) (int, error) {
	switch n := v.(type) {
	case nil:
		return 0, nil
	case int:
		return n, nil
	case int64:
		return int(n), nil
	case float64:
		if n == math.Trunc(n) {
			return int(n), nil
		}
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return int(i), nil
		}
	}
	return 0, fmt.Errorf("expected an integer count, got %s", engine.PyRepr(v))
}
