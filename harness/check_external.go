package harness

import (
	"fmt"
	"net/url"
	"time"
)

// defaultCommandTimeout bounds a command agent's run when the scenario
// gives no timeout.
const defaultCommandTimeout = 60 * time.Second

// isExternal says whether the scenario's agent is outside the reference
// engine's two kinds: a registered Go agent or a command.
func isExternal(a *Agent) bool { return a.Kind == "go" || a.Kind == "command" }

// checkExternal checks the fields of the "go" and "command" kinds: each
// kind's required fields, the command fields on no other kind, the
// engine's own fields not on a command (whose program builds its agent
// itself), and the turns a command's protocol can carry.
func (r *reader) checkExternal(s *Scenario) {
	a := &s.Agent
	commandFields := map[string]bool{"command": a.Command != nil, "env": a.Env != nil, "timeout": a.Timeout != "", "dir": a.Dir != "", "replay": a.Replay != "", "pass_env": a.PassEnv != nil}
	if a.Kind != "command" {
		for _, f := range []string{"command", "env", "pass_env", "timeout", "dir", "replay"} {
			if commandFields[f] {
				r.problem("agent."+f, r.keyPosOf("agent."+f), fmt.Sprintf(`only for agent.kind "command", not %q`, kindOrReact(a.Kind)))
			}
		}
	}
	switch a.Kind {
	case "go":
		if a.Name == "" {
			r.problem("agent.name", r.posOf("agent.kind"), `missing: a "go" agent names the agent the program registers (Options.Agents)`)
		}
	case "command":
		r.checkCommand(s)
	}
}

// kindOrReact names an agent kind, the default included.
func kindOrReact(kind string) string {
	if kind == "" {
		return "react"
	}
	return kind
}

// checkCommand checks a "command" agent.
func (r *reader) checkCommand(s *Scenario) {
	a := &s.Agent
	if len(a.Command) == 0 && r.pos["agent.command"] == (Position{}) {
		r.problem("agent.command", r.posOf("agent.kind"), `missing: a "command" agent needs the program to run, e.g. command: [node, agent.mjs]`)
	}
	if a.Timeout != "" {
		if d, err := time.ParseDuration(a.Timeout); err != nil || d <= 0 {
			r.problem("agent.timeout", r.posOf("agent.timeout"), fmt.Sprintf(`%q is not a positive duration such as "90s" or "2m"`, a.Timeout))
		}
	}
	for i, name := range a.PassEnv {
		if set := agentevalSets(name); set != "" {
			f := joinIndex("agent.pass_env", i)
			r.problem(f, r.posOf(f), fmt.Sprintf("%s is set by agenteval (%s): the program never gets agenteval's own value", name, set))
		}
	}
	// The program builds its own agent: the engine's settings would be
	// silently ignored, so they are errors.
	engineOnly := []struct {
		field string
		set   bool
	}{
		{"prompt", a.Prompt != ""},
		{"recursion_limit", a.RecursionLimit != 0},
		{"version", a.Version != ""},
		{"name", a.Name != ""},
		{"response_format", a.ResponseFormat != nil},
		{"checkpointer", a.Checkpointer != nil},
		{"interrupt_before", a.InterruptBefore != nil},
		{"interrupt_after", a.InterruptAfter != nil},
		{"handle_tool_errors", a.HandleToolErrors != nil},
		{"max_concurrency", a.MaxConcurrency != 0},
	}
	for _, f := range engineOnly {
		if f.set {
			r.problem("agent."+f.field, r.keyPosOf("agent."+f.field), `not for a "command" agent: the program builds its agent itself`)
		}
	}
	if a.Replay != "" && (a.Model == "" || a.Model == "scripted") {
		r.problem("agent.replay", r.keyPosOf("agent.replay"), `a scripted model answers from script: replay says how a provider model's cassette is replayed`)
	}
	if a.BaseURL != "" {
		scripted := a.Model == "" || a.Model == "scripted"
		u, err := url.Parse(a.BaseURL)
		switch {
		case scripted:
			r.problem("agent.base_url", r.keyPosOf("agent.base_url"), `a scripted model answers from script: base_url names the endpoint a provider model ("openai-compatible:NAME", "openai:...", "anthropic:...") records from`)
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			r.problem("agent.base_url", r.posOf("agent.base_url"), fmt.Sprintf(`%q: expected an http or https URL with a host, such as "http://127.0.0.1:8000/v1"`, a.BaseURL))
		case u.Fragment != "" || u.User != nil:
			r.problem("agent.base_url", r.posOf("agent.base_url"), fmt.Sprintf(`%q: a base URL has no fragment and no user info (the key comes from the provider's variable, such as OPENAI_API_KEY)`, a.BaseURL))
		}
	}
	if len(s.Tools) > 0 {
		r.problem("tools", r.keyPosOf("tools"), `not for a "command" agent: its tools are the program's own (expect.trajectory checks the calls it makes)`)
	}
	if len(s.Models) > 0 {
		r.problem("models", r.keyPosOf("models"), `not for a "command" agent: every model request it makes is answered from script, in order`)
	}
	for i, t := range s.Turns {
		tp := joinIndex("turns", i)
		switch kind := turnKind(t); kind {
		case "update_state", "continue":
			r.problem(tp+"."+kind, r.keyPosOf(tp+"."+kind), fmt.Sprintf(`a "command" agent takes user, resume and decisions turns, not %s`, kind))
		}
		if t.Thread != "" {
			r.problem(tp+".thread", r.keyPosOf(tp+".thread"), `a "command" agent runs one conversation: threads are the program's own`)
		}
		if t.FromStep != nil {
			r.problem(tp+".from_step", r.keyPosOf(tp+".from_step"), `a "command" agent has no checkpoints agenteval can go back to`)
		}
	}
}

// agentevalSets says what agenteval sets a command agent's variable
// name to, or "" when it sets no such variable.
func agentevalSets(name string) string {
	switch {
	case name == "OPENAI_API_KEY" || name == "ANTHROPIC_API_KEY" || name == "GEMINI_API_KEY":
		return "the dummy key; a record run sends the real one itself"
	case name == "OPENAI_BASE_URL" || name == "ANTHROPIC_BASE_URL" || name == "GOOGLE_GEMINI_BASE_URL":
		return "the model server's URL"
	case name == "AGENTEVAL_SCENARIO" || name == "AGENTEVAL_MODEL" || name == "AGENTEVAL_VARIANT":
		return "the run's scenario, model and variant"
	}
	return ""
}
