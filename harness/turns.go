package harness

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/grade"
)

// turnRun is one run of a scenario's turns and what it has observed so
// far.
type turnRun struct {
	st  *setup
	s   *Scenario
	obs *grade.Observed
	// prev holds each thread's messages after its last step.
	prev map[string][]engine.Message
	// aiIndex maps an AI message's ID to its index in obs.AIMessages.
	aiIndex map[string]int
}

// runTurns runs the scenario's turns, observing every superstep. The
// turns after one that fails are not run; the failure is the Observed's
// Err. The error returned is the runner's own: a from_step with no
// checkpoint, or a thread whose state cannot be read.
func (st *setup) runTurns(ctx context.Context, s *Scenario) (*grade.Observed, error) {
	r := &turnRun{st: st, s: s, obs: &grade.Observed{}, prev: map[string][]engine.Message{}, aiIndex: map[string]int{}}
	var lastThread string
	for ti, turn := range s.Turns {
		thread := cmp.Or(turn.Thread, "main")
		lastThread = thread
		cfg, err := r.turnConfig(ctx, ti, turn, thread)
		if err != nil {
			return nil, err
		}
		if turn.UpdateState != nil {
			err = r.updateState(ctx, ti, turn, thread, cfg)
		} else {
			err = r.invoke(ctx, ti, turn, thread, cfg)
		}
		if err != nil {
			return nil, err
		}
		if r.obs.Err != nil {
			// the turns after a failed one have nothing to run on
			r.obs.ErrTurn = ti
			break
		}
	}
	r.finish(ctx, lastThread)
	return r.obs, nil
}

// turnConfig is the engine config a turn runs with: its thread (none
// without a checkpointer, when every turn starts afresh), the recursion
// limit, and the checkpoint of from_step.
func (r *turnRun) turnConfig(ctx context.Context, ti int, turn Turn, thread string) (engine.Config, error) {
	cfg := engine.Config{ThreadID: thread, RecursionLimit: r.st.limit, MaxConcurrency: r.s.Agent.MaxConcurrency}
	if r.st.graph.Checkpointer() == nil {
		cfg.ThreadID = ""
		r.prev[thread] = nil
	}
	if turn.FromStep != nil {
		id, err := r.st.checkpointAt(ctx, thread, *turn.FromStep)
		if err != nil {
			return cfg, fmt.Errorf("%s: turns[%d].from_step: %w", r.s.File, ti, err)
		}
		cfg.CheckpointID = id
	}
	return cfg, nil
}

// updateState runs an update_state turn: it writes the values as
// turn.AsNode and observes the update as one step named "update_state".
// A refused update is the run's error (obs.Err).
func (r *turnRun) updateState(ctx context.Context, ti int, turn Turn, thread string, cfg engine.Config) error {
	if _, err := r.st.graph.UpdateState(ctx, cfg, stateValues(turn.UpdateState), turn.AsNode); err != nil {
		r.obs.Err = err
		return nil
	}
	snap, err := r.st.graph.GetState(ctx, engine.Config{ThreadID: thread})
	if err != nil {
		return err
	}
	msgs := snap.Values.Messages("messages")
	step := grade.Step{Turn: ti, Thread: thread, Step: stepOf(snap), Nodes: []string{"update_state"}, Changed: changed(r.prev[thread], msgs), Keys: objectKeys(turn.UpdateState), Messages: msgs}
	r.obs.Steps = append(r.obs.Steps, step)
	r.prev[thread] = msgs
	r.obs.Err = nil
	return nil
}

// turnInput is what a user, resume or decisions turn sends the graph; nil
// (a continue turn) runs the thread on from where it stopped.
func turnInput(turn Turn) any {
	switch {
	case turn.User != "":
		return engine.State{"messages": []engine.Message{engine.HumanMessage(turn.User)}}
	case turn.Decisions != nil:
		return &engine.Command{Resume: engine.NewObject("decisions", turn.Decisions)}
	case turn.Resume != nil:
		return &engine.Command{Resume: turn.Resume}
	}
	return nil
}

