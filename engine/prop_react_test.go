package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
	"pgregory.net/rapid"
)

// Property tests over generated create_react_agent runs. A scenario is a
// scripted model answering with random AI messages (0 to 8 tool calls
// each, duplicate call IDs, unknown tools, arguments of the wrong type,
// model errors), tools that answer, fail or panic, a random recursion
// limit, version v1 or v2, and random interrupt_before/interrupt_after
// points that the run is resumed from. Each property runs scenarios and
// checks one invariant on what the model saw, on what the tools saw, on
// the final state and on every checkpoint of the thread's history.

// propScenario is one generated run.
type propScenario struct {
	version         string
	limit           int
	interruptBefore []string
	interruptAfter  []string
	responses       []llm.Response
}

// errScripted is the error a scripted model response raises.
const errScriptedKind = "RateLimitError"

func drawScenario(t *rapid.T) propScenario {
	sc := propScenario{
		version: rapid.SampledFrom([]string{"v1", "v2"}).Draw(t, "version"),
		limit:   rapid.IntRange(1, 12).Draw(t, "recursion_limit"),
	}
	for _, node := range []string{"agent", "tools"} {
		if rapid.IntRange(0, 4).Draw(t, "interrupt_before_"+node) == 0 {
			sc.interruptBefore = append(sc.interruptBefore, node)
		}
		if rapid.IntRange(0, 4).Draw(t, "interrupt_after_"+node) == 0 {
			sc.interruptAfter = append(sc.interruptAfter, node)
		}
	}
	n := rapid.IntRange(0, 6).Draw(t, "responses")
	call := 0
	for i := range n {
		if rapid.IntRange(0, 9).Draw(t, "raise") == 0 {
			sc.responses = append(sc.responses, llm.Response{Raise: engine.NewError(errScriptedKind, fmt.Sprintf("scripted failure %d", i))})
			continue
		}
		var calls []engine.ToolCall
		for range rapid.IntRange(0, 8).Draw(t, "calls") {
			call++
			id := fmt.Sprint("call_", call)
			if rapid.IntRange(0, 3).Draw(t, "duplicate_id") == 0 {
				id = rapid.SampledFrom([]string{"dup_a", "dup_b"}).Draw(t, "id")
			}
			name := rapid.SampledFrom([]string{"echo", "typed", "fails", "panics", "nope"}).Draw(t, "tool")
			args := engine.NewObject()
			switch name {
			case "echo":
				args.Set("text", rapid.SampledFrom([]any{"hello", "", json.Number("7"), nil}).Draw(t, "text"))
			case "typed":
				args.Set("n", rapid.SampledFrom([]any{json.Number("3"), "12", "abc", json.Number("2.5"), engine.NewObject("x", true), nil}).Draw(t, "n"))
			}
			calls = append(calls, engine.ToolCall{Name: name, Args: args, ID: id})
		}
		sc.responses = append(sc.responses, llm.Response{Message: engine.AIMessage(fmt.Sprintf("answer %d", i), calls...)})
	}
	return sc
}

// finalResponse answers every call after the script: the agent always
// has an end.
var finalResponse = llm.Response{Message: engine.AIMessage("final")}

// toolSeen is what one tool call saw.
type toolSeen struct {
	tool           string
	step           int
	remaining      int
	stateRemaining any
}

// propRun is one execution of a scenario on a fresh Memory, resumed after
// every interrupt.
type propRun struct {
	sc      propScenario
	model   *llm.Scripted
	agent   *engine.Graph
	saver   engine.Checkpointer
	thread  string
	maxConc int
	// sched, when set, permutes the order in which tool calls complete.
	sched *completionScheduler

	mu     sync.Mutex
	seen   []toolSeen
	starts []int // per invocation: its first step (the newest checkpoint's + 1)

	// invocations and err are the number of Invoke calls and how the last
	// one ended; final is the thread's final state.
	invocations int
	err         error
	final       engine.State
}

func (r *propRun) record(s toolSeen) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, s)
}

