package bench

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
)

func TestIdealWall(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		reason string
		delays []time.Duration
		limit  int
		want   time.Duration
	}{
		{"no cap: the longest call", ms(10, 30, 20), 0, 30 * time.Millisecond},
		{"a cap at least N is no cap", ms(10, 30, 20), 3, 30 * time.Millisecond},
		{"cap 1: the calls one after another", ms(10, 30, 20), 1, 60 * time.Millisecond},
		{"cap 2, in call order: 10 then 20 on one slot, 30 on the other", ms(10, 30, 20), 2, 30 * time.Millisecond},
		{"cap 2, the long call last: it starts at 10", ms(10, 10, 30), 2, 40 * time.Millisecond},
		{"128 calls of 5 ms, cap 8: 16 rounds", slices.Repeat(ms(5), 128), 8, 80 * time.Millisecond},
		{"nothing to run", nil, 4, 0},
	}
	for _, tc := range tests {
		if got := IdealWall(tc.delays, tc.limit); got != tc.want {
			t.Errorf("IdealWall(%v, %d) = %v, want %v (%s)", tc.delays, tc.limit, got, tc.want, tc.reason)
		}
	}
}

func TestDelays(t *testing.T) {
	const l = 10 * time.Millisecond
	fixed, err := Delays("fixed", 3, l, 1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{l, l, l}, fixed); diff != "" {
		t.Errorf("fixed delays mismatch (-want +got):\n%s", diff)
	}
	for _, dist := range []string{"uniform", "lognormal"} {
		a, _ := Delays(dist, 100000, l, 7)
		b, _ := Delays(dist, 100000, l, 7)
		if !slices.Equal(a, b) {
			t.Errorf("%s delays differ between two draws with the same seed", dist)
		}
		var sum time.Duration
		for _, d := range a {
			sum += d
		}
		// the mean of 100,000 draws is within 2% of L for both
		if mean := sum / time.Duration(len(a)); math.Abs(float64(mean-l))/float64(l) > 0.02 {
			t.Errorf("%s delays: mean %v, want about %v", dist, mean, l)
		}
	}
	if _, err := Delays("pareto", 1, l, 1); err == nil {
		t.Errorf("Delays with an unknown distribution: no error")
	}
}

func TestHistory(t *testing.T) {
	for _, m := range []int{1, 2, 3, 4, 5, 6, 7, 10, 100} {
		h := History(m)
		if len(h) != m {
			t.Errorf("History(%d) has %d messages", m, len(h))
			continue
		}
		ids := map[string]bool{}
		answered := map[string]bool{}
		for _, msg := range h {
			if msg.ID == "" || ids[msg.ID] {
				t.Errorf("History(%d): message ID %q missing or repeated", m, msg.ID)
			}
			ids[msg.ID] = true
			if msg.Type == engine.TypeTool {
				answered[msg.ToolCallID] = true
			}
		}
		for _, msg := range h {
			for _, tc := range msg.ToolCalls {
				if !answered[tc.ID] {
					t.Errorf("History(%d): tool call %s has no result, so the agent would refuse the thread", m, tc.ID)
				}
			}
		}
		if last := h[len(h)-1].Type; m > 1 && last != engine.TypeAI {
			t.Errorf("History(%d) ends with a %s message, want an AI answer", m, last)
		}
	}
}

func TestCorpusReplays(t *testing.T) {
	a, b := Corpus(20, 3), Corpus(20, 3)
	for i := range a {
		if a[i].Name != b[i].Name || string(a[i].File) != string(b[i].File) {
			t.Fatalf("Corpus is not deterministic: scenario %d differs", i)
		}
	}
	if err := ReplayOp(a, 2)(context.Background()); err != nil {
		t.Fatalf("replaying the corpus: %v", err)
	}
}

// TestRunWorkloads runs every workload with the shortest settings and
// checks the report's shape: every metric of every case, positive and
// finite values, the values that do not depend on timing. It asserts no
// timing.
func TestRunWorkloads(t *testing.T) {
	wantMetrics := map[string][]string{
		"W1": {"ns_per_call", "allocs_per_call", "bytes_per_call", "calls_per_s"},
		"W2": {"wall_ms", "ideal_ms", "parallelism", "efficiency", "latency_p50_ms", "latency_p99_ms", "latency_max_ms", "uncorrected_p99_ms", "batches_per_s"},
		"W3": {"us_per_cycle", "allocs_per_cycle", "bytes_per_cycle"},
		"W4": {"us_per_step", "allocs_per_step", "alloc_bytes_per_step", "stored_bytes_per_step"},
		"W5": {"scenarios_per_s", "us_per_scenario", "allocs_per_scenario"},
	}
	for _, w := range Workloads {
		t.Run(w, func(t *testing.T) {
			t.Parallel()
			rep, err := Run(context.Background(), Options{
				Workloads: []string{w}, Count: 2, Quick: true,
				SampleTime: time.Millisecond, Warmup: time.Millisecond, LoadTime: 20 * time.Millisecond,
				TempDir: t.TempDir(), threadLengths: []int{10, 100, 1000}, scenarios: 20,
			})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, r := range rep.Results {
				seen[r.Metric] = true
				if len(r.Samples) != 2 {
					t.Errorf("%s: %d samples, want 2", r.Key(), len(r.Samples))
				}
				for _, s := range r.Samples {
					if !(s > 0) || math.IsInf(s, 0) {
						t.Errorf("%s: sample %v, want a positive finite value", r.Key(), s)
					}
				}
				if r.Metric == "ideal_ms" && r.Params.Str("dist") == "fixed" && r.Params.Str("cap") == "none" && r.Median != float64(r.Params.Int("l_ms")) {
					t.Errorf("%s: ideal %v ms, want L (every call waits L)", r.Key(), r.Median)
				}
				if r.Metric == "stored_bytes_per_step" && r.Params.Str("checkpointer") != "sqlite" {
					t.Errorf("%s: only the SQLite checkpointer counts stored bytes", r.Key())
				}
			}
			for _, m := range wantMetrics[w] {
				if !seen[m] {
					t.Errorf("%s: no %s results", w, m)
				}
			}
			if w == "W4" {
				if len(rep.Fits) == 0 {
					t.Errorf("W4: no growth fits")
				}
				for _, f := range rep.Fits {
					if len(f.Points) != 3 {
						t.Errorf("fit %s %s: %d points, want 3", f.Params, f.Metric, len(f.Points))
					}
				}
				charts, err := WriteCharts(rep, t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				if len(charts) != 2 {
					t.Errorf("W4 charts: %+v, want time and bytes", charts)
				}
			}
			if w == "W1" {
				dir := t.TempDir()
				if _, err := WriteCharts(rep, dir); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(dir, "w1_calls_per_s.svg"))
				if err != nil || !slices.Contains([]string{"<?xml", "<svg "}, string(b[:5])) {
					t.Errorf("w1_calls_per_s.svg is not an SVG document (%v): %.40q", err, b)
				}
			}
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	err := Options{Workloads: []string{"W1", "W9"}, Count: -1, SampleTime: -time.Second}.Validate()
	if err == nil {
		t.Fatal("Validate accepted an unknown workload, a negative count and a negative sample time")
	}
	for _, w := range []string{`unknown workload "W9"`, "count -1 is negative", "sample time -1s is negative"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Validate error lacks %q: %v", w, err)
		}
	}
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("the zero Options are invalid: %v", err)
	}
}
