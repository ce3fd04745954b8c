package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"
)

// DefaultRecursionLimit is the number of supersteps a run may take when
// Config.RecursionLimit is zero (LangGraph's default of 25).
const DefaultRecursionLimit = 25

// Config configures one run. The zero value runs once, without a thread,
// with the default recursion limit.
type Config struct {
	// ThreadID names the thread whose checkpoints the run continues; it
	// is needed with a checkpointer.
	ThreadID string
	// CheckpointID resumes or forks from this checkpoint instead of the
	// thread's newest.
	CheckpointID string
	// RecursionLimit caps the supersteps; 0 means DefaultRecursionLimit.
	RecursionLimit int
	// Context is the runtime context given to nodes and tools
	// (Runtime.Context), like LangGraph's context_schema value.
	Context any
	// MaxConcurrency caps the tasks of one superstep that run at once (0:
	// no cap). The ToolNode applies the same cap to the calls it runs.
	MaxConcurrency int
	// Subgraphs streams the output of subgraphs too, each part with its
	// Namespace (stream's subgraphs=True), and makes GetState give the
	// state of subgraph tasks (get_state's subgraphs=True).
	Subgraphs bool
	// CheckpointNS addresses the checkpoints of a subgraph task, its
	// namespace "node:<task id>" (nested levels joined by "|"), as
	// LangGraph's configurable checkpoint_ns does: GetState and
	// GetStateHistory then read that subgraph's state. Runs and
	// UpdateState refuse it.
	CheckpointNS string
	// Store is the store of this run, used instead of the one the graph
	// was compiled with (CompileOptions.Store); nil means the graph's.
	// It is LangGraph's store given at invocation, which Pregel takes
	// from the runtime in the run's config (_defaults in pregel/main.py:
	// config["configurable"]["__pregel_runtime"].store over self.store):
	// nodes see it as Runtime.Store, tools get it injected (InjectStore,
	// InjectRuntime). A subgraph uses its parent run's store, whatever it
	// was compiled with, as a nested Pregel reads its parent's runtime.
	Store Store
	// Debug, when set, prints the run's update and values chunks to this
	// writer as LangGraph's debug=True prints them (see
	// CompileOptions.Debug); it overrides the graph's.
	Debug io.Writer
}

func (c Config) limitOr(def int) int {
	if c.RecursionLimit > 0 {
		return c.RecursionLimit
	}
	if def > 0 {
		return def
	}
	return DefaultRecursionLimit
}

func (r *run) limit() int { return r.cfg.limitOr(r.g.recursionLimit) }

// store is the run's store: the parent run's for a subgraph, else
// Config.Store, else the graph's own.
func (r *run) store() Store {
	if r.nest != nil {
		return r.nest.parent.store()
	}
	if r.cfg.Store != nil {
		return r.cfg.Store
	}
	return r.g.store
}

// StreamMode selects what Stream yields.
type StreamMode string

// Stream modes.
const (
	// StreamValues yields the whole state after each superstep.
	StreamValues StreamMode = "values"
	// StreamUpdates yields {node: update} as each task finishes, and
	// {"__interrupt__": [...]} when the run pauses.
	StreamUpdates StreamMode = "updates"
	// StreamCustom yields what nodes and tools send to
	// Runtime.StreamWriter.
	StreamCustom StreamMode = "custom"
)

// StreamPart is one item of a stream.
type StreamPart struct {
	// Namespace is nil for the graph's own output and names the subgraph
	// task that produced it otherwise, outermost first ("node:task-id"),
	// as LangGraph's (namespace, chunk) pairs do with subgraphs=True.
	Namespace []string
	Mode      StreamMode
	// Data is a State for values, a map[string]any for updates, and the
	// written value for custom.
	Data any
}

// Result is what Invoke returns: the state at the end of the run and the
// interrupts that paused it, if any.
type Result struct {
	Values     State
	Interrupts []InterruptValue
}

// InterruptKey is the key LangGraph puts pending interrupts under in an
// invoke's output and in update chunks.
const InterruptKey = "__interrupt__"

// Invoke runs the graph to completion or to an interrupt. input is the
// state to start from (a State or map[string]any), nil to continue a
// paused thread, or a Command (resume, update, goto).
func (g *Graph) Invoke(ctx context.Context, input any, cfg Config) (*Result, error) {
	res := &Result{}
	// values mode carries the interrupts too (as {"__interrupt__": [...]}
	// chunks); update chunks, which nothing here reads, are not built
	// invoke reads the output channels, a stream every stream channel
	// (Pregel.invoke passes output_keys=self.output_channels)
	modes := []StreamMode{StreamValues}
	if g.debugWriter(cfg) != nil {
		// debug prints updates too, so interrupts come as update chunks
		// (Pregel.invoke streams ["updates", "values"])
		modes = []StreamMode{StreamUpdates, StreamValues}
	}
	for part, err := range g.stream(ctx, input, cfg, g.stateKeys, modes) {
		if err != nil {
			return res, err
		}
		switch d := part.Data.(type) {
		case State:
			res.Values = d
		case map[string]any:
			if ints, ok := d[InterruptKey].([]InterruptValue); ok {
				res.Interrupts = append(res.Interrupts, ints...)
			}
		}
	}
	return res, nil
}

// Stream runs the graph and yields its output in the requested modes
// (updates when none is given). The run stops when the consumer stops
// iterating; an error ends the sequence.
func (g *Graph) Stream(ctx context.Context, input any, cfg Config, modes ...StreamMode) iter.Seq2[StreamPart, error] {
	return g.stream(ctx, input, cfg, g.streamKeys, modes)
}

