package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/report/evalreport"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/agenteval/agenteval/harness"
)

// Plan is an eval file with its scenarios loaded and its variants and cases
// applied: the cells to run, each a scenario (case) under a variant.
type Plan struct {
	File  *File
	cells []*planCell
	// warnings are the variants' warnings, by variant index (Warnings).
	warnings map[int]string
}

// planCell is one scenario (case) under one variant, ready to run.
type planCell struct {
	id, scenario, caseName string
	variant                *Variant
	variantIndex           int
	// s is the scenario with the case and the variant applied.
	s *harness.Scenario
	// cassetteBase is the trial cassettes' path below the cassette folder,
	// without "/trial-<k>"; empty when no provider model (agent or judge) is called.
	cassetteBase string
	thresholds   *evalreport.Thresholds
}

// Prepare loads the eval file's scenarios (those with one of its tags, if
// it names tags; skipped scenarios are left out), fills dataset templates
// with their cases and applies every variant to every scenario. Problems
// with the eval file are a *LoadError; with the scenario files, harness's
// errors.
func Prepare(f *File) (*Plan, error) {
	selected, err := selectScenarios(f)
	if err != nil {
		return nil, err
	}
	casesOf, err := casesByScenario(f, selected)
	if err != nil {
		return nil, err
	}
	var errs []error
	used := map[string]bool{}
	p := &Plan{File: f}
	for _, s := range selected {
		cases, hasDataset := casesOf[s.Name]
		errs = append(errs, p.addCells(f, s, cases, hasDataset, used)...)
	}
	if err := unusedOverrides(f, used); err != nil {
		errs = append(errs, err)
	}
	if err := unknownScenarioThresholds(f, selected); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := p.unreachedFields(); err != nil {
		return nil, err
	}
	p.sameAsControl()
	slices.SortStableFunc(p.cells, func(a, b *planCell) int {
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return a.variantIndex - b.variantIndex
	})
	return p, nil
}

// selectScenarios loads the eval's scenarios and keeps those that are not
// skipped and carry one of its tags (all when it names none).
func selectScenarios(f *File) ([]*harness.Scenario, error) {
	root := filepathJoin(f.Dir(), cmpOr(f.Root, "scenarios"))
	var paths []string
	for _, p := range f.Scenarios {
		paths = append(paths, filepath.Join(root, filepath.FromSlash(p)))
	}
	scenarios, err := f.Limits.LoadDir(root, paths...)
	if err != nil {
		return nil, fmt.Errorf("eval %s: %w", f.Path, err)
	}
	if err := unknownTags(f, scenarios); err != nil {
		return nil, err
	}
	var selected []*harness.Scenario
	for _, s := range scenarios {
		if s.Skip != "" {
			continue
		}
		if len(f.Tags) > 0 && !slices.ContainsFunc(s.Tags, func(t string) bool { return slices.Contains(f.Tags, t) }) {
			continue
		}
		selected = append(selected, s)
	}
	if len(selected) == 0 {
		return nil, f.problem("scenarios", "no scenarios to run under %s", root)
	}
	return selected, nil
}

// casesByScenario reads the datasets' cases, by the scenario each fills.
// Every dataset's problems are reported at once; two datasets of one
// scenario must not name two cases alike.
func casesByScenario(f *File, selected []*harness.Scenario) (map[string][]Case, error) {
	byName := map[string]*harness.Scenario{}
	for _, s := range selected {
		byName[s.Name] = s
	}
	casesOf := map[string][]Case{}
	var problems []Problem
	for i, d := range f.Datasets {
		if byName[d.Scenario] == nil {
			problems = append(problems, f.problem(joinIndex("datasets", i)+".scenario", "no scenario named %q is selected", d.Scenario).(*LoadError).Problems...)
			continue
		}
		cs, ps := f.cases(i)
		problems = append(problems, ps...)
		for _, c := range cs {
			if k := slices.IndexFunc(casesOf[d.Scenario], func(o Case) bool { return o.Name == c.Name }); k >= 0 {
				at := f.Pos(joinIndex("datasets", i) + ".name")
				problems = append(problems, Problem{File: f.Path, Line: at.Line, Col: at.Col, Field: joinIndex("datasets", i) + ".name",
					Message: fmt.Sprintf("case %s (%s) of scenario %s is also a case of another dataset (%s)", c.Name, c.At, d.Scenario, casesOf[d.Scenario][k].At)})
				continue
			}
			casesOf[d.Scenario] = append(casesOf[d.Scenario], c)
		}
	}
	if len(problems) > 0 {
		return nil, &LoadError{Problems: problems}
	}
	return casesOf, nil
}