func (r *propRun) tools() []engine.Tool {
	obj := func(props ...any) *engine.Object {
		return engine.NewObject("type", "object", "properties", engine.NewObject(props...))
	}
	wrap := func(name string, params *engine.Object, fn func(inv engine.ToolInvocation) (any, error)) engine.Tool {
		def := engine.ToolDef{Name: name, Description: "a generated tool", Parameters: params, Inject: []engine.Injection{{Arg: "state", Kind: engine.InjectState}}}
		return engine.NewTool(def, func(_ context.Context, inv engine.ToolInvocation) (any, error) {
			st, _ := inv.Injected["state"].(engine.State)
			r.record(toolSeen{tool: name, step: inv.Runtime.Step, remaining: inv.Runtime.RemainingSteps, stateRemaining: st["remaining_steps"]})
			if r.sched != nil {
				done, err := r.sched.hold(inv)
				if err != nil {
					return nil, err
				}
				defer done()
			}
			return fn(inv)
		})
	}
	typed := obj("n", engine.NewObject("type", "integer"))
	typed.Set("required", []any{"n"})
	return []engine.Tool{
		wrap("echo", obj("text", engine.NewObject("type", "string")), func(inv engine.ToolInvocation) (any, error) {
			v, _ := inv.Args().Get("text")
			return fmt.Sprintf("echo: %v", v), nil
		}),
		wrap("typed", typed, func(inv engine.ToolInvocation) (any, error) {
			v, _ := inv.Args().Get("n")
			return engine.NewObject("twice", fmt.Sprint(v, "x2")), nil
		}),
		wrap("fails", obj(), func(engine.ToolInvocation) (any, error) {
			return nil, engine.ToolException("the tool failed")
		}),
		wrap("panics", obj(), func(engine.ToolInvocation) (any, error) {
			panic("the tool panicked")
		}),
	}
}

// newPropRun builds the scenario's agent with the given responses.
func newPropRun(t *rapid.T, sc propScenario, responses []llm.Response, saver engine.Checkpointer, maxConc int) *propRun {
	r := &propRun{sc: sc, saver: saver, thread: "t", maxConc: maxConc}
	final := finalResponse
	r.model = llm.NewScripted("model", llm.Script{Responses: responses, Repeat: &final})
	g, err := engine.CreateReactAgent(engine.ReactAgentConfig{
		Model:           r.model,
		Tools:           r.tools(),
		Checkpointer:    saver,
		Version:         sc.version,
		InterruptBefore: sc.interruptBefore,
		InterruptAfter:  sc.interruptAfter,
		Clock:           fixedClock{},
	})
	if err != nil {
		t.Fatalf("CreateReactAgent: %v", err)
	}
	r.agent = g
	return r
}

// maxInvocations bounds the resumes of one run.
const maxInvocations = 40

// invoke runs from input (or resumes with nil) and keeps resuming while
// the run pauses at an interrupt; from, when set, is the checkpoint the
// first invocation starts from.
func (r *propRun) invoke(t *rapid.T, input any, from string) {
	ctx := context.Background()
	for {
		cfg := engine.Config{ThreadID: r.thread, CheckpointID: from, RecursionLimit: r.sc.limit, MaxConcurrency: r.maxConc}
		start := -1 // a new thread starts at step -1 (its input step)
		tup, err := r.saver.GetTuple(ctx, engine.CheckpointConfig{ThreadID: r.thread, CheckpointID: from})
		if err != nil {
			t.Fatal(err)
		}
		if tup != nil {
			start = tup.Metadata.Step + 1
		}
		r.mu.Lock()
		r.starts = append(r.starts, start)
		r.mu.Unlock()
		r.invocations++
		_, r.err = r.agent.Invoke(ctx, input, cfg)
		input, from = nil, ""
		snap, err := r.agent.GetState(ctx, engine.Config{ThreadID: r.thread})
		if err != nil {
			t.Fatal(err)
		}
		r.final = snap.Values
		if r.err != nil || len(snap.Next) == 0 || r.invocations >= maxInvocations {
			return
		}
	}
}

