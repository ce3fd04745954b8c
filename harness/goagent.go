package harness

import (
	"context"
	"errors"
	"fmt"

	"github.com/agenteval/agenteval/engine"
)

// GoAgent is an agent a Go program registers in Options.Agents, under the
// name scenarios give it (agent: {kind: go, name: support-bot}). Exactly
// one of Graph and Turn is set. Everything else in the scenario works as
// for the engine's own agents: the script or cassette answers env.Model,
// the scenario's tools are env.Tools, and the turns, expectations and
// golden transcripts apply.
type GoAgent struct {
	// Graph builds the agent as a graph of package engine (custom
	// nodes, a CreateAgent with the team's own middleware), compiled
	// with env.Checkpointer and env.Clock, once per scenario run. Its
	// state must hold the "messages" key.
	Graph func(env GoAgentEnv) (*engine.Graph, error)
	// Turn runs one turn of an agent of another Go framework: given the
	// thread's messages so far, the user's new message last, it calls
	// env.Model and env.Tools as it likes and returns the messages the
	// turn added (AI and tool messages) in order. The runner holds the
	// thread: Turn is one node ("agent") of a graph it builds around it.
	Turn func(ctx context.Context, env GoAgentEnv, messages []engine.Message) ([]engine.Message, error)
}

// GoAgentEnv is what a Go agent gets from its scenario.
type GoAgentEnv struct {
	// Model is the scenario's model: scripted, or a provider model
	// behind the scenario's cassette, metered for max_model_calls,
	// max_tokens and max_cost.
	Model engine.ChatModel
	// Tools are the scenario's tools (scripted, emulated or registered
	// Go tools). max_tool_calls counts the tool messages the agent's
	// nodes add (a Turn agent's: those it returns), as the tool node of
	// an engine agent answers them; the transcript's "tool runs" counts
	// the calls of these tools' functions, retries included.
	Tools []engine.Tool
	// Checkpointer keeps the scenario's threads; nil when agent.checkpointer
	// is false.
	Checkpointer engine.Checkpointer
	// Clock is the scenario's virtual clock.
	Clock engine.Clock
	// Prompt is the scenario's agent.prompt, for agents that take one.
	Prompt string
}

// validate reports a registration that sets neither or both functions.
func (a GoAgent) validate() error {
	switch {
	case a.Graph == nil && a.Turn == nil:
		return errors.New("sets neither Graph nor Turn")
	case a.Graph != nil && a.Turn != nil:
		return errors.New("sets both Graph and Turn: give one")
	}
	return nil
}

// buildGoAgent builds the graph of a "go" scenario's registered agent.
func buildGoAgent(s *Scenario, opts *Options, env GoAgentEnv) (*engine.Graph, error) {
	reg, ok := opts.Agents[s.Agent.Name]
	if !ok {
		return nil, fmt.Errorf("agent.name: no Go agent named %q is registered (Options.Agents)", s.Agent.Name)
	}
	if reg.Graph != nil {
		g, err := reg.Graph(env)
		if err != nil {
			return nil, fmt.Errorf("agent %q: %w", s.Agent.Name, err)
		}
		if g == nil {
			return nil, fmt.Errorf("agent %q: Graph returned no graph", s.Agent.Name)
		}
		return g, nil
	}
	return turnGraph(reg.Turn, env)
}

// turnGraph wraps a turn function in a graph of one node, "agent", whose
// update appends the turn's messages to the thread (add_messages).
func turnGraph(turn func(context.Context, GoAgentEnv, []engine.Message) ([]engine.Message, error), env GoAgentEnv) (*engine.Graph, error) {
	g := engine.NewStateGraph(engine.MessagesField("messages"))
	g.AddNode("agent", func(ctx context.Context, state engine.State) (any, error) {
		added, err := turn(ctx, env, state.Messages("messages"))
		if err != nil {
			return nil, err
		}
		return engine.State{"messages": added}, nil
	})
	g.SetEntryPoint("agent")
	g.AddEdge("agent", engine.End)
	return g.Compile(engine.CompileOptions{Checkpointer: env.Checkpointer, Clock: env.Clock})
}
