package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/emulator"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/engine/middleware"
)

// setup is one scenario's agent, built and ready to run.
type setup struct {
	graph *engine.Graph
	limit int
	model *meteredModel
	// judges meters the calls of expect.graders' judges, which count
	// into the result's usage after the graders ran (judgeUsage).
	judges meteredModel
	tools  []*scriptedTool
	// abandoned lists the Go tool calls given up on (boundedTool).
	abandoned abandonLog
	recorder  *cassette.Recorder
	cassette  string
	// judgeClient, when set, carries provider judges' calls instead of
	// the recorder's own client (a command scenario marks them).
	judgeClient *http.Client
	clock       *virtualClock
	// scripted are the scripted models by name ("model" for the agent's),
	// whose call counts a durable thread keeps.
	scripted map[string]*llm.Scripted
	// db is the scenario's durable state (Options.StateDir), nil in
	// memory.
	db       *checkpoint.SQLite
	toolRuns atomic.Int64
	// anyToolNode is set for a Go agent, whose graph is its own: a tool
	// call is a tool message any of its nodes added (see toolCalls),
	// not only one of a node named "tools".
	anyToolNode bool
	// workspace is the run's copy of the scenario's workspace, "" when
	// it has none; closers are the middleware to close when the run ends
	// (shell sessions left by interrupted runs).
	workspace string
	closers   []io.Closer
}

// release closes the middleware, then removes the workspace copy.
func (st *setup) release() error {
	var errs []error
	for _, c := range st.closers {
		errs = append(errs, c.Close())
	}
	st.closers = nil
	if st.workspace != "" {
		errs = append(errs, os.RemoveAll(st.workspace))
		st.workspace = ""
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	return nil
}

// build makes the scenario's agent: its model (scripted, or a provider
// behind the scenario's cassette), tools and middleware.
func build(ctx context.Context, s *Scenario, opts *Options, resume bool) (_ *setup, err error) {
	st := &setup{clock: newVirtualClock(), scripted: map[string]*llm.Scripted{}}
	if err := st.openState(ctx, s, opts, resume); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil && st.db != nil {
			st.db.Close()
		}
		if err != nil {
			st.release()
		}
	}()
	if st.workspace, err = makeWorkspace(s); err != nil {
		return nil, err
	}
	inner, err := st.buildModel(ctx, s, opts)
	if err != nil {
		return nil, err
	}
	if opts.WrapModel != nil {
		inner = opts.WrapModel(inner)
	}
	if j := providerJudge(s); j != "" && st.recorder == nil && !resume {
		if err := st.openCassette(s, opts, j); err != nil {
			return nil, err
		}
	}
	st.model = &meteredModel{inner: inner, name: modelID(s.Agent.Model), prices: opts.Prices}

	tools, err := st.buildTools(s, opts)
	if err != nil {
		return nil, err
	}
	models, err := st.namedModels(ctx, s, opts)
	if err != nil {
		return nil, err
	}
	groups, err := st.emulation(s, opts, models)
	if err != nil {
		return nil, err
	}
	var cp engine.Checkpointer
	switch {
	case st.db != nil:
		cp = st.db
	case s.Agent.Checkpointer == nil || *s.Agent.Checkpointer:
		cp = checkpoint.NewMemory()
	}
	switch s.Agent.Kind {
	case "", "react":
		st.limit = engine.DefaultRecursionLimit
		st.graph, err = st.buildReact(topSpec(s, st.model.chat(), tools, cp, groups))
	case "agent":
		st.limit = engine.AgentRecursionLimit
		st.graph, err = st.buildCreateAgent(topSpec(s, st.model.chat(), tools, cp, groups), models)
	case "graph":
		st.limit = engine.DefaultRecursionLimit
		st.graph, err = st.buildGraph(s, tools, cp, models, groups)
	case "go":
		st.limit = engine.DefaultRecursionLimit
		st.anyToolNode = true
		if st.graph, err = buildGoAgent(s, opts, GoAgentEnv{Model: st.model.chat(), Tools: tools, Checkpointer: cp, Clock: st.clock, Prompt: s.Agent.Prompt}); err != nil {
			err = fmt.Errorf("build agent: %w", err)
		}
	case "command":
		return nil, errors.New(`agent.kind: a "command" agent runs through Run and RunScenario only`)
	default:
		return nil, fmt.Errorf("agent.kind: unknown kind %q", s.Agent.Kind)
	}
	if err != nil {
		return nil, err
	}
	if s.Agent.RecursionLimit > 0 {
		st.limit = s.Agent.RecursionLimit
	}
	return st, nil
}

