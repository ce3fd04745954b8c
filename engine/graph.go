package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// Start and End are the graph's entry and exit pseudo-nodes.
const (
	Start = "__start__"
	End   = "__end__"
)

// Internal channel names and task markers, as in LangGraph.
const (
	chTasks     = "__pregel_tasks"
	chError     = "__error__"
	chInterrupt = "__interrupt__"
	chResume    = "__resume__"
	chNoWrites  = "__no_writes__"
	chReturn    = "__return__"
	chPush      = "__pregel_push"
	chPull      = "__pregel_pull"
	nullTaskID  = "00000000-0000-0000-0000-000000000000"
	inputName   = "__input__"
)

func branchTo(node string) string { return "branch:to:" + node }

// NodeFunc is a node: it reads the state and returns its update. The update
// may be nil (no change), a State or map[string]any (keys to write), a
// *Command or Command (update plus goto), or a []any of those.
// RuntimeFrom(ctx) gives the run's Runtime; Interrupt(ctx, v) pauses.
type NodeFunc func(ctx context.Context, state State) (any, error)

// RouterFunc picks the next nodes after a node ran, from the state with the
// node's update applied. It returns a node name, a Send, or a slice of
// them ([]string, []Send, []any); End (or nothing) ends that branch.
type RouterFunc func(ctx context.Context, state State) (any, error)

// NodeOption configures a node.
type NodeOption func(*nodeSpec)

// WithInput makes the node read these keys instead of the graph's state
// schema (LangGraph's input_schema): fields not in the state schema become
// channels of their own.
func WithInput(fields ...Field) NodeOption {
	return func(n *nodeSpec) { n.input = fields; n.hasInput = true }
}

// WithEnds declares the nodes a node may go to with Command.Goto, for the
// graph's drawing.
func WithEnds(ends ...string) NodeOption { return func(n *nodeSpec) { n.ends = ends } }

type nodeSpec struct {
	name     string
	fn       NodeFunc
	sendArg  sendArgFunc
	input    []Field
	hasInput bool
	ends     []string
	retry    []RetryPolicy
	subgraph *Graph
	// lendsInput: the node keeps no reference to its input state once it
	// returned (see withLentInput)
	lendsInput bool
	// asksRuntime: the node reads its Runtime every time (withRuntime)
	asksRuntime bool
}

type branchSpec struct {
	router  RouterFunc
	pathMap []string
}

// StateGraph builds a graph of nodes over a shared state, LangGraph's
// StateGraph. Add nodes and edges, then Compile. Mistakes are collected and
// reported together by Compile.
type StateGraph struct {
	schema   []Field
	nodes    map[string]*nodeSpec
	order    []string
	edges    []GraphEdge // plain edges, Conditional unset
	joins    []joinSpec
	branches map[string][]*branchSpec
	errs     []error
}

type joinSpec struct {
	starts []string
	end    string
}

// NewStateGraph starts a graph whose state has the given keys.
func NewStateGraph(schema ...Field) *StateGraph {
	g := &StateGraph{schema: schema, nodes: map[string]*nodeSpec{}, branches: map[string][]*branchSpec{}}
	seen := map[string]bool{}
	for _, f := range schema {
		if f.Name == "" {
			g.errs = append(g.errs, errors.New("state schema: a field has no name"))
		}
		if seen[f.Name] {
			g.errs = append(g.errs, fmt.Errorf("state schema: field %q declared twice", f.Name))
		}
		seen[f.Name] = true
	}
	return g
}

// AddNode adds a node.
func (g *StateGraph) AddNode(name string, fn NodeFunc, opts ...NodeOption) *StateGraph {
	switch {
	case name == "":
		g.errs = append(g.errs, errors.New("add node: empty node name"))
		return g
	case name == Start || name == End:
		g.errs = append(g.errs, fmt.Errorf("add node: node %q is reserved", name))
		return g
	case strings.ContainsAny(name, "|:"):
		g.errs = append(g.errs, fmt.Errorf("add node: node name %q must not contain '|' or ':'", name))
		return g
	case g.nodes[name] != nil:
		g.errs = append(g.errs, fmt.Errorf("add node: node %q already present", name))
		return g
	case fn == nil:
		g.errs = append(g.errs, fmt.Errorf("add node: node %q has no function", name))
		return g
	}
	n := &nodeSpec{name: name, fn: fn}
	for _, o := range opts {
		o(n)
	}
	for i, p := range n.retry {
		if err := p.Validate(); err != nil {
			g.errs = append(g.errs, fmt.Errorf("add node %q: retry_policy[%d]: %w", name, i, err))
		}
	}
	g.nodes[name] = n
	g.order = append(g.order, name)
	return g
}

// AddEdge runs to after from, every time from runs.
func (g *StateGraph) AddEdge(from, to string) *StateGraph {
	if from == End {
		g.errs = append(g.errs, errors.New("add edge: END cannot be a start node"))
	}
	if to == Start {
		g.errs = append(g.errs, errors.New("add edge: START cannot be an end node"))
	}
	g.edges = append(g.edges, GraphEdge{From: from, To: to})
	return g
}

