package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/agenteval/agenteval/engine/value"
)

// ToolErrors configures how a ToolNode turns tool errors into tool
// messages (LangGraph's handle_tool_errors). The zero value handles every
// error with LangGraph's default text:
//
//	Error: ValueError('boom: bad input')
//	 Please fix your mistakes.
type ToolErrors struct {
	// Disabled lets every error fail the run (handle_tool_errors=False).
	Disabled bool
	// Message replaces the text of every handled error
	// (handle_tool_errors="...").
	Message string
	// Handle decides per error: the tool message text, and whether the
	// error is handled at all (a callable handler).
	Handle func(err error) (string, bool)
	// Kinds handles only errors of these Python exception kinds and their
	// subclasses (a tuple of exception types); others fail the run.
	Kinds []string
	// InvalidArgsOnly handles only invalid arguments, with the text of
	// langgraph-prebuilt 1.0.5's ToolInvocationError, and lets every other
	// error fail the run: the default of create_agent's ToolNode.
	InvalidArgsOnly bool
}

// ToolCallRequest is one tool call on its way to the tool, as a
// wrap_tool_call middleware sees it.
type ToolCallRequest struct {
	Call ToolCall
	// Tool is nil when the model named a tool the node does not have.
	Tool    Tool
	State   State
	Runtime *Runtime
}

// ToolCallExecutor runs a tool call: validation, the tool, error handling.
// It returns a tool Message or a *Command.
type ToolCallExecutor func(ctx context.Context, req ToolCallRequest) (any, error)

// ToolCallWrapper wraps the execution of each tool call (langchain's
// wrap_tool_call): it may change the request, call next any number of
// times, or answer without calling it.
type ToolCallWrapper func(ctx context.Context, req ToolCallRequest, next ToolCallExecutor) (any, error)

// ToolInvocationError is langgraph-prebuilt 1.0.5's error for a call with
// invalid arguments; its Message is the text sent back to the model.
type ToolInvocationError struct {
	ToolName string
	Args     *Object
	Source   *ValidationError
	Message  string
}

func (e *ToolInvocationError) Error() string { return e.Message }

// PyRepr is the exception's repr.
func (e *ToolInvocationError) PyRepr() string {
	return "ToolInvocationError(" + PyStrRepr(e.Message) + ")"
}

func newToolInvocationError(name string, args *Object, v *ValidationError) *ToolInvocationError {
	var lines []string
	for _, fe := range v.Errors {
		parts := make([]string, len(fe.Loc))
		for i, l := range fe.Loc {
			parts[i] = fmt.Sprint(l)
		}
		lines = append(lines, strings.Join(parts, ".")+": "+fe.Msg)
	}
	if args == nil {
		args = &Object{}
	}
	msg := fmt.Sprintf("Error invoking tool '%s' with kwargs %s with error:\n %s\n Please fix the error and try again.", name, PyRepr(args), strings.Join(lines, "\n"))
	return &ToolInvocationError{ToolName: name, Args: args, Source: v, Message: msg}
}

// ToolNodeOptions configures a ToolNode. The zero value is LangGraph's
// default ToolNode: named "tools", reading "messages", handling all errors.
type ToolNodeOptions struct {
	// Name is the node's name; "" means "tools".
	Name string
	// MessagesKey is the state key with the messages; "" means "messages".
	MessagesKey      string
	HandleToolErrors ToolErrors
	// MaxConcurrency caps the calls run at once; 0 uses the run's
	// Config.MaxConcurrency (0 there too: no cap).
	MaxConcurrency int
	// Wrap, when set, wraps the execution of every call.
	Wrap ToolCallWrapper
	// Tags are the node's tags (ToolNode's tags). As in langgraph-prebuilt
	// they are kept on the node (ToolNode.Tags) and change nothing in a
	// run: ToolNode is a RunnableCallable built with trace=False, which
	// never hands its tags to callbacks, and a graph node's task config
	// takes its tags from the PregelNode (none for a ToolNode), so even
	// "langsmith:hidden" or "nostream" leave its stream output alone.
	Tags []string
}

// ToolNode runs the tool calls of the last AI message, all at once, and
// answers each with one tool message, in the order of the calls
// (LangGraph's ToolNode).
type ToolNode struct {
	opts    ToolNodeOptions
	tools   []Tool
	defs    []ToolDef
	byName  map[string]int
	schemas []*Schema
	// argsCap is the most keys a tool's fast-validated arguments hold
	// (Schema.FastCap), 0 when no tool's schema has the fast path
	argsCap int
}

// Tags returns the node's tags (ToolNodeOptions.Tags), a copy.
func (n *ToolNode) Tags() []string { return slices.Clone(n.opts.Tags) }

// ToolCallWithContext is what create_react_agent (v2) sends to the tools
// node for one call: the call and the state it was made in, so injected
// state reflects the moment the model asked.
type ToolCallWithContext struct {
	Call  ToolCall
	State State
}

// debugValue is the dict LangGraph sends for it: {"__type":
// "tool_call_with_context", "tool_call", "state"}.
func (c ToolCallWithContext) debugValue() *Object {
	tc := c.Call.ToValue()
	tc.Set("type", "tool_call")
	state := &Object{}
	for _, k := range sortedKeys(c.State) {
		state.Set(k, debugValue(c.State[k]))
	}
	return NewObject("__type", "tool_call_with_context", "tool_call", tc, "state", state)
}

