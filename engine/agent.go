package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Middleware is langchain v1's AgentMiddleware: a value whose hooks run at
// their points of create_agent's loop. Name names its graph nodes
// ("<Name>.before_model") and must be unique among an agent's middleware.
// A middleware implements any of the hook interfaces below.
type Middleware interface {
	Name() string
}

// The hooks a Middleware may implement. before/after hooks run as graph
// nodes and return like nodes do: nil, a State update (which may set
// "jump_to" to "model", "tools" or "end"), or a *Command.
type (
	// BeforeAgentHook runs once when a run starts.
	BeforeAgentHook interface {
		BeforeAgent(ctx context.Context, state State) (any, error)
	}
	// BeforeModelHook runs before every model call.
	BeforeModelHook interface {
		BeforeModel(ctx context.Context, state State) (any, error)
	}
	// AfterModelHook runs after every model call.
	AfterModelHook interface {
		AfterModel(ctx context.Context, state State) (any, error)
	}
	// AfterAgentHook runs once when a run ends.
	AfterAgentHook interface {
		AfterAgent(ctx context.Context, state State) (any, error)
	}
	// JumpTargets lists where a hook may jump ("model", "tools", "end"),
	// by hook name ("before_model", ...): langchain's can_jump_to.
	JumpTargets interface {
		CanJumpTo(hook string) []string
	}
	// ModelCallWrapperHook wraps every model call (wrap_model_call).
	ModelCallWrapperHook interface {
		WrapModelCall(ctx context.Context, req AgentModelRequest, next ModelCallHandler) (*AgentModelResponse, error)
	}
	// ToolCallWrapperHook wraps every tool call (wrap_tool_call).
	ToolCallWrapperHook interface {
		WrapToolCall(ctx context.Context, req ToolCallRequest, next ToolCallExecutor) (any, error)
	}
	// MiddlewareTools adds tools to the agent.
	MiddlewareTools interface {
		Tools() []Tool
	}
	// MiddlewareState adds keys to the agent's state.
	MiddlewareState interface {
		StateFields() []Field
	}
)

// ModelCallHandler calls the model for a request (the rest of the
// wrap_model_call chain).
type ModelCallHandler func(ctx context.Context, req AgentModelRequest) (*AgentModelResponse, error)

// AgentModelRequest is one model call of create_agent, as wrap_model_call
// middleware sees and may change it (langchain's ModelRequest). Change a
// copy; slices are shared.
type AgentModelRequest struct {
	Model ChatModel
	// Messages are the state's messages, without the system message.
	Messages      []Message
	SystemMessage *Message
	// Tools are the agent's tools bound for this call (middleware may
	// narrow them).
	Tools          []ToolSchema
	ToolChoice     string
	ResponseFormat *AgentResponseFormat
	State          State
	Runtime        *Runtime
	// ModelSettings are extra keyword arguments for the model.
	ModelSettings *Object
}

// AgentModelResponse is what a model call produced: the messages to add
// (the AI message, plus tool messages for structured output) and the
// structured response, if any.
type AgentModelResponse struct {
	Result             []Message
	StructuredResponse any
}

// Structured-output strategies.
const (
	StrategyAuto     = "auto"
	StrategyTool     = "tool"
	StrategyProvider = "provider"
)

// AgentResponseFormat is create_agent's response_format: a schema and how
// to get the model to follow it. Auto uses the provider's native
// structured output when the model supports it, else a tool.
type AgentResponseFormat struct {
	// Strategy is "" or "auto", "tool" (ToolStrategy) or "provider"
	// (ProviderStrategy).
	Strategy string
	// Schema is a JSON Schema with a "title".
	Schema *Object
	// Validate treats the schema as a pydantic model: answers are
	// validated and coerced, printed as name=value pairs.
	Validate bool
	// ToolMessageContent replaces "Returning structured response: ...".
	ToolMessageContent string
	// HandleErrors says how ToolStrategy answers a bad structured call;
	// the zero value retries with the error's text.
	HandleErrors StructuredErrors
}

// StructuredErrors configures ToolStrategy's handle_errors.
type StructuredErrors struct {
	// Disabled raises instead of retrying.
	Disabled bool
	// Message replaces the retry text.
	Message string
	// Handle builds the retry text from the error.
	Handle func(err error) string
}

