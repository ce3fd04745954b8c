package middleware_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// The properties below run a real create_agent graph (scripted model,
// in-memory checkpointer) with HumanInTheLoop over a random batch of 1-8
// parallel tool calls, a random interrupt_on policy per tool and random
// decisions, and check what the issue asks of HITL:
//
//   - every tool call is answered by exactly one tool message before the
//     next model call (AnsweredOnce);
//   - an edited call keeps its id and takes the edited name and arguments
//     (EditKeepsIDs);
//   - the AI message keeps its calls in their order, and the interrupt
//     lists the reviewed calls in that order (CallOrder);
//   - a wrong number of decisions or a disallowed decision fails with
//     langchain's exact text and leaves the checkpointed state as it was
//     (InvalidDecisions).

// hitlTools is the pool of tool names a batch draws from.
var hitlTools = []string{"alpha", "beta", "gamma", "delta"}

// hitlScenario is one drawn batch: policies, calls, decisions.
type hitlScenario struct {
	policies  map[string]middleware.InterruptOn
	calls     []engine.ToolCall
	reviewed  []int // indexes into calls, in call order
	decisions []middleware.Decision
}

// drawHITLPolicies gives each tool of the pool a policy: not listed,
// false, true (all decisions) or a non-empty subset of the decisions.
func drawHITLPolicies(t *rapid.T) map[string]middleware.InterruptOn {
	policies := map[string]middleware.InterruptOn{}
	for _, name := range hitlTools {
		switch rapid.IntRange(0, 3).Draw(t, "policy kind "+name) {
		case 0: // not listed: auto-approved
		case 1: // interrupt_on: False
			policies[name] = middleware.InterruptOn{}
		case 2: // interrupt_on: True
			policies[name] = middleware.InterruptOn{AllowedDecisions: middleware.AllDecisions()}
		default:
			sub := rapid.SliceOfNDistinct(rapid.SampledFrom(middleware.AllDecisions()), 1, 3, rapid.ID[string]).Draw(t, "allowed "+name)
			policies[name] = middleware.InterruptOn{AllowedDecisions: sub}
		}
	}
	return policies
}

// drawHITLCalls draws 1-8 calls with distinct ids.
func drawHITLCalls(t *rapid.T) []engine.ToolCall {
	n := rapid.IntRange(1, 8).Draw(t, "calls")
	calls := make([]engine.ToolCall, n)
	for i := range calls {
		name := rapid.SampledFrom(hitlTools).Draw(t, fmt.Sprintf("call %d tool", i))
		calls[i] = engine.ToolCall{Name: name, Args: engine.NewObject("n", i), ID: fmt.Sprintf("call_%d", i)}
	}
	return calls
}