// AddJoinEdge runs to once every node in from has run.
func (g *StateGraph) AddJoinEdge(from []string, to string) *StateGraph {
	g.joins = append(g.joins, joinSpec{starts: append([]string(nil), from...), end: to})
	return g
}

// AddConditionalEdges routes from a node with router. pathMap lists the
// possible destinations (for validation and drawing); it may be empty.
func (g *StateGraph) AddConditionalEdges(from string, router RouterFunc, pathMap ...string) *StateGraph {
	if router == nil {
		g.errs = append(g.errs, fmt.Errorf("add conditional edges from %q: nil router", from))
		return g
	}
	g.branches[from] = append(g.branches[from], &branchSpec{router: router, pathMap: pathMap})
	return g
}

// SetEntryPoint is AddEdge(Start, node).
func (g *StateGraph) SetEntryPoint(node string) *StateGraph { return g.AddEdge(Start, node) }

// CompileOptions configures a compiled graph. The zero value compiles a
// graph without persistence.
type CompileOptions struct {
	Checkpointer Checkpointer
	Store        Store
	// InterruptBefore and InterruptAfter pause the run before or after
	// these nodes ("*" for all).
	InterruptBefore []string
	InterruptAfter  []string
	// Name names the graph (create_react_agent's name).
	Name string
	// Clock stamps checkpoints; nil means the system clock.
	Clock Clock
	// Debug, when set, is LangGraph's debug=True: every run prints its
	// update and values chunks to it as Pregel.stream's print_mode
	// prints them, "[updates] " or "[values] " in bold and Python's repr
	// of the chunk (messages as langchain prints them), one line each;
	// with Config.Subgraphs a subgraph's lines carry "[graph=(ns,)]" in
	// yellow. What the run yields is unchanged. Config.Debug overrides
	// it for one run.
	Debug io.Writer
	// RecursionLimit is the limit of runs whose Config leaves it at 0;
	// 0 means DefaultRecursionLimit (create_agent uses 10,000).
	RecursionLimit int
	// ErrorLinks is where LangGraph's error texts point
	// ("https://python.langchain.com/docs/troubleshooting/errors/" in
	// langgraph 1.0.1, "https://docs.langchain.com/oss/python/langgraph/errors/"
	// in 1.0.4); "" means the former.
	ErrorLinks string
	// RetryPolicy retries the failed tasks of every node that has no
	// WithRetryPolicy of its own (Pregel's retry_policy); none by default.
	RetryPolicy []RetryPolicy
}

// Graph is a compiled, runnable graph. It is safe for concurrent use: each
// run has its own state.
type Graph struct {
	name            string
	nodes           map[string]*pregelNode
	nodeOrder       []string // Start first, then in AddNode order
	channels        map[string]func() channel
	channelOrder    []string
	seeds           *seedCache // hash states of long input lists, across runs
	managed         map[string]Managed
	stateKeys       []string // output keys, schema order (output_channels)
	streamKeys      []string // stateKeys, then node-input keys (stream_channels)
	inputKeys       []string // keys the input may set
	checkpointer    Checkpointer
	store           Store
	interruptBefore []string
	interruptAfter  []string
	clock           Clock
	debug           io.Writer
	edges           []GraphEdge
	retry           []RetryPolicy
	recursionLimit  int
	errorLinks      string

	graphIndex
}

// graphIndex is the numbering a run's slices use (Graph.index): channels
// in channelOrder, nodes in nodeOrder, and the nodes sorted by name.
type graphIndex struct {
	chanIdx    map[string]int
	chanNames  []string
	chanMks    []func() channel
	nodeList   []*pregelNode
	nodeByName []*pregelNode
	stateRefs  []keyRef // stateKeys
	streamRefs []keyRef // streamKeys
	inputRefs  []keyRef // inputKeys
	branchCh   map[string]string
	// tasksCh is the channel number of the Sends (chTasks); pushTrig the
	// channel numbers of pushTriggers
	tasksCh  int
	pushTrig []int
}

type pregelNode struct {
	name     string
	triggers []string
	// taskTriggers is triggers sorted, as a pull task lists them (shared
	// by the tasks, read only)
	taskTriggers []string
	input        []string // channel and managed keys read
	single       string   // read one channel as the whole input (START)
	fn           NodeFunc // nil: pass the input to the writers
	sendArg      sendArgFunc
	writers      []writer
	hidden       bool
	outKeys      map[string]bool
	retry        []RetryPolicy // nil: the graph's
	subgraph     *Graph        // the graph this node runs (AddSubgraph)
	lendsInput   bool          // withLentInput
	asksRuntime  bool          // withRuntime
	// idx is the node's position in the graph's nodeOrder; trig holds the
	// channel numbers of triggers, inRefs the keys of input, singleCh the
	// channel number of single (-1 without)
	idx  int
	trig []int
	// taskTrig holds the channel numbers of taskTriggers (-1: none)
	taskTrig []int
	inRefs   []keyRef
	singleCh int
}