// stream runs the graph showing outKeys in values and update chunks.
func (g *Graph) stream(ctx context.Context, input any, cfg Config, outKeys []string, modes []StreamMode) iter.Seq2[StreamPart, error] {
	return func(yield func(StreamPart, error) bool) {
		if len(modes) == 0 {
			modes = []StreamMode{StreamUpdates}
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		r := &run{g: g, ctx: ctx, cfg: cfg, modes: map[StreamMode]bool{}, outKeys: outKeys}
		want := map[StreamMode]bool{}
		for _, m := range modes {
			r.modes[m] = true
			want[m] = true
		}
		var printer *debugPrinter
		if w := g.debugWriter(cfg); w != nil {
			// print_mode = ["updates", "values"]: streamed for printing,
			// yielded only when asked for
			printer = &debugPrinter{w: w, keys: outKeys}
			r.modes[StreamUpdates], r.modes[StreamValues] = true, true
		}
		r.yield = func(p StreamPart) bool {
			if r.stopped {
				return false
			}
			if printer != nil && (p.Namespace == nil || cfg.Subgraphs) {
				printer.print(p)
			}
			if !want[p.Mode] {
				return true
			}
			if !yield(p, nil) {
				r.stopped = true
				cancel()
				return false
			}
			return true
		}
		if cfg.CheckpointNS != "" {
			yield(StreamPart{}, errCheckpointNS("run"))
			return
		}
		if err := r.execute(input); err != nil && !r.stopped {
			yield(StreamPart{}, err)
		}
	}
}

// run is one execution of a graph: the superstep loop of LangGraph's
// PregelLoop (pregel/_loop.py) and PregelRunner (pregel/_runner.py).
type run struct {
	g     *Graph
	ctx   context.Context
	cfg   Config
	modes map[StreamMode]bool
	yield func(StreamPart) bool
	// outKeys are the keys values and update chunks show: the graph's
	// stream keys, or its state keys for Invoke
	outKeys []string

	stopped bool
	saver   Checkpointer
	cpCfg   CheckpointConfig
	cp      *Checkpoint
	meta    CheckpointMetadata
	pending []PendingWrite

	channels      map[string]channel
	step, stop    int
	tasks         []*task
	updated       map[string]bool
	skipDoneTasks bool
	localIDs      int
	seed          string
	custom        chan StreamPart // custom and subgraph output of tasks on goroutines
	// seen are the IDs of the messages streamed in "messages" mode
	seenMu sync.Mutex
	seen   map[string]bool
	// nest is set when the run is a subgraph task's: its parent and
	// namespace
	nest         *nesting
	streamWriter func(any) // r.writeCustom, bound once for every task's Runtime
	resumeMap    map[string]any
	// paused is set when the run stopped at an interrupt, pausedBy holds
	// the interrupts nodes raised (none for interrupt_before/after)
	paused    bool
	pausedBy  []InterruptValue
	pendingMu sync.Mutex
	deferred  *task
	// parentCfg is the config of the checkpoint before the current one
	// (nil: none), for checkpoint events; parentLoaded says it came with
	// the checkpoint the run started from
	parentCfg    *CheckpointConfig
	parentLoaded bool
}

type taskKind int

const (
	pullTask taskKind = iota
	pushTask
)

type task struct {
	id       string
	name     string
	kind     taskKind
	idx      int // push index
	input    State
	node     *pregelNode
	triggers []string
	scratch  *scratchpad

	mu        sync.Mutex
	writes    []write // normalized (IDs assigned)
	raw       []write // as the node wrote them, for streaming
	idCounter int
	err       error
	cached    bool
	// the first writes live here: most tasks write one or two
	writesBuf, rawBuf [2]write
}

// withBuffers puts the task's write lists on their inline buffers.
func (t *task) withBuffers() *task {
	t.writes, t.raw = t.writesBuf[:0], t.rawBuf[:0]
	return t
}

// pathStr is LangGraph's task_path_str of (kind, name|idx): writes are
// applied in this order.
func (t *task) pathStr() string {
	if t.kind == pullTask {
		return "~" + chPull + ", " + t.name
	}
	return fmt.Sprintf("~%s, %010d", chPush, t.idx)
}

func (r *run) execute(input any) (err error) {
	defer r.releaseLists()
	r.saver = r.g.checkpointer
	if r.saver == nil && r.nest != nil {
		// a subgraph compiled without a checkpointer uses its parent's
		r.saver = r.nest.parent.saver
	}
	r.custom = make(chan StreamPart, 64)
	r.streamWriter = r.writeCustom
	if err := r.enter(input); err != nil {
		return err
	}
	for {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		more, interrupted, err := r.tick()
		if err != nil {
			return err
		}
		if interrupted {
			return r.exitInterrupted(nil)
		}
		if !more {
			break
		}
		ints, err := r.runTasks()
		if err != nil {
			return err
		}
		if ints != nil {
			return r.exitInterrupted(ints)
		}
		interrupted, err = r.afterTick()
		if err != nil {
			return err
		}
		if interrupted {
			return r.exitInterrupted(nil)
		}
	}
	if r.step > r.stop {
		return r.g.errorWithCode("GraphRecursionError", fmt.Sprintf("Recursion limit of %d reached without hitting a stop condition. You can increase the limit by setting the `recursion_limit` config key.", r.limit()), "GRAPH_RECURSION_LIMIT")
	}
	return nil
}

func (r *run) enter(input any) error {
	if r.saver != nil && r.cfg.ThreadID == "" {
		return errors.New("run with a checkpointer: Config.ThreadID is required")
	}
	r.cpCfg = CheckpointConfig{ThreadID: r.cfg.ThreadID, CheckpointNS: r.ns(), CheckpointID: r.cfg.CheckpointID}
	var saved *CheckpointTuple
	if r.saver != nil {
		t, err := r.saver.GetTuple(r.ctx, r.cpCfg)
		if err != nil {
			return fmt.Errorf("load checkpoint of thread %q: %w", r.cfg.ThreadID, err)
		}
		if t == nil && r.cfg.CheckpointID != "" {
			return fmt.Errorf("thread %q has no checkpoint %q", r.cfg.ThreadID, r.cfg.CheckpointID)
		}
		saved = t
	}
	if saved == nil {
		r.cp = emptyCheckpoint()
		r.meta = CheckpointMetadata{Step: -2}
	} else {
		// the tuple is the run's own (Checkpointer.GetTuple)
		r.cp = saved.Checkpoint
		r.meta = saved.Metadata
		r.pending = append([]PendingWrite(nil), saved.PendingWrites...)
		r.cpCfg = saved.Config
		r.parentCfg, r.parentLoaded = saved.ParentConfig, true
		// a run from a checkpoint addressed by ID may branch; one from
		// the head expects it to stay the head (ErrCheckpointConflict)
		r.cpCfg.Fork = r.cfg.CheckpointID != ""
	}
	if r.nest != nil {
		r.seed = r.g.seeds.seed(r.cfg.ThreadID+"|"+r.nest.ns, input)
	} else {
		r.seed = r.g.seeds.seed(r.cfg.ThreadID, input)
	}
	r.channels = r.g.channelsFrom(r.cp)
	r.step = r.meta.Step + 1
	r.stop = r.step + r.limit() + 1
	if len(r.cp.UpdatedChannels) > 0 {
		r.updated = map[string]bool{}
		for _, c := range r.cp.UpdatedChannels {
			r.updated[c] = true
		}
	}
	return r.first(input)
}

func emptyCheckpoint() *Checkpoint {
	return &Checkpoint{V: 4, ChannelValues: map[string]any{}, ChannelVersions: map[string]int64{}, VersionsSeen: map[string]map[string]int64{}}
}

func copyCheckpoint(c *Checkpoint) *Checkpoint {
	n := &Checkpoint{V: c.V, ID: c.ID, TS: c.TS, ChannelValues: make(map[string]any, len(c.ChannelValues)), ChannelVersions: make(map[string]int64, len(c.ChannelVersions)), VersionsSeen: make(map[string]map[string]int64, len(c.VersionsSeen)), UpdatedChannels: append([]string(nil), c.UpdatedChannels...)}
	if c.ListPrefix != nil {
		n.ListPrefix = make(map[string]int, len(c.ListPrefix))
		for k, v := range c.ListPrefix {
			n.ListPrefix[k] = v
		}
	}
	for k, v := range c.ChannelValues {
		n.ChannelValues[k] = v
	}
	for k, v := range c.ChannelVersions {
		n.ChannelVersions[k] = v
	}
	for k, m := range c.VersionsSeen {
		mm := make(map[string]int64, len(m))
		for kk, vv := range m {
			mm[kk] = vv
		}
		n.VersionsSeen[k] = mm
	}
	return n
}

func (g *Graph) channelsFrom(cp *Checkpoint) map[string]channel {
	chans := make(map[string]channel, len(g.channels))
	for name, mk := range g.channels {
		c := mk()
		if v, ok := cp.ChannelValues[name]; ok {
			if mc, isMsgs := c.(*messagesChan); isMsgs {
				c = mc.restoreIndexed(v, true, g.lists.get(v))
			} else {
				c = c.restore(v, true)
			}
		}
		chans[name] = c
	}
	return chans
}

func isCommand(v any) (Command, bool) {
	switch t := v.(type) {
	case Command:
		return t, true
	case *Command:
		if t != nil {
			return *t, true
		}
	}
	return Command{}, false
}

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// first handles the run's input: a Command, nothing (resume), or new
// values (LangGraph's PregelLoop._first).
func (r *run) first(input any) error {
	cmd, isCmd := isCommand(input)
	resuming := len(r.cp.ChannelVersions) > 0 && (input == nil || isCmd)
	if isCmd {
		if err := r.applyCommand(cmd); err != nil {
			return err
		}
	}
	if err := r.applyNullWrites(); err != nil {
		return err
	}
	switch {
	case resuming:
		seen := r.cp.VersionsSeen[chInterrupt]
		if seen == nil {
			seen = map[string]int64{}
			r.cp.VersionsSeen[chInterrupt] = seen
		}
		for k, v := range r.cp.ChannelVersions {
			if _, ok := r.channels[k]; ok {
				seen[k] = v
			}
		}
		r.emitValues()
	case input != nil && !isCmd:
		discard, err := r.prepareTasks(false)
		if err != nil {
			return err
		}
		inWrites, err := r.normalize([]write{{channel: Start, value: input}}, "input|"+r.cp.ID)
		if err != nil {
			return err
		}
		upd, err := r.applyWrites(append(discard, &task{name: inputName, writes: inWrites}))
		if err != nil {
			return err
		}
		r.updated = upd
		if err := r.putCheckpoint("input"); err != nil {
			return err
		}
	case input == nil || isCmd:
		if !resuming {
			return NewError("EmptyInputError", "Received no input for __start__")
		}
	}
	return nil
}

// applyCommand checks a Command given as the run's input and saves its
// goto, resume and update as the writes of the null task
// (PregelLoop._first's handling of a Command).
func (r *run) applyCommand(cmd Command) error {
	if cmd.Graph == CommandParent {
		return NewError("InvalidUpdateError", "There is no parent graph")
	}
	resumeIsMap := false
	if cmd.Resume != nil {
		if r.saver == nil {
			return NewError("RuntimeError", "Cannot use Command(resume=...) without checkpointer")
		}
		if m, ok := cmd.Resume.(map[string]any); ok && len(m) > 0 {
			resumeIsMap = true
			for k := range m {
				if !hexID.MatchString(k) {
					resumeIsMap = false
				}
			}
		}
		if !resumeIsMap && len(r.pendingInterrupts()) > 1 {
			return NewError("RuntimeError", "When there are multiple pending interrupts, you must specify the interrupt id when resuming. Docs: https://docs.langchain.com/oss/python/langgraph/add-human-in-the-loop#resume-multiple-interrupts-with-one-invocation.")
		}
	}
	var ws []write
	dests, err := destinations(cmd.Goto)
	if err != nil {
		return fmt.Errorf("command goto: %w", err)
	}
	for _, d := range dests {
		switch x := d.(type) {
		case Send:
			ws = append(ws, write{channel: chTasks, value: x})
		case string:
			ws = append(ws, write{channel: branchTo(x), value: Start})
		}
	}
	if cmd.Resume != nil && !resumeIsMap {
		ws = append(ws, write{channel: chResume, value: cmd.Resume})
	}
	for _, k := range sortedKeys(cmd.Update) {
		ws = append(ws, write{channel: k, value: cmd.Update[k]})
	}
	if len(ws) == 0 && !resumeIsMap {
		return NewError("EmptyInputError", "Received empty Command input")
	}
	r.resumeMap = nil
	if resumeIsMap {
		r.resumeMap = cmd.Resume.(map[string]any)
	}
	if len(ws) > 0 {
		ws, err = r.normalize(ws, "null|"+r.cp.ID)
		if err != nil {
			return err
		}
		if err := r.putWrites(nil, nullTaskID, ws); err != nil {
			return err
		}
	}
	return nil
}

// applyNullWrites applies the pending writes of the null task (what a
// Command given as input wrote) before the first step is planned.
func (r *run) applyNullWrites() error {
	var null []write
	for _, w := range r.pending {
		if w.TaskID == nullTaskID {
			null = append(null, write{channel: w.Channel, value: w.Value})
		}
	}
	if len(null) > 0 {
		upd, err := r.applyWrites([]*task{{name: inputName, writes: null}})
		if err != nil {
			return err
		}
		if r.updated != nil {
			for k := range upd {
				r.updated[k] = true
			}
		}
	}
	return nil
}

func (r *run) pendingInterrupts() map[string]bool {
	interrupts := map[string]string{}
	resumed := map[string]bool{}
	for _, w := range r.pending {
		switch w.Channel {
		case chInterrupt:
			if list, ok := w.Value.([]InterruptValue); ok && len(list) > 0 {
				interrupts[w.TaskID] = list[0].ID
			}
		case chResume:
			resumed[w.TaskID] = true
		}
	}
	out := map[string]bool{}
	for tid, id := range interrupts {
		if !resumed[tid] {
			out[id] = true
		}
	}
	return out
}

// tick prepares the next superstep (PregelLoop.tick). It reports whether
// there is work, or whether the run pauses before it.
func (r *run) tick() (more, interrupted bool, err error) {
	if r.step > r.stop {
		return false, false, nil
	}
	tasks, err := r.prepareTasks(true)
	if err != nil {
		return false, false, err
	}
	r.tasks = tasks
	r.emitCheckpoint()
	if len(tasks) == 0 {
		return false, false, nil
	}
	if r.skipDoneTasks && len(r.pending) > 0 {
		r.matchWrites()
	}
	if len(r.g.interruptBefore) > 0 && r.shouldInterrupt(r.g.interruptBefore) {
		return false, true, nil
	}
	r.emitTaskStarts()
	for _, t := range r.tasks {
		if len(t.writes) > 0 {
			r.outputWrites(t, t.writes, true)
		}
	}
	return true, false, nil
}

func (r *run) matchWrites() {
	byID := map[string]*task{}
	for _, t := range r.tasks {
		byID[t.id] = t
	}
	for _, w := range r.pending {
		switch w.Channel {
		case chError, chInterrupt, chResume:
			continue
		}
		if t := byID[w.TaskID]; t != nil {
			t.writes = append(t.writes, write{channel: w.Channel, value: w.Value})
			t.cached = true
		}
	}
}

// shouldInterrupt: some channel changed since the last interrupt and a task
// about to run (or that ran) is in nodes.
func (r *run) shouldInterrupt(nodes []string) bool {
	seen := r.cp.VersionsSeen[chInterrupt]
	changed := false
	for ch, v := range r.cp.ChannelVersions {
		if v > seen[ch] {
			changed = true
			break
		}
	}
	if !changed {
		return false
	}
	for _, t := range r.tasks {
		if contains(nodes, "*") && !t.node.hidden {
			return true
		}
		if contains(nodes, t.name) {
			return true
		}
	}
	return false
}

// prepareTasks lists the tasks of the next superstep: one per pending Send,
// then one per node whose trigger channels changed since it last ran
// (prepare_next_tasks).
func (r *run) prepareTasks(forExec bool) ([]*task, error) {
	var tasks []*task
	cpID := r.cp.ID
	stepStr := strconv.Itoa(r.step)
	if tc, ok := r.channels[chTasks].get(); ok {
		for idx, p := range tc.([]any) {
			send, ok := p.(Send)
			if !ok {
				continue
			}
			node := r.g.nodes[send.Node]
			if node == nil {
				continue
			}
			t := (&task{
				id:       uuidFromHash(cpID, r.cpCfg.CheckpointNS, stepStr, send.Node, chPush, strconv.Itoa(idx)),
				name:     send.Node,
				kind:     pushTask,
				idx:      idx,
				node:     node,
				triggers: []string{chPush},
			}).withBuffers()
			switch a := send.Arg.(type) {
			case State:
				t.input = a
			case map[string]any:
				t.input = State(a)
			default:
				t.input = State{SendArgKey: a}
			}
			tasks = append(tasks, t)
		}
	}
	if len(r.cp.ChannelVersions) == 0 {
		return tasks, nil
	}
	var candidates []string
	if r.updated != nil {
		set := map[string]bool{}
		for ch := range r.updated {
			for _, n := range r.g.triggerToNodes[ch] {
				set[n] = true
			}
		}
		candidates = sortedKeys(set)
	} else {
		candidates = r.g.nodeOrder
	}
	for _, name := range candidates {
		node := r.g.nodes[name]
		if node == nil || !r.triggered(node) {
			continue
		}
		triggers := node.taskTriggers
		t := (&task{
			id:       uuidFromHash(append([]string{cpID, r.cpCfg.CheckpointNS, stepStr, name, chPull}, triggers...)...),
			name:     name,
			kind:     pullTask,
			node:     node,
			triggers: triggers,
		}).withBuffers()
		if node.single != "" {
			v, ok := r.channels[node.single].get()
			if !ok {
				continue
			}
			t.input = State{SendArgKey: v}
		} else {
			t.input = r.readState(node.input, nil)
		}
		tasks = append(tasks, t)
	}
	for _, t := range tasks {
		t.scratch = r.newScratchpad(t)
	}
	return tasks, nil
}

func (r *run) triggered(n *pregelNode) bool {
	seen := r.cp.VersionsSeen[n.name]
	for _, ch := range n.triggers {
		c := r.channels[ch]
		if c == nil {
			continue
		}
		if _, ok := c.get(); !ok {
			continue
		}
		if seen == nil || r.cp.ChannelVersions[ch] > seen[ch] {
			return true
		}
	}
	return false
}

// SendArgKey is the state key under which a node reached by a Send whose
// argument is not a State finds that argument.
const SendArgKey = "__send_arg__"

// readState reads keys from the channels (skipping empty ones) and the
// managed values for sp's step.
func (r *run) readState(keys []string, sp *scratchpad) State {
	s := make(State, len(keys))
	step, stop := r.step, r.stop
	if sp != nil {
		step, stop = sp.step, sp.stop
	}
	for _, k := range keys {
		if m, ok := r.g.managed[k]; ok {
			s[k] = managedValue(m, step, stop)
			continue
		}
		if c := r.channels[k]; c != nil {
			if v, ok := c.get(); ok {
				s[k] = v
			}
		}
	}
	return s
}

func managedValue(m Managed, step, stop int) any {
	switch m {
	case ManagedRemainingSteps:
		return stop - step
	case ManagedIsLastStep:
		return step+1 >= stop
	}
	return nil
}

func (r *run) newScratchpad(t *task) *scratchpad {
	sp := &scratchpad{step: r.step, stop: r.stop, run: r, task: t, nullIdx: -1}
	for i, w := range r.pending {
		if w.TaskID == nullTaskID && w.Channel == chResume {
			sp.nullIdx = i
			break
		}
	}
	for _, w := range r.pending {
		if w.TaskID == t.id && w.Channel == chResume {
			if list, ok := w.Value.([]any); ok {
				sp.resume = append([]any(nil), list...)
			} else {
				sp.resume = []any{w.Value}
			}
			break
		}
	}
	if r.resumeMap != nil {
		if v, ok := r.resumeMap[hashHex(sp.taskNS())]; ok {
			sp.resume = append(sp.resume, v)
		}
	}
	return sp
}

// nullResume returns the resume value given to the whole run (the null
// task's), if there is one not yet taken; consume takes it.
func (sp *scratchpad) nullResume(consume bool) (any, bool) {
	r := sp.run
	if r == nil {
		return nil, false
	}
	r.pendingMu.Lock()
	defer r.pendingMu.Unlock()
	i := sp.nullIdx
	if i < 0 || i >= len(r.pending) || r.pending[i].TaskID != nullTaskID || r.pending[i].Channel != chResume {
		if r.nest != nil {
			// a subgraph's interrupt takes the resume value given to the
			// graph above (parent_scratchpad.get_null_resume)
			return r.nest.sp.nullResume(consume)
		}
		return nil, false
	}
	v := r.pending[i].Value
	if consume {
		r.pending = append(r.pending[:i:i], r.pending[i+1:]...)
		sp.nullIdx = -1
	}
	return v, true
}

// recordWrite adds w to the task's writes (the resume values an
// interrupt consumed).
func (sp *scratchpad) recordWrite(w write) {
	t := sp.task
	if sp.run == nil {
		return
	}
	t.mu.Lock()
	t.writes = append(t.writes, w)
	t.raw = append(t.raw, w)
	t.mu.Unlock()
}

type taskDone struct {
	t   *task
	err error
}

// runTasks runs the superstep's tasks concurrently and commits each as it
// finishes. It returns the interrupts raised by nodes, or the error of the
// first failing task in task order.
func (r *run) runTasks() ([]InterruptValue, error) {
	var todo []*task
	for _, t := range r.tasks {
		if len(t.writes) == 0 {
			todo = append(todo, t)
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}
	// subgraph output, like custom output, is forwarded from the task's
	// goroutine to this loop
	fast := len(todo) == 1 && !r.modes[StreamCustom] && !r.modes[StreamMessages] && !r.cfg.Subgraphs
	var interrupts []InterruptValue
	var failed []*task
	settle := func(d taskDone) error {
		d.t.err = d.err
		var ie *InterruptError
		switch {
		case d.err == nil:
			return r.commit(d.t, !fast)
		case errors.As(d.err, &ie):
			// a subgraph paused by interrupt_before/after raises an
			// interrupt without values: the step is interrupted all the same
			if interrupts == nil {
				interrupts = []InterruptValue{}
			}
			interrupts = append(interrupts, ie.Interrupts...)
			return r.commitInterrupt(d.t, ie)
		default:
			failed = append(failed, d.t)
			return r.commitError(d.t, d.err, !fast)
		}
	}
	if fast {
		// a lone task runs on this goroutine: nothing to overlap it with,
		// and a fresh goroutine would only grow a new stack for it
		if err := settle(taskDone{t: todo[0], err: r.execTask(todo[0])}); err != nil {
			return nil, err
		}
		return r.finishTasks(todo, failed, interrupts, fast)
	}
	done := make(chan taskDone, len(todo))
	var sem chan struct{}
	if r.cfg.MaxConcurrency > 0 {
		sem = make(chan struct{}, r.cfg.MaxConcurrency)
	}
	var wg sync.WaitGroup
	wg.Add(len(todo))
	// one closure for all tasks; each goroutine gets only its task
	run := func(t *task) {
		defer wg.Done()
		if sem != nil {
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-r.ctx.Done():
				done <- taskDone{t: t, err: r.ctx.Err()}
				return
			}
		}
		done <- taskDone{t: t, err: r.execTask(t)}
	}
	for _, t := range todo {
		go run(t)
	}
	for remaining := len(todo); remaining > 0; {
		select {
		case d := <-done:
			remaining--
			// what the task streamed before it finished comes first
			r.drainCustom()
			if err := settle(d); err != nil {
				wg.Wait()
				return nil, err
			}
		case p := <-r.custom:
			r.yieldPart(p)
		}
	}
	wg.Wait()
	r.drainCustom()
	return r.finishTasks(todo, failed, interrupts, fast)
}

// finishTasks turns a superstep's settled tasks into its outcome: the
// first failure in task-path order, else the interrupts, else nothing.
func (r *run) finishTasks(todo, failed []*task, interrupts []InterruptValue, fast bool) ([]InterruptValue, error) {
	if len(failed) > 0 {
		sort.Slice(failed, func(i, j int) bool { return failed[i].pathStr() < failed[j].pathStr() })
		t := failed[0]
		return nil, &NodeError{Step: r.step, Node: t.name, Err: t.err}
	}
	if interrupts != nil {
		// order interrupts by task path so a resume map is stable
		ints := r.sortedInterrupts()
		if ints == nil {
			ints = []InterruptValue{}
		}
		return ints, nil
	}
	if fast {
		r.deferred = todo[0]
	}
	return nil, nil
}

func (r *run) sortedInterrupts() []InterruptValue {
	ts := append([]*task(nil), r.tasks...)
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].pathStr() < ts[j].pathStr() })
	var out []InterruptValue
	for _, t := range ts {
		var ie *InterruptError
		if errors.As(t.err, &ie) {
			out = append(out, ie.Interrupts...)
		}
	}
	return out
}