// AgentConfig configures CreateAgent. Model is required.
type AgentConfig struct {
	Model ChatModel
	Tools []Tool
	// ProviderTools are tools given as plain dicts (create_agent's
	// built-in provider tools, see ProviderToolSchema): bound after the
	// ToolNode's tools, kept by middleware that narrows the tools, never
	// run. A call to one goes to the tools node like any other and is
	// answered as an unknown tool; without other tools (and no
	// wrap_tool_call middleware) there is no tools node and the run ends
	// with the calling AI message.
	ProviderTools []*Object
	// SystemPrompt is prepended to every model call as a system message;
	// SystemMessage does the same with a message of your own.
	SystemPrompt   string
	SystemMessage  *Message
	Middleware     []Middleware
	ResponseFormat *AgentResponseFormat
	// StateFields adds keys to the agent's state (state_schema).
	StateFields     []Field
	Checkpointer    Checkpointer
	Store           Store
	InterruptBefore []string
	InterruptAfter  []string
	// Name names the graph and is set on the agent's AI messages.
	Name  string
	Clock Clock
	// Debug is create_agent's debug: the graph's CompileOptions.Debug.
	Debug io.Writer
}

// Validate reports every problem the configuration has on its own: no
// model, a nil or duplicate middleware, an unknown response-format
// strategy, a response format without a schema or a title. It compiles
// nothing: CreateAgent calls it, then reports what compiling the schemas
// and the tools finds.
func (c AgentConfig) Validate() error {
	var errs []error
	if c.Model == nil {
		errs = append(errs, errors.New("a model is required"))
	}
	names := map[string]bool{}
	for i, m := range c.Middleware {
		if m == nil {
			errs = append(errs, fmt.Errorf("middleware %d is nil", i))
			continue
		}
		if names[m.Name()] {
			errs = append(errs, errors.New("Please remove duplicate middleware instances."))
		}
		names[m.Name()] = true
	}
	if rf := c.ResponseFormat; rf != nil {
		switch rf.Strategy {
		case "", StrategyAuto, StrategyTool, StrategyProvider:
		default:
			errs = append(errs, fmt.Errorf("response_format: unknown strategy %q: expected auto, tool or provider", rf.Strategy))
		}
		if rf.Schema == nil {
			errs = append(errs, errors.New("response_format: Schema is required"))
		}
	}
	return errors.Join(errs...)
}

// name names the structured output as _SchemaSpec does: the schema's
// "title", else "response_format_" and four hex digits (LangChain draws
// them from a random UUID; here they are the first of the SHA-256 of the
// schema's JSON, so a schema keeps its name).
func (rf *AgentResponseFormat) name() string {
	t, _ := rf.Schema.Get("title")
	if name, _ := t.(string); name != "" {
		return name
	}
	raw, _ := MarshalValue(rf.Schema)
	sum := sha256.Sum256(raw)
	return "response_format_" + hex.EncodeToString(sum[:2])
}

// AgentRecursionLimit is create_agent's default recursion limit.
const AgentRecursionLimit = 10000

const agentErrorLinks = "https://docs.langchain.com/oss/python/langgraph/errors/"

// modelsWithStructuredOutput are the model names langchain assumes support
// native structured output when it has no profile for them.
var modelsWithStructuredOutput = []string{"grok", "gpt-5", "gpt-4.1", "gpt-4o", "gpt-oss", "o3-pro", "o3-mini"}

