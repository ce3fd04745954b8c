package engine

import (
	"encoding/json"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agenteval/agenteval/engine/value"
)

// The debugging stream modes, as pregel/_loop.py emits them.
const (
	// StreamCheckpoints yields an event (an *Object) each time the run
	// has taken a checkpoint, at the start of the next superstep, in the
	// shape of map_debug_checkpoint (pregel/debug.py): {config,
	// parent_config, values, metadata, next, tasks}. Only a run with a
	// checkpointer takes checkpoints.
	StreamCheckpoints StreamMode = "checkpoints"
	// StreamTasks yields an event (an *Object) when a task starts, {id,
	// name, input, triggers} (map_debug_tasks), and when it finishes,
	// {id, name, error, result, interrupts} (map_debug_task_results).
	StreamTasks StreamMode = "tasks"
	// StreamDebug yields the events of StreamCheckpoints and StreamTasks
	// wrapped as {step, timestamp, type, payload}, type being
	// "checkpoint", "task" or "task_result" (PregelLoop._emit).
	StreamDebug StreamMode = "debug"
)

// debugKind is the "type" of a debug event.
type debugKind string

const (
	debugCheckpoint debugKind = "checkpoint"
	debugTask       debugKind = "task"
	debugTaskResult debugKind = "task_result"
)

// emitDebug streams one checkpoints or tasks event, in its own mode and
// wrapped in debug mode (PregelLoop._emit's debug_remap).
func (r *run) emitDebug(kind debugKind, payload func() *Object) {
	mode := StreamTasks
	if kind == debugCheckpoint {
		mode = StreamCheckpoints
	}
	if !r.modes.has(mode) && !r.modes.has(StreamDebug) {
		return
	}
	p := payload()
	if r.modes.has(mode) {
		r.yield(StreamPart{Mode: mode, Data: p})
	}
	if r.modes.has(StreamDebug) {
		step := r.step
		if kind == debugCheckpoint {
			step--
		}
		r.yield(StreamPart{Mode: StreamDebug, Data: NewObject(
			"step", json.Number(strconv.Itoa(step)),
			"timestamp", pyISOTime(r.g.clock.Now()),
			"type", string(kind),
			"payload", p,
		)})
	}
}

// wantsDebug reports whether the run streams task or checkpoint events.
func (r *run) wantsDebug(kind debugKind) bool {
	if kind == debugCheckpoint {
		return r.modes.has(StreamCheckpoints) || r.modes.has(StreamDebug)
	}
	return r.modes.has(StreamTasks) || r.modes.has(StreamDebug)
}

// pyISOTime is Python's datetime.isoformat() of an aware UTC time:
// microseconds only when there are any.
func pyISOTime(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05+00:00")
	}
	return t.Format("2006-01-02T15:04:05.000000+00:00")
}

// emitTaskStarts streams a "task" event for every task of the superstep
// but hidden ones (map_debug_tasks skips TAG_HIDDEN).
func (r *run) emitTaskStarts() {
	if !r.wantsDebug(debugTask) {
		return
	}
	for _, t := range r.tasks {
		if t.node.hidden {
			continue
		}
		r.emitDebug(debugTask, func() *Object {
			return NewObject("id", t.taskID(), "name", t.name, "input", r.taskInputValue(t), "triggers", stringsValue(t.triggers))
		})
	}
}

// taskInputValue is a task's input as LangGraph hands it to the node: the
// Send's argument for a push task, the node's channels otherwise.
func (r *run) taskInputValue(t *task) any {
	if t.hasArg {
		return debugValue(t.arg)
	}
	if v, ok := t.input[SendArgKey]; ok && len(t.input) == 1 {
		return debugValue(v)
	}
	return r.orderedState(t.node.input, t.input)
}

// emitTaskResult streams a "task_result" event for a finished task that
// is not hidden (map_debug_task_results): the error it raised, its
// writes to the graph's stream channels (and its return value), and the
// interrupts it raised.
func (r *run) emitTaskResult(t *task, ws []write, err error, interrupts []InterruptValue) {
	if t.node.hidden || !r.wantsDebug(debugTaskResult) {
		return
	}
	r.emitDebug(debugTaskResult, func() *Object {
		var errV any
		if err != nil {
			errV = ErrorRepr(err)
		}
		keys := map[string]bool{chReturn: true}
		for _, k := range r.g.streamKeys {
			keys[k] = true
		}
		var kept []write
		for _, w := range ws {
			if keys[w.channel] {
				kept = append(kept, w)
			}
		}
		ints := []any{}
		for _, in := range interrupts {
			ints = append(ints, in.ToValue())
		}
		return NewObject("id", t.taskID(), "name", t.name, "error", errV, "result", taskResultWrites(kept), "interrupts", ints)
	})
}