func (r *run) drainCustom() {
	for {
		select {
		case p := <-r.custom:
			r.yieldPart(p)
		default:
			return
		}
	}
}

// releaseLists gives back the spare capacity of the message arrays the
// run's channels own, so the next run of the thread may append in place.
func (r *run) releaseLists() {
	for _, c := range r.channels {
		if mc, ok := c.(*messagesChan); ok {
			mc.release()
		}
	}
}

// writeCustom is Runtime.StreamWriter: it streams v in custom mode.
func (r *run) writeCustom(v any) {
	if !r.modes[StreamCustom] {
		return
	}
	r.forward(StreamPart{Namespace: r.namespace(), Mode: StreamCustom, Data: v})
}

// forward hands a part made on a task's goroutine to the run's loop, which
// yields it (yieldPart); false when the run is over.
func (r *run) forward(p StreamPart) bool {
	select {
	case r.custom <- p:
		return true
	case <-r.ctx.Done():
		return false
	}
}

// yieldPart yields a part on the run's loop: a custom part of the run's
// own tasks, or a part a subgraph forwarded.
func (r *run) yieldPart(p StreamPart) {
	if p.Namespace == nil && !r.modes[p.Mode] {
		return
	}
	r.yield(p)
}

// taskContext is a task's context: the run's, carrying the task's Runtime
// and scratchpad (one allocation where two context.WithValue took three).
type taskContext struct {
	context.Context
	rt Runtime
	sp *scratchpad
}