// agentSpec is what buildReact and buildCreateAgent build an agent from:
// the scenario's agent, or a node of a "graph" agent.
type agentSpec struct {
	// path is the spec's field in the file ("agent", "agent.nodes[1]"),
	// for errors.
	path             string
	model            engine.ChatModel
	tools            []engine.Tool
	prompt, name     string
	version          string
	responseFormat   *ResponseFormat
	middleware       []Middleware
	interruptBefore  []string
	interruptAfter   []string
	handleToolErrors any
	checkpointer     engine.Checkpointer
	groups           []emulatedGroup
}

// topSpec is the scenario's own agent.
func topSpec(s *Scenario, model engine.ChatModel, tools []engine.Tool, cp engine.Checkpointer, groups []emulatedGroup) agentSpec {
	a := &s.Agent
	return agentSpec{
		path: "agent", model: model, tools: tools, prompt: a.Prompt, name: a.Name, version: a.Version,
		responseFormat: a.ResponseFormat, middleware: a.Middleware, interruptBefore: a.InterruptBefore, interruptAfter: a.InterruptAfter,
		handleToolErrors: a.HandleToolErrors, checkpointer: cp, groups: groups,
	}
}

// buildReact builds create_react_agent.
func (st *setup) buildReact(a agentSpec) (*engine.Graph, error) {
	cfg := engine.ReactAgentConfig{
		Model: a.model, Tools: a.tools, Checkpointer: a.checkpointer,
		InterruptBefore: a.interruptBefore, InterruptAfter: a.interruptAfter,
		Version: a.version, Name: a.name, Clock: st.clock,
	}
	if a.prompt != "" {
		cfg.Prompt = engine.PromptText(a.prompt)
	}
	for _, g := range a.groups {
		w, err := emulator.Wrapper(g.model, g.tools)
		if err != nil {
			return nil, err
		}
		cfg.ToolNodeOptions.Wrap = emulator.Chain(cfg.ToolNodeOptions.Wrap, w)
	}
	switch h := a.handleToolErrors.(type) {
	case nil:
	case bool:
		cfg.ToolNodeOptions.HandleToolErrors = engine.ToolErrors{Disabled: !h}
	case string:
		cfg.ToolNodeOptions.HandleToolErrors = engine.ToolErrors{Message: h}
	default:
		return nil, fmt.Errorf("%s.handle_tool_errors: expected true, false or a message", a.path)
	}
	if rf := a.responseFormat; rf != nil {
		schema, _ := rf.Schema.(*engine.Object)
		cfg.ResponseFormat = &engine.ResponseFormat{Schema: schema, Validate: rf.Validate}
	}
	g, err := engine.CreateReactAgent(cfg)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", a.path, err)
	}
	return g, nil
}

// buildCreateAgent builds create_agent with its middleware.
func (st *setup) buildCreateAgent(a agentSpec, models map[string]engine.ChatModel) (*engine.Graph, error) {
	mws, merr := buildMiddleware(a, models, st.workspace)
	if merr != nil {
		return nil, merr
	}
	for _, mw := range mws {
		if c, ok := mw.(io.Closer); ok {
			st.closers = append(st.closers, c)
		}
	}
	cfg := engine.AgentConfig{
		Model: a.model, Tools: a.tools, SystemPrompt: a.prompt, Middleware: mws,
		Checkpointer: a.checkpointer, InterruptBefore: a.interruptBefore, InterruptAfter: a.interruptAfter,
		Name: a.name, Clock: st.clock,
	}
	if rf := a.responseFormat; rf != nil {
		schema, _ := rf.Schema.(*engine.Object)
		cfg.ResponseFormat = &engine.AgentResponseFormat{Strategy: rf.Strategy, Schema: schema, Validate: rf.Validate}
	}
	g, err := engine.CreateAgent(cfg)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", a.path, err)
	}
	return g, nil
}

// modelID is the model's id for prices: what follows the provider.
func modelID(name string) string {
	if name == "" {
		return "scripted"
	}
	if _, id, ok := strings.Cut(name, ":"); ok {
		return id
	}
	return name
}

