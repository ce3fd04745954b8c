package harness

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/grade"
	"github.com/agenteval/agenteval/report"
)

// Options configures a run of scenarios. The zero value replays every
// scenario from cassettes/ with golden files in golden/, as many at once
// as there are CPUs. Run, RunScenario and Resume check the options with
// Validate before they run anything.
type Options struct {
	// CassetteDir holds the cassettes: a scenario's is
	// <CassetteDir>/<scenario path>.yaml. Default "cassettes".
	CassetteDir string
	// GoldenDir holds the golden transcripts: a scenario's is
	// <GoldenDir>/<scenario path>.golden. Default "golden".
	GoldenDir string
	// Mode is the cassette mode: replay (the default) never opens a
	// network connection.
	Mode cassette.Mode
	// CassetteLimits bound the cassettes the run reads and the bodies a
	// recording decodes; the zero value is cassette's defaults. The
	// command line sets them with --limit cassette_file_bytes=N and
	// cassette_body_bytes=N (Limits.Cassette).
	CassetteLimits cassette.Limits
	// Overwrite lets record mode replace existing cassettes; without it
	// a scenario whose cassette exists fails instead of losing it.
	Overwrite bool
	// Transport carries requests to real servers when recording or live.
	Transport http.RoundTripper
	// LookupEnv reads API keys for recording and live runs; nil means the
	// process environment.
	LookupEnv func(string) (string, bool)
	// Parallel is how many scenarios run at once; 0 means GOMAXPROCS.
	Parallel int
	// Update rewrites golden files that differ instead of failing.
	Update bool
	// Tools are the real Go tools scenarios refer to with "go: true", by
	// name.
	Tools map[string]engine.Tool
	// Agents are the Go agents scenarios run with agent: {kind: go,
	// name: NAME}, by name.
	Agents map[string]GoAgent
	// Graders are the Go graders scenarios name with "go: <name>" in
	// expect.graders.
	Graders map[string]grade.Func
	// Prices price tokens for max_cost and reports; nil means
	// llm.DefaultPrices.
	Prices llm.PriceTable
	// StateDir, when set, keeps each scenario's threads in a SQLite
	// database, <StateDir>/<scenario path>.db, started afresh by every run,
	// so that they outlive it: Resume (agenteval resume) continues an
	// interrupted thread from there, in another process.
	StateDir string
	// NewThread lets Resume start a thread the state does not hold yet;
	// without it resuming an unknown thread is an error.
	NewThread bool
	// Shard runs only one part of the scenarios.
	Shard Shard
	// Progress, when set, is told of each finished scenario.
	Progress func(done, total int, name string)
	// Now reads the clock for timings; nil means time.Now.
	Now func() time.Time
	// Timeout is how long a scenario may run when its file sets no
	// timeout; 0 is no limit. Past it the scenario's run is canceled and
	// it is an error naming the turn that was cut.
	Timeout time.Duration
	// ToolGrace is how long a Go tool whose context is done (its
	// timeout, the scenario's, an interrupt) is waited for before it is
	// abandoned with an error; 0 means DefaultToolGrace.
	ToolGrace time.Duration
	// After starts the timers of Timeout, tool timeouts and ToolGrace;
	// nil means the wall clock. Tests inject their own to fire a timeout
	// without waiting for it.
	After AfterFunc
	// WrapModel, when set, wraps the agent's model (scripted or provider)
	// before it is metered: package eval sets a variant's model
	// parameters on every request with it.
	WrapModel func(engine.ChatModel) engine.ChatModel
	// Variant names the eval variant the run is a trial of (package eval
	// sets it); "" outside an eval. A command agent gets it as
	// AGENTEVAL_VARIANT.
	Variant string

	// redact keeps credentials out of the results (see redactor); set by
	// WithDefaults.
	redact *redactor
}

// Shard selects scenario K of every N (1-based K), by a hash of the
// scenario's name, so a suite splits the same way on every machine. The
// zero value selects everything.
type Shard struct{ K, N int }

// String is "k/n", or "" for the zero Shard.
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// Has says whether the shard includes the named scenario.
func (s Shard) Has(name string) bool {
	if s.N <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32()%uint32(s.N)) == s.K-1
}