// Value returns the task's Runtime and scratchpad under their keys and
// asks the run's context for anything else.
func (c *taskContext) Value(key any) any {
	switch key.(type) {
	case runtimeKey:
		return &c.rt
	case scratchpadKey:
		return c.sp
	}
	return c.Context.Value(key)
}

// execTask runs one task, retried under its retry policies.
func (r *run) execTask(t *task) error {
	if t.node.retry == nil && r.g.retry == nil {
		return r.attemptTask(t)
	}
	return r.runWithRetry(t, func() error { return r.attemptTask(t) })
}

// attemptTask runs one attempt of a task: the node, then its writers.
func (r *run) attemptTask(t *task) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("node %q panicked: %v", t.name, p)
		}
	}()
	ctx := &taskContext{Context: r.ctx, sp: t.scratch, rt: Runtime{
		Context:        r.cfg.Context,
		Store:          r.store(),
		Step:           t.scratch.step,
		RemainingSteps: t.scratch.stop - t.scratch.step,
		ThreadID:       r.cfg.ThreadID,
		Node:           t.name,
		Clock:          r.g.clock,
		MaxConcurrency: r.cfg.MaxConcurrency,
		StreamWriter:   r.streamWriter,
	}}
	r.seeNodeInput(t)
	var out any
	if t.node.fn != nil {
		out, err = t.node.fn(ctx, t.input)
		if err != nil {
			return err
		}
	} else {
		out = t.input[SendArgKey]
	}
	newID := func() string {
		t.idCounter++
		return uuidFromHash(r.cp.ID, t.id, strconv.Itoa(t.idCounter))
	}
	emit := func(ws ...write) {
		t.mu.Lock()
		defer t.mu.Unlock()
		for _, w := range ws {
			t.raw = append(t.raw, w)
			nw, err := r.normalizeOne(w, newID)
			if err != nil {
				nw = w
			}
			t.writes = append(t.writes, nw)
		}
	}
	read := func() (State, error) {
		t.mu.Lock()
		ws := append([]write(nil), t.writes...)
		// LangGraph's fresh read runs the reducers over the task's writes,
		// and add_messages gives their messages IDs in place: from here on
		// the streamed update shows them.
		for i := range t.raw {
			if i < len(t.writes) && t.raw[i].channel == t.writes[i].channel && contains(t.node.input, t.raw[i].channel) {
				t.raw[i] = t.writes[i]
			}
		}
		t.mu.Unlock()
		return r.freshState(t, ws)
	}
	for _, wr := range t.node.writers {
		if err := wr(ctx, out, read, emit); err != nil {
			return err
		}
	}
	r.emitNodeMessages(t)
	return nil
}