// Validate reports the problems of the options on their own: a negative
// MaxConcurrency, or an empty exception kind in HandleToolErrors.Kinds.
// NewToolNode calls it.
func (o ToolNodeOptions) Validate() error {
	var errs []error
	if o.MaxConcurrency < 0 {
		errs = append(errs, fmt.Errorf("max_concurrency: %d: expected a cap >= 0 (0: no cap of its own)", o.MaxConcurrency))
	}
	if slices.Contains(o.HandleToolErrors.Kinds, "") {
		errs = append(errs, errors.New("handle_tool_errors: an exception kind is empty"))
	}
	return errors.Join(errs...)
}

// NewToolNode returns a ToolNode for tools. The options must be valid
// (ToolNodeOptions.Validate), tool names unique and non-empty and their
// parameter schemas must compile.
func NewToolNode(tools []Tool, opts ToolNodeOptions) (*ToolNode, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("tool node: %w", err)
	}
	return newToolNode(tools, opts)
}

// newToolNode is NewToolNode for options already validated.
func newToolNode(tools []Tool, opts ToolNodeOptions) (*ToolNode, error) {
	if opts.Name == "" {
		opts.Name = "tools"
	}
	if opts.MessagesKey == "" {
		opts.MessagesKey = "messages"
	}
	n := &ToolNode{opts: opts, byName: map[string]int{}}
	var errs []error
	for i, t := range tools {
		if t == nil {
			errs = append(errs, fmt.Errorf("tool %d is nil", i))
			continue
		}
		def := t.Definition()
		if def.Name == "" {
			errs = append(errs, fmt.Errorf("tool %d has no name", i))
			continue
		}
		if _, dup := n.byName[def.Name]; dup {
			errs = append(errs, fmt.Errorf("duplicate tool name %q: tool names must be unique", def.Name))
			continue
		}
		params := def.Parameters
		if params == nil {
			params = NewObject("type", "object", "properties", &Object{})
		}
		s, err := CompileSchema(def.Name, params)
		if err != nil {
			errs = append(errs, fmt.Errorf("tool %q: parameters: %w", def.Name, err))
			continue
		}
		for _, inj := range def.Inject {
			switch inj.Kind {
			case InjectState, InjectStore, InjectToolCallID, InjectRuntime:
			default:
				errs = append(errs, fmt.Errorf("tool %q: injected argument %q has unknown kind %q", def.Name, inj.Arg, inj.Kind))
			}
			if inj.Arg == "" {
				errs = append(errs, fmt.Errorf("tool %q: an injected argument has no name", def.Name))
			}
		}
		n.byName[def.Name] = len(n.tools)
		n.tools = append(n.tools, t)
		n.defs = append(n.defs, def)
		n.schemas = append(n.schemas, s)
		n.argsCap = max(n.argsCap, s.FastCap())
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("tool node: %w", errors.Join(errs...))
	}
	return n, nil
}

// Name returns the node name.
func (n *ToolNode) Name() string { return n.opts.Name }

// MessagesKey returns the state key the node reads and writes.
func (n *ToolNode) MessagesKey() string { return n.opts.MessagesKey }

// Tools returns the tools in registration order.
func (n *ToolNode) Tools() []Tool { return append([]Tool(nil), n.tools...) }

// Definitions returns the tools' definitions in registration order.
func (n *ToolNode) Definitions() []ToolDef { return append([]ToolDef(nil), n.defs...) }

// Schemas returns the tools as the model sees them, in registration order.
func (n *ToolNode) Schemas() []ToolSchema {
	out := make([]ToolSchema, len(n.defs))
	for i, d := range n.defs {
		out[i] = d.Schema()
	}
	return out
}

// Lookup returns the definition of the named tool.
func (n *ToolNode) Lookup(name string) (ToolDef, bool) {
	i, ok := n.byName[name]
	if !ok {
		return ToolDef{}, false
	}
	return n.defs[i], true
}

type inputKind int

const (
	inputDict inputKind = iota
	inputList
	inputToolCalls
)

// Node returns the ToolNode as a graph node.
func (n *ToolNode) Node() NodeFunc {
	return func(ctx context.Context, state State) (any, error) {
		sp := scratchpadFrom(ctx)
		var out any
		var err error
		var room *listRoom
		if arg, ok := state[SendArgKey]; ok {
			out, err = n.Invoke(ctx, arg)
		} else {
			if sp.mayTakeRoom() {
				room = &listRoom{}
			}
			out, err = n.invokeRoom(ctx, state, false, room)
		}
		if s, ok := out.(State); ok && err == nil && sp != nil {
			// the tool messages are a list the node made: the task may
			// give them their IDs in place (see scratchpad.ownList), and
			// the messages channel may take the array it lies in
			if msgs, ok := s[n.opts.MessagesKey].([]Message); ok {
				if !room.holds(msgs) {
					room = nil
				}
				sp.ownList(msgs, room)
			}
		}
		return out, err
	}
}

// graphNode is Node for the agents this package builds, with the option
// that adds it: a call sent to the node reaches it without a State around
// it (withSendArg), and its tool messages come as a nodeUpdate the run may
// give IDs in place.
func (n *ToolNode) graphNode() (NodeFunc, NodeOption) {
	fn := func(ctx context.Context, state State) (any, error) {
		if arg, ok := state[SendArgKey]; ok {
			return n.invoke(ctx, arg, true)
		}
		return n.invoke(ctx, state, true)
	}
	return fn, withSendArg(func(ctx context.Context, arg any) (any, error) { return n.invoke(ctx, arg, true) })
}

