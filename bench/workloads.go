package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/harness"
	runreport "github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/stats"
)

// workloadTitle is a workload's heading in text reports.
func workloadTitle(name string) string {
	switch name {
	case "W1":
		return "ToolNode: one AI message with N calls of a trivial tool (argument validation included)"
	case "W2":
		return "ToolNode: N calls of tools that wait L ms — wall, parallelism N·L/wall, max_concurrency caps, open and closed load"
	case "W3":
		return "agent loop: K cycles of model → one tool call → model, scripted model"
	case "W4":
		return "cost growth: one turn (4 supersteps) on a thread of M messages"
	case "W5":
		return "replay throughput: generated scenario files through the whole harness (parse, run, check)"
	}
	return ""
}

// workloadNote says where a workload departs from the wording.
func workloadNote(name string) string {
	switch name {
	case "W3":
		return "W3 and W4 use a stateless scripted model that answers from the request (tool call until K tool results follow the last human message, then a final answer): llm.Scripted deep-copies every request it records, which would add the fake's own O(thread) cost to the engine's."
	case "W4":
		return "W4 measures a turn (input, agent, tools, agent: 4 supersteps) on a thread of M messages; per-step time is the turn's wall time / 4, so loading the checkpoint is included. from=fork starts every turn from the same prefilled checkpoint (a fork: the list is copied once per turn); from=newest continues the thread from its newest checkpoint, as a conversation does (so the thread holds M to M+64 messages); with a checkpointer the thread is prefilled again every 16 turns, off the clock; with no checkpointer (from=input) the M messages are the turn's input."
	case "W5":
		return "W5: a generated corpus of scenario files (scripted model and tools, 1-3 tools, 1-3 cycles of 1-3 parallel calls) parsed and run by the harness with expectations and invariants checked; no cassette (scripted models) and no golden files or reports (file I/O)."
	}
	return ""
}

func casesOf(name string, o Options) []benchCase {
	switch name {
	case "W1":
		return w1Cases(o)
	case "W2":
		return w2Cases(o)
	case "W3":
		return w3Cases(o)
	case "W4":
		return w4Cases(o)
	case "W5":
		return w5Cases(o)
	}
	return nil
}

// W1Sizes are the call counts of W1.
var W1Sizes = []int{1, 8, 64, 256, 1024}

// trivialTool is W1's tool: one required integer argument, validated
// like every call's, answering "ok". A non-zero delay busy-waits.
func trivialTool(delay time.Duration) engine.Tool {
	return engine.NewTool(engine.ToolDef{
		Name:        "t",
		Description: "A trivial tool.",
		Parameters: engine.NewObject("type", "object",
			"properties", engine.NewObject("i", engine.NewObject("type", "integer")),
			"required", []any{"i"}),
	}, func(_ context.Context, _ engine.ToolInvocation) (any, error) {
		if delay > 0 {
			busyWait(delay)
		}
		return "ok", nil
	})
}

