package harness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

// auxRef is a provider model ("openai:gpt-4.1-mini") that a middleware
// option names in place of a scenario model, as LangChain's middleware
// take a model string (init_chat_model): the "model" of
// SummarizationMiddleware, LLMToolSelectorMiddleware or LLMToolEmulator,
// an entry of ModelFallbackMiddleware's "models".
type auxRef struct {
	name string // the model, as written
	path string // where it is written, for errors
}

// auxModelRefs lists the provider models the scenario's middleware
// options name, in file order; a name that is one of the scenario's
// models is that model, not a provider's.
func auxModelRefs(s *Scenario) []auxRef {
	var refs []auxRef
	add := func(v any, path string) {
		name, ok := v.(string)
		if !ok || !strings.Contains(name, ":") {
			return
		}
		if _, scripted := s.Models[name]; scripted {
			return
		}
		refs = append(refs, auxRef{name: name, path: path})
	}
	scan := func(path string, list []Middleware) {
		for i, m := range list {
			o, _ := m.Options.(*engine.Object)
			if o == nil {
				continue
			}
			base := fmt.Sprintf("%s[%d].options", path, i)
			if v, ok := o.Get("model"); ok {
				add(v, base+".model")
			}
			if v, ok := o.Get("models"); ok {
				list, _ := v.([]any)
				for j, e := range list {
					add(e, fmt.Sprintf("%s.models[%d]", base, j))
				}
			}
		}
	}
	scan("agent.middleware", s.Agent.Middleware)
	for i, n := range s.Agent.Nodes {
		scan(fmt.Sprintf("agent.nodes[%d].middleware", i), n.Middleware)
	}
	return refs
}

// providerModels builds the provider models the middleware options name,
// behind the scenario's cassette (opened here when the agent's model is
// scripted), metered with the agent's model; they join models under the
// names the options use.
func (st *setup) providerModels(s *Scenario, opts *Options, models map[string]engine.ChatModel) error {
	for _, ref := range auxModelRefs(s) {
		if models[ref.name] != nil {
			continue
		}
		if st.recorder == nil {
			if err := st.openCassette(s, opts, ref.name); err != nil {
				return err
			}
		}
		inner, err := llm.New(ref.name, st.llmOptions(s, opts))
		if err != nil {
			return fmt.Errorf("%s: %w", ref.path, err)
		}
		models[ref.name] = &meteredModel{inner: inner, name: modelID(ref.name), prices: opts.Prices, shared: st.model}
	}
	return nil
}

// checkAuxModels checks the provider models middleware options name: a
// known provider, and the base_url an openai-compatible one needs (it
// shares the agent's).
func (r *reader) checkAuxModels(s *Scenario) {
	for _, ref := range auxModelRefs(s) {
		provider, model, _ := strings.Cut(ref.name, ":")
		if !slices.Contains([]string{llm.ProviderOpenAI, llm.ProviderAnthropic, llm.ProviderOpenAICompatible}, provider) || model == "" {
			r.problem(ref.path, r.posOf(ref.path), modelMessage(ref.name))
			continue
		}
		if provider == llm.ProviderOpenAICompatible && s.Agent.BaseURL == "" {
			r.problem(ref.path, r.posOf(ref.path), `missing agent.base_url: an "openai-compatible" model answers from the agent's server`)
		}
	}
}