// Invoke runs the node on its own. input is a state (State or
// map[string]any with the messages key), a []Message, a []ToolCall, or a
// ToolCallWithContext / []ToolCallWithContext. The result is a State with
// the tool messages under the messages key ([]Message for list input),
// or, when a tool returned a Command, a []any of states and commands.
func (n *ToolNode) Invoke(ctx context.Context, input any) (any, error) {
	return n.invoke(ctx, input, false)
}

// invoke is Invoke; inGraph gives the result as graphNode does.
func (n *ToolNode) invoke(ctx context.Context, input any, inGraph bool) (any, error) {
	return n.invokeRoom(ctx, input, inGraph, nil)
}

// invokeRoom is invoke; with room set, and a state as input, the tool
// messages lie in an array with room in front of them for the state's
// messages, which room describes (see listRoom).
func (n *ToolNode) invokeRoom(ctx context.Context, input any, inGraph bool, room *listRoom) (any, error) {
	if tc, ok := input.(ToolCallWithContext); ok {
		// one call sent by a v2 agent (the usual case): no lists to build
		msg, cmd, err := n.runOne(ctx, tc.Call, tc.State, inputToolCalls, RuntimeFrom(ctx))
		if cmd == nil && err == nil && inGraph {
			// what combine gives, as a oneMessage: one allocation for
			// the answer, its list and the update (three)
			return messageUpdateIn(ctx, n.opts.MessagesKey, msg), nil
		}
		msgs := []Message{msg}
		cmds := [1]*Command{cmd}
		errs := [1]error{err}
		return n.collect(msgs, cmds[:], errs[:], inputToolCalls, inGraph)
	}
	calls, states, kind, err := n.parseInput(input)
	if err != nil {
		return nil, err
	}
	rt := RuntimeFrom(ctx)
	limit := n.opts.MaxConcurrency
	if limit == 0 && rt != nil {
		limit = rt.MaxConcurrency
	}
	// each call's answer goes to its own slot: a tool message in msgs (the
	// node's output when no call answered with a Command), or a command
	// in cmds; the slots are in call order whatever order the calls
	// finish in (ToolNode's outputs follow tool_calls).
	var msgs []Message
	// in a graph, the answers are the task's own list, which the
	// messages channel may take as it is (see listRoom)
	if room != nil && kind == inputDict {
		msgs = room.make(len(calls))
	} else {
		msgs = make([]Message, len(calls))
	}
	// with a cap, a call not yet started when the run is cancelled does
	// not start (it used to wait for a semaphore slot or the context)
	capped := limit > 0 && limit < len(calls)
	if len(calls) > 1 && n.opts.Wrap == nil {
		cmds, errs := n.runPrepared(ctx, calls, states, kind, rt, limit, capped, msgs)
		return n.collect(msgs, cmds, errs, kind, inGraph)
	}
	cmds := make([]*Command, len(calls))
	errs := make([]error, len(calls))
	switch {
	case len(calls) == 1:
		msgs[0], cmds[0], errs[0] = n.runOne(ctx, calls[0], states.at(0), kind, rt)
	default:
		fanOut(len(calls), limit, func(i int) {
			if capped && ctx.Err() != nil {
				errs[i] = ctx.Err()
				return
			}
			msgs[i], cmds[i], errs[i] = n.runOne(ctx, calls[i], states.at(i), kind, rt)
		})
	}
	return n.collect(msgs, cmds, errs, kind, inGraph)
}

// runPrepared runs the calls on fanOut's workers: calls that do not block
// share a few workers, calls that block each get one, and the last call
// of a large batch of waiting calls does not wait for the validation of
// all the others before it starts (see fanOut). Each call is
// callBatch.run, whose answer lands in the call's slots.
//
// The calls' validated arguments are made together (value.NewObjects)
// when the tools' schemas have the fast path: one allocation for the
// batch, not one per call.
func (n *ToolNode) runPrepared(ctx context.Context, calls []ToolCall, states callStates, kind inputKind, rt *Runtime, limit int, capped bool, msgs []Message) (cmds []*Command, errs []error) {
	b := &callBatch{n: n, ctx: ctx, calls: calls, states: states, kind: kind, rt: rt, capped: capped, msgs: msgs}
	if n.argsCap > 0 {
		b.args = value.NewObjects(len(calls), n.argsCap)
	}
	fanOut(len(calls), limit, b.run)
	if o := b.outs.Load(); o != nil {
		return o.cmds, o.errs
	}
	return nil, nil
}

// callBatch is what runPrepared's workers share: the calls, how to run
// them and the slots of their answers.
type callBatch struct {
	n      *ToolNode
	ctx    context.Context
	calls  []ToolCall
	states callStates
	kind   inputKind
	rt     *Runtime
	capped bool
	// args, when set, holds the validated arguments of call i at i
	args []Object
	msgs []Message
	// outs holds the calls' commands and errors, made when the first
	// call answers with one (see outcome)
	outs atomic.Pointer[callOutcomes]
}

// callOutcomes holds a batch's commands and errors, call i's at i.
type callOutcomes struct {
	cmds []*Command
	errs []error
}

// outcome records call i's command or error, one of them set, making
// the batch's slots for them when they are the first: a batch whose calls
// all answer with a tool message (the common case) makes none.
func (b *callBatch) outcome(i int, cmd *Command, err error) {
	o := b.outs.Load()
	if o == nil {
		o = &callOutcomes{cmds: make([]*Command, len(b.calls)), errs: make([]error, len(b.calls))}
		if !b.outs.CompareAndSwap(nil, o) {
			o = b.outs.Load()
		}
	}
	o.cmds[i], o.errs[i] = cmd, err
}