// CreateAgent builds langchain v1's create_agent graph
// (langchain/agents/factory.py): a "model" node and, with tools, a "tools"
// node, with each middleware's hooks as nodes named after it, routing by
// tool calls, structured output and jump_to.
func CreateAgent(cfg AgentConfig) (*Graph, error) {
	var errs []error
	if err := cfg.Validate(); err != nil {
		errs = append(errs, err)
	}
	a := &agent{cfg: cfg, structured: map[string]*structuredTool{}}
	if rf := cfg.ResponseFormat; rf != nil && rf.Schema != nil {
		st, err := newStructuredTool(rf)
		if err != nil {
			errs = append(errs, err)
		} else if rf.Strategy != StrategyProvider {
			a.structured[st.schema.Name] = st
			a.structuredOrder = append(a.structuredOrder, st.schema.Name)
		}
		a.structuredSpec = st
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("create agent: %w", errors.Join(errs...))
	}
	var wrappers []ToolCallWrapper
	var tools []Tool
	for _, m := range cfg.Middleware {
		if mt, ok := m.(MiddlewareTools); ok {
			tools = append(tools, mt.Tools()...)
		}
		if w, ok := m.(ToolCallWrapperHook); ok {
			wrappers = append(wrappers, w.WrapToolCall)
		}
	}
	tools = append(tools, cfg.Tools...)
	a.wrapTools = chainToolWrappers(wrappers)
	providers, err := providerToolSchemas(cfg.ProviderTools)
	if err != nil {
		return nil, fmt.Errorf("create agent: %w", err)
	}
	if len(tools) > 0 || a.wrapTools != nil {
		tn, err := NewToolNode(tools, ToolNodeOptions{HandleToolErrors: ToolErrors{InvalidArgsOnly: true}, Wrap: a.wrapTools})
		if err != nil {
			return nil, fmt.Errorf("create agent: %w", err)
		}
		a.tools = tn
		a.toolSchemas = tn.Schemas()
	}
	// default_tools = ToolNode's tools + built_in_tools
	a.toolSchemas = append(slices.Clip(a.toolSchemas), providers...)
	for _, m := range cfg.Middleware {
		if w, ok := m.(ModelCallWrapperHook); ok {
			a.wrapModel = append(a.wrapModel, w)
		}
	}
	return a.build()
}

type agent struct {
	cfg             AgentConfig
	tools           *ToolNode
	toolSchemas     []ToolSchema
	wrapTools       ToolCallWrapper
	wrapModel       []ModelCallWrapperHook
	structured      map[string]*structuredTool
	structuredOrder []string
	structuredSpec  *structuredTool
}

// structuredTool is a response schema bound as a tool (OutputToolBinding).
type structuredTool struct {
	schema   ToolSchema
	raw      *Object
	validate *Schema
	format   *AgentResponseFormat
}

// newStructuredTool binds a response format that AgentConfig.Validate
// accepted: it has a schema.
func newStructuredTool(rf *AgentResponseFormat) (*structuredTool, error) {
	name := rf.name()
	st := &structuredTool{schema: schemaTool(name, rf.Schema), raw: rf.Schema, format: rf}
	if rf.Validate {
		s, err := CompileSchema(name, rf.Schema)
		if err != nil {
			return nil, fmt.Errorf("response_format: %w", err)
		}
		st.validate = s
	}
	return st, nil
}

// parse turns structured arguments into the response: the arguments as
// they are for a plain schema, a validated model for a pydantic one.
func (st *structuredTool) parse(args *Object) (any, error) {
	if args == nil {
		args = &Object{}
	}
	if st.validate == nil {
		return args, nil
	}
	v, err := st.validate.Validate(args)
	if err != nil {
		return nil, NewError("ValueError", fmt.Sprintf("Failed to parse data to %s: %s", st.schema.Name, err.Error()))
	}
	return modelDump(v.(*Object), st.raw), nil
}

// str is Python's str() of the response: a pydantic model prints as
// name=value pairs, a dict as its repr.
func (st *structuredTool) str(v any) string {
	o, ok := v.(*Object)
	if !ok || st.validate == nil {
		return PyRepr(valueForJSON(v))
	}
	parts := make([]string, 0, o.Len())
	for _, k := range o.Keys() {
		x, _ := o.Get(k)
		parts = append(parts, k+"="+PyRepr(x))
	}
	return strings.Join(parts, " ")
}

// jsonSchema is the schema sent to providers: pydantic adds a title to
// every property.
func (st *structuredTool) jsonSchema() *Object {
	if st.validate == nil {
		return st.raw
	}
	out := st.raw.Clone()
	if props, ok := out.Get("properties"); ok {
		if po, ok := props.(*Object); ok {
			for _, k := range po.Keys() {
				p, _ := po.Get(k)
				if pso, ok := p.(*Object); ok && !pso.Has("title") {
					titled := NewObject("title", titleCase(k))
					for _, kk := range pso.Keys() {
						vv, _ := pso.Get(kk)
						titled.Set(kk, vv)
					}
					po.Set(k, titled)
				}
			}
		}
	}
	return out
}

