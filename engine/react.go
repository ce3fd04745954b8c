package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Prompt is create_react_agent's prompt: a system text, a system message,
// or a function of the state that returns the messages to send. The zero
// value sends the state's messages as they are.
type Prompt struct {
	text string
	msg  *Message
	fn   func(ctx context.Context, state State) ([]Message, error)
}

// PromptText prepends a system message with text to every model call.
func PromptText(text string) Prompt { return Prompt{text: text, msg: nil} }

// PromptMessage prepends msg (normally a system message) to every model
// call.
func PromptMessage(msg Message) Prompt { return Prompt{msg: &msg} }

// PromptFunc builds the model's input from the state (whose "messages" are
// already the model input: llm_input_messages when a pre-model hook set
// them).
func PromptFunc(fn func(ctx context.Context, state State) ([]Message, error)) Prompt {
	return Prompt{fn: fn}
}

// IsZero reports whether no prompt is set.
func (p Prompt) IsZero() bool { return p.text == "" && p.msg == nil && p.fn == nil }

func (p Prompt) apply(ctx context.Context, state State, msgs MessageList) (MessageList, error) {
	switch {
	case p.fn != nil:
		s := state.Clone()
		s["messages"] = msgs
		out, err := p.fn(ctx, s)
		return listOf(out), err
	case p.msg != nil:
		return prepend(*p.msg, msgs), nil
	case p.text != "":
		return prepend(SystemMessage(p.text), msgs), nil
	}
	return msgs, nil
}

// prepend returns the list of m followed by msgs. A list is a chain from
// its end, so this copies msgs: a prompt costs a copy of the thread per
// model call (see the package doc).
func prepend(m Message, msgs MessageList) MessageList {
	out := make([]Message, 1, 1+msgs.Len())
	out[0] = m
	for _, x := range msgs.All() {
		out = append(out, x)
	}
	return listOf(out)
}

// ResponseFormat asks the agent for a structured response after its loop:
// one more model call with the schema bound as the only tool and
// tool_choice "any" (LangChain's default with_structured_output).
type ResponseFormat struct {
	// Schema is a JSON Schema with a "title" (the tool's name) and
	// usually a "description".
	Schema *Object
	// Prompt, when set, is prepended as a system message to the structured
	// call (the (prompt, schema) form).
	Prompt string
	// Validate checks the model's answer against Schema and coerces it as
	// a pydantic model would ("21" becomes 21); without it the arguments
	// are returned as the model wrote them (a plain JSON-schema dict).
	Validate bool
}

// ReactAgentConfig configures CreateReactAgent. Model (or ModelSelector)
// is required; everything else has LangGraph's defaults.
type ReactAgentConfig struct {
	// Model is called with the tools bound.
	Model ChatModel
	// ModelSelector chooses the model for each call instead (dynamic
	// model); the tools are bound to whatever it returns.
	ModelSelector ModelSelector
	// Tools run in a ToolNode built with ToolNodeOptions; leave empty for a
	// graph with a single model node.
	Tools []Tool
	// ToolNode, when set, is used instead of Tools.
	ToolNode *ToolNode
	// ProviderTools are tools given as plain dicts (create_react_agent's
	// dict tools, see ProviderToolSchema): bound to the model after the
	// ToolNode's tools and never run. A call to one goes to the tools node
	// like any other and is answered as an unknown tool; with no other
	// tools there is no tools node and the run ends with the calling AI
	// message (the graph of an agent without tools).
	ProviderTools   []*Object
	ToolNodeOptions ToolNodeOptions
	Prompt          Prompt
	ResponseFormat  *ResponseFormat
	// PreModelHook runs before every model call; it may set
	// "llm_input_messages" (what the model sees, state untouched) or
	// rewrite "messages".
	PreModelHook NodeFunc
	// PostModelHook runs after every model call (version v2 only).
	PostModelHook NodeFunc
	// StateFields adds keys to the agent's state (custom state_schema).
	StateFields  []Field
	Checkpointer Checkpointer
	Store        Store
	// InterruptBefore and InterruptAfter name nodes ("agent", "tools",
	// ...) to pause at.
	InterruptBefore []string
	InterruptAfter  []string
	// Version is "v1" (one tools task for all calls) or "v2" (one task per
	// call, the default).
	Version string
	// Name names the graph and is set as the name of the agent's AI
	// messages.
	Name  string
	Clock Clock
	// Debug is create_react_agent's debug: the graph's
	// CompileOptions.Debug.
	Debug io.Writer
}