// freshState is the task's view of the state with its own writes applied
// (local_read with fresh=True), for routers.
func (r *run) freshState(t *task, ws []write) (State, error) {
	keys := t.node.input
	if keys == nil && t.node.single != "" {
		keys = r.g.inputKeys
	}
	s := make(State, len(keys))
	for _, k := range keys {
		if m, ok := r.g.managed[k]; ok {
			s[k] = managedValue(m, t.scratch.step, t.scratch.stop)
			continue
		}
		c := r.channels[k]
		if c == nil {
			continue
		}
		var vals []any
		for _, w := range ws {
			if w.channel == k {
				vals = append(vals, w.value)
			}
		}
		if len(vals) > 0 {
			var cc channel
			if mc, ok := c.(*messagesChan); ok {
				// a single task's writes are the superstep's: its fresh
				// read may append where the superstep will (see fork)
				cc = mc.fork(len(r.tasks) == 1)
			} else {
				cc = c.restore(c.checkpoint())
			}
			if _, err := cc.update(vals); err != nil {
				return nil, err
			}
			c = cc
		}
		if v, ok := c.get(); ok {
			s[k] = v
		}
	}
	return s, nil
}

func (r *run) normalizeOne(w write, newID func() string) (write, error) {
	var n writeNormalizer
	switch c := r.channels[w.channel].(type) {
	case *messagesChan:
		n = AddMessagesReducer{}
	case *binop:
		wn, ok := c.reducer.(writeNormalizer)
		if !ok {
			return w, nil
		}
		n = wn
	default:
		return w, nil
	}
	v, err := n.normalizeWrite(w.value, newID)
	if err != nil {
		return w, err
	}
	return write{channel: w.channel, value: v}, nil
}