func reviewedCalls(policies map[string]middleware.InterruptOn, calls []engine.ToolCall) []int {
	var out []int
	for i, c := range calls {
		if len(policies[c.Name].AllowedDecisions) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// drawHITLDecision draws a decision the call's policy allows.
func drawHITLDecision(t *rapid.T, i int, allowed []string) middleware.Decision {
	switch rapid.SampledFrom(allowed).Draw(t, fmt.Sprintf("decision %d", i)) {
	case middleware.DecisionEdit:
		// "ghost" is no tool: the tool node answers it with an error
		name := rapid.SampledFrom(append(slices.Clone(hitlTools), "ghost")).Draw(t, fmt.Sprintf("edit %d tool", i))
		return middleware.Edit(name, engine.NewObject("n", 100+i, "edited", true))
	case middleware.DecisionReject:
		msg := rapid.SampledFrom([]string{"", "not now"}).Draw(t, fmt.Sprintf("reject %d message", i))
		return middleware.Reject(msg)
	default:
		return middleware.Approve()
	}
}

func drawHITLScenario(t *rapid.T) hitlScenario {
	s := hitlScenario{policies: drawHITLPolicies(t), calls: drawHITLCalls(t)}
	s.reviewed = reviewedCalls(s.policies, s.calls)
	for _, i := range s.reviewed {
		s.decisions = append(s.decisions, drawHITLDecision(t, i, s.policies[s.calls[i].Name].AllowedDecisions))
	}
	return s
}

// hitlRun is an agent built for a scenario, with what its tools saw.
type hitlRun struct {
	agent *engine.Graph
	model *llm.Scripted
	cfg   engine.Config

	mu  sync.Mutex
	ran []string // "<tool> <call id>", in completion order
}

func newHITLRun(t *rapid.T, s hitlScenario) *hitlRun {
	r := &hitlRun{cfg: engine.Config{ThreadID: "t1"}}
	r.model = llm.NewScripted("model", llm.Script{
		Responses: []llm.Response{{Message: engine.Message{Type: engine.TypeAI, ID: "ai1", ToolCalls: s.calls}}},
		Repeat:    &llm.Response{Message: engine.Message{Type: engine.TypeAI, ID: "ai-final", Content: engine.Text("done")}},
	})
	params := engine.NewObject("type", "object", "properties", engine.NewObject(
		"n", engine.NewObject("type", "integer"),
		"edited", engine.NewObject("type", "boolean"),
	))
	var tools []engine.Tool
	for _, name := range hitlTools {
		tools = append(tools, engine.NewTool(engine.ToolDef{Name: name, Description: "tool " + name, Parameters: params},
			func(_ context.Context, inv engine.ToolInvocation) (any, error) {
				r.mu.Lock()
				r.ran = append(r.ran, name+" "+inv.Call.ID)
				r.mu.Unlock()
				return fmt.Sprintf("%s ran with %s", name, engine.PyRepr(inv.Args())), nil
			}))
	}
	hitl, err := middleware.NewHumanInTheLoop(middleware.HumanInTheLoopOptions{InterruptOn: s.policies})
	if err != nil {
		t.Fatal(err)
	}
	r.agent, err = engine.CreateAgent(engine.AgentConfig{
		Model:        r.model,
		Tools:        tools,
		Middleware:   []engine.Middleware{hitl},
		Checkpointer: checkpoint.NewMemory(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// start runs the agent until the interrupt (or the end, when no call is
// reviewed) and checks the interrupt lists the reviewed calls in order.
func (r *hitlRun) start(t *rapid.T, s hitlScenario) *engine.Result {
	res, err := r.agent.Invoke(context.Background(), engine.State{"messages": []any{"go"}}, r.cfg)
	if err != nil {
		t.Fatalf("first invoke: %v", err)
	}
	if len(s.reviewed) == 0 {
		if len(res.Interrupts) != 0 {
			t.Fatalf("interrupted with no reviewed call: %s", engine.PyRepr(engine.ValueForJSON(res.Interrupts)))
		}
		return res
	}
	if len(res.Interrupts) != 1 {
		t.Fatalf("got %d interrupts, want one for all %d reviewed calls", len(res.Interrupts), len(s.reviewed))
	}
	var names, ids []any
	var allowed []any
	for _, i := range s.reviewed {
		c := s.calls[i]
		names = append(names, c.Name)
		ids = append(ids, c.Args)
		var a []any
		for _, d := range s.policies[c.Name].AllowedDecisions {
			a = append(a, d)
		}
		allowed = append(allowed, a)
	}
	v, _ := res.Interrupts[0].Value.(*engine.Object)
	var gotNames, gotArgs, gotAllowed []any
	reqs, _ := get(v, "action_requests").([]any)
	for _, a := range reqs {
		gotNames = append(gotNames, get(a, "name"))
		gotArgs = append(gotArgs, get(a, "args"))
	}
	cfgs, _ := get(v, "review_configs").([]any)
	for _, c := range cfgs {
		gotAllowed = append(gotAllowed, get(c, "allowed_decisions"))
	}
	want := hitlJSONText(t, []any{names, ids, allowed})
	if got := hitlJSONText(t, []any{gotNames, gotArgs, gotAllowed}); got != want {
		t.Fatalf("interrupt lists [names, args, allowed] %s, want %s", got, want)
	}
	return res
}

func get(v any, k string) any {
	o, _ := v.(*engine.Object)
	if o == nil {
		return nil
	}
	x, _ := o.Get(k)
	return x
}

func hitlJSONText(t *rapid.T, v any) string {
	b, err := engine.MarshalValue(engine.ValueForJSON(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// finish runs a scenario to its end and returns the final messages.
func (r *hitlRun) finish(t *rapid.T, s hitlScenario) []engine.Message {
	res := r.start(t, s)
	if len(s.reviewed) > 0 {
		var err error
		res, err = r.agent.Invoke(context.Background(), middleware.Resume(s.decisions...), r.cfg)
		if err != nil {
			t.Fatalf("resume with %s: %v", hitlJSONText(t, middleware.Resume(s.decisions...).Resume), err)
		}
		if len(res.Interrupts) != 0 {
			t.Fatalf("still interrupted after the decisions")
		}
	}
	return res.Values.Messages("messages")
}

// TestPropHITLAnsweredOnce: every call of the batch is answered by exactly
// one tool message before the next model call; rejected calls never run,
// the others run once.
func TestPropHITLAnsweredOnce(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propHITLAnsweredOnce)
}

func FuzzHITLAnsweredOnce(f *testing.F) {
	hitlSeeds(f)
	f.Fuzz(rapid.MakeFuzz(propHITLAnsweredOnce))
}

func propHITLAnsweredOnce(t *rapid.T) {
	s := drawHITLScenario(t)
	r := newHITLRun(t, s)
	r.finish(t, s)
	calls := r.model.Calls()
	if len(calls) != 2 {
		t.Fatalf("model called %d times, want 2", len(calls))
	}
	// what the second model call saw after the AI message
	sent := calls[1].Request.Messages.Slice()
	at := slices.IndexFunc(sent, func(m engine.Message) bool { return m.ID == "ai1" })
	if at < 0 {
		t.Fatalf("second model call did not get ai1")
	}
	answered := map[string]int{}
	for _, m := range sent[at+1:] {
		if m.Type != engine.TypeTool {
			t.Fatalf("after ai1 the model got a %s message, want only tool messages", m.Type)
		}
		answered[m.ToolCallID]++
	}
	rejected := map[string]bool{}
	for k, i := range s.reviewed {
		if s.decisions[k].Type == middleware.DecisionReject {
			rejected[s.calls[i].ID] = true
		}
	}
	var wantRan []string
	for _, c := range sent[at].ToolCalls {
		if answered[c.ID] != 1 {
			t.Fatalf("call %s answered %d times before the next model call, want 1", c.ID, answered[c.ID])
		}
		delete(answered, c.ID)
		if !rejected[c.ID] && slices.Contains(hitlTools, c.Name) {
			wantRan = append(wantRan, c.Name+" "+c.ID)
		}
	}
	if len(answered) > 0 {
		t.Fatalf("tool messages for calls ai1 does not have: %v", answered)
	}
	r.mu.Lock()
	ran := slices.Clone(r.ran)
	r.mu.Unlock()
	slices.Sort(ran)
	slices.Sort(wantRan)
	if diff := cmp.Diff(wantRan, ran); diff != "" {
		t.Fatalf("tools run (-want +got):\n%s", diff)
	}
}

// TestPropHITLEditKeepsIDs: an edited call keeps its id and takes the
// edited name and arguments; other calls keep theirs.
func TestPropHITLEditKeepsIDs(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propHITLEditKeepsIDs)
}

func FuzzHITLEditKeepsIDs(f *testing.F) {
	hitlSeeds(f)
	f.Fuzz(rapid.MakeFuzz(propHITLEditKeepsIDs))
}

func propHITLEditKeepsIDs(t *rapid.T) {
	s := drawHITLScenario(t)
	msgs := newHITLRun(t, s).finish(t, s)
	want := slices.Clone(s.calls)
	for k, i := range s.reviewed {
		if d := s.decisions[k]; d.Type == middleware.DecisionEdit {
			want[i] = engine.ToolCall{Name: d.Name, Args: d.Args, ID: s.calls[i].ID}
		}
	}
	ai := msgs[slices.IndexFunc(msgs, func(m engine.Message) bool { return m.ID == "ai1" })]
	if got, w := hitlJSONText(t, ai.ToolCalls), hitlJSONText(t, want); got != w {
		t.Fatalf("ai1's calls after review:\n got %s\nwant %s", got, w)
	}
	// the tool message of an edited call names the edited tool
	for _, m := range msgs {
		if m.Type != engine.TypeTool {
			continue
		}
		i := slices.IndexFunc(want, func(c engine.ToolCall) bool { return c.ID == m.ToolCallID })
		if i < 0 || m.Name != want[i].Name {
			t.Fatalf("tool message %s for %s, want the tool of call %v", m.Name, m.ToolCallID, i)
		}
	}
}

// TestPropHITLCallOrder: the AI message keeps its calls in their order,
// rejection messages come right after it in call order, and the final
// state answers the calls in that order too.
func TestPropHITLCallOrder(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propHITLCallOrder)
}

func FuzzHITLCallOrder(f *testing.F) {
	hitlSeeds(f)
	f.Fuzz(rapid.MakeFuzz(propHITLCallOrder))
}

func propHITLCallOrder(t *rapid.T) {
	s := drawHITLScenario(t)
	msgs := newHITLRun(t, s).finish(t, s)
	at := slices.IndexFunc(msgs, func(m engine.Message) bool { return m.ID == "ai1" })
	var ids, wantIDs []string
	for _, c := range msgs[at].ToolCalls {
		ids = append(ids, c.ID)
	}
	for _, c := range s.calls {
		wantIDs = append(wantIDs, c.ID)
	}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Fatalf("ai1's call ids (-want +got):\n%s", diff)
	}
	// rejections first, in call order, then the executed results in
	// call order (the ToolNode's order)
	var wantAnswers, rejected, executed []string
	for _, i := range s.reviewed {
		if s.decisions[slices.Index(s.reviewed, i)].Type == middleware.DecisionReject {
			rejected = append(rejected, s.calls[i].ID)
		}
	}
	for _, c := range s.calls {
		if !slices.Contains(rejected, c.ID) {
			executed = append(executed, c.ID)
		}
	}
	wantAnswers = append(append(wantAnswers, rejected...), executed...)
	var answers []string
	var statuses []string
	for _, m := range msgs[at+1:] {
		if m.Type == engine.TypeTool {
			answers = append(answers, m.ToolCallID)
			statuses = append(statuses, m.Status)
		}
	}
	if diff := cmp.Diff(wantAnswers, answers); diff != "" {
		t.Fatalf("order of the tool messages (-want +got):\n%s", diff)
	}
	ghost := map[string]bool{} // calls edited into an unknown tool
	for k, i := range s.reviewed {
		if s.decisions[k].Type == middleware.DecisionEdit && !slices.Contains(hitlTools, s.decisions[k].Name) {
			ghost[s.calls[i].ID] = true
		}
	}
	for k, st := range statuses {
		want := engine.StatusSuccess
		if k < len(rejected) || ghost[answers[k]] {
			want = engine.StatusError
		}
		if st != want {
			t.Fatalf("tool message %d (%s) has status %q, want %q", k, answers[k], st, want)
		}
	}
}

// TestPropHITLInvalidDecisions: a resume with the wrong number of
// decisions, or with a decision its tool's policy does not allow, fails
// with langchain's ValueError text and leaves the checkpointed state (the
// values and the checkpoint) as it was; no tool runs.
func TestPropHITLInvalidDecisions(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propHITLInvalidDecisions)
}

func FuzzHITLInvalidDecisions(f *testing.F) {
	hitlSeeds(f)
	f.Fuzz(rapid.MakeFuzz(propHITLInvalidDecisions))
}

func propHITLInvalidDecisions(t *rapid.T) {
	s := drawHITLScenario(t)
	if len(s.reviewed) == 0 {
		// make the first call reviewed so that there is an interrupt
		s.policies[s.calls[0].Name] = middleware.InterruptOn{AllowedDecisions: rapid.SliceOfNDistinct(rapid.SampledFrom(middleware.AllDecisions()), 1, 3, rapid.ID[string]).Draw(t, "forced allowed")}
		s.reviewed = reviewedCalls(s.policies, s.calls)
		s.decisions = nil
		for _, i := range s.reviewed {
			s.decisions = append(s.decisions, drawHITLDecision(t, i, s.policies[s.calls[i].Name].AllowedDecisions))
		}
	}
	var bad []int // reviewed positions whose policy does not allow everything
	for k, i := range s.reviewed {
		if len(s.policies[s.calls[i].Name].AllowedDecisions) < 3 {
			bad = append(bad, k)
		}
	}
	decisions := slices.Clone(s.decisions)
	var wantErr string
	if len(bad) > 0 && rapid.Bool().Draw(t, "disallowed") {
		k := rapid.SampledFrom(bad).Draw(t, "bad position")
		c := s.calls[s.reviewed[k]]
		allowed := s.policies[c.Name].AllowedDecisions
		var not []string
		for _, d := range middleware.AllDecisions() {
			if !slices.Contains(allowed, d) {
				not = append(not, d)
			}
		}
		d := middleware.Decision{Type: rapid.SampledFrom(not).Draw(t, "disallowed type")}
		repr := fmt.Sprintf("{'type': '%s'}", d.Type)
		if d.Type == middleware.DecisionEdit {
			d = middleware.Edit(c.Name, engine.NewObject("n", 7))
			repr = fmt.Sprintf("{'type': 'edit', 'edited_action': {'name': '%s', 'args': {'n': 7}}}", c.Name)
		}
		decisions[k] = d
		// the first disallowed decision in call order is the one reported
		for j := range k {
			if !slices.Contains(s.policies[s.calls[s.reviewed[j]].Name].AllowedDecisions, decisions[j].Type) {
				t.Fatalf("drew a disallowed decision before position %d", k)
			}
		}
		var quoted bytes.Buffer
		for j, a := range allowed {
			if j > 0 {
				quoted.WriteString(", ")
			}
			fmt.Fprintf(&quoted, "'%s'", a)
		}
		wantErr = fmt.Sprintf("ValueError: Unexpected human decision: %s. Decision type '%s' is not allowed for tool '%s'. Expected one of [%s] based on the tool's configuration.", repr, d.Type, c.Name, quoted.String())
	} else {
		n := rapid.IntRange(0, len(s.reviewed)+2).Filter(func(n int) bool { return n != len(s.reviewed) }).Draw(t, "decision count")
		decisions = decisions[:min(n, len(decisions))]
		for len(decisions) < n {
			decisions = append(decisions, middleware.Approve())
		}
		wantErr = fmt.Sprintf("ValueError: Number of human decisions (%d) does not match number of hanging tool calls (%d).", n, len(s.reviewed))
	}

	r := newHITLRun(t, s)
	r.start(t, s)
	ctx := context.Background()
	before, err := r.agent.GetState(ctx, r.cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.agent.Invoke(ctx, middleware.Resume(decisions...), r.cfg)
	gotErr := "<nil>"
	if err != nil {
		gotErr = engine.ErrorKind(err) + ": " + engine.ErrorMessage(err)
	}
	if gotErr != wantErr {
		t.Fatalf("resume with %s:\n got error %s\nwant error %s", hitlJSONText(t, middleware.Resume(decisions...).Resume), gotErr, wantErr)
	}
	after, err := r.agent.GetState(ctx, r.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if b, a := hitlJSONText(t, before.Values), hitlJSONText(t, after.Values); b != a {
		t.Fatalf("state values changed by a rejected resume:\nbefore %s\nafter  %s", b, a)
	}
	if b, a := hitlJSONText(t, before.Interrupts), hitlJSONText(t, after.Interrupts); b != a {
		t.Fatalf("pending interrupts changed by a rejected resume:\nbefore %s\nafter  %s", b, a)
	}
	if before.Config.CheckpointID != after.Config.CheckpointID {
		t.Fatalf("a rejected resume wrote checkpoint %s (was %s)", after.Config.CheckpointID, before.Config.CheckpointID)
	}
	if r.mu.Lock(); len(r.ran) > 0 {
		t.Fatalf("tools ran after a rejected resume: %v", r.ran)
	}
	r.mu.Unlock()
	if n := len(r.model.Calls()); n != 1 {
		t.Fatalf("model called %d times, want only the first call", n)
	}
}

// hitlSeeds gives the fuzz targets byte strings long enough for whole
// scenarios.
func hitlSeeds(f *testing.F) {
	counting := make([]byte, 512)
	for i := range counting {
		counting[i] = byte(i * 7)
	}
	f.Add(make([]byte, 512))
	f.Add(counting)
	f.Add(bytes.Repeat([]byte{0xff, 0x02, 0x80, 0x01}, 128))
}