// reactReservedKeys are the state keys the ReAct agent owns.
var reactReservedKeys = map[string]bool{"messages": true, "remaining_steps": true, "structured_response": true, "llm_input_messages": true}

// Validate reports every problem the configuration has on its own: a
// model missing or given twice, an unknown Version, a post-model hook on
// v1, a response format without a schema or a title, ToolNodeOptions
// (when the agent builds its ToolNode from Tools) and state fields that
// the agent reserves. It compiles nothing: CreateReactAgent calls it, then
// reports what compiling the schemas and the tools finds.
func (c ReactAgentConfig) Validate() error {
	var errs []error
	if c.Model == nil && c.ModelSelector == nil {
		errs = append(errs, errors.New("a model is required: set Model or ModelSelector"))
	}
	if c.Model != nil && c.ModelSelector != nil {
		errs = append(errs, errors.New("set Model or ModelSelector, not both"))
	}
	version := c.version()
	if version != "v1" && version != "v2" {
		errs = append(errs, fmt.Errorf("Invalid version %s. Supported versions are 'v1' and 'v2'.", c.Version))
	}
	if version == "v1" && c.PostModelHook != nil {
		errs = append(errs, errors.New("post_model_hook needs version \"v2\": LangGraph's v1 graph with a post-model hook fails with KeyError('tools') once the model calls a tool"))
	}
	if rf := c.ResponseFormat; rf != nil {
		if rf.Schema == nil {
			errs = append(errs, errors.New("response_format: Schema is required"))
		} else if rf.title() == "" {
			errs = append(errs, errors.New("response_format: the schema needs a \"title\" (it names the structured-output tool), or must be an OpenAI function {\"name\", \"description\", \"parameters\"}"))
		}
	}
	if c.ToolNode == nil && len(c.Tools) > 0 {
		if err := c.ToolNodeOptions.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("tool node: %w", err))
		}
	}
	for _, f := range c.StateFields {
		if reactReservedKeys[f.Name] {
			errs = append(errs, fmt.Errorf("state field %q is reserved by the agent", f.Name))
		}
	}
	return errors.Join(errs...)
}

// version is Version with its default, "v2".
func (c ReactAgentConfig) version() string {
	if c.Version == "" {
		return "v2"
	}
	return c.Version
}

// title names the structured-output tool as convert_to_openai_function
// does: an OpenAI function's "name", else the schema's "title"; "" when it
// has neither.
func (rf *ResponseFormat) title() string {
	if isFunctionSchema(rf.Schema) {
		n, _ := rf.Schema.Get("name")
		s, _ := n.(string)
		return s
	}
	t, _ := rf.Schema.Get("title")
	name, _ := t.(string)
	return name
}

// isFunctionSchema reports whether a schema is given as an OpenAI function
// ({"name", "description", "parameters"}) rather than a JSON Schema: it
// has a "name" (convert_to_openai_function's "already in OpenAI function
// format" branch, which comes before the JSON-schema one).
func isFunctionSchema(o *Object) bool {
	n, ok := o.Get("name")
	_, isStr := n.(string)
	return ok && isStr
}

// SorryNeedMoreSteps is the answer the agent gives instead of tool calls
// when the steps run out.
const SorryNeedMoreSteps = "Sorry, need more steps to process this request."