// run runs call i as runCall does, in three parts: prepare (lookup and
// validation), the tool, finish (error handling and the tool message).
// A panic of the tool becomes the call's error (recoverTool), as
// runTool's does.
func (b *callBatch) run(i int) {
	if b.capped && b.ctx.Err() != nil {
		b.outcome(i, nil, b.ctx.Err())
		return
	}
	args, j := b.prepare(i)
	if j < 0 {
		return
	}
	// running says a panic is the tool's (see recoverTool)
	running := true
	defer b.recoverTool(i, &running)
	call := &b.calls[i]
	result, err := b.n.tools[j].Invoke(b.ctx, ToolInvocation{Call: ToolCall{Name: call.Name, Args: args, ID: call.ID}, Runtime: b.rt})
	running = false
	b.finish(i, j, result, err)
}

// prepare looks call i's tool up, validates its arguments and returns
// them and the tool's index; a call that runCall would hand to
// runGeneral (an unknown tool, injected arguments, invalid arguments) it
// runs there, into its slots, and returns -1.
func (b *callBatch) prepare(i int) (*Object, int) {
	n, call := b.n, &b.calls[i]
	if j, ok := n.byName[call.Name]; ok && len(n.defs[j].Inject) == 0 {
		args := call.Args
		if args == nil {
			args = &Object{}
		}
		var dst *Object
		if b.args != nil {
			dst = &b.args[i]
		}
		if validated, verr := n.schemas[j].ValidateInto(args, dst); verr == nil {
			vargs, _ := validated.(*Object)
			return vargs, j
		}
	}
	if cmd, err := n.runGeneral(b.ctx, call, b.states.at(i), b.kind, b.rt, &b.msgs[i]); cmd != nil || err != nil {
		b.outcome(i, cmd, err)
	}
	return nil, -1
}

// finish shapes the outcome of call i's tool j (runTool's error handling,
// then settle) into the call's slots.
func (b *callBatch) finish(i, j int, result any, err error) {
	def := &b.n.defs[j]
	if err != nil && def.HandleToolError.Enabled {
		result, err = toolError(def, result, err)
	}
	b.settled(i, def, result, err)
}

// settled settles call i's outcome (settle) into its slots. The command
// and error slots, nil as made, are written only when the answer is one:
// writing nil into every call's slot as its tool returns would make the
// workers write into the same memory as each other for nothing.
func (b *callBatch) settled(i int, def *ToolDef, result any, err error) {
	if cmd, err := b.n.settle(&b.msgs[i], &b.calls[i], def, result, err, b.kind); cmd != nil || err != nil {
		b.outcome(i, cmd, err)
	}
}

// recoverTool, deferred by run, turns a panic of call i's tool into the
// call's error as runTool does; a panic after the tool returned (running
// unset) goes on.
func (b *callBatch) recoverTool(i int, running *bool) {
	if !*running {
		return
	}
	if p := recover(); p != nil {
		def := &b.n.defs[b.n.byName[b.calls[i].Name]]
		b.settled(i, def, nil, panicError(b.calls[i].Name, p))
	}
}

// runCall runs one call without a wrapper (what prepare and finish do),
// its arguments validated into dst when it is not nil and they take the
// schema's fast path, its tool message written to *out; it returns the call's command or
// error otherwise. The common call, a registered tool without injected
// arguments called with arguments its schema accepts, runs here: no
// ToolCallRequest or preparedCall is built, the tool message is written
// once into its slot. Every other call (an unknown tool, injected
// arguments, arguments that fail validation, which validates them again)
// takes runGeneral, which must answer the common call alike. (The calls
// of a batch take callBatch.run, which answers as runCall does.)
func (n *ToolNode) runCall(ctx context.Context, call *ToolCall, state State, kind inputKind, rt *Runtime, dst *Object, out *Message) (*Command, error) {
	j, ok := n.byName[call.Name]
	if !ok || len(n.defs[j].Inject) > 0 {
		return n.runGeneral(ctx, call, state, kind, rt, out)
	}
	def := &n.defs[j]
	args := call.Args
	if args == nil {
		args = &Object{}
	}
	validated, verr := n.schemas[j].ValidateInto(args, dst)
	if verr != nil {
		return n.runGeneral(ctx, call, state, kind, rt, out)
	}
	vargs, _ := validated.(*Object)
	inv := ToolInvocation{Call: ToolCall{Name: call.Name, Args: vargs, ID: call.ID}, Runtime: rt}
	result, err := n.runTool(ctx, n.tools[j], def, &inv)
	return n.settle(out, call, def, result, err, kind)
}

// runGeneral is runCall through prepare and finish, for the calls
// runCall does not take itself.
func (n *ToolNode) runGeneral(ctx context.Context, call *ToolCall, state State, kind inputKind, rt *Runtime, out *Message) (*Command, error) {
	req := ToolCallRequest{Call: *call, State: state, Runtime: rt}
	if j, ok := n.byName[call.Name]; ok {
		req.Tool = n.tools[j]
	}
	var p preparedCall
	n.prepare(&p, req, kind)
	if !p.done {
		n.finish(ctx, &p, kind)
	}
	*out = p.msg
	return p.cmd, p.err
}

