package harness

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// graphOnNode are the agent fields a "graph" agent takes from its nodes,
// each agent its own.
var graphOnNode = []string{"prompt", "name", "version", "response_format", "middleware", "handle_tool_errors"}

// checkGraph checks a "graph" agent and its nodes: nodes only on that
// kind, the fields that belong to a node not on the graph, a
// checkpointer (the runner reads the subgraphs' steps from it), unique node
// names that are not LangGraph's reserved ones, node models and tools
// that exist, middleware on "agent" nodes only, and each node's
// middleware options.
func (r *reader) checkGraph(s *Scenario) {
	a := &s.Agent
	if a.Kind != "graph" {
		if a.Nodes != nil {
			r.problem("agent.nodes", r.keyPosOf("agent.nodes"), fmt.Sprintf(`only for agent.kind "graph", not %q`, kindOrReact(a.Kind)))
		}
		return
	}
	if len(a.Nodes) == 0 && r.pos["agent.nodes"] == (Position{}) {
		r.problem("agent.nodes", r.posOf("agent.kind"), `missing: a "graph" agent lists its nodes, each an agent: nodes: [{name: researcher, prompt: ...}]`)
	}
	set := map[string]bool{"prompt": a.Prompt != "", "name": a.Name != "", "version": a.Version != "", "response_format": a.ResponseFormat != nil,
		"middleware": a.Middleware != nil, "handle_tool_errors": a.HandleToolErrors != nil}
	for _, f := range graphOnNode {
		if set[f] {
			r.problem("agent."+f, r.keyPosOf("agent."+f), `not for a "graph" agent: set it on the node whose agent it configures (agent.nodes[i].`+f+`)`)
		}
	}
	if a.Checkpointer != nil && !*a.Checkpointer {
		r.problem("agent.checkpointer", r.posOf("agent.checkpointer"), `a "graph" agent needs its checkpointer: what its subgraphs did is read from their checkpoints`)
	}
	var toolNames []string
	for _, t := range s.Tools {
		toolNames = append(toolNames, t.Name)
	}
	models := slices.Sorted(maps.Keys(s.Models))
	first := map[string]int{}
	for i, n := range a.Nodes {
		np := joinIndex("agent.nodes", i)
		switch {
		case n.Name == engine.Start || n.Name == engine.End || strings.HasPrefix(n.Name, "__"):
			r.problem(np+".name", r.posOf(np+".name"), fmt.Sprintf("%q is LangGraph's own: a node's name may not start with \"__\"", n.Name))
		case strings.ContainsAny(n.Name, ":|"):
			r.problem(np+".name", r.posOf(np+".name"), fmt.Sprintf("%q: a node's name may not hold \":\" or \"|\", which checkpoint namespaces use", n.Name))
		case n.Name != "":
			if j, dup := first[n.Name]; dup {
				r.problem(np+".name", r.posOf(np+".name"), fmt.Sprintf("duplicate node %q (also agent.nodes[%d])", n.Name, j))
			} else {
				first[n.Name] = i
			}
		}
		if n.Model != "" && !slices.Contains(models, n.Model) {
			msg := fmt.Sprintf("no model %q in models: a node's model is the scenario's (leave it out) or a scripted model of models", n.Model)
			if m := suggest(n.Model, models); m != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", m)
			}
			r.problem(np+".model", r.posOf(np+".model"), msg)
		}
		if n.Tools != nil {
			for j, name := range *n.Tools {
				if slices.Contains(toolNames, name) {
					continue
				}
				tp := joinIndex(np+".tools", j)
				msg := fmt.Sprintf("unknown tool %q", name)
				switch m := suggest(name, toolNames); {
				case m != "":
					msg += fmt.Sprintf(" (did you mean %q?)", m)
				case len(toolNames) == 0:
					msg += ": the scenario declares no tools"
				default:
					msg += ": declared tools are " + orList(toolNames, true)
				}
				r.problem(tp, r.posOf(tp), msg)
			}
		}
		kind := cmp.Or(n.Kind, "react")
		if len(n.Middleware) > 0 && kind != "agent" {
			r.problem(np+".middleware", r.posOf(np+".middleware"), fmt.Sprintf(`middleware needs kind "agent" (create_agent), not %q`, kind))
		}
		if kind == "agent" {
			for _, f := range []struct {
				name string
				set  bool
			}{{"version", n.Version != ""}, {"handle_tool_errors", n.HandleToolErrors != nil}} {
				if f.set {
					r.problem(np+"."+f.name, r.keyPosOf(np+"."+f.name), `only for kind "react" (create_react_agent), not "agent"`)
				}
			}
		}
		r.checkMiddlewareList(s, np+".middleware", n.Middleware)
	}
}

// usesScenarioModel says whether the scenario's own model answers: for a
// "graph" agent, when a node leaves its model out.
func usesScenarioModel(s *Scenario) bool {
	if s.Agent.Kind != "graph" {
		return true
	}
	return slices.ContainsFunc(s.Agent.Nodes, func(n Node) bool { return n.Model == "" })
}

// addsTools says whether the agent has tools the file does not declare:
// middleware (TodoListMiddleware's write_todos) and structured output
// (ToolStrategy's schema tool), on the agent or a node of a graph.
func addsTools(a *Agent) bool {
	if len(a.Middleware) > 0 || a.ResponseFormat != nil {
		return true
	}
	return slices.ContainsFunc(a.Nodes, func(n Node) bool { return len(n.Middleware) > 0 || n.ResponseFormat != nil })
}

// checkStreaming checks the turns' stream_mode and subgraphs, which need
// a graph to stream (not an update_state turn, nor a command agent), and
// expect.streamed, which needs a turn that streams messages.
func (r *reader) checkStreaming(s *Scenario) {
	streams := false
	for i, t := range s.Turns {
		tp := joinIndex("turns", i)
		if t.StreamMode.Has("messages") {
			streams = true
		}
		for _, f := range []struct {
			name string
			set  bool
		}{{"stream_mode", t.StreamMode != nil}, {"subgraphs", t.Subgraphs}} {
			switch {
			case !f.set:
			case s.Agent.Kind == "command":
				r.problem(tp+"."+f.name, r.keyPosOf(tp+"."+f.name), `not for a "command" agent: the program streams as it likes, and agenteval sees its requests`)
			case turnKind(t) == "update_state":
				r.problem(tp+"."+f.name, r.keyPosOf(tp+"."+f.name), "an update_state turn runs no graph, so it streams nothing")
			}
		}
	}
	want := s.Expect.Streamed
	if want == nil {
		return
	}
	if !streams {
		r.problem("expect.streamed", r.keyPosOf("expect.streamed"), `no turn streams messages: give the turns to watch stream_mode: messages`)
	}
	for i, e := range *want {
		ep := joinIndex("expect.streamed", i)
		if e.Chunks != nil && e.Pieces != nil && len(e.Pieces) != *e.Chunks {
			r.problem(ep+".pieces", r.posOf(ep+".pieces"), fmt.Sprintf("%d %s, but chunks is %d: each chunk is one piece", len(e.Pieces), plural(len(e.Pieces), "piece", "pieces"), *e.Chunks))
		}
		if e.Text != nil && e.Text.Regex != "" {
			r.checkRegexes(ep+".text.regex", e.Text.Regex)
		}
	}
}