// CreateReactAgent builds LangGraph's prebuilt ReAct agent
// (create_react_agent in langgraph/prebuilt/chat_agent_executor.py): an
// "agent" node calling the model and a "tools" node running its tool calls,
// looping until the model answers without tool calls.
func CreateReactAgent(cfg ReactAgentConfig) (*Graph, error) {
	var errs []error
	if err := cfg.Validate(); err != nil {
		errs = append(errs, err)
	}
	version := cfg.version()
	var structName string
	var structSchema *Schema
	if rf := cfg.ResponseFormat; rf != nil && rf.Schema != nil {
		structName = rf.title()
		if rf.Validate {
			s, err := CompileSchema(structName, rf.Schema)
			if err != nil {
				errs = append(errs, fmt.Errorf("response_format: %w", err))
			}
			structSchema = s
		}
	}
	tn := cfg.ToolNode
	if tn == nil && len(cfg.Tools) > 0 {
		var err error
		tn, err = newToolNode(cfg.Tools, cfg.ToolNodeOptions) // Validate checked the options
		if err != nil {
			errs = append(errs, err)
		}
	}
	providers, err := providerToolSchemas(cfg.ProviderTools)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("create react agent: %w", errors.Join(errs...))
	}
	a := &reactAgent{cfg: cfg, tools: tn, version: version, structName: structName, structSchema: structSchema}
	if tn != nil {
		a.toolSchemas = tn.Schemas()
		for _, d := range tn.Definitions() {
			if d.ReturnDirect {
				if a.returnDirect == nil {
					a.returnDirect = map[string]bool{}
				}
				a.returnDirect[d.Name] = true
			}
		}
	}
	// bind_tools(tool_classes + llm_builtin_tools): the dicts come last
	a.toolSchemas = append(slices.Clip(a.toolSchemas), providers...)
	return a.build()
}

type reactAgent struct {
	cfg          ReactAgentConfig
	tools        *ToolNode
	toolSchemas  []ToolSchema
	version      string
	returnDirect map[string]bool
	structName   string
	structSchema *Schema
	history      historyCache
}

func (a *reactAgent) build() (*Graph, error) {
	schema := []Field{MessagesField("messages"), RemainingStepsField("remaining_steps")}
	if a.cfg.ResponseFormat != nil {
		schema = append(schema, ValueField("structured_response"))
	}
	schema = append(schema, a.cfg.StateFields...)
	g := NewStateGraph(schema...)
	var agentOpts []NodeOption
	if a.cfg.ModelSelector == nil && a.cfg.Prompt.fn == nil {
		// callModel keeps nothing of its state and gives it to no user
		// code (a model selector and a prompt function get it)
		agentOpts = append(agentOpts, withLentInput())
	}
	if a.cfg.ModelSelector != nil {
		// the selector gets the Runtime on every call
		agentOpts = append(agentOpts, withRuntime())
	}
	if a.cfg.PreModelHook != nil {
		in := append(append([]Field(nil), schema...), ValueField("llm_input_messages"))
		agentOpts = append(agentOpts, WithInput(in...))
	}
	g.AddNode("agent", a.callModel, agentOpts...)
	entry := "agent"
	if a.cfg.PreModelHook != nil {
		g.AddNode("pre_model_hook", a.cfg.PreModelHook)
		g.AddEdge("pre_model_hook", "agent")
		entry = "pre_model_hook"
	}
	g.SetEntryPoint(entry)
	if a.cfg.ResponseFormat != nil {
		g.AddNode("generate_structured_response", a.structuredResponse)
	}
	if a.tools == nil {
		if a.cfg.PostModelHook != nil {
			g.AddNode("post_model_hook", a.cfg.PostModelHook)
			g.AddEdge("agent", "post_model_hook")
		}
		if a.cfg.ResponseFormat != nil {
			if a.cfg.PostModelHook != nil {
				g.AddEdge("post_model_hook", "generate_structured_response")
			} else {
				g.AddEdge("agent", "generate_structured_response")
			}
		}
		return g.Compile(a.compileOptions())
	}
	toolsFn, sendArg := a.tools.graphNode()
	g.AddNode("tools", toolsFn, sendArg, withRuntime())
	var agentPaths []string
	postPaths := []string{entry, "tools"}
	if a.cfg.PostModelHook != nil {
		g.AddNode("post_model_hook", a.cfg.PostModelHook)
		agentPaths = append(agentPaths, "post_model_hook")
		g.AddEdge("agent", "post_model_hook")
	} else {
		agentPaths = append(agentPaths, "tools")
	}
	if a.cfg.ResponseFormat != nil {
		if a.cfg.PostModelHook != nil {
			postPaths = append(postPaths, "generate_structured_response")
		} else {
			agentPaths = append(agentPaths, "generate_structured_response")
		}
	} else if a.cfg.PostModelHook != nil {
		postPaths = append(postPaths, End)
	} else {
		agentPaths = append(agentPaths, End)
	}
	if a.cfg.PostModelHook != nil {
		g.AddConditionalEdges("post_model_hook", a.postModelHookRouter(entry), postPaths...)
	}
	g.AddConditionalEdges("agent", a.shouldContinue, agentPaths...)
	if len(a.returnDirect) > 0 {
		g.AddConditionalEdges("tools", a.routeToolResponses(entry), entry, End)
	} else {
		g.AddEdge("tools", entry)
	}
	return g.Compile(a.compileOptions())
}