// taskResultWrites folds writes into {channel: value}, several writes to
// one channel into {channel: {"$writes": [...]}} (map_task_result_writes).
func taskResultWrites(ws []write) *Object {
	out := &Object{}
	for _, w := range ws {
		v := debugValue(w.value)
		prev, ok := out.Get(w.channel)
		if !ok {
			out.Set(w.channel, v)
			continue
		}
		var list []any
		if po, isObj := prev.(*Object); isObj && po.Len() == 1 && po.Has("$writes") {
			l, _ := po.Get("$writes")
			list, _ = l.([]any)
		} else {
			list = []any{prev}
		}
		out.Set(w.channel, NewObject("$writes", append(list, v)))
	}
	return out
}

// emitCheckpoint streams the "checkpoint" event of the run's current
// checkpoint with the tasks of the superstep about to run
// (map_debug_checkpoint), when the run has a checkpointer.
func (r *run) emitCheckpoint() {
	if r.saver == nil || !r.wantsDebug(debugCheckpoint) {
		return
	}
	r.emitDebug(debugCheckpoint, func() *Object {
		next := make([]any, len(r.tasks))
		tasks := make([]any, len(r.tasks))
		for i, t := range r.tasks {
			next[i] = t.name
			tasks[i] = r.checkpointTaskValue(t)
		}
		return NewObject(
			"config", r.checkpointConfigValue(r.cpCfg, r.meta.Parents, true),
			"parent_config", r.parentConfigValue(),
			"values", r.orderedState(r.g.streamKeys, r.readState(r.g.streamRefs, nil)),
			"metadata", metadataValue(r.meta),
			"next", next,
			"tasks", tasks,
		)
	})
}

// checkpointConfigValue is a checkpoint's config as the debug events show
// it (rm_pregel_keys of patch_checkpoint_map): {"configurable":
// {checkpoint_ns, thread_id, checkpoint_id, checkpoint_map?}}, the keys
// in the order PregelLoop builds them (loaded configs put thread_id
// first, as the checkpointer returns them).
func (r *run) checkpointConfigValue(c CheckpointConfig, parents map[string]string, own bool) *Object {
	conf := NewObject("checkpoint_ns", c.CheckpointNS, "thread_id", c.ThreadID, "checkpoint_id", c.CheckpointID)
	if !own {
		conf = NewObject("thread_id", c.ThreadID, "checkpoint_ns", c.CheckpointNS, "checkpoint_id", c.CheckpointID)
	}
	if len(parents) > 0 {
		m := &Object{}
		for _, k := range sortedKeys(parents) {
			m.Set(k, parents[k])
		}
		m.Set(c.CheckpointNS, c.CheckpointID)
		conf.Set("checkpoint_map", m)
	}
	return NewObject("configurable", conf)
}

// parentConfigValue is the parent_config of a checkpoint event, patched
// with the current checkpoint's parents as the config is.
func (r *run) parentConfigValue() any {
	if r.parentCfg == nil {
		return nil
	}
	return r.checkpointConfigValue(*r.parentCfg, r.meta.Parents, !r.parentLoaded)
}

// checkpointTaskValue is one task of a checkpoint event, with what its
// pending writes say (tasks_w_writes): an error, or a result and its
// interrupts, or its interrupts alone; state is the config of a
// subgraph task's checkpoints.
func (r *run) checkpointTaskValue(t *task) *Object {
	var errV any
	var ints []any
	var ret any
	hasRet, hasWrites := false, false
	result := &Object{}
	out := map[string]bool{}
	for _, k := range r.outKeys {
		out[k] = true
	}
	var kept []write
	for _, p := range r.pending {
		if p.TaskID != t.taskID() {
			continue
		}
		switch p.Channel {
		case chError:
			if errV == nil {
				errV = p.Value
			}
			continue
		case chInterrupt:
			ivs, _ := p.Value.([]InterruptValue)
			for _, in := range ivs {
				ints = append(ints, in.ToValue())
			}
			continue
		case chReturn:
			if !hasRet {
				hasRet, ret = true, debugValue(p.Value)
			}
		}
		hasWrites = true
		if out[p.Channel] {
			kept = append(kept, write{channel: p.Channel, value: p.Value})
		}
	}
	if len(kept) > 0 {
		result = taskResultWrites(kept)
	}
	var state any
	if t.node.subgraph != nil && t.scratch != nil {
		state = NewObject("configurable", NewObject("thread_id", r.cfg.ThreadID, "checkpoint_ns", t.scratch.taskNS()))
	}
	if ints == nil {
		ints = []any{}
	}
	switch {
	case errV != nil:
		return NewObject("id", t.taskID(), "name", t.name, "error", errV, "state", state)
	case hasRet && value.Truthy(ret), !hasRet && hasWrites && result.Len() > 0:
		var res any = result
		if hasRet {
			res = ret
		}
		return NewObject("id", t.taskID(), "name", t.name, "result", res, "interrupts", ints, "state", state)
	default:
		return NewObject("id", t.taskID(), "name", t.name, "interrupts", ints, "state", state)
	}
}