// addCells adds a cell per case (or the scenario itself when it has no
// dataset) and variant, marking in used the overrides that applied.
func (p *Plan) addCells(f *File, s *harness.Scenario, cases []Case, hasDataset bool, used map[string]bool) []error {
	type instance struct {
		c Case
		s *harness.Scenario
	}
	var errs []error
	if !hasDataset && len(s.Placeholders) > 0 {
		ph := s.Placeholders[0]
		return []error{fmt.Errorf("%s:%d:%d: %s: scenario %s is a template ({{%s}}) and no dataset of %s fills it: add datasets: [{scenario: %s, rows: [...]}], or leave it out (scenarios, tags)",
			s.File, ph.Pos.Line, ph.Pos.Col, ph.Field, s.Name, ph.Name, f.Path, s.Name)}
	}
	for vi := range f.Variants {
		ps := kindProblems(f, vi, s)
		ps = append(ps, middlewareProblems(f, vi, s)...)
		if len(ps) > 0 {
			errs = append(errs, &LoadError{Problems: ps})
		}
	}
	instances := []instance{{s: s}}
	if hasDataset {
		instances = instances[:0]
		for _, c := range cases {
			inst, err := instantiate(s, c)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			instances = append(instances, instance{c, inst})
		}
	}
	for _, in := range instances {
		for vi := range f.Variants {
			v := &f.Variants[vi]
			vs, err := applyVariant(f, vi, in.s, used)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			id := s.Name
			if in.c.Name != "" {
				id += "[" + in.c.Name + "]"
			}
			c := &planCell{id: id, scenario: s.Name, caseName: in.c.Name, variant: v, variantIndex: vi, s: vs, thresholds: f.ThresholdsFor(s.Name)}
			if usesProvider(vs) {
				c.cassetteBase = s.Rel
				if in.c.Name != "" {
					c.cassetteBase += "/" + in.c.Name
				}
				c.cassetteBase += "/" + v.Name
			}
			p.cells = append(p.cells, c)
		}
	}
	return errs
}

// usesProvider reports whether a scenario calls a provider model, its
// agent's or a judge's, and so needs a cassette: each trial has its own.
func usesProvider(s *harness.Scenario) bool {
	if m := s.Agent.Model; m != "" && m != "scripted" {
		return true
	}
	for _, g := range s.Expect.Graders {
		if j := g.Judge; j != nil && j.Model != "" && j.Model != "scripted" {
			return true
		}
	}
	return false
}