// normalize fixes up writes that do not come from a task (input, commands,
// state updates), with IDs seeded by seed.
func (r *run) normalize(ws []write, seed string) ([]write, error) {
	n := 0
	out := make([]write, len(ws))
	for i, w := range ws {
		if w.channel == Start {
			// the input dict: normalize the message keys inside it
			if m, ok := asStateMap(w.value); ok {
				nm := make(State, len(m))
				for _, k := range sortedKeys(m) {
					nw, err := r.normalizeOne(write{channel: k, value: m[k]}, func() string {
						n++
						return uuidFromHash(r.seed, seed, strconv.Itoa(n))
					})
					if err != nil {
						return nil, fmt.Errorf("input key %q: %w", k, err)
					}
					nm[k] = nw.value
				}
				out[i] = write{channel: Start, value: nm}
				continue
			}
			out[i] = w
			continue
		}
		nw, err := r.normalizeOne(w, func() string {
			n++
			return uuidFromHash(r.seed, seed, strconv.Itoa(n))
		})
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", w.channel, err)
		}
		out[i] = nw
	}
	return out, nil
}

func asStateMap(v any) (map[string]any, bool) {
	switch t := v.(type) {
	case State:
		return t, true
	case map[string]any:
		return t, true
	}
	return nil, false
}

func (r *run) commit(t *task, stream bool) error {
	ws := t.writes
	if len(ws) == 0 {
		ws = []write{{channel: chNoWrites}}
		t.writes = ws
	}
	if err := r.putWrites(t, t.id, ws); err != nil {
		return err
	}
	if stream {
		r.outputWrites(t, t.raw, false)
		r.emitTaskResult(t, t.raw, nil, nil)
	}
	return nil
}

func (r *run) commitInterrupt(t *task, ie *InterruptError) error {
	ws := []write{{channel: chInterrupt, value: ie.Interrupts}}
	for _, w := range t.writes {
		if w.channel == chResume {
			ws = append(ws, w)
		}
	}
	if err := r.putWrites(t, t.id, ws); err != nil {
		return err
	}
	if !t.node.hidden && (r.modes[StreamUpdates] || r.modes[StreamValues]) {
		mode := StreamUpdates
		if !r.modes[StreamUpdates] {
			mode = StreamValues
		}
		r.emit(StreamPart{Mode: mode, Data: map[string]any{InterruptKey: ie.Interrupts}})
	}
	r.emitTaskResult(t, ws, nil, ie.Interrupts)
	return nil
}