func titleCase(name string) string {
	words := strings.Split(name, "_")
	for i, w := range words {
		r := []rune(w)
		if len(r) > 0 {
			r[0] = unicode.ToUpper(r[0])
		}
		words[i] = string(r)
	}
	return strings.Join(words, " ")
}

func chainToolWrappers(ws []ToolCallWrapper) ToolCallWrapper {
	if len(ws) == 0 {
		return nil
	}
	out := ws[len(ws)-1]
	for i := len(ws) - 2; i >= 0; i-- {
		outer, inner := ws[i], out
		out = func(ctx context.Context, req ToolCallRequest, exec ToolCallExecutor) (any, error) {
			return outer(ctx, req, func(ctx context.Context, r ToolCallRequest) (any, error) { return inner(ctx, r, exec) })
		}
	}
	return out
}

type hookKind string

const (
	hookBeforeAgent hookKind = "before_agent"
	hookBeforeModel hookKind = "before_model"
	hookAfterModel  hookKind = "after_model"
	hookAfterAgent  hookKind = "after_agent"
)

func (a *agent) withHook(k hookKind) []Middleware {
	var out []Middleware
	for _, m := range a.cfg.Middleware {
		var ok bool
		switch k {
		case hookBeforeAgent:
			_, ok = m.(BeforeAgentHook)
		case hookBeforeModel:
			_, ok = m.(BeforeModelHook)
		case hookAfterModel:
			_, ok = m.(AfterModelHook)
		case hookAfterAgent:
			_, ok = m.(AfterAgentHook)
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

func hookNode(m Middleware, k hookKind) string { return m.Name() + "." + string(k) }

func hookFunc(m Middleware, k hookKind) NodeFunc {
	switch k {
	case hookBeforeAgent:
		return m.(BeforeAgentHook).BeforeAgent
	case hookBeforeModel:
		return m.(BeforeModelHook).BeforeModel
	case hookAfterModel:
		return m.(AfterModelHook).AfterModel
	default:
		return m.(AfterAgentHook).AfterAgent
	}
}

func canJumpTo(m Middleware, k hookKind) []string {
	if j, ok := m.(JumpTargets); ok {
		return j.CanJumpTo(string(k))
	}
	return nil
}

func (a *agent) build() (*Graph, error) {
	g := NewStateGraph(a.stateSchema()...)
	g.AddNode("model", a.modelNode, withRuntime())
	if a.tools != nil {
		toolsFn, sendArg := a.tools.graphNode()
		g.AddNode("tools", toolsFn, sendArg, withRuntime())
	}
	beforeAgent, beforeModel := a.withHook(hookBeforeAgent), a.withHook(hookBeforeModel)
	afterModel, afterAgent := a.withHook(hookAfterModel), a.withHook(hookAfterAgent)
	for _, m := range a.cfg.Middleware {
		for _, k := range []hookKind{hookBeforeAgent, hookBeforeModel, hookAfterModel, hookAfterAgent} {
			if contains(middlewareNames(a.withHook(k)), m.Name()) {
				g.AddNode(hookNode(m, k), hookFunc(m, k))
			}
		}
	}
	entry := "model"
	switch {
	case len(beforeAgent) > 0:
		entry = hookNode(beforeAgent[0], hookBeforeAgent)
	case len(beforeModel) > 0:
		entry = hookNode(beforeModel[0], hookBeforeModel)
	}
	loopEntry := "model"
	if len(beforeModel) > 0 {
		loopEntry = hookNode(beforeModel[0], hookBeforeModel)
	}
	loopExit := "model"
	if len(afterModel) > 0 {
		loopExit = hookNode(afterModel[0], hookAfterModel)
	}
	exit := End
	if len(afterAgent) > 0 {
		exit = hookNode(afterAgent[len(afterAgent)-1], hookAfterAgent)
	}
	g.AddEdge(Start, entry)
	a.addLoopExit(g, afterModel, loopEntry, loopExit, exit)
	for i, m := range beforeAgent {
		next := loopEntry
		if i+1 < len(beforeAgent) {
			next = hookNode(beforeAgent[i+1], hookBeforeAgent)
		}
		a.middlewareEdge(g, m, hookBeforeAgent, next, loopEntry, exit)
	}
	for i, m := range beforeModel {
		next := "model"
		if i+1 < len(beforeModel) {
			next = hookNode(beforeModel[i+1], hookBeforeModel)
		}
		a.middlewareEdge(g, m, hookBeforeModel, next, loopEntry, exit)
	}
	if len(afterModel) > 0 {
		g.AddEdge("model", hookNode(afterModel[len(afterModel)-1], hookAfterModel))
		for i := len(afterModel) - 1; i > 0; i-- {
			a.middlewareEdge(g, afterModel[i], hookAfterModel, hookNode(afterModel[i-1], hookAfterModel), loopEntry, exit)
		}
	}
	if len(afterAgent) > 0 {
		for i := len(afterAgent) - 1; i > 0; i-- {
			a.middlewareEdge(g, afterAgent[i], hookAfterAgent, hookNode(afterAgent[i-1], hookAfterAgent), loopEntry, exit)
		}
		a.middlewareEdge(g, afterAgent[0], hookAfterAgent, End, loopEntry, exit)
	}
	return g.Compile(CompileOptions{
		Checkpointer:    a.cfg.Checkpointer,
		Store:           a.cfg.Store,
		InterruptBefore: a.cfg.InterruptBefore,
		InterruptAfter:  a.cfg.InterruptAfter,
		Name:            a.cfg.Name,
		Clock:           a.cfg.Clock,
		Debug:           a.cfg.Debug,
		RecursionLimit:  AgentRecursionLimit,
		ErrorLinks:      agentErrorLinks,
	})
}

// stateSchema is the agent's state: messages, jump_to and
// structured_response, then the fields middleware adds and the
// configuration's own, each name once, first declaration kept.
func (a *agent) stateSchema() []Field {
	schema := []Field{
		MessagesField("messages"),
		// langchain 1.1.3's jump_to is not part of the input, but its last
		// value shows in the output and the stream (the vectors show it).
		{Name: "jump_to", Ephemeral: true, OmitFromInput: true},
		{Name: "structured_response", OmitFromInput: true},
	}
	seen := map[string]bool{"messages": true, "jump_to": true, "structured_response": true}
	addFields := func(fs []Field) {
		for _, f := range fs {
			if !seen[f.Name] {
				seen[f.Name] = true
				schema = append(schema, f)
			}
		}
	}
	for _, m := range a.cfg.Middleware {
		if ms, ok := m.(MiddlewareState); ok {
			addFields(ms.StateFields())
		}
	}
	addFields(a.cfg.StateFields)
	return schema
}

// addLoopExit routes out of the model loop (from loopExit, the model or
// its first after_model hook): to the tools, back to loopEntry for
// structured output, or on to exit, as factory.py's create_agent wires it.
func (a *agent) addLoopExit(g *StateGraph, afterModel []Middleware, loopEntry, loopExit, exit string) {
	switch {
	case a.tools != nil:
		toolsDests := []string{loopEntry}
		hasDirect := false
		for _, d := range a.tools.Definitions() {
			if d.ReturnDirect {
				hasDirect = true
			}
		}
		if hasDirect || len(a.structured) > 0 {
			toolsDests = append(toolsDests, exit)
		}
		g.AddConditionalEdges("tools", a.toolsToModel(loopEntry, exit), toolsDests...)
		modelDests := []string{"tools", exit}
		if (len(afterModel) > 0 || len(a.structured) > 0) && !contains(modelDests, loopEntry) {
			modelDests = append(modelDests, loopEntry)
		}
		g.AddConditionalEdges(loopExit, a.modelToTools(loopEntry, exit), modelDests...)
	case len(a.structured) > 0:
		g.AddConditionalEdges(loopExit, a.modelToModel(loopEntry, exit), loopEntry, exit)
	case loopExit == "model":
		g.AddEdge(loopExit, exit)
	default:
		a.middlewareEdge(g, afterModel[0], hookAfterModel, exit, loopEntry, exit)
	}
}

func middlewareNames(ms []Middleware) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name()
	}
	return out
}

// middlewareEdge is _add_middleware_edge: a plain edge, or a router that
// follows jump_to to the places the hook may jump to.
func (a *agent) middlewareEdge(g *StateGraph, m Middleware, k hookKind, def, modelDest, endDest string) {
	name := hookNode(m, k)
	jumps := canJumpTo(m, k)
	if len(jumps) == 0 {
		g.AddEdge(name, def)
		return
	}
	dests := []string{def}
	if contains(jumps, "end") {
		dests = append(dests, endDest)
	}
	if contains(jumps, "tools") {
		dests = append(dests, "tools")
	}
	if contains(jumps, "model") && name != modelDest {
		dests = append(dests, modelDest)
	}
	g.AddConditionalEdges(name, func(_ context.Context, s State) (any, error) {
		if d := resolveJump(s["jump_to"], modelDest, endDest); d != "" {
			return d, nil
		}
		return def, nil
	}, uniq(dests)...)
}

func uniq(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func resolveJump(v any, modelDest, endDest string) string {
	switch v {
	case "model":
		return modelDest
	case "end":
		return endDest
	case "tools":
		return "tools"
	}
	return ""
}

// lastAIAndTools returns the last AI message and the tool messages after it.
func lastAIAndTools(msgs []Message) (*Message, []Message) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Type == TypeAI {
			var tools []Message
			for _, m := range msgs[i+1:] {
				if m.Type == TypeTool {
					tools = append(tools, m)
				}
			}
			return &msgs[i], tools
		}
	}
	return nil, nil
}

