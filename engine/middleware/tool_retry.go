package middleware

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agenteval/agenteval/engine"
)

// ToolRetryOptions configures ToolRetry. The zero value makes one attempt
// at every tool and answers a failure with an error tool message; start
// from DefaultToolRetryOptions for LangChain's defaults.
type ToolRetryOptions struct {
	// Backoff is how often and how long to retry.
	Backoff
	// Tools limits retrying to these tool names; nil retries every tool.
	Tools []string `json:"tools,omitempty"`
	// RetryOn says which errors are retried; the zero value retries all.
	RetryOn RetryOn `json:"retry_on"`
	// OnFailure is OnFailureContinue ("" too) or OnFailureError. The
	// deprecated "return_message" and "raise" mean the same.
	OnFailure string `json:"on_failure,omitempty"`
	// FailureMessage, when set, writes the error tool message's text from
	// the last error (a callable on_failure).
	FailureMessage func(err error) string `json:"-"`
}

// DefaultToolRetryOptions returns LangChain's defaults: DefaultBackoff,
// every tool, every error, on_failure "continue".
func DefaultToolRetryOptions() ToolRetryOptions {
	return ToolRetryOptions{Backoff: DefaultBackoff(), OnFailure: OnFailureContinue}
}

// Validate reports options ToolRetry cannot use.
func (o ToolRetryOptions) Validate() error {
	var errs []error
	if err := o.Backoff.Validate(); err != nil {
		errs = append(errs, err)
	}
	if _, err := newRetryFailure(o.OnFailure, o.FailureMessage); err != nil {
		errs = append(errs, err)
	}
	if slices.Contains(o.Tools, "") {
		errs = append(errs, errors.New("tools: a tool name is empty"))
	}
	if slices.Contains(o.RetryOn.Kinds, "") {
		errs = append(errs, errors.New("retry_on: an exception kind is empty"))
	}
	return errors.Join(errs...)
}

// ToolRetry mirrors langchain's ToolRetryMiddleware
// (agents/middleware/tool_retry.py, 1.1.3): it wraps every tool call and,
// when the tool fails, calls it again after a backoff.
//
// Options (ToolRetryOptions): max_retries, backoff_factor, initial_delay,
// max_delay and jitter (Backoff, with Seed for the jitter); tools (names
// it applies to); retry_on (exception kinds or a func); on_failure
// ("continue", "error", or a func as FailureMessage).
//
// An error that is not retried, and the last error once retries run out,
// go to on_failure: "continue" answers the call with an error tool
// message, "Tool 'name' failed after 3 attempts with ValueError: text.
// Please try again."; "error" returns the error, ending the run.
// Interrupts and the run's cancellation pass through untouched (langchain
// 1.1.3 would retry an interrupt).
type ToolRetry struct {
	opts         ToolRetryOptions
	retryFailure retryFailure
}

// NewToolRetry returns a ToolRetry, or the problems with opts.
func NewToolRetry(opts ToolRetryOptions) (*ToolRetry, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("ToolRetryMiddleware: %w", err)
	}
	f, _ := newRetryFailure(opts.OnFailure, opts.FailureMessage)
	opts.Tools = slices.Clone(opts.Tools)
	opts.RetryOn.Kinds = slices.Clone(opts.RetryOn.Kinds)
	return &ToolRetry{opts: opts, retryFailure: f}, nil
}

// Name is "ToolRetryMiddleware".
func (*ToolRetry) Name() string { return "ToolRetryMiddleware" }

// Options returns the middleware's options.
func (r *ToolRetry) Options() ToolRetryOptions { return r.opts }

// WrapToolCall runs the call, retrying failures (wrap_tool_call).
func (r *ToolRetry) WrapToolCall(ctx context.Context, req engine.ToolCallRequest, next engine.ToolCallExecutor) (any, error) {
	name := req.Call.Name
	if req.Tool != nil {
		name = req.Tool.Definition().Name
	}
	if r.opts.Tools != nil && !slices.Contains(r.opts.Tools, name) {
		return next(ctx, req)
	}
	res, attempts, err := retryLoop(ctx, r.opts.Backoff, r.opts.RetryOn, "tool:"+req.Call.ID, func() (any, error) {
		return next(ctx, req)
	})
	if err == nil || retryBubblesUp(ctx, err) || r.retryFailure.action == OnFailureError {
		return res, err
	}
	content := fmt.Sprintf("Tool '%s' failed after %d %s with %s: %s. Please try again.",
		name, attempts, attemptWord(attempts), engine.ErrorKind(err), ExceptionStr(err))
	if r.retryFailure.format != nil {
		content = r.retryFailure.format(err)
	}
	return engine.Message{Type: engine.TypeTool, Content: engine.Text(content), Name: name, ToolCallID: req.Call.ID, Status: engine.StatusError}, nil
}