// runScenario runs sc from its input on a fresh Memory.
func runScenario(t *rapid.T, sc propScenario, maxConc int) *propRun {
	return runScenarioOn(t, sc, maxConc, checkpoint.NewMemory())
}

// runScenarioOn runs sc from its input on saver.
func runScenarioOn(t *rapid.T, sc propScenario, maxConc int, saver engine.Checkpointer) *propRun {
	r := newPropRun(t, sc, sc.responses, saver, maxConc)
	r.invoke(t, engine.State{"messages": []any{"do the things"}}, "")
	return r
}

// fixedClock stamps every checkpoint with the same time, so runs compare
// byte for byte.
type fixedClock struct{}

func (fixedClock) Now() time.Time                                   { return time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC) }
func (fixedClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

func messagesOf(t *rapid.T, s engine.State) []engine.Message {
	msgs, err := engine.MessagesFromValue(s["messages"])
	if err != nil {
		t.Fatalf("messages of the state: %v", err)
	}
	return msgs
}

// pairing checks that each AI message's tool calls are answered by the
// tool messages right after it, one per call, in call order. When
// pendingLast is set, the last message may be an AI message whose calls
// are not answered yet.
func pairing(msgs []engine.Message, pendingLast bool) error {
	for i, m := range msgs {
		if m.Type != engine.TypeAI || len(m.ToolCalls) == 0 {
			continue
		}
		if pendingLast && i == len(msgs)-1 {
			return nil
		}
		var answers []string
		for j := i + 1; j < len(msgs) && msgs[j].Type == engine.TypeTool; j++ {
			answers = append(answers, msgs[j].ToolCallID)
		}
		var ids []string
		for _, tc := range m.ToolCalls {
			ids = append(ids, tc.ID)
		}
		if !slices.Equal(ids, answers) {
			return fmt.Errorf("message %d (AI, calls %q) is answered by tool messages %q", i, ids, answers)
		}
	}
	return nil
}

func stateJSON(t *rapid.T, s engine.State) string {
	b, err := engine.MarshalValue(engine.ValueForJSON(s))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPropReactToolCallsAnswered: before every model call and in the
// final state, every tool call of an AI message has exactly one tool
// message with its tool_call_id, right after it and in call order; in
// every checkpoint of the history, all but a last AI message are
// answered so.
func TestPropReactToolCallsAnswered(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propReactToolCallsAnswered)
}

// FuzzReactToolCallsAnswered feeds the same property from the fuzzer.
func FuzzReactToolCallsAnswered(f *testing.F) {
	addPropSeeds(f)
	f.Fuzz(rapid.MakeFuzz(propReactToolCallsAnswered))
}

func propReactToolCallsAnswered(t *rapid.T) {
	sc := drawScenario(t)
	r := runScenario(t, sc, 0)
	for _, c := range r.model.Calls() {
		if err := pairing(c.Request.Messages.Slice(), false); err != nil {
			t.Fatalf("model call %d: %v", c.N, err)
		}
	}
	if err := pairing(messagesOf(t, r.final), true); err != nil {
		t.Fatalf("final state: %v", err)
	}
	hist, err := r.agent.GetStateHistory(context.Background(), engine.Config{ThreadID: r.thread}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, snap := range hist {
		if err := pairing(messagesOf(t, snap.Values), true); err != nil {
			t.Fatalf("checkpoint %s (step %d): %v", snap.Config.CheckpointID, snap.Metadata.Step, err)
		}
	}
}

// TestPropReactRemainingSteps: every tool sees remaining_steps = stop -
// step, where stop = the invocation's first step + recursion_limit + 1
// (LangGraph's PregelLoop: a fresh thread's first invocation gives
// recursion_limit - step); its injected state holds the same value (v1)
// or the value of the agent step that made the call (v2, whose calls
// carry that step's state); an invocation takes at most recursion_limit
// supersteps; and the run ends normally (a final AI message without
// calls, possibly "Sorry, need more steps..."), with ErrRecursionLimit, or
// with the model's own error — never silently.
func TestPropReactRemainingSteps(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propReactRemainingSteps)
}

// FuzzReactRemainingSteps feeds the same property from the fuzzer.
func FuzzReactRemainingSteps(f *testing.F) {
	addPropSeeds(f)
	f.Fuzz(rapid.MakeFuzz(propReactRemainingSteps))
}

func propReactRemainingSteps(t *rapid.T) {
	sc := drawScenario(t)
	r := runScenario(t, sc, 0)
	// stop is LangGraph's PregelLoop.stop for the invocation that ran
	// step: its first step + recursion_limit + 1
	stop := func(step int) int {
		start := r.starts[0]
		for _, st := range r.starts {
			if st <= step {
				start = st
			}
		}
		return start + sc.limit + 1
	}
	for _, s := range r.seen {
		if want := stop(s.step) - s.step; s.remaining != want {
			t.Fatalf("tool %s at step %d: Runtime.RemainingSteps = %d, want %d (invocations start at %v, limit %d)", s.tool, s.step, s.remaining, want, r.starts, sc.limit)
		}
		want := stop(s.step) - s.step
		if sc.version == "v2" {
			// the state of the agent step that made the call, in the
			// invocation that ran it
			want = stop(s.step-1) - (s.step - 1)
		}
		if s.stateRemaining != want {
			t.Fatalf("tool %s at step %d (%s): injected remaining_steps = %v, want %d (invocations start at %v, limit %d)", s.tool, s.step, sc.version, s.stateRemaining, want, r.starts, sc.limit)
		}
	}
	hist, err := r.agent.GetStateHistory(context.Background(), engine.Config{ThreadID: r.thread}, engine.ListOptions{Source: "loop"})
	if err != nil {
		t.Fatal(err)
	}
	for _, snap := range hist {
		// a superstep runs only while step <= stop (PregelLoop.tick)
		if s := snap.Metadata.Step; s > stop(s) {
			t.Fatalf("checkpoint at step %d: beyond the recursion limit %d of its invocation (invocations start at %v)", s, sc.limit, r.starts)
		}
	}
	msgs := messagesOf(t, r.final)
	var scriptErr *engine.Error
	switch {
	case r.err == nil && r.invocations >= maxInvocations:
		// still pausing after many resumes; nothing ended
	case r.err == nil:
		last := msgs[len(msgs)-1]
		if last.Type != engine.TypeAI || len(last.ToolCalls) > 0 {
			t.Fatalf("the run ended without an error on a %s message with %d calls", last.Type, len(last.ToolCalls))
		}
	case errors.Is(r.err, engine.ErrRecursionLimit):
	case errors.As(r.err, &scriptErr) && scriptErr.Kind == errScriptedKind:
	default:
		t.Fatalf("the run ended with an unexpected error: %v", r.err)
	}
}

// TestPropReactDeterministic: the same scenario run at two different
// MaxConcurrency settings, each with its tool calls completing in an order
// drawn by a seeded scheduler (completionScheduler), ends in
// byte-identical final states and the same error.
func TestPropReactDeterministic(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propReactDeterministic)
}

