package emulator

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/engine"
)

func TestLatencyValidate(t *testing.T) {
	tests := []struct {
		name, reason string
		l            Latency
		want         string // substring of the error; empty for none
	}{
		{"zero", "the zero value is no latency", Latency{}, ""},
		{"fixed", "a fixed latency needs only ms", Latency{Dist: "fixed", MS: 120}, ""},
		{"uniform", "min_ms <= max_ms", Latency{Dist: "uniform", MinMS: 10, MaxMS: 50}, ""},
		{"lognormal", "median and sigma, with a cap above the median", Latency{Dist: "lognormal", MedianMS: 80, Sigma: 0.5, MaxMS: 2000}, ""},
		{"unknown dist", "a misspelt distribution names the choices", Latency{Dist: "normal"}, `dist is "normal", expected "fixed", "uniform" or "lognormal"`},
		{"no dist", "fields without a distribution are a mistake", Latency{MS: 5}, "ms is set but dist is empty"},
		{"negative", "latencies are not negative", Latency{Dist: "fixed", MS: -1}, "ms is -1, expected a finite number >= 0"},
		{"nan", "NaN is not a latency", Latency{Dist: "uniform", MaxMS: math.NaN()}, "max_ms is NaN"},
		{"inverted uniform", "the bounds must be ordered", Latency{Dist: "uniform", MinMS: 50, MaxMS: 10}, "min_ms 50 is above max_ms 10"},
		{"zero median", "a lognormal median of 0 is always 0", Latency{Dist: "lognormal", Sigma: 1}, "median_ms is 0, expected a number > 0"},
		{"cap below median", "a cap below the median hides the distribution", Latency{Dist: "lognormal", MedianMS: 100, MaxMS: 50}, "max_ms 50 is below median_ms 100"},
		{"unused field", "a field of another distribution is named", Latency{Dist: "fixed", MS: 1, Sigma: 2}, `sigma is not used by dist "fixed"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.l.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate(%+v) = %v, want nil (%s)", tc.l, err, tc.reason)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate(%+v) = %v, want an error containing %q (%s)", tc.l, err, tc.want, tc.reason)
			}
		})
	}
}

func TestLatencyDraw(t *testing.T) {
	const n = 20000
	tests := []struct {
		name, reason string
		l            Latency
		check        func(t *testing.T, ds []time.Duration)
	}{{
		name:   "zero",
		reason: "the zero value never waits",
		l:      Latency{},
		check: func(t *testing.T, ds []time.Duration) {
			if slices.Max(ds) != 0 {
				t.Errorf("max = %v, want 0", slices.Max(ds))
			}
		},
	}, {
		name:   "fixed",
		reason: "a fixed latency is exact",
		l:      Latency{Dist: "fixed", MS: 12.5},
		check: func(t *testing.T, ds []time.Duration) {
			if lo, hi := slices.Min(ds), slices.Max(ds); lo != 12500*time.Microsecond || hi != lo {
				t.Errorf("range [%v, %v], want exactly 12.5ms", lo, hi)
			}
		},
	}, {
		name:   "uniform",
		reason: "uniform draws stay within [min, max] and spread over it",
		l:      Latency{Dist: "uniform", MinMS: 10, MaxMS: 30},
		check: func(t *testing.T, ds []time.Duration) {
			lo, hi := slices.Min(ds), slices.Max(ds)
			if lo < 10*time.Millisecond || hi > 30*time.Millisecond {
				t.Errorf("range [%v, %v], want within [10ms, 30ms]", lo, hi)
			}
			if lo > 11*time.Millisecond || hi < 29*time.Millisecond {
				t.Errorf("range [%v, %v], want it to cover nearly all of [10ms, 30ms]", lo, hi)
			}
		},
	}, {
		name:   "lognormal median",
		reason: "the sample median of a lognormal is near its median",
		l:      Latency{Dist: "lognormal", MedianMS: 100, Sigma: 0.8},
		check: func(t *testing.T, ds []time.Duration) {
			slices.Sort(ds)
			if med := ds[len(ds)/2]; med < 95*time.Millisecond || med > 105*time.Millisecond {
				t.Errorf("median = %v, want 100ms ± 5%%", med)
			}
			// exp(0.8·1.2816) = 2.79: the 90th percentile is near 279ms
			if p90 := ds[len(ds)*9/10]; p90 < 250*time.Millisecond || p90 > 310*time.Millisecond {
				t.Errorf("p90 = %v, want about 279ms", p90)
			}
		},
	}, {
		name:   "lognormal cap",
		reason: "max_ms caps the tail",
		l:      Latency{Dist: "lognormal", MedianMS: 100, Sigma: 2, MaxMS: 300},
		check: func(t *testing.T, ds []time.Duration) {
			if hi := slices.Max(ds); hi != 300*time.Millisecond {
				t.Errorf("max = %v, want the cap 300ms", hi)
			}
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := NewRand(1, tc.name)
			ds := make([]time.Duration, n)
			for i := range ds {
				ds[i] = tc.l.Draw(r)
			}
			tc.check(t, ds)
		})
	}
}

func TestNewRandStreams(t *testing.T) {
	t.Parallel()
	draw := func(seed uint64, stream string) []uint64 {
		r := NewRand(seed, stream)
		return []uint64{r.Uint64(), r.Uint64(), r.Uint64()}
	}
	if diff := cmp.Diff(draw(3, "search"), draw(3, "search")); diff != "" {
		t.Errorf("NewRand(3, search) mismatch between calls (-want +got):\n%s", diff)
	}
	if slices.Equal(draw(3, "search"), draw(3, "weather")) {
		t.Errorf("NewRand(3, search) and NewRand(3, weather) give the same stream")
	}
	if slices.Equal(draw(3, "search"), draw(4, "search")) {
		t.Errorf("NewRand(3, search) and NewRand(4, search) give the same stream")
	}
}

// fakeClock records sleeps instead of waiting.
type fakeClock struct {
	now   time.Time
	slept []time.Duration
}

// Now is the fake time.
func (c *fakeClock) Now() time.Time { return c.now }

// Sleep advances the fake time at once.
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
	return nil
}

func TestLatencySleep(t *testing.T) {
	t.Parallel()
	l := Latency{Dist: "uniform", MinMS: 5, MaxMS: 50}
	clock := &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := NewRand(9, "tool")
	inNode(t, clock, func(ctx context.Context) {
		for range 3 {
			if err := l.Sleep(ctx, r); err != nil {
				t.Errorf("Sleep: %v", err)
			}
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if err := l.Sleep(cancelled, r); !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep on a cancelled context = %v, want context.Canceled", err)
		}
	})
	want := make([]time.Duration, 3)
	r2 := NewRand(9, "tool")
	for i := range want {
		want[i] = l.Draw(r2)
	}
	if diff := cmp.Diff(want, clock.slept); diff != "" {
		t.Errorf("Sleep durations mismatch (-want +got):\n%s", diff)
	}

	if err := (Latency{}).Sleep(context.Background(), nil); err != nil {
		t.Errorf("zero Latency Sleep = %v, want nil without a clock", err)
	}
}

// inNode runs fn inside a one-node graph whose clock is clock, so that
// engine.RuntimeFrom(ctx) gives fn that clock.
func inNode(t *testing.T, clock engine.Clock, fn func(ctx context.Context)) {
	t.Helper()
	g, err := engine.NewStateGraph(engine.ValueField("x")).
		AddNode("tool", func(ctx context.Context, _ engine.State) (any, error) {
			fn(ctx)
			return nil, nil
		}).
		SetEntryPoint("tool").
		Compile(engine.CompileOptions{Clock: clock})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if _, err := g.Invoke(context.Background(), map[string]any{"x": 1}, engine.Config{}); err != nil {
		t.Fatalf("Invoke: %v", err)
	}
}
