package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
)

// Status of a vector run.
const (
	StatusPass = "pass"
	StatusFail = "fail"
	StatusSkip = "skip"
)

// Result is the outcome of one vector.
type Result struct {
	Name   string `json:"name"`
	API    string `json:"api"`
	Status string `json:"status"`
	// Diff is the first difference found ("" when the vector passed), or
	// why it was skipped.
	Diff string `json:"diff"`
}

// Options configures Run.
type Options struct {
	// Unsupported lists APIs this build cannot run yet; their vectors are
	// reported as skipped with the given reason.
	Unsupported map[string]string
}

// DefaultOptions are the options of this build.
func DefaultOptions() Options { return Options{} }

// fixedClock keeps store and checkpoint timestamps stable.
type fixedClock struct{}

func (fixedClock) Now() time.Time { return time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC) }
func (fixedClock) Sleep(ctx context.Context, _ time.Duration) error {
	return ctx.Err()
}

// recorder wraps the scripted models to record every call in the order the
// calls were made.
type recorder struct {
	mu    sync.Mutex
	calls []*engine.Object
}

type recordingModel struct {
	name string
	m    *llm.Scripted
	rec  *recorder
}

func (r *recordingModel) Generate(ctx context.Context, req engine.ModelRequest) (engine.Message, error) {
	r.rec.mu.Lock()
	n := 1
	for _, c := range r.rec.calls {
		if getStr(c, "model") == r.name {
			n++
		}
	}
	r.rec.calls = append(r.rec.calls, modelCall(r.name, n, req))
	r.rec.mu.Unlock()
	return r.m.Generate(ctx, req)
}

func modelCall(name string, n int, req engine.ModelRequest) *engine.Object {
	o := engine.NewObject("model", name, "call", json.Number(strconv.Itoa(n)), "messages", engine.MessagesToValue(req.Messages.Slice()))
	if req.Tools != nil {
		// a bound empty tool list is recorded as [], no binding not at all
		names := make([]any, len(req.Tools))
		for i, t := range req.Tools {
			names[i] = t.Name
		}
		o.Set("tools", names)
	}
	kw := &engine.Object{}
	if req.ToolChoice != "" {
		kw.Set("tool_choice", req.ToolChoice)
	}
	if req.ParallelToolCalls != nil {
		kw.Set("parallel_tool_calls", *req.ParallelToolCalls)
	}
	if req.ResponseFormat != nil {
		kw.Set("response_format", req.ResponseFormat)
	}
	if req.Options != nil {
		for _, k := range req.Options.Keys() {
			v, _ := req.Options.Get(k)
			kw.Set(k, v)
		}
	}
	if kw.Len() > 0 {
		o.Set("kwargs", kw)
	}
	return o
}

// Run executes one vector through the public engine API and compares what
// it produces with what the vector recorded.
func Run(ctx context.Context, v *Vector, opts Options) Result {
	res := Result{Name: v.Name, API: v.API}
	if why, ok := opts.Unsupported[v.API]; ok {
		res.Status, res.Diff = StatusSkip, why
		return res
	}
	diff, err := run(ctx, v)
	switch {
	case err != nil:
		res.Status, res.Diff = StatusFail, err.Error()
	case diff != "":
		res.Status, res.Diff = StatusFail, diff
	default:
		res.Status = StatusPass
	}
	return res
}

type harness struct {
	v     *Vector
	graph *engine.Graph
	tools *engine.ToolNode
	rec   *recorder
	saver engine.Checkpointer
	store engine.Store
	// invokeStore says the store is given to each invoke (Config.Store)
	// rather than compiled into the graph: config "store": "invoke".
	invokeStore bool
	thread      string
	// pydantic names the structured-response model when the vector's
	// response_format is a pydantic model: its instances are recorded as
	// {"__pydantic__": name, ...fields}.
	pydantic string
}

