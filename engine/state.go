package engine

import (
	"context"
	"fmt"
	"sort"
)

// State is a graph's state as a node sees it: channel values by key, plus
// managed values such as remaining_steps. Values are shared between tasks
// and checkpoints: treat them as read-only and return new values in updates.
type State map[string]any

// Messages returns the messages under key ("messages" when key is empty):
// a MessageList's as one slice (see MessageList.Slice), which the caller
// must not modify, or a []Message as it is.
func (s State) Messages(key string) []Message {
	if key == "" {
		key = "messages"
	}
	switch v := s[key].(type) {
	case MessageList:
		return v.Slice()
	case []Message:
		return v
	}
	return nil
}

// List returns the messages under key ("messages" when key is empty) as a
// MessageList: the channel's own list (no copy), or a []Message in a new
// list.
func (s State) List(key string) MessageList {
	if key == "" {
		key = "messages"
	}
	switch v := s[key].(type) {
	case MessageList:
		return v
	case []Message:
		return NewMessageList(v...)
	}
	return MessageList{}
}

// Clone returns a shallow copy of the state.
func (s State) Clone() State {
	c := make(State, len(s))
	for k, v := range s {
		c[k] = v
	}
	return c
}

// ToValue returns the state as a JSON object, keys sorted, messages as
// LangChain dicts.
func (s State) ToValue() *Object {
	o := &Object{}
	for _, k := range sortedKeys(s) {
		o.Set(k, valueForJSON(s[k]))
	}
	return o
}

// Field declares one state key.
type Field struct {
	Name string
	// Reducer folds writes into the value; nil keeps the last value and
	// refuses two writes in one superstep.
	Reducer Reducer
	// Managed makes the key a value the engine computes for each task
	// (remaining_steps); such keys cannot be written.
	Managed Managed
	// Ephemeral keeps a value for one superstep only (LangGraph's
	// EphemeralValue, e.g. create_agent's jump_to).
	Ephemeral bool
	// Untracked keeps the last value written for the rest of the run but
	// never saves it in checkpoints (LangGraph's UntrackedValue, e.g.
	// per-run counters).
	Untracked bool
	// Private keeps the key out of the graph's input and output.
	Private bool
	// OmitFromInput keeps the key out of what a run's input may set.
	OmitFromInput bool
	// OmitFromOutput keeps the key out of the run's output and stream.
	OmitFromOutput bool
}

// Managed is a value the engine computes per task.
type Managed int

// Managed values.
const (
	NotManaged Managed = iota
	// ManagedRemainingSteps is recursion_limit minus the current step.
	ManagedRemainingSteps
	// ManagedIsLastStep is true when the current step is the last allowed.
	ManagedIsLastStep
)

// MessagesField is a key holding a message list with the add_messages
// reducer.
func MessagesField(name string) Field { return Field{Name: name, Reducer: AddMessagesReducer{}} }

// ValueField is a key that keeps the last value written.
func ValueField(name string) Field { return Field{Name: name} }

// RemainingStepsField is LangGraph's RemainingSteps managed value.
func RemainingStepsField(name string) Field {
	return Field{Name: name, Managed: ManagedRemainingSteps}
}

// Reducer combines a key's current value with a write. Reduce must not
// modify its arguments.
type Reducer interface {
	// Zero returns the initial value and whether there is one; a key with
	// no initial value is absent from the state until written.
	Zero() (any, bool)
	Reduce(current, update any) (any, error)
}

// ReducerFunc is a Reducer from a function, with an optional initial value.
type ReducerFunc struct {
	Fn      func(current, update any) (any, error)
	Initial any
	HasInit bool
}

// Zero returns the initial value.
func (r ReducerFunc) Zero() (any, bool) { return r.Initial, r.HasInit }

// Reduce calls Fn.
func (r ReducerFunc) Reduce(current, update any) (any, error) { return r.Fn(current, update) }

// Send asks the graph to run Node in the next superstep with Arg as its
// input (one task per Send), LangGraph's Send.
type Send struct {
	Node string
	Arg  any
}

