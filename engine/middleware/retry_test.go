package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/google/go-cmp/cmp"
)

// retryClock is a fake engine.Clock: Sleep returns at once, advancing
// Now and recording the wait.
type retryClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func newRetryClock() *retryClock {
	return &retryClock{now: time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *retryClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *retryClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func (c *retryClock) sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

// TestBackoffDelay: calculate_delay without jitter
// (langchain agents/middleware/_retry.py).
func TestBackoffDelay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		b      middleware.Backoff
		want   []time.Duration // retries 0, 1, 2, ...
	}{
		{
			name:   "defaults",
			reason: "initial_delay * backoff_factor ** retry_number: 1s, 2s, 4s",
			b:      middleware.DefaultBackoff(),
			want:   []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			name:   "capped",
			reason: "max_delay caps the exponential growth",
			b:      middleware.Backoff{BackoffFactor: 2, InitialDelay: 15 * time.Second, MaxDelay: time.Minute},
			want:   []time.Duration{15 * time.Second, 30 * time.Second, time.Minute, time.Minute},
		},
		{
			name:   "constant",
			reason: "backoff_factor 0 keeps every wait at initial_delay",
			b:      middleware.Backoff{InitialDelay: 2 * time.Second, MaxDelay: time.Minute},
			want:   []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second},
		},
		{
			name:   "constant above the cap",
			reason: "the cap applies to a constant delay too",
			b:      middleware.Backoff{InitialDelay: 2 * time.Minute, MaxDelay: time.Minute},
			want:   []time.Duration{time.Minute},
		},
		{
			name:   "fractional factor",
			reason: "a factor below 1 shrinks the waits",
			b:      middleware.Backoff{BackoffFactor: 0.5, InitialDelay: 4 * time.Second, MaxDelay: time.Minute},
			want:   []time.Duration{4 * time.Second, 2 * time.Second, time.Second},
		},
		{
			name:   "zero value",
			reason: "the zero value never waits",
			b:      middleware.Backoff{},
			want:   []time.Duration{0, 0},
		},
		{
			name:   "huge exponent",
			reason: "factor ** n overflows to +Inf in float math and the cap still holds",
			b:      middleware.Backoff{BackoffFactor: 10, InitialDelay: time.Second, MaxDelay: time.Hour},
			want:   []time.Duration{time.Second, 10 * time.Second, 100 * time.Second, 1000 * time.Second, time.Hour},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := make([]time.Duration, len(tc.want))
			for i := range got {
				got[i] = tc.b.Delay(i)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Delay (%s) mismatch (-want +got):\n%s", tc.reason, d)
			}
		})
	}
	if got := (middleware.Backoff{BackoffFactor: 10, InitialDelay: time.Second, MaxDelay: time.Hour}).Delay(400); got != time.Hour {
		t.Errorf("Delay(400) = %v, want the 1h cap", got)
	}
}

// TestBackoffValidate: validate_retry_params's texts.
func TestBackoffValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		b      middleware.Backoff
		want   string
	}{
		{name: "defaults", reason: "langchain's defaults are valid", b: middleware.DefaultBackoff()},
		{name: "zero", reason: "the zero value is valid", b: middleware.Backoff{}},
		{name: "negative retries", reason: "max_retries must be >= 0", b: middleware.Backoff{MaxRetries: -1}, want: "max_retries must be >= 0"},
		{
			name: "all negative", reason: "every problem is reported at once",
			b:    middleware.Backoff{MaxRetries: -1, InitialDelay: -1, MaxDelay: -1, BackoffFactor: -1},
			want: "max_retries must be >= 0\ninitial_delay must be >= 0\nmax_delay must be >= 0\nbackoff_factor must be >= 0",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := ""
			if err := tc.b.Validate(); err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Validate (%s) mismatch (-want +got):\n%s", tc.reason, d)
			}
		})
	}
}

// TestIsKind: retry_on matches like isinstance.
func TestIsKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		err    error
		kind   string
		want   bool
	}{
		{"same kind", "a class is an instance of itself", engine.NewError("ValueError", "x"), "ValueError", true},
		{"parent", "ConnectionError derives from OSError", engine.NewError("ConnectionError", "x"), "OSError", true},
		{"grandparent", "ConnectionResetError -> ConnectionError -> OSError", engine.NewError("ConnectionResetError", "x"), "OSError", true},
		{"lookup", "KeyError derives from LookupError", engine.NewError("KeyError", "x"), "LookupError", true},
		{"exception", "every ordinary error is an Exception", engine.NewError("TimeoutError", "x"), "Exception", true},
		{"sibling", "TimeoutError is not a ConnectionError", engine.NewError("TimeoutError", "x"), "ConnectionError", false},
		{"child", "an OSError is not a ConnectionError", engine.NewError("OSError", "x"), "ConnectionError", false},
		{"unknown kind", "a class the table does not know derives from Exception", engine.NewError("RateLimitError", "x"), "Exception", true},
		{"unknown parent", "an unknown class is not a ValueError", engine.NewError("RateLimitError", "x"), "ValueError", false},
		{"go error", "a plain Go error is an Exception", errors.New("x"), "Exception", true},
		{"wrapped", "the kind is found through wrapping", fmt.Errorf("tool: %w", engine.NewError("ValueError", "x")), "ValueError", true},
		{"cancelled", "cancellation is a BaseException, not an Exception", context.Canceled, "Exception", false},
		{"base", "cancellation is a BaseException", context.Canceled, "BaseException", true},
		{"nil", "no error is no kind", nil, "Exception", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := middleware.IsKind(tc.err, tc.kind); got != tc.want {
				t.Errorf("IsKind(%v, %q) = %v, want %v (%s)", tc.err, tc.kind, got, tc.want, tc.reason)
			}
		})
	}
}

// TestExceptionStr: str(exc) as the failure messages print it.
func TestExceptionStr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		err    error
		want   string
	}{
		{"message", "str() of most exceptions is the message", engine.NewError("ValueError", "bad: x"), "bad: x"},
		{"key error", "str(KeyError('k')) is the key's repr", engine.NewError("KeyError", "k"), "'k'"},
		{"key error quote", "the repr picks double quotes around a single quote", engine.NewError("KeyError", "it's"), `"it's"`},
		{"wrapped", "engine context around the error is not part of it", fmt.Errorf("step 3: %w", engine.NewError("TypeError", "t")), "t"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := middleware.ExceptionStr(tc.err); got != tc.want {
				t.Errorf("ExceptionStr = %q, want %q (%s)", got, tc.want, tc.reason)
			}
		})
	}
}
