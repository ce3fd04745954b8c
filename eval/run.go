package eval

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"github.com/agenteval/agenteval/report/evalreport"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/grade"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
)

// Options configures Run. The zero value replays every trial from the eval
// file's cassette folder, as many at once as there are CPUs, with no budget.
type Options struct {
	// CassetteDir overrides the eval file's cassette folder.
	CassetteDir string
	// Mode is the cassette mode of provider variants; replay by default.
	// replay-or-record records only the trials whose cassette is missing.
	Mode cassette.Mode
	// Overwrite lets record mode replace existing trial cassettes.
	Overwrite bool
	// Transport carries requests to real servers when recording or live.
	Transport http.RoundTripper
	// LookupEnv reads API keys for recording and live runs; nil means the
	// process environment.
	LookupEnv func(string) (string, bool)
	// Tools are the Go tools scenarios refer to with "go: true".
	Tools map[string]engine.Tool
	// Graders are the Go graders scenarios name with "go: <name>" in
	// expect.graders (see harness.Options.Graders).
	Graders map[string]grade.Func
	// Prices price tokens; nil means llm.DefaultPrices.
	Prices llm.PriceTable
	// Parallel is how many trials run at once; 0 means GOMAXPROCS.
	Parallel int
	// Shard runs only one part of the trials, split by a hash of each
	// trial's key (scenario, case, variant, index).
	Shard harness.Shard
	// MaxCostUSD, when positive, stops launching trials once the next one
	// could take the cost past it (see the package doc, Budget).
	MaxCostUSD float64
	// MaxTrials, when positive, runs at most that many trials.
	MaxTrials int
	// FailUnder, when positive, fails the run when a variant's macro pass
	// rate is below it.
	FailUnder float64
	// Progress, when set, is told of each finished trial.
	Progress func(done, total int)
	// Now reads the clock for timings; nil means time.Now.
	Now func() time.Time
}

// trialJob is one trial to run.
type trialJob struct {
	cell  *planCell
	index int // 1-based
}

// key is the trial's identity, hashed for shards and stochastic draws.
func (j trialJob) key() string {
	return j.cell.id + "\x00" + j.cell.variant.Name + "\x00" + strconv.Itoa(j.index)
}

// jobs lists the trials in launch order: trial 1 of every cell, then trial
// 2, ..., so that a budget that runs out leaves the cells balanced.
func (p *Plan) jobs(shard harness.Shard) []trialJob {
	n := p.File.TrialsPerCell()
	var out []trialJob
	for k := 1; k <= n; k++ {
		for _, c := range p.cells {
			j := trialJob{cell: c, index: k}
			if shard.Has(j.key()) {
				out = append(out, j)
			}
		}
	}
	return out
}