// FuzzReactDeterministic feeds the same property from the fuzzer.
func FuzzReactDeterministic(f *testing.F) {
	addPropSeeds(f)
	f.Fuzz(rapid.MakeFuzz(propReactDeterministic))
}

func propReactDeterministic(t *rapid.T) {
	sc := drawScenario(t)
	c1 := rapid.IntRange(0, 3).Draw(t, "max_concurrency_1")
	c2 := rapid.IntRange(1, 8).Filter(func(c int) bool { return c != c1 }).Draw(t, "max_concurrency_2")
	// each run's tool calls complete in an order drawn from its own seed
	s1 := rapid.Uint64().Draw(t, "scheduler_seed_1")
	s2 := rapid.Uint64().Draw(t, "scheduler_seed_2")
	a, b := runScenarioScheduled(t, sc, c1, s1), runScenarioScheduled(t, sc, c2, s2)
	if ja, jb := stateJSON(t, a.final), stateJSON(t, b.final); ja != jb {
		t.Fatalf("final states differ at MaxConcurrency %d and %d: %s", c1, c2, firstDifference(ja, jb))
	}
	if fmt.Sprint(a.err) != fmt.Sprint(b.err) {
		t.Fatalf("errors differ at MaxConcurrency %d and %d: %v / %v", c1, c2, a.err, b.err)
	}
}

