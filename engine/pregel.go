package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// modeSet is a set of stream modes, a bit each (a superstep asks it a
// dozen times).
type modeSet uint16

// modeBit is the bit of m; modes the engine does not know share the last.
func modeBit(m StreamMode) modeSet {
	switch m {
	case StreamValues:
		return 1 << 0
	case StreamUpdates:
		return 1 << 1
	case StreamCustom:
		return 1 << 2
	case StreamMessages:
		return 1 << 3
	case StreamCheckpoints:
		return 1 << 4
	case StreamTasks:
		return 1 << 5
	case StreamDebug:
		return 1 << 6
	}
	return 1 << 15
}

// has reports whether m is in the set.
func (s modeSet) has(m StreamMode) bool { return s&modeBit(m) != 0 }

// add puts m in the set.
func (s *modeSet) add(m StreamMode) { *s |= modeBit(m) }

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
	if g.debugWriter(cfg) != nil {
		return g.invokeStreamed(ctx, input, cfg, res)
	}
	if cfg.CheckpointNS != "" {
		return res, errCheckpointNS("run")
	}
	// invoke reads the output channels, a stream every stream channel
	// (Pregel.invoke passes output_keys=self.output_channels). Its values
	// are the last values chunk, which the run keeps without building a
	// State for every superstep (valuesCapture); values mode carries the
	// interrupts too (as {"__interrupt__": [...]} chunks).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := g.newRun(ctx, cfg, g.stateKeys, []StreamMode{StreamValues})
	r.capture = &valuesCapture{}
	r.yield = func(p StreamPart) bool {
		switch d := p.Data.(type) {
		case State:
			// a subgraph's values, forwarded with Config.Subgraphs
			r.capture.taken, res.Values = false, d
		case map[string]any:
			if ints, ok := d[InterruptKey].([]InterruptValue); ok {
				res.Interrupts = append(res.Interrupts, ints...)
			}
		}
		return true
	}
	err := r.execute(input)
	if r.capture.taken {
		res.Values = r.capture.state(r.outRefs)
	}
	return res, err
}