// unusedOverrides reports the variants' tool and middleware overrides
// that no scenario took: a typo, not a no-op.
func unusedOverrides(f *File, used map[string]bool) error {
	var unused []Problem
	for vi, v := range f.Variants {
		for j, t := range v.Tools {
			field := joinIndex(joinIndex("variants", vi)+".tools", j)
			if !used[field] {
				at := f.Pos(field + ".name")
				unused = append(unused, Problem{File: f.Path, Line: at.Line, Col: at.Col, Field: field + ".name", Message: fmt.Sprintf("no scenario has a tool %q", t.Name)})
			}
		}
		for j, m := range v.Middleware {
			field := joinIndex(joinIndex("variants", vi)+".middleware", j)
			if !used[field] {
				at := f.Pos(field + ".type")
				unused = append(unused, Problem{File: f.Path, Line: at.Line, Col: at.Col, Field: field + ".type", Message: fmt.Sprintf("no scenario has a %s middleware", m.Type)})
			}
		}
	}
	if len(unused) > 0 {
		return &LoadError{Problems: unused}
	}
	return nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// applyVariant returns a copy of s with variant vi's overrides applied
// and golden checks off (a trial is a sample, not a transcript).
func applyVariant(f *File, vi int, s *harness.Scenario, used map[string]bool) (*harness.Scenario, error) {
	v := &f.Variants[vi]
	field := joinIndex("variants", vi)
	c := deepCopy(reflectValue(s), func(x string) string { return x }).Interface().(*harness.Scenario)
	c.Expect.Golden = false
	if v.Prompt != nil {
		if c.Agent.Kind == "graph" {
			return nil, f.problem(field+".prompt", "scenario %s is a graph of agents, each with its own prompt (agent.nodes[i].prompt): a variant's prompt has no one agent to go to", s.Name)
		}
		c.Agent.Prompt = *v.Prompt
	}
	if len(v.Env) > 0 {
		env := make(map[string]string, len(c.Agent.Env)+len(v.Env))
		maps.Copy(env, c.Agent.Env)
		maps.Copy(env, v.Env)
		c.Agent.Env = env
	}
	if v.Model != "" {
		c.Agent.Model = v.Model
		if v.Model == "scripted" {
			c.Agent.BaseURL = ""
		}
	}
	if v.BaseURL != "" {
		c.Agent.BaseURL = v.BaseURL
	}
	if v.Script != nil {
		c.Script = v.Script.V
	}
	if v.RecursionLimit > 0 {
		c.Agent.RecursionLimit = v.RecursionLimit
	}
	for j, t := range v.Tools {
		k := slices.IndexFunc(c.Tools, func(x harness.Tool) bool { return x.Name == t.Name })
		if k < 0 {
			continue // another scenario's tool
		}
		used[joinIndex(field+".tools", j)] = true
		if t.Description != nil {
			c.Tools[k].Description = *t.Description
		}
		if t.Parameters != nil {
			c.Tools[k].Parameters = t.Parameters.V
		}
	}
	for j, m := range v.Middleware {
		// the agent's middleware of that type, and each node's of a graph
		// of agents
		hit := setMiddlewareOptions(c.Agent.Middleware, m)
		for n := range c.Agent.Nodes {
			hit = setMiddlewareOptions(c.Agent.Nodes[n].Middleware, m) || hit
		}
		if hit {
			used[joinIndex(field+".middleware", j)] = true
		}
	}
	if (c.Agent.Model == "" || c.Agent.Model == "scripted") && c.Script == nil && usesScenarioModel(c) {
		return nil, f.problem(field, "scenario %s under variant %s has a scripted model and no script", s.Name, v.Name)
	}
	return c, nil
}

// setMiddlewareOptions sets the options of m on the middleware of m's type
// in mws, key by key, and reports whether mws has one.
func setMiddlewareOptions(mws []harness.Middleware, m MiddlewareOverride) bool {
	k := slices.IndexFunc(mws, func(x harness.Middleware) bool { return x.Type == m.Type })
	if k < 0 {
		return false
	}
	if m.Options == nil {
		return true
	}
	opts, _ := mws[k].Options.(*engine.Object)
	if opts == nil {
		opts = engine.NewObject()
	}
	set, _ := m.Options.V.(*engine.Object)
	for _, key := range set.Keys() {
		val, _ := set.Get(key)
		opts.Set(key, val)
	}
	mws[k].Options = opts
	return true
}

// overrides names what a variant changes, for reports.
func (v *Variant) overrides() []string {
	var out []string
	add := func(ok bool, name string) {
		if ok {
			out = append(out, name)
		}
	}
	add(v.Prompt != nil, "prompt")
	add(v.Model != "", "model")
	add(v.BaseURL != "", "base_url")
	add(v.Script != nil, "script")
	add(v.Params != nil, "params")
	add(v.RecursionLimit > 0, "recursion_limit")
	add(len(v.Tools) > 0, "tools")
	add(len(v.Middleware) > 0, "middleware")
	add(v.Stochastic != nil, "stochastic")
	add(len(v.Env) > 0, "env")
	return out
}

// filepathJoin resolves a path of the eval file against its folder.
func filepathJoin(dir, rel string) string {
	rel = filepath.FromSlash(rel)
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(dir, rel)
}

func filepathToSlash(p string) string { return filepath.ToSlash(p) }

// usesScenarioModel says whether the scenario's own model answers: for a
// graph of agents, when a node has no model of its own.
func usesScenarioModel(s *harness.Scenario) bool {
	if s.Agent.Kind != "graph" {
		return true
	}
	return slices.ContainsFunc(s.Agent.Nodes, func(n harness.Node) bool { return n.Model == "" })
}

// kindProblems are the fields of variant vi that cannot reach scenario s's
// agent kind: a command agent's program builds its agent itself (its
// prompt, tools, middleware, model parameters and recursion limit are
// its own), and only a program has an environment.
func kindProblems(f *File, vi int, s *harness.Scenario) []Problem {
	v := &f.Variants[vi]
	field := joinIndex("variants", vi)
	var out []Problem
	add := func(key, format string, args ...any) {
		at := f.Pos(field + "." + key)
		out = append(out, Problem{File: f.Path, Line: at.Line, Col: at.Col, Field: field + "." + key, Message: fmt.Sprintf(format, args...)})
	}
	if s.Agent.Kind == "command" {
		for _, x := range []struct {
			key, what string
			set       bool
		}{
			{"prompt", "prompt", v.Prompt != nil},
			{"params", "model parameters", v.Params != nil},
			{"recursion_limit", "recursion limit", v.RecursionLimit > 0},
			{"tools", "tools", len(v.Tools) > 0},
			{"middleware", "middleware", len(v.Middleware) > 0},
		} {
			if x.set {
				add(x.key, "scenario %s runs a command agent, whose program builds its agent itself: a variant's %s cannot reach it; pass it through the variant's env (env: {NAME: value}) and read it in the program", s.Name, x.what)
			}
		}
	} else if len(v.Env) > 0 {
		add("env", "scenario %s runs a %s agent, not a program: env is for agent.kind command", s.Name, cmpOr(s.Agent.Kind, "react"))
	}
	model := cmpOr(v.Model, s.Agent.Model)
	if strings.HasPrefix(model, "openai-compatible:") && v.BaseURL == "" && (s.Agent.BaseURL == "" || v.Model != "" && !strings.HasPrefix(s.Agent.Model, "openai-compatible:")) {
		add("model", "scenario %s names no base_url for %s: an openai-compatible model is served at the base_url the variant or the scenario names; give the variant one (base_url: http://...)", s.Name, model)
	}
	if v.BaseURL != "" && (model == "" || model == "scripted") && v.Stochastic == nil {
		add("base_url", "scenario %s has a scripted model under this variant, which calls no provider: a base_url reaches nothing; give the variant a provider model (model: openai-compatible:NAME)", s.Name)
	}
	return out
}

// reachesModel says whether a cell's agent model reads what a variant
// sets for it (its prompt, model parameters, tool descriptions): a
// provider model does, a scripted one answers from its script whatever
// they say. A Go agent's code gets them too (GoAgentEnv) and may read
// them, so it counts as reaching.
func reachesModel(s *harness.Scenario) bool {
	if s.Agent.Kind == "go" {
		return true
	}
	if m := s.Agent.Model; m != "" && m != "scripted" {
		return true
	}
	return slices.ContainsFunc(s.Agent.Nodes, func(n harness.Node) bool { return n.Model != "" && n.Model != "scripted" && !isNamedScript(s, n.Model) })
}

// isNamedScript says whether a model name is one of the scenario's named
// scripted models.
func isNamedScript(s *harness.Scenario, name string) bool {
	_, ok := s.Models[name]
	return ok
}

// unreachedFields are the variants' prompt, params and tool descriptions
// that no cell of theirs passes to a model that reads them: a variant
// that sets one cannot differ from the control by it, which is an error
// (an option that cannot apply), as an unused tool override is.
func (p *Plan) unreachedFields() error {
	f := p.File
	var out []Problem
	for vi := range f.Variants {
		v := &f.Variants[vi]
		reached := false
		for _, c := range p.cells {
			if c.variantIndex == vi && reachesModel(c.s) {
				reached = true
				break
			}
		}
		if reached {
			continue
		}
		field := joinIndex("variants", vi)
		add := func(key, what string) {
			at := f.Pos(field + "." + key)
			out = append(out, Problem{File: f.Path, Line: at.Line, Col: at.Col, Field: field + "." + key,
				Message: fmt.Sprintf("every scenario variant %s runs has a scripted model, which answers from its script whatever %s says: the variant cannot differ from the control by it; give the variant a provider model (model: provider:name) or a script of its own", v.Name, what)})
		}
		if v.Prompt != nil {
			add("prompt", "the prompt")
		}
		if v.Params != nil {
			add("params", "a model parameter")
		}
		for j, t := range v.Tools {
			if t.Description != nil {
				add(joinIndex("tools", j)+".description", "a tool description")
			}
		}
	}
	if len(out) > 0 {
		return &LoadError{Problems: out}
	}
	return nil
}

// sameAsControl finds the variants whose every cell runs exactly what the
// control's runs, or an earlier variant's (the scenario as applied, the
// model parameters and the stochastic model alike): their trials sample
// the same agent, which is worth a warning, not an error, since an A/A
// comparison of a provider model measures the noise between two runs on
// purpose.
func (p *Plan) sameAsControl() {
	f := p.File
	control := slices.IndexFunc(f.Variants, func(v Variant) bool { return v.Name == f.ControlName() })
	if control < 0 || len(f.Variants) < 2 {
		return
	}
	// runs[vi] is what variant vi runs, cell by cell in cell order
	runs := make([]strings.Builder, len(f.Variants))
	for _, c := range p.cells {
		b, _ := json.Marshal(struct {
			S          *harness.Scenario
			Params     *Value
			Stochastic *Stochastic
		}{c.s, c.variant.Params, c.variant.Stochastic})
		runs[c.variantIndex].Write(b)
		runs[c.variantIndex].WriteByte('\n')
	}
	// the control first, then the variants in file order
	order := append([]int{control}, slices.DeleteFunc(seq(len(f.Variants)), func(i int) bool { return i == control })...)
	for k, vi := range order[1:] {
		j := slices.IndexFunc(order[:k+1], func(o int) bool { return runs[o].String() == runs[vi].String() })
		if j < 0 {
			continue
		}
		other := f.Variants[order[j]].Name
		what := "the control " + other
		if order[j] != control {
			what = "variant " + other
		}
		why := "its trials sample the same agent: it can differ from " + other + " only by chance"
		if slices.ContainsFunc(p.cells, func(c *planCell) bool { return c.variantIndex == vi && c.s.Agent.Kind == "command" }) {
			why += " (or by a program that reads AGENTEVAL_VARIANT)"
		}
		at := f.Pos(joinIndex("variants", vi))
		if p.warnings == nil {
			p.warnings = map[int]string{}
		}
		p.warnings[vi] = fmt.Sprintf("%s:%d:%d: variants[%d]: variant %s runs every scenario as %s does: %s", f.Path, at.Line, at.Col, vi, f.Variants[vi].Name, what, why)
	}
}

// seq is 0, 1, ..., n-1.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Warnings are what Prepare found worth saying before a run that is not
// an error: the variants that cannot differ from the control but by
// chance, in file order, each as "file:line:col: field: message". The
// report carries each on its variant (evalreport.VariantInfo.Warning).
func (p *Plan) Warnings() []string {
	var out []string
	for vi := range p.File.Variants {
		if w, ok := p.warnings[vi]; ok {
			out = append(out, w)
		}
	}
	return out
}

// unknownScenarioThresholds reports the scenario_thresholds keys that name
// no selected scenario: a misspelt name is a gate that never fires.
func unknownScenarioThresholds(f *File, selected []*harness.Scenario) error {
	names := make([]string, len(selected))
	for i, s := range selected {
		names[i] = s.Name
	}
	var out []Problem
	for _, k := range slices.Sorted(maps.Keys(f.ScenarioThresholds)) {
		if slices.Contains(names, k) {
			continue
		}
		field := "scenario_thresholds." + k
		at, ok := f.keyPos[field]
		if !ok {
			at = f.Pos("scenario_thresholds")
		}
		msg := fmt.Sprintf("no selected scenario is named %q", k)
		if m := closest(k, names); m != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", m)
		}
		out = append(out, Problem{File: f.Path, Line: at.Line, Col: at.Col, Field: field, Message: msg})
	}
	if len(out) > 0 {
		slices.SortStableFunc(out, func(a, b Problem) int { return a.Line - b.Line })
		return &LoadError{Problems: out}
	}
	return nil
}