// collect returns the node's output: the interrupts raised, else the first
// error in call order, else the combined results.
func (n *ToolNode) collect(msgs []Message, cmds []*Command, errs []error, kind inputKind, inGraph bool) (any, error) {
	var interrupts []InterruptValue
	for _, err := range errs {
		if err == nil {
			continue
		}
		var ie *InterruptError
		if errors.As(err, &ie) {
			interrupts = append(interrupts, ie.Interrupts...)
		}
	}
	if len(interrupts) > 0 {
		return nil, &InterruptError{Interrupts: interrupts}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return n.combine(msgs, cmds, kind, inGraph), nil
}

// callStates is the state each call was made in: one state for every
// call (shared; each is nil), or one per call.
type callStates struct {
	shared State
	each   []State
}

// at is the state of call i.
func (s callStates) at(i int) State {
	if s.each != nil {
		return s.each[i]
	}
	return s.shared
}

func (n *ToolNode) parseInput(input any) ([]ToolCall, callStates, inputKind, error) {
	switch t := input.(type) {
	case ToolCallWithContext:
		return []ToolCall{t.Call}, callStates{shared: t.State}, inputToolCalls, nil
	case []ToolCallWithContext:
		calls := make([]ToolCall, len(t))
		states := make([]State, len(t))
		for i, c := range t {
			calls[i], states[i] = c.Call, c.State
		}
		return calls, callStates{each: states}, inputToolCalls, nil
	case []ToolCall:
		return t, callStates{}, inputToolCalls, nil
	case []Message:
		calls, err := lastAICalls(t)
		if err != nil {
			return nil, callStates{}, 0, err
		}
		return calls, callStates{shared: State{n.opts.MessagesKey: t}}, inputList, nil
	case MessageList:
		if t.Len() == 0 {
			return nil, callStates{}, 0, NewError("ValueError", "No message found in input")
		}
		calls, err := lastAICallsOf(t)
		if err != nil {
			return nil, callStates{}, 0, err
		}
		return calls, callStates{shared: State{n.opts.MessagesKey: t}}, inputList, nil
	case State:
		return n.parseState(t)
	case map[string]any:
		return n.parseState(State(t))
	default:
		return nil, callStates{}, 0, NewError("ValueError", "No message found in input")
	}
}

func (n *ToolNode) parseState(s State) ([]ToolCall, callStates, inputKind, error) {
	raw, ok := s[n.opts.MessagesKey]
	if !ok || raw == nil {
		return nil, callStates{}, 0, NewError("ValueError", "No message found in input")
	}
	if l, ok := raw.(MessageList); ok {
		// the channel's list: read from its end, not copied
		if l.Len() == 0 {
			return nil, callStates{}, 0, NewError("ValueError", "No message found in input")
		}
		calls, err := lastAICallsOf(l)
		if err != nil {
			return nil, callStates{}, 0, err
		}
		return calls, callStates{shared: s}, inputDict, nil
	}
	msgs, err := MessagesFromValue(raw)
	if err != nil {
		return nil, callStates{}, 0, fmt.Errorf("tool node input %q: %w", n.opts.MessagesKey, err)
	}
	if len(msgs) == 0 {
		return nil, callStates{}, 0, NewError("ValueError", "No message found in input")
	}
	calls, err := lastAICalls(msgs)
	if err != nil {
		return nil, callStates{}, 0, err
	}
	return calls, callStates{shared: s}, inputDict, nil
}

// lastAICallsOf is lastAICalls of a MessageList, read from its end.
func lastAICallsOf(l MessageList) ([]ToolCall, error) {
	for _, m := range l.Backward() {
		if m.Type == TypeAI {
			return m.ToolCalls, nil
		}
	}
	return nil, NewError("ValueError", "No AIMessage found in input")
}

func lastAICalls(msgs []Message) ([]ToolCall, error) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Type == TypeAI {
			return msgs[i].ToolCalls, nil
		}
	}
	return nil, NewError("ValueError", "No AIMessage found in input")
}

// runOne runs one call (ToolNode._run_one), through the wrapper when
// there is one.
// It answers with a tool message, or a command (cmd != nil), or an error.
func (n *ToolNode) runOne(ctx context.Context, call ToolCall, state State, kind inputKind, rt *Runtime) (msg Message, cmd *Command, err error) {
	if n.opts.Wrap == nil {
		cmd, err = n.runCall(ctx, &call, state, kind, rt, nil, &msg)
		return msg, cmd, err
	}
	req := ToolCallRequest{Call: call, State: state, Runtime: rt}
	if i, ok := n.byName[call.Name]; ok {
		req.Tool = n.tools[i]
	}
	exec := func(ctx context.Context, req ToolCallRequest) (any, error) { return n.execute(ctx, req, kind) }
	res, err := n.opts.Wrap(ctx, req, exec)
	if err != nil {
		var ie *InterruptError
		if errors.As(err, &ie) {
			return Message{}, nil, err
		}
		if content, handled := n.handleError(err); handled {
			return Message{Type: TypeTool, Content: Text(content), Name: call.Name, ToolCallID: call.ID, Status: StatusError}, nil, nil
		}
		return Message{}, nil, err
	}
	switch t := res.(type) {
	case Message:
		t.Content = ToolContent(t.Content)
		if t.Status == "" {
			t.Status = StatusSuccess
		}
		return t, nil, nil
	case *Command:
		if t != nil {
			return Message{}, t, nil
		}
	case Command:
		return Message{}, &t, nil
	}
	return Message{}, nil, fmt.Errorf("tool call wrapper for %q returned %T, want a tool message or a *Command", call.Name, res)
}

