package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/grade"
	"github.com/agenteval/agenteval/internal/hostenv"
	"github.com/agenteval/agenteval/serve"
)

// DummyAPIKey is the API key a command agent gets in OPENAI_API_KEY and
// ANTHROPIC_API_KEY: the SDKs refuse to start without one, and the
// model server agenteval runs for it takes any.
const DummyAPIKey = "agenteval-dummy-key"

// commandRun is one run of a command agent: its model server, its
// process, and what it said per turn.
type commandRun struct {
	s    *Scenario
	opts *Options
	srv  *serve.Server
	// recorder, in record mode, writes the cassette once the run ends
	// (once the judges have graded it when they record into it too).
	recorder *cassette.Recorder
	// judges, when the scenario has a provider judge, is the recorder
	// its calls go through: the agent's own in record mode, a replay of
	// the judges' part of the cassette in replay mode, or, for a
	// scripted agent, the scenario's cassette opened for the judges
	// alone. Grading finishes it.
	judges   *cassette.Recorder
	mode     cassette.Mode
	cassette string

	// starts[k] is how many exchanges had arrived when turn k was
	// written: turn k's requests are those from starts[k] to
	// starts[k+1].
	starts []int
	// outputs[k] is the answer line of turn k.
	outputs []turnAnswer
	stderr  *tailBuffer
}

// turnAnswer is one line a command agent answered a turn with.
type turnAnswer struct {
	Output    *string         `json:"output"`
	Interrupt json.RawMessage `json:"interrupt"`
	Error     *string         `json:"error"`
	// tooLong is set, alone, when the program wrote a line longer than
	// readAnswers' bound: the turn fails, naming the limit
	tooLong int
}

// commandResult is what runCommand observed.
type commandResult struct {
	obs *grade.Observed
	// checks are the client's invariants, checked on the traffic.
	checks   []grade.Result
	cassette string
	// judges is the recorder the scenario's provider judges call
	// through, still open: grading finishes it; mode is the cassette
	// mode in effect (replay-or-record resolved).
	judges *cassette.Recorder
	mode   cassette.Mode
}

// runCommand runs a "command" scenario: it starts a model server that
// answers from the scenario's script (or its cassette, by order),
// starts the program pointed at it, feeds it the turns and rebuilds
// what it did from the traffic. The error is the runner's: the program
// could not start, or it ran out of time and was killed.
func runCommand(ctx context.Context, s *Scenario, opts *Options) (_ commandResult, runErr error) {
	r := &commandRun{s: s, opts: opts, mode: opts.Mode, stderr: &tailBuffer{max: commandTailBytes}}
	defer func() {
		if runErr != nil {
			r.discard(runErr)
		}
	}()
	src, err := r.source()
	if err != nil {
		return commandResult{cassette: r.cassette}, err
	}
	srv, err := serve.New(serve.Options{Source: src, Models: servedModels(s)})
	if err != nil {
		return commandResult{cassette: r.cassette}, err
	}
	r.srv = srv
	lctx, stopServer := context.WithCancel(ctx)
	defer stopServer()
	l, err := serve.Listen(lctx, "127.0.0.1:0", srv)
	if err != nil {
		return commandResult{cassette: r.cassette}, err
	}
	runErr, agentErr := r.run(ctx, l.URL)
	if cerr := l.Close(); cerr != nil && runErr == nil {
		runErr = fmt.Errorf("model server: %w", cerr)
	}
	if runErr != nil {
		return commandResult{cassette: r.cassette}, runErr
	}
	if r.recorder != nil && r.recorder != r.judges {
		if err := r.recorder.Finish(nil); err != nil {
			r.recorder = nil
			return commandResult{cassette: r.cassette}, err
		}
	}
	obs := r.observe(srv.Exchanges(), agentErr)
	return commandResult{obs: obs, checks: r.clientChecks(srv, obs), cassette: r.cassette, judges: r.judges, mode: r.mode}, nil
}