func run(ctx context.Context, v *Vector) (string, error) {
	h := &harness{v: v, rec: &recorder{}, thread: "t1"}
	if err := h.build(); err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	if d := h.checkStatic(); d != "" {
		return d, nil
	}
	for i, raw := range v.Steps {
		step, ok := raw.(*engine.Object)
		if !ok {
			return "", fmt.Errorf("steps[%d]: expected an object", i)
		}
		want, ok := v.Expected[i].(*engine.Object)
		if !ok {
			return "", fmt.Errorf("expected[%d]: expected an object", i)
		}
		got, err := h.step(ctx, i, step)
		if err != nil {
			return "", fmt.Errorf("steps[%d]: %w", i, err)
		}
		if v.NondeterministicSteps[i] {
			want = relaxUUIDs(want).(*engine.Object)
		}
		if d := compareStep(fmt.Sprintf("expected[%d]", i), want, got); d != "" {
			return d, nil
		}
	}
	if v.HasStore && h.store != nil {
		items, err := h.store.Search(ctx, nil, engine.SearchOptions{Limit: 1000})
		if err != nil {
			return "", err
		}
		sort.Slice(items, func(i, j int) bool {
			a, b := fmt.Sprint(items[i].Namespace), fmt.Sprint(items[j].Namespace)
			if a != b {
				return a < b
			}
			return items[i].Key < items[j].Key
		})
		var got []any
		for _, it := range items {
			ns := make([]any, len(it.Namespace))
			for i, s := range it.Namespace {
				ns[i] = s
			}
			got = append(got, engine.NewObject("namespace", ns, "key", it.Key, "value", it.Value))
		}
		if d := match("final_store", v.FinalStore, got); d != "" {
			return d, nil
		}
	}
	return "", nil
}

func (h *harness) build() error {
	v := h.v
	models, order, err := buildModels(v)
	if err != nil {
		return err
	}
	wrapped := map[string]engine.ChatModel{}
	for _, name := range order {
		wrapped[name] = &recordingModel{name: name, m: models[name], rec: h.rec}
	}
	tools, err := buildTools(v)
	if err != nil {
		return err
	}
	cfg := v.Config
	if b, _ := get(cfg, "checkpointer").(bool); b {
		h.saver = checkpoint.NewMemory()
	}
	switch get(cfg, "store") {
	case true:
		h.store = checkpoint.NewMemoryStore(fixedClock{})
	case "invoke":
		h.store = checkpoint.NewMemoryStore(fixedClock{})
		h.invokeStore = true
	}
	te, err := toolErrors(get(cfg, "handle_tool_errors"))
	if err != nil {
		return err
	}
	switch v.API {
	case APIToolNode:
		return h.buildToolNode(tools, te)
	case APICreateReactAgent:
		return h.buildReactAgent(cfg, wrapped, tools, te)
	case APICreateAgent:
		return h.buildAgent(cfg, wrapped, tools)
	}
	return fmt.Errorf("api %q is not supported", v.API)
}

// graphStore is the store the graph is compiled with: none when the
// vector gives it to each invoke instead.
func (h *harness) graphStore() engine.Store {
	if h.invokeStore {
		return nil
	}
	return h.store
}

// buildToolNode builds the tool_node API's graph: START → tools → END.
func (h *harness) buildToolNode(tools []engine.Tool, te engine.ToolErrors) error {
	tn, err := engine.NewToolNode(tools, engine.ToolNodeOptions{HandleToolErrors: te})
	if err != nil {
		return err
	}
	h.tools = tn
	g := engine.NewStateGraph(engine.MessagesField("messages"))
	g.AddNode("tools", tn.Node())
	g.AddEdge(engine.Start, "tools")
	g.AddEdge("tools", engine.End)
	h.graph, err = g.Compile(engine.CompileOptions{Checkpointer: h.saver, Store: h.graphStore(), Clock: fixedClock{}})
	return err
}

