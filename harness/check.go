package harness

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agenteval/agenteval/emulator"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/engine/middleware"
)

// check runs the rules the schema cannot state, reporting each broken one.
func (r *reader) check(s *Scenario) {
	r.checkDuration("timeout", s.Timeout)
	r.checkAgent(s)
	r.checkScripts(s)
	r.checkTools(s)
	r.checkWorkspace(s)
	r.checkTurns(s)
	r.checkStreaming(s)
	r.checkExpect(s)
	r.checkGraders(s)
}

// checkDuration checks a timeout: a Go duration above zero, or "".
func (r *reader) checkDuration(path, d string) {
	if d == "" {
		return
	}
	if v, err := time.ParseDuration(d); err != nil || v <= 0 {
		r.problem(path, r.posOf(path), fmt.Sprintf("%q: expected a duration above zero, such as \"500ms\", \"30s\" or \"2m\"", d))
	}
}

// geminiPrefix starts a Gemini model name, "gemini:gemini-2.5-flash".
const geminiPrefix = "gemini:"

// checkAgent checks the agent's model and middleware.
func (r *reader) checkAgent(s *Scenario) {
	a := &s.Agent
	r.checkExternal(s)
	if strings.HasPrefix(a.Model, geminiPrefix) && a.Kind != "command" {
		r.problem("agent.model", r.posOf("agent.model"), fmt.Sprintf(`a "gemini" model is served to command agents only (agenteval serve speaks Gemini's API; the engine has no Gemini client): set agent.kind "command", not %q`, kindOrReact(a.Kind)))
	}
	if strings.HasPrefix(a.Model, "openai-compatible:") && a.BaseURL == "" {
		r.problem("agent.base_url", r.posOf("agent.model"), `missing: an "openai-compatible" model needs the server's base_url`)
	}
	if len(a.Middleware) > 0 && a.Kind != "agent" {
		kind := cmp.Or(a.Kind, "react")
		r.problem("agent.middleware", r.posOf("agent.middleware"), fmt.Sprintf(`middleware needs agent.kind "agent" (create_agent), not %q`, kind))
	}
	if a.RecursionLimit > r.limits.RecursionLimit {
		r.problem("agent.recursion_limit", r.posOf("agent.recursion_limit"), fmt.Sprintf("%d is above the cap of %d supersteps (--limit recursion_limit=N, Limits.RecursionLimit): a run's cost grows with the square of its steps", a.RecursionLimit, r.limits.RecursionLimit))
	}
	r.checkAuxModels(s)
	r.checkMiddlewareList(s, "agent.middleware", a.Middleware)
	r.checkGraph(s)
}

// checkMiddlewareList builds each middleware of the list at path once,
// as the runner will, so that a wrong option is an error of the file, at
// its options.
func (r *reader) checkMiddlewareList(s *Scenario, path string, list []Middleware) {
	models := map[string]engine.ChatModel{"model": llm.NewScripted("model", llm.Script{})}
	for name := range s.Models {
		models[name] = llm.NewScripted(name, llm.Script{})
	}
	for _, ref := range auxModelRefs(s) {
		models[ref.name] = llm.NewScripted(ref.name, llm.Script{})
	}
	for i, m := range list {
		opts, ok := m.Options.(*engine.Object)
		if m.Options != nil && !ok {
			continue // the schema has reported it
		}
		if _, err := middleware.Build(m.Type, opts, middleware.BuildOptions{Models: models}); err != nil {
			if errors.Is(err, middleware.ErrUnknownClass) {
				continue // the schema has reported it
			}
			at := joinIndex(path, i) + ".options"
			if m.Options == nil {
				at = joinIndex(path, i)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				r.problem(at, r.posOf(at), line)
			}
		}
	}
}

