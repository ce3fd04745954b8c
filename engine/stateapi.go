package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// StateSnapshot is a thread's state at one checkpoint, LangGraph's
// StateSnapshot.
type StateSnapshot struct {
	Values State
	// Next names the nodes that run next (empty when the run is over).
	Next []string
	// Config addresses this checkpoint.
	Config CheckpointConfig
	// Metadata is nil for a thread with no checkpoint.
	Metadata     *CheckpointMetadata
	CreatedAt    string
	ParentConfig *CheckpointConfig
	// Tasks are the tasks of the next superstep, with the errors and
	// interrupts they raised if they already ran.
	Tasks []TaskInfo
	// Interrupts are the pending interrupts of all tasks.
	Interrupts []InterruptValue
}

// TaskInfo is a task of a snapshot, LangGraph's PregelTask.
type TaskInfo struct {
	ID   string
	Name string
	// Error is the repr of the error the task raised, "" if none.
	Error      string
	Interrupts []InterruptValue
	// State is, for a task of a subgraph node (AddSubgraph) when GetState
	// was asked with Config.Subgraphs, the subgraph's state in the task's
	// namespace (LangGraph's PregelTask.state as a StateSnapshot).
	State *StateSnapshot
	// StateConfig addresses that state when Subgraphs was not asked
	// (PregelTask.state as a config).
	StateConfig *CheckpointConfig
}

// GetState returns the thread's newest state, or the state at
// cfg.CheckpointID. Pending writes of finished tasks are applied to the
// newest state, as LangGraph does.
func (g *Graph) GetState(ctx context.Context, cfg Config) (*StateSnapshot, error) {
	if g.checkpointer == nil {
		return nil, NewError("ValueError", "No checkpointer set")
	}
	if cfg.ThreadID == "" {
		return nil, errors.New("get state: Config.ThreadID is required")
	}
	if cfg.CheckpointNS != "" {
		sub, err := g.subgraphAt(cfg.CheckpointNS)
		if err != nil {
			return nil, err
		}
		saved, err := sub.checkpointer.GetTuple(ctx, CheckpointConfig{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS, CheckpointID: cfg.CheckpointID})
		if err != nil {
			return nil, fmt.Errorf("get state of subgraph %q: %w", cfg.CheckpointNS, err)
		}
		if saved == nil {
			return &StateSnapshot{Values: State{}, Config: CheckpointConfig{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS}}, nil
		}
		return sub.snapshot(ctx, cfg, saved, cfg.CheckpointID == "")
	}
	saved, err := g.checkpointer.GetTuple(ctx, CheckpointConfig{ThreadID: cfg.ThreadID, CheckpointID: cfg.CheckpointID})
	if err != nil {
		return nil, fmt.Errorf("get state of thread %q: %w", cfg.ThreadID, err)
	}
	return g.snapshot(ctx, cfg, saved, cfg.CheckpointID == "")
}