// Run runs every trial of the plan (those of opts.Shard, within the
// budget) and returns the report with its statistics. Everything in it but
// the timing fields is the same at any opts.Parallel. ctx cancels the run:
// no trial is launched after it is done.
func Run(ctx context.Context, p *Plan, opts Options) *evalreport.Report {
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.GOMAXPROCS(0)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Prices == nil {
		opts.Prices = llm.DefaultPrices
	}
	f := p.File
	hopts := harness.Options{
		CassetteDir: opts.CassetteDir, Mode: opts.Mode, Overwrite: opts.Overwrite, Transport: opts.Transport,
		LookupEnv: opts.LookupEnv, Tools: opts.Tools, Graders: opts.Graders, Prices: opts.Prices, Parallel: 1, Now: opts.Now,
		CassetteLimits: f.Limits.Cassette(),
	}
	if hopts.CassetteDir == "" {
		hopts.CassetteDir = filepathJoin(f.Dir(), cmpOr(f.Cassettes, "cassettes"))
	}
	// once, not per trial: it also collects the secrets results are
	// scrubbed of
	hopts = hopts.WithDefaults()
	jobs := p.jobs(opts.Shard)
	start := opts.Now()
	results := make([]*evalreport.Trial, len(jobs))
	b := &budget{maxCost: opts.MaxCostUSD, maxTrials: opts.MaxTrials}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	sem := make(chan struct{}, opts.Parallel)
	launched := 0
	for i, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		if !b.reserve() {
			<-sem
			break
		}
		launched++
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t := runTrial(ctx, j, hopts)
			results[i] = &t
			b.settle(t.Usage.CostUSD)
			if opts.Progress != nil {
				mu.Lock()
				done++
				opts.Progress(done, len(jobs))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	r := &evalreport.Report{Schema: evalreport.Schema, Eval: f.EvalName(), File: filepathToSlash(f.Path), TrialsPerCell: f.TrialsPerCell(), Seed: f.Seed, Control: f.ControlName(), FailUnder: opts.FailUnder}
	for i := range f.Variants {
		v := &f.Variants[i]
		r.Variants = append(r.Variants, evalreport.VariantInfo{Name: v.Name, Description: v.Description, Overrides: v.overrides(), Model: v.Model, Warning: p.warnings[i]})
	}
	if sh := opts.Shard.String(); sh != "" {
		r.Shards = []string{sh}
	}
	cellOf := map[*planCell]int{}
	for _, c := range p.cells {
		cellOf[c] = len(r.Cells)
		r.Cells = append(r.Cells, evalreport.Cell{Scenario: c.scenario, Case: c.caseName, ID: c.id, Variant: c.variant.Name, Thresholds: c.thresholds})
	}
	spent, ran := 0.0, 0
	costs := []float64{}
	for i, t := range results {
		if t == nil {
			continue
		}
		ran++
		costs = append(costs, t.Usage.CostUSD)
		k := cellOf[jobs[i].cell]
		r.Cells[k].Trials = append(r.Cells[k].Trials, *t)
	}
	spent = sumSorted(costs)
	if opts.MaxCostUSD > 0 || opts.MaxTrials > 0 {
		r.Budget = &evalreport.Budget{MaxCostUSD: opts.MaxCostUSD, MaxTrials: opts.MaxTrials, SpentUSD: spent, Run: ran}
		if launched < len(jobs) {
			r.Budget.Stopped, r.Budget.Unrun, r.Budget.Reason = true, len(jobs)-launched, b.reason
		}
	}
	if ctx.Err() != nil && launched < len(jobs) && r.Budget == nil {
		r.Budget = &evalreport.Budget{SpentUSD: spent, Run: ran, Stopped: true, Unrun: len(jobs) - launched, Reason: "cancelled"}
	}
	Recompute(r)
	wall := opts.Now().Sub(start)
	r.Timing = &evalreport.RunTiming{WallMS: ms(wall), Parallel: opts.Parallel}
	if wall > 0 {
		r.Timing.TrialsPerSecond = float64(ran) / wall.Seconds()
	}
	return r
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// sumSorted sums smallest first, so the total does not depend on the order
// trials finished in.
func sumSorted(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}

// budget decides whether one more trial may start. With a cost budget it
// reserves, for every trial running, the largest cost a trial has had so
// far; before any trial has finished it lets one run at a time.
type budget struct {
	maxCost   float64
	maxTrials int

	mu       sync.Mutex
	cond     *sync.Cond
	started  int
	running  int
	spent    float64
	maxSeen  float64
	finished int
	reason   string
}

func (b *budget) reserve() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cond == nil {
		b.cond = sync.NewCond(&b.mu)
	}
	if b.maxTrials > 0 && b.started >= b.maxTrials {
		b.reason = fmt.Sprintf("--max-trials %d reached", b.maxTrials)
		return false
	}
	if b.maxCost > 0 {
		// wait until the first trial tells what a trial costs
		for b.finished == 0 && b.running > 0 {
			b.cond.Wait()
		}
		if b.spent+float64(b.running+1)*b.maxSeen > b.maxCost || (b.finished > 0 && b.spent >= b.maxCost) {
			b.reason = fmt.Sprintf("--max-cost %s: spent %s, and a trial has cost up to %s", usd(b.maxCost), usd(b.spent), usd(b.maxSeen))
			return false
		}
	}
	b.started++
	b.running++
	return true
}

func (b *budget) settle(cost float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.running--
	b.finished++
	b.spent += cost
	b.maxSeen = math.Max(b.maxSeen, cost)
	if b.cond != nil {
		b.cond.Broadcast()
	}
}

func usd(x float64) string { return "$" + strconv.FormatFloat(x, 'f', -1, 64) }

// runTrial runs one trial: a fresh agent, threads and scripted positions,
// its own cassette for provider models.
func runTrial(ctx context.Context, j trialJob, hopts harness.Options) evalreport.Trial {
	c := j.cell
	s := c.s
	if st := c.variant.Stochastic; st != nil && !stochasticRight(st, j.key()) {
		cp := *s
		wrong := cmpOr(st.Wrong, "I don't know.")
		cp.Script = engine.NewObject("responses", []any{engine.NewObject("content", wrong)})
		s = &cp
	}
	if c.cassetteBase != "" {
		cp := *s
		cp.Rel = c.cassetteBase + "/trial-" + strconv.Itoa(j.index)
		s = &cp
	}
	if params, ok := paramsOf(c.variant); ok {
		hopts.WrapModel = func(m engine.ChatModel) engine.ChatModel { return paramModel{inner: m, params: params} }
	}
	hopts.Variant = c.variant.Name
	res := harness.RunScenario(ctx, s, hopts)
	t := evalreport.Trial{Index: j.index, Status: res.Status, Final: res.Final, Usage: res.Usage, Cassette: res.Cassette}
	if res.Cassette != "" {
		// the trial just replayed or recorded it: hashing it tells
		// copies apart (Cell.EffectiveN); one it cannot read has no hash
		if data, err := os.ReadFile(res.Cassette); err == nil {
			t.CassetteSHA256 = fmt.Sprintf("%x", sha256.Sum256(data))
		}
	}
	if res.Timing != nil {
		t.Timing = &evalreport.TrialTiming{WallMS: res.Timing.WallMS}
	}
	switch res.Status {
	case report.StatusPass, report.StatusFail:
		t.Message = res.Message
		t.Scores = trialScores(res.Expectations)
	default:
		t.Status = report.StatusError
		t.Message = fmt.Sprintf("%s × %s trial %d: %s", c.id, c.variant.Name, j.index, res.Message)
	}
	return t
}

// trialScores are a trial's named scores: a grader's score as it gave
// it, 1 or 0 for an expectation or invariant that held or not.
func trialScores(es []report.Expectation) []evalreport.Score {
	out := make([]evalreport.Score, 0, len(es))
	for _, e := range es {
		s := evalreport.Score{Name: e.Name, Grader: e.Grader}
		switch {
		case e.Score != nil:
			s.Value = *e.Score
		case e.Passed:
			s.Value = 1
		}
		out = append(out, s)
	}
	return out
}

// stochasticRight draws whether a stochastic model answers right in the
// trial with this key: u < P, u uniform in [0, 1) from ChaCha8 seeded with
// SHA-256(seed, key). A PCG seeded with (seed, FNV(key)) was tried first:
// its first outputs for keys that differ in the trial number alone were
// visibly correlated (0.50 0.43 0.56 0.50 0.53 for trials 1-5).
func stochasticRight(st *Stochastic, key string) bool {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], st.Seed)
	seed := sha256.Sum256(append(b[:], key...))
	u := rand.New(rand.NewChaCha8(seed)).Float64()
	return u < st.P
}