// servedModels are the model names a command scenario's program may ask
// for: its provider model's name, or any (nil) for a scripted model,
// which stands in for whatever the program names. A request for another
// model gets the provider's "model not found" answer and fails the
// "requests accepted" invariant.
func servedModels(s *Scenario) []string {
	if m := s.Agent.Model; m != "" && m != "scripted" {
		return []string{modelID(m)}
	}
	return nil
}

// discard ends the recordings of a run that failed, writing nothing.
func (r *commandRun) discard(runErr error) {
	if r.recorder != nil {
		r.recorder.Finish(runErr)
	}
	if r.judges != nil && r.judges != r.recorder {
		r.judges.Finish(runErr)
	}
}

// source is the model server's source: the scenario's script, or its
// cassette replayed by order (recorded through the real provider in the
// record modes). A provider judge's calls go into the same cassette,
// after the agent's, marked with the GraderHeader request header, so a
// replay by order gives the agent only its own interactions and the
// judges theirs (matched by body, as the engine's are).
func (r *commandRun) source() (serve.Source, error) {
	s, opts := r.s, r.opts
	scripted := s.Agent.Model == "" || s.Agent.Model == "scripted"
	judge := providerJudge(s) != ""
	var script llm.Script
	if scripted {
		var err error
		if script, err = parseScript(s.Script); err != nil {
			return nil, fmt.Errorf("script: %w", err)
		}
		if !judge {
			return serve.NewScript(script), nil
		}
	}
	path := CassettePath(opts.CassetteDir, s)
	r.cassette = filepath.ToSlash(path)
	if r.mode == cassette.ModeReplayOrRecord {
		r.mode = cassette.ModeRecord
		if _, err := os.Stat(path); err == nil {
			r.mode = cassette.ModeReplay
		}
	}
	copts := cassette.Options{Mode: r.mode, Scenario: s.Name, Transport: unmarked{opts.Transport}, Overwrite: opts.Overwrite, Limits: opts.CassetteLimits, Scrubbing: opts.redact.cassetteScrubbing()}
	if scripted {
		rec, err := cassette.Open(path, copts)
		if errors.Is(err, cassette.ErrCassetteNotFound) {
			err = fmt.Errorf("%w (the judge model %s replays from the scenario's cassette: record it once with --mode record)", err, providerJudge(s))
		}
		if err != nil {
			return nil, err
		}
		r.judges = rec
		return serve.NewScript(script), nil
	}
	if r.mode == cassette.ModeReplay {
		c, _, err := opts.CassetteLimits.Import(path)
		if err != nil {
			return nil, fmt.Errorf("%w (a command agent with model %s replays its cassette: record it once with %s)", err, s.Agent.Model, rerecordHint(s))
		}
		agent, judges := splitJudges(c)
		if judge {
			r.judges = cassette.Replay(judges, cassette.Options{Scenario: s.Name})
		}
		if s.Agent.Replay == ReplayByOrder {
			return serve.NewReplayOrdered(agent), nil
		}
		return serve.NewReplay(agent, serve.ReplayOptions{BaseURL: ReplayBaseURLs(s), Scenario: s.Name, Rerecord: rerecordHint(s)}), nil
	}
	rec, err := cassette.Open(path, copts)
	if err != nil {
		return nil, err
	}
	r.recorder = rec
	if judge {
		r.judges = rec
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	return serve.NewRecorder(rec, serve.RecorderOptions{Upstreams: RecordUpstreams(s, lookup)}), nil
}

// rerecordHint says how to record a command agent's cassette again.
// (--mode replay-or-record replays a cassette that exists: it records
// only a missing one.)
func rerecordHint(s *Scenario) string {
	return "agenteval run --mode record --overwrite " + filepath.ToSlash(s.File)
}

// ReplayBaseURLs is where the requests of s's cassette were recorded,
// for serve.ReplayOptions.BaseURL: the scenario model's provider at
// agent.base_url when it names one, else nil (the public endpoints).
func ReplayBaseURLs(s *Scenario) map[string]string {
	if s.Agent.BaseURL == "" {
		return nil
	}
	return map[string]string{modelProvider(s.Agent.Model): s.Agent.BaseURL}
}

// modelProvider is the serve provider a provider model speaks:
// "openai" for openai: and openai-compatible:, "anthropic".
func modelProvider(model string) string {
	provider, _, _ := strings.Cut(model, ":")
	if provider == llm.ProviderOpenAICompatible {
		return llm.ProviderOpenAI
	}
	return provider
}

// RecordUpstreams is where a record run forwards a command agent's
// requests (serve.RecorderOptions.Upstreams). With agent.base_url, the scenario model's provider alone, at
// that URL (openai-compatible speaks OpenAI's protocols): a request of
// another provider is refused and sent nowhere, so no traffic reaches a
// host the scenario does not name. Without, every provider at its public
// endpoint. The key is the provider's, read from its variable
// (OPENAI_API_KEY, ANTHROPIC_API_KEY) in agenteval's environment.
func RecordUpstreams(s *Scenario, lookup func(string) (string, bool)) map[string]serve.Upstream {
	if s.Agent.BaseURL == "" {
		return serve.PublicUpstreams(lookup)
	}
	provider := modelProvider(s.Agent.Model)
	key, _ := lookup(serve.KeyEnv(provider))
	return map[string]serve.Upstream{provider: {BaseURL: s.Agent.BaseURL, Key: key}}
}

// GraderHeader marks, in a command scenario's cassette, the requests a
// provider judge made ("X-Agenteval-Grader: judge"), which the replay of
// the agent's traffic by order leaves out. It is recorded, never sent:
// the transport to the provider removes it.
const GraderHeader = "X-Agenteval-Grader"

// splitJudges parts a cassette into the agent's interactions and the
// judges' (those whose request carries GraderHeader), each keeping its
// line numbers for errors.
func splitJudges(c *cassette.Cassette) (agent, judges *cassette.Cassette) {
	agent, judges = &cassette.Cassette{Path: c.Path}, &cassette.Cassette{Path: c.Path}
	for i, in := range c.Interactions {
		part := agent
		if in.Request.Headers.Get(GraderHeader) != "" {
			part = judges
		}
		part.Interactions = append(part.Interactions, in)
		if i < len(c.Lines) {
			part.Lines = append(part.Lines, c.Lines[i])
		}
	}
	return agent, judges
}

// markedJudge adds GraderHeader to a judge's requests.
type markedJudge struct{ rt http.RoundTripper }

func (m markedJudge) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	out.Header.Set(GraderHeader, "judge")
	return m.rt.RoundTrip(out)
}