// TestPropReactHistoryReplays: GetStateHistory is one chain of the run's
// checkpoints, newest first (each one's parent is the next), with strictly
// decreasing steps, sources "loop" down to the "input" checkpoint at step
// -1; and re-invoking from a loop checkpoint (Config.CheckpointID, nil
// input) with the part of the script not yet answered there reproduces
// the original final state. The replay is checked when the run's ending
// did not depend on the recursion limit or on a model error (a replay
// starts counting steps afresh and its model starts afresh).
func TestPropReactHistoryReplays(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propReactHistoryReplays)
}

// FuzzReactHistoryReplays feeds the same property from the fuzzer.
func FuzzReactHistoryReplays(f *testing.F) {
	addPropSeeds(f)
	f.Fuzz(rapid.MakeFuzz(propReactHistoryReplays))
}

func propReactHistoryReplays(t *rapid.T) {
	ctx := context.Background()
	sc := drawScenario(t)
	r := runScenario(t, sc, 0)
	hist, err := r.agent.GetStateHistory(ctx, engine.Config{ThreadID: r.thread}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) == 0 {
		t.Fatalf("no history")
	}
	for i, snap := range hist {
		last := i == len(hist)-1
		switch {
		case last && (snap.Metadata.Source != "input" || snap.Metadata.Step != -1 || snap.ParentConfig != nil):
			t.Fatalf("oldest checkpoint: source %q step %d parent %v, want the input checkpoint at step -1", snap.Metadata.Source, snap.Metadata.Step, snap.ParentConfig)
		case !last && snap.Metadata.Source != "loop":
			t.Fatalf("checkpoint %d of %d: source %q, want loop", i, len(hist), snap.Metadata.Source)
		case !last && (snap.ParentConfig == nil || snap.ParentConfig.CheckpointID != hist[i+1].Config.CheckpointID):
			t.Fatalf("checkpoint %d (%s): parent %v, want the next older one %s", i, snap.Config.CheckpointID, snap.ParentConfig, hist[i+1].Config.CheckpointID)
		case !last && snap.Metadata.Step <= hist[i+1].Metadata.Step:
			t.Fatalf("checkpoint %d: step %d does not exceed its parent's %d", i, snap.Metadata.Step, hist[i+1].Metadata.Step)
		}
	}
	final := messagesOf(t, r.final)
	if r.err != nil || r.invocations >= maxInvocations || strings.Contains(stateJSON(t, r.final), engine.SorryNeedMoreSteps) {
		return
	}
	for _, resp := range sc.responses {
		if resp.Raise != nil {
			return
		}
	}
	loops := hist[:len(hist)-1]
	if len(loops) == 0 {
		return
	}
	from := loops[rapid.IntRange(0, len(loops)-1).Draw(t, "replay_from")]
	kept := len(messagesOf(t, from.Values))
	answered := 0
	for _, m := range messagesOf(t, from.Values) {
		if m.Type == engine.TypeAI {
			answered++
		}
	}
	rest := sc.responses[min(answered, len(sc.responses)):]
	replay := newPropRun(t, sc, rest, r.saver, 0)
	replay.invoke(t, nil, from.Config.CheckpointID)
	if replay.err != nil {
		t.Fatalf("replay from step %d: %v", from.Metadata.Step, replay.err)
	}
	// message IDs hash the checkpoint a message was made on, and a replay
	// makes new checkpoints: the messages it added have other IDs
	want, got := stateJSON(t, withNewIDs(r.final, kept)), stateJSON(t, withNewIDs(replay.final, kept))
	if got != want {
		t.Fatalf("replay from checkpoint at step %d (of %d messages) ends in another state: %s", from.Metadata.Step, len(final), firstDifference(want, got))
	}
}