func (st *setup) buildModel(ctx context.Context, s *Scenario, opts *Options) (engine.ChatModel, error) {
	if s.Agent.Model == "" || s.Agent.Model == "scripted" {
		var script llm.Script
		switch {
		case s.Script != nil:
			var err error
			if script, err = parseScript(s.Script); err != nil {
				return nil, fmt.Errorf("script: %w", err)
			}
		case usesScenarioModel(s):
			return nil, errors.New("script: a scripted model needs a script")
		}
		// without a script (a graph whose nodes all have models of their
		// own) the model is never called
		m := llm.NewScripted("model", st.skipAnswered(ctx, "model", script)).WithRequestLog(0) // only the count is read
		st.scripted["model"] = m
		return m, nil
	}
	if err := st.openCassette(s, opts, s.Agent.Model); err != nil {
		return nil, err
	}
	lopts := st.llmOptions(s, opts)
	m, err := llm.New(s.Agent.Model, lopts)
	if err != nil {
		return nil, fmt.Errorf("agent.model: %w", err)
	}
	return m, nil
}

// openCassette opens the scenario's cassette, which the provider model
// named (the agent's, or a judge's) is the first to need.
func (st *setup) openCassette(s *Scenario, opts *Options, model string) error {
	path := CassettePath(opts.CassetteDir, s)
	st.cassette = filepath.ToSlash(path)
	rec, err := cassette.Open(path, cassette.Options{Mode: opts.Mode, Scenario: s.Name, Transport: opts.Transport, Overwrite: opts.Overwrite, Limits: opts.CassetteLimits})
	if errors.Is(err, cassette.ErrCassetteNotFound) {
		return fmt.Errorf("%w (a %s model replays from its cassette: record it once with --mode record or replay-or-record)", err, model)
	}
	if err != nil {
		return err
	}
	st.recorder = rec
	return nil
}

// llmOptions are the options of a provider model answered from the
// scenario's cassette.
func (st *setup) llmOptions(s *Scenario, opts *Options) llm.Options {
	lopts := llm.Options{HTTPClient: st.recorder.Client(), Replay: opts.Mode == cassette.ModeReplay, BaseURL: s.Agent.BaseURL, LookupEnv: opts.LookupEnv}
	if lopts.Replay && lopts.LookupEnv == nil {
		// a replay sends no key, so none is read
		lopts.LookupEnv = func(string) (string, bool) { return "", false }
	}
	return lopts
}

func parseScript(v any) (llm.Script, error) {
	data, err := engine.MarshalValue(v)
	if err != nil {
		return llm.Script{}, err
	}
	return llm.ParseScript(data)
}

func (st *setup) buildTools(s *Scenario, opts *Options) ([]engine.Tool, error) {
	var tools []engine.Tool
	for i := range s.Tools {
		spec := &s.Tools[i]
		var t engine.Tool
		if spec.Go {
			reg, ok := opts.Tools[spec.Name]
			if !ok {
				return nil, fmt.Errorf("tools[%d] (%s): go: no Go tool named %q is registered (Options.Tools)", i, spec.Name, spec.Name)
			}
			t = reg
			if spec.Latency != nil {
				def := reg.Definition()
				t = engine.NewTool(def, withLatency(reg.Invoke, spec.Name, *spec.Latency, 0))
			}
			timeout, _ := time.ParseDuration(spec.Timeout) // checked at load
			t = &boundedTool{Tool: t, index: i, name: spec.Name, timeout: timeout, grace: opts.ToolGrace, after: opts.After, abandoned: &st.abandoned}
		} else {
			fn, err := st.toolFunc(i, spec)
			if err != nil {
				return nil, err
			}
			if spec.Latency != nil {
				seed := uint64(0)
				if spec.Emulate != nil {
					seed = uint64(spec.Emulate.Seed)
				}
				if timeout, _ := time.ParseDuration(spec.Timeout); timeout > 0 {
					fn = withLatencyTimeout(fn, i, spec.Name, *spec.Latency, seed, timeout)
				} else {
					fn = withLatency(fn, spec.Name, *spec.Latency, seed)
				}
			}
			params, _ := spec.Parameters.(*engine.Object)
			if params == nil {
				params = engine.NewObject("type", "object", "properties", engine.NewObject())
			}
			t = engine.NewTool(engine.ToolDef{Name: spec.Name, Description: spec.Description, Parameters: params, ReturnDirect: spec.ReturnDirect}, fn)
		}
		tools = append(tools, countingTool{Tool: t, runs: &st.toolRuns})
	}
	return tools, nil
}

// emulatedGroup is the tools one model emulates.
type emulatedGroup struct {
	model engine.ChatModel
	tools []string
}

