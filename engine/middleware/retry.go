package middleware

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"

	"github.com/agenteval/agenteval/engine"
)

// What a retry middleware does once its attempts are exhausted
// (langchain's OnFailure literals).
const (
	// OnFailureContinue answers with a message that describes the error,
	// so the agent goes on: the default.
	OnFailureContinue = "continue"
	// OnFailureError returns the last error, which ends the run.
	OnFailureError = "error"
)

// Backoff is the retry schedule that ToolRetry and ModelRetry share
// (langchain's agents/middleware/_retry.py): up to MaxRetries more
// attempts after the first, waiting before retry n (0-based)
//
//	min(InitialDelay * BackoffFactor^n, MaxDelay)
//
// (InitialDelay when BackoffFactor is 0), then ±25% of that at random
// when Jitter is set. Waits go through the run's engine.Clock, so a fake
// clock makes them instant.
//
// The zero value makes one attempt and never waits; DefaultBackoff is
// LangChain's default schedule.
type Backoff struct {
	// MaxRetries is how many times a failed call is tried again (>= 0).
	MaxRetries int `json:"max_retries"`
	// BackoffFactor multiplies the delay after every retry (>= 0); 0 keeps
	// every delay at InitialDelay.
	BackoffFactor float64 `json:"backoff_factor"`
	// InitialDelay is the wait before the first retry (>= 0).
	InitialDelay time.Duration `json:"initial_delay"`
	// MaxDelay caps every wait, before jitter (>= 0).
	MaxDelay time.Duration `json:"max_delay"`
	// Jitter moves each wait by up to ±25%, at random.
	Jitter bool `json:"jitter"`
	// Seed seeds the jitter. The random numbers of one call depend only on
	// Seed and the call (its tool call ID, or the model call's thread and
	// step), never on other calls running at the same time.
	Seed uint64 `json:"seed"`
}

// DefaultBackoff returns LangChain's default schedule: 2 retries, waits
// of 1s then 2s (factor 2, at most 60s), with jitter.
func DefaultBackoff() Backoff {
	return Backoff{MaxRetries: 2, BackoffFactor: 2, InitialDelay: time.Second, MaxDelay: time.Minute, Jitter: true}
}

// Validate reports negative settings, with LangChain's texts
// (validate_retry_params).
func (b Backoff) Validate() error {
	var errs []error
	if b.MaxRetries < 0 {
		errs = append(errs, errors.New("max_retries must be >= 0"))
	}
	if b.InitialDelay < 0 {
		errs = append(errs, errors.New("initial_delay must be >= 0"))
	}
	if b.MaxDelay < 0 {
		errs = append(errs, errors.New("max_delay must be >= 0"))
	}
	if b.BackoffFactor < 0 || math.IsNaN(b.BackoffFactor) {
		errs = append(errs, errors.New("backoff_factor must be >= 0"))
	}
	return errors.Join(errs...)
}

// Delay is the wait before retry n (0-based) without jitter
// (calculate_delay with jitter=False).
func (b Backoff) Delay(n int) time.Duration {
	d := b.InitialDelay.Seconds()
	if b.BackoffFactor != 0 {
		d *= math.Pow(b.BackoffFactor, float64(n))
	}
	return durationSeconds(math.Min(d, b.MaxDelay.Seconds()))
}

// backoffSchedule is the waits of one call: Delay plus the jitter drawn from the
// call's own random stream.
type backoffSchedule struct {
	b   Backoff
	rng *rand.Rand
}

// newBackoffSchedule starts the schedule of one call; key names the call.
func (b Backoff) newBackoffSchedule(key string) *backoffSchedule {
	s := &backoffSchedule{b: b}
	if b.Jitter {
		h := fnv.New64a()
		h.Write([]byte(key))
		s.rng = rand.New(rand.NewPCG(b.Seed, h.Sum64()))
	}
	return s
}

// delay is calculate_delay: jitter is uniform in ±25% of the capped delay
// and the result is never negative.
func (s *backoffSchedule) delay(n int) time.Duration {
	d := s.b.Delay(n).Seconds()
	if s.rng != nil && d > 0 {
		j := d * 0.25
		d += -j + 2*j*s.rng.Float64()
		d = math.Max(0, d)
	}
	return durationSeconds(d)
}

// durationSeconds converts seconds to a Duration, saturating at the largest.
func durationSeconds(s float64) time.Duration {
	if s >= math.MaxInt64/float64(time.Second) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(s * float64(time.Second))
}

// backoffSleep waits d on the run's clock (the system clock outside a run).
func backoffSleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if err := engine.ClockFrom(ctx).Sleep(ctx, d); err != nil {
		return fmt.Errorf("retry backoff of %s: %w", d, err)
	}
	return nil
}

// RetryOn decides which errors a retry middleware retries (langchain's
// retry_on). The zero value retries every error, like retry_on's default
// (Exception,).
type RetryOn struct {
	// Kinds lists Python exception class names; an error is retried when
	// its kind (engine.ErrorKind) is one of them or a subclass of one
	// ("OSError" covers ConnectionError and TimeoutError).
	Kinds []string `json:"kinds,omitempty"`
	// Func, when set, decides instead of Kinds (a callable retry_on).
	Func func(err error) bool `json:"-"`
}

