package middleware

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agenteval/agenteval/engine"
)

// ModelRetryOptions configures ModelRetry. The zero value makes one
// attempt and answers a failure with an AI message; start from
// DefaultModelRetryOptions for LangChain's defaults.
type ModelRetryOptions struct {
	// Backoff is how often and how long to retry.
	Backoff
	// RetryOn says which errors are retried; the zero value retries all.
	RetryOn RetryOn `json:"retry_on"`
	// OnFailure is OnFailureContinue ("" too) or OnFailureError.
	OnFailure string `json:"on_failure,omitempty"`
	// FailureMessage, when set, writes the AI message's text from the last
	// error (a callable on_failure).
	FailureMessage func(err error) string `json:"-"`
}

// DefaultModelRetryOptions returns LangChain's defaults: DefaultBackoff,
// every error, on_failure "continue".
func DefaultModelRetryOptions() ModelRetryOptions {
	return ModelRetryOptions{Backoff: DefaultBackoff(), OnFailure: OnFailureContinue}
}

// Validate reports options ModelRetry cannot use.
func (o ModelRetryOptions) Validate() error {
	var errs []error
	if err := o.Backoff.Validate(); err != nil {
		errs = append(errs, err)
	}
	if _, err := newRetryFailure(o.OnFailure, o.FailureMessage); err != nil {
		errs = append(errs, err)
	}
	if slices.Contains(o.RetryOn.Kinds, "") {
		errs = append(errs, errors.New("retry_on: an exception kind is empty"))
	}
	return errors.Join(errs...)
}

// ModelRetry mirrors langchain's ModelRetryMiddleware
// (agents/middleware/model_retry.py, 1.1.3): it wraps every model call
// and, when the model fails, calls it again after a backoff.
//
// Options (ModelRetryOptions): max_retries, backoff_factor, initial_delay,
// max_delay and jitter (Backoff, with Seed for the jitter); retry_on
// (exception kinds or a func); on_failure ("continue", "error", or a func
// as FailureMessage).
//
// An error that is not retried, and the last error once retries run out,
// go to on_failure: "continue" answers with an AI message, "Model call
// failed after 3 attempts with ConnectionError: provider down", which
// ends the turn; "error" returns the error, ending the run. Interrupts and
// the run's cancellation pass through untouched.
type ModelRetry struct {
	opts         ModelRetryOptions
	retryFailure retryFailure
}

// NewModelRetry returns a ModelRetry, or the problems with opts.
func NewModelRetry(opts ModelRetryOptions) (*ModelRetry, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("ModelRetryMiddleware: %w", err)
	}
	f, _ := newRetryFailure(opts.OnFailure, opts.FailureMessage)
	opts.RetryOn.Kinds = slices.Clone(opts.RetryOn.Kinds)
	return &ModelRetry{opts: opts, retryFailure: f}, nil
}

// Name is "ModelRetryMiddleware".
func (*ModelRetry) Name() string { return "ModelRetryMiddleware" }

// Options returns the middleware's options.
func (r *ModelRetry) Options() ModelRetryOptions { return r.opts }

// WrapModelCall calls the model, retrying failures (wrap_model_call).
func (r *ModelRetry) WrapModelCall(ctx context.Context, req engine.AgentModelRequest, next engine.ModelCallHandler) (*engine.AgentModelResponse, error) {
	key := "model"
	if rt := engine.RuntimeFrom(ctx); rt != nil {
		key = fmt.Sprintf("model:%s:%d", rt.ThreadID, rt.Step)
	}
	res, attempts, err := retryLoop(ctx, r.opts.Backoff, r.opts.RetryOn, key, func() (*engine.AgentModelResponse, error) {
		return next(ctx, req)
	})
	if err == nil || retryBubblesUp(ctx, err) || r.retryFailure.action == OnFailureError {
		return res, err
	}
	content := fmt.Sprintf("Model call failed after %d %s with %s: %s",
		attempts, attemptWord(attempts), engine.ErrorKind(err), ExceptionStr(err))
	if r.retryFailure.format != nil {
		content = r.retryFailure.format(err)
	}
	return &engine.AgentModelResponse{Result: []engine.Message{{Type: engine.TypeAI, Content: engine.Text(content)}}}, nil
}