// keyRef is a state key as a run reads it: its channel's number (-1 when
// it has none) or the managed value it is.
type keyRef struct {
	name    string
	ch      int
	managed Managed
}

// writer turns a task's output into writes on w; w.read gives the state
// with the task's writes so far applied.
type writer func(ctx context.Context, output any, w writeTarget) error

// writeTarget is what a node's writers write to: a task of a run, or the
// update of UpdateState.
type writeTarget interface {
	// read returns the state with the writes so far applied (a fresh
	// read, for routers).
	read() (State, error)
	// emit adds a write; emitAll adds several.
	emit(w write)
	emitAll(ws []write)
}

type write struct {
	channel string
	value   any
	// owned says value is a list a built-in node made for this write
	// alone (nodeUpdate), which the run may complete in place
	owned bool
}

// nodeUpdate is the output of a built-in node that writes one key: what
// State{key: value} writes, without the map. owned says value is a list
// the node made for this update alone, so the run may give its messages
// their IDs in place instead of copying it (when no update chunk shows
// the list as the node wrote it: see normalizeOne).
type nodeUpdate struct {
	key   string
	value any
	owned bool
}

// oneMessage is the output of a built-in node that writes one message
// under key (the model node's, a ToolNode's answer to one call): what the
// nodeUpdate {key, []Message{m}, owned} writes, in one allocation of 256
// bytes (the nodeUpdate beside its list and box took 288).
type oneMessage struct {
	list []Message // one[:]
	one  [1]Message
	key  string
}

// messageUpdate is the output of a node that writes one message m under
// key.
func messageUpdate(key string, m Message) *oneMessage {
	u := &oneMessage{key: key}
	u.one[0] = m
	u.list = u.one[:]
	return u
}

// messageUpdateIn is messageUpdate for a built-in node that runs in a
// task (ctx is the task's) and returns it to the task's writers, and to
// no other code: create_react_agent's model node and the one-call answer
// of the agents' tools node (graphNode; ToolNode.Node answers with a
// State). When nothing keeps the task's writes past its superstep, the
// output goes in the task's own oneMessage, which the task uses again
// when it is recycled for a later superstep. The writes are kept by a
// saver (PutWrites) and shown by every stream mode but values (updates,
// messages, tasks, debug); values shows the channels' state, into which
// the channel copies the message, as a fresh read's fork does. A run of
// the prebuilt agent without a checkpointer allocated 256 bytes per
// message for it. When the writes are kept, the message goes where the
// key's channel will append it, if it can (see reserveMessage): the
// write and the channel's list share it.
func messageUpdateIn(ctx context.Context, key string, m Message) any {
	sp := scratchpadFrom(ctx)
	if sp == nil || sp.task == nil || sp.run == nil {
		return messageUpdate(key, m)
	}
	if !sp.run.writesDie() {
		if u := sp.run.reserveMessage(key, m); u != nil {
			return u
		}
		return messageUpdate(key, m)
	}
	t := sp.task
	if t.one == nil {
		t.one = new(oneMessage)
	}
	u := t.one
	u.key = key
	u.one[0] = m
	u.list = u.one[:]
	return u
}

// placedMessage is the output of a built-in node that writes one message
// under *key, when the message lies in the place where the key's channel
// appends next (reserveMessage): list is that place; key points at the
// graph's name of the channel. Its write is a oneMessage's.
type placedMessage struct {
	list []Message
	key  *string
}

// writesDie reports whether nothing keeps a task's writes past its
// superstep: no saver stores them and no stream mode but values shows
// them (see messageUpdateIn).
func (r *run) writesDie() bool {
	return r.saver == nil && r.modes&^modeBit(StreamValues) == 0
}

// update is the nodeUpdate u stands for.
func (u *oneMessage) update() nodeUpdate {
	return nodeUpdate{key: u.key, value: u.list, owned: true}
}

// update is the message's write as a nodeUpdate.
func (u *placedMessage) update() nodeUpdate {
	return nodeUpdate{key: *u.key, value: u.list, owned: true}
}

// emitMessage emits the write of the one-message list *list under key
// when key is one of keys (a oneMessage's or a placedMessage's, without
// building a nodeUpdate).
func emitMessage(w writeTarget, keys map[string]bool, key string, list *[]Message) {
	if keys[key] {
		w.emit(write{channel: key, value: *list, owned: true})
	}
}

// sendArgFunc is a node that takes a Send's argument as it is, where a
// NodeFunc gets it in a State under SendArgKey.
type sendArgFunc func(ctx context.Context, arg any) (any, error)

// withSendArg makes fn the node's entry for the tasks a Send with an
// argument that is not a state starts (create_react_agent's tool calls):
// the run calls it without building a State around the argument.
func withSendArg(fn sendArgFunc) NodeOption { return func(n *nodeSpec) { n.sendArg = fn } }

// withLentInput says the node keeps no reference to the State it is given
// once it returned, and gives it to no code that may (create_react_agent's
// model node without a model selector or a prompt function): the first
// fresh read of its task may then fill that map with the fresh state
// instead of making another (see run.freshState).
func withLentInput() NodeOption { return func(n *nodeSpec) { n.lendsInput = true } }