// unmarked removes GraderHeader before a request leaves for the
// provider; nil rt means http.DefaultTransport.
type unmarked struct{ rt http.RoundTripper }

func (u unmarked) RoundTrip(req *http.Request) (*http.Response, error) {
	rt := u.rt
	if rt == nil {
		rt = http.DefaultTransport
	}
	if req.Header.Get(GraderHeader) == "" {
		return rt.RoundTrip(req)
	}
	out := req.Clone(req.Context())
	out.Header.Del(GraderHeader)
	return rt.RoundTrip(out)
}

// timeout is the scenario's bound on the whole run.
func (r *commandRun) timeout() time.Duration {
	if d, err := time.ParseDuration(r.s.Agent.Timeout); err == nil && d > 0 {
		return d
	}
	return defaultCommandTimeout
}

// environ is the program's environment: the allow list of harmless
// variables from the process's own (package hostenv: PATH, HOME, the
// locale, ...; no credential of any kind) and the variables the
// scenario's agent.pass_env names, then the base URLs and dummy keys,
// AGENTEVAL_SCENARIO, AGENTEVAL_MODEL (the name the program asks the
// server for: the provider's model name, or "scripted"),
// AGENTEVAL_VARIANT (the eval variant, "" outside an eval), then the
// scenario's env (an eval variant's env merged over it). A later entry
// wins, so what agenteval sets replaces a passed variable of that name.
func (r *commandRun) environ(base string) []string {
	env := hostenv.Clean(os.Environ(), r.s.Agent.PassEnv...)
	model := modelID(r.s.Agent.Model)
	env = append(env,
		"OPENAI_BASE_URL="+base+"/v1",
		"OPENAI_API_KEY="+DummyAPIKey,
		"ANTHROPIC_BASE_URL="+base,
		"ANTHROPIC_API_KEY="+DummyAPIKey,
		"GOOGLE_GEMINI_BASE_URL="+base,
		"GEMINI_API_KEY="+DummyAPIKey,
		"AGENTEVAL_SCENARIO="+r.s.Name,
		"AGENTEVAL_MODEL="+model,
		"AGENTEVAL_VARIANT="+r.opts.Variant,
	)
	for _, k := range slices.Sorted(maps.Keys(r.s.Agent.Env)) {
		env = append(env, k+"="+r.s.Agent.Env[k])
	}
	return env
}