// checkScripts checks that a scripted model has a script and that every
// script parses.
func (r *reader) checkScripts(s *Scenario) {
	if (s.Agent.Model == "" || s.Agent.Model == "scripted") && usesScenarioModel(s) {
		if s.Script == nil {
			at := r.posOf("agent.model")
			if _, ok := r.pos["agent.model"]; !ok {
				at = r.posOf("")
			}
			r.problem("script", at, `missing: the "scripted" model (the default agent.model) answers from script`)
		}
	}
	if s.Script != nil {
		r.checkScript("script", s.Script)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Models)) {
		r.checkScript(joinKey("models", name), s.Models[name])
	}
}

// checkScript parses one script with engine/llm and reports its problems
// at their places.
func (r *reader) checkScript(path string, v any) {
	if _, ok := v.(*engine.Object); !ok {
		return // the schema has reported it
	}
	data, err := engine.MarshalValue(v)
	if err != nil {
		r.problem(path, r.posOf(path), err.Error())
		return
	}
	_, err = llm.ParseScript(data)
	if err == nil {
		return
	}
	var se *llm.ScriptError
	if !errors.As(err, &se) {
		r.problem(path, r.posOf(path), err.Error())
		return
	}
	for _, p := range se.Problems {
		field := path
		if p.Path != "" {
			if strings.HasPrefix(p.Path, "[") {
				field += p.Path
			} else {
				field += "." + p.Path
			}
		}
		r.problem(field, r.posOf(field), p.Message)
	}
}

// checkTools checks tool names and scripted results.
func (r *reader) checkTools(s *Scenario) {
	first := map[string]int{}
	for i, t := range s.Tools {
		tp := joinIndex("tools", i)
		if t.Name != "" {
			if j, dup := first[t.Name]; dup {
				r.problem(tp+".name", r.posOf(tp+".name"), fmt.Sprintf("duplicate tool %q (also tools[%d])", t.Name, j))
			} else {
				first[t.Name] = i
			}
		}
		r.checkDuration(tp+".timeout", t.Timeout)
		if t.Latency != nil {
			if err := t.Latency.Validate(); err != nil {
				r.problem(tp+".latency", r.posOf(tp+".latency"), err.Error())
			}
		}
		if e := t.Emulate; e != nil {
			ep := tp + ".emulate"
			if schema, ok := e.Output.(*engine.Object); ok {
				if e.Model != "" {
					r.problem(ep+".model", r.keyPosOf(ep+".model"), "an emulated tool is answered either by a model or from an output schema: set model or output, not both")
				}
				if _, err := emulator.Value(schema, uint64(e.Seed)); err != nil {
					r.problem(ep+".output", r.posOf(ep+".output"), fmt.Sprintf("no value can be generated from this schema: %v", err))
				}
			} else if m := e.Model; m != "" && m != "agent" && !strings.Contains(m, ":") {
				if _, ok := s.Models[m]; !ok {
					msg := fmt.Sprintf("no model %q: expected \"agent\", a name from models or a provider model such as \"openai:gpt-4.1-mini\"", m)
					r.problem(ep+".model", r.posOf(ep+".model"), msg)
				}
			}
		}
		for j, res := range t.Results {
			rp := joinIndex(tp+".results", j)
			if res.Return != nil && res.Error != "" {
				r.problem(rp+".error", r.keyPosOf(rp+".error"), "a result either returns or raises: set return or error, not both")
			}
			if res.Match == "regex" {
				r.checkRegexes(rp+".when", res.When)
			}
		}
	}
}

// checkRegexes checks that every string in a regex result's when compiles.
func (r *reader) checkRegexes(path string, v any) {
	switch v := v.(type) {
	case string:
		if _, err := regexp.Compile(v); err != nil {
			r.problem(path, r.posOf(path), "invalid regular expression: "+err.Error())
		}
	case *engine.Object:
		for _, k := range v.Keys() {
			e, _ := v.Get(k)
			r.checkRegexes(joinKey(path, k), e)
		}
	case []any:
		for i, e := range v {
			r.checkRegexes(joinIndex(path, i), e)
		}
	}
}