// GetStateHistory returns the thread's checkpoints as snapshots, newest
// first.
func (g *Graph) GetStateHistory(ctx context.Context, cfg Config, opts ListOptions) ([]*StateSnapshot, error) {
	if g.checkpointer == nil {
		return nil, NewError("ValueError", "No checkpointer set")
	}
	if cfg.ThreadID == "" {
		return nil, errors.New("get state history: Config.ThreadID is required")
	}
	if cfg.CheckpointNS != "" {
		sub, err := g.subgraphAt(cfg.CheckpointNS)
		if err != nil {
			return nil, err
		}
		g = sub
	}
	tuples, err := g.checkpointer.List(ctx, CheckpointConfig{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS, CheckpointID: cfg.CheckpointID}, opts)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints of thread %q: %w", cfg.ThreadID, err)
	}
	out := make([]*StateSnapshot, 0, len(tuples))
	for _, t := range tuples {
		s, err := g.snapshot(ctx, cfg, t, false)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// snapshotRun is a run used only to read a checkpoint.
func (g *Graph) readRun(ctx context.Context, cfg Config, saved *CheckpointTuple) *run {
	r := g.newReadRun(ctx, cfg)
	r.loadCheckpoint(saved.Checkpoint)
	r.meta = saved.Metadata
	r.cpCfg = saved.Config
	r.pending = append([]PendingWrite(nil), saved.PendingWrites...)
	return r
}

// newReadRun returns a run of g that streams nothing, with no checkpoint
// loaded.
func (g *Graph) newReadRun(ctx context.Context, cfg Config) *run {
	r := &run{g: g, ctx: ctx, cfg: cfg, saver: g.checkpointer, vers: newVersions(g)}
	r.yield = func(StreamPart) bool { return true }
	r.updated = make([]bool, len(g.chanNames))
	return r
}

func (g *Graph) snapshot(ctx context.Context, cfg Config, saved *CheckpointTuple, applyPending bool) (*StateSnapshot, error) {
	if saved == nil {
		return &StateSnapshot{Values: State{}, Config: CheckpointConfig{ThreadID: cfg.ThreadID}}, nil
	}
	r := g.readRun(ctx, cfg, saved)
	r.step = saved.Metadata.Step + 1
	r.stop = r.step + 2
	tasks, err := r.prepareTasks(true)
	if err != nil {
		return nil, err
	}
	var null []write
	for _, w := range r.pending {
		if w.TaskID == nullTaskID {
			null = append(null, write{channel: w.Channel, value: w.Value})
		}
	}
	if len(null) > 0 {
		if err := r.applyWrites([]*task{{name: inputName, writes: null}}, r.updated); err != nil {
			return nil, err
		}
	}
	if applyPending && len(r.pending) > 0 {
		byID := map[string]*task{}
		for _, t := range tasks {
			byID[t.id] = t
		}
		for _, w := range r.pending {
			if w.Channel == chError || w.Channel == chInterrupt {
				continue
			}
			if t := byID[w.TaskID]; t != nil {
				t.writes = append(t.writes, write{channel: w.Channel, value: w.Value})
			}
		}
		var with []*task
		for _, t := range tasks {
			if len(t.writes) > 0 {
				with = append(with, t)
			}
		}
		if len(with) > 0 {
			if err := r.applyWrites(with, r.updated); err != nil {
				return nil, err
			}
		}
	}
	snap := &StateSnapshot{
		Values:    r.readState(g.streamRefs, nil),
		Config:    saved.Config,
		CreatedAt: saved.Checkpoint.TS,
	}
	meta := saved.Metadata
	snap.Metadata = &meta
	if saved.ParentConfig != nil {
		p := *saved.ParentConfig
		snap.ParentConfig = &p
	}
	for _, t := range tasks {
		if len(t.writes) == 0 {
			snap.Next = append(snap.Next, t.name)
		}
		info := TaskInfo{ID: t.id, Name: t.name}
		for _, w := range saved.PendingWrites {
			if w.TaskID != t.id {
				continue
			}
			switch w.Channel {
			case chError:
				if info.Error == "" {
					info.Error = fmt.Sprint(w.Value)
				}
			case chInterrupt:
				if list, ok := w.Value.([]InterruptValue); ok {
					info.Interrupts = append(info.Interrupts, list...)
				}
			}
		}
		if sub := t.node.subgraph; sub != nil {
			ns := t.name + ":" + t.id
			if p := saved.Config.CheckpointNS; p != "" {
				ns = p + nsSep + ns
			}
			sc := CheckpointConfig{ThreadID: cfg.ThreadID, CheckpointNS: ns}
			if cfg.Subgraphs {
				s, err := sub.subgraphSnapshot(ctx, cfg, g.checkpointer, sc)
				if err != nil {
					return nil, err
				}
				info.State = s
			} else {
				info.StateConfig = &sc
			}
		}
		snap.Interrupts = append(snap.Interrupts, info.Interrupts...)
		snap.Tasks = append(snap.Tasks, info)
	}
	return snap, nil
}

// UpdateState writes values into the thread's state as if node asNode had
// returned them (its edges and routers run too), and returns the new
// checkpoint's config. With cfg.CheckpointID set it forks from that
// checkpoint. An empty asNode means the node that last updated the state.
// asNode End with nil values clears the pending tasks.
func (g *Graph) UpdateState(ctx context.Context, cfg Config, values any, asNode string) (CheckpointConfig, error) {
	if g.checkpointer == nil {
		return CheckpointConfig{}, NewError("ValueError", "No checkpointer set")
	}
	if cfg.ThreadID == "" {
		return CheckpointConfig{}, errors.New("update state: Config.ThreadID is required")
	}
	if cfg.CheckpointNS != "" {
		return CheckpointConfig{}, errCheckpointNS("update state")
	}
	saved, err := g.checkpointer.GetTuple(ctx, CheckpointConfig{ThreadID: cfg.ThreadID, CheckpointID: cfg.CheckpointID})
	if err != nil {
		return CheckpointConfig{}, fmt.Errorf("update state of thread %q: %w", cfg.ThreadID, err)
	}
	if saved == nil && cfg.CheckpointID != "" {
		return CheckpointConfig{}, fmt.Errorf("update state: thread %q has no checkpoint %q", cfg.ThreadID, cfg.CheckpointID)
	}
	r, step := g.updateRun(ctx, cfg, saved)
	r.seed = g.seeds.seed(cfg.ThreadID, values)
	r.step, r.stop = step+1, step+3

	if values == nil && asNode == End {
		return r.closeTasks(saved != nil, step)
	}
	t, err := r.updateTask(saved, asNode, step)
	if err != nil {
		return CheckpointConfig{}, err
	}
	if err := r.runUpdateWriters(ctx, t, values); err != nil {
		return CheckpointConfig{}, err
	}
	if saved != nil {
		if err := g.saveUpdateWrites(ctx, saved, t); err != nil {
			return CheckpointConfig{}, err
		}
	}
	if err := r.applyWrites([]*task{t}, r.updated); err != nil {
		return CheckpointConfig{}, err
	}
	r.updatedKnown = true
	if err := r.putCheckpointMeta("update", step+1); err != nil {
		return CheckpointConfig{}, err
	}
	return r.cpCfg, nil
}

// updateRun returns the run UpdateState works in, with the step of the
// checkpoint it starts from: the saved checkpoint, or an empty one (step
// -1) on a new thread.
func (g *Graph) updateRun(ctx context.Context, cfg Config, saved *CheckpointTuple) (*run, int) {
	if saved != nil {
		r := g.readRun(ctx, cfg, saved)
		r.cpCfg.Fork = cfg.CheckpointID != "" // an update of a past checkpoint branches
		return r, saved.Metadata.Step
	}
	r := g.newReadRun(ctx, cfg)
	r.chans = g.channelsFrom(nil)
	r.cpCfg = CheckpointConfig{ThreadID: cfg.ThreadID}
	return r, -1
}

// closeTasks is UpdateState(nil, End): the pending tasks of a saved
// checkpoint are applied as they are and a new checkpoint is taken at the
// same step, with no node run.
func (r *run) closeTasks(hasSaved bool, step int) (CheckpointConfig, error) {
	if hasSaved {
		tasks, err := r.prepareTasks(true)
		if err != nil {
			return CheckpointConfig{}, err
		}
		if err := r.applyWrites(tasks, r.updated); err != nil {
			return CheckpointConfig{}, err
		}
	}
	r.step = step
	r.updatedKnown = false
	if err := r.putCheckpointMeta("update", step+1); err != nil {
		return CheckpointConfig{}, err
	}
	return r.cpCfg, nil
}

// updateTask returns the task that writes an update as asNode ("" for
// the node that wrote last), with the ID the pending task of that node
// would have, so that its result attaches to it.
func (r *run) updateTask(saved *CheckpointTuple, asNode string, step int) (*task, error) {
	g := r.g
	prepared := map[string][]string{}
	if saved != nil && saved.PendingWrites != nil {
		tasks, err := r.prepareTasks(true)
		if err != nil {
			return nil, err
		}
		for _, t := range tasks {
			prepared[t.name] = append(prepared[t.name], t.id)
		}
	}
	if asNode == "" {
		var seen map[string]map[string]int64
		if saved != nil {
			seen = saved.Checkpoint.VersionsSeen
		}
		var err error
		asNode, err = g.lastNode(seen)
		if err != nil {
			return nil, err
		}
	}
	node := g.nodes[asNode]
	if node == nil || asNode == End {
		return nil, NewError("InvalidUpdateError", fmt.Sprintf("Node %s does not exist", asNode))
	}
	taskID := uuidFromHash(r.cpID, chInterrupt, asNode)
	if ids := prepared[asNode]; len(ids) > 0 {
		taskID = ids[0]
	}
	t := &task{id: taskID, name: asNode, kind: pullTask, node: node, triggers: []string{chInterrupt}}
	t.scratch = &scratchpad{step: step, stop: step + 2, task: t, nullIdx: -1}
	return t, nil
}

// updateTarget is the writeTarget of UpdateState: the writes of its task,
// normalized with IDs hashed from the run's seed, the task and a counter.
type updateTarget struct {
	r *run
	t *task
	n int
}

func (u *updateTarget) nextID() string {
	u.n++
	return uuidFromHash(u.r.seed, "update", u.t.id, strconv.Itoa(u.n))
}

func (u *updateTarget) emit(w write) {
	nw, err := u.r.normalizeOne(w, u)
	if err != nil {
		nw = w
	}
	u.t.writes = append(u.t.writes, nw)
}

func (u *updateTarget) emitAll(ws []write) {
	for _, w := range ws {
		u.emit(w)
	}
}

func (u *updateTarget) read() (State, error) { return u.r.freshState(u.t, u.t.writes) }

// runUpdateWriters passes values through the writers of t's node, as if
// the node had returned them, collecting the writes on t.
func (r *run) runUpdateWriters(ctx context.Context, t *task, values any) error {
	target := &updateTarget{r: r, t: t}
	for _, wr := range t.node.writers {
		if err := wr(ctx, values, target); err != nil {
			return err
		}
	}
	return nil
}

// saveUpdateWrites saves the update's channel writes (not its Sends) as
// pending writes of the checkpoint it applies to.
func (g *Graph) saveUpdateWrites(ctx context.Context, saved *CheckpointTuple, t *task) error {
	var channelWrites []write
	for _, w := range t.writes {
		if w.channel != chPush {
			channelWrites = append(channelWrites, w)
		}
	}
	if len(channelWrites) == 0 {
		return nil
	}
	pws := make([]PendingWrite, len(channelWrites))
	for i, w := range channelWrites {
		pws[i] = PendingWrite{TaskID: t.id, Channel: w.channel, Value: w.value}
	}
	if err := g.checkpointer.PutWrites(ctx, saved.Config, pws, t.id); err != nil {
		return fmt.Errorf("update state: save writes: %w", err)
	}
	return nil
}

// putCheckpointMeta saves a checkpoint with the given source and step.
func (r *run) putCheckpointMeta(source string, step int) error {
	r.step = step
	return r.putCheckpoint(source)
}

// lastNode finds the node that last updated the state (update_state with
// no as_node).
func (g *Graph) lastNode(versionsSeen map[string]map[string]int64) (string, error) {
	realNodes := 0
	var only string
	for name := range g.nodes {
		realNodes++
		only = name
	}
	if realNodes == 1 {
		return only, nil
	}
	anySeen := false
	for _, seen := range versionsSeen {
		for _, v := range seen {
			if v != 0 {
				anySeen = true
			}
		}
	}
	if !anySeen {
		return Start, nil
	}
	type vn struct {
		v int64
		n string
	}
	var all []vn
	for n, seen := range versionsSeen {
		if g.nodes[n] == nil {
			continue
		}
		for _, v := range seen {
			all = append(all, vn{v, n})
		}
	}
	if len(all) == 0 {
		return "", NewError("InvalidUpdateError", "Ambiguous update, specify as_node")
	}
	best := all[0]
	for _, x := range all[1:] {
		if x.v > best.v || (x.v == best.v && x.n > best.n) {
			best = x
		}
	}
	count := 0
	var second int64 = -1
	for _, x := range all {
		if x.v == best.v && x.n != best.n {
			count++
		}
		if x.v < best.v && x.v > second {
			second = x.v
		}
	}
	if count > 0 {
		return "", NewError("InvalidUpdateError", "Ambiguous update, specify as_node")
	}
	return best.n, nil
}

// subgraphSnapshot is the newest state of a subgraph in namespace sc, read
// from its own checkpointer or its parent's.
func (g *Graph) subgraphSnapshot(ctx context.Context, cfg Config, parentSaver Checkpointer, sc CheckpointConfig) (*StateSnapshot, error) {
	saver := g.checkpointer
	if saver == nil {
		saver = parentSaver
	}
	saved, err := saver.GetTuple(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("get state of subgraph %q: %w", sc.CheckpointNS, err)
	}
	if saved == nil {
		return &StateSnapshot{Values: State{}, Config: sc}, nil
	}
	return g.withSaver(saver).snapshot(ctx, cfg, saved, true)
}

// subgraphAt is the subgraph whose checkpoints live in namespace ns
// ("node:<task id>", levels joined by "|"), reading them from the
// checkpointer that holds them: its own, or its nearest parent's (the
// subgraph lookup of get_state and get_state_history in pregel/main.py).
func (g *Graph) subgraphAt(ns string) (*Graph, error) {
	cur, saver := g, g.checkpointer
	for _, level := range strings.Split(ns, nsSep) {
		name, _, _ := strings.Cut(level, ":")
		n := cur.nodes[name]
		if n == nil || n.subgraph == nil {
			return nil, NewError("ValueError", fmt.Sprintf("Subgraph %s not found", recastNS(ns)))
		}
		cur = n.subgraph
		if cur.checkpointer != nil {
			saver = cur.checkpointer
		}
	}
	return cur.withSaver(saver), nil
}

// recastNS is a namespace without its task IDs, "outer|inner"
// (recast_checkpoint_ns).
func recastNS(ns string) string {
	levels := strings.Split(ns, nsSep)
	for i, l := range levels {
		levels[i], _, _ = strings.Cut(l, ":")
	}
	return strings.Join(levels, nsSep)
}

// errCheckpointNS refuses a Config.CheckpointNS where only reads take it.
func errCheckpointNS(what string) error {
	return fmt.Errorf("%s: Config.CheckpointNS addresses a subgraph's checkpoints, which only GetState and GetStateHistory read", what)
}

// withSaver is g reading its checkpoints from saver (a subgraph that uses
// its parent's).
func (g *Graph) withSaver(saver Checkpointer) *Graph {
	if g.checkpointer == saver {
		return g
	}
	c := *g
	c.checkpointer = saver
	return &c
}