// execute validates and runs one call with the node's error handling
// (ToolNode._execute_tool_sync), for a wrapper's next: a tool Message or
// a *Command.
func (n *ToolNode) execute(ctx context.Context, req ToolCallRequest, kind inputKind) (any, error) {
	var p preparedCall
	n.prepare(&p, req, kind)
	if !p.done {
		n.finish(ctx, &p, kind)
	}
	switch {
	case p.err != nil:
		return nil, p.err
	case p.cmd != nil:
		return p.cmd, nil
	}
	return p.msg, nil
}

// injectError is a failure to inject an argument (no store, a missing
// state key), which fails the run whatever handle_tool_errors says.
type injectError struct{ err error }

func (e injectError) Error() string { return e.err.Error() }

// preparedCall is a call validated and ready to run, or answered: by
// prepare (unknown tool, invalid arguments; done is set) or by finish.
type preparedCall struct {
	req ToolCallRequest
	// def is the registered tool's definition (read only), nil for a tool
	// a wrapper swapped in, whose definition is own (see definition): a
	// pointer, not a copy of 136 bytes for every function the call goes
	// through
	def  *ToolDef
	own  ToolDef
	inv  ToolInvocation
	done bool
	// the answer: a tool message, a command (cmd != nil) or an error
	msg Message
	cmd *Command
	err error
}

// definition is the called tool's definition. (Storing &p.own in p.def
// would move every preparedCall to the heap.)
func (p *preparedCall) definition() *ToolDef {
	if p.def != nil {
		return p.def
	}
	return &p.own
}

// prepare looks the tool up, injects arguments and validates them, into p.
func (n *ToolNode) prepare(p *preparedCall, req ToolCallRequest, kind inputKind) {
	p.req = req
	call := req.Call
	idx, ok := n.byName[call.Name]
	if req.Tool == nil {
		names := make([]string, len(n.defs))
		for i, d := range n.defs {
			names[i] = d.Name
		}
		p.done = true
		p.msg = Message{Type: TypeTool, Content: Text(fmt.Sprintf("Error: %s is not a valid tool, try one of [%s].", call.Name, strings.Join(names, ", "))), Name: call.Name, ToolCallID: call.ID, Status: StatusError}
		return
	}
	if !ok {
		idx = -1
	}
	result, err := n.validateCall(idx, p, kind)
	if ie, ok := err.(injectError); ok {
		// _execute_tool_sync injects before its try: no handler sees it
		p.done, p.err = true, ie.err
		return
	}
	if err != nil || result != nil {
		p.done = true
		p.cmd, p.err = n.settle(&p.msg, &p.req.Call, p.definition(), result, err, kind)
	}
}

// finish runs a prepared call and shapes its result, into p.
func (n *ToolNode) finish(ctx context.Context, p *preparedCall, kind inputKind) {
	def := p.definition()
	result, err := n.runTool(ctx, p.req.Tool, def, &p.inv)
	p.cmd, p.err = n.settle(&p.msg, &p.req.Call, def, result, err, kind)
}

// settle applies the error handling to the outcome of call (of the tool
// defined by def), or shapes its result: a tool message into out, or a
// command, or an error that fails the run.
func (n *ToolNode) settle(out *Message, call *ToolCall, def *ToolDef, result any, err error, kind inputKind) (*Command, error) {
	if err != nil {
		var ie *InterruptError
		if errors.As(err, &ie) {
			return nil, err
		}
		if content, handled := n.handleError(err); handled {
			setToolMessage(out, Text(content), call.Name, call.ID, StatusError, nil)
			return nil, nil
		}
		return nil, err
	}
	return n.shapeResult(out, result, call, def, kind)
}

// validateCall injects arguments and validates them, setting p's
// definition and invocation. A non-nil result is the call's answer
// without running the tool (handled invalid arguments).
func (n *ToolNode) validateCall(idx int, p *preparedCall, kind inputKind) (result any, err error) {
	req := &p.req
	call, rt, state := req.Call, req.Runtime, req.State
	tool := req.Tool
	var schema *Schema
	if idx >= 0 && n.tools[idx] == tool {
		// the registered tool: its definition and schema as NewToolNode
		// took them
		p.def, schema = &n.defs[idx], n.schemas[idx]
	} else {
		// a wrapper swapped the tool: validate against its own schema
		p.own, p.def = tool.Definition(), nil
		params := p.own.Parameters
		if params == nil {
			params = NewObject("type", "object", "properties", &Object{})
		}
		if schema, err = CompileSchema(p.own.Name, params); err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", p.own.Name, err)
		}
	}
	def := p.definition()
	var injected map[string]any
	args := call.Args
	if args == nil {
		args = &Object{}
	}
	modelArgs := args
	if len(def.Inject) > 0 {
		injected = make(map[string]any, len(def.Inject))
		args = args.Clone()
		for _, inj := range def.Inject {
			args.Delete(inj.Arg)
			v, err := n.injectValue(inj, call, state, kind, rt)
			if err != nil {
				return nil, injectError{err}
			}
			injected[inj.Arg] = v
		}
	}
	validated, verr := schema.Validate(args)
	if verr != nil {
		if def.HandleValidationError.Enabled {
			return ToolResult{Content: def.HandleValidationError.content(verr), Status: StatusError}, nil
		}
		var ve *ValidationError
		if n.opts.HandleToolErrors.InvalidArgsOnly && errors.As(verr, &ve) {
			return nil, newToolInvocationError(call.Name, modelArgs, ve)
		}
		return nil, verr
	}
	vargs, _ := validated.(*Object)
	p.inv = ToolInvocation{Call: ToolCall{Name: call.Name, Args: vargs, ID: call.ID}, Injected: injected, Runtime: rt}
	return nil, nil
}