// invoke runs the graph for one user, resume, decisions or continue turn
// and observes its supersteps. With a checkpointer they are read from the
// checkpoints the turn wrote, which have every superstep, with its number
// and tasks, even one whose nodes wrote nothing (and so streamed no
// values); without one they come from the stream.
func (r *turnRun) invoke(ctx context.Context, ti int, turn Turn, thread string, cfg engine.Config) error {
	input := turnInput(turn)
	r.obs.Err = nil
	startID, before := "", r.prev[thread]
	h := &historyReader{st: r.st, thread: thread, turn: ti, pos: map[string]taskPos{}}
	if cfg.ThreadID != "" {
		if snap, err := r.st.graph.GetState(ctx, engine.Config{ThreadID: cfg.ThreadID, CheckpointID: cfg.CheckpointID}); err == nil && snap.Metadata != nil {
			startID = snap.Config.CheckpointID
			before = snap.Values.Messages("messages")
			h.starts = r.st.subgraphStarts(ctx, thread, snap)
		}
	}
	steps, chunks := r.stream(ctx, ti, thread, input, cfg, turn)
	if cfg.ThreadID != "" {
		hs, msgs, err := h.steps(ctx, "", startID, before, 0)
		if err != nil {
			return fmt.Errorf("%s: turns[%d]: read the thread's history: %w", r.s.File, ti, err)
		}
		steps, r.prev[thread] = hs, msgs
		r.interruptsFromState(ctx, ti, thread)
	}
	r.obs.Streamed = append(r.obs.Streamed, streamedMessages(ti, chunks, h.pos)...)
	inv := grade.Invoke{Turn: ti, Thread: thread, Limit: r.st.limit}
	for _, step := range steps {
		if step.Nodes[0] != "input" && step.Namespace == "" {
			inv.Supersteps++
		}
		r.addStep(step)
	}
	r.obs.Invokes = append(r.obs.Invokes, inv)
	return nil
}

// stream runs the graph on input and watches its stream: the interrupts
// as they come, and, without a checkpointer, the supersteps, which it
// returns. A failed run is the run's error (obs.Err).
func (r *turnRun) stream(ctx context.Context, ti int, thread string, input any, cfg engine.Config, turn Turn) ([]grade.Step, []streamedChunk) {
	w := &streamWatch{r: r, turn: ti, thread: thread, input: input, keys: map[string]bool{}, stepBase: -1, first: true}
	// With a checkpointer the steps are read from the checkpoints after
	// the turn; only a run without one needs the values chunks.
	modes := []engine.StreamMode{engine.StreamUpdates}
	if cfg.ThreadID == "" {
		modes = append(modes, engine.StreamValues)
	}
	if turn.StreamMode.Has(string(engine.StreamMessages)) {
		modes = append(modes, engine.StreamMessages)
	}
	cfg.Subgraphs = turn.Subgraphs
	var chunks []streamedChunk
	for part, err := range r.st.graph.Stream(ctx, input, cfg, modes...) {
		if err != nil {
			r.obs.Err = err
			break
		}
		if part.Mode == engine.StreamMessages {
			if c, ok := part.Data.(engine.MessageChunk); ok {
				chunks = append(chunks, streamedChunk{ns: part.Namespace, chunk: c})
			}
			continue
		}
		if part.Namespace != nil {
			continue // a subgraph's own updates and values: its steps are read from its checkpoints
		}
		switch part.Mode {
		case engine.StreamUpdates:
			w.updates(part.Data)
		case engine.StreamValues:
			w.values(part.Data)
		}
	}
	return w.steps, chunks
}

// streamWatch follows one turn's stream.
type streamWatch struct {
	r      *turnRun
	turn   int
	thread string
	input  any
	// nodes and keys are the nodes that ran and the keys they wrote since
	// the last values chunk.
	nodes []string
	keys  map[string]bool
	// stepBase numbers the steps; first is true until the first values
	// chunk.
	stepBase int
	first    bool
	steps    []grade.Step
}

// updates takes an updates chunk: the interrupts raised, and the nodes
// that ran with the keys they wrote.
func (w *streamWatch) updates(data any) {
	m, _ := data.(map[string]any)
	for node, wr := range m {
		if node == engine.InterruptKey {
			if ivs, ok := wr.([]engine.InterruptValue); ok {
				for _, iv := range ivs {
					w.r.obs.Interrupts = append(w.r.obs.Interrupts, iv.Value)
					w.r.obs.InterruptTurns = append(w.r.obs.InterruptTurns, w.turn)
				}
			}
			continue
		}
		if strings.HasPrefix(node, "__") {
			continue
		}
		w.nodes = append(w.nodes, node)
		for _, k := range writtenKeys(wr) {
			w.keys[k] = true
		}
	}
}