// dir is the program's working directory.
func (r *commandRun) dir() string {
	d := filepath.Dir(r.s.File)
	if r.s.Agent.Dir != "" {
		if filepath.IsAbs(r.s.Agent.Dir) {
			return r.s.Agent.Dir
		}
		d = filepath.Join(d, r.s.Agent.Dir)
	}
	return d
}

// name is the command as reports show it.
func (r *commandRun) name() string { return strings.Join(r.s.Agent.Command, " ") }

// run starts the program and feeds it the turns, one JSON line each,
// reading one answer line per turn. runErr is the runner's error (the
// program could not start, or timed out and was killed); agentErr is
// the program's failure, the run's error: an error line, an exit before
// it answered every turn, or a failed exit status.
func (r *commandRun) run(ctx context.Context, base string) (runErr, agentErr error) {
	timeout := r.timeout()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := r.s.Agent.Command
	cmd := exec.CommandContext(tctx, argv[0], argv[1:]...)
	cmd.Dir = r.dir()
	cmd.Env = r.environ(base)
	cmd.Stderr = r.stderr
	killGroup(cmd)
	// the program's children may hold its pipes open after it is killed
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err, nil
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err, nil
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("agent.command: start %q in %s: %w", r.name(), cmd.Dir, err), nil
	}
	answers := make(chan turnAnswer)
	var log tailBuffer
	log.max = commandTailBytes
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer close(answers)
		readAnswers(tctx, stdout, answers, &log, commandLineBytes)
	}()
	var (
		waited  bool
		waitErr error
	)
	// wait reaps the program once, after its stdout is read (Wait closes
	// the pipe) or, when time is up, at once: the context kills it.
	wait := func() error {
		if !waited {
			waited = true
			select {
			case <-readDone:
			case <-tctx.Done():
			}
			waitErr = cmd.Wait()
		}
		return waitErr
	}
	defer func() {
		cancel()
		stdin.Close()
		if err := wait(); err != nil && agentErr == nil && runErr == nil {
			agentErr = r.exitError(err)
		}
		<-readDone
	}()

	timedOut := func(what string) error {
		return fmt.Errorf("agent.command %q: timed out after %s %s; killed%s", r.name(), timeout, what, r.stderrNote())
	}
	enc := json.NewEncoder(stdin)
	for k, t := range r.s.Turns {
		r.starts = append(r.starts, len(r.srv.Exchanges()))
		if err := enc.Encode(turnLine(t)); err != nil {
			if tctx.Err() != nil {
				return timedOut(fmt.Sprintf("in turn %d", k+1)), nil
			}
			return nil, r.exitedEarly(k, wait())
		}
		a, ok := <-answers
		switch {
		case tctx.Err() != nil && ctx.Err() == nil:
			return timedOut(fmt.Sprintf("in turn %d, waiting for its answer line", k+1)), nil
		case ctx.Err() != nil:
			return ctx.Err(), nil
		case !ok:
			return nil, r.exitedEarly(k, wait())
		}
		if a.tooLong > 0 {
			return nil, engine.NewError("AgentError", fmt.Sprintf("agent.command %q: in turn %d it wrote a line of more than %s to its stdout, the limit of one line (answer each turn with one JSON line such as {\"output\": \"...\"})%s", r.name(), k+1, sizeString(int64(a.tooLong)), r.stderrNote()))
		}
		r.outputs = append(r.outputs, a)
		if a.Error != nil {
			return nil, engine.NewError("AgentError", *a.Error)
		}
	}
	stdin.Close()
	select {
	case <-readDone:
	case <-tctx.Done():
	}
	if tctx.Err() != nil && ctx.Err() == nil {
		return timedOut("waiting for it to exit after its last turn (it must exit when its stdin closes)"), nil
	}
	if err := wait(); err != nil {
		return nil, r.exitError(err)
	}
	return nil, nil
}