// runTool calls the tool, turning a panic into an error and applying the
// tool's own handle_tool_error to ToolExceptions.
func (n *ToolNode) runTool(ctx context.Context, tool Tool, def *ToolDef, inv *ToolInvocation) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(inv.Call.Name, p)
		}
	}()
	result, err = tool.Invoke(ctx, *inv)
	if err != nil && def.HandleToolError.Enabled {
		return toolError(def, result, err)
	}
	return result, err
}

// panicError is the error of a tool that panicked with p.
func panicError(name string, p any) error {
	return NewError("Exception", fmt.Sprintf("tool %q panicked: %v", name, p))
}

// toolError applies a tool's handle_tool_error to its error: a
// ToolException becomes an error result.
func toolError(def *ToolDef, result any, err error) (any, error) {
	if isKind(err, "ToolException") {
		return ToolResult{Content: def.HandleToolError.content(err), Status: StatusError}, nil
	}
	return result, err
}

func (n *ToolNode) injectValue(inj Injection, call ToolCall, state State, kind inputKind, rt *Runtime) (any, error) {
	switch inj.Kind {
	case InjectToolCallID:
		return call.ID, nil
	case InjectRuntime:
		return rt, nil
	case InjectStore:
		var store Store
		if rt != nil {
			store = rt.Store
		}
		if store == nil {
			return nil, NewError("ValueError", "Cannot inject store into tools with InjectedStore annotations - please compile your graph with a store.")
		}
		return store, nil
	case InjectState:
		if state == nil {
			return nil, NewError("ValueError", fmt.Sprintf("Invalid input to ToolNode. Tool %s requires graph state dict as input.", call.Name))
		}
		if inj.Field == "" {
			return state, nil
		}
		v, ok := state[inj.Field]
		if !ok {
			return nil, NewError("KeyError", inj.Field)
		}
		return v, nil
	}
	return nil, fmt.Errorf("tool %q: unknown injection kind %q", call.Name, inj.Kind)
}

// ToolResult is a tool result with an artifact or an explicit status
// (LangChain's content_and_artifact response format).
type ToolResult struct {
	Content  any
	Artifact any
	// Status is "success" (the default) or "error".
	Status string
}

// toolMessageBlockTypes are the content block types a tool message keeps
// as a list (langchain_core's TOOL_MESSAGE_BLOCK_TYPES).
var toolMessageBlockTypes = map[string]bool{
	"text": true, "image_url": true, "image": true, "json": true, "search_result": true,
	"custom_tool_call_output": true, "document": true, "file": true,
}

// ToolContent turns a tool's result into tool message content as LangGraph
// does (msg_content_output): strings as they are, lists of content blocks
// kept, anything else written as Python's json.dumps would.
func ToolContent(v any) Content {
	switch t := v.(type) {
	case string:
		return Text(t)
	case Content:
		if !t.IsList() || allBlocks(t.Blocks()) {
			return t
		}
		v = t.Blocks()
	}
	jv := valueForJSON(v)
	if list, ok := jv.([]any); ok && allBlocks(list) {
		return Blocks(list...)
	}
	if s, err := PyJSON(jv); err == nil {
		return Text(s)
	}
	return Text(fmt.Sprint(v))
}

func allBlocks(list []any) bool {
	for _, e := range list {
		o, ok := e.(*Object)
		if !ok {
			return false
		}
		typ, _ := o.Get("type")
		s, _ := typ.(string)
		if !toolMessageBlockTypes[s] {
			return false
		}
	}
	return true
}

// shapeResult makes a tool's result the call's answer: a tool message in
// out, or a command, as ToolNode handles what a tool returned
// (langgraph/prebuilt/tool_node.py).
func (n *ToolNode) shapeResult(out *Message, result any, call *ToolCall, def *ToolDef, kind inputKind) (*Command, error) {
	switch t := result.(type) {
	case string:
		setToolMessage(out, Text(t), def.Name, call.ID, StatusSuccess, nil)
		return nil, nil
	case *Command:
		if t == nil {
			break
		}
		return n.validateCommand(*t, *call, kind)
	case Command:
		return n.validateCommand(t, *call, kind)
	case Message:
		return n.shapeMessage(out, &t, call)
	case *Message:
		if t == nil {
			break
		}
		return n.shapeMessage(out, t, call)
	case ToolResult:
		status := t.Status
		if status == "" {
			status = StatusSuccess
		}
		setToolMessage(out, ToolContent(t.Content), def.Name, call.ID, status, t.Artifact)
		return nil, nil
	}
	setToolMessage(out, ToolContent(result), def.Name, call.ID, StatusSuccess, nil)
	return nil, nil
}

// setToolMessage makes *out the tool message of a call.
func setToolMessage(out *Message, content Content, name, callID, status string, artifact any) {
	*out = Message{Type: TypeTool, Content: content, Name: name, ToolCallID: callID, Status: status, Artifact: artifact}
}

// shapeMessage makes a tool message a tool returned the call's answer.
func (n *ToolNode) shapeMessage(out, m *Message, call *ToolCall) (*Command, error) {
	if m.Type != TypeTool {
		return nil, NewError("TypeError", fmt.Sprintf("Tool %s returned unexpected type: %s message", call.Name, m.Type))
	}
	*out = *m
	out.Content = ToolContent(m.Content)
	if out.Status == "" {
		out.Status = StatusSuccess
	}
	return nil, nil
}