// commitError records a task's failure; stream says whether its
// task_result event is streamed (not for a lone task, whose error
// LangGraph raises before the queued event is read).
func (r *run) commitError(t *task, err error, stream bool) error {
	ws := append(append([]write(nil), t.writes...), write{channel: chError, value: ErrorRepr(err)})
	if err := r.putWrites(t, t.id, ws); err != nil {
		return err
	}
	if stream {
		r.emitTaskResult(t, nil, err, nil)
	}
	return nil
}

// putWrites records a task's writes against the current checkpoint
// (PregelLoop.put_writes).
func (r *run) putWrites(t *task, taskID string, ws []write) error {
	r.pendingMu.Lock()
	if taskID == nullTaskID {
		// writes of the null task accumulate, special channels deduplicated
		var kept []PendingWrite
		for _, p := range r.pending {
			if p.TaskID == taskID && isSpecial(p.Channel) && hasChannel(ws, p.Channel) {
				continue
			}
			kept = append(kept, p)
		}
		r.pending = kept
	} else if slices.ContainsFunc(r.pending, func(p PendingWrite) bool { return p.TaskID == taskID }) {
		// a task's new writes replace its old ones
		kept := r.pending[:0:0]
		for _, p := range r.pending {
			if p.TaskID != taskID {
				kept = append(kept, p)
			}
		}
		r.pending = kept
	}
	first := len(r.pending)
	for _, w := range ws {
		r.pending = append(r.pending, PendingWrite{TaskID: taskID, Channel: w.channel, Value: w.value})
	}
	// r.pending is only ever replaced or appended to, so saved stays as is
	saved := r.pending[first:len(r.pending):len(r.pending)]
	r.pendingMu.Unlock()
	if r.saver != nil && r.cp.ID != "" {
		var all []PendingWrite
		if taskID == nullTaskID {
			for _, p := range r.pending {
				if p.TaskID == nullTaskID {
					all = append(all, p)
				}
			}
		} else {
			all = saved
		}
		if err := r.saver.PutWrites(r.ctx, r.cpCfg, all, taskID); err != nil {
			return fmt.Errorf("save writes of task %s: %w", taskID, err)
		}
	}
	return nil
}

func isSpecial(ch string) bool {
	switch ch {
	case chError, chInterrupt, chResume, chNoWrites, chReturn, chTasks:
		return true
	}
	return false
}

func hasChannel(ws []write, ch string) bool {
	for _, w := range ws {
		if w.channel == ch {
			return true
		}
	}
	return false
}

// outputWrites streams a task's update (map_output_updates).
func (r *run) outputWrites(t *task, ws []write, cached bool) {
	if t.node.hidden || !r.modes[StreamUpdates] || len(ws) == 0 {
		return
	}
	if ws[0].channel == chError || ws[0].channel == chInterrupt {
		return
	}
	r.emit(StreamPart{Mode: StreamUpdates, Data: r.updateChunk(t, ws, cached)})
}

func (r *run) updateChunk(t *task, ws []write, cached bool) map[string]any {
	out := map[string]bool{}
	for _, k := range r.outKeys {
		out[k] = true
	}
	counts := map[string]int{}
	found := false
	for _, w := range ws {
		if out[w.channel] {
			counts[w.channel]++
			found = true
		}
	}
	var value any
	if found {
		multi := false
		for _, c := range counts {
			if c > 1 {
				multi = true
			}
		}
		if multi {
			var list []any
			for _, w := range ws {
				if out[w.channel] {
					list = append(list, State{w.channel: w.value})
				}
			}
			value = list
		} else {
			s := State{}
			for _, w := range ws {
				if out[w.channel] {
					s[w.channel] = w.value
				}
			}
			value = s
		}
	}
	chunk := map[string]any{t.name: value}
	if cached {
		chunk["__metadata__"] = map[string]any{"cached": true}
	}
	return chunk
}

func (r *run) emit(p StreamPart) {
	if !r.modes[p.Mode] {
		return
	}
	r.yield(p)
}

func (r *run) emitValues() {
	if !r.modes[StreamValues] {
		return
	}
	r.yield(StreamPart{Mode: StreamValues, Data: r.readState(r.outKeys, nil)})
}

// afterTick applies the superstep's writes, streams values, and takes the
// checkpoint (PregelLoop.after_tick).
func (r *run) afterTick() (interrupted bool, err error) {
	if t := r.deferred; t != nil {
		r.deferred = nil
		r.outputWrites(t, t.writes, false)
		r.emitTaskResult(t, t.writes, nil, nil)
	}
	upd, err := r.applyWrites(r.tasks)
	if err != nil {
		return false, err
	}
	r.updated = upd
	if r.outputUpdated(upd, r.tasks) {
		r.emitValues()
	}
	r.pendingMu.Lock()
	r.pending = nil
	r.pendingMu.Unlock()
	r.skipDoneTasks = true
	if err := r.putCheckpoint("loop"); err != nil {
		return false, err
	}
	if len(r.g.interruptAfter) > 0 && r.shouldInterrupt(r.g.interruptAfter) {
		return true, nil
	}
	return false, nil
}

func (r *run) outputUpdated(upd map[string]bool, tasks []*task) bool {
	hit := false
	for _, k := range r.outKeys {
		if upd[k] {
			hit = true
		}
	}
	if !hit {
		return false
	}
	for _, t := range tasks {
		for _, w := range t.writes {
			if contains(r.outKeys, w.channel) {
				return true
			}
		}
	}
	return false
}

// applyWrites applies the tasks' writes to the channels in task-path order
// and bumps versions (apply_writes in pregel/_algo.py). It returns the
// channels that changed.
func (r *run) applyWrites(tasks []*task) (map[string]bool, error) {
	sorted := tasks
	if len(tasks) > 1 {
		sorted = append([]*task(nil), tasks...)
		sort.SliceStable(sorted, func(i, j int) bool { return taskSortKey(sorted[i]) < taskSortKey(sorted[j]) })
	}
	bump := false
	for _, t := range sorted {
		if len(t.triggers) > 0 {
			bump = true
		}
	}
	r.markSeen(sorted)
	next := r.nextVersion()
	r.consumeTriggers(sorted, next)
	// the writes per channel, channels in the order first written; a
	// step writes few channels, so slices beat maps here
	var order []string
	n := 0
	for _, t := range sorted {
		for _, w := range t.writes {
			switch w.channel {
			case chNoWrites, chPush, chResume, chInterrupt, chReturn, chError:
				continue
			}
			if _, ok := r.channels[w.channel]; !ok {
				continue
			}
			n++
			if !slices.Contains(order, w.channel) {
				order = append(order, w.channel)
			}
		}
	}
	// every channel's writes, in task order, one after another in buf
	buf := make([]any, 0, n)
	updated := make(map[string]bool, len(order))
	for _, ch := range order {
		start := len(buf)
		for _, t := range sorted {
			for _, w := range t.writes {
				if w.channel == ch {
					buf = append(buf, w.value)
				}
			}
		}
		c := r.channels[ch]
		changed, err := c.update(buf[start:len(buf):len(buf)])
		if err != nil {
			return nil, err
		}
		if changed {
			r.cp.ChannelVersions[ch] = next
			if _, ok := c.get(); ok {
				updated[ch] = true
			}
		}
	}
	if bump {
		if err := r.updateUnwritten(updated, next); err != nil {
			return nil, err
		}
	}
	return updated, nil
}