// checkTurns checks that each turn can run on its thread.
func (r *reader) checkTurns(s *Scenario) {
	noCheckpointer := s.Agent.Checkpointer != nil && !*s.Agent.Checkpointer
	started := map[string]bool{}
	for i, t := range s.Turns {
		tp := joinIndex("turns", i)
		thread := cmp.Or(t.Thread, "main")
		kind := turnKind(t)
		if noCheckpointer {
			switch {
			case kind != "user" && kind != "":
				r.problem(tp+"."+kind, r.keyPosOf(tp+"."+kind), "needs a checkpointer: agent.checkpointer is false, so every turn starts a fresh thread")
			case t.FromStep != nil:
				r.problem(tp+".from_step", r.keyPosOf(tp+".from_step"), "needs a checkpointer: agent.checkpointer is false, so there are no checkpoints")
			case started[thread]:
				r.problem(tp, r.posOf(tp), fmt.Sprintf("needs a checkpointer: a second turn on thread %q, but agent.checkpointer is false, so every turn starts a fresh thread", thread))
			}
			started[thread] = true
			continue
		}
		if !started[thread] {
			switch kind {
			case "resume", "decisions", "continue":
				r.problem(tp+"."+kind, r.keyPosOf(tp+"."+kind), fmt.Sprintf("thread %q has not started: its first turn cannot be %s", thread, kind))
			default:
				if t.FromStep != nil {
					r.problem(tp+".from_step", r.keyPosOf(tp+".from_step"), fmt.Sprintf("thread %q has not started: it has no checkpoints to go back to", thread))
				}
			}
		}
		started[thread] = true
	}
}

// turnKind names the input a turn gives, or "" when it gives none.
func turnKind(t Turn) string {
	switch {
	case t.User != "":
		return "user"
	case t.Resume != nil:
		return "resume"
	case t.Decisions != nil:
		return "decisions"
	case t.UpdateState != nil:
		return "update_state"
	case t.Continue:
		return "continue"
	}
	return ""
}