// metadataValue is a checkpoint's metadata: {source, step, parents}.
func metadataValue(m CheckpointMetadata) *Object {
	parents := &Object{}
	for _, k := range sortedKeys(m.Parents) {
		parents.Set(k, m.Parents[k])
	}
	return NewObject("source", m.Source, "step", json.Number(strconv.Itoa(m.Step)), "parents", parents)
}

// orderedState is a state as a JSON object, keys in the order given, then
// any others sorted.
func (r *run) orderedState(keys []string, s State) *Object {
	o := &Object{}
	for _, k := range keys {
		if v, ok := s[k]; ok {
			o.Set(k, debugValue(v))
		}
	}
	for _, k := range sortedKeys(s) {
		if !o.Has(k) {
			o.Set(k, debugValue(s[k]))
		}
	}
	return o
}

// debugValuer is a value with a LangGraph dict of its own in debug events
// (a Send argument such as ToolCallWithContext).
type debugValuer interface {
	debugValue() *Object
}

// debugValue is a value of a debug event in the JSON value model; a tool
// call, alone or with its context, is LangGraph's dict for it.
func debugValue(v any) any {
	switch t := v.(type) {
	case ToolCall:
		o := t.ToValue()
		o.Set("type", "tool_call")
		return o
	case debugValuer:
		return t.debugValue()
	case State:
		o := &Object{}
		for _, k := range sortedKeys(t) {
			o.Set(k, debugValue(t[k]))
		}
		return o
	}
	return valueForJSON(v)
}

func stringsValue(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// debugPrinter prints the run's update and values chunks as LangGraph's
// debug flag does (Pregel.stream with debug: print_mode = ["updates",
// "values"], printed by _output): "[mode]" in bold, the subgraph's
// namespace in yellow when subgraphs are streamed, then Python's repr of
// the chunk.
type debugPrinter struct {
	w    io.Writer
	keys []string // the order of state keys in reprs
}

// print writes one chunk's line; other modes print nothing.
func (d *debugPrinter) print(p StreamPart) {
	if p.Mode != StreamUpdates && p.Mode != StreamValues {
		return
	}
	var b strings.Builder
	b.WriteString("\x1b[1m[" + string(p.Mode) + "]\x1b[0m ")
	if len(p.Namespace) > 0 {
		ns := make([]any, len(p.Namespace))
		for i, s := range p.Namespace {
			ns[i] = s
		}
		b.WriteString("\x1b[1;30;33m[graph=" + pyTupleRepr(ns) + "]\x1b[0m ")
	}
	b.WriteString(d.repr(p.Data))
	b.WriteByte('\n')
	io.WriteString(d.w, b.String())
}

// pyTupleRepr is Python's repr of a tuple.
func pyTupleRepr(items []any) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = PyRepr(it)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// repr is Python's repr of a stream chunk: messages as langchain prints
// them, interrupts as Interrupt(value=..., id=...) in a tuple, dicts of
// state keys in the state's order.
func (d *debugPrinter) repr(v any) string {
	switch t := v.(type) {
	case Message:
		return MessageRepr(t)
	case []Message:
		return MessagesRepr(t)
	case MessageList:
		return MessagesRepr(t.Slice())
	case InterruptValue:
		return "Interrupt(value=" + d.repr(t.Value) + ", id=" + PyStrRepr(t.ID) + ")"
	case []InterruptValue:
		items := make([]string, len(t))
		for i, in := range t {
			items[i] = d.repr(in)
		}
		if len(items) == 1 {
			return "(" + items[0] + ",)"
		}
		return "(" + strings.Join(items, ", ") + ")"
	case State:
		return d.dict(map[string]any(t), true)
	case map[string]any:
		return d.dict(t, false)
	case []any:
		items := make([]string, len(t))
		for i, e := range t {
			items[i] = d.repr(e)
		}
		return "[" + strings.Join(items, ", ") + "]"
	case nil:
		return "None"
	}
	return PyRepr(valueForJSON(v))
}

// dict is Python's repr of a dict: state keys in the state's order, an
// update chunk's nodes sorted with "__metadata__" last.
func (d *debugPrinter) dict(m map[string]any, state bool) string {
	var keys []string
	if state {
		for _, k := range d.keys {
			if _, ok := m[k]; ok {
				keys = append(keys, k)
			}
		}
	}
	rest := sortedKeys(m)
	sort.SliceStable(rest, func(i, j int) bool { return rest[j] == "__metadata__" && rest[i] != "__metadata__" })
	for _, k := range rest {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = PyStrRepr(k) + ": " + d.repr(m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// debugWriter is where the run prints its debug lines: the run's own
// Config.Debug, else the graph's; nil when debugging is off.
func (g *Graph) debugWriter(cfg Config) io.Writer {
	if cfg.Debug != nil {
		return cfg.Debug
	}
	return g.debug
}