// markSeen records, for each task's node, the versions of the channels
// that triggered it.
func (r *run) markSeen(sorted []*task) {
	for _, t := range sorted {
		for _, ch := range t.triggers {
			if v, ok := r.cp.ChannelVersions[ch]; ok {
				seen := r.cp.VersionsSeen[t.name]
				if seen == nil {
					seen = map[string]int64{}
					r.cp.VersionsSeen[t.name] = seen
				}
				seen[ch] = v
			}
		}
	}
}

// nextVersion is one above the highest channel version.
func (r *run) nextVersion() int64 {
	var max int64
	for _, v := range r.cp.ChannelVersions {
		if v > max {
			max = v
		}
	}
	return max + 1
}

// consumeTriggers lets every channel that triggered a task consume its
// value, once, giving a channel that changed by it version next.
func (r *run) consumeTriggers(sorted []*task, next int64) {
	var consumed []string // a step has few triggers
	for _, t := range sorted {
		for _, ch := range t.triggers {
			if slices.Contains(consumed, ch) {
				continue
			}
			consumed = append(consumed, ch)
			if c := r.channels[ch]; c != nil && ch != chTasks {
				if c.consume() {
					r.cp.ChannelVersions[ch] = next
				}
			}
		}
	}
}

// updateUnwritten gives every channel with a value that the step did not
// write an empty update (ephemeral values clear), in channel order, and
// adds those that changed and still hold a value to updated.
func (r *run) updateUnwritten(updated map[string]bool, next int64) error {
	for _, ch := range r.g.channelOrder {
		if updated[ch] {
			continue
		}
		c := r.channels[ch]
		if _, ok := c.get(); !ok {
			continue
		}
		changed, err := c.update(nil)
		if err != nil {
			return err
		}
		if changed {
			r.cp.ChannelVersions[ch] = next
			if _, ok := c.get(); ok {
				updated[ch] = true
			}
		}
	}
	return nil
}

func taskSortKey(t *task) string {
	if t.name == inputName || t.node == nil {
		return "~"
	}
	return t.pathStr()
}

// putCheckpoint takes a checkpoint of the channels and advances the step
// (PregelLoop._put_checkpoint).
func (r *run) putCheckpoint(source string) error {
	if r.saver == nil {
		// nothing stores it: the run needs only the versions and an ID
		// (the IDs of the next step's messages are derived from it)
		r.localIDs++
		r.cp = &Checkpoint{V: 4, ID: uuidFromHash("checkpoint", r.seed, strconv.Itoa(r.localIDs)), ChannelVersions: r.cp.ChannelVersions, VersionsSeen: r.cp.VersionsSeen}
		r.meta = CheckpointMetadata{Source: source, Step: r.step}
		r.step++
		return nil
	}
	values := make(map[string]any, len(r.cp.ChannelVersions))
	for ch := range r.cp.ChannelVersions {
		c := r.channels[ch]
		if c == nil {
			continue
		}
		if v, ok := c.checkpoint(); ok {
			values[ch] = v
		}
	}
	upd := make([]string, 0, len(r.updated))
	for ch := range r.updated {
		upd = append(upd, ch)
	}
	sort.Strings(upd)
	var prefix map[string]int
	for ch := range values {
		switch c := r.channels[ch].(type) {
		case *binop:
			if c.prefix >= 0 {
				if prefix == nil {
					prefix = map[string]int{}
				}
				prefix[ch] = c.prefix
			}
			c.resetPrefix()
		case *messagesChan:
			if prefix == nil {
				prefix = map[string]int{}
			}
			prefix[ch] = c.prefix
			c.resetPrefix()
			r.g.lists.put(c)
		}
	}
	cp := &Checkpoint{V: 4, TS: r.g.clock.Now().UTC().Format(time.RFC3339Nano), ChannelValues: values, ChannelVersions: r.cp.ChannelVersions, VersionsSeen: r.cp.VersionsSeen, UpdatedChannels: upd, ListPrefix: prefix}
	parents := map[string]string{}
	if n := r.nest; n != nil && n.parent.saver != nil {
		// a subgraph's checkpoint names its parents' (metadata "parents")
		for k, v := range n.parent.meta.Parents {
			parents[k] = v
		}
		parents[n.parent.ns()] = n.parent.cpCfg.CheckpointID
	}
	r.meta = CheckpointMetadata{Source: source, Step: r.step, Parents: parents}
	// Put keeps a copy (Checkpointer.Put), so the run goes on with cp
	cfg, err := r.saver.Put(r.ctx, r.cpCfg, cp, r.meta)
	if err != nil {
		return fmt.Errorf("save checkpoint of thread %q at step %d: %w", r.cfg.ThreadID, r.step, err)
	}
	cp.ID = cfg.CheckpointID
	r.parentCfg, r.parentLoaded = nil, false
	if r.cpCfg.CheckpointID != "" {
		prev := r.cpCfg
		r.parentCfg = &prev
	}
	r.cpCfg = cfg
	// cp shares its version maps with the checkpoint it replaces, which
	// nothing else holds
	r.cp = cp
	r.step++
	return nil
}

// exitInterrupted ends a paused run: streams the interrupt and the state.
func (r *run) exitInterrupted(nodeInterrupts []InterruptValue) error {
	r.paused, r.pausedBy = true, nodeInterrupts
	if nodeInterrupts == nil {
		// interrupt_before / interrupt_after carry no value
		if r.modes[StreamUpdates] {
			r.emit(StreamPart{Mode: StreamUpdates, Data: map[string]any{InterruptKey: []InterruptValue{}}})
		}
		return nil
	}
	// the finished tasks of the interrupted step count for the output
	var withWrites []*task
	for _, t := range r.tasks {
		if t.err == nil && len(t.writes) > 0 {
			withWrites = append(withWrites, t)
		}
	}
	if len(withWrites) > 0 {
		upd, err := r.applyWrites(withWrites)
		if err != nil {
			return err
		}
		if r.outputUpdated(upd, withWrites) {
			r.emitValues()
		}
	}
	return nil
}