// turnLine is the JSON line that feeds a turn to a command agent.
func turnLine(t Turn) any {
	switch {
	case t.Decisions != nil:
		return map[string]any{"decisions": engine.ValueForJSON(t.Decisions)}
	case t.Resume != nil:
		return map[string]any{"resume": engine.ValueForJSON(t.Resume)}
	}
	return map[string]any{"user": t.User}
}

// readAnswers reads the program's stdout line by line and sends each
// answer line (a JSON object with "output", "interrupt" or "error") on
// answers; other lines are kept in log. A line longer than maxLine bytes
// is not kept: readAnswers sends an answer with tooLong set and reads the
// rest of stdout into the void, so the program is never blocked writing.
func readAnswers(ctx context.Context, stdout io.Reader, answers chan<- turnAnswer, log *tailBuffer, maxLine int) {
	br := bufio.NewReader(stdout)
	send := func(a turnAnswer) bool {
		select {
		case answers <- a:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		line, err := readLine(br, maxLine)
		if errors.Is(err, errLineTooLong) {
			send(turnAnswer{tooLong: maxLine})
			io.Copy(io.Discard, br)
			return
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var a turnAnswer
			if t[0] == '{' && json.Unmarshal(t, &a) == nil && (a.Output != nil || a.Interrupt != nil || a.Error != nil) {
				if !send(a) {
					io.Copy(io.Discard, br)
					return
				}
			} else {
				log.Write(line)
			}
		}
		if err != nil {
			return
		}
	}
}

// errLineTooLong is readLine's error for a line past its bound.
var errLineTooLong = errors.New("line too long")

// readLine reads up to and including the next '\n', as ReadBytes does,
// but holds at most max bytes of it: a longer line gives errLineTooLong.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > max {
			return nil, errLineTooLong
		}
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// exitedEarly is the error of a program that ended before it answered
// turn k.
func (r *commandRun) exitedEarly(k int, waitErr error) error {
	how := "exited"
	if waitErr != nil {
		how = waitErr.Error()
	}
	return engine.NewError("AgentError", fmt.Sprintf("agent.command %q: %s before it answered turn %d (answer each turn with one JSON line such as {\"output\": \"...\"})%s", r.name(), how, k+1, r.stderrNote()))
}

// exitError is the error of a program that failed its exit.
func (r *commandRun) exitError(err error) error {
	return engine.NewError("AgentError", fmt.Sprintf("agent.command %q: %v%s", r.name(), err, r.stderrNote()))
}

// stderrNote is the end of the program's stderr, for errors.
func (r *commandRun) stderrNote() string {
	t := strings.TrimSpace(r.stderr.String())
	if t == "" {
		return ""
	}
	return "; its stderr ends:\n" + t
}

// commandLineBytes bounds one line of a command agent's stdout (an
// answer line, or a line kept for its errors): 16 MiB.
const commandLineBytes = 16 << 20

// commandTailBytes is how much of a command agent's stderr, and of the
// lines of its stdout that are not answers, is kept for its errors: the
// last 16 KiB.
const commandTailBytes = 16 << 10

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write implements io.Writer.
func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// String returns what the buffer holds.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