// retries reports whether err should be retried.
func (r RetryOn) retries(err error) bool {
	if r.Func != nil {
		return r.Func(err)
	}
	if len(r.Kinds) == 0 {
		return true
	}
	for _, k := range r.Kinds {
		if IsKind(err, k) {
			return true
		}
	}
	return false
}

// pyExceptionParents is the part of Python's exception hierarchy that
// agent errors use. Kinds not listed derive from Exception.
var pyExceptionParents = map[string]string{
	"Exception":  "BaseException",
	"ValueError": "Exception", "TypeError": "Exception", "RuntimeError": "Exception",
	"LookupError": "Exception", "KeyError": "LookupError", "IndexError": "LookupError",
	"NotImplementedError": "RuntimeError", "RecursionError": "RuntimeError",
	"OSError": "Exception", "TimeoutError": "OSError", "ConnectionError": "OSError",
	"FileNotFoundError": "OSError", "PermissionError": "OSError",
	"ConnectionRefusedError": "ConnectionError", "ConnectionResetError": "ConnectionError",
	"ConnectionAbortedError": "ConnectionError", "BrokenPipeError": "ConnectionError",
	"ArithmeticError": "Exception", "ZeroDivisionError": "ArithmeticError", "OverflowError": "ArithmeticError",
	"AssertionError": "Exception", "AttributeError": "Exception",
	"UnicodeError": "ValueError", "UnicodeDecodeError": "UnicodeError", "UnicodeEncodeError": "UnicodeError",
	"JSONDecodeError": "ValueError", "ValidationError": "ValueError",
	"ToolException": "Exception", "PIIDetectionError": "Exception",
	"CancelledError": "BaseException", "KeyboardInterrupt": "BaseException",
	"SystemExit": "BaseException", "GeneratorExit": "BaseException",
}

// IsKind reports whether err is of the Python exception class kind or a
// subclass of it, as isinstance would: engine.ErrorKind names err's class
// and a small table of Python's hierarchy names its parents (an unknown
// class derives from Exception).
func IsKind(err error, kind string) bool {
	if err == nil {
		return false
	}
	for k := engine.ErrorKind(err); k != ""; {
		if k == kind {
			return true
		}
		if k == "BaseException" {
			return false
		}
		p, ok := pyExceptionParents[k]
		if !ok {
			p = "Exception"
		}
		k = p
	}
	return false
}

// retryBubblesUp reports errors a retry must pass on untouched: interrupts
// (LangGraph's GraphBubbleUp) and the run's cancellation, which Python
// raises as BaseException rather than Exception.
func retryBubblesUp(ctx context.Context, err error) bool {
	var ie *engine.InterruptError
	if errors.As(err, &ie) {
		return true
	}
	return ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// ExceptionStr returns str() of the Python exception err stands for: its
// message, except that KeyError shows its key's repr (KeyError('k') prints
// as 'k').
func ExceptionStr(err error) string {
	msg := engine.ErrorMessage(err)
	if IsKind(err, "KeyError") {
		return engine.PyStrRepr(msg)
	}
	return msg
}

// attemptWord is "attempt" or "attempts".
func attemptWord(n int) string {
	if n == 1 {
		return "attempt"
	}
	return "attempts"
}

// retryLoop runs call until it succeeds, fails with an error that is not
// retried, or runs out of retries, waiting between attempts. It returns
// the result, or the last error and how many attempts were made.
func retryLoop[T any](ctx context.Context, b Backoff, on RetryOn, key string, call func() (T, error)) (T, int, error) {
	sched := b.newBackoffSchedule(key)
	for attempt := 0; ; attempt++ {
		res, err := call()
		if err == nil {
			return res, attempt + 1, nil
		}
		if retryBubblesUp(ctx, err) || !on.retries(err) || attempt >= b.MaxRetries {
			return res, attempt + 1, err
		}
		if serr := backoffSleep(ctx, sched.delay(attempt)); serr != nil {
			return res, attempt + 1, serr
		}
	}
}

// retryFailure is the on_failure setting shared by the retry middleware.
type retryFailure struct {
	action string
	format func(err error) string
}

// newRetryFailure reads on_failure: "continue" (or ""), "error", and the
// deprecated "return_message" and "raise" that langchain still accepts.
func newRetryFailure(action string, format func(err error) string) (retryFailure, error) {
	switch action {
	case "", OnFailureContinue, "return_message":
		return retryFailure{action: OnFailureContinue, format: format}, nil
	case OnFailureError, "raise":
		if format != nil {
			return retryFailure{}, errors.New("on_failure: a failure message formatter cannot be combined with \"error\"")
		}
		return retryFailure{action: OnFailureError}, nil
	}
	return retryFailure{}, fmt.Errorf("on_failure: %q is not an action: expected \"continue\" or \"error\"", action)
}