func (a *reactAgent) compileOptions() CompileOptions {
	return CompileOptions{
		Checkpointer:    a.cfg.Checkpointer,
		Store:           a.cfg.Store,
		InterruptBefore: a.cfg.InterruptBefore,
		InterruptAfter:  a.cfg.InterruptAfter,
		Name:            a.cfg.Name,
		Clock:           a.cfg.Clock,
		Debug:           a.cfg.Debug,
	}
}

// checkEveryCallAnswered is LangGraph's _validate_chat_history: every
// tool call of every AI message has a ToolMessage somewhere in msgs.
func checkEveryCallAnswered(msgs []Message) error {
	answered := map[string]bool{}
	for _, m := range msgs {
		if m.Type == TypeTool {
			answered[m.ToolCallID] = true
		}
	}
	var missing []any
	for _, m := range msgs {
		if m.Type != TypeAI {
			continue
		}
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				o := tc.ToValue()
				o.Set("type", "tool_call")
				missing = append(missing, o)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if len(missing) > 3 {
		missing = missing[:3]
	}
	return errorWithCode("ValueError", "Found AIMessages with tool_calls that do not have a corresponding ToolMessage. Here are the first few of those tool calls: "+PyRepr(missing)+".\n\nEvery tool call (LLM requesting to call a tool) in the message history MUST have a corresponding ToolMessage (result of a tool invocation to return to the LLM) - this is required by most LLM providers.", "INVALID_CHAT_HISTORY")
}

// historyScan is the usual-shape check's position in a list: open holds the
// calls of the last AI message it read (answered ones first) and answered
// counts those answered.
type historyScan struct {
	open     []ToolCall
	answered int
	cloned   bool // open is the scan's own copy
}

// scan reads msgs, the messages after those it read; false means the
// history is not of the usual shape.
func (s *historyScan) scan(msgs []Message) bool {
	for i := range msgs {
		m := &msgs[i]
		switch m.Type {
		case TypeAI:
			if s.answered < len(s.open) {
				return false
			}
			s.open, s.answered, s.cloned = m.ToolCalls, 0, false
		case TypeTool:
			j := s.answered
			for j < len(s.open) && s.open[j].ID != m.ToolCallID {
				j++
			}
			if j == len(s.open) {
				return false
			}
			if j != s.answered {
				// answered out of call order: move the call to the
				// answered ones, in a copy (open is the message's)
				if !s.cloned {
					s.open, s.cloned = slices.Clone(s.open), true
				}
				s.open[s.answered], s.open[j] = s.open[j], s.open[s.answered]
			}
			s.answered++
		}
	}
	return true
}

func (s *historyScan) complete() bool { return s.answered == len(s.open) }

// historyCache validates a MessageList's history (LangGraph's
// _validate_chat_history: every tool call has a tool message),
// resuming where the scan of an earlier list that shares its nodes
// stopped: each node of a long list keeps the scan's position after its
// messages (listNode.hist), so a turn on a long thread scans what the
// turn added.
type historyCache struct{}

// historyCacheMin is the shortest list whose scan is remembered.
const historyCacheMin = 64

// validate checks msgs, resuming a remembered scan. It reads the list node
// by node: each AI message's calls answered by tool messages before the
// next AI message is the usual shape, and only a history of another shape
// runs the full check (checkEveryCallAnswered) on the list as one slice.
func (historyCache) validate(msgs MessageList) error {
	remember := msgs.Len() >= historyCacheMin
	var stack [64]*listNode
	todo := stack[:0]
	var s historyScan
	for n := msgs.n; n != nil; n = n.prev {
		if p := n.hist.Load(); p != nil {
			if h, ok := (*p).(*historyScan); ok {
				s = *h
				break
			}
		}
		todo = append(todo, n)
	}
	// a remembered open list may be resumed by another call at the same
	// time: copy before swapping
	s.cloned = false
	for k := len(todo) - 1; k >= 0; k-- {
		t := todo[k]
		if !s.scan(t.items) {
			return checkEveryCallAnswered(msgs.Slice())
		}
		if remember {
			kept := s
			kept.cloned = false
			var note any = &kept
			t.hist.Store(&note)
		}
	}
	if !s.complete() {
		return checkEveryCallAnswered(msgs.Slice())
	}
	return nil
}

func (a *reactAgent) model(ctx context.Context, state State) (ChatModel, error) {
	if a.cfg.ModelSelector != nil {
		m, err := a.cfg.ModelSelector(ctx, state, RuntimeFrom(ctx))
		if err != nil {
			return nil, fmt.Errorf("choose model: %w", err)
		}
		if m == nil {
			return nil, errors.New("choose model: the model selector returned no model")
		}
		return m, nil
	}
	return a.cfg.Model, nil
}

// callModel is the "agent" node (call_model).
func (a *reactAgent) callModel(ctx context.Context, state State) (any, error) {
	var msgs MessageList
	if a.cfg.PreModelHook != nil {
		if v, ok := state["llm_input_messages"]; ok && v != nil {
			m, err := messageListFromValue(v)
			if err != nil {
				return nil, fmt.Errorf("llm_input_messages: %w", err)
			}
			msgs = m
		}
	}
	if msgs.Len() == 0 {
		m, err := messageListFromValue(state["messages"])
		if err != nil {
			return nil, fmt.Errorf("messages: %w", err)
		}
		msgs = m
	}
	if err := a.history.validate(msgs); err != nil {
		return nil, err
	}
	input, err := a.cfg.Prompt.apply(ctx, state, msgs)
	if err != nil {
		return nil, fmt.Errorf("prompt: %w", err)
	}
	model, err := a.model(ctx, state)
	if err != nil {
		return nil, err
	}
	resp, err := Generate(ctx, model, ModelRequest{Messages: input, Tools: a.toolSchemas})
	if err != nil {
		return nil, err
	}
	if resp.Type == "" {
		resp.Type = TypeAI
	}
	if resp.Type != TypeAI {
		return nil, fmt.Errorf("model returned a %q message, expected an AI message", resp.Type)
	}
	resp.Name = a.cfg.Name
	// the list is the node's own: the run may give resp its ID in place
	if a.moreStepsNeeded(state, resp) {
		return messageUpdateIn(ctx, "messages", Message{Type: TypeAI, ID: resp.ID, Content: Text(SorryNeedMoreSteps)}), nil
	}
	return messageUpdateIn(ctx, "messages", resp), nil
}

// moreStepsNeeded is _are_more_steps_needed: a tool-calling answer when
// fewer than two steps remain (fewer than one when every called tool
// returns directly).
func (a *reactAgent) moreStepsNeeded(state State, resp Message) bool {
	rs, ok := state["remaining_steps"].(int)
	if !ok {
		return false
	}
	hasCalls := len(resp.ToolCalls) > 0
	allDirect := true
	for _, tc := range resp.ToolCalls {
		if !a.returnDirect[tc.Name] {
			allDirect = false
		}
	}
	if rs < 1 && allDirect {
		return true
	}
	return rs < 2 && hasCalls
}

func lastMessage(state State) (Message, bool) {
	if l, ok := state["messages"].(MessageList); ok {
		return l.Last()
	}
	msgs, _ := MessagesFromValue(state["messages"])
	if len(msgs) == 0 {
		return Message{}, false
	}
	return msgs[len(msgs)-1], true
}

// shouldContinue routes after the agent node.
func (a *reactAgent) shouldContinue(_ context.Context, state State) (any, error) {
	last, ok := lastMessage(state)
	if !ok {
		return nil, errors.New("route after agent: no messages in state")
	}
	if last.Type != TypeAI || len(last.ToolCalls) == 0 {
		switch {
		case a.cfg.PostModelHook != nil:
			return "post_model_hook", nil
		case a.cfg.ResponseFormat != nil:
			return "generate_structured_response", nil
		default:
			return End, nil
		}
	}
	if a.version == "v1" {
		return "tools", nil
	}
	if a.cfg.PostModelHook != nil {
		return "post_model_hook", nil
	}
	return toolSends(last.ToolCalls, state), nil
}

// toolSends is the router's answer for calls: a Send to "tools" per call,
// with the call and the state (create_react_agent's should_continue for
// version "v2", langgraph/prebuilt/chat_agent_executor.py).
func toolSends(calls []ToolCall, state State) any {
	sends := make([]any, len(calls))
	for i, tc := range calls {
		sends[i] = Send{Node: "tools", Arg: ToolCallWithContext{Call: tc, State: state}}
	}
	return sends
}

func (a *reactAgent) postModelHookRouter(entry string) RouterFunc {
	return func(_ context.Context, state State) (any, error) {
		msgs, err := MessagesFromValue(state["messages"])
		if err != nil {
			return nil, err
		}
		answered := map[string]bool{}
		for _, m := range msgs {
			if m.Type == TypeTool {
				answered[m.ToolCallID] = true
			}
		}
		var lastAI *Message
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Type == TypeAI {
				lastAI = &msgs[i]
				break
			}
		}
		if lastAI == nil {
			return nil, NewError("StopIteration", "")
		}
		var sends []any
		for _, tc := range lastAI.ToolCalls {
			if !answered[tc.ID] {
				sends = append(sends, Send{Node: "tools", Arg: ToolCallWithContext{Call: tc, State: state}})
			}
		}
		switch {
		case len(sends) > 0:
			return sends, nil
		case len(msgs) > 0 && msgs[len(msgs)-1].Type == TypeTool:
			return entry, nil
		case a.cfg.ResponseFormat != nil:
			return "generate_structured_response", nil
		default:
			return End, nil
		}
	}
}