// withRuntime says the node reads its Runtime (RuntimeFrom) every time it
// runs (a ToolNode, which gives it to every tool): its tasks' frames are
// made with the Runtime in them, where another node's makes it on the
// first ask (see taskFrame).
func withRuntime() NodeOption { return func(n *nodeSpec) { n.asksRuntime = true } }

// GraphEdge is an edge of the compiled graph.
type GraphEdge struct {
	From, To    string
	Conditional bool
}

// Validate reports the problems of the options on their own: a negative
// RecursionLimit, or an empty name among the interrupt nodes. Whether the
// named nodes exist is the graph's to say: Compile calls Validate, then
// checks them.
func (o CompileOptions) Validate() error {
	var errs []error
	if o.RecursionLimit < 0 {
		errs = append(errs, fmt.Errorf("recursion_limit: %d: expected a limit >= 0 (0: the default)", o.RecursionLimit))
	}
	for _, list := range [][]string{o.InterruptBefore, o.InterruptAfter} {
		for _, n := range list {
			if n == "" {
				errs = append(errs, fmt.Errorf("interrupt node %q not found", n))
			}
		}
	}
	for i, p := range o.RetryPolicy {
		if err := p.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("retry_policy[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// Compile checks the graph and returns it ready to run. It reports every
// problem at once: those AddNode, AddEdge and the others collected, edges
// to unknown nodes, a missing entry point, the options (Validate) and
// interrupt nodes that do not exist, state keys declared twice with
// different kinds.
//
// The compiled graph has one channel per state key (and per field of a
// node's own input), a branch:to:<node> channel triggering each node, a
// barrier channel per join edge; edges and routers become writers of the
// nodes they leave, as LangGraph's StateGraph.compile attaches them.
func (g *StateGraph) Compile(opts CompileOptions) (*Graph, error) {
	errs := append([]error(nil), g.errs...)
	errs = append(errs, g.checkEdges()...)
	if err := opts.Validate(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, g.checkInterruptNodes(opts)...)
	fields, order, ferrs := g.stateFields()
	errs = append(errs, ferrs...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("compile graph: %w", errors.Join(errs...))
	}
	out := newGraph(opts)
	out.addStateChannels(fields, order)
	out.setIOKeys(g.schema, fields, order)
	g.addNodes(out, order)
	g.wireEdges(out)
	g.wireJoins(out)
	g.wireBranches(out)
	out.indexTriggers()
	out.index()
	g.drawCommandEnds(out)
	return out, nil
}

// checkEdges reports edges, join edges and conditional edges that name
// unknown nodes, and a graph with no edge from START.
func (g *StateGraph) checkEdges() []error {
	var errs []error
	exists := func(n string) bool { return n == Start || n == End || g.nodes[n] != nil }
	hasEntry := false
	for _, e := range g.edges {
		if !exists(e.From) {
			errs = append(errs, fmt.Errorf("edge %s -> %s: unknown node %q", e.From, e.To, e.From))
		}
		if !exists(e.To) {
			errs = append(errs, fmt.Errorf("edge %s -> %s: unknown node %q", e.From, e.To, e.To))
		}
		if e.From == Start {
			hasEntry = true
		}
	}
	for _, j := range g.joins {
		for _, s := range j.starts {
			if !exists(s) || s == End {
				errs = append(errs, fmt.Errorf("join edge to %s: unknown start node %q", j.end, s))
			}
		}
		if !exists(j.end) || j.end == Start {
			errs = append(errs, fmt.Errorf("join edge: unknown end node %q", j.end))
		}
	}
	for _, from := range sortedKeys(g.branches) {
		if !exists(from) || from == End {
			errs = append(errs, fmt.Errorf("conditional edges: unknown source node %q", from))
		}
		if from == Start {
			hasEntry = true
		}
		for _, b := range g.branches[from] {
			for _, p := range b.pathMap {
				if !exists(p) || p == Start {
					errs = append(errs, fmt.Errorf("conditional edges from %q: unknown destination %q", from, p))
				}
			}
		}
	}
	if !hasEntry {
		errs = append(errs, errors.New("graph must have an entrypoint: add at least one edge from START to another node"))
	}
	return errs
}

// checkInterruptNodes reports interrupt nodes that are not in the graph
// ("*" stands for all; an empty name is CompileOptions.Validate's).
func (g *StateGraph) checkInterruptNodes(opts CompileOptions) []error {
	var errs []error
	for _, list := range [][]string{opts.InterruptBefore, opts.InterruptAfter} {
		for _, n := range list {
			if n != "" && n != "*" && g.nodes[n] == nil {
				errs = append(errs, fmt.Errorf("interrupt node %q not found", n))
			}
		}
	}
	return errs
}

// stateFields returns the fields that become channels, by name and in
// order: the state schema, then the fields of node input schemas. A key
// declared twice with different kinds is an error.
func (g *StateGraph) stateFields() (map[string]Field, []string, []error) {
	fields := map[string]Field{}
	var order []string
	var errs []error
	addField := func(f Field) {
		if old, ok := fields[f.Name]; ok {
			if (old.Reducer == nil) != (f.Reducer == nil) || old.Managed != f.Managed {
				errs = append(errs, fmt.Errorf("state key %q is declared twice with different kinds", f.Name))
			}
			return
		}
		fields[f.Name] = f
		order = append(order, f.Name)
	}
	for _, f := range g.schema {
		addField(f)
	}
	for _, name := range g.order {
		for _, f := range g.nodes[name].input {
			addField(f)
		}
	}
	return fields, order, errs
}

// newGraph returns an empty graph with the options applied and their
// defaults filled in.
func newGraph(opts CompileOptions) *Graph {
	out := &Graph{
		seeds:           newSeedCache(),
		name:            opts.Name,
		nodes:           map[string]*pregelNode{},
		channels:        map[string]func() channel{},
		managed:         map[string]Managed{},
		checkpointer:    opts.Checkpointer,
		store:           opts.Store,
		interruptBefore: opts.InterruptBefore,
		interruptAfter:  opts.InterruptAfter,
		clock:           opts.Clock,
		debug:           opts.Debug,
	}
	if out.clock == nil {
		out.clock = SystemClock{}
	}
	if out.name == "" {
		out.name = "LangGraph"
	}
	out.recursionLimit = opts.RecursionLimit
	out.retry = opts.RetryPolicy
	out.errorLinks = opts.ErrorLinks
	if out.errorLinks == "" {
		out.errorLinks = troubleshootingURL
	}
	return out
}

// addChannel adds a channel unless one of that name exists.
func (g *Graph) addChannel(name string, mk func() channel) {
	if _, ok := g.channels[name]; !ok {
		g.channels[name] = mk
		g.channelOrder = append(g.channelOrder, name)
	}
}

// addStateChannels makes a channel, or a managed value, of every field,
// in order, then START's input channel and the Send topic.
func (g *Graph) addStateChannels(fields map[string]Field, order []string) {
	for _, name := range order {
		f := fields[name]
		switch {
		case f.Managed != NotManaged:
			g.managed[name] = f.Managed
			continue
		case f.Untracked:
			key := name
			g.channels[name] = func() channel { return &untracked{key: key} }
		case f.Ephemeral:
			key := name
			g.channels[name] = func() channel { return &ephemeral{key: key, guard: true} }
		case f.Reducer != nil:
			r := f.Reducer
			key := name
			if _, ok := r.(AddMessagesReducer); ok {
				// the runs of the graph note their lists' lengths here
				hint := new(sizeHint)
				g.channels[name] = func() channel {
					c := newMessagesChan(key)
					c.hint = hint
					return c
				}
				break
			}
			g.channels[name] = func() channel { return newBinop(key, r) }
		default:
			key := name
			g.channels[name] = func() channel { return &lastValue{key: key} }
		}
		g.channelOrder = append(g.channelOrder, name)
	}
	g.addChannel(Start, func() channel { return &ephemeral{key: Start, guard: true} })
	g.addChannel(chTasks, func() channel { return &topic{key: chTasks} })
}

// setIOKeys sets the keys a run outputs and the keys its input may set,
// from the state schema: neither holds managed or private fields. The
// keys a stream shows, and GetState reads, are those output keys followed
// by the channels that only a node's input schema declared: LangGraph's
// StateGraph.compile makes output_channels from the output schema but
// stream_channels from every non-managed channel, so create_react_agent's
// llm_input_messages (the "agent" node's CallModelInputSchema) is in
// stream values, update chunks and get_state, not in invoke's output.
func (g *Graph) setIOKeys(schema []Field, fields map[string]Field, order []string) {
	inSchema := map[string]bool{}
	for _, f := range schema {
		inSchema[f.Name] = true
		if f.Managed != NotManaged || f.Private {
			continue
		}
		if !f.OmitFromOutput {
			g.stateKeys = append(g.stateKeys, f.Name)
		}
		if !f.OmitFromInput {
			g.inputKeys = append(g.inputKeys, f.Name)
		}
	}
	g.streamKeys = g.stateKeys
	for _, name := range order {
		if f := fields[name]; !inSchema[name] && f.Managed == NotManaged && !f.Private && !f.OmitFromOutput {
			g.streamKeys = append(g.streamKeys[:len(g.streamKeys):len(g.streamKeys)], name)
		}
	}
}

// addNodes adds START, which writes the input keys, and every node in the
// order it was added, each triggered by its branch:to channel and writing
// its state updates. A node may write any state key (its writes to
// managed keys are dropped when applied), never the graph's internal
// channels.
func (g *StateGraph) addNodes(out *Graph, order []string) {
	allOut := map[string]bool{}
	for _, k := range order {
		allOut[k] = true
	}
	startOut := map[string]bool{}
	for _, k := range out.inputKeys {
		startOut[k] = true
	}
	out.nodes[Start] = &pregelNode{name: Start, triggers: []string{Start}, single: Start, hidden: true, outKeys: startOut}
	out.nodeOrder = append(out.nodeOrder, Start)
	for _, name := range g.order {
		spec := g.nodes[name]
		bt := branchTo(name)
		out.addChannel(bt, func() channel { return &ephemeral{key: bt} })
		var input []string
		if spec.hasInput {
			for _, f := range spec.input {
				input = append(input, f.Name)
			}
		} else {
			for _, f := range g.schema {
				input = append(input, f.Name)
			}
		}
		out.nodes[name] = &pregelNode{name: name, triggers: []string{bt}, input: input, fn: spec.fn, sendArg: spec.sendArg, outKeys: allOut, retry: spec.retry, subgraph: spec.subgraph, lendsInput: spec.lendsInput, asksRuntime: spec.asksRuntime}
		out.nodeOrder = append(out.nodeOrder, name)
	}
	for _, n := range out.nodes {
		n.writers = append(n.writers, stateWriter(n))
	}
}

// wireEdges makes every plain edge a writer of its source that triggers
// its destination (an edge to END writes nothing).
func (g *StateGraph) wireEdges(out *Graph) {
	for _, e := range g.edges {
		out.edges = append(out.edges, e)
		if e.To == End {
			continue
		}
		ch := branchTo(e.To)
		out.nodes[e.From].writers = append(out.nodes[e.From].writers, func(_ context.Context, _ any, w writeTarget) error {
			w.emit(write{channel: ch})
			return nil
		})
	}
}

// wireJoins gives every join edge a barrier channel that each of its
// start nodes writes its name to; the end node runs once all have.
func (g *StateGraph) wireJoins(out *Graph) {
	for _, j := range g.joins {
		if j.end == End {
			continue
		}
		ch := "join:" + strings.Join(j.starts, "+") + ":" + j.end
		names := append([]string(nil), j.starts...)
		out.addChannel(ch, func() channel { return &barrier{key: ch, names: names} })
		out.nodes[j.end].triggers = append(out.nodes[j.end].triggers, ch)
		for _, s := range j.starts {
			src := s
			out.nodes[s].writers = append(out.nodes[s].writers, func(_ context.Context, _ any, w writeTarget) error {
				w.emit(write{channel: ch, value: src})
				return nil
			})
			out.edges = append(out.edges, GraphEdge{From: s, To: j.end})
		}
	}
}

// wireBranches attaches every router as a writer of its source node, in
// branchOrder.
func (g *StateGraph) wireBranches(out *Graph) {
	for _, from := range branchOrder(g) {
		for _, b := range g.branches[from] {
			out.nodes[from].writers = append(out.nodes[from].writers, branchWriter(out, from, b))
			for _, p := range b.pathMap {
				out.edges = append(out.edges, GraphEdge{From: from, To: p, Conditional: true})
			}
		}
	}
}

// indexTriggers sorts each node's triggers as its pull tasks list them.
// (Which nodes a channel triggers, prepare_next_tasks' trigger_to_nodes,
// a run reads from the nodes' trigger numbers: see run.candidates.)
func (g *Graph) indexTriggers() {
	for _, name := range g.nodeOrder {
		n := g.nodes[name]
		n.taskTriggers = slices.Sorted(slices.Values(n.triggers))
	}
}

// index numbers the channels and nodes for a run's slices (see
// versions): channels in channelOrder, nodes in nodeOrder, the seen
// table's extra row last.
func (g *Graph) index() {
	g.chanNames = g.channelOrder
	g.chanIdx = make(map[string]int, len(g.chanNames))
	g.chanMks = make([]func() channel, len(g.chanNames))
	for i, name := range g.chanNames {
		g.chanIdx[name] = i
		g.chanMks[i] = g.channels[name]
	}
	g.nodeList = make([]*pregelNode, len(g.nodeOrder))
	g.branchCh = make(map[string]string, len(g.nodeOrder))
	for i, name := range g.nodeOrder {
		g.branchCh[name] = branchTo(name)
		n := g.nodes[name]
		n.idx = i
		g.nodeList[i] = n
		n.trig = make([]int, len(n.triggers))
		for j, t := range n.triggers {
			n.trig[j] = g.chanOf(t)
		}
		n.taskTrig = make([]int, len(n.taskTriggers))
		for j, t := range n.taskTriggers {
			n.taskTrig[j] = g.chanOf(t)
		}
		n.inRefs = g.refs(n.input)
		n.singleCh = -1
		if n.single != "" {
			n.singleCh = g.chanOf(n.single)
		}
	}
	g.tasksCh = g.chanOf(chTasks)
	g.pushTrig = []int{g.chanOf(chPush)}
	g.nodeByName = slices.Clone(g.nodeList)
	slices.SortFunc(g.nodeByName, func(a, b *pregelNode) int { return strings.Compare(a.name, b.name) })
	g.stateRefs = g.refs(g.stateKeys)
	g.streamRefs = g.refs(g.streamKeys)
	g.inputRefs = g.refs(g.inputKeys)
}

// branchChannel is branchTo(node), made once per node at Compile.
func (g *Graph) branchChannel(node string) string {
	if ch, ok := g.branchCh[node]; ok {
		return ch
	}
	return branchTo(node)
}

// chanOf returns the number of the named channel, -1 when there is none.
func (g *Graph) chanOf(name string) int {
	if i, ok := g.chanIdx[name]; ok {
		return i
	}
	return -1
}

// refs resolves state keys for reading.
func (g *Graph) refs(keys []string) []keyRef {
	out := make([]keyRef, len(keys))
	for i, k := range keys {
		out[i] = keyRef{name: k, ch: g.chanOf(k), managed: g.managed[k]}
	}
	return out
}

// seenRow is the row of the versions' seen table for a VersionsSeen key:
// a node's number, the extra row for "__interrupt__", -1 for a key the
// graph does not know.
func (g *Graph) seenRow(key string) int {
	if n := g.nodes[key]; n != nil {
		return n.idx
	}
	if key == chInterrupt {
		return len(g.nodeList)
	}
	return -1
}

// seenName is the VersionsSeen key of a seen table row.
func (g *Graph) seenName(row int) string {
	if row == len(g.nodeList) {
		return chInterrupt
	}
	return g.nodeList[row].name
}

// drawCommandEnds adds the edges declared with WithEnds, for drawing only.
func (g *StateGraph) drawCommandEnds(out *Graph) {
	for _, name := range g.order {
		for _, e := range g.nodes[name].ends {
			out.edges = append(out.edges, GraphEdge{From: name, To: e, Conditional: true})
		}
	}
}

// branchOrder is START first, then nodes in the order they were added, so
// branch writers attach deterministically.
func branchOrder(g *StateGraph) []string {
	var out []string
	if _, ok := g.branches[Start]; ok {
		out = append(out, Start)
	}
	for _, n := range g.order {
		if _, ok := g.branches[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// stateWriter maps a node's output to writes on state keys, then Command
// gotos to branch writes (LangGraph's _get_updates and _control_branch).
func stateWriter(n *pregelNode) writer {
	return func(_ context.Context, output any, w writeTarget) error {
		if err := emitUpdates(output, n.outKeys, w); err != nil {
			return err
		}
		ctl, err := controlWrites(output)
		if err != nil {
			return err
		}
		w.emitAll(ctl)
		return nil
	}
}

// emitUpdates emits the writes updatesOf returns, without building their
// list for the usual outputs: a State or a map with a few keys.
func emitUpdates(output any, keys map[string]bool, w writeTarget) error {
	var m map[string]any
	switch t := output.(type) {
	case nil:
		return nil
	case nodeUpdate:
		if keys[t.key] {
			w.emit(write{channel: t.key, value: t.value, owned: t.owned})
		}
		return nil
	case *nodeUpdate:
		if keys[t.key] {
			w.emit(write{channel: t.key, value: t.value, owned: t.owned})
		}
		return nil
	case *oneMessage:
		emitMessage(w, keys, t.key, &t.list)
		return nil
	case *placedMessage:
		emitMessage(w, keys, *t.key, &t.list)
		return nil
	case State:
		m = t
	case map[string]any:
		m = t
	default:
		ws, err := updatesOf(output, keys)
		if err != nil {
			return err
		}
		w.emitAll(ws)
		return nil
	}
	// the keys sorted on the stack (sortedKeys allocates)
	var buf [8]string
	ks := buf[:0]
	for k := range m {
		if keys[k] {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	for _, k := range ks {
		w.emit(write{channel: k, value: m[k]})
	}
	return nil
}

func updatesOf(output any, keys map[string]bool) ([]write, error) {
	mapWrites := func(m map[string]any) []write {
		var ws []write
		for _, k := range sortedKeys(m) {
			if keys[k] {
				ws = append(ws, write{channel: k, value: m[k]})
			}
		}
		return ws
	}
	switch t := output.(type) {
	case nil:
		return nil, nil
	case nodeUpdate:
		if !keys[t.key] {
			return nil, nil
		}
		return []write{{channel: t.key, value: t.value, owned: t.owned}}, nil
	case *nodeUpdate:
		return updatesOf(*t, keys)
	case *oneMessage:
		return updatesOf(t.update(), keys)
	case *placedMessage:
		return updatesOf(t.update(), keys)
	case State:
		return mapWrites(t), nil
	case map[string]any:
		return mapWrites(t), nil
	case *Command:
		if t == nil || t.Graph == CommandParent {
			return nil, nil
		}
		return mapWrites(t.Update), nil
	case Command:
		if t.Graph == CommandParent {
			return nil, nil
		}
		return mapWrites(t.Update), nil
	case []any:
		var ws []write
		for _, e := range t {
			sub, err := updatesOf(e, keys)
			if err != nil {
				return nil, err
			}
			ws = append(ws, sub...)
		}
		return ws, nil
	default:
		return nil, errorWithCode("InvalidUpdateError", fmt.Sprintf("Expected dict, got %s", PyRepr(valueForJSON(output))), "INVALID_GRAPH_NODE_RETURN_VALUE")
	}
}

func controlWrites(output any) ([]write, error) {
	var cmds []Command
	switch t := output.(type) {
	case *Command:
		if t != nil {
			cmds = append(cmds, *t)
		}
	case Command:
		cmds = append(cmds, t)
	case []any:
		for _, e := range t {
			switch c := e.(type) {
			case *Command:
				if c != nil {
					cmds = append(cmds, *c)
				}
			case Command:
				cmds = append(cmds, c)
			}
		}
	}
	var ws []write
	for _, c := range cmds {
		if c.Graph == CommandParent {
			return nil, newParentCommand(c)
		}
		dests, err := destinations(c.Goto)
		if err != nil {
			return nil, fmt.Errorf("command goto: %w", err)
		}
		for _, d := range dests {
			switch x := d.(type) {
			case Send:
				ws = append(ws, write{channel: chTasks, value: d}) // d holds x: not boxed again
			case string:
				if x != End {
					ws = append(ws, write{channel: branchTo(x)})
				}
			}
		}
	}
	return ws, nil
}

// destinations flattens a goto or router result into node names and Sends.
func destinations(v any) ([]any, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []any{t}, nil
	case Send:
		return []any{t}, nil
	case *Send:
		return []any{*t}, nil
	case []string:
		out := make([]any, len(t))
		for i, s := range t {
			out[i] = s
		}
		return out, nil
	case []Send:
		out := make([]any, len(t))
		for i, s := range t {
			out[i] = s
		}
		return out, nil
	case []any:
		if flatDestinations(t) {
			// already flat: the list itself, read only
			return t, nil
		}
		var out []any
		for _, e := range t {
			sub, err := destinations(e)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("expected a node name, a Send or a list of them, got %T", v)
	}
}

// flatDestinations reports whether every element of list is a node name
// or a Send, which destinations would copy as they are.
func flatDestinations(list []any) bool {
	for _, e := range list {
		switch e.(type) {
		case string, Send:
		default:
			return false
		}
	}
	return true
}

func branchWriter(g *Graph, from string, b *branchSpec) writer {
	return func(ctx context.Context, _ any, w writeTarget) error {
		state, err := w.read()
		if err != nil {
			return err
		}
		res, err := b.router(ctx, state)
		if err != nil {
			return err
		}
		dests, err := destinations(res)
		if err != nil {
			return fmt.Errorf("router of %q: %w", from, err)
		}
		for _, d := range dests {
			switch x := d.(type) {
			case string:
				if x == "" || x == Start {
					return NewError("ValueError", "Branch did not return a valid destination")
				}
				if len(b.pathMap) > 0 && !contains(b.pathMap, x) {
					return fmt.Errorf("router of %q returned %q, which is not one of its destinations %v", from, x, b.pathMap)
				}
				if x != End {
					w.emit(write{channel: g.branchChannel(x)})
				}
			case Send:
				if x.Node == End {
					return NewError("InvalidUpdateError", "Cannot send a packet to the END node")
				}
				w.emit(write{channel: chTasks, value: d}) // d holds x: not boxed again
			}
		}
		return nil
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// Name returns the graph's name.
func (g *Graph) Name() string { return g.name }

// Nodes returns the node names, Start and End included, sorted.
func (g *Graph) Nodes() []string {
	names := []string{End}
	for n := range g.nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Edges returns the graph's edges sorted by source, destination and kind.
// A node with no way out is drawn with an edge to End, as LangGraph's
// get_graph does.
func (g *Graph) Edges() []GraphEdge {
	edges := append([]GraphEdge(nil), g.edges...)
	hasOut := map[string]bool{}
	for _, e := range edges {
		hasOut[e.From] = true
	}
	for _, n := range g.nodeOrder {
		if n != Start && !hasOut[n] {
			edges = append(edges, GraphEdge{From: n, To: End})
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		a, b := edges[i], edges[j]
		if a.From != b.From {
			return a.From < b.From
		}
		if a.To != b.To {
			return a.To < b.To
		}
		return !a.Conditional && b.Conditional
	})
	// drop duplicates; a plain edge hides a conditional one between the
	// same nodes
	plain := map[GraphEdge]bool{}
	for _, e := range edges {
		if !e.Conditional {
			plain[e] = true
		}
	}
	out := edges[:0]
	for i, e := range edges {
		if i > 0 && e == edges[i-1] {
			continue
		}
		if e.Conditional && plain[GraphEdge{From: e.From, To: e.To}] {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Checkpointer returns the graph's checkpointer (nil without one).
func (g *Graph) Checkpointer() Checkpointer { return g.checkpointer }

// Store returns the graph's store (nil without one).
func (g *Graph) Store() Store { return g.store }

// StateKeys returns the keys of the graph's state, as output by a run.
func (g *Graph) StateKeys() []string { return append([]string(nil), g.stateKeys...) }

// StreamKeys returns the keys a stream's values and updates show and
// GetState reads: StateKeys, then keys only a node's input declared
// (LangGraph's stream_channels).
func (g *Graph) StreamKeys() []string { return append([]string(nil), g.streamKeys...) }
