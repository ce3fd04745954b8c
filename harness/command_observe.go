package harness

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/grade"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/serve"
)

// The client-side invariants of a command agent, by their names in
// reports.
const (
	invClientToolCalls   = "invariant: client answers tool calls"
	invRequestsAccepted  = "invariant: requests accepted"
	commandModelNode     = "model"
	commandToolsNode     = "tools"
	commandInputNode     = "input"
	commandThread        = "main"
	commandMaxViolations = 20
)

// observe rebuilds a command agent's run from the model server's
// exchanges, as if the engine had run it on one thread: per turn an
// "input" step with the user's message, then per model request a
// "tools" step with the tool results it carries for calls of earlier
// answers (each result once, in request order, named after its call),
// and a "model" step with the answer as an AI message. The final text
// is the last turn's output line, else the last answer's text;
// interrupts are the program's interrupt lines; agentErr, when set, is
// the run's error, of the last turn written.
func (r *commandRun) observe(xs []serve.Exchange, agentErr error) *grade.Observed {
	obs := &grade.Observed{}
	b := &rebuild{obs: obs, names: map[string]string{}, answered: map[string]bool{}}
	for k, start := range r.starts {
		end := len(xs)
		if k+1 < len(r.starts) {
			end = min(r.starts[k+1], len(xs))
		}
		before := len(obs.Steps)
		if t := r.s.Turns[k]; t.User != "" {
			b.add(k, commandInputNode, engine.HumanMessage(t.User))
		}
		for _, x := range xs[min(start, end):end] {
			b.exchange(k, x, r.opts)
		}
		inv := grade.Invoke{Turn: k, Thread: commandThread, Supersteps: len(obs.Steps) - before}
		if before < len(obs.Steps) && obs.Steps[before].Nodes[0] == commandInputNode {
			inv.Supersteps--
		}
		obs.Invokes = append(obs.Invokes, inv)
		obs.Usage.Steps += inv.Supersteps
		if k < len(r.outputs) && len(r.outputs[k].Interrupt) > 0 {
			v, err := engine.DecodeJSON(r.outputs[k].Interrupt)
			if err != nil {
				v = string(r.outputs[k].Interrupt)
			}
			obs.Interrupts = append(obs.Interrupts, v)
			obs.InterruptTurns = append(obs.InterruptTurns, k)
		}
	}
	obs.Messages = b.msgs
	for i := len(b.msgs) - 1; i >= 0; i-- {
		if b.msgs[i].Type == engine.TypeAI {
			obs.Final = b.msgs[i].Text()
			break
		}
	}
	if n := len(r.outputs); n > 0 && n == len(r.starts) && r.outputs[n-1].Output != nil {
		obs.Final = strings.TrimSpace(*r.outputs[n-1].Output)
	}
	obs.Usage.ToolCalls = b.toolResults
	obs.Usage.ToolRuns = b.toolResults
	obs.Usage.CostKnown = !b.unknownCost
	if agentErr != nil {
		obs.Err, obs.ErrTurn = agentErr, max(0, len(r.starts)-1)
	}
	return obs
}

// rebuild builds a command agent's conversation from its traffic.
type rebuild struct {
	obs  *grade.Observed
	msgs []engine.Message
	// names maps the id of each tool call an answer made to its tool;
	// answered holds those a request has answered.
	names    map[string]string
	answered map[string]bool
	step     int
	// toolResults counts the results taken; unknownCost is set when a
	// model's price is not known.
	toolResults int
	unknownCost bool
	costs       []float64
}

// add appends messages as one step of turn k run by node.
func (b *rebuild) add(turn int, node string, msgs ...engine.Message) {
	b.msgs = append(b.msgs, msgs...)
	st := grade.Step{Turn: turn, Thread: commandThread, Step: b.step, Nodes: []string{node}, Changed: msgs, Messages: append([]engine.Message(nil), b.msgs...)}
	if node != commandInputNode {
		st.Keys = []string{"messages"}
	}
	b.obs.Steps = append(b.obs.Steps, st)
	b.step++
	if node == commandModelNode {
		b.obs.AIMessages = append(b.obs.AIMessages, msgs...)
	}
}