func (a *reactAgent) routeToolResponses(entry string) RouterFunc {
	return func(_ context.Context, state State) (any, error) {
		msgs, err := messageListFromValue(state["messages"])
		if err != nil {
			return nil, err
		}
		var m Message
		for _, m = range msgs.Backward() {
			if m.Type != TypeTool {
				break
			}
			if a.returnDirect[m.Name] {
				return End, nil
			}
		}
		if m.Type == TypeAI && len(m.ToolCalls) > 0 {
			for _, tc := range m.ToolCalls {
				if a.returnDirect[tc.Name] {
					return End, nil
				}
			}
		}
		return entry, nil
	}
}

// structuredResponse is the "generate_structured_response" node.
func (a *reactAgent) structuredResponse(ctx context.Context, state State) (any, error) {
	msgs, err := MessagesFromValue(state["messages"])
	if err != nil {
		return nil, err
	}
	rf := a.cfg.ResponseFormat
	if rf.Prompt != "" {
		msgs = append([]Message{SystemMessage(rf.Prompt)}, msgs...)
	}
	model, err := a.model(ctx, state)
	if err != nil {
		return nil, err
	}
	if so, ok := model.(StructuredOutputModel); ok && so.StructuredOutputMethod() == "json_schema" {
		return a.structuredFromJSON(ctx, model, msgs)
	}
	resp, err := Generate(ctx, model, ModelRequest{Messages: listOf(msgs), Tools: []ToolSchema{StructuredOutputTool(rf.Schema)}, ToolChoice: "any"})
	if err != nil {
		return nil, err
	}
	var out any
	for _, tc := range resp.ToolCalls {
		if tc.Name != a.structName {
			continue
		}
		var args any = tc.Args
		if tc.Args == nil {
			args = &Object{}
		}
		if a.structSchema != nil {
			v, err := a.structSchema.Validate(args)
			if err != nil {
				return nil, err
			}
			args = v
		}
		out = args
		break
	}
	return State{"structured_response": out}, nil
}