// buildReactAgent builds create_react_agent from the vector's config.
func (h *harness) buildReactAgent(cfg *engine.Object, wrapped map[string]engine.ChatModel, tools []engine.Tool, te engine.ToolErrors) error {
	p, err := prompt(get(cfg, "prompt"))
	if err != nil {
		return err
	}
	pre, err := hook(getObj(cfg, "pre_model_hook"))
	if err != nil {
		return err
	}
	post, err := hook(getObj(cfg, "post_model_hook"))
	if err != nil {
		return err
	}
	rc := engine.ReactAgentConfig{
		Model:           wrapped["model"],
		Tools:           tools,
		ToolNodeOptions: engine.ToolNodeOptions{HandleToolErrors: te},
		Prompt:          p,
		PreModelHook:    pre,
		PostModelHook:   post,
		Checkpointer:    h.saver,
		Store:           h.graphStore(),
		InterruptBefore: stringList(get(cfg, "interrupt_before")),
		InterruptAfter:  stringList(get(cfg, "interrupt_after")),
		Version:         getStr(cfg, "version"),
		ProviderTools:   objectList(get(cfg, "provider_tools")),
		Clock:           fixedClock{},
	}
	if rf := getObj(cfg, "response_format"); rf != nil {
		rc.ResponseFormat = &engine.ResponseFormat{Schema: getObj(rf, "schema"), Prompt: getStr(rf, "prompt"), Validate: getStr(rf, "schema_as") == "pydantic"}
		if rc.ResponseFormat.Validate {
			h.pydantic = getStr(getObj(rf, "schema"), "title")
		}
	}
	if len(tools) > 0 {
		tn, err := engine.NewToolNode(tools, rc.ToolNodeOptions)
		if err != nil {
			return err
		}
		h.tools = tn
		rc.ToolNode = tn
		rc.Tools = nil
	}
	h.graph, err = engine.CreateReactAgent(rc)
	return err
}

// buildAgent builds langchain's create_agent, middleware included, from
// the vector's config.
func (h *harness) buildAgent(cfg *engine.Object, wrapped map[string]engine.ChatModel, tools []engine.Tool) error {
	ac := engine.AgentConfig{Model: wrapped["model"], Tools: tools, ProviderTools: objectList(get(cfg, "provider_tools")), Checkpointer: h.saver, Store: h.graphStore(), Clock: fixedClock{},
		InterruptBefore: stringList(get(cfg, "interrupt_before")), InterruptAfter: stringList(get(cfg, "interrupt_after"))}
	switch sp := get(cfg, "system_prompt").(type) {
	case string:
		ac.SystemPrompt = sp
	case *engine.Object:
		m := engine.SystemMessage(getStr(sp, "value"))
		if getStr(sp, "kind") == "str" {
			ac.SystemPrompt = getStr(sp, "value")
		} else {
			ac.SystemMessage = &m
		}
	}
	if rf := getObj(cfg, "response_format"); rf != nil {
		ac.ResponseFormat = &engine.AgentResponseFormat{Strategy: getStr(rf, "strategy"), Schema: getObj(rf, "schema"), Validate: getStr(rf, "schema_as") == "pydantic"}
		if ac.ResponseFormat.Validate {
			h.pydantic = getStr(getObj(rf, "schema"), "title")
		}
	}
	mws, err := buildMiddleware(get(cfg, "middleware"), wrapped, h.v.LangChain)
	if err != nil {
		return err
	}
	ac.Middleware = mws
	if len(tools) > 0 || len(mws) > 0 {
		// the bound tool schemas the vector records are the agent's
		tn, err := engine.NewToolNode(tools, engine.ToolNodeOptions{})
		if err != nil {
			return err
		}
		h.tools = tn
	}
	h.graph, err = engine.CreateAgent(ac)
	return err
}

// checkStatic compares what the vector recorded about the built agent:
// the tool schemas bound to the model and the graph's shape.
func (h *harness) checkStatic() string {
	if h.v.ToolSchemas != nil {
		var got []any
		if h.tools != nil {
			for _, s := range h.tools.Schemas() {
				got = append(got, s.ToValue())
			}
		}
		if got == nil {
			got = []any{}
		}
		if d := match("tool_schemas", h.v.ToolSchemas, got); d != "" {
			return d
		}
	}
	if h.v.Graph != nil {
		nodes := []any{}
		for _, n := range h.graph.Nodes() {
			nodes = append(nodes, n)
		}
		edges := []any{}
		for _, e := range h.graph.Edges() {
			edges = append(edges, []any{e.From, e.To, e.Conditional})
		}
		if d := match("graph", h.v.Graph, engine.NewObject("nodes", nodes, "edges", edges)); d != "" {
			return d
		}
	}
	return ""
}