// checkExpect checks the expectations' regular expressions and tool names.
func (r *reader) checkExpect(s *Scenario) {
	if f := s.Expect.Final; f != nil && f.Regex != "" {
		if _, err := regexp.Compile(f.Regex); err != nil {
			r.problem("expect.final.regex", r.posOf("expect.final.regex"), "invalid regular expression: "+err.Error())
		}
	}
	tr := s.Expect.Trajectory
	if tr == nil {
		return
	}
	if len(tr.Steps) > 0 && !tr.GroupParallel {
		r.problem("expect.trajectory.steps", r.keyPosOf("expect.trajectory.steps"), "steps needs group_parallel: true (list the calls in calls otherwise)")
	}
	// Middleware (TodoListMiddleware's write_todos) and structured output
	// (ToolStrategy's schema tool) add tools the file does not declare;
	// a Go or command agent has tools of its own.
	if addsTools(&s.Agent) || isExternal(&s.Agent) {
		return
	}
	var declared []string
	for _, t := range s.Tools {
		declared = append(declared, t.Name)
	}
	// A call the script makes on purpose to a tool that does not exist
	// (the ToolNode answers it with an error) may be expected too.
	scripted := scriptedToolNames(s.Script)
	for _, n := range s.Agent.Nodes {
		if m, ok := s.Models[n.Model]; ok {
			maps.Copy(scripted, scriptedToolNames(m))
		}
	}
	checkName := func(path, name string, at Position) {
		if name == "" || slices.Contains(declared, name) || scripted[name] {
			return
		}
		msg := fmt.Sprintf("unknown tool %q", name)
		switch m := suggest(name, declared); {
		case m != "":
			msg += fmt.Sprintf(" (did you mean %q?)", m)
		case len(declared) == 0:
			msg += ": the scenario declares no tools"
		default:
			msg += ": declared tools are " + orList(declared, true)
		}
		r.problem(path, at, msg)
	}
	for i, c := range tr.Calls {
		p := joinIndex("expect.trajectory.calls", i) + ".name"
		checkName(p, c.Name, r.posOf(p))
	}
	for i, step := range tr.Steps {
		for j, c := range step {
			p := joinIndex(joinIndex("expect.trajectory.steps", i), j) + ".name"
			checkName(p, c.Name, r.posOf(p))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(tr.ToolArgs)) {
		p := joinKey("expect.trajectory.tool_args", name)
		checkName(p, name, r.keyPosOf(p))
	}
}

// scriptedToolNames returns the names of the tool calls a script's
// responses make.
func scriptedToolNames(script any) map[string]bool {
	names := map[string]bool{}
	obj, _ := script.(*engine.Object)
	var responses []any
	if v, ok := obj.Get("responses"); ok {
		responses, _ = v.([]any)
	}
	if then, ok := obj.Get("then"); ok {
		if t, ok := then.(*engine.Object); ok {
			if rep, ok := t.Get("repeat"); ok {
				responses = append(slices.Clip(responses), rep)
			}
		}
	}
	for _, resp := range responses {
		o, _ := resp.(*engine.Object)
		calls, _ := o.Get("tool_calls")
		list, _ := calls.([]any)
		for _, c := range list {
			co, _ := c.(*engine.Object)
			if n, ok := co.Get("name"); ok {
				if name, ok := n.(string); ok {
					names[name] = true
				}
			}
		}
	}
	return names
}

// modelMessage explains why agent.model is not a model name.
func modelMessage(got string) string {
	providers := []string{"openai", "anthropic", "openai-compatible"}
	provider, model, ok := strings.Cut(got, ":")
	switch {
	case !ok:
		msg := fmt.Sprintf(`unknown model %q: expected "scripted" or "<provider>:<model>" with provider %s`, got, orList(providers, true))
		if m := suggest(got, []string{"scripted"}); m != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", m)
		}
		return msg
	case !slices.Contains(providers, provider):
		msg := fmt.Sprintf("unknown provider %q in model %q: expected %s", provider, got, orList(providers, true))
		if m := suggest(provider, providers); m != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", m)
		}
		return msg
	case model == "":
		return fmt.Sprintf(`model %q names no model: expected "%s:<model>"`, got, provider)
	}
	return fmt.Sprintf("invalid model %q", got)
}

// checkGraders checks each grader's specification (grade's Problems) and
// that a judge's model can be built: a scripted judge has a script that
// parses, a provider judge names no script and, for openai-compatible, has
// its base_url.
func (r *reader) checkGraders(s *Scenario) {
	for i, g := range s.Expect.Graders {
		gp := joinIndex("expect.graders", i)
		for _, p := range g.Problems() {
			path := gp
			if p.Field != "" {
				path += "." + p.Field
			}
			if r.reported(path) {
				continue // the schema said it first (a bound, a missing key)
			}
			at := r.keyPosOf(path)
			if p.Field == "" {
				at = r.posOf(path)
			}
			r.problem(path, at, p.Message)
		}
		j := g.Judge
		if j == nil {
			continue
		}
		jp := gp + ".judge"
		if j.Model == "" || j.Model == "scripted" {
			if j.Script == nil {
				r.problem(jp+".script", r.posOf(jp), `missing: a "scripted" judge (the default judge.model) answers from script`)
			} else {
				r.checkScript(jp+".script", j.Script)
			}
			continue
		}
		if j.Script != nil {
			r.problem(jp+".script", r.keyPosOf(jp+".script"), fmt.Sprintf("judge.model %s answers from the scenario's cassette: a script is for a scripted judge", j.Model))
		}
		if strings.HasPrefix(j.Model, "openai-compatible:") && j.BaseURL == "" {
			r.problem(jp+".base_url", r.posOf(jp+".model"), `missing: an "openai-compatible" model needs the server's base_url`)
		}
	}
}

// reported says whether a problem at path was reported already.
func (r *reader) reported(path string) bool {
	return slices.ContainsFunc(r.problems, func(p Problem) bool { return p.Field == path })
}