// structuredFromJSON asks a model whose with_structured_output uses the
// provider's JSON-schema mode (ChatOpenAI's method "json_schema") for the
// structured response: no tools, the schema as response_format, and the
// answer's text read as JSON (JsonOutputParser), validated when the schema
// is a pydantic model. LangChain hands a pydantic class to openai-python,
// which sends it with strict true; the engine sends the schema the same
// way a dict is sent, with "strict": true.
func (a *reactAgent) structuredFromJSON(ctx context.Context, model ChatModel, msgs []Message) (any, error) {
	rf := a.cfg.ResponseFormat
	js := NewObject("name", a.structName, "schema", rf.Schema)
	if a.structSchema != nil {
		js.Set("strict", true)
	}
	resp, err := Generate(ctx, model, ModelRequest{Messages: listOf(msgs), ResponseFormat: NewObject("type", "json_schema", "json_schema", js)})
	if err != nil {
		return nil, err
	}
	v, err := parseJSONMarkdown(resp.Text())
	if err != nil {
		return nil, NewError("OutputParserException", "Invalid json output: "+resp.Text())
	}
	if a.structSchema != nil {
		if v, err = a.structSchema.Validate(v); err != nil {
			return nil, err
		}
	}
	return State{"structured_response": v}, nil
}

// parseJSONMarkdown reads JSON that may sit in a ```json fence, as
// langchain_core's parse_json_markdown does for JsonOutputParser.
func parseJSONMarkdown(text string) (any, error) {
	text = strings.TrimSpace(text)
	if i := strings.Index(text, "```"); i >= 0 {
		rest := text[i+3:]
		rest = strings.TrimPrefix(rest, "json")
		if j := strings.Index(rest, "```"); j >= 0 {
			rest = rest[:j]
		}
		text = strings.TrimSpace(rest)
	}
	return DecodeJSON([]byte(text))
}