// values takes a values chunk. Without a checkpointer the steps come from
// the stream: a values chunk closes each superstep that wrote something.
func (w *streamWatch) values(data any) {
	values, _ := data.(engine.State)
	msgs := values.Messages("messages")
	prev := w.r.prev
	name := w.nodes
	isInput := w.first && len(w.nodes) == 0
	w.first = false
	if isInput {
		if _, resuming := w.input.(*engine.Command); resuming || w.input == nil {
			// a resumed run first streams the state it resumes from
			prev[w.thread] = msgs
			return
		}
		name = []string{"input"}
	}
	w.stepBase++
	slices.Sort(name)
	step := grade.Step{Turn: w.turn, Thread: w.thread, Step: w.stepBase, Nodes: name, Changed: changed(prev[w.thread], msgs), Keys: sortedKeys(w.keys), Messages: msgs}
	if isInput {
		step.Keys = nil
	}
	w.steps = append(w.steps, step)
	prev[w.thread] = msgs
	w.nodes, w.keys = nil, map[string]bool{}
}

// interruptsFromState replaces the interrupts the stream showed for turn
// ti with those of the thread's state, in task order: parallel tasks
// stream their interrupts as they finish. It does nothing when the turn
// failed or the state cannot be read.
func (r *turnRun) interruptsFromState(ctx context.Context, ti int, thread string) {
	obs := r.obs
	snap, err := r.st.graph.GetState(ctx, engine.Config{ThreadID: thread})
	if err != nil || obs.Err != nil {
		return
	}
	keep := 0
	for keep < len(obs.InterruptTurns) && obs.InterruptTurns[keep] != ti {
		keep++
	}
	obs.Interrupts, obs.InterruptTurns = obs.Interrupts[:keep], obs.InterruptTurns[:keep]
	for _, iv := range snap.Interrupts {
		if iv.Value == nil {
			continue // interrupt_before/after carry none
		}
		obs.Interrupts = append(obs.Interrupts, iv.Value)
		obs.InterruptTurns = append(obs.InterruptTurns, ti)
	}
}

// addStep records a step and the AI messages it shows: a new one joins
// the trajectory, one seen before (same ID) takes its new form in place.
func (r *turnRun) addStep(step grade.Step) {
	obs := r.obs
	obs.Steps = append(obs.Steps, step)
	for _, m := range step.Messages {
		if m.Type != engine.TypeAI {
			continue
		}
		if i, ok := r.aiIndex[m.ID]; ok && m.ID != "" {
			obs.AIMessages[i] = m
			continue
		}
		if m.ID != "" {
			r.aiIndex[m.ID] = len(obs.AIMessages)
		}
		obs.AIMessages = append(obs.AIMessages, m)
	}
}

// finish records what the run ended with: the last turn's thread's
// messages, structured response and final text, and the usage.
func (r *turnRun) finish(ctx context.Context, lastThread string) {
	obs, st := r.obs, r.st
	obs.Messages = r.prev[lastThread]
	if st.graph.Checkpointer() != nil {
		if snap, err := st.graph.GetState(ctx, engine.Config{ThreadID: lastThread}); err == nil {
			obs.Messages = snap.Values.Messages("messages")
			obs.Structured, obs.HasStructured = snap.Values["structured_response"]
		}
	}
	for i := len(obs.Messages) - 1; i >= 0; i-- {
		if obs.Messages[i].Type == engine.TypeAI {
			obs.Final = obs.Messages[i].Text()
			break
		}
	}
	st.model.mu.Lock()
	obs.Usage = grade.Usage{
		ModelCalls: st.model.calls, EmulatedModelCalls: st.model.emulatedCalls, ToolCalls: toolCalls(obs.Steps, st.anyToolNode), ToolRuns: int(st.toolRuns.Load()),
		InputTokens: st.model.usage.InputTokens, OutputTokens: st.model.usage.OutputTokens, TotalTokens: st.model.usage.TotalTokens,
		CostUSD: st.model.cost(), CostKnown: !st.model.unknown,
	}
	st.model.mu.Unlock()
	for _, inv := range obs.Invokes {
		obs.Usage.Steps += inv.Supersteps
	}
}

// toolCalls counts the tool calls the agent's tool node answered (run,
// emulated or failed): the tool messages the steps of node "tools"
// added. With anyNode (a Go agent, whose graph is its own: a Turn
// agent's tool messages come from its one node, "agent"), every node's
// tool messages count. Calls answered elsewhere do not count: rejected by
// a human (HumanInTheLoopMiddleware's node), or written by a state update
// or a turn's input.
func toolCalls(steps []grade.Step, anyNode bool) int {
	n := 0
	for _, st := range steps {
		if anyNode {
			if slices.Contains(st.Nodes, hitlNode) || slices.Contains(st.Nodes, "update_state") || slices.Contains(st.Nodes, "input") {
				continue
			}
		} else if !slices.Contains(st.Nodes, "tools") {
			continue
		}
		for _, m := range st.Changed {
			if m.Type == engine.TypeTool {
				n++
			}
		}
	}
	return n
}