func (h *harness) step(ctx context.Context, i int, step *engine.Object) (*engine.Object, error) {
	op := getStr(step, "op")
	if t := getStr(step, "thread_id"); t != "" {
		h.thread = t
	}
	cfg := engine.Config{ThreadID: h.thread}
	if h.saver == nil {
		cfg.ThreadID = ""
	}
	if n, ok := getInt(step, "recursion_limit"); ok {
		cfg.RecursionLimit = n
	}
	if h.invokeStore {
		cfg.Store = h.store
	}
	if cp := getObj(step, "checkpoint"); cp != nil {
		k, ok := getInt(cp, "history_index")
		if !ok {
			return nil, fmt.Errorf("checkpoint: expected history_index")
		}
		hist, err := h.graph.GetStateHistory(ctx, engine.Config{ThreadID: h.thread}, engine.ListOptions{})
		if err != nil {
			return nil, err
		}
		if k < 0 || k >= len(hist) {
			return nil, fmt.Errorf("checkpoint: history_index %d out of range (%d checkpoints)", k, len(hist))
		}
		cfg.CheckpointID = hist[k].Config.CheckpointID
	}
	before := len(h.rec.calls)
	out := engine.NewObject("op", op)
	switch op {
	case "invoke":
		input, err := stepInput(get(step, "input"))
		if err != nil {
			return nil, err
		}
		debug, _ := get(step, "stream_debug").(bool)
		h.invoke(ctx, input, cfg, out, debug)
	case "update_state":
		values, err := updateValues(get(step, "values"))
		if err != nil {
			return nil, err
		}
		if _, err := h.graph.UpdateState(ctx, cfg, values, getStr(step, "as_node")); err != nil {
			out.Set("error", errorValue(err))
		}
	case "get_state_history":
		hist, err := h.graph.GetStateHistory(ctx, engine.Config{ThreadID: h.thread}, engine.ListOptions{})
		if err != nil {
			return nil, err
		}
		list := []any{}
		for _, s := range hist {
			msgs := []any{}
			for _, m := range s.Values.Messages("messages") {
				c := m.Content.String()
				if m.Content.IsList() {
					c = engine.PyRepr(m.Content.Value())
				}
				msgs = append(msgs, string(m.Type)+":"+c)
			}
			list = append(list, engine.NewObject("next", stringsValue(s.Next), "metadata", metaValue(s.Metadata), "messages", msgs))
		}
		out.Set("history", list)
	default:
		return nil, fmt.Errorf("unknown op %q", op)
	}
	h.rec.mu.Lock()
	calls := []any{}
	for _, c := range h.rec.calls[before:] {
		calls = append(calls, c)
	}
	h.rec.mu.Unlock()
	out.Set("model_calls", calls)
	if h.pydantic != "" {
		markPydantic(out, h.pydantic)
	}
	if h.saver != nil && op != "get_state_history" {
		snap, err := h.graph.GetState(ctx, engine.Config{ThreadID: h.thread})
		if err != nil {
			return nil, err
		}
		out.Set("state", snapshotValue(snap))
	}
	return out, nil
}

// invoke runs one step's invoke and records its output, update chunks
// and, with debug, its stream_mode="debug" events.
func (h *harness) invoke(ctx context.Context, input any, cfg engine.Config, out *engine.Object, debug bool) {
	updates := []any{}
	groups := []any{}
	events := []any{}
	group := 0
	var last engine.State
	var values engine.State
	var interrupts []engine.InterruptValue
	var runErr error
	modes := []engine.StreamMode{engine.StreamUpdates, engine.StreamValues}
	if debug {
		modes = append(modes, engine.StreamDebug)
	}
	for part, err := range h.graph.Stream(ctx, input, cfg, modes...) {
		if err != nil {
			runErr = err
			break
		}
		switch part.Mode {
		case engine.StreamDebug:
			events = append(events, part.Data)
		case engine.StreamValues:
			group++
			values = part.Data.(engine.State)
			last = values
		case engine.StreamUpdates:
			m := part.Data.(map[string]any)
			if ints, ok := m[engine.InterruptKey].([]engine.InterruptValue); ok {
				interrupts = append(interrupts, ints...)
			}
			updates = append(updates, engine.ValueForJSON(m))
			groups = append(groups, json.Number(strconv.Itoa(group)))
		}
	}
	if runErr != nil {
		out.Set("error", errorValue(runErr))
		if last != nil {
			out.Set("last_values_before_error", last.ToValue())
		} else {
			out.Set("last_values_before_error", nil)
		}
	} else {
		var o *engine.Object
		if values != nil {
			o = values.ToValue()
		}
		if len(interrupts) > 0 {
			if o == nil {
				o = &engine.Object{}
			}
			o.Set(engine.InterruptKey, engine.ValueForJSON(interrupts))
		}
		if o == nil {
			out.Set("output", nil)
		} else {
			out.Set("output", o)
		}
	}
	out.Set("updates", updates)
	out.Set("update_groups", groups)
	if debug {
		out.Set("debug", events)
	}
}

