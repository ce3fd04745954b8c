package eval

import (
	"bytes"
	"context"
	"github.com/agenteval/agenteval/report/evalreport"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/serve"
)

func prepare(t *testing.T, path string) *Plan {
	t.Helper()
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func jsonOf(t *testing.T, r *evalreport.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := evalreport.WriteJSON(&b, evalreport.StripTiming(r)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRunSameAtAnyParallelism: "the report is the same at any parallelism,
// timings aside".
func TestRunSameAtAnyParallelism(t *testing.T) {
	p := prepare(t, "testdata/basic.yaml")
	one := jsonOf(t, Run(context.Background(), p, Options{Parallel: 1}))
	eight := jsonOf(t, Run(context.Background(), p, Options{Parallel: 8}))
	if diff := cmp.Diff(one, eight); diff != "" {
		t.Errorf("Run(parallel 1) and Run(parallel 8) differ (-1 +8):\n%s", diff)
	}
	if !strings.Contains(one, `"id": "capital[Peru]"`) {
		t.Errorf("the inline dataset row is not a case:\n%.2000s", one)
	}
}

// TestStochasticModelFrequency: a stochastic variant passes a share of its
// trials close to p (binomial: 800 of 1000 ± 4 standard deviations).
func TestStochasticModelFrequency(t *testing.T) {
	p := prepare(t, "testdata/sim.yaml")
	p.File.Trials = 1000
	r := Run(context.Background(), p, Options{})
	for _, c := range r.Cells {
		want := map[string]float64{"half": 0.5, "eighty": 0.8, "eighty-again": 0.8}[c.Variant]
		sd := 4 * 1000 * sqrt(want*(1-want)/1000)
		if d := float64(c.Passed) - 1000*want; d > sd || d < -sd {
			t.Errorf("%s: %d of 1000 passed, want %.0f ± %.0f", c.Variant, c.Passed, 1000*want, sd)
		}
	}
}

func sqrt(x float64) float64 { return math.Sqrt(x) }

// TestMergedShardsEqualAnUnshardedRun: "report merge joins eval shards into
// one report whose statistics equal an unsharded run's".
func TestMergedShardsEqualAnUnshardedRun(t *testing.T) {
	p := prepare(t, "testdata/basic.yaml")
	whole := Run(context.Background(), p, Options{})
	var shards []*evalreport.Report
	for k := 1; k <= 3; k++ {
		s := Run(context.Background(), p, Options{Shard: harness.Shard{K: k, N: 3}})
		if len(s.Shards) != 1 {
			t.Fatalf("shard %d/3: Shards = %v", k, s.Shards)
		}
		// through JSON, as the CLI reads them
		var b bytes.Buffer
		if err := evalreport.WriteJSON(&b, s); err != nil {
			t.Fatal(err)
		}
		back, err := evalreport.ReadJSON(&b)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, back)
	}
	merged, err := Merge(shards[2], shards[0], shards[1])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(jsonOf(t, whole), jsonOf(t, merged)); diff != "" {
		t.Errorf("merged shards differ from the whole run (-whole +merged):\n%s", diff)
	}
	if _, err := Merge(shards[0], shards[0]); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("Merge(same shard twice) = %v, want an error", err)
	}
}

// providerEval writes an eval of the capital scenario under a provider
// variant answered by srv into a temp dir, with trials trials.
func providerEval(t *testing.T, url string, trials int) *Plan {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/scenarios/weather.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "weather.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	ev := "name: prov\ntrials: " + itoa(trials) + "\nvariants:\n  - name: local\n    model: openai-compatible:m1\n    base_url: " + url + "/v1\n"
	if err := os.WriteFile(filepath.Join(dir, "prov.yaml"), []byte(ev), 0o644); err != nil {
		t.Fatal(err)
	}
	return prepare(t, filepath.Join(dir, "prov.yaml"))
}

func itoa(n int) string { return strconv.Itoa(n) }

func weatherTurns(n int) []serve.Turn {
	var out []serve.Turn
	for range n {
		out = append(out,
			serve.Turn{ToolCalls: []serve.ToolCall{{ID: "call_1", Name: "get_weather", Args: `{"city": "Paris"}`}}, Usage: serve.Usage{Input: 500_000, Output: 0}},
			serve.Turn{Text: "It is sunny in Paris.", Usage: serve.Usage{Input: 500_000, Output: 0}})
	}
	return out
}

// prices make one trial of weatherTurns cost $1: a million input tokens
// at $1 per million.
var prices = llm.PriceTable{"m1": {Input: 1, Output: 1}}

// TestMaxCostStopsBeforeSpendingMore: "--max-cost stops a live/record run
// before spending more than asked", against a local fake provider.
func TestMaxCostStopsBeforeSpendingMore(t *testing.T) {
	srv := fakeOpenAI(t, weatherTurns(10)...)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	p := providerEval(t, ts.URL, 10)
	r := Run(context.Background(), p, Options{Mode: cassette.ModeLive, Prices: prices, MaxCostUSD: 3.5, Parallel: 4,
		LookupEnv: func(string) (string, bool) { return "sk-test", true }})
	b := r.Budget
	if b == nil || !b.Stopped || b.Run != 3 || b.SpentUSD != 3 || b.Unrun != 7 {
		t.Fatalf("Budget = %+v, want 3 trials run for $3 and 7 left", b)
	}
	if got := len(srv.Exchanges()); got != 6 {
		t.Errorf("the provider got %d requests, want 6 (3 trials of 2 calls)", got)
	}
	if !strings.Contains(b.Reason, "--max-cost $3.5") {
		t.Errorf("Reason = %q", b.Reason)
	}
	var out bytes.Buffer
	if err := evalreport.WriteText(&out, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "budget: stopped after 3 trials ($3.0000 spent)") {
		t.Errorf("the text report does not say the budget stopped the run:\n%s", out.String())
	}
}

// TestRecordThenReplayTrialCassettes: every trial records its own cassette
// episode, replay needs no server, replay-or-record records only what is
// missing, and a missing trial cassette is an error naming the trial.
func TestRecordThenReplayTrialCassettes(t *testing.T) {
	// one URL throughout (cassettes match on it), answered by a fake
	// provider that the test swaps
	var current atomic.Pointer[serve.Server]
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s := current.Load(); s != nil {
			s.ServeHTTP(w, r)
			return
		}
		http.Error(w, "offline", http.StatusServiceUnavailable)
	}))
	defer ts.Close()
	current.Store(fakeOpenAI(t, weatherTurns(3)...))
	p := providerEval(t, ts.URL, 3)
	env := func(string) (string, bool) { return "sk-test", true }
	rec := Run(context.Background(), p, Options{Mode: cassette.ModeRecord, Prices: prices, Parallel: 1, LookupEnv: env})
	current.Store(nil)
	if c := rec.Cells[0]; c.Passed != 3 {
		t.Fatalf("record: %d of 3 passed: %+v", c.Passed, c.Trials)
	}
	dir := filepath.Join(p.File.Dir(), "cassettes", "weather", "local")
	for _, k := range []string{"1", "2", "3"} {
		if _, err := os.Stat(filepath.Join(dir, "trial-"+k+".yaml")); err != nil {
			t.Errorf("trial %s has no cassette: %v", k, err)
		}
	}
	replay := Run(context.Background(), p, Options{Prices: prices, Parallel: 3})
	if diff := cmp.Diff(jsonOf(t, rec), jsonOf(t, replay)); diff != "" {
		t.Errorf("replay differs from the recording (-record +replay):\n%s", diff)
	}
	if err := os.Remove(filepath.Join(dir, "trial-2.yaml")); err != nil {
		t.Fatal(err)
	}
	miss := Run(context.Background(), p, Options{Prices: prices})
	c := miss.Cells[0]
	if c.Errored != 1 || c.Verdict != "error" || !miss.Failed() {
		t.Fatalf("a missing cassette: errored %d, verdict %s", c.Errored, c.Verdict)
	}
	if msg := c.Trials[1].Message; !strings.HasPrefix(msg, "weather × local trial 2: ") || !strings.Contains(msg, "trial-2.yaml") {
		t.Errorf("the error does not name the trial and its cassette: %q", msg)
	}
	// replay-or-record records trial 2 alone: the server has one trial's
	// answers
	srv := fakeOpenAI(t, weatherTurns(1)...)
	current.Store(srv)
	again := Run(context.Background(), p, Options{Mode: cassette.ModeReplayOrRecord, Prices: prices, LookupEnv: env})
	if got := len(srv.Exchanges()); got != 2 {
		t.Errorf("replay-or-record sent %d requests, want 2 (trial 2 only)", got)
	}
	// trial 2 was recorded again: another recording, whose bytes (and so
	// its hash, which tells copies apart) differ; the rest is the same
	if a, b := again.Cells[0].Trials[1].CassetteSHA256, rec.Cells[0].Trials[1].CassetteSHA256; a == "" || a == b {
		t.Errorf("re-recorded trial 2's cassette hash %q, the first recording's %q: want a new hash", a, b)
	}
	again.Cells[0].Trials[1].CassetteSHA256 = rec.Cells[0].Trials[1].CassetteSHA256
	if diff := cmp.Diff(jsonOf(t, rec), jsonOf(t, again)); diff != "" {
		t.Errorf("replay-or-record differs from the recording (-record +again):\n%s", diff)
	}
}

// TestMaxTrials stops after that many trials, trial 1 of every cell first.
func TestMaxTrials(t *testing.T) {
	p := prepare(t, "testdata/basic.yaml")
	r := Run(context.Background(), p, Options{MaxTrials: 12})
	if b := r.Budget; b == nil || !b.Stopped || b.Run != 12 || b.Unrun != 48 {
		t.Fatalf("Budget = %+v", r.Budget)
	}
	for _, c := range r.Cells {
		if c.N != 1 {
			t.Errorf("%s × %s ran %d trials, want 1 (trial 1 of every cell first)", c.ID, c.Variant, c.N)
		}
	}
}

// fakeOpenAI is a local provider answering the turns in order (serve's
// exact-wire source, the fake server the project's tests share).
func fakeOpenAI(t *testing.T, turns ...serve.Turn) *serve.Server {
	t.Helper()
	srv, err := serve.New(serve.Options{Source: serve.NewTurns(turns...)})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}
