package harness

import (
	"context"
	"fmt"
	"slices"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/grade"
)

// maxSubgraphDepth bounds how deep the runner follows subgraphs inside
// subgraphs when it reads their steps.
const maxSubgraphDepth = 16

// historyReader reads the supersteps one turn ran on a thread from the
// checkpoints it wrote, those of the subgraphs its tasks ran included.
type historyReader struct {
	st     *setup
	thread string
	turn   int
	// starts maps the namespace of each subgraph task that was paused
	// when the turn began to the subgraph's checkpoint it began from.
	starts map[string]string
	// pos places every task the histories show: its superstep and its
	// index among the tasks of that step, for ordering streamed
	// messages.
	pos map[string]taskPos
}

// taskPos is where a task ran: its superstep (langgraph_step) and its
// place among the step's tasks.
type taskPos struct{ step, index int }

// steps reads the supersteps of the graph in namespace ns ("" for the
// agent's own) from its checkpoints since startID ("" for all of them):
// the chain of parents from the newest checkpoint back to startID. Each
// loop checkpoint is one step: its number, the tasks its parent
// scheduled, the messages it added or replaced and the keys it changed.
// A task that ran a subgraph is followed by the subgraph's own steps
// (Namespace set), whose messages the step itself then leaves out; the
// subgraph tasks still pending at the end (paused inside) are followed
// the same way, after the last step. A subgraph's input step is not
// shown: its messages are its parent's. It returns the steps, each with
// the messages after it, and the messages at the end.
func (h *historyReader) steps(ctx context.Context, ns, startID string, before []engine.Message, depth int) ([]grade.Step, []engine.Message, error) {
	hist, err := h.st.graph.GetStateHistory(ctx, engine.Config{ThreadID: h.thread, CheckpointNS: ns}, engine.ListOptions{})
	if err != nil || len(hist) == 0 {
		return nil, before, err
	}
	byID := make(map[string]*engine.StateSnapshot, len(hist))
	for _, s := range hist {
		byID[s.Config.CheckpointID] = s
		if s.Metadata == nil {
			continue
		}
		for i, t := range s.Tasks {
			h.pos[t.ID] = taskPos{step: s.Metadata.Step + 1, index: i}
		}
	}
	var chain []*engine.StateSnapshot
	for cur := hist[0]; cur != nil && cur.Config.CheckpointID != startID; {
		chain = append(chain, cur)
		if cur.ParentConfig == nil {
			break
		}
		cur = byID[cur.ParentConfig.CheckpointID]
	}
	slices.Reverse(chain)
	parent := byID[startID]
	var steps []grade.Step
	msgs := before
	for _, c := range chain {
		if c.Metadata == nil || c.Metadata.Source != "loop" || parent == nil {
			parent = c
			continue
		}
		step := h.step(parent, c, ns)
		msgs = step.Messages
		inner, shown, err := h.subgraphs(ctx, parent.Tasks, depth)
		if err != nil {
			return nil, nil, err
		}
		parent = c
		if ns != "" && step.Nodes[0] == "input" {
			continue
		}
		steps = append(steps, withoutShown(step, shown))
		steps = append(steps, inner...)
	}
	// subgraph tasks paused inside: what they ran so far
	paused, _, err := h.subgraphs(ctx, hist[0].Tasks, depth)
	if err != nil {
		return nil, nil, err
	}
	for i := range paused {
		paused[i].Pending = true
	}
	return append(steps, paused...), msgs, nil
}

// step is the superstep of loop checkpoint c, whose parent is p.
func (h *historyReader) step(p, c *engine.StateSnapshot, ns string) grade.Step {
	var nodes []string
	input := false
	for _, t := range p.Tasks {
		if t.Name == engine.Start {
			input = true
			continue
		}
		nodes = append(nodes, t.Name)
	}
	slices.Sort(nodes)
	now := c.Values.Messages("messages")
	old := p.Values.Messages("messages")
	step := grade.Step{Turn: h.turn, Thread: h.thread, Step: c.Metadata.Step, Namespace: ns, Nodes: nodes, Changed: changed(old, now), Removed: removed(old, now), Messages: now}
	if input {
		step.Nodes = append([]string{"input"}, nodes...)
	} else {
		step.Keys = changedKeys(p.Values, c.Values)
	}
	if len(step.Nodes) == 0 {
		step.Nodes = []string{"(no task)"}
	}
	return step
}

// subgraphs reads the steps of the tasks among tasks that ran a
// subgraph, in task order, each from where the turn began in it. It also
// returns the IDs of the messages those subgraphs hold at the end, which
// their steps show (in this turn, or in the one that paused inside).
func (h *historyReader) subgraphs(ctx context.Context, tasks []engine.TaskInfo, depth int) ([]grade.Step, map[string]bool, error) {
	var out []grade.Step
	shown := map[string]bool{}
	for _, t := range tasks {
		if t.StateConfig == nil {
			continue
		}
		if depth >= maxSubgraphDepth {
			return nil, nil, fmt.Errorf("subgraphs nested deeper than %d levels", maxSubgraphDepth)
		}
		ns := t.StateConfig.CheckpointNS
		inner, msgs, err := h.steps(ctx, ns, h.starts[ns], nil, depth+1)
		if err != nil {
			return nil, nil, fmt.Errorf("read the steps of subgraph %s: %w", ns, err)
		}
		out = append(out, inner...)
		for _, m := range msgs {
			if m.ID != "" {
				shown[m.ID] = true
			}
		}
	}
	return out, shown, nil
}

// withoutShown leaves out of a step's changed messages those its
// subgraphs' steps show: a subgraph node writes back the subgraph's
// whole conversation.
func withoutShown(step grade.Step, shown map[string]bool) grade.Step {
	if len(shown) == 0 {
		return step
	}
	var keep []engine.Message
	for _, m := range step.Changed {
		if !shown[m.ID] {
			keep = append(keep, m)
		}
	}
	step.Changed = keep
	return step
}

// subgraphStarts maps the namespace of each subgraph task pending at
// snapshot snap (paused inside, or not started) to the subgraph's newest
// checkpoint, where a run from snap goes on in it; subgraphs of
// subgraphs included.
func (st *setup) subgraphStarts(ctx context.Context, thread string, snap *engine.StateSnapshot) map[string]string {
	starts := map[string]string{}
	var walk func(tasks []engine.TaskInfo, depth int)
	walk = func(tasks []engine.TaskInfo, depth int) {
		for _, t := range tasks {
			if t.StateConfig == nil || depth >= maxSubgraphDepth {
				continue
			}
			ns := t.StateConfig.CheckpointNS
			sub, err := st.graph.GetState(ctx, engine.Config{ThreadID: thread, CheckpointNS: ns})
			if err != nil || sub.Metadata == nil {
				continue
			}
			starts[ns] = sub.Config.CheckpointID
			walk(sub.Tasks, depth+1)
		}
	}
	walk(snap.Tasks, 0)
	return starts
}