// middlewareProblems builds each middleware of s that variant vi sets
// options on, with them, as the runner will: an option the middleware
// does not take is a problem at the variant's options, before any trial
// runs, rather than an error of every trial. A middleware that does not
// build with the scenario's own options here either (an option naming a
// model this check cannot stand in for) is left to the run.
func middlewareProblems(f *File, vi int, s *harness.Scenario) []Problem {
	v := &f.Variants[vi]
	models := map[string]engine.ChatModel{"model": llm.NewScripted("model", llm.Script{})}
	for name := range s.Models {
		models[name] = llm.NewScripted(name, llm.Script{})
	}
	bopts := middleware.BuildOptions{Models: models}
	lists := [][]harness.Middleware{s.Agent.Middleware}
	for _, n := range s.Agent.Nodes {
		lists = append(lists, n.Middleware)
	}
	var out []Problem
	for j, m := range v.Middleware {
		if m.Options == nil {
			continue
		}
		field := joinIndex(joinIndex("variants", vi)+".middleware", j) + ".options"
		for _, list := range lists {
			k := slices.IndexFunc(list, func(x harness.Middleware) bool { return x.Type == m.Type })
			if k < 0 {
				continue
			}
			own, _ := list[k].Options.(*engine.Object)
			if _, err := middleware.Build(m.Type, own, bopts); err != nil {
				continue
			}
			merged := []harness.Middleware{{Type: m.Type, Options: copyObject(own)}}
			setMiddlewareOptions(merged, m)
			opts, _ := merged[0].Options.(*engine.Object)
			if _, err := middleware.Build(m.Type, opts, bopts); err != nil {
				at := f.Pos(field)
				for _, line := range strings.Split(err.Error(), "\n") {
					out = append(out, Problem{File: f.Path, Line: at.Line, Col: at.Col, Field: field, Message: fmt.Sprintf("scenario %s: %s", s.Name, line)})
				}
				break
			}
		}
	}
	return out
}

// copyObject copies an object's keys (the values are shared), so that
// setting options on the copy leaves the scenario's alone.
func copyObject(o *engine.Object) *engine.Object {
	out := engine.NewObject()
	if o == nil {
		return out
	}
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		out.Set(k, v)
	}
	return out
}

// unknownTags reports the file's tags that no scenario under its root
// carries: a misspelt tag selects nothing, silently.
func unknownTags(f *File, scenarios []*harness.Scenario) error {
	var all []string
	for _, s := range scenarios {
		for _, t := range s.Tags {
			if !slices.Contains(all, t) {
				all = append(all, t)
			}
		}
	}
	slices.Sort(all)
	var out []Problem
	for i, t := range f.Tags {
		if slices.Contains(all, t) {
			continue
		}
		field := joinIndex("tags", i)
		at := f.Pos(field)
		msg := fmt.Sprintf("no scenario has the tag %q", t)
		if m := closest(t, all); m != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", m)
		}
		out = append(out, Problem{File: f.Path, Line: at.Line, Col: at.Col, Field: field, Message: msg})
	}
	if len(out) > 0 {
		return &LoadError{Problems: out}
	}
	return nil
}
