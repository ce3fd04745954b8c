package harness

import (
	"fmt"
	"slices"

	"github.com/agenteval/agenteval/engine"
)

// buildGraph builds a "graph" agent as a LangGraph user writes one with
// prebuilt agents as nodes:
//
//	builder = StateGraph(MessagesState)
//	builder.add_node("researcher", create_react_agent(model, tools, name="researcher"))
//	builder.add_edge(START, "researcher") ...
//
// Each node's agent is compiled without a checkpointer of its own, so as
// a subgraph it keeps its checkpoints in the graph's, under its task's
// namespace; the nodes run in order from START to END. The state is
// MessagesState, with structured_response (the last written) when a node
// asks for a structured response.
func (st *setup) buildGraph(s *Scenario, tools []engine.Tool, cp engine.Checkpointer, models map[string]engine.ChatModel, groups []emulatedGroup) (*engine.Graph, error) {
	fields := []engine.Field{engine.MessagesField("messages")}
	if slices.ContainsFunc(s.Agent.Nodes, func(n Node) bool { return n.ResponseFormat != nil }) {
		fields = append(fields, engine.ValueField("structured_response"))
	}
	g := engine.NewStateGraph(fields...)
	prev := engine.Start
	for i, n := range s.Agent.Nodes {
		spec, err := st.nodeSpec(s, i, tools, models, groups)
		if err != nil {
			return nil, err
		}
		var sub *engine.Graph
		switch n.Kind {
		case "", "react":
			sub, err = st.buildReact(spec)
		case "agent":
			sub, err = st.buildCreateAgent(spec, models)
		default:
			err = fmt.Errorf("%s.kind: unknown kind %q", spec.path, n.Kind)
		}
		if err != nil {
			return nil, err
		}
		g.AddSubgraph(n.Name, sub)
		g.AddEdge(prev, n.Name)
		prev = n.Name
	}
	g.AddEdge(prev, engine.End)
	compiled, err := g.Compile(engine.CompileOptions{
		Checkpointer: cp, InterruptBefore: s.Agent.InterruptBefore, InterruptAfter: s.Agent.InterruptAfter, Clock: st.clock,
	})
	if err != nil {
		return nil, fmt.Errorf("build agent: %w", err)
	}
	return compiled, nil
}

// nodeSpec is the agent of node i of a "graph" agent: its model (the
// scenario's, or a scripted one from models), the tools it names (all by
// default) with their emulation, and its own settings.
func (st *setup) nodeSpec(s *Scenario, i int, tools []engine.Tool, models map[string]engine.ChatModel, groups []emulatedGroup) (agentSpec, error) {
	n := &s.Agent.Nodes[i]
	spec := agentSpec{
		path: fmt.Sprintf("agent.nodes[%d]", i), model: st.model.chat(), name: n.Name, prompt: n.Prompt, version: n.Version,
		responseFormat: n.ResponseFormat, middleware: n.Middleware, interruptBefore: n.InterruptBefore, interruptAfter: n.InterruptAfter,
		handleToolErrors: n.HandleToolErrors,
	}
	if n.Model != "" {
		m, ok := models[n.Model]
		if !ok {
			return spec, fmt.Errorf("%s.model: no model %q in models", spec.path, n.Model)
		}
		spec.model = chatModel(m)
	}
	has := func(string) bool { return true }
	if n.Tools != nil {
		has = func(name string) bool { return slices.Contains(*n.Tools, name) }
	}
	for j, t := range s.Tools {
		if has(t.Name) {
			spec.tools = append(spec.tools, tools[j])
		}
	}
	for _, g := range groups {
		mine := emulatedGroup{model: g.model}
		for _, name := range g.tools {
			if has(name) {
				mine.tools = append(mine.tools, name)
			}
		}
		if len(mine.tools) > 0 {
			spec.groups = append(spec.groups, mine)
		}
	}
	return spec, nil
}