// Validate reports what is wrong with the options, naming each field
// that is: a Mode that is not one of cassette's four, a negative
// Parallel, a Shard that is not K of N with 1 <= K <= N (or the zero
// Shard), a nil tool in Tools, an agent in Agents that sets neither or
// both of Graph and Turn. The zero Options is valid.
func (o Options) Validate() error {
	var errs []error
	if o.Mode < cassette.ModeReplay || o.Mode > cassette.ModeLive {
		errs = append(errs, fmt.Errorf("Mode: %v: expected replay, record, replay-or-record or live", o.Mode))
	}
	if o.Timeout < 0 {
		errs = append(errs, fmt.Errorf("Timeout: %v: expected 0 (none) or more", o.Timeout))
	}
	if o.ToolGrace < 0 {
		errs = append(errs, fmt.Errorf("ToolGrace: %v: expected 0 (DefaultToolGrace) or more", o.ToolGrace))
	}
	if o.Parallel < 0 {
		errs = append(errs, fmt.Errorf("Parallel: %d: expected 0 (GOMAXPROCS) or more", o.Parallel))
	}
	if sh := o.Shard; sh != (Shard{}) && (sh.N < 1 || sh.K < 1 || sh.K > sh.N) {
		errs = append(errs, fmt.Errorf("Shard: %d/%d: expected K/N with 1 <= K <= N", sh.K, sh.N))
	}
	for _, name := range slices.Sorted(maps.Keys(o.Tools)) {
		if o.Tools[name] == nil {
			errs = append(errs, fmt.Errorf("Tools[%q]: nil tool", name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(o.Agents)) {
		if err := o.Agents[name].validate(); err != nil {
			errs = append(errs, fmt.Errorf("Agents[%q]: %w", name, err))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(o.Graders)) {
		if o.Graders[name] == nil {
			errs = append(errs, fmt.Errorf("Graders[%q]: nil grader", name))
		}
	}
	return errors.Join(errs...)
}

// invalidOptions is the result of a scenario that did not run because
// the options are invalid.
func invalidOptions(s *Scenario, err error) report.Scenario {
	return report.Scenario{Name: s.Name, File: s.File, Description: s.Description, Tags: s.Tags, Agent: describeAgent(s),
		Status: report.StatusError, Message: fmt.Sprintf("invalid options: %v", err)}
}

// WithDefaults returns o with each zero field that has a default set to
// it: CassetteDir "cassettes", GoldenDir "golden", Parallel GOMAXPROCS,
// Prices llm.DefaultPrices, Now time.Now, ToolGrace DefaultToolGrace and
// After the wall clock's timers. It also collects the secrets the run's
// results are scrubbed of: the API keys LookupEnv gives and the values of
// the process's credential variables (GITHUB_TOKEN, ...).
func (o Options) WithDefaults() Options {
	if o.ToolGrace == 0 {
		o.ToolGrace = DefaultToolGrace
	}
	if o.After == nil {
		o.After = wallAfter
	}
	if o.CassetteDir == "" {
		o.CassetteDir = "cassettes"
	}
	if o.GoldenDir == "" {
		o.GoldenDir = "golden"
	}
	if o.Parallel <= 0 {
		o.Parallel = runtime.GOMAXPROCS(0)
	}
	if o.Prices == nil {
		o.Prices = llm.DefaultPrices
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.redact == nil {
		o.redact = newRedactor(o.LookupEnv, os.Environ())
	}
	return o
}

// Run runs the scenarios (those in opts.Shard) with up to opts.Parallel at
// once and returns the report, its scenarios sorted by name. Everything in
// it but the timing fields is the same at any parallelism.
//
// With options that fail Validate nothing runs: every scenario, whatever
// the shard, is reported as an error that names the problem.
func Run(ctx context.Context, scenarios []*Scenario, opts Options) *report.Report {
	invalid := opts.Validate()
	opts = opts.WithDefaults()
	var todo []*Scenario
	for _, s := range scenarios {
		if invalid != nil || opts.Shard.Has(s.Name) {
			todo = append(todo, s)
		}
	}
	start := opts.Now()
	results := make([]report.Scenario, len(todo))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	sem := make(chan struct{}, opts.Parallel)
	for i, s := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if invalid != nil {
				results[i] = invalidOptions(s, invalid)
			} else {
				results[i] = RunScenario(ctx, s, opts)
			}
			if opts.Progress != nil {
				mu.Lock()
				done++
				opts.Progress(done, len(todo), s.Name)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.SliceStable(results, func(i, j int) bool { return results[i].Name < results[j].Name })
	rep := &report.Report{Schema: report.Schema, Scenarios: results}
	if sh := opts.Shard.String(); sh != "" {
		rep.Shards = []string{sh}
	}
	rep.Recount()
	wall := opts.Now().Sub(start)
	rep.Timing = &report.RunTiming{Started: start.UTC().Format(time.RFC3339), WallMS: ms(wall), Parallel: opts.Parallel}
	if wall > 0 {
		rep.Timing.PerSecond = float64(len(results)) / wall.Seconds()
	}
	return rep
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// RunScenario runs one scenario and checks it.
func RunScenario(ctx context.Context, s *Scenario, opts Options) report.Scenario {
	res, _ := RunScenarioObserved(ctx, s, opts)
	return res
}

// RunScenarioObserved runs one scenario and checks it, as RunScenario
// does, and also returns what the run observed, for a caller that renders
// the transcript (Transcript) or grades the run further with package grade.
// The Observed is nil when the scenario was skipped or could not run.
//
// With options that fail Validate the scenario does not run: its result
// is an error that names the problem.
func RunScenarioObserved(ctx context.Context, s *Scenario, opts Options) (report.Scenario, *grade.Observed) {
	if err := opts.Validate(); err != nil {
		return invalidOptions(s, err), nil
	}
	opts = opts.WithDefaults()
	start := opts.Now()
	res, obs := runScenario(ctx, s, &opts)
	res = opts.redact.scenario(res)
	res.Timing = &report.ScenarioTiming{WallMS: ms(opts.Now().Sub(start))}
	return res, obs
}

// runScenario runs and checks a scenario; the Observed is nil when the
// scenario could not run.
func runScenario(ctx context.Context, s *Scenario, opts *Options) (res report.Scenario, obs *grade.Observed) {
	res = report.Scenario{Name: s.Name, File: s.File, Description: s.Description, Tags: s.Tags, Agent: describeAgent(s)}
	defer func() {
		// a bug in the harness fails this scenario, not the whole run
		if p := recover(); p != nil {
			res.Status, res.Message, obs = report.StatusError, fmt.Sprintf("%s: internal error: %v\n%s", s.File, p, debug.Stack()), nil
		}
	}()
	if s.Skip != "" {
		res.Status, res.Message = report.StatusSkip, s.Skip
		return res, nil
	}
	if len(s.Placeholders) > 0 {
		res.Status, res.Message = report.StatusSkip, s.templateSkip()
		return res, nil
	}
	fail := func(err error, turn int) (report.Scenario, *grade.Observed) {
		res.Status = report.StatusError
		res.Line, res.Message = locateError(s, err, turn)
		return res, nil
	}
	if ctx.Err() != nil {
		return fail(fmt.Errorf("%s: not run: %w", s.File, context.Cause(ctx)), -1)
	}
	if d := scenarioTimeout(s, opts); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = withTimeout(ctx, opts.After, d, &TimeoutError{What: "scenario", After: d})
		defer cancel()
	}
	if s.Agent.Kind == "command" {
		return runCommandScenario(ctx, s, opts, res)
	}
	st, err := build(ctx, s, opts, false)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", s.File, err), -1)
	}
	defer func() {
		if rerr := st.release(); rerr != nil && res.Status != report.StatusError {
			res.Status, res.Message = report.StatusError, fmt.Sprintf("%s: %v", s.File, rerr)
		}
	}()
	res.Cassette = st.cassette
	obs, err = st.runAndSave(ctx, s)
	if ctx.Err() != nil {
		return st.interruptedResult(ctx, s, res, obs, err), obs
	}
	if err != nil {
		st.finish(err)
		return fail(err, -1)
	}
	text := observedResult(s, &res, obs)
	if err := st.scenarioError(s, obs); err != nil {
		// the run itself went as recorded: a recording that failed says
		// so first, as it would have for any run
		if ferr := st.finish(nil); ferr != nil {
			return fail(ferr, obs.ErrTurn)
		}
		return fail(err, obs.ErrTurn)
	}

	return st.gradeScenario(ctx, s, opts, res, obs, text, nil, fail)
}

// observedResult fills the report's trajectory, final text, usage,
// interrupts, exchanges and transcript from what the run observed, and
// returns the transcript.
func observedResult(s *Scenario, res *report.Scenario, obs *grade.Observed) string {
	steps := reportSteps(obs.Steps)
	res.Trajectory = steps
	res.Final = obs.Final
	res.Usage = report.Usage(obs.Usage)
	for _, iv := range obs.Interrupts {
		res.Interrupts = append(res.Interrupts, engine.ValueForJSON(iv))
	}
	res.Exchanges = exchanges(s, obs, steps)
	res.Transcript = transcript(s, obs, steps)
	return res.Transcript
}

// interruptedResult is the result of a run cut by an interrupt or a
// timeout, whose own verdict would only say "context canceled": what
// was committed, the cause and the turn that was cut.
func (st *setup) interruptedResult(ctx context.Context, s *Scenario, res report.Scenario, obs *grade.Observed, err error) report.Scenario {
	if obs != nil {
		res.Trajectory = reportSteps(obs.Steps)
		res.Final = obs.Final
		res.Usage = report.Usage(obs.Usage)
	}
	st.finish(context.Cause(ctx))
	res.Status, res.Message = report.StatusError, interrupted(ctx, s, obs, err, st.abandoned.list())
	if obs != nil {
		res.Line = s.Line(joinIndex("turns", cutTurn(s, obs)))
	}
	return res
}

// gradeScenario runs the graders, the expectations, the checks the
// caller adds (a command agent's client invariants) and the golden check
// on a run that went as recorded, then finishes the cassette (a no-op
// without one). The graders run before the cassette is finished: a
// judge's model calls are recorded in it (or replayed from it) like the
// agent's.
func (st *setup) gradeScenario(ctx context.Context, s *Scenario, opts *Options, res report.Scenario, obs *grade.Observed, text string,
	extra []grade.Result, fail func(error, int) (report.Scenario, *grade.Observed)) (report.Scenario, *grade.Observed) {
	env, err := st.gradeEnv(s, opts, res)
	if err != nil {
		st.finish(err)
		return fail(fmt.Errorf("%s: %w", s.File, err), -1)
	}
	results := env.Check(ctx, s.Expect, obs)
	st.judgeUsage(&res.Usage)
	var gradeErr error
	for _, r := range results {
		if r.Errored {
			gradeErr = fmt.Errorf("%s: %s", s.File, r.Message)
			break
		}
	}
	if err := st.finish(gradeErr); err != nil && gradeErr == nil {
		return fail(err, -1)
	}
	if gradeErr != nil {
		res.Expectations = locatedExpectations(s, results)
		r, o := fail(gradeErr, -1)
		r.Expectations = res.Expectations
		return r, o
	}
	results = append(results, extra...)
	if s.Expect.Golden {
		results = append(results, checkGolden(s, opts, text, &res))
	}
	checks := locatedExpectations(s, results)
	res.Expectations = checks
	res.Status, res.Message, res.Diff, res.Line = verdict(checks)
	if res.Status == report.StatusFail {
		res.Message += invalidCallsNote(obs)
	}
	return res, obs
}

// runAndSave runs the scenario's turns, then saves its durable state; it
// returns the first error of the two. The cassette stays open for the
// graders: finish closes it.
func (st *setup) runAndSave(ctx context.Context, s *Scenario) (*grade.Observed, error) {
	obs, runErr := st.runTurns(ctx, s)
	if err := st.saveState(ctx); err != nil && runErr == nil {
		runErr = err
	}
	return obs, runErr
}

// finish stops the cassette recorder of a run that ended with runErr
// (writing what it recorded only when runErr is nil); it does nothing
// without a recorder.
func (st *setup) finish(runErr error) error {
	if st.recorder == nil {
		return nil
	}
	return st.recorder.Finish(runErr)
}

// scenarioError is the error that makes a run the scenario's error rather
// than a behaviour to check: a miss in the cassette, or a tool call that
// no scripted result answers.
func (st *setup) scenarioError(s *Scenario, obs *grade.Observed) error {
	var miss *cassette.MissError
	if errors.As(obs.Err, &miss) {
		return obs.Err
	}
	for _, t := range st.tools {
		if un := t.Unmatched(); len(un) > 0 {
			return fmt.Errorf("%s: tools[%d] (%s): no scripted result matches the arguments %s: add a result for them", s.File, t.index, t.spec.Name, strings.Join(un, ", "))
		}
	}
	return nil
}

// verdict is a scenario's status from its checks, with the message, diff
// and line of the first that failed.
func verdict(checks []report.Expectation) (status report.Status, message, diff string, line int) {
	for _, c := range checks {
		if !c.Passed {
			message = c.Message
			if c.Name != "" && !strings.HasPrefix(c.Message, c.Name) {
				message = c.Name + ": " + c.Message
			}
			return report.StatusFail, message, c.Diff, c.Line
		}
	}
	return report.StatusPass, "", "", 0
}

func describeAgent(s *Scenario) report.Agent {
	a := report.Agent{Kind: s.Agent.Kind, Model: s.Agent.Model}
	if a.Kind == "" {
		a.Kind = "react"
	}
	if a.Model == "" {
		a.Model = "scripted"
	}
	for _, m := range s.Agent.Middleware {
		a.Middleware = append(a.Middleware, m.Type)
	}
	for _, t := range s.Tools {
		a.Tools = append(a.Tools, t.Name)
	}
	return a
}