// busyWait spins for d: a slowdown that costs CPU like real work, unlike
// a sleep.
func busyWait(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// toolCalls returns n calls of tool name with arguments {"i": k}.
func toolCalls(name string, n int) []engine.ToolCall {
	calls := make([]engine.ToolCall, n)
	for i := range calls {
		calls[i] = engine.ToolCall{Name: name, Args: engine.NewObject("i", i), ID: "call_" + strconv.Itoa(i)}
	}
	return calls
}

// ToolNodeOp returns one W1 operation: a ToolNode invoked with one AI
// message of n calls of the trivial tool, each busy-waiting delay.
func ToolNodeOp(n int, delay time.Duration) (func(ctx context.Context) error, error) {
	tn, err := engine.NewToolNode([]engine.Tool{trivialTool(delay)}, engine.ToolNodeOptions{})
	if err != nil {
		return nil, err
	}
	input := engine.State{"messages": []engine.Message{engine.AIMessage("", toolCalls("t", n)...)}}
	run := func(ctx context.Context) error {
		_, err := tn.Invoke(ctx, input)
		return err
	}
	if err := checkToolNodeOutput(ctx0(), tn, input, n); err != nil {
		return nil, err
	}
	return run, nil
}

func ctx0() context.Context { return context.Background() }

// checkToolNodeOutput runs the node once and checks that every call got a
// successful tool message, so a broken setup cannot pass for a fast one.
func checkToolNodeOutput(ctx context.Context, tn *engine.ToolNode, input engine.State, n int) error {
	out, err := tn.Invoke(ctx, input)
	if err != nil {
		return err
	}
	st, ok := out.(engine.State)
	if !ok {
		return fmt.Errorf("tool node returned %T, want engine.State", out)
	}
	msgs := st.Messages("messages")
	if len(msgs) != n {
		return fmt.Errorf("tool node returned %d messages for %d calls", len(msgs), n)
	}
	for _, m := range msgs {
		if m.Status != engine.StatusSuccess {
			return fmt.Errorf("tool call %s failed: %s", m.ToolCallID, m.Content.String())
		}
	}
	return nil
}

// withCPU appends the CPU time per unit, in ns divided by scale, as
// metric name, where the platform reports CPU time.
func withCPU(vals []metricValue, r rawSample, name string, scale float64) []metricValue {
	if ns, ok := r.cpuPerUnit(); ok {
		vals = append(vals, metricValue{name, ns / scale})
	}
	return vals
}

func w1Cases(o Options) []benchCase {
	var out []benchCase
	for _, n := range W1Sizes {
		out = append(out, benchCase{
			workload: "W1", params: Params{{"n", n}}, what: "per invocation",
			setup: func(ctx context.Context, o Options) (sampler, error) {
				run, err := ToolNodeOp(n, o.ToolDelay)
				if err != nil {
					return nil, err
				}
				return newOpSampler(o, &op{run: run, units: float64(n), metrics: func(r rawSample) []metricValue {
					ns, allocs, bytes := r.perUnit()
					return withCPU([]metricValue{{"ns_per_call", ns}, {"allocs_per_call", allocs}, {"bytes_per_call", bytes}, {"calls_per_s", 1e9 / ns}},
						r, "cpu_ns_per_call", 1)
				}}), nil
			},
		})
	}
	return out
}

// Delays draws the waits of n tool calls: "fixed" (every call l),
// "uniform" (uniform on [0, 2l)) or "lognormal" (σ = 1 with mean l:
// median 0.61·l, p99 6.2·l, the long tail of real tools), from a PCG
// source seeded with seed.
func Delays(dist string, n int, l time.Duration, seed uint64) ([]time.Duration, error) {
	r := rand.New(rand.NewPCG(seed, 0x6167656e746576))
	out := make([]time.Duration, n)
	for i := range out {
		switch dist {
		case "fixed":
			out[i] = l
		case "uniform":
			out[i] = time.Duration(r.Float64() * 2 * float64(l))
		case "lognormal":
			const sigma = 1.0
			mu := math.Log(float64(l)) - sigma*sigma/2
			out[i] = time.Duration(math.Exp(mu + sigma*r.NormFloat64()))
		default:
			return nil, fmt.Errorf("unknown distribution %q: expected fixed, uniform or lognormal", dist)
		}
	}
	return out, nil
}

// IdealWall is the shortest wall time of calls with these waits when at
// most limit run at once (0: no limit), started in call order as soon as
// a slot is free: the longest wait without a limit, the list schedule's
// makespan with one.
func IdealWall(delays []time.Duration, limit int) time.Duration {
	if len(delays) == 0 {
		return 0
	}
	if limit <= 0 || limit >= len(delays) {
		return slicesMax(delays)
	}
	free := make([]time.Duration, limit) // when each slot frees up
	var end time.Duration
	for _, d := range delays {
		k := 0
		for j := range free {
			if free[j] < free[k] {
				k = j
			}
		}
		free[k] += d
		end = max(end, free[k])
	}
	return end
}

func slicesMax(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

// sleepTool waits delays[i] for the call with argument i (or until ctx is
// done) and, when finished is set, records when it finished.
func sleepTool(delays []time.Duration, finished []time.Time) engine.Tool {
	return engine.NewTool(engine.ToolDef{
		Name:        "wait",
		Description: "Waits as long as its call index says.",
		Parameters: engine.NewObject("type", "object",
			"properties", engine.NewObject("i", engine.NewObject("type", "integer")),
			"required", []any{"i"}),
	}, func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
		i, err := argIndex(inv)
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= len(delays) {
			return nil, fmt.Errorf("call index %d out of range", i)
		}
		t := time.NewTimer(delays[i])
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		if finished != nil {
			finished[i] = time.Now()
		}
		return "ok", nil
	})
}

func argIndex(inv engine.ToolInvocation) (int, error) {
	v, _ := inv.Args().Get("i")
	switch t := v.(type) {
	case int:
		return t, nil
	case int64:
		return int(t), nil
	case float64:
		return int(t), nil
	case json.Number:
		n, err := t.Int64()
		return int(n), err
	}
	return 0, fmt.Errorf("argument i is %T", v)
}

// W2Case is one W2 point: N calls whose waits follow Dist with mean L,
// at most Cap at once (0: no cap).
type W2Case struct {
	// Dist is "fixed", "uniform" or "lognormal" (see Delays).
	Dist string
	// N is the number of calls; L their mean wait.
	N int
	L time.Duration
	// Cap is ToolNodeOptions.MaxConcurrency; 0 means none.
	Cap int
}

// Params returns the case's parameters as reports name them.
func (c W2Case) Params() Params {
	capv := any(c.Cap)
	if c.Cap == 0 {
		capv = "none"
	}
	return Params{{"dist", c.Dist}, {"n", c.N}, {"l_ms", int(c.L / time.Millisecond)}, {"cap", capv}}
}

// W2Cases lists W2's fan-out cases: every N with fixed waits of 10 ms,
// three N with uniform and lognormal waits, and the max_concurrency caps
// 1, 8, 64 and none on 128 calls of 5 ms.
func W2Cases(quick bool) []W2Case {
	const l = 10 * time.Millisecond
	var out []W2Case
	sizes := []int{1, 8, 64, 256, 1024}
	if quick {
		sizes = []int{1, 64, 1024}
	}
	for _, n := range sizes {
		out = append(out, W2Case{"fixed", n, l, 0})
	}
	for _, d := range []string{"uniform", "lognormal"} {
		for _, n := range []int{1, 64, 1024} {
			out = append(out, W2Case{d, n, l, 0})
		}
	}
	for _, c := range []int{1, 8, 64, 0} {
		out = append(out, W2Case{"fixed", 128, 5 * time.Millisecond, c})
	}
	return out
}

// W2Op returns the ToolNode invocation of a W2 case, the waits of its
// calls, and a function returning each call's latency (finish minus
// invocation start, µs) of the last run.
func W2Op(c W2Case) (run func(ctx context.Context) error, delays []time.Duration, perCall func() []float64, err error) {
	delays, err = Delays(c.Dist, c.N, c.L, uint64(c.N))
	if err != nil {
		return nil, nil, nil, err
	}
	finished := make([]time.Time, c.N)
	tn, err := engine.NewToolNode([]engine.Tool{sleepTool(delays, finished)}, engine.ToolNodeOptions{MaxConcurrency: c.Cap})
	if err != nil {
		return nil, nil, nil, err
	}
	input := engine.State{"messages": []engine.Message{engine.AIMessage("", toolCalls("wait", c.N)...)}}
	var start time.Time
	lat := make([]float64, c.N)
	run = func(ctx context.Context) error {
		start = time.Now()
		_, err := tn.Invoke(ctx, input)
		return err
	}
	perCall = func() []float64 {
		for i, f := range finished {
			lat[i] = float64(f.Sub(start).Nanoseconds()) / 1e3
		}
		return lat
	}
	return run, delays, perCall, checkToolNodeOutput(context.Background(), tn, input, c.N)
}

func w2Cases(o Options) []benchCase {
	var out []benchCase
	for _, c := range W2Cases(o.Quick) {
		out = append(out, benchCase{
			workload: "W2", params: c.Params(), what: "per call",
			setup: func(ctx context.Context, o Options) (sampler, error) {
				run, delays, perCall, err := W2Op(c)
				if err != nil {
					return nil, err
				}
				var sum time.Duration
				for _, d := range delays {
					sum += d
				}
				ideal := IdealWall(delays, c.Cap)
				return newOpSampler(o, &op{run: run, units: 1, perCall: perCall, metrics: func(r rawSample) []metricValue {
					wall := float64(r.elapsed) / float64(r.iters)
					return []metricValue{
						{"wall_ms", wall / 1e6},
						{"ideal_ms", float64(ideal) / 1e6},
						{"parallelism", float64(sum) / wall},
						{"efficiency", float64(ideal) / wall},
					}
				}}), nil
			},
		})
	}
	out = append(out, loadCases(o)...)
	return out
}

// cycleModel is W3's and W4's scripted model: stateless, it answers from
// the request, calling the tool "t" until k tool results follow the last
// human message, then answering "done".
type cycleModel struct {
	k   int
	ids []string
}

func newCycleModel(k int) *cycleModel {
	m := &cycleModel{k: k, ids: make([]string, k)}
	for i := range m.ids {
		m.ids[i] = "call_" + strconv.Itoa(i)
	}
	return m
}

// Generate answers one call.
func (m *cycleModel) Generate(_ context.Context, req engine.ModelRequest) (engine.Message, error) {
	done := 0
	for _, m := range req.Messages.Backward() {
		t := m.Type
		if t == engine.TypeHuman {
			break
		}
		if t == engine.TypeTool {
			done++
		}
	}
	if done >= m.k {
		return engine.AIMessage("done"), nil
	}
	return engine.AIMessage("", engine.ToolCall{Name: "t", Args: engine.NewObject("i", done), ID: m.ids[done]}), nil
}

// Checkpointers names the checkpointers W3 and W4 run with.
var Checkpointers = []string{"none", "memory", "sqlite"}

// saver is a checkpointer the workloads can empty between samples.
type saver interface {
	engine.Checkpointer
	DeleteThread(ctx context.Context, threadID string) error
}

// openSaver returns the named checkpointer (nil for "none"), a function
// reporting the bytes it stored so far (nil when it does not count them)
// and a closer.
func openSaver(ctx context.Context, kind, dir string) (saver, func() []float64, func() error, error) {
	switch kind {
	case "none":
		return nil, nil, func() error { return nil }, nil
	case "memory":
		return checkpoint.NewMemory(), nil, func() error { return nil }, nil
	case "sqlite":
		db, err := checkpoint.OpenSQLite(ctx, filepath.Join(dir, fmt.Sprintf("bench-%d.db", dbSeq.Add(1))), checkpoint.SQLiteOptions{})
		if err != nil {
			return nil, nil, nil, err
		}
		stored := func() []float64 {
			st, err := db.Stats()
			if err != nil {
				return []float64{0, 0}
			}
			return []float64{float64(st.PayloadBytes), float64(st.Puts)}
		}
		return db, stored, db.Close, nil
	}
	return nil, nil, nil, fmt.Errorf("unknown checkpointer %q: expected none, memory or sqlite", kind)
}

var dbSeq atomic.Int64

// AgentLoopOp returns W3's operation: one run of a create_react_agent
// graph doing k cycles (model → one call of the trivial tool → model),
// on a new thread of the named checkpointer each time.
func AgentLoopOp(ctx context.Context, k int, kind, dir string, delay time.Duration) (*op, error) {
	sv, _, closeSaver, err := openSaver(ctx, kind, dir)
	if err != nil {
		return nil, err
	}
	cfg := engine.ReactAgentConfig{Model: newCycleModel(k), Tools: []engine.Tool{trivialTool(delay)}}
	if sv != nil {
		cfg.Checkpointer = sv
	}
	agent, err := engine.CreateReactAgent(cfg)
	if err != nil {
		closeSaver()
		return nil, err
	}
	input := engine.State{"messages": []any{"go"}}
	var threads []string
	n := 0
	run := func(ctx context.Context) error {
		c := engine.Config{RecursionLimit: 2*k + 5}
		if sv != nil {
			n++
			c.ThreadID = "w3-" + strconv.Itoa(n)
			threads = append(threads, c.ThreadID)
		}
		res, err := agent.Invoke(ctx, input, c)
		if err != nil {
			return err
		}
		if got := res.Values.List("messages").Len(); got != 2*k+2 {
			return fmt.Errorf("agent run ended with %d messages, want %d", got, 2*k+2)
		}
		return nil
	}
	reset := func(ctx context.Context) error {
		for _, t := range threads {
			if err := sv.DeleteThread(ctx, t); err != nil {
				return err
			}
		}
		threads = threads[:0]
		return nil
	}
	p := &op{run: run, units: float64(k), close: closeSaver}
	if sv != nil {
		p.reset = reset
	}
	return p, nil
}

// W3Cycles are W3's cycle counts.
var W3Cycles = []int{1, 10}

func w3Cases(o Options) []benchCase {
	var out []benchCase
	for _, kind := range Checkpointers {
		for _, k := range W3Cycles {
			out = append(out, benchCase{
				workload: "W3", params: Params{{"checkpointer", kind}, {"k", k}}, what: "per run",
				setup: func(ctx context.Context, o Options) (sampler, error) {
					p, err := AgentLoopOp(ctx, k, kind, o.TempDir, o.ToolDelay)
					if err != nil {
						return nil, err
					}
					p.metrics = func(r rawSample) []metricValue {
						ns, allocs, bytes := r.perUnit()
						return withCPU([]metricValue{{"us_per_cycle", ns / 1e3}, {"allocs_per_cycle", allocs}, {"bytes_per_cycle", bytes}}, r, "cpu_us_per_cycle", 1e3)
					}
					return newOpSampler(o, p), nil
				},
			})
		}
	}
	return out
}

// History returns a thread of m messages: turns of a human question, an
// AI tool call, its tool result and an AI answer, cut to m messages and
// ending with an AI answer (or a human message when m is 1). Every
// message has an ID and about 80 bytes of text.
func History(m int) []engine.Message {
	out := make([]engine.Message, 0, m)
	for turn := 0; len(out) < m; turn++ {
		id := func(kind string) string { return "h" + strconv.Itoa(turn) + kind }
		callID := "hist_" + strconv.Itoa(turn)
		turnMsgs := []engine.Message{
			{Type: engine.TypeHuman, ID: id("q"), Content: engine.Text(fmt.Sprintf("Question %d: what is the weather in the city of Paris right now, please?", turn))},
			{Type: engine.TypeAI, ID: id("c"), ToolCalls: []engine.ToolCall{{Name: "t", Args: engine.NewObject("i", turn), ID: callID}}},
			{Type: engine.TypeTool, ID: id("r"), Name: "t", ToolCallID: callID, Status: engine.StatusSuccess, Content: engine.Text(fmt.Sprintf("Result %d: sunny, 21 degrees Celsius, light wind from the west.", turn))},
			{Type: engine.TypeAI, ID: id("a"), Content: engine.Text(fmt.Sprintf("Answer %d: it is sunny and 21 degrees in Paris, with a light westerly wind.", turn))},
		}
		left := m - len(out)
		switch {
		case left >= 4:
			out = append(out, turnMsgs...)
		case left == 1 && len(out) == 0:
			out = append(out, turnMsgs[0])
		case left == 1:
			// end with an answer: replace nothing, add a short exchange
			out = append(out, engine.Message{Type: engine.TypeAI, ID: id("x"), Content: engine.Text("Anything else?")})
		default:
			// a question and its direct answer (2 or 3 messages)
			out = append(out, turnMsgs[0])
			if left == 3 {
				out = append(out, engine.Message{Type: engine.TypeAI, ID: id("y"), Content: engine.Text("Let me think.")})
			}
			out = append(out, turnMsgs[3])
		}
	}
	return out
}

// W4Lengths are W4's thread lengths.
var W4Lengths = []int{10, 100, 1000, 10000}

// W4 starts a turn either by forking the same prefilled checkpoint every
// time (W4From "fork") or from the thread's newest checkpoint, the thread
// growing turn by turn ("newest"); without a checkpointer the thread is
// the turn's input ("input").
const (
	FromFork   = "fork"
	FromNewest = "newest"
	FromInput  = "input"
)

// w4Turns is how many turns W4 runs with a checkpointer before the thread
// is prefilled again, off the clock: a "newest" thread grows by 4 messages
// a turn, so it holds M to M+4·w4Turns messages, and every "fork" leaves
// its own copy of the list in the checkpointer, which would otherwise pile
// up (and GC work with it) for as long as the sample runs.
const w4Turns = 16

// ThreadGrowthOp returns W4's operation: one turn (a human message, a
// tool call, its result, an answer: 4 supersteps) on a thread that holds
// m messages. With a checkpointer the turn starts from the prefilled
// checkpoint (from "fork") or from the thread's newest one (from
// "newest"); without one the m messages are the turn's input.
func ThreadGrowthOp(ctx context.Context, m int, kind, from, dir string, delay time.Duration) (*op, error) {
	sv, stored, closeSaver, err := openSaver(ctx, kind, dir)
	if err != nil {
		return nil, err
	}
	cfg := engine.ReactAgentConfig{Model: newCycleModel(1), Tools: []engine.Tool{trivialTool(delay)}}
	if sv != nil {
		cfg.Checkpointer = sv
	}
	agent, err := engine.CreateReactAgent(cfg)
	if err != nil {
		closeSaver()
		return nil, err
	}
	hist := History(m)
	// the prefill hands the thread over as one MessageList, built once:
	// the run takes it as it is, so prefilling leaves no garbage whose
	// collection would run during the timed turns
	histList := engine.NewMessageList(hist...)
	question := engine.HumanMessage("And tomorrow?")
	const steps = 4
	p := &op{units: steps, close: closeSaver}
	if sv == nil {
		// the thread as a MessageList, as a caller that keeps it between
		// turns holds it: the run adds to it without copying it
		input := engine.State{"messages": histList.Append(question)}
		p.run = func(ctx context.Context) error {
			res, err := agent.Invoke(ctx, input, engine.Config{})
			if err != nil {
				return err
			}
			return checkLen(res, m+4)
		}
		return p, nil
	}
	const thread = "w4"
	var base string
	turns := 0
	prefill := func(ctx context.Context) error {
		if err := sv.DeleteThread(ctx, thread); err != nil {
			return err
		}
		c, err := agent.UpdateState(ctx, engine.Config{ThreadID: thread}, engine.State{"messages": histList}, "agent")
		if err != nil {
			return fmt.Errorf("prefill %d messages: %w", m, err)
		}
		base, turns = c.CheckpointID, 0
		return nil
	}
	if err := prefill(ctx); err != nil {
		closeSaver()
		return nil, err
	}
	input := engine.State{"messages": []engine.Message{question}}
	p.reset = prefill
	p.counters = stored
	p.resetEvery = w4Turns
	if from == FromNewest {
		p.run = func(ctx context.Context) error {
			res, err := agent.Invoke(ctx, input, engine.Config{ThreadID: thread})
			if err != nil {
				return err
			}
			turns++
			return checkLen(res, m+4*turns)
		}
		return p, nil
	}
	p.run = func(ctx context.Context) error {
		res, err := agent.Invoke(ctx, input, engine.Config{ThreadID: thread, CheckpointID: base})
		if err != nil {
			return err
		}
		return checkLen(res, m+4)
	}
	return p, nil
}

func checkLen(res *engine.Result, want int) error {
	if got := res.Values.List("messages").Len(); got != want {
		return fmt.Errorf("turn ended with %d messages, want %d", got, want)
	}
	return nil
}

func w4Cases(o Options) []benchCase {
	var out []benchCase
	lengths := W4Lengths
	if o.threadLengths != nil {
		lengths = o.threadLengths
	}
	for _, kind := range Checkpointers {
		froms := []string{FromFork, FromNewest}
		if kind == "none" {
			froms = []string{FromInput}
		}
		for _, from := range froms {
			for _, m := range lengths {
				out = append(out, w4Case(kind, from, m))
			}
		}
	}
	return out
}

func w4Case(kind, from string, m int) benchCase {
	return benchCase{
		workload: "W4", params: Params{{"checkpointer", kind}, {"from", from}, {"messages", m}},
		setup: func(ctx context.Context, o Options) (sampler, error) {
			p, err := ThreadGrowthOp(ctx, m, kind, from, o.TempDir, o.ToolDelay)
			if err != nil {
				return nil, err
			}
			p.metrics = func(r rawSample) []metricValue {
				ns, allocs, bytes := r.perUnit()
				vals := withCPU([]metricValue{{"us_per_step", ns / 1e3}, {"allocs_per_step", allocs}, {"alloc_bytes_per_step", bytes}}, r, "cpu_us_per_step", 1e3)
				if len(r.counters) == 2 && r.counters[1] > 0 {
					vals = append(vals, metricValue{"stored_bytes_per_step", r.counters[0] / r.counters[1]})
				}
				return vals
			}
			return newOpSampler(o, p), nil
		},
	}
}

// w4Kinds are W4's (checkpointer, from) pairs.
var w4Kinds = [][2]string{{"none", FromInput}, {"memory", FromFork}, {"memory", FromNewest}, {"sqlite", FromFork}, {"sqlite", FromNewest}}

// fitGrowth fits W4's per-step time and bytes against thread length, per
// checkpointer and way of starting a turn.
func fitGrowth(results []Result) []Fit {
	var out []Fit
	for _, metric := range []string{"us_per_step", "alloc_bytes_per_step", "stored_bytes_per_step"} {
		for _, kf := range w4Kinds {
			kind, from := kf[0], kf[1]
			var xs, ys []float64
			for _, r := range results {
				if r.Workload != "W4" || r.Metric != metric || r.Params.Str("checkpointer") != kind || r.Params.Str("from") != from {
					continue
				}
				xs = append(xs, float64(r.Params.Int("messages")))
				ys = append(ys, r.Median)
			}
			g := stats.FitGrowth(xs, ys)
			if g.Class == "unknown" {
				continue
			}
			// a constant series is fitted exactly (and JSON has no NaN)
			if math.IsNaN(g.R2) {
				g.R2 = 1
			}
			if math.IsNaN(g.LinearR2) {
				g.LinearR2 = 1
			}
			f := Fit{Workload: "W4", Params: Params{{"checkpointer", kind}, {"from", from}}, Metric: metric, X: "messages",
				Exponent: g.Exponent, Coef: g.Coef, R2: g.R2, TailExponent: g.TailExponent,
				Intercept: g.Intercept, Slope: g.Slope, LinearR2: g.LinearR2, Growth: g.Class}
			lo, hi := 0, 0
			for i := range xs {
				f.Points = append(f.Points, [2]float64{xs[i], ys[i]})
				if xs[i] < xs[lo] {
					lo = i
				}
				if xs[i] > xs[hi] {
					hi = i
				}
			}
			f.Ratio = ys[hi] / ys[lo]
			out = append(out, f)
		}
	}
	return out
}

// Scenario is one generated scenario file of W5.
type Scenario struct {
	// Name is the scenario's name; File its YAML (JSON, which is YAML).
	Name string
	File []byte
}

// Corpus generates n scenario files from seed: each binds 1-3 of three
// scripted tools (weather, add, search) and runs 1-3 cycles of 1-3
// parallel tool calls before answering, and expects its trajectory, its
// final answer and its number of model calls.
func Corpus(n int, seed uint64) []Scenario {
	r := rand.New(rand.NewPCG(seed, 0x636f72707573))
	str := func(name, desc, arg string) *engine.Object {
		return engine.NewObject("name", name, "description", desc,
			"parameters", engine.NewObject("type", "object",
				"properties", engine.NewObject(arg, engine.NewObject("type", "string")), "required", []any{arg}),
			"results", []any{engine.NewObject("return", name+": ok")})
	}
	all := []*engine.Object{
		str("get_weather", "Get the weather for a city.", "city"),
		engine.NewObject("name", "add", "description", "Add two integers.",
			"parameters", engine.NewObject("type", "object",
				"properties", engine.NewObject("a", engine.NewObject("type", "integer"), "b", engine.NewObject("type", "integer")),
				"required", []any{"a", "b"}),
			"results", []any{engine.NewObject("return", "add: ok")}),
		str("search", "Search the web.", "query"),
	}
	out := make([]Scenario, n)
	for i := range out {
		k := 1 + r.IntN(3)
		var tools []any
		for _, t := range all[:k] {
			tools = append(tools, t)
		}
		var resps, expected []any
		call := 0
		for range 1 + r.IntN(3) {
			var calls []any
			for range 1 + r.IntN(3) {
				var name string
				var args *engine.Object
				switch r.IntN(k) {
				case 0:
					name, args = "get_weather", engine.NewObject("city", fmt.Sprintf("city-%d", r.IntN(100)))
				case 1:
					name, args = "add", engine.NewObject("a", json.Number(fmt.Sprint(r.IntN(100))), "b", json.Number(fmt.Sprint(r.IntN(100))))
				default:
					name, args = "search", engine.NewObject("query", fmt.Sprintf("query %d", r.IntN(1000)))
				}
				calls = append(calls, engine.NewObject("name", name, "args", args, "id", fmt.Sprintf("s%d_c%d", i, call)))
				expected = append(expected, engine.NewObject("name", name, "args", args))
				call++
			}
			resps = append(resps, engine.NewObject("content", "", "tool_calls", calls))
		}
		answer := fmt.Sprintf("Scenario %d is done after %d calls.", i, call)
		resps = append(resps, engine.NewObject("content", answer))
		doc := engine.NewObject(
			"description", "a generated W5 scenario",
			"script", engine.NewObject("responses", resps),
			"tools", tools,
			"turns", []any{engine.NewObject("user", fmt.Sprintf("Task %d", i))},
			"expect", engine.NewObject(
				"trajectory", engine.NewObject("calls", expected),
				"final", engine.NewObject("equals", answer),
				"max_model_calls", json.Number(fmt.Sprint(len(resps)))))
		data, err := engine.MarshalValue(doc)
		if err != nil {
			panic(err) // the generator's own values always marshal
		}
		out[i] = Scenario{Name: fmt.Sprintf("gen_%03d", i), File: data}
	}
	return out
}

// ReplayOp returns W5's operation: the whole corpus through the scenario
// harness — each file parsed (harness.Parse), run by harness.Run with the
// given number of scenarios at once, its expectations and invariants
// checked — failing unless every scenario passed.
func ReplayOp(corpus []Scenario, workers int) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		scenarios := make([]*harness.Scenario, len(corpus))
		for i, c := range corpus {
			s, err := harness.Parse(c.Name+".yaml", c.File)
			if err != nil {
				return err
			}
			s.Name, s.Rel = c.Name, c.Name
			scenarios[i] = s
		}
		rep := harness.Run(ctx, scenarios, harness.Options{Parallel: workers})
		if rep.Passed != len(corpus) {
			for _, s := range rep.Scenarios {
				if s.Status != runreport.StatusPass {
					return fmt.Errorf("W5: scenario %s: %s: %s", s.Name, s.Status, s.Message)
				}
			}
		}
		return nil
	}
}

// W5Scenarios is the size of W5's corpus.
const W5Scenarios = 200

func w5Cases(o Options) []benchCase {
	n := W5Scenarios
	if o.scenarios > 0 {
		n = o.scenarios
	}
	var out []benchCase
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		if workers == 1 && len(out) > 0 {
			continue
		}
		out = append(out, benchCase{
			workload: "W5", params: Params{{"scenarios", n}, {"workers", workers}},
			setup: func(ctx context.Context, o Options) (sampler, error) {
				corpus := Corpus(n, 1)
				return newOpSampler(o, &op{run: ReplayOp(corpus, workers), units: float64(n), metrics: func(r rawSample) []metricValue {
					ns, allocs, _ := r.perUnit()
					return withCPU([]metricValue{{"scenarios_per_s", 1e9 / ns}, {"us_per_scenario", ns / 1e3}, {"allocs_per_scenario", allocs}}, r, "cpu_us_per_scenario", 1e3)
				}}), nil
			},
		})
	}
	return out
}