// emulation groups the model-emulated tools by their emulating model, in
// the order the tools are declared: the agent's own model, a scripted one
// from models, or a provider model behind the scenario's cassette.
func (st *setup) emulation(s *Scenario, opts *Options, models map[string]engine.ChatModel) ([]emulatedGroup, error) {
	var groups []emulatedGroup
	index := map[string]int{}
	for i, t := range s.Tools {
		if t.Emulate == nil || t.Emulate.Output != nil {
			continue
		}
		key := t.Emulate.Model
		if key == "" {
			key = "agent"
		}
		g, ok := index[key]
		if !ok {
			var m engine.ChatModel
			switch {
			case key == "agent":
				m = &meteredModel{inner: st.model.inner, name: st.model.name, prices: opts.Prices, shared: st.model, emulated: true}
			case models[key] != nil:
				m = models[key]
				if mm, ok := m.(*meteredModel); ok {
					m = &meteredModel{inner: mm.inner, name: mm.name, prices: opts.Prices, shared: st.model, emulated: true}
				}
			case strings.Contains(key, ":"):
				if st.recorder == nil {
					// the emulator answers from the scenario's cassette, as
					// the agent's model would
					if err := st.openCassette(s, opts, key); err != nil {
						return nil, err
					}
				}
				inner, err := llm.New(key, st.llmOptions(s, opts))
				if err != nil {
					return nil, fmt.Errorf("tools[%d] (%s): emulate.model: %w", i, t.Name, err)
				}
				m = &meteredModel{inner: inner, name: modelID(key), prices: opts.Prices, shared: st.model, emulated: true}
			default:
				return nil, fmt.Errorf("tools[%d] (%s): emulate.model: no model %q in models", i, t.Name, key)
			}
			g = len(groups)
			index[key] = g
			groups = append(groups, emulatedGroup{model: chatModel(m)})
		}
		groups[g].tools = append(groups[g].tools, t.Name)
	}
	return groups, nil
}

// namedModels builds the scenario's models (summarizers, selectors,
// fallbacks, emulators), metered with the agent's model: the scripted
// ones of models, and the provider models middleware options name.
func (st *setup) namedModels(ctx context.Context, s *Scenario, opts *Options) (map[string]engine.ChatModel, error) {
	models := map[string]engine.ChatModel{}
	for _, name := range slices.Sorted(maps.Keys(s.Models)) {
		script, err := parseScript(s.Models[name])
		if err != nil {
			return nil, fmt.Errorf("models.%s: %w", name, err)
		}
		m := llm.NewScripted(name, st.skipAnswered(ctx, name, script)).WithRequestLog(0)
		st.scripted[name] = m
		models[name] = &meteredModel{inner: m, name: name, prices: opts.Prices, shared: st.model}
	}
	if err := st.providerModels(s, opts, models); err != nil {
		return nil, err
	}
	return models, nil
}

func buildMiddleware(a agentSpec, models map[string]engine.ChatModel, workspace string) ([]engine.Middleware, error) {
	chat := make(map[string]engine.ChatModel, len(models))
	for name, m := range models {
		chat[name] = chatModel(m)
	}
	var out []engine.Middleware
	for i, m := range a.middleware {
		o, _ := m.Options.(*engine.Object)
		if o == nil {
			o = engine.NewObject()
		}
		mw, err := middleware.Build(m.Type, o, middleware.BuildOptions{Models: chat, Dir: workspace})
		if err != nil {
			closeAll(out)
			return nil, fmt.Errorf("%s.middleware[%d] (%s): %w", a.path, i, m.Type, err)
		}
		out = append(out, mw)
	}
	for _, g := range a.groups {
		mw, err := emulator.Middleware(g.model, g.tools)
		if err != nil {
			closeAll(out)
			return nil, err
		}
		out = append(out, mw)
	}
	return out, nil
}

// closeAll closes the middleware that hold resources.
func closeAll(mws []engine.Middleware) {
	for _, mw := range mws {
		if c, ok := mw.(io.Closer); ok {
			c.Close()
		}
	}
}

// meteredModel counts a model's calls and tokens and prices them. The
// other models of a scenario (summarizers, selectors, tool emulators)
// count into the agent's model's meter (shared); an emulator's calls are
// also counted as emulated.
type meteredModel struct {
	inner    engine.ChatModel
	name     string
	prices   llm.PriceTable
	shared   *meteredModel
	emulated bool
	// judge marks a scripted judge: its calls count, its made-up usage
	// does not.
	judge bool

	mu            sync.Mutex
	calls         int
	emulatedCalls int
	usage         engine.Usage
	costs         []float64 // per call, summed in a fixed order by cost()
	unknown       bool
}

