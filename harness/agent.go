package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/engine/middleware"
)

// setup is one scenario's agent, built and ready to run.
type setup struct {
	graph    *engine.Graph
	limit    int
	model    *meteredModel
	tools    []*scriptedTool
	toolUses atomic.Int64
	recorder *cassette.Recorder
	cassette string
	clock    *virtualClock
}

// build makes the scenario's agent: its model (scripted, or a provider
// behind the scenario's cassette), tools and middleware.
func build(s *Scenario, opts *Options) (*setup, error) {
	st := &setup{clock: newVirtualClock()}
	inner, err := st.buildModel(s, opts)
	if err != nil {
		return nil, err
	}
	st.model = &meteredModel{inner: inner, name: modelID(s.Agent.Model), prices: opts.Prices}

	tools, err := st.buildTools(s, opts)
	if err != nil {
		return nil, err
	}
	var cp engine.Checkpointer
	if s.Agent.Checkpointer == nil || *s.Agent.Checkpointer {
		cp = checkpoint.NewMemory()
	}
	switch s.Agent.Kind {
	case "", "react":
		st.limit = engine.DefaultRecursionLimit
		cfg := engine.ReactAgentConfig{
			Model: st.model, Tools: tools, Checkpointer: cp,
			InterruptBefore: s.Agent.InterruptBefore, InterruptAfter: s.Agent.InterruptAfter,
			Version: s.Agent.Version, Name: s.Agent.Name, Clock: st.clock,
		}
		if s.Agent.Prompt != "" {
			cfg.Prompt = engine.PromptText(s.Agent.Prompt)
		}
		switch h := s.Agent.HandleToolErrors.(type) {
		case nil:
		case bool:
			cfg.ToolNodeOptions.HandleToolErrors = engine.ToolErrors{Disabled: !h}
		case string:
			cfg.ToolNodeOptions.HandleToolErrors = engine.ToolErrors{Message: h}
		default:
			return nil, fmt.Errorf("agent.handle_tool_errors: expected true, false or a message")
		}
		if rf := s.Agent.ResponseFormat; rf != nil {
			schema, _ := rf.Schema.(*engine.Object)
			cfg.ResponseFormat = &engine.ResponseFormat{Schema: schema, Validate: rf.Validate}
		}
		st.graph, err = engine.CreateReactAgent(cfg)
	case "agent":
		st.limit = engine.AgentRecursionLimit
		mws, merr := buildMiddleware(s, opts, st)
		if merr != nil {
			return nil, merr
		}
		cfg := engine.AgentConfig{
			Model: st.model, Tools: tools, SystemPrompt: s.Agent.Prompt, Middleware: mws,
			Checkpointer: cp, InterruptBefore: s.Agent.InterruptBefore, InterruptAfter: s.Agent.InterruptAfter,
			Name: s.Agent.Name, Clock: st.clock,
		}
		if rf := s.Agent.ResponseFormat; rf != nil {
			schema, _ := rf.Schema.(*engine.Object)
			cfg.ResponseFormat = &engine.AgentResponseFormat{Strategy: rf.Strategy, Schema: schema, Validate: rf.Validate}
		}
		st.graph, err = engine.CreateAgent(cfg)
	default:
		return nil, fmt.Errorf("agent.kind: unknown kind %q", s.Agent.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("build agent: %w", err)
	}
	if s.Agent.RecursionLimit > 0 {
		st.limit = s.Agent.RecursionLimit
	}
	return st, nil
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

func (st *setup) buildModel(s *Scenario, opts *Options) (engine.ChatModel, error) {
	if s.Agent.Model == "" || s.Agent.Model == "scripted" {
		if s.Script == nil {
			return nil, errors.New("script: a scripted model needs a script")
		}
		script, err := parseScript(s.Script)
		if err != nil {
			return nil, fmt.Errorf("script: %w", err)
		}
		return llm.NewScripted("model", script), nil
	}
	path := filepath.Join(opts.CassetteDir, filepath.FromSlash(s.Rel)+".yaml")
	st.cassette = filepath.ToSlash(path)
	rec, err := cassette.Open(path, cassette.Options{Mode: opts.Mode, Scenario: s.Name, Transport: opts.Transport, Overwrite: opts.Mode == cassette.ModeRecord})
	if err != nil {
		return nil, err
	}
	st.recorder = rec
	lopts := llm.Options{HTTPClient: rec.Client(), Replay: opts.Mode == cassette.ModeReplay, BaseURL: s.Agent.BaseURL, LookupEnv: opts.LookupEnv}
	if lopts.Replay && lopts.LookupEnv == nil {
		// a replay sends no key, so none is read
		lopts.LookupEnv = func(string) (string, bool) { return "", false }
	}
	m, err := llm.New(s.Agent.Model, lopts)
	if err != nil {
		return nil, fmt.Errorf("agent.model: %w", err)
	}
	return m, nil
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
		switch {
		case spec.Go:
			reg, ok := opts.Tools[spec.Name]
			if !ok {
				return nil, fmt.Errorf("tools[%d] (%s): go: no Go tool named %q is registered (Options.Tools)", i, spec.Name, spec.Name)
			}
			t = reg
		case spec.Emulate != nil:
			return nil, fmt.Errorf("tools[%d] (%s): emulate: tool emulation is not available in this build; use results, or LLMToolEmulator middleware", i, spec.Name)
		default:
			sc, err := newScriptedTool(i, spec)
			if err != nil {
				return nil, err
			}
			st.tools = append(st.tools, sc)
			params, _ := spec.Parameters.(*engine.Object)
			if params == nil {
				params = engine.NewObject("type", "object", "properties", engine.NewObject())
			}
			t = engine.NewTool(engine.ToolDef{Name: spec.Name, Description: spec.Description, Parameters: params, ReturnDirect: spec.ReturnDirect}, sc.call)
		}
		tools = append(tools, countingTool{Tool: t, calls: &st.toolUses})
	}
	return tools, nil
}

func buildMiddleware(s *Scenario, opts *Options, st *setup) ([]engine.Middleware, error) {
	models := map[string]engine.ChatModel{}
	for _, name := range slices.Sorted(mapsKeys(s.Models)) {
		script, err := parseScript(s.Models[name])
		if err != nil {
			return nil, fmt.Errorf("models.%s: %w", name, err)
		}
		models[name] = &meteredModel{inner: llm.NewScripted(name, script), name: name, prices: opts.Prices, shared: st.model, aux: true}
	}
	var out []engine.Middleware
	for i, m := range s.Agent.Middleware {
		o, _ := m.Options.(*engine.Object)
		if o == nil {
			o = engine.NewObject()
		}
		mw, err := middleware.Build(m.Type, o, middleware.BuildOptions{Models: models})
		if err != nil {
			return nil, fmt.Errorf("agent.middleware[%d] (%s): %w", i, m.Type, err)
		}
		out = append(out, mw)
	}
	return out, nil
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// meteredModel counts a model's calls and tokens and prices them. Models
// named in a scenario's models (summarizers, emulators, selectors) count
// into the agent's model's meter, marked aux.
type meteredModel struct {
	inner  engine.ChatModel
	name   string
	prices llm.PriceTable
	shared *meteredModel
	aux    bool

	mu       sync.Mutex
	calls    int
	auxCalls int
	usage    engine.Usage
	cost     float64
	unknown  bool
}

// Generate implements engine.ChatModel.
func (m *meteredModel) Generate(ctx context.Context, req engine.ModelRequest) (engine.Message, error) {
	msg, err := m.inner.Generate(ctx, req)
	meter := m
	if m.shared != nil {
		meter = m.shared
	}
	meter.mu.Lock()
	defer meter.mu.Unlock()
	meter.calls++
	if m.aux {
		meter.auxCalls++
	}
	if err == nil && msg.UsageMetadata != nil {
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
				meter.cost += c
			} else {
				meter.unknown = true
			}
		}
	}
	return msg, err
}

// ModelName implements engine.ModelInfo when the inner model does.
func (m *meteredModel) ModelName() string {
	if mi, ok := m.inner.(engine.ModelInfo); ok {
		return mi.ModelName()
	}
	return ""
}

// Name is the inner model's name.
func (m *meteredModel) Name() string {
	if n, ok := m.inner.(interface{ Name() string }); ok {
		return n.Name()
	}
	return m.name
}