// StructuredOutputTool is the tool LangChain binds for a JSON-schema
// structured output: named by the schema's title, described by its
// description, with the rest of the schema as parameters.
//
// A schema given as an OpenAI function ({"name", "description",
// "parameters"}) is that function, as convert_to_openai_function reads it.
func StructuredOutputTool(schema *Object) ToolSchema {
	if isFunctionSchema(schema) {
		ts := ToolSchema{}
		n, _ := schema.Get("name")
		ts.Name, _ = n.(string)
		d, _ := schema.Get("description")
		ts.Description, _ = d.(string)
		p, _ := schema.Get("parameters")
		ts.Parameters, _ = p.(*Object)
		return ts
	}
	return schemaTool("", schema)
}

// schemaTool is a JSON-schema dict bound as a tool under name (the
// schema's title when name is ""): described by its description, with the
// rest of the schema as parameters, as StructuredTool(args_schema=dict)
// converts for create_agent's ToolStrategy whatever the dict holds.
func schemaTool(name string, schema *Object) ToolSchema {
	params := &Object{}
	var desc string
	for _, k := range schema.Keys() {
		v, _ := schema.Get(k)
		switch k {
		case "title":
			if name == "" {
				name, _ = v.(string)
			}
		case "description":
			desc, _ = v.(string)
		default:
			params.Set(k, v)
		}
	}
	return ToolSchema{Name: name, Description: desc, Parameters: params}
}
