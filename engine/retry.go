package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// RetryPolicy is LangGraph's RetryPolicy (langgraph/types.py): how a node
// whose task fails is run again. A task that fails is retried under the
// first of its policies whose RetryOn accepts the error, after waiting
//
//	min(MaxInterval, InitialInterval * BackoffFactor^(attempt-1))
//
// plus, with Jitter, a uniform random amount in [0, 1s), until
// MaxAttempts attempts (the first included) have failed; then the last
// error fails the run. Interrupts and cancellation are never retried.
// Waits go through the graph's Clock, and the jitter comes from a stream
// seeded by the task's ID and the attempt, so runs are reproducible.
//
// The zero value is not usable (MaxAttempts 0): start from
// DefaultRetryPolicy, which has LangGraph's defaults.
type RetryPolicy struct {
	// InitialInterval is the wait before the first retry (0.5s).
	InitialInterval time.Duration `json:"initial_interval"`
	// BackoffFactor multiplies the wait after every retry (2).
	BackoffFactor float64 `json:"backoff_factor"`
	// MaxInterval caps every wait, before jitter (128s).
	MaxInterval time.Duration `json:"max_interval"`
	// MaxAttempts is how many attempts are made in all, the first
	// included (3).
	MaxAttempts int `json:"max_attempts"`
	// Jitter adds a random wait of up to a second (true).
	Jitter bool `json:"jitter"`
	// RetryOn lists Python exception class names: an error is retried
	// when its kind (ErrorKind) is one of them or a subclass, as
	// isinstance(exc, tuple(retry_on)) decides. Empty means LangGraph's
	// default_retry_on unless RetryOnFunc is set.
	RetryOn []string `json:"retry_on,omitempty"`
	// RetryOnFunc, when set, decides instead of RetryOn (a callable
	// retry_on).
	RetryOnFunc func(err error) bool `json:"-"`
}

// DefaultRetryPolicy returns RetryPolicy() as LangGraph 1.0.1 defines it:
// 0.5s, factor 2, at most 128s, 3 attempts, jitter, default_retry_on.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{InitialInterval: 500 * time.Millisecond, BackoffFactor: 2, MaxInterval: 128 * time.Second, MaxAttempts: 3, Jitter: true}
}

// Validate reports settings LangGraph would fail on or loop forever with.
func (p RetryPolicy) Validate() error {
	var errs []error
	if p.MaxAttempts < 1 {
		errs = append(errs, fmt.Errorf("max_attempts must be >= 1, got %d", p.MaxAttempts))
	}
	if p.InitialInterval < 0 {
		errs = append(errs, errors.New("initial_interval must be >= 0"))
	}
	if p.MaxInterval < 0 {
		errs = append(errs, errors.New("max_interval must be >= 0"))
	}
	if p.BackoffFactor < 0 || math.IsNaN(p.BackoffFactor) {
		errs = append(errs, errors.New("backoff_factor must be >= 0"))
	}
	return errors.Join(errs...)
}

// retries is _should_retry_on in pregel/_retry.py.
func (p RetryPolicy) retries(err error) bool {
	switch {
	case p.RetryOnFunc != nil:
		return p.RetryOnFunc(err)
	case len(p.RetryOn) > 0:
		for _, k := range p.RetryOn {
			if isKind(err, k) {
				return true
			}
		}
		return false
	}
	return DefaultRetryOn(err)
}

// interval is the wait before retry attempt (1-based), without jitter.
func (p RetryPolicy) interval(attempt int) time.Duration {
	d := float64(p.InitialInterval) * math.Pow(p.BackoffFactor, float64(attempt-1))
	if m := float64(p.MaxInterval); d > m || math.IsInf(d, 1) || math.IsNaN(d) {
		d = m
	}
	return time.Duration(d)
}

// DefaultRetryOn is LangGraph's default_retry_on (langgraph/_internal/
// _retry.py): ConnectionError is retried; ValueError, TypeError,
// ArithmeticError, ImportError, LookupError, NameError, SyntaxError,
// RuntimeError, ReferenceError, StopIteration, StopAsyncIteration and
// OSError (with their subclasses) are not; any other exception is. The
// engine has no HTTP status errors of httpx or requests: a provider's
// error is retried as "any other exception".
func DefaultRetryOn(err error) bool {
	if isKind(err, "ConnectionError") {
		return true
	}
	for _, k := range []string{"ValueError", "TypeError", "ArithmeticError", "ImportError", "LookupError", "NameError", "SyntaxError", "RuntimeError", "ReferenceError", "StopIteration", "StopAsyncIteration", "OSError"} {
		if isKind(err, k) {
			return false
		}
	}
	return true
}

// WithRetryPolicy retries the node's failed tasks under these policies
// (add_node's retry_policy; the first policy whose RetryOn accepts an
// error applies). It replaces the graph's CompileOptions.RetryPolicy for
// this node.
func WithRetryPolicy(policies ...RetryPolicy) NodeOption {
	return func(n *nodeSpec) { n.retry = append([]RetryPolicy(nil), policies...) }
}

// noRetry reports errors no policy may retry: interrupts, a Command for
// the parent graph and cancellation (GraphBubbleUp, ParentCommand and
// BaseException in run_with_retry).
func noRetry(ctx context.Context, err error) bool {
	var ie *InterruptError
	var pc *parentCommand
	return errors.As(err, &ie) || errors.As(err, &pc) || ctx.Err() != nil || isKind(err, "CancelledError")
}

// runWithRetry runs a task's attempts under its policies
// (run_with_retry in pregel/_retry.py): each attempt starts with no
// writes, and a failure that a policy accepts waits on the graph's clock
// and tries again until that policy's attempts are spent.
func (r *run) runWithRetry(t *task, attempt func() error) error {
	policies := t.node.retry
	if policies == nil {
		policies = r.g.retry
	}
	for attempts := 0; ; {
		err := attempt()
		if err == nil || len(policies) == 0 || noRetry(r.ctx, err) {
			return err
		}
		var policy *RetryPolicy
		for i := range policies {
			if policies[i].retries(err) {
				policy = &policies[i]
				break
			}
		}
		if policy == nil {
			return err
		}
		attempts++
		if attempts >= policy.MaxAttempts {
			return err
		}
		wait := policy.interval(attempts)
		if policy.Jitter {
			wait += time.Duration(jitterFraction(t.taskID(), attempts) * float64(time.Second))
		}
		if serr := r.g.clock.Sleep(r.ctx, wait); serr != nil {
			return serr
		}
		t.resetWrites()
	}
}

// jitterFraction is random.uniform(0, 1) for a task's retry, drawn from
// SHA-256 of the task ID and the attempt: the same run waits the same.
func jitterFraction(taskID string, attempt int) float64 {
	sum := sha256.Sum256([]byte(taskID + "|retry|" + strconv.Itoa(attempt)))
	return float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
}

// resetWrites clears what a failed attempt wrote (task.writes.clear() in
// run_with_retry); message IDs start again from the same counter.
func (t *task) resetWrites() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.writes, t.raw = t.writes[:0], t.raw[:0]
	t.idCounter = 0
}