func (a *agent) modelToTools(modelDest, endDest string) RouterFunc {
	return func(_ context.Context, s State) (any, error) {
		if d := resolveJump(s["jump_to"], modelDest, endDest); d != "" {
			return d, nil
		}
		msgs, err := MessagesFromValue(s["messages"])
		if err != nil {
			return nil, err
		}
		last, toolMsgs := lastAIAndTools(msgs)
		if last == nil {
			return endDest, nil
		}
		if len(last.ToolCalls) == 0 {
			return endDest, nil
		}
		answered := map[string]bool{}
		for _, m := range toolMsgs {
			answered[m.ToolCallID] = true
		}
		var sends []any
		for _, tc := range last.ToolCalls {
			if !answered[tc.ID] && a.structured[tc.Name] == nil {
				sends = append(sends, Send{Node: "tools", Arg: ToolCallWithContext{Call: tc, State: s}})
			}
		}
		if len(sends) > 0 {
			return sends, nil
		}
		if _, ok := s["structured_response"]; ok {
			return endDest, nil
		}
		return modelDest, nil
	}
}

func (a *agent) modelToModel(modelDest, endDest string) RouterFunc {
	return func(_ context.Context, s State) (any, error) {
		if d := resolveJump(s["jump_to"], modelDest, endDest); d != "" {
			return d, nil
		}
		if _, ok := s["structured_response"]; ok {
			return endDest, nil
		}
		return modelDest, nil
	}
}

