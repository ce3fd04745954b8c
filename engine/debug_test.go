package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/google/go-cmp/cmp"
)

// stillClock is a clock stopped at one instant.
type stillClock struct{}

func (stillClock) Now() time.Time                                   { return time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC) }
func (stillClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// weatherAgent is create_react_agent with one tool the model calls once.
func weatherAgent(t *testing.T, cfg engine.ReactAgentConfig) *engine.Graph {
	t.Helper()
	cfg.Model = callingModel("weather", engine.NewObject("i", 1))
	cfg.Tools = []engine.Tool{cityTool("weather", func(context.Context, engine.ToolInvocation) (any, error) { return "sunny", nil })}
	cfg.Clock = stillClock{}
	g, err := engine.CreateReactAgent(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func hello() engine.State {
	h := engine.HumanMessage("go")
	h.ID = "h1"
	return engine.State{"messages": []engine.Message{h}}
}

// TestDebugPrints: debug=True prints every update and values chunk as
// Pregel.stream's print_mode = ["updates", "values"] does (_output:
// get_bolded_text("[mode]") and repr(payload)), and the run's result is
// the one it has without debug.
func TestDebugPrints(t *testing.T) {
	t.Parallel()
	var compiled, given bytes.Buffer
	g := weatherAgent(t, engine.ReactAgentConfig{Debug: &compiled})
	res, err := g.Invoke(context.Background(), hello(), engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	plain := weatherAgent(t, engine.ReactAgentConfig{})
	want, err := plain.Invoke(context.Background(), hello(), engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if w, g := engine.PyRepr(engine.ValueForJSON(want.Values)), engine.PyRepr(engine.ValueForJSON(res.Values)); w != g {
		t.Errorf("debug changed the result:\nwithout %s\nwith    %s", w, g)
	}
	if _, err := weatherAgent(t, engine.ReactAgentConfig{}).Invoke(context.Background(), hello(), engine.Config{Debug: &given}); err != nil {
		t.Fatal(err)
	}
	const (
		human = "HumanMessage(content='go', additional_kwargs={}, response_metadata={}, id='h1')"
		call  = "AIMessage(content='', additional_kwargs={}, response_metadata={}, id='ai1', tool_calls=[{'name': 'weather', 'args': {'i': 1}, 'id': 'call_1', 'type': 'tool_call'}])"
		tool  = "ToolMessage(content='sunny', name='weather', id='<uuid>', tool_call_id='call_1')"
		done  = "AIMessage(content='done', additional_kwargs={}, response_metadata={}, id='ai2')"
		bold  = "\x1b[1m"
		reset = "\x1b[0m"
	)
	wantLines := []string{
		bold + "[values]" + reset + " {'messages': [" + human + "]}",
		bold + "[updates]" + reset + " {'agent': {'messages': [" + call + "]}}",
		bold + "[values]" + reset + " {'messages': [" + human + ", " + call + "]}",
		bold + "[updates]" + reset + " {'tools': {'messages': [" + tool + "]}}",
		bold + "[values]" + reset + " {'messages': [" + human + ", " + call + ", " + tool + "]}",
		bold + "[updates]" + reset + " {'agent': {'messages': [" + done + "]}}",
		bold + "[values]" + reset + " {'messages': [" + human + ", " + call + ", " + tool + ", " + done + "]}",
	}
	for name, buf := range map[string]*bytes.Buffer{"compiled": &compiled, "given at invoke": &given} {
		got := strings.Split(strings.TrimSuffix(uuidRE.ReplaceAllString(buf.String(), "<uuid>"), "\n"), "\n")
		if d := cmp.Diff(wantLines, got); d != "" {
			t.Errorf("%s: debug lines (-want +got):\n%s", name, d)
		}
	}
}

// TestDebugPrintsInterrupts: with debug, an interrupt prints as an update
// chunk holding a tuple of Interrupt reprs, and Invoke still returns it.
func TestDebugPrintsInterrupts(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	agent := approvalAgent(t)
	g := engine.NewStateGraph(engine.MessagesField("messages"))
	g.AddSubgraph("helper", agent)
	g.AddEdge(engine.Start, "helper")
	parent := mustCompile(t, g, engine.CompileOptions{Checkpointer: checkpoint.NewMemory(), Debug: &buf})
	res, err := parent.Invoke(context.Background(), engine.State{"messages": []any{"ship it"}}, engine.Config{ThreadID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Interrupts) != 1 {
		t.Fatalf("Invoke interrupts = %v, want the one the subgraph raised", res.Interrupts)
	}
	want := "\x1b[1m[updates]\x1b[0m {'__interrupt__': (Interrupt(value='deploy?', id='" + res.Interrupts[0].ID + "'),)}"
	if !strings.Contains(buf.String(), want+"\n") {
		t.Errorf("debug output lacks %q:\n%s", want, buf.String())
	}
	if strings.Contains(buf.String(), "[graph=") {
		t.Errorf("subgraph chunks printed without Subgraphs:\n%s", buf.String())
	}
	buf.Reset()
	if _, err := parent.Invoke(context.Background(), engine.Command{Resume: "yes"}, engine.Config{ThreadID: "t1", Subgraphs: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\x1b[1m[updates]\x1b[0m \x1b[1;30;33m[graph=('helper:") {
		t.Errorf("with Subgraphs, the subgraph's chunks carry their namespace in yellow:\n%s", buf.String())
	}
}

// debugTrace lists a stream's debug events compactly: mode, type, step
// and the task or checkpoint they are about.
func debugTrace(t *testing.T, g *engine.Graph, input any, cfg engine.Config, modes ...engine.StreamMode) ([]string, []*engine.Object) {
	t.Helper()
	var trace []string
	var payloads []*engine.Object
	for part, err := range g.Stream(context.Background(), input, cfg, modes...) {
		if err != nil {
			trace = append(trace, "error: "+err.Error())
			break
		}
		o, ok := part.Data.(*engine.Object)
		if !ok {
			continue
		}
		kind := string(part.Mode)
		if part.Mode == engine.StreamDebug {
			typ, _ := o.Get("type")
			step, _ := o.Get("step")
			kind = fmt.Sprintf("debug %v %v", typ, step)
			p, _ := o.Get("payload")
			o = p.(*engine.Object)
		}
		payloads = append(payloads, o)
		if next, ok := o.Get("next"); ok {
			trace = append(trace, fmt.Sprintf("%s next=%v", kind, next))
			continue
		}
		name, _ := o.Get("name")
		switch {
		case o.Has("triggers"):
			trigs, _ := o.Get("triggers")
			trace = append(trace, fmt.Sprintf("%s start %v %v", kind, name, trigs))
		default:
			errV, _ := o.Get("error")
			ints, _ := o.Get("interrupts")
			trace = append(trace, fmt.Sprintf("%s result %v error=%v interrupts=%d", kind, name, errV, len(ints.([]any))))
		}
	}
	return trace, payloads
}

// TestStreamDebugModes: the checkpoints, tasks and debug modes emit what
// PregelLoop emits: a checkpoint event when the next superstep is
// planned (from the input checkpoint at step -1 to the last, whose next
// is empty), a task event per task that starts (the hidden __start__
// left out) and a task_result per task that ends, with LangGraph's key
// order (pregel/debug.py).
func TestStreamDebugModes(t *testing.T) {
	t.Parallel()
	g := weatherAgent(t, engine.ReactAgentConfig{Checkpointer: checkpoint.NewMemory()})
	trace, payloads := debugTrace(t, g, hello(), engine.Config{ThreadID: "t1"}, engine.StreamDebug)
	want := []string{
		"debug checkpoint -1 next=[__start__]",
		"debug checkpoint 0 next=[agent]",
		"debug task 1 start agent [branch:to:agent]",
		"debug task_result 1 result agent error=<nil> interrupts=0",
		"debug checkpoint 1 next=[tools]",
		"debug task 2 start tools [__pregel_push]",
		"debug task_result 2 result tools error=<nil> interrupts=0",
		"debug checkpoint 2 next=[agent]",
		"debug task 3 start agent [branch:to:agent]",
		"debug task_result 3 result agent error=<nil> interrupts=0",
		"debug checkpoint 3 next=[]",
	}
	if d := cmp.Diff(want, trace); d != "" {
		t.Errorf("debug events (-want +got):\n%s", d)
	}
	keys := map[string][]string{}
	for _, p := range payloads {
		k := strings.Join(p.Keys(), ",")
		keys[k] = p.Keys()
	}
	for _, k := range []string{"config,parent_config,values,metadata,next,tasks", "id,name,input,triggers", "id,name,error,result,interrupts"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("no payload with keys %s among %v", k, keys)
		}
	}
	first := payloads[0]
	if pc, _ := first.Get("parent_config"); pc != nil {
		t.Errorf("the input checkpoint has parent_config %v, want None", pc)
	}
	meta, _ := first.Get("metadata")
	if got := engine.PyRepr(meta); got != "{'source': 'input', 'step': -1, 'parents': {}}" {
		t.Errorf("input checkpoint metadata = %s", got)
	}
	result, _ := payloads[3].Get("result")
	if got := uuidRE.ReplaceAllString(engine.PyRepr(result), "<uuid>"); !strings.HasPrefix(got, "{'messages': [{'type': 'ai', 'content': '', 'id': 'ai1'") {
		t.Errorf("agent task_result = %s, want its message write", got)
	}

	only, _ := debugTrace(t, weatherAgent(t, engine.ReactAgentConfig{}), hello(), engine.Config{}, engine.StreamTasks)
	if len(only) != 6 || !strings.HasPrefix(only[0], "tasks start agent") {
		t.Errorf("tasks mode = %v, want three starts and three results, no checkpoints", only)
	}
	noSaver := weatherAgent(t, engine.ReactAgentConfig{})
	cps, _ := debugTrace(t, noSaver, hello(), engine.Config{}, engine.StreamCheckpoints)
	if len(cps) != 0 {
		t.Errorf("checkpoints mode without a checkpointer = %v, want nothing", cps)
	}
}

// TestStreamDebugInterruptAndError: a task that interrupts ends with its
// interrupts in its task_result; resuming starts from a checkpoint event
// whose task shows them (tasks_w_writes); a failing task's task_result
// carries the error's repr when it ran beside others.
func TestStreamDebugInterruptAndError(t *testing.T) {
	t.Parallel()
	agent := approvalAgent(t)
	g := engine.NewStateGraph(engine.MessagesField("messages"))
	g.AddSubgraph("helper", agent)
	g.AddEdge(engine.Start, "helper")
	parent := mustCompile(t, g, engine.CompileOptions{Checkpointer: checkpoint.NewMemory(), Clock: stillClock{}})
	trace, _ := debugTrace(t, parent, engine.State{"messages": []any{"ship it"}}, engine.Config{ThreadID: "t1"}, engine.StreamDebug)
	if last := trace[len(trace)-1]; last != "debug task_result 1 result helper error=<nil> interrupts=1" {
		t.Errorf("last event = %q, want helper's task_result with its interrupt (all: %v)", last, trace)
	}
	_, payloads := debugTrace(t, parent, engine.Command{Resume: "yes"}, engine.Config{ThreadID: "t1"}, engine.StreamCheckpoints)
	tasks, _ := payloads[0].Get("tasks")
	task := tasks.([]any)[0].(*engine.Object)
	ints, _ := task.Get("interrupts")
	state, _ := task.Get("state")
	if len(ints.([]any)) != 1 || !strings.Contains(engine.PyRepr(state), "'checkpoint_ns': 'helper:") {
		t.Errorf("resumed checkpoint task = %s, want its interrupt and the subgraph's config", engine.PyRepr(task))
	}

	failing := cityTool("flaky", func(context.Context, engine.ToolInvocation) (any, error) {
		return nil, engine.NewError("ValueError", "boom")
	})
	model := llm.NewScripted("m", llm.Script{Responses: []llm.Response{
		{Message: engine.Message{Type: engine.TypeAI, ID: "ai1", Content: engine.Text(""), ToolCalls: []engine.ToolCall{
			{Name: "flaky", Args: engine.NewObject("i", 1), ID: "c1"}, {Name: "flaky", Args: engine.NewObject("i", 2), ID: "c2"}}}},
	}})
	ra, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{failing}, ToolNodeOptions: engine.ToolNodeOptions{HandleToolErrors: engine.ToolErrors{Disabled: true}}})
	if err != nil {
		t.Fatal(err)
	}
	trace, _ = debugTrace(t, ra, hello(), engine.Config{}, engine.StreamTasks)
	var results []string
	for _, e := range trace {
		if strings.Contains(e, "result tools") {
			results = append(results, e)
		}
	}
	want := "tasks result tools error=ValueError('boom') interrupts=0"
	if len(results) != 2 || results[0] != want || results[1] != want {
		t.Errorf("tools task_results = %v, want two with %q", results, want)
	}
}