func errorValue(err error) *engine.Object {
	return engine.NewObject("type", engine.ErrorKind(err), "message", engine.ErrorMessage(err))
}

func stringsValue(ss []string) []any {
	out := []any{}
	for _, s := range ss {
		out = append(out, s)
	}
	return out
}

func metaValue(m *engine.CheckpointMetadata) any {
	if m == nil {
		return nil
	}
	return engine.NewObject("source", m.Source, "step", json.Number(strconv.Itoa(m.Step)))
}

func snapshotValue(s *engine.StateSnapshot) *engine.Object {
	tasks := []any{}
	for _, t := range s.Tasks {
		o := engine.NewObject("name", t.Name, "interrupts", engine.ValueForJSON(t.Interrupts))
		if t.Interrupts == nil {
			o.Set("interrupts", []any{})
		}
		if t.Error != "" {
			o.Set("error", t.Error)
		}
		tasks = append(tasks, o)
	}
	return engine.NewObject("next", stringsValue(s.Next), "values", s.Values.ToValue(), "tasks", tasks, "metadata", metaValue(s.Metadata))
}

// stepInput reads an invoke input: {"messages": [...]}, null, {"resume": X}
// or {"command": {update, goto, resume}}.
func stepInput(raw any) (any, error) {
	if raw == nil {
		return nil, nil
	}
	o, ok := raw.(*engine.Object)
	if !ok {
		return nil, fmt.Errorf("input: expected an object or null")
	}
	if r, ok := o.Get("resume"); ok && o.Len() == 1 {
		return engine.Command{Resume: r}, nil
	}
	if c, ok := o.Get("command"); ok && o.Len() == 1 {
		co, ok := c.(*engine.Object)
		if !ok {
			return nil, fmt.Errorf("input.command: expected an object")
		}
		cmd := engine.Command{Resume: get(co, "resume"), Goto: gotoValue(get(co, "goto"))}
		if u := getObj(co, "update"); u != nil {
			cmd.Update = stateOf(u)
		}
		return cmd, nil
	}
	return stateOf(o), nil
}

func gotoValue(raw any) any {
	switch t := raw.(type) {
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return raw
}

func stateOf(o *engine.Object) engine.State {
	s := engine.State{}
	for _, k := range o.Keys() {
		s[k] = get(o, k)
	}
	return s
}

// updateValues reads update_state values; messages without a type are AI
// messages (the vectors' harness builds AIMessage(**m) for them).
func updateValues(raw any) (any, error) {
	o, ok := raw.(*engine.Object)
	if !ok {
		return raw, nil
	}
	s := stateOf(o)
	if list, ok := s["messages"].([]any); ok {
		msgs := make([]any, len(list))
		for i, e := range list {
			mo, ok := e.(*engine.Object)
			if ok && !mo.Has("type") && !mo.Has("role") {
				c := mo.Clone()
				c.Set("type", "ai")
				msgs[i] = c
				continue
			}
			msgs[i] = e
		}
		s["messages"] = msgs
	}
	return s, nil
}

// markPydantic records structured responses as the vectors record pydantic
// model instances: {"__pydantic__": name, ...fields}.
func markPydantic(v any, name string) {
	switch t := v.(type) {
	case *engine.Object:
		for _, k := range t.Keys() {
			x, _ := t.Get(k)
			if so, ok := x.(*engine.Object); ok && k == "structured_response" {
				m := engine.NewObject("__pydantic__", name)
				for _, kk := range so.Keys() {
					m.Set(kk, get(so, kk))
				}
				t.Set(k, m)
				continue
			}
			markPydantic(x, name)
		}
	case []any:
		for _, e := range t {
			markPydantic(e, name)
		}
	}
}