func (a *agent) toolsToModel(modelDest, endDest string) RouterFunc {
	return func(_ context.Context, s State) (any, error) {
		msgs, err := MessagesFromValue(s["messages"])
		if err != nil {
			return nil, err
		}
		last, toolMsgs := lastAIAndTools(msgs)
		if last == nil {
			return modelDest, nil
		}
		var client []ToolCall
		for _, tc := range last.ToolCalls {
			if _, ok := a.tools.Lookup(tc.Name); ok {
				client = append(client, tc)
			}
		}
		if len(client) > 0 {
			all := true
			for _, tc := range client {
				d, _ := a.tools.Lookup(tc.Name)
				if !d.ReturnDirect {
					all = false
				}
			}
			if all {
				return endDest, nil
			}
		}
		for _, m := range toolMsgs {
			if a.structured[m.Name] != nil {
				return endDest, nil
			}
		}
		return modelDest, nil
	}
}

// modelNode is the "model" node: build the request, run it through the
// wrap_model_call chain, and write its messages and structured response.
func (a *agent) modelNode(ctx context.Context, state State) (any, error) {
	msgs, err := MessagesFromValue(state["messages"])
	if err != nil {
		return nil, err
	}
	sys := a.cfg.SystemMessage
	if sys == nil && a.cfg.SystemPrompt != "" {
		m := SystemMessage(a.cfg.SystemPrompt)
		sys = &m
	}
	req := AgentModelRequest{Model: a.cfg.Model, Messages: msgs, SystemMessage: sys, Tools: a.toolSchemas, ResponseFormat: a.cfg.ResponseFormat, State: state, Runtime: RuntimeFrom(ctx)}
	handler := ModelCallHandler(a.execute)
	for i := len(a.wrapModel) - 1; i >= 0; i-- {
		w, next := a.wrapModel[i], handler
		handler = func(ctx context.Context, r AgentModelRequest) (*AgentModelResponse, error) {
			return w.WrapModelCall(ctx, r, next)
		}
	}
	resp, err := handler(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp == nil {
		return nil, errors.New("model call returned no response")
	}
	update := State{"messages": resp.Result}
	if resp.StructuredResponse != nil {
		update["structured_response"] = resp.StructuredResponse
	}
	return update, nil
}

func (a *agent) effectiveStrategy(req AgentModelRequest) string {
	rf := req.ResponseFormat
	if rf == nil {
		return ""
	}
	switch rf.Strategy {
	case StrategyTool, StrategyProvider:
		return rf.Strategy
	}
	if mi, ok := req.Model.(ModelInfo); ok {
		name := strings.ToLower(mi.ModelName())
		for _, p := range modelsWithStructuredOutput {
			if strings.Contains(name, p) {
				return StrategyProvider
			}
		}
	}
	return StrategyTool
}

// execute calls the model (factory._execute_model_sync).
func (a *agent) execute(ctx context.Context, req AgentModelRequest) (*AgentModelResponse, error) {
	if a.wrapTools == nil && a.tools != nil {
		var unknown []string
		for _, t := range req.Tools {
			if t.Provider != nil {
				continue // built-in dict tools are the provider's
			}
			if _, ok := a.tools.Lookup(t.Name); !ok {
				unknown = append(unknown, t.Name)
			}
		}
		if len(unknown) > 0 {
			var names []string
			for _, d := range a.tools.Definitions() {
				names = append(names, d.Name)
			}
			sort.Strings(names)
			return nil, NewError("ValueError", fmt.Sprintf("Middleware added tools that the agent doesn't know how to execute.\n\nUnknown tools: %s\nRegistered tools: %s", PyRepr(stringsAny(unknown)), PyRepr(stringsAny(names))))
		}
	}
	strategy := a.effectiveStrategy(req)
	mreq := ModelRequest{ToolChoice: req.ToolChoice, Options: req.ModelSettings}
	final := append([]ToolSchema(nil), req.Tools...)
	switch strategy {
	case StrategyProvider:
		st := a.structuredSpec
		mreq.Tools = final
		if mreq.Tools == nil {
			mreq.Tools = []ToolSchema{}
		}
		opts := NewObject("strict", true)
		if req.ModelSettings != nil {
			for _, k := range req.ModelSettings.Keys() {
				v, _ := req.ModelSettings.Get(k)
				opts.Set(k, v)
			}
		}
		mreq.Options = opts
		mreq.ResponseFormat = NewObject("type", "json_schema", "json_schema", NewObject("name", st.schema.Name, "schema", st.jsonSchema()))
	case StrategyTool:
		for _, name := range a.structuredOrder {
			final = append(final, a.structured[name].schema)
		}
		mreq.Tools = final
		if len(a.structured) > 0 {
			mreq.ToolChoice = "any"
		}
	default:
		if len(final) > 0 {
			mreq.Tools = final
		}
	}
	input := req.Messages
	if req.SystemMessage != nil {
		input = append([]Message{*req.SystemMessage}, req.Messages...)
	}
	mreq.Messages = listOf(input)
	out, err := Generate(ctx, req.Model, mreq)
	if err != nil {
		return nil, err
	}
	if out.Type == "" {
		out.Type = TypeAI
	}
	if a.cfg.Name != "" {
		out.Name = a.cfg.Name
	}
	return a.handleOutput(out, strategy)
}

func stringsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// handleOutput turns the model's answer into messages and a structured
// response (factory._handle_model_output).
func (a *agent) handleOutput(out Message, strategy string) (*AgentModelResponse, error) {
	switch strategy {
	case StrategyProvider:
		if len(out.ToolCalls) > 0 {
			return &AgentModelResponse{Result: []Message{out}}, nil
		}
		st := a.structuredSpec
		// the error names the schema by its __name__: a pydantic model's
		// class name, "response_format" for a dict (factory.py,
		// _handle_model_output; ProviderStrategyBinding.parse)
		name := "response_format"
		if st.validate != nil {
			name = st.schema.Name
		}
		v, err := DecodeJSON([]byte(out.Text()))
		if err != nil {
			return nil, NewError("StructuredOutputValidationError", fmt.Sprintf("Failed to parse structured output for tool '%s': Native structured output expected valid JSON for %s, but parsing failed: %s..", name, name, pyJSONError(out.Text())))
		}
		obj, _ := v.(*Object)
		resp, err := st.parse(obj)
		if err != nil {
			return nil, NewError("StructuredOutputValidationError", fmt.Sprintf("Failed to parse structured output for tool '%s': %s.", name, ErrorMessage(err)))
		}
		return &AgentModelResponse{Result: []Message{out}, StructuredResponse: resp}, nil
	case StrategyTool:
		var calls []ToolCall
		for _, tc := range out.ToolCalls {
			if a.structured[tc.Name] != nil {
				calls = append(calls, tc)
			}
		}
		if len(calls) == 0 {
			break
		}
		rf := a.cfg.ResponseFormat
		if len(calls) > 1 {
			names := make([]string, len(calls))
			for i, tc := range calls {
				names[i] = tc.Name
			}
			err := NewError("MultipleStructuredOutputsError", fmt.Sprintf("Model incorrectly returned multiple structured responses (%s) when only one is expected.", strings.Join(names, ", ")))
			text, retry := structuredRetry(err, rf)
			if !retry {
				return nil, err
			}
			result := []Message{out}
			for _, tc := range calls {
				result = append(result, Message{Type: TypeTool, Content: Text(text), Name: tc.Name, ToolCallID: tc.ID, Status: StatusSuccess})
			}
			return &AgentModelResponse{Result: result}, nil
		}
		tc := calls[0]
		st := a.structured[tc.Name]
		resp, err := st.parse(tc.Args)
		if err != nil {
			verr := NewError("StructuredOutputValidationError", fmt.Sprintf("Failed to parse structured output for tool '%s': %s.", tc.Name, ErrorMessage(err)))
			text, retry := structuredRetry(verr, rf)
			if !retry {
				return nil, verr
			}
			return &AgentModelResponse{Result: []Message{out, {Type: TypeTool, Content: Text(text), Name: tc.Name, ToolCallID: tc.ID, Status: StatusSuccess}}}, nil
		}
		content := rf.ToolMessageContent
		if content == "" {
			content = "Returning structured response: " + st.str(resp)
		}
		return &AgentModelResponse{Result: []Message{out, {Type: TypeTool, Content: Text(content), Name: tc.Name, ToolCallID: tc.ID, Status: StatusSuccess}}, StructuredResponse: resp}, nil
	}
	return &AgentModelResponse{Result: []Message{out}}, nil
}

func structuredRetry(err error, rf *AgentResponseFormat) (string, bool) {
	h := rf.HandleErrors
	switch {
	case h.Disabled:
		return "", false
	case h.Handle != nil:
		return h.Handle(err), true
	case h.Message != "":
		return h.Message, true
	}
	return "Error: " + err.Error() + "\n Please fix your mistakes.", true
}

// pyJSONError approximates the message of Python's json.loads for text
// that is not JSON: "Expecting value" where no value starts, "Extra data"
// after a complete value.
func pyJSONError(text string) string {
	at := func(pos int) string {
		line, col := 1, 1
		for _, r := range text[:pos] {
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Sprintf("line %d column %d (char %d)", line, col, len([]rune(text[:pos])))
	}
	dec := json.NewDecoder(strings.NewReader(text))
	var v any
	if err := dec.Decode(&v); err != nil {
		pos := len(text) - len(strings.TrimLeft(text, " \t\n\r"))
		var se *json.SyntaxError
		if errors.As(err, &se) && int(se.Offset) > 0 && int(se.Offset)-1 > pos {
			// Python points at the start of the value it could not read
			pos = int(se.Offset) - 1
			for pos > 0 && isWordByte(text[pos-1]) {
				pos--
			}
		}
		return "Expecting value: " + at(min(pos, len(text)))
	}
	pos := int(dec.InputOffset())
	rest := strings.TrimLeft(text[pos:], " \t\n\r")
	return "Extra data: " + at(len(text)-len(rest))
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}