// Generate implements engine.ChatModel.
func (m *meteredModel) Generate(ctx context.Context, req engine.ModelRequest) (engine.Message, error) {
	msg, err := m.inner.Generate(ctx, req)
	m.record(msg, err)
	return msg, err
}

// chat is m as the engine is given it: a StreamingChatModel when its
// inner model streams and a ModelProvider when that names its provider,
// so that the "messages" stream mode gets the inner model's chunks and
// ls_provider.
func (m *meteredModel) chat() engine.ChatModel {
	_, streams := m.inner.(engine.StreamingChatModel)
	_, provides := m.inner.(engine.ModelProvider)
	switch {
	case streams && provides:
		return streamingProviderModel{streamingModel{m}}
	case streams:
		return streamingModel{m}
	case provides:
		return providerModel{m}
	}
	return m
}

// chatModel is a scenario model as the engine is given it (see chat).
func chatModel(m engine.ChatModel) engine.ChatModel {
	if mm, ok := m.(*meteredModel); ok {
		return mm.chat()
	}
	return m
}

// streamingModel is a metered model whose inner model streams.
type streamingModel struct{ *meteredModel }

// GenerateStream implements engine.StreamingChatModel: the inner model's
// chunks, the call metered as Generate meters it.
func (m streamingModel) GenerateStream(ctx context.Context, req engine.ModelRequest, onChunk func(engine.Message) error) (engine.Message, error) {
	msg, err := m.inner.(engine.StreamingChatModel).GenerateStream(ctx, req, onChunk)
	m.record(msg, err)
	return msg, err
}

// providerModel is a metered model whose inner model names its provider.
type providerModel struct{ *meteredModel }

// ModelProvider implements engine.ModelProvider.
func (m providerModel) ModelProvider() string {
	return m.inner.(engine.ModelProvider).ModelProvider()
}

// streamingProviderModel is both.
type streamingProviderModel struct{ streamingModel }

// ModelProvider implements engine.ModelProvider.
func (m streamingProviderModel) ModelProvider() string {
	return m.inner.(engine.ModelProvider).ModelProvider()
}

// record meters one call: its count, tokens and cost.
func (m *meteredModel) record(msg engine.Message, err error) {
	meter := m
	if m.shared != nil {
		meter = m.shared
	}
	meter.mu.Lock()
	defer meter.mu.Unlock()
	meter.calls++
	if m.emulated {
		meter.emulatedCalls++
	}
	if err == nil && msg.UsageMetadata != nil && !m.judge {
		u := msg.UsageMetadata
		meter.usage.InputTokens += u.InputTokens
		meter.usage.OutputTokens += u.OutputTokens
		meter.usage.TotalTokens += u.TotalTokens
		name := m.name
		if msg.ResponseMetadata != nil {
			if n, ok := msg.ResponseMetadata.Get("model_name"); ok {
				if s, ok := n.(string); ok && s != "" {
					name = s
				}
			}
		}
		if u.TotalTokens > 0 {
			if c, ok := m.prices.Cost(name, u); ok {
				meter.costs = append(meter.costs, c)
			} else {
				meter.unknown = true
			}
		}
	}
}

// cost is the total cost of the calls, summed smallest first so that the
// total does not depend on the order parallel calls (tool emulators)
// finished in. The caller holds mu.
func (m *meteredModel) cost() float64 {
	return sumSmallestFirst(slices.Clone(m.costs))
}

// sumSmallestFirst sorts costs and sums them smallest first.
func sumSmallestFirst(costs []float64) float64 {
	slices.Sort(costs)
	total := 0.0
	for _, c := range costs {
		total += c
	}
	return total
}

// ModelName implements engine.ModelInfo when the inner model does.
func (m *meteredModel) ModelName() string {
	if mi, ok := m.inner.(engine.ModelInfo); ok {
		return mi.ModelName()
	}
	return ""
}

// StructuredOutputMethod implements engine.StructuredOutputModel when the
// inner model does ("" otherwise: a forced tool call).
func (m *meteredModel) StructuredOutputMethod() string {
	if so, ok := m.inner.(engine.StructuredOutputModel); ok {
		return so.StructuredOutputMethod()
	}
	return ""
}