// withNewIDs returns s with the IDs of the messages after the first kept
// ones replaced by "new".
func withNewIDs(s engine.State, kept int) engine.State {
	msgs, _ := engine.MessagesFromValue(s["messages"])
	out := s.Clone()
	masked := slices.Clone(msgs)
	for i := kept; i < len(masked); i++ {
		masked[i].ID = "new"
	}
	out["messages"] = masked
	return out
}

// addPropSeeds gives the property fuzz targets a few starting inputs, so
// go test runs each body on them.
func addPropSeeds(f *testing.F) {
	f.Add(make([]byte, 64))
	f.Add([]byte("\x01\x05\x00\x00\x03\x04\x02\x07\x01\x00\x06\x02\x08\x00\x01\x03"))
	f.Add([]byte("\xff\x10\x7f\x22\x80\x03\xfe\x41\x40\x05\xc0\x06\x20\x07\x11\x99\x31\x04\x02\x08"))
}

// TestPropReusedOutputsChangeNothing: without a checkpointer, and with
// no stream but values, a built-in node's one-message output goes in its
// task, reused by the task's next superstep (messageUpdateIn), since
// nothing keeps the task's writes; a stream of updates shows them, so
// there every output is new. Invoke, a values stream and a values and
// updates stream of the same run give the same final state and error;
// the two streams give the same values chunks; and every chunk held is
// unchanged at the end of its run. A channel that kept the task's output
// instead of copying it would show a later step's message in an earlier
// place; reusing outputs while updates are streamed changes the update
// chunks held.
func TestPropReusedOutputsChangeNothing(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		sc := drawScenario(t)
		sc.interruptBefore, sc.interruptAfter = nil, nil
		ctx := context.Background()
		input := engine.State{"messages": []any{"do the things"}}
		cfg := engine.Config{RecursionLimit: sc.limit}
		res, ierr := newPropRun(t, sc, sc.responses, nil, 0).agent.Invoke(ctx, input, cfg)
		if ierr != nil && res == nil {
			t.Fatalf("Invoke: %v", ierr)
		}
		type chunk struct {
			data any
			json string
		}
		stream := func(modes ...engine.StreamMode) (values []chunk, all []chunk, err error) {
			g := newPropRun(t, sc, sc.responses, nil, 0).agent
			for part, perr := range g.Stream(ctx, input, cfg, modes...) {
				if perr != nil {
					return values, all, perr
				}
				c := chunk{part.Data, stateJSON(t, engine.State{"chunk": part.Data})}
				all = append(all, c)
				if part.Mode == engine.StreamValues {
					values = append(values, c)
				}
			}
			return values, all, nil
		}
		reusedValues, reusedAll, rerr := stream(engine.StreamValues)
		freshValues, freshAll, ferr := stream(engine.StreamValues, engine.StreamUpdates)
		if fmt.Sprint(ierr) != fmt.Sprint(rerr) || fmt.Sprint(rerr) != fmt.Sprint(ferr) {
			t.Fatalf("errors differ: Invoke %v, values stream %v, values and updates stream %v", ierr, rerr, ferr)
		}
		if len(reusedValues) != len(freshValues) {
			t.Fatalf("%d values chunks, against %d with updates", len(reusedValues), len(freshValues))
		}
		for i := range reusedValues {
			if reusedValues[i].json != freshValues[i].json {
				t.Fatalf("values chunk %d differs: %s", i, firstDifference(reusedValues[i].json, freshValues[i].json))
			}
		}
		if n := len(reusedValues); n > 0 {
			if a, b := stateJSON(t, res.Values), stateJSON(t, reusedValues[n-1].data.(engine.State)); a != b {
				t.Fatalf("Invoke's final state differs from the stream's: %s", firstDifference(a, b))
			}
		}
		for _, held := range [][]chunk{reusedAll, freshAll} {
			for i, c := range held {
				if got := stateJSON(t, engine.State{"chunk": c.data}); got != c.json {
					t.Fatalf("chunk %d changed after it was streamed: %s", i, firstDifference(c.json, got))
				}
			}
		}
	})
}
