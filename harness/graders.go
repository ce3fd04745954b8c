package harness

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/grade"
	"github.com/agenteval/agenteval/report"
)

// providerJudge is the model of the scenario's first judge that is a
// provider model, or "" when every judge is scripted.
func providerJudge(s *Scenario) string {
	for _, g := range s.Expect.Graders {
		if j := g.Judge; j != nil && j.Model != "" && j.Model != "scripted" {
			return j.Model
		}
	}
	return ""
}

// gradeEnv is what the scenario's graders need: its judges' models, the
// Go graders of the options, the directory command graders run in and
// the run as the JSON report shows it so far (res, before its
// expectations and status are known), for their stdin.
func (st *setup) gradeEnv(s *Scenario, opts *Options, res report.Scenario) (grade.Env, error) {
	env := grade.Env{Scenario: s.Name, Funcs: opts.Graders, Dir: filepath.Dir(s.File), Judge: st.judgeModel(s, opts)}
	for _, g := range s.Expect.Graders {
		if g.Command != nil {
			rec, err := json.Marshal(res)
			if err != nil {
				return grade.Env{}, fmt.Errorf("expect.graders: the run's record for command graders: %w", err)
			}
			env.Record = rec
			break
		}
	}
	return env, nil
}

// judgeModel builds a judge's model: a scripted one from its script, or a
// provider model whose calls go through the scenario's cassette, recorded
// next to the agent's.
func (st *setup) judgeModel(s *Scenario, opts *Options) func(int, *grade.Judge) (engine.ChatModel, error) {
	return func(i int, j *grade.Judge) (engine.ChatModel, error) {
		if j.Model == "" || j.Model == "scripted" {
			if j.Script == nil {
				return nil, fmt.Errorf("expect.graders[%d].judge: a scripted judge needs a script", i)
			}
			script, err := parseScript(j.Script)
			if err != nil {
				return nil, fmt.Errorf("expect.graders[%d].judge.script: %w", i, err)
			}
			return &meteredModel{inner: llm.NewScripted(fmt.Sprintf("judge%d", i), script), name: "scripted", shared: &st.judges, judge: true}, nil
		}
		if st.recorder == nil {
			return nil, fmt.Errorf("expect.graders[%d].judge: no cassette is open for %s", i, j.Model)
		}
		lopts := st.llmOptions(s, opts)
		lopts.BaseURL = j.BaseURL
		if st.judgeClient != nil {
			lopts.HTTPClient = st.judgeClient
		}
		m, err := llm.New(j.Model, lopts)
		if err != nil {
			return nil, fmt.Errorf("expect.graders[%d].judge.model: %w", i, err)
		}
		return &meteredModel{inner: m, name: modelID(j.Model), prices: opts.Prices, shared: &st.judges}, nil
	}
}

// judgeUsage adds the judges' calls, tokens and cost to the usage of the
// run they graded: a trial's cost (eval's --max-cost) includes what
// grading it cost. A scripted judge's calls count, its tokens do not (it
// stands in for nothing that is paid).
func (st *setup) judgeUsage(u *report.Usage) {
	j := &st.judges
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.calls == 0 {
		return
	}
	u.ModelCalls += j.calls
	u.JudgeModelCalls += j.calls
	u.InputTokens += j.usage.InputTokens
	u.OutputTokens += j.usage.OutputTokens
	u.TotalTokens += j.usage.TotalTokens
	if len(j.costs) > 0 {
		u.CostUSD = sumSmallestFirst(append(j.costs, u.CostUSD))
	}
	u.CostKnown = u.CostKnown && !j.unknown
}