func paramsOf(v *Variant) (*engine.Object, bool) {
	if v.Params == nil {
		return nil, false
	}
	o, ok := v.Params.V.(*engine.Object)
	return o, ok && o.Len() > 0
}

// paramModel sets a variant's model parameters on every request.
type paramModel struct {
	inner  engine.ChatModel
	params *engine.Object
}

// Generate implements engine.ChatModel.
func (m paramModel) Generate(ctx context.Context, req engine.ModelRequest) (engine.Message, error) {
	opts := engine.NewObject()
	if req.Options != nil {
		opts = req.Options.Clone()
	}
	for _, k := range m.params.Keys() {
		v, _ := m.params.Get(k)
		opts.Set(k, v)
	}
	req.Options = opts
	return m.inner.Generate(ctx, req)
}

// ModelName implements engine.ModelInfo when the inner model does.
func (m paramModel) ModelName() string {
	if mi, ok := m.inner.(engine.ModelInfo); ok {
		return mi.ModelName()
	}
	return ""
}

// StructuredOutputMethod implements engine.StructuredOutputModel when the
// inner model does ("" otherwise: a forced tool call).
func (m paramModel) StructuredOutputMethod() string {
	if so, ok := m.inner.(engine.StructuredOutputModel); ok {
		return so.StructuredOutputMethod()
	}
	return ""
}