// validateCommand checks that a tool's Command answers the call with a
// tool message, and names that message after the tool
// (ToolNode._validate_tool_command).
func (n *ToolNode) validateCommand(cmd Command, call ToolCall, kind inputKind) (*Command, error) {
	if cmd.Update == nil {
		return &cmd, nil
	}
	if kind == inputList {
		return nil, NewError("ValueError", fmt.Sprintf("Tools can provide a dict in Command.update only when using dict with '%s' key as ToolNode input, got: %s for tool '%s'", n.opts.MessagesKey, PyRepr(valueForJSON(cmd.Update)), call.Name))
	}
	update := cmd.Update.Clone()
	msgs, err := MessagesFromValue(update[n.opts.MessagesKey])
	if err != nil {
		return nil, fmt.Errorf("tool %q returned a command with bad messages: %w", call.Name, err)
	}
	if len(msgs) == 1 && msgs[0].Type == TypeRemove && msgs[0].ID == RemoveAllMessages {
		out := cmd
		out.Update = update
		return &out, nil
	}
	msgs = append([]Message(nil), msgs...)
	matched := false
	for i, m := range msgs {
		if m.Type == TypeTool && m.ToolCallID == call.ID {
			msgs[i].Name = call.Name
			matched = true
		}
	}
	if cmd.Graph == "" && !matched {
		return nil, NewError("ValueError", fmt.Sprintf("Expected to have a matching ToolMessage in Command.update for tool '%s', got: %s. Every tool call (LLM requesting to call a tool) in the message history MUST have a corresponding ToolMessage. You can fix it by modifying the tool to return `Command(update={\"messages\": [ToolMessage(\"Success\", tool_call_id=tool_call_id), ...]}, ...)`.", call.Name, PyRepr(MessagesToValue(msgs))))
	}
	if _, ok := update[n.opts.MessagesKey]; ok {
		update[n.opts.MessagesKey] = msgs
	}
	out := cmd
	out.Update = update
	return &out, nil
}

// combine builds the node's output from each call's answer: msgs[i],
// or cmds[i] when it is set. inGraph gives the tool messages alone as a
// nodeUpdate of msgs, which the node made for it.
func (n *ToolNode) combine(msgs []Message, cmds []*Command, kind inputKind, inGraph bool) any {
	hasCmd := false
	for _, c := range cmds {
		if c != nil {
			hasCmd = true
		}
	}
	if !hasCmd {
		switch {
		case kind == inputList:
			return msgs
		case inGraph:
			return nodeUpdate{key: n.opts.MessagesKey, value: msgs, owned: true}
		}
		return State{n.opts.MessagesKey: msgs}
	}
	var combined []any
	var parentSends []any
	for i, t := range cmds {
		if t == nil {
			if kind == inputList {
				combined = append(combined, []Message{msgs[i]})
			} else {
				combined = append(combined, State{n.opts.MessagesKey: []Message{msgs[i]}})
			}
			continue
		}
		if t.Graph == CommandParent {
			if dests, err := destinations(t.Goto); err == nil && allSends(dests) {
				parentSends = append(parentSends, dests...)
				continue
			}
		}
		combined = append(combined, t)
	}
	if len(parentSends) > 0 {
		combined = append(combined, &Command{Graph: CommandParent, Goto: parentSends})
	}
	return combined
}

func allSends(d []any) bool {
	if len(d) == 0 {
		return false
	}
	for _, x := range d {
		if _, ok := x.(Send); !ok {
			return false
		}
	}
	return true
}

// handleError applies the node's error handling to a tool error.
func (n *ToolNode) handleError(err error) (string, bool) {
	h := n.opts.HandleToolErrors
	if h.Disabled {
		return "", false
	}
	if h.InvalidArgsOnly {
		var tie *ToolInvocationError
		if errors.As(err, &tie) {
			return tie.Message, true
		}
		return "", false
	}
	if len(h.Kinds) > 0 {
		handled := false
		for _, k := range h.Kinds {
			if isKind(err, k) {
				handled = true
			}
		}
		if !handled {
			return "", false
		}
	}
	switch {
	case h.Handle != nil:
		return h.Handle(err)
	case h.Message != "":
		return h.Message, true
	default:
		return "Error: " + ErrorRepr(err) + "\n Please fix your mistakes.", true
	}
}

// ToolsCondition routes to "tools" when the last message is an AI message
// with tool calls, else to End (LangGraph's tools_condition). messagesKey
// "" means "messages".
func ToolsCondition(messagesKey string) RouterFunc {
	if messagesKey == "" {
		messagesKey = "messages"
	}
	return func(_ context.Context, state State) (any, error) {
		// only the last message counts: a MessageList gives it without
		// making its messages one slice
		var (
			last Message
			has  bool
		)
		fromSlice := func(msgs []Message) {
			if len(msgs) > 0 {
				last, has = msgs[len(msgs)-1], true
			}
		}
		if arg, ok := state[SendArgKey]; ok {
			switch m := arg.(type) {
			case []Message:
				fromSlice(m)
			case MessageList:
				last, has = m.Last()
			}
		} else if l, ok := state[messagesKey].(MessageList); ok {
			last, has = l.Last()
		} else {
			m, err := MessagesFromValue(state[messagesKey])
			if err != nil {
				return nil, err
			}
			fromSlice(m)
		}
		if !has {
			return nil, NewError("ValueError", fmt.Sprintf("No messages found in input state to tool_edge: %s", PyRepr(valueForJSON(map[string]any(state)))))
		}
		if last.Type == TypeAI && len(last.ToolCalls) > 0 {
			return "tools", nil
		}
		return End, nil
	}
}