// invokeStreamed is Invoke with a debug printer: the run streams updates
// and values for printing.
func (g *Graph) invokeStreamed(ctx context.Context, input any, cfg Config, res *Result) (*Result, error) {
	// debug prints updates too, so interrupts come as update chunks
	// (Pregel.invoke streams ["updates", "values"])
	modes := []StreamMode{StreamUpdates, StreamValues}
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

// valuesCapture keeps the values of an Invoke's last values chunk: the
// channel values of the output keys, copied into a slice it reuses.
type valuesCapture struct {
	taken bool
	vals  []any
	has   []bool
}

// take copies the output keys' values.
func (c *valuesCapture) take(r *run) {
	if c.vals == nil {
		c.vals, c.has = make([]any, len(r.outRefs)), make([]bool, len(r.outRefs))
	}
	for i, k := range r.outRefs {
		c.vals[i], c.has[i] = nil, false
		if k.managed != NotManaged {
			c.vals[i], c.has[i] = managedValue(k.managed, r.step, r.stop), true
		} else if k.ch >= 0 {
			c.vals[i], c.has[i] = r.chans[k.ch].get()
		}
	}
	c.taken = true
}

// state is the State readState would have built when the values were
// taken.
func (c *valuesCapture) state(keys []keyRef) State {
	s := make(State, len(keys))
	for i, k := range keys {
		if c.has[i] {
			s[k.name] = c.vals[i]
		}
	}
	return s
}

// Stream runs the graph and yields its output in the requested modes
// (updates when none is given). The run stops when the consumer stops
// iterating; an error ends the sequence.
func (g *Graph) Stream(ctx context.Context, input any, cfg Config, modes ...StreamMode) iter.Seq2[StreamPart, error] {
	return g.stream(ctx, input, cfg, g.streamKeys, modes)
}

// refsOf returns the resolved form of the graph's state or stream keys.
func (g *Graph) refsOf(keys []string) []keyRef {
	switch {
	case len(keys) == len(g.stateKeys) && (len(keys) == 0 || &keys[0] == &g.stateKeys[0]):
		return g.stateRefs
	case len(keys) == len(g.streamKeys) && (len(keys) == 0 || &keys[0] == &g.streamKeys[0]):
		return g.streamRefs
	}
	return g.refs(keys)
}

// stream runs the graph showing outKeys in values and update chunks.
func (g *Graph) stream(ctx context.Context, input any, cfg Config, outKeys []string, modes []StreamMode) iter.Seq2[StreamPart, error] {
	return func(yield func(StreamPart, error) bool) {
		if len(modes) == 0 {
			modes = []StreamMode{StreamUpdates}
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		r := g.newRun(ctx, cfg, outKeys, modes)
		want := map[StreamMode]bool{}
		for _, m := range modes {
			want[m] = true
		}
		var printer *debugPrinter
		if w := g.debugWriter(cfg); w != nil {
			// print_mode = ["updates", "values"]: streamed for printing,
			// yielded only when asked for
			printer = &debugPrinter{w: w, keys: outKeys}
			r.modes.add(StreamUpdates)
			r.modes.add(StreamValues)
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

// newRun returns a run of g showing outKeys in the given modes.
func (g *Graph) newRun(ctx context.Context, cfg Config, outKeys []string, modes []StreamMode) *run {
	r := &run{g: g, ctx: ctx, cfg: cfg, outKeys: outKeys, outRefs: g.refsOf(outKeys)}
	for _, m := range modes {
		r.modes.add(m)
	}
	// a superstep of one task (most) needs no array of its own for these
	r.tasks, r.taskPool, r.scratchBuf.todo = r.oneTask[0:0:1], r.oneTask[1:1:2], r.oneTask[2:2:3]
	return r
}

// run is one execution of a graph: the superstep loop of LangGraph's
// PregelLoop (pregel/_loop.py) and PregelRunner (pregel/_runner.py).
type run struct {
	g     *Graph
	ctx   context.Context
	cfg   Config
	modes modeSet
	yield func(StreamPart) bool
	// outKeys are the keys values and update chunks show: the graph's
	// stream keys, or its state keys for Invoke; outRefs the same keys
	// resolved
	outKeys []string
	outRefs []keyRef

	stopped bool
	saver   Checkpointer
	// taskIDs is where the hashed IDs of the run's tasks are cut from,
	// msgIDs (under msgIDsMu) those of their messages
	taskIDs  idArena
	msgIDs   idArena
	msgIDsMu sync.Mutex
	// snapSaver is the saver when it takes snapshots (SnapshotSaver),
	// snaps where the run cuts them from
	snapSaver SnapshotSaver
	snaps     snapArena
	cpCfg     CheckpointConfig
	// cpID is the ID of the run's newest checkpoint ("" before the first
	// on a new thread); vers its versions
	cpID    string
	vers    *versions
	meta    CheckpointMetadata
	pending []PendingWrite
	// put holds maps and lists the run gave its saver, which the next
	// checkpoint shares where it is the same (the saver does not change
	// them, the run does not either); parents is the metadata "parents"
	// of its checkpoints
	put     putShared
	parents map[string]string

	// chans are the channels by number (Graph.index)
	chans      []channel
	step, stop int
	tasks      []*task
	taskPool   []*task // tasks of finished supersteps, for newTask
	// oneTask holds the first arrays of tasks, taskPool and
	// scratchBuf.todo, one task each (newRun)
	oneTask [3]*task
	// updated marks the channels the last superstep changed; with
	// updatedKnown unset nothing is known and every node is a candidate
	updated       []bool
	updatedKnown  bool
	skipDoneTasks bool
	seed          string
	// idKey keys the IDs a run without a saver makes up (fastID)
	idKey [2]uint64
	// buffers a superstep reuses (applyWrites, runTasks)
	scratchBuf stepBuffers
	custom     chan StreamPart // custom and subgraph output of tasks on goroutines
	// capture, set by Invoke, keeps the values chunks' values instead of
	// yielding them (emitValues)
	capture *valuesCapture
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
	prevCfg      CheckpointConfig // what parentCfg points to after a put
}

type taskKind int

const (
	pullTask taskKind = iota
	pushTask
)

// task is one task of a superstep: the writeTarget of its node's writers
// and the idSource of the IDs its writes get. A run reuses the tasks of a
// finished superstep for the next one (newTask); what the node sees
// through its context, the Runtime and the scratchpad, is a taskFrame
// made for every task, so a context kept beyond its task never shows
// another task's.
type task struct {
	id    string
	name  string
	kind  taskKind
	idx   int // push index
	ord   int // position in the superstep's task list
	input State
	// arg is the argument of a Send that is not a state, or the value of
	// the one channel a node reads as its whole input (hasArg): the input
	// is State{SendArgKey: arg}, made only for a node that reads it as a
	// State
	arg      any
	hasArg   bool
	node     *pregelNode
	triggers []string
	// trigCh holds the channel numbers of triggers, when the graph
	// numbered them (nil: look them up by name)
	trigCh  []int
	scratch *scratchpad
	run     *run // nil for the tasks of UpdateState and of input

	mu        sync.Mutex
	writes    []write // normalized (IDs assigned)
	raw       []write // as the node wrote them, for streaming
	idCounter int
	err       error
	cached    bool
	// the first writes live here: most tasks write one or two
	writesBuf, rawBuf [2]write
	freshBuf          [2]any  // the values of a fresh read (freshState)
	inputLent         bool    // a fresh read took input's map (lendsInput)
	ids               idArena // the message IDs of a run without a saver
	frame             *taskFrame
	// freshChan is the fork of a messages channel a fresh read applies
	// the task's writes to (freshState): only its value leaves the read
	freshChan messagesChan
	// one is the output a built-in node's one message goes in when
	// nothing keeps the task's writes past its superstep (see
	// messageUpdateIn); it is kept when the task is recycled
	one *oneMessage
}

// taskFrame is the context a task's node runs with: the run's context,
// carrying the task's scratchpad and Runtime (one allocation for all).
// A frame is made for every task and never reused, since a node's code may
// keep its context after it returned; nothing in it changes once the task
// started but what the task's interrupts and owned lists change (under
// the scratchpad's lock and the run's pendingMu) and rt, set once.
type taskFrame struct {
	sp scratchpad
	// rt is the task's Runtime: made on the first ask (runtime), or the
	// one in the frame's taskFrameRT for a node that asks every time
	rt   atomic.Pointer[Runtime]
	node *pregelNode
}

// taskFrameRT is the frame of a task whose node reads its Runtime every
// time it runs (withRuntime): the Runtime is made with the frame, in it.
// Most nodes never ask, and their frames (80 bytes) are a third of
// the size this one is (192).
type taskFrameRT struct {
	taskFrame
	rt Runtime
}

// newRuntime is the Runtime of the frame's task.
func (f *taskFrame) newRuntime() Runtime {
	r := f.sp.run
	return Runtime{
		Context:        r.cfg.Context,
		Store:          r.store(),
		Step:           f.sp.step,
		RemainingSteps: f.sp.stop - f.sp.step,
		ThreadID:       r.cfg.ThreadID,
		Node:           f.node.name,
		Clock:          r.g.clock,
		MaxConcurrency: r.cfg.MaxConcurrency,
		StreamWriter:   r.streamWriter,
	}
}

// runtime returns the task's Runtime, making it on the first ask: every
// caller gets the same one, from any goroutine, at any time (the frame
// reads only what does not change while the run lasts).
func (f *taskFrame) runtime() *Runtime {
	if rt := f.rt.Load(); rt != nil {
		return rt
	}
	rt := new(Runtime)
	*rt = f.newRuntime()
	if f.rt.CompareAndSwap(nil, rt) {
		return rt
	}
	return f.rt.Load()
}

// Deadline is the run's context's.
func (f *taskFrame) Deadline() (time.Time, bool) { return f.sp.run.ctx.Deadline() }

// Done is the run's context's.
func (f *taskFrame) Done() <-chan struct{} { return f.sp.run.ctx.Done() }

// Err is the run's context's.
func (f *taskFrame) Err() error { return f.sp.run.ctx.Err() }

// Value returns the task's Runtime, clock and scratchpad under their keys
// and asks the run's context for anything else.
func (f *taskFrame) Value(key any) any {
	switch key.(type) {
	case runtimeKey:
		return f.runtime()
	case clockKey:
		// ClockFrom: the Runtime's clock (the graph's), without making
		// the Runtime
		return f.sp.run.g.clock
	case scratchpadKey:
		return &f.sp
	}
	return f.sp.run.ctx.Value(key)
}

// newTask returns a task of the run's with the given kind, node and
// position, reusing one of an earlier superstep when the run has one
// (recycleTasks).
func (r *run) newTask(kind taskKind, node *pregelNode, name string, ord int) *task {
	t := r.spareTask()
	t.kind, t.node, t.name, t.ord, t.run = kind, node, name, ord, r
	return t.withBuffers()
}

// spareTask is a task of the run's pool made blank, or a new one.
func (r *run) spareTask() *task {
	k := len(r.taskPool)
	if k == 0 {
		return new(task)
	}
	var t *task
	t, r.taskPool = r.taskPool[k-1], r.taskPool[:k-1]
	// the rest of the ID arena's chunk goes on to the next task: its
	// bytes are written once, so the IDs cut from it before stay as
	// they are
	ids, one := t.ids, t.one
	*t = task{}
	t.ids, t.one = ids, one
	return t
}

// recycleTasks gives the tasks of the finished superstep back for the
// next one. Nothing refers to them any more: runTasks waited for all of
// them, afterTick streamed the deferred one.
func (r *run) recycleTasks() {
	r.taskPool = append(r.taskPool, r.tasks...)
	clear(r.tasks)
	r.tasks = r.tasks[:0]
}

// taskID is the task's ID: made with the task when a saver may store it,
// on first use otherwise (a fast ID: see fastID), which most tasks of a
// run without a saver never reach.
func (t *task) taskID() string {
	if t.run == nil || t.run.saver != nil {
		return t.id
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.id == "" {
		t.id = t.run.fastID(idTask, t.scratch.step, t.ord, 0)
	}
	return t.id
}

// pushTriggers are the triggers of every push task (read only).
var pushTriggers = []string{chPush}

// withBuffers puts the task's write lists on their inline buffers.
func (t *task) withBuffers() *task {
	t.writes, t.raw = t.writesBuf[:0], t.rawBuf[:0]
	return t
}

// pathStr is LangGraph's task_path_str of (kind, name|idx): writes are
// applied in this order (taskCmp compares them without building them).
func (t *task) pathStr() string {
	if t.kind == pullTask {
		return "~" + chPull + ", " + t.name
	}
	return fmt.Sprintf("~%s, %010d", chPush, t.idx)
}

// taskCmp orders tasks as their sort keys ("~" for the input and update
// tasks, else pathStr) compare: input first, then pull tasks by name
// ("~__pregel_pull, " sorts before "~__pregel_push, "), then push tasks
// by index (pathStr pads it to ten digits; an index of more digits sorts
// as its text does).
func taskCmp(a, b *task) int {
	ra, rb := a.sortRank(), b.sortRank()
	if ra != rb {
		return ra - rb
	}
	switch ra {
	case 1:
		return strings.Compare(a.name, b.name)
	case 2:
		if a.idx < 1e10 && b.idx < 1e10 && a.idx >= 0 && b.idx >= 0 {
			return a.idx - b.idx
		}
		return strings.Compare(a.pathStr(), b.pathStr())
	}
	return 0
}

// sortRank is 0 for the input and update tasks, 1 for pull and 2 for push
// tasks.
func (t *task) sortRank() int {
	switch {
	case t.name == inputName || t.node == nil:
		return 0
	case t.kind == pullTask:
		return 1
	}
	return 2
}

func (r *run) execute(input any) (err error) {
	defer r.noteSizes()
	r.saver = r.g.checkpointer
	if r.saver == nil && r.nest != nil {
		// a subgraph compiled without a checkpointer uses its parent's
		r.saver = r.nest.parent.saver
	}
	r.snapSaver, _ = r.saver.(SnapshotSaver)
	if r.modes.has(StreamCustom) || r.modes.has(StreamMessages) || r.cfg.Subgraphs {
		// only these modes forward parts from a task's goroutine to the
		// loop (forward): custom output, messages, subgraphs' parts
		r.custom = make(chan StreamPart, 64)
	}
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
	r.vers = newVersions(r.g)
	if saved == nil {
		r.meta = CheckpointMetadata{Step: -2}
		r.chans = r.g.channelsFrom(nil)
	} else {
		// the tuple is the run's own (Checkpointer.GetTuple)
		r.loadCheckpoint(saved.Checkpoint)
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
	if r.saver == nil {
		r.idKey = fastIDKey(r.seed)
		r.armMint(input)
	}
	r.step = r.meta.Step + 1
	r.stop = r.step + r.limit() + 1
	r.updated = make([]bool, len(r.g.chanNames))
	if saved != nil && len(saved.Checkpoint.UpdatedChannels) > 0 {
		r.updatedKnown = true
		for _, ch := range saved.Checkpoint.UpdatedChannels {
			if c := r.g.chanOf(ch); c >= 0 {
				r.updated[c] = true
			}
		}
	}
	return r.first(input)
}

// putShared is what a run's checkpoints may share with the previous one.
type putShared struct {
	seen    map[string]map[string]int64
	prefix  map[string]int
	updated [2][]string // the newest first
	// masks are the channels of updated as bits, when the graph has at
	// most 64
	masks [2]uint64
}

// loadCheckpoint starts the run from a stored checkpoint: its ID, its
// versions and its channels.
func (r *run) loadCheckpoint(cp *Checkpoint) {
	r.cpID = cp.ID
	r.vers.load(r.g, cp)
	r.put.seen = cp.VersionsSeen
	r.chans = r.g.channelsFrom(cp)
}

// channelsFrom makes the graph's channels, by number, holding the values
// of cp (none when cp is nil).
func (g *Graph) channelsFrom(cp *Checkpoint) []channel {
	chans := make([]channel, len(g.chanMks))
	for i, mk := range g.chanMks {
		c := mk()
		if cp != nil {
			if v, ok := cp.ChannelValues[g.chanNames[i]]; ok {
				c = c.restore(v, true)
			}
		}
		chans[i] = c
	}
	return chans
}

// channel returns the named channel, nil when the graph has none.
func (r *run) channel(name string) channel {
	if i, ok := r.g.chanIdx[name]; ok {
		return r.chans[i]
	}
	return nil
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
	resuming := r.vers.any() && (input == nil || isCmd)
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
		r.vers.seeAllForInterrupt()
		r.emitValues()
	case input != nil && !isCmd:
		discard, err := r.prepareTasks(false)
		if err != nil {
			return err
		}
		inWrites, err := r.normalize([]write{{channel: Start, value: input}}, "input|"+r.cpID)
		if err != nil {
			return err
		}
		// the input's task is one of the pool's, for the first superstep
		// to take again: applyWrites keeps no reference to it
		in := r.spareTask()
		in.name, in.writes = inputName, inWrites
		err = r.applyWrites(append(discard, in), r.updated)
		r.taskPool = append(r.taskPool, in)
		if err != nil {
			return err
		}
		r.updatedKnown = true
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
		ws, err = r.normalize(ws, "null|"+r.cpID)
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
		// the channels the null writes change join those the checkpoint
		// named, when it named any
		upd := make([]bool, len(r.updated))
		if err := r.applyWrites([]*task{{name: inputName, writes: null}}, upd); err != nil {
			return err
		}
		if r.updatedKnown {
			for c, u := range upd {
				r.updated[c] = r.updated[c] || u
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
		byID[t.taskID()] = t
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
	if !r.vers.changedSinceInterrupt() {
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
	r.recycleTasks()
	tasks := r.tasks[:0]
	cpID := r.cpID
	stepStr := strconv.Itoa(r.step)
	if tc, ok := r.chans[r.g.chanIdx[chTasks]].get(); ok {
		for idx, p := range tc.([]any) {
			send, ok := p.(Send)
			if !ok {
				continue
			}
			node := r.g.nodes[send.Node]
			if node == nil {
				continue
			}
			t := r.newTask(pushTask, node, send.Node, len(tasks))
			t.idx, t.triggers, t.trigCh = idx, pushTriggers, r.g.pushTrig
			if r.saver != nil {
				// without a saver the ID is made when used (taskID)
				t.id = uuidFromHashIn(&r.taskIDs, cpID, r.cpCfg.CheckpointNS, stepStr, send.Node, chPush, strconv.Itoa(idx))
			}
			switch a := send.Arg.(type) {
			case State:
				t.input = a
			case map[string]any:
				t.input = State(a)
			default:
				// State{SendArgKey: a}, made when the node asks for it
				t.arg, t.hasArg = a, true
			}
			tasks = append(tasks, t)
		}
	}
	if !r.vers.any() {
		return r.withScratchpads(tasks), nil
	}
	for _, node := range r.candidates() {
		if !r.triggered(node) {
			continue
		}
		t := r.newTask(pullTask, node, node.name, len(tasks))
		t.triggers, t.trigCh = node.taskTriggers, node.taskTrig
		if r.saver != nil {
			// the parts on the stack: uuidFromHash only reads them
			var buf [8]string
			parts := append(append(buf[:0], cpID, r.cpCfg.CheckpointNS, stepStr, node.name, chPull), node.taskTriggers...)
			t.id = uuidFromHashIn(&r.taskIDs, parts...)
		}
		if node.single != "" {
			v, ok := r.chans[node.singleCh].get()
			if !ok {
				continue
			}
			// State{SendArgKey: v}, made when the node asks for it
			t.arg, t.hasArg = v, true
		} else {
			t.input = r.readState(node.inRefs, nil)
		}
		tasks = append(tasks, t)
	}
	return r.withScratchpads(tasks), nil
}

// withScratchpads gives every task its scratchpad.
func (r *run) withScratchpads(tasks []*task) []*task {
	for _, t := range tasks {
		t.scratch = r.initScratchpad(t)
	}
	return tasks
}

// candidates are the nodes that may run next: with the channels the last
// superstep updated known, the nodes they trigger, by name; otherwise
// every node, in the order they were added (prepare_next_tasks'
// candidate_nodes).
func (r *run) candidates() []*pregelNode {
	if !r.updatedKnown {
		return r.g.nodeList
	}
	out := r.scratchBuf.nodes[:0]
	for _, n := range r.g.nodeByName {
		for _, c := range n.trig {
			if c >= 0 && r.updated[c] {
				out = append(out, n)
				break
			}
		}
	}
	r.scratchBuf.nodes = out
	return out
}

// triggered reports whether one of the node's trigger channels holds a
// value with a version above the one the node saw.
func (r *run) triggered(n *pregelNode) bool {
	for _, c := range n.trig {
		if c < 0 {
			continue
		}
		if _, ok := r.chans[c].get(); !ok {
			continue
		}
		cur, _ := r.vers.get(c)
		seen, ran := r.vers.seenOf(n.idx, c)
		if !ran || cur > seen {
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
func (r *run) readState(keys []keyRef, sp *scratchpad) State {
	s := make(State, len(keys))
	step, stop := r.step, r.stop
	if sp != nil {
		step, stop = sp.step, sp.stop
	}
	for _, k := range keys {
		if k.managed != NotManaged {
			s[k.name] = managedValue(k.managed, step, stop)
			continue
		}
		if k.ch >= 0 {
			if v, ok := r.chans[k.ch].get(); ok {
				s[k.name] = v
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

// initScratchpad sets up the task's scratchpad for this superstep.
func (r *run) initScratchpad(t *task) *scratchpad {
	if t.node.asksRuntime {
		f := &taskFrameRT{taskFrame: taskFrame{sp: scratchpad{step: r.step, stop: r.stop, run: r, task: t, nullIdx: -1}, node: t.node}}
		f.rt = f.newRuntime()
		f.taskFrame.rt.Store(&f.rt)
		t.frame = &f.taskFrame
	} else {
		t.frame = &taskFrame{sp: scratchpad{step: r.step, stop: r.stop, run: r, task: t, nullIdx: -1}, node: t.node}
	}
	sp := &t.frame.sp
	for i, w := range r.pending {
		if w.TaskID == nullTaskID && w.Channel == chResume {
			sp.nullIdx = i
			break
		}
	}
	for _, w := range r.pending {
		if w.Channel == chResume && w.TaskID == t.taskID() {
			sp.intr = &interrupts{}
			if list, ok := w.Value.([]any); ok {
				sp.intr.resume = append([]any(nil), list...)
			} else {
				sp.intr.resume = []any{w.Value}
			}
			break
		}
	}
	if r.resumeMap != nil {
		if v, ok := r.resumeMap[hashHex(sp.taskNS())]; ok {
			if sp.intr == nil {
				sp.intr = &interrupts{}
			}
			sp.intr.resume = append(sp.intr.resume, v)
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
	todo := r.scratchBuf.todo[:0]
	for _, t := range r.tasks {
		if len(t.writes) == 0 {
			todo = append(todo, t)
		}
	}
	r.scratchBuf.todo = todo
	if len(todo) == 0 {
		return nil, nil
	}
	// subgraph output, like custom output, is forwarded from the task's
	// goroutine to this loop
	fast := len(todo) == 1 && !r.modes.has(StreamCustom) && !r.modes.has(StreamMessages) && !r.cfg.Subgraphs
	var interrupts []InterruptValue
	var failed []*task
	settle := func(d taskDone) error {
		d.t.err = d.err
		if d.err == nil {
			return r.commit(d.t, !fast)
		}
		// declared here: errors.As moves it to the heap
		var ie *InterruptError
		switch {
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

// writeCustom is Runtime.StreamWriter: it streams v in custom mode.
func (r *run) writeCustom(v any) {
	if !r.modes.has(StreamCustom) {
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
	if p.Namespace == nil && !r.modes.has(p.Mode) {
		return
	}
	r.yield(p)
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
	ctx := t.frame
	r.seeNodeInput(t)
	var out any
	switch {
	case t.hasArg && t.node.sendArg != nil:
		out, err = t.node.sendArg(ctx, t.arg)
	case t.node.fn != nil:
		input := t.input
		if t.hasArg {
			input = State{SendArgKey: t.arg}
		}
		out, err = t.node.fn(ctx, input)
	case t.hasArg:
		out = t.arg
	default:
		out = t.input[SendArgKey]
	}
	if err != nil {
		return err
	}
	for _, wr := range t.node.writers {
		if err := wr(ctx, out, t); err != nil {
			return err
		}
	}
	r.emitNodeMessages(t)
	return nil
}

// nextID is the ID of the task's next message without one (idSource); the
// caller holds t.mu.
func (t *task) nextID() string {
	t.idCounter++
	return t.run.messageID(t, t.idCounter)
}

// emit adds a write of the task's node (writeTarget): as written, for
// streaming, and normalized (messages get their IDs).
func (t *task) emit(w write) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.emitLocked(w)
}

// emitAll is emit for each of ws.
func (t *task) emitAll(ws []write) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, w := range ws {
		t.emitLocked(w)
	}
}

func (t *task) emitLocked(w write) {
	if !w.owned && t.scratch != nil {
		w.owned = t.scratch.owns(w.value)
	}
	t.raw = append(t.raw, w)
	nw, err := t.run.normalizeOne(w, t)
	if err != nil {
		nw = w
	}
	t.writes = append(t.writes, nw)
}

// read is the task's fresh state (writeTarget): the state with its writes
// so far applied.
func (t *task) read() (State, error) {
	t.mu.Lock()
	// the writers run one after the other, after the node: nothing
	// appends to the writes while freshState reads them
	ws := t.writes[:len(t.writes):len(t.writes)]
	// LangGraph's fresh read runs the reducers over the task's writes,
	// and add_messages gives their messages IDs in place: from here on
	// the streamed update shows them.
	for i := range t.raw {
		if i < len(t.writes) && t.raw[i].channel == t.writes[i].channel && contains(t.node.input, t.raw[i].channel) {
			t.raw[i] = t.writes[i]
		}
	}
	t.mu.Unlock()
	return t.run.freshState(t, ws)
}

// freshState is the task's view of the state with its own writes applied
// (local_read with fresh=True), for routers.
func (r *run) freshState(t *task, ws []write) (State, error) {
	keys := t.node.inRefs
	if t.node.input == nil && t.node.single != "" {
		keys = r.g.inputRefs
	}
	var s State
	if r.lendsInput(t) {
		// the node's input, read from the same keys, and nobody holds it
		// any more: its map takes the fresh values (a map of two keys is
		// two allocations, and the prebuilt agent's router reads one
		// every cycle)
		s, t.input, t.inputLent = t.input, nil, true
	} else {
		s = make(State, len(keys))
	}
	for _, k := range keys {
		if k.managed != NotManaged {
			s[k.name] = managedValue(k.managed, t.scratch.step, t.scratch.stop)
			continue
		}
		if k.ch < 0 {
			continue
		}
		c := r.chans[k.ch]
		// the task's buffer: no channel keeps the list it updates with
		vals := t.freshBuf[:0]
		for _, w := range ws {
			if w.channel == k.name {
				vals = append(vals, w.value)
			}
		}
		if len(vals) > 0 {
			var cc channel
			if mc, ok := c.(*messagesChan); ok {
				// a single task's writes are the superstep's: its fresh
				// read may append where the superstep will (see fork)
				cc = mc.forkInto(&t.freshChan, len(r.tasks) == 1)
			} else {
				cc = c.restore(c.checkpoint())
			}
			if _, err := cc.update(vals); err != nil {
				return nil, err
			}
			c = cc
		}
		if v, ok := c.get(); ok {
			s[k.name] = v
		} else {
			delete(s, k.name)
		}
	}
	return s, nil
}

// lendsInput reports whether the fresh read of task t may fill the map of
// its input (withLentInput): a pull task of such a node, reading the keys
// it was given, the first time, with nothing that runs the node again on
// that input (a retry) and no stream that shows it afterwards.
func (r *run) lendsInput(t *task) bool {
	return t.node.lendsInput && !t.inputLent && t.input != nil && t.kind == pullTask && t.node.single == "" &&
		t.node.retry == nil && r.g.retry == nil && t.node.subgraph == nil
}

// idSource gives the IDs of messages written without one, in the order
// they are written.
type idSource interface {
	nextID() string
}

func (r *run) normalizeOne(w write, ids idSource) (write, error) {
	// a list a built-in node made for this write may get its IDs in place,
	// unless updates are streamed: a superstep of several tasks streams the
	// list as the node wrote it (raw), without IDs
	inPlace := w.owned && !r.modes.has(StreamUpdates)
	var n writeNormalizer
	switch c := r.channel(w.channel).(type) {
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
	v, err := n.normalizeWrite(w.value, ids, inPlace)
	if err != nil {
		return w, err
	}
	return write{channel: w.channel, value: v}, nil
}

// seededIDs are the IDs of messages written by no task (input, commands,
// state updates): hashed from the run's seed, a label and a counter.
type seededIDs struct {
	seed, label string
	n           int
}

func (s *seededIDs) nextID() string {
	s.n++
	return uuidFromHash(s.seed, s.label, strconv.Itoa(s.n))
}

// normalize fixes up writes that do not come from a task (input, commands,
// state updates), with IDs seeded by seed.
func (r *run) normalize(ws []write, seed string) ([]write, error) {
	ids := &seededIDs{seed: r.seed, label: seed}
	out := make([]write, len(ws))
	for i, w := range ws {
		if w.channel == Start {
			// the input dict: normalize the message keys inside it
			if m, ok := asStateMap(w.value); ok {
				nm := make(State, len(m))
				for _, k := range sortedKeys(m) {
					nw, err := r.normalizeOne(write{channel: k, value: m[k]}, ids)
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
		nw, err := r.normalizeOne(w, ids)
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
	if err := r.putWrites(t, "", ws); err != nil {
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
	if err := r.putWrites(t, "", ws); err != nil {
		return err
	}
	if !t.node.hidden && (r.modes.has(StreamUpdates) || r.modes.has(StreamValues)) {
		mode := StreamUpdates
		if !r.modes.has(StreamUpdates) {
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
	if err := r.putWrites(t, "", ws); err != nil {
		return err
	}
	if stream {
		r.emitTaskResult(t, nil, err, nil)
	}
	return nil
}

// putWrites records the writes of task t, or of the task taskID names
// when t is nil (the null task's), against the current checkpoint
// (PregelLoop.put_writes).
func (r *run) putWrites(t *task, taskID string, ws []write) error {
	if t != nil {
		if r.saver == nil {
			// without a saver no run resumes from these writes, and the
			// run itself reads back only the null task's (applyNullWrites)
			return nil
		}
		taskID = t.taskID()
	}
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
	if r.saver != nil && r.cpID != "" {
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
	if t.node.hidden || !r.modes.has(StreamUpdates) || len(ws) == 0 {
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
	if !r.modes.has(p.Mode) {
		return
	}
	r.yield(p)
}

func (r *run) emitValues() {
	if !r.modes.has(StreamValues) {
		return
	}
	if r.capture != nil {
		r.capture.take(r)
		return
	}
	r.yield(StreamPart{Mode: StreamValues, Data: r.readState(r.outRefs, nil)})
}

// afterTick applies the superstep's writes, streams values, and takes the
// checkpoint (PregelLoop.after_tick).
func (r *run) afterTick() (interrupted bool, err error) {
	if t := r.deferred; t != nil {
		r.deferred = nil
		r.outputWrites(t, t.writes, false)
		r.emitTaskResult(t, t.writes, nil, nil)
	}
	if err := r.applyWrites(r.tasks, r.updated); err != nil {
		return false, err
	}
	r.updatedKnown = true
	if r.outputUpdated(r.updated, r.tasks) {
		r.emitValues()
	}
	r.pendingMu.Lock()
	// the next superstep appends to the same array: the saver was handed
	// parts of it, which it does not keep (Checkpointer.PutWrites)
	clear(r.pending)
	r.pending = r.pending[:0]
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

// outputUpdated reports whether the step changed an output channel and a
// task wrote one.
func (r *run) outputUpdated(upd []bool, tasks []*task) bool {
	hit := false
	for _, k := range r.outRefs {
		if k.ch >= 0 && upd[k.ch] {
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

// stepBuffers are the lists a superstep needs, kept by the run so that
// the next superstep reuses them.
type stepBuffers struct {
	sorted []*task
	todo   []*task
	nodes  []*pregelNode
	// writes per channel: count, then the values in task order, and the
	// channels in the order first written
	counts []int
	order  []int
	values []any
	// trigger channels consumed
	consumed []bool
}

// applyWrites applies the tasks' writes to the channels in task-path order
// and bumps versions (apply_writes in pregel/_algo.py). It marks in upd
// the channels that changed and still hold a value.
func (r *run) applyWrites(tasks []*task, upd []bool) error {
	b := &r.scratchBuf
	sorted := tasks
	if len(tasks) > 1 {
		b.sorted = append(b.sorted[:0], tasks...)
		sorted = b.sorted
		slices.SortStableFunc(sorted, taskCmp)
	}
	bump := false
	for _, t := range sorted {
		if len(t.triggers) > 0 {
			bump = true
		}
	}
	r.markSeen(sorted)
	next := r.vers.next()
	r.consumeTriggers(sorted, next)
	clear(upd)
	// the writes per channel, channels in the order first written; the
	// values of each channel one after another in b.values, in task order
	nCh := len(r.chans)
	if len(b.counts) < nCh {
		b.counts = make([]int, nCh)
	}
	counts := b.counts[:nCh]
	clear(counts)
	order := b.order[:0]
	// the channel of every write, in task and write order, looked up once
	// (on the stack for a superstep of a few writes)
	var chBuf [16]int
	writeChs := chBuf[:0]
	n := 0
	for _, t := range sorted {
		for _, w := range t.writes {
			c := r.writeChannel(w.channel)
			writeChs = append(writeChs, c)
			if c < 0 {
				continue
			}
			if counts[c] == 0 {
				order = append(order, c)
			}
			counts[c]++
			n++
		}
	}
	b.order = order
	values := slices.Grow(b.values[:0], n)[:n]
	// counts become each channel's start in values
	start := 0
	for _, c := range order {
		k := counts[c]
		counts[c] = start
		start += k
	}
	k := 0
	for _, t := range sorted {
		for _, w := range t.writes {
			if c := writeChs[k]; c >= 0 {
				values[counts[c]] = w.value
				counts[c]++
				if mc, ok := r.chans[c].(*messagesChan); ok && t.scratch != nil {
					if room := t.scratch.roomOf(w.value); room != nil {
						mc.room = room
					}
				}
			}
			k++
		}
	}
	from := 0
	for _, c := range order {
		to := counts[c]
		changed, err := r.chans[c].update(values[from:to:to])
		from = to
		if err != nil {
			clear(values)
			b.values = values[:0]
			return err
		}
		if changed {
			r.vers.set(c, next)
			if _, ok := r.chans[c].get(); ok {
				upd[c] = true
			}
		}
	}
	// the values stay referenced by the channels that kept them, not here
	clear(values)
	b.values = values[:0]
	if bump {
		if err := r.updateUnwritten(upd, next); err != nil {
			return err
		}
	}
	return nil
}

// writeChannel is the number of the channel a write applies to, -1 for a
// special channel or one the graph does not have.
func (r *run) writeChannel(ch string) int {
	switch ch {
	case chNoWrites, chPush, chResume, chInterrupt, chReturn, chError:
		return -1
	}
	return r.g.chanOf(ch)
}

// markSeen records, for each task's node, the versions of the channels
// that triggered it.
func (r *run) markSeen(sorted []*task) {
	for _, t := range sorted {
		if len(t.triggers) == 0 {
			continue
		}
		row := r.g.seenRow(t.name)
		for i, ch := range t.triggers {
			c := t.triggerChan(r.g, i)
			if c < 0 {
				// a trigger the graph has no channel for (push, interrupt)
				// has a version only when a stored checkpoint brought one
				if v, ok := r.vers.extraCur[ch]; ok {
					r.markSeenByName(t.name, row, ch, v)
				}
				continue
			}
			if v, ok := r.vers.get(c); ok {
				if row >= 0 {
					r.vers.markSeen(row, c, v)
				} else {
					r.vers.addExtraSeen(t.name, ch, v)
				}
			}
		}
	}
}

// triggerChan is the channel number of the task's trigger i, -1 when the
// graph has no such channel.
func (t *task) triggerChan(g *Graph, i int) int {
	if t.trigCh != nil {
		return t.trigCh[i]
	}
	return g.chanOf(t.triggers[i])
}

// markSeenByName records a seen version of a channel the graph does not
// have.
func (r *run) markSeenByName(node string, row int, ch string, v int64) {
	if row >= 0 {
		r.vers.rowHas[row] = true
	}
	r.vers.addExtraSeen(node, ch, v)
}

// consumeTriggers lets every channel that triggered a task consume its
// value, once, giving a channel that changed by it version next.
func (r *run) consumeTriggers(sorted []*task, next int64) {
	b := &r.scratchBuf
	if len(b.consumed) < len(r.chans) {
		b.consumed = make([]bool, len(r.chans))
	}
	consumed := b.consumed[:len(r.chans)]
	clear(consumed)
	tasks := r.g.tasksCh
	for _, t := range sorted {
		for i := range t.triggers {
			c := t.triggerChan(r.g, i)
			if c < 0 || consumed[c] {
				continue
			}
			consumed[c] = true
			if c != tasks && r.chans[c].consume() {
				r.vers.set(c, next)
			}
		}
	}
}

// updateUnwritten gives every channel with a value that the step did not
// update (upd) an empty update (ephemeral values clear), in channel order,
// and marks in upd those that changed and still hold a value.
func (r *run) updateUnwritten(upd []bool, next int64) error {
	for c, ch := range r.chans {
		if upd[c] {
			continue
		}
		if _, ok := ch.get(); !ok {
			continue
		}
		changed, err := ch.update(nil)
		if err != nil {
			return err
		}
		if changed {
			r.vers.set(c, next)
			if _, ok := ch.get(); ok {
				upd[c] = true
			}
		}
	}
	return nil
}

// putCheckpoint takes a checkpoint of the channels and advances the step
// (PregelLoop._put_checkpoint).
func (r *run) putCheckpoint(source string) error {
	if r.saver == nil {
		// nothing stores it, and nothing reads its ID: the IDs a run
		// without a saver makes up come from its seed and the steps
		// (fastID)
		r.meta = CheckpointMetadata{Source: source, Step: r.step}
		r.step++
		return nil
	}
	var cp *Checkpoint
	var snap *CheckpointSnapshot
	if r.snapSaver != nil {
		snap = r.snapshot()
	} else {
		cp = r.checkpoint()
	}
	if r.parents == nil {
		// the same for every checkpoint of the run: the parent's
		// checkpoint does not change while this run is its task
		r.parents = map[string]string{}
		if n := r.nest; n != nil && n.parent.saver != nil {
			// a subgraph's checkpoint names its parents' (metadata "parents")
			for k, v := range n.parent.meta.Parents {
				r.parents[k] = v
			}
			r.parents[n.parent.ns()] = n.parent.cpCfg.CheckpointID
		}
	}
	r.meta = CheckpointMetadata{Source: source, Step: r.step, Parents: r.parents}
	var cfg CheckpointConfig
	var err error
	if snap != nil {
		cfg, err = r.snapSaver.PutSnapshot(r.ctx, r.cpCfg, snap, r.meta)
	} else {
		cfg, err = r.saver.Put(r.ctx, r.cpCfg, cp, r.meta)
	}
	if err != nil {
		return fmt.Errorf("save checkpoint of thread %q at step %d: %w", r.cfg.ThreadID, r.step, err)
	}
	r.cpID = cfg.CheckpointID
	r.parentCfg, r.parentLoaded = nil, false
	if r.cpCfg.CheckpointID != "" {
		// in the run's own slot: a new pointer per checkpoint allocated
		r.prevCfg = r.cpCfg
		r.parentCfg = &r.prevCfg
	}
	r.cpCfg = cfg
	r.step++
	return nil
}

// checkpoint is the checkpoint of the run's channels and versions, for its
// saver: every map in it is new or, for the versions seen by nodes that
// did not run, the one the previous checkpoint had, and the run changes
// none of them afterwards.
func (r *run) checkpoint() *Checkpoint {
	g := r.g
	values := make(map[string]any, len(r.chans))
	var prefix map[string]int
	for c, ch := range r.chans {
		if _, has := r.vers.get(c); !has {
			continue
		}
		v, ok := ch.checkpoint()
		if !ok {
			continue
		}
		name := g.chanNames[c]
		values[name] = v
		switch ch := ch.(type) {
		case *binop:
			if ch.prefix >= 0 {
				if prefix == nil {
					prefix = map[string]int{}
				}
				prefix[name] = ch.prefix
			}
			ch.resetPrefix()
		case *messagesChan:
			if prefix == nil {
				prefix = map[string]int{}
			}
			prefix[name] = ch.prefix
			ch.resetPrefix()
		}
	}
	if prefix != nil && maps.Equal(prefix, r.put.prefix) {
		prefix = r.put.prefix
	}
	r.put.prefix = prefix
	seen := r.vers.versionsSeen(g, r.put.seen)
	r.put.seen = seen
	return &Checkpoint{V: 4, TS: g.clock.Now().UTC().Format(time.RFC3339Nano), ChannelValues: values, ChannelVersions: r.vers.channelVersions(g), VersionsSeen: seen, UpdatedChannels: r.updatedChannels(), ListPrefix: prefix}
}

// updatedChannels lists the channels the last superstep updated, sorted:
// the list of the previous checkpoint when it is the same.
func (r *run) updatedChannels() []string {
	if len(r.updated) <= 64 {
		var mask uint64
		if r.updatedKnown {
			for c, u := range r.updated {
				if u {
					mask |= 1 << c
				}
			}
		}
		for i, prev := range r.put.updated {
			if prev != nil && r.put.masks[i] == mask {
				r.put.updated[0], r.put.updated[i] = prev, r.put.updated[0]
				r.put.masks[0], r.put.masks[i] = mask, r.put.masks[0]
				return prev
			}
		}
		made := r.sortedUpdated()
		r.put.updated[1], r.put.updated[0] = r.put.updated[0], made
		r.put.masks[1], r.put.masks[0] = r.put.masks[0], mask
		return made
	}
	return r.updatedChannelsSlow()
}

// sortedUpdated lists the channels the last superstep updated, sorted,
// in a new slice (never nil: a checkpoint lists none as []).
func (r *run) sortedUpdated() []string {
	var buf [8]string
	upd := r.updatedNames(buf[:0])
	return append(make([]string, 0, len(upd)), upd...)
}

// updatedNames appends the names of the channels the last superstep
// updated to upd, sorted.
func (r *run) updatedNames(upd []string) []string {
	if r.updatedKnown {
		for c, u := range r.updated {
			if u {
				upd = append(upd, r.g.chanNames[c])
			}
		}
		slices.Sort(upd)
	}
	return upd
}

// updatedChannelsSlow is updatedChannels for a graph of more than 64
// channels: the lists compared by their names.
func (r *run) updatedChannelsSlow() []string {
	var buf [8]string
	upd := r.updatedNames(buf[:0])
	// supersteps often alternate between two lists (the agent's
	// writes, then the tools'): the two last lists made are reused
	for i, prev := range r.put.updated {
		if prev != nil && slices.Equal(upd, prev) {
			r.put.updated[0], r.put.updated[i] = prev, r.put.updated[0]
			return prev
		}
	}
	// never nil: a checkpoint lists none as []
	made := append(make([]string, 0, len(upd)), upd...)
	r.put.updated[1], r.put.updated[0] = r.put.updated[0], made
	return made
}

// exitInterrupted ends a paused run: streams the interrupt and the state.
func (r *run) exitInterrupted(nodeInterrupts []InterruptValue) error {
	r.paused, r.pausedBy = true, nodeInterrupts
	if nodeInterrupts == nil {
		// interrupt_before / interrupt_after carry no value
		if r.modes.has(StreamUpdates) {
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
		upd := make([]bool, len(r.chans))
		if err := r.applyWrites(withWrites, upd); err != nil {
			return err
		}
		if r.outputUpdated(upd, withWrites) {
			r.emitValues()
		}
	}
	return nil
}