// exchange takes one model request of turn k and its answer.
func (b *rebuild) exchange(turn int, x serve.Exchange, opts *Options) {
	if x.Problem != "" || x.Request == nil {
		return // refused: the "requests accepted" invariant reports it
	}
	var results []engine.Message
	for _, m := range x.Request.ToolResults() {
		name, ours := b.names[m.ToolCallID]
		if !ours || b.answered[m.ToolCallID] {
			continue
		}
		b.answered[m.ToolCallID] = true
		m.Name = name
		results = append(results, m)
	}
	if len(results) > 0 {
		b.toolResults += len(results)
		b.add(turn, commandToolsNode, results...)
	}
	b.obs.Usage.ModelCalls++
	ai, err := x.Answer()
	if err != nil {
		return // an error answer (a scripted raise): the program saw no message
	}
	ai.Content = plainContent(ai.Content)
	for _, c := range ai.ToolCalls {
		b.names[c.ID] = c.Name
	}
	if u := ai.UsageMetadata; u != nil {
		if u.TotalTokens == 0 {
			u.TotalTokens = u.InputTokens + u.OutputTokens
		}
		b.obs.Usage.InputTokens += u.InputTokens
		b.obs.Usage.OutputTokens += u.OutputTokens
		b.obs.Usage.TotalTokens += u.TotalTokens
		if u.TotalTokens > 0 {
			if c, ok := opts.Prices.Cost(modelID(x.Request.Model), u); ok {
				b.obs.Usage.CostUSD += c
			} else {
				b.unknownCost = true
			}
		}
	}
	b.add(turn, commandModelNode, ai)
}

// plainContent is an answer's content as text when its blocks are only
// text and tool_use blocks (an Anthropic answer, which LangChain keeps as
// blocks): the tool calls show apart, so one transcript reads the same
// whatever protocol the program spoke. Other block lists stay as they
// are.
func plainContent(c engine.Content) engine.Content {
	if !c.IsList() {
		return c
	}
	text := ""
	for _, b := range c.Blocks() {
		o, ok := b.(*engine.Object)
		if !ok {
			return c
		}
		v, _ := o.Get("type")
		switch v {
		case "text":
			t, _ := o.Get("text")
			s, _ := t.(string)
			text += s
		case "tool_use":
		default:
			return c
		}
	}
	return engine.Text(text)
}

// clientChecks checks the traffic for what the client owes its model:
// every tool call answered exactly once before the next model call,
// results paired by id, no call left dangling unless the run ended on
// an interrupt (serve.CheckClient); and every request one the provider
// would have taken (Server.Err).
func (r *commandRun) clientChecks(srv *serve.Server, obs *grade.Observed) []grade.Result {
	interrupted := len(obs.InterruptTurns) > 0 && obs.InterruptTurns[len(obs.InterruptTurns)-1] == len(r.s.Turns)-1
	var lines []string
	for _, v := range serve.CheckClient(srv.Exchanges()) {
		if v.Kind == serve.Dangling && (interrupted || obs.Err != nil) {
			continue
		}
		lines = append(lines, fmt.Sprintf("%s: %s", v.Kind, v.Message))
	}
	calls := violationResult(invClientToolCalls, lines)
	return []grade.Result{calls, violationResult(invRequestsAccepted, srv.Problems())}
}

// violationResult is an invariant's result from its violations: the
// first line of the first in the message, all of them (up to a cap) in
// the diff when there are several or one runs over several lines.
func violationResult(name string, lines []string) grade.Result {
	res := grade.Result{Name: name, Passed: len(lines) == 0}
	switch {
	case len(lines) == 1:
		first, _, more := strings.Cut(lines[0], "\n")
		res.Message = name + ": " + first
		if more {
			res.Diff = lines[0] + "\n"
		}
	case len(lines) > 1:
		first, _, _ := strings.Cut(lines[0], "\n")
		res.Message = fmt.Sprintf("%s: %s (and %d more)", name, first, len(lines)-1)
		if len(lines) > commandMaxViolations {
			lines = append(lines[:commandMaxViolations:commandMaxViolations], fmt.Sprintf("... %d more", len(lines)-commandMaxViolations))
		}
		res.Diff = strings.Join(lines, "\n") + "\n"
	}
	return res
}

// runCommandScenario runs and checks a "command" scenario as
// runScenario does an engine one: the report's trajectory, final text,
// usage and exchanges from the rebuilt run, then the graders, the
// client's invariants and the golden transcript. A provider judge calls
// through the scenario's cassette (see commandRun.source), which the
// grading finishes.
func runCommandScenario(ctx context.Context, s *Scenario, opts *Options, res report.Scenario) (report.Scenario, *grade.Observed) {
	fail := func(err error, turn int) (report.Scenario, *grade.Observed) {
		res.Status = report.StatusError
		res.Line, res.Message = locateError(s, err, turn)
		return res, nil
	}
	cr, err := runCommand(ctx, s, opts)
	res.Cassette = cr.cassette
	mode := cr.mode
	if err != nil {
		mode = opts.Mode
	}
	if cr.cassette != "" && s.Agent.Replay == ReplayByOrder && mode == cassette.ModeReplay {
		res.Replay = ReplayByOrder
	}
	if err != nil {
		return fail(fmt.Errorf("%s: %w", s.File, err), -1)
	}
	obs := cr.obs
	text := observedResult(s, &res, obs)
	st := &setup{recorder: cr.judges, cassette: cr.cassette}
	gopts := *opts
	if cr.judges != nil {
		st.judgeClient = &http.Client{Transport: markedJudge{cr.judges}}
		gopts.Mode = cr.mode
	}
	return st.gradeScenario(ctx, s, &gopts, res, obs, text, cr.checks, fail)
}