// CommandParent addresses the parent graph in Command.Graph.
const CommandParent = "__parent__"

// Command is a node's (or a caller's) instruction to update the state, go
// to nodes, or resume an interrupt, LangGraph's Command.
type Command struct {
	// Update is applied as the node's state update (a State or
	// map[string]any).
	Update State
	// Goto names the next nodes: a string, []string, Send or []Send (or
	// []any mixing them).
	Goto any
	// Resume answers the pending interrupt (any value), or several by ID
	// with map[string]any{interruptID: value}.
	Resume any
	// Graph is "" for this graph or CommandParent.
	Graph string
}

// Runtime is what a node or tool can reach besides the state: the run's
// context, the store, a writer for custom stream output, and step
// information. It is read only (LangGraph's Runtime is a frozen
// dataclass): a task's one Runtime is shared by everything that asks for
// it, its retries included.
type Runtime struct {
	// Context is the run's runtime context (LangGraph's context_schema
	// value), set in Config.Context.
	Context any
	Store   Store
	// StreamWriter sends a value to the "custom" stream mode.
	StreamWriter func(v any)
	// Step is the superstep the task runs in.
	Step int
	// RemainingSteps is recursion_limit minus Step.
	RemainingSteps int
	// ThreadID is the run's thread ("" without a checkpointer).
	ThreadID string
	// Node is the node running.
	Node string
	// Clock is the graph's clock.
	Clock Clock
	// MaxConcurrency is the run's Config.MaxConcurrency.
	MaxConcurrency int
}

type runtimeKey struct{}

// RuntimeFrom returns the Runtime of the task running in ctx, or nil
// outside a task. Every call with one task's context returns the same
// Runtime, from any goroutine, also after the node returned (a goroutine
// it started may keep its context); retries of the task share it.
func RuntimeFrom(ctx context.Context) *Runtime {
	rt, _ := ctx.Value(runtimeKey{}).(*Runtime)
	return rt
}

// clockKey asks a task's context for its Runtime's clock without making
// the Runtime (see taskFrame.Value).
type clockKey struct{}

// ClockFrom returns the clock of the run ctx belongs to (Runtime.Clock),
// or the system clock outside a run: what retry backoff and emulated
// latency wait on, so a fake clock makes them instant.
func ClockFrom(ctx context.Context) Clock {
	if c, ok := ctx.Value(clockKey{}).(Clock); ok && c != nil {
		return c
	}
	return SystemClock{}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// valueForJSON converts engine values (messages, states, interrupts) into
// JSON values for output and reprs; it falls back to the value itself.
func valueForJSON(v any) any {
	switch t := v.(type) {
	case Message:
		return t.ToValue()
	case *Message:
		if t == nil {
			return nil
		}
		return t.ToValue()
	case []Message:
		return MessagesToValue(t)
	case MessageList:
		return MessagesToValue(t.Slice())
	case State:
		return t.ToValue()
	case InterruptValue:
		return t.ToValue()
	case []InterruptValue:
		out := make([]any, len(t))
		for i, in := range t {
			out[i] = in.ToValue()
		}
		return out
	case ToolCall:
		return t.ToValue()
	case []ToolCall:
		out := make([]any, len(t))
		for i, tc := range t {
			out[i] = tc.ToValue()
		}
		return out
	case Send:
		return NewObject("node", t.Node, "arg", valueForJSON(t.Arg))
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = valueForJSON(e)
		}
		return out
	case map[string]any:
		o := &Object{}
		for _, k := range sortedKeys(t) {
			o.Set(k, valueForJSON(t[k]))
		}
		return o
	case *Object:
		if t == nil {
			return nil
		}
		out := &Object{}
		for _, k := range t.Keys() {
			e, _ := t.Get(k)
			out.Set(k, valueForJSON(e))
		}
		return out
	case nil, bool, string:
		return v
	}
	c, err := ToValue(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return c
}

// ValueForJSON converts an engine value (Message, []Message, State,
// Interrupt, ToolCall, Send, or any JSON-encodable value) into the JSON
// value model, for output and comparison.
func ValueForJSON(v any) any { return valueForJSON(v) }
