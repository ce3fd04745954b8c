package grade

import (
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// Observed is what one run of an agent showed: the seam between whatever
// ran the agent (the scenario runner in package harness, or a program of
// its own) and the checks of this package. Every check reads only this
// value. It holds no timings, so it is the same at any parallelism.
//
// The zero value is a run that did nothing: no steps, no messages, no
// usage and no error.
type Observed struct {
	// Steps are the supersteps of every turn, in order, each with the
	// thread's messages after it.
	Steps []Step
	// AIMessages are the AI messages the agent added, in the order they
	// entered the state, across turns and threads (the trajectory). An AI
	// message replaced later (a HITL edit keeps the ID) appears in its
	// final form.
	AIMessages []engine.Message
	// Messages are the final messages of the last turn's thread.
	Messages []engine.Message
	// Final is the text of the last AI message of Messages.
	Final string
	// Structured is the structured_response value of the last turn's
	// thread, and HasStructured says whether the key was set.
	Structured    any
	HasStructured bool
	// Interrupts are the values of the interrupts raised, in order, and
	// InterruptTurns the 0-based turn of each (same index).
	Interrupts     []any
	InterruptTurns []int
	// Invokes has one entry per run of the graph (a user, resume or
	// continue turn).
	Invokes []Invoke
	// Usage counts model calls, tool calls, steps, tokens and cost.
	Usage Usage
	// Streamed are the messages the "messages" stream mode delivered in
	// the turns that asked for it, each with its chunks, in a stable
	// order (see Streamed).
	Streamed []Streamed
	// Err is the error of the turn that failed, nil if every turn
	// succeeded; the turns after a failed one did not run. ErrTurn is the
	// 0-based index of that turn.
	Err     error
	ErrTurn int
}

// Step is one superstep of a run.
type Step struct {
	// Turn is the 0-based turn; Step the superstep's number in the
	// thread, or in the subgraph.
	Turn   int
	Thread string
	Step   int
	// Namespace is "" for a step of the agent's own graph and, for a
	// step inside a subgraph (a "graph" agent's node), the subgraph
	// task's checkpoint namespace ("researcher:<task id>"); such a step
	// follows the step of the parent's node that ran it, and its
	// Messages are the subgraph's.
	Namespace string
	// Pending marks a subgraph's step whose parent task has not finished:
	// it paused inside the subgraph, so no step of the parent ran it yet;
	// such steps come after the turn's last step.
	Pending bool
	// Nodes are the nodes that ran, sorted, repeated per task; "input"
	// comes first in the step that took the turn's input, and
	// "update_state" names a state update.
	Nodes []string
	// Changed are the messages the step added or replaced, in state
	// order; Removed the IDs of those it removed, in the order they had.
	Changed []engine.Message
	Removed []string
	// Keys are the state keys the step wrote, sorted.
	Keys []string
	// Messages are the thread's messages after the step.
	Messages []engine.Message
}

// Invoke is one run of the graph.
type Invoke struct {
	// Turn is the 0-based turn and Thread the thread it ran on.
	Turn   int
	Thread string
	// Supersteps is how many supersteps ran; Limit is the recursion limit
	// the run had (0: unknown).
	Supersteps int
	Limit      int
}

// Usage is what a run used.
type Usage struct {
	// ModelCalls counts every model call, EmulatedModelCalls those made
	// by tool emulators among them.
	ModelCalls         int
	EmulatedModelCalls int
	// ToolCalls counts the tool calls the tool node answered (run,
	// emulated, or turned into an error message), not retried runs.
	ToolCalls int
	// ToolRuns counts the runs of tool functions: retries count again,
	// calls answered by an emulator model count none.
	ToolRuns int
	// Steps counts the supersteps of every run of the graph.
	Steps int
	// InputTokens, OutputTokens and TotalTokens add up every model call's
	// usage.
	InputTokens  int
	OutputTokens int
	TotalTokens  int
	// CostUSD is the cost in US dollars; CostKnown is false when a model's
	// price is not known, and then CostUSD is not the whole cost.
	CostUSD   float64
	CostKnown bool
}

// Streamed is one message as the "messages" stream mode delivered it:
// the chunks that carry its ID, in the order they came.
//
// Streamed messages are ordered by the task that produced them, tasks as
// the graph orders them: by superstep, then by task path (LangGraph's
// order of applying writes), level by level for tasks inside subgraphs;
// the messages of one task in the order it streamed them. So the order
// does not depend on which of a superstep's parallel tasks finished
// first.
type Streamed struct {
	// Turn is the 0-based turn.
	Turn int
	// Namespace is the subgraph the message came from, outermost first,
	// each level "node:<task id>" (the stream's namespace); nil at the
	// top.
	Namespace []string
	// Node and Step are the producing task's langgraph_node and
	// langgraph_step.
	Node string
	Step int
	// Metadata is the first chunk's metadata (engine.MessageChunk).
	Metadata *engine.Object
	// Chunks are the chunks, each a message with the same ID.
	Chunks []engine.Message
}

// Text is the text of the chunks put together.
func (s Streamed) Text() string {
	var b strings.Builder
	for _, c := range s.Chunks {
		b.WriteString(c.Text())
	}
	return b.String()
}

// Pieces are the text of each chunk.
func (s Streamed) Pieces() []string {
	out := make([]string, len(s.Chunks))
	for i, c := range s.Chunks {
		out[i] = c.Text()
	}
	return out
}

// ToolCalls are the names of the tool calls the chunks carry, in order.
func (s Streamed) ToolCalls() []string {
	var out []string
	for _, c := range s.Chunks {
		for _, tc := range c.ToolCalls {
			out = append(out, tc.Name)
		}
	}
	return out
}

// Path is the namespace's node names, joined by "|", without task ids:
// "" at the top.
func (s Streamed) Path() string { return NamespacePath(s.Namespace) }

// NamespacePath is a namespace's node names, outermost first, joined by
// "|" ("outer|inner"), LangGraph's recast_checkpoint_ns.
func NamespacePath(ns []string) string {
	names := make([]string, len(ns))
	for i, level := range ns {
		names[i], _, _ = strings.Cut(level, ":")
	}
	return strings.Join(names, "|")
}