// stateValues turns a mapping from a scenario file into the state update
// the engine takes.
func stateValues(v any) any {
	o, ok := v.(*engine.Object)
	if !ok {
		return v
	}
	st := engine.State{}
	for _, k := range o.Keys() {
		st[k], _ = o.Get(k)
	}
	return st
}

// changedKeys lists, sorted, the state keys whose values differ.
func changedKeys(a, b engine.State) []string {
	var out []string
	for k, v := range b {
		if old, ok := a[k]; !ok || !valuesEqual(old, v) {
			out = append(out, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func valuesEqual(a, b any) bool {
	// a messages key holds a MessageList: compared message by message too
	if l, ok := a.(engine.MessageList); ok {
		a = l.Slice()
	}
	if l, ok := b.(engine.MessageList); ok {
		b = l.Slice()
	}
	if am, ok := a.([]engine.Message); ok {
		bm, ok := b.([]engine.Message)
		if !ok || len(am) != len(bm) {
			return false
		}
		for i := range am {
			if !messageEqual(am[i], bm[i]) {
				return false
			}
		}
		return true
	}
	av, err1 := engine.ToValue(a)
	bv, err2 := engine.ToValue(b)
	return err1 == nil && err2 == nil && engine.ValueEqual(av, bv)
}

// checkpointAt finds the newest checkpoint of the thread at a step.
func (st *setup) checkpointAt(ctx context.Context, thread string, step int) (string, error) {
	hist, err := st.graph.GetStateHistory(ctx, engine.Config{ThreadID: thread}, engine.ListOptions{})
	if err != nil {
		return "", err
	}
	var steps []string
	for _, h := range hist {
		if h.Metadata == nil {
			continue
		}
		if h.Metadata.Step == step {
			return h.Config.CheckpointID, nil
		}
		steps = append(steps, fmt.Sprint(h.Metadata.Step))
	}
	return "", fmt.Errorf("thread %q has no checkpoint at step %d (it has steps %s)", thread, step, strings.Join(steps, ", "))
}

func stepOf(s *engine.StateSnapshot) int {
	if s.Metadata == nil {
		return 0
	}
	return s.Metadata.Step
}

// changed returns the messages of now that are new or differ from before,
// in state order.
func changed(before, now []engine.Message) []engine.Message {
	old := make(map[string]engine.Message, len(before))
	for _, m := range before {
		old[m.ID] = m
	}
	var out []engine.Message
	for _, m := range now {
		if o, ok := old[m.ID]; ok && m.ID != "" && messageEqual(o, m) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// messageEqual compares two messages field by field, without building
// their dict forms.
func messageEqual(a, b engine.Message) bool {
	if a.Type != b.Type || a.ID != b.ID || a.Name != b.Name || a.ToolCallID != b.ToolCallID || a.Status != b.Status ||
		len(a.ToolCalls) != len(b.ToolCalls) || len(a.InvalidToolCalls) != len(b.InvalidToolCalls) {
		return false
	}
	if !engine.ValueEqual(a.Content.Value(), b.Content.Value()) {
		return false
	}
	for i := range a.ToolCalls {
		x, y := a.ToolCalls[i], b.ToolCalls[i]
		if x.Name != y.Name || x.ID != y.ID || !engine.ValueEqual(argsValue(x.Args), argsValue(y.Args)) {
			return false
		}
	}
	if len(a.InvalidToolCalls) > 0 || a.Artifact != nil || b.Artifact != nil || a.AdditionalKwargs != nil || b.AdditionalKwargs != nil {
		// rare: compare the whole dicts
		return engine.ValueEqual(a.ToValue(), b.ToValue())
	}
	return true
}

// removed lists the IDs of the messages of before that now lacks.
func removed(before, now []engine.Message) []string {
	keep := make(map[string]bool, len(now))
	for _, m := range now {
		keep[m.ID] = true
	}
	var out []string
	for _, m := range before {
		if m.ID != "" && !keep[m.ID] {
			out = append(out, m.ID)
		}
	}
	return out
}

func writtenKeys(w any) []string {
	switch v := w.(type) {
	case engine.State:
		return slices.Collect(maps.Keys(v))
	case map[string]any:
		return slices.Collect(maps.Keys(v))
	case *engine.Object:
		return v.Keys()
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, writtenKeys(e)...)
		}
		return out
	}
	return nil
}

func objectKeys(v any) []string {
	keys := writtenKeys(v)
	slices.Sort(keys)
	return slices.Compact(keys)
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}
