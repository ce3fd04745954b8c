package engine

import (
	"context"
	"errors"
	"strings"
)

// nsSep joins the levels of a checkpoint namespace (LangGraph's NS_SEP).
const nsSep = "|"

// nesting ties a subgraph's run to the task of the parent run that
// started it.
type nesting struct {
	parent *run
	sp     *scratchpad // the parent task's
	ns     string      // the task's namespace: "[parent ns|]node:task-id"
}

// ns is the run's checkpoint namespace, "" at the top.
func (r *run) ns() string {
	if r.nest == nil {
		return ""
	}
	return r.nest.ns
}

// namespace is the run's namespace as stream parts carry it, nil at the
// top.
func (r *run) namespace() []string {
	if r.nest == nil {
		return nil
	}
	return strings.Split(r.nest.ns, nsSep)
}

// AddSubgraph adds a compiled graph as the node name, LangGraph's
// add_node(name, compiled_graph). The node gives the subgraph the parent's
// state as input (the subgraph keeps the keys it declares) and writes the
// subgraph's output back as its update. The subgraph runs in the
// checkpoint namespace "name:<task id>" (below the parent's), with the
// parent's checkpointer unless it was compiled with one of its own, the
// parent's thread, store, context and recursion limit. An interrupt inside
// it pauses the parent; resuming the parent resumes the subgraph from its
// own checkpoint. A Command with Graph CommandParent returned inside it is
// applied as this node's output. Streams with Config.Subgraphs show its
// output under its namespace; GetState with Config.Subgraphs shows its
// state in the task's TaskInfo.State.
func (g *StateGraph) AddSubgraph(name string, sub *Graph, opts ...NodeOption) *StateGraph {
	if sub == nil {
		g.errs = append(g.errs, errors.New("add subgraph: nil graph"))
		return g
	}
	g.AddNode(name, sub.subgraphNode, opts...)
	if n := g.nodes[name]; n != nil {
		n.subgraph = sub
	}
	return g
}

// subgraphNode runs the subgraph as the parent's task (Pregel.invoke
// called from a node, with the parent's config).
func (sub *Graph) subgraphNode(ctx context.Context, state State) (any, error) {
	sp := scratchpadFrom(ctx)
	if sp == nil || sp.run == nil {
		return nil, errors.New("subgraph: run outside of a graph task")
	}
	parent := sp.run
	r := &run{g: sub, ctx: ctx, cfg: parent.cfg, outKeys: sub.stateKeys, outRefs: sub.stateRefs,
		nest: &nesting{parent: parent, sp: sp, ns: sp.taskNS()}}
	r.cfg.CheckpointID = ""
	if r.cfg.RecursionLimit == 0 {
		r.cfg.RecursionLimit = parent.limit()
	}
	r.resumeMap = parent.resumeMap
	if parent.cfg.Subgraphs {
		r.modes = parent.modes
	}
	r.yield = func(p StreamPart) bool {
		if p.Namespace == nil {
			p.Namespace = r.namespace()
		}
		return parent.forward(p)
	}
	input, err := sub.subgraphInput(ctx, r, state)
	if err != nil {
		return nil, err
	}
	if err := r.execute(input); err != nil {
		var pc *parentCommand
		if errors.As(err, &pc) {
			// run_with_retry: a Command for the parent graph is the parent
			// task's output
			cmd := pc.cmd
			cmd.Graph = ""
			return &cmd, nil
		}
		return nil, err
	}
	if r.paused {
		return nil, &InterruptError{Interrupts: r.pausedBy}
	}
	return r.readState(sub.stateRefs, nil), nil
}

// subgraphInput is nil (continue) when the subgraph already has a
// checkpoint in the task's namespace, the task's earlier attempt or the
// run it paused; the parent's state otherwise.
func (sub *Graph) subgraphInput(ctx context.Context, r *run, state State) (any, error) {
	saver := sub.checkpointer
	if saver == nil {
		saver = r.nest.parent.saver
	}
	if saver == nil {
		return state, nil
	}
	t, err := saver.GetTuple(ctx, CheckpointConfig{ThreadID: r.cfg.ThreadID, CheckpointNS: r.nest.ns})
	if err != nil {
		return nil, err
	}
	if t != nil {
		return nil, nil
	}
	return state, nil
}

// parentCommand is a Command for the parent graph, raised by the task
// that returned it (ParentCommand): a subgraph's node hands it to the
// parent task; at the top it is an InvalidUpdateError.
type parentCommand struct {
	cmd Command
	err *Error
}

func (p *parentCommand) Error() string { return p.err.Error() }
func (p *parentCommand) Unwrap() error { return p.err }

func newParentCommand(c Command) error {
	return &parentCommand{cmd: c, err: NewError("InvalidUpdateError", "There is no parent graph")}
}
