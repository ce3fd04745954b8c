package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/google/go-cmp/cmp"
)

func sumReducer() engine.Reducer {
	return engine.ReducerFunc{Initial: 0, HasInit: true, Fn: func(cur, upd any) (any, error) {
		return cur.(int) + upd.(int), nil
	}}
}

func listReducer() engine.Reducer {
	return engine.ReducerFunc{Initial: []string{}, HasInit: true, Fn: func(cur, upd any) (any, error) {
		return append(append([]string(nil), cur.([]string)...), upd.([]string)...), nil
	}}
}

func mustCompile(t *testing.T, g *engine.StateGraph, opts engine.CompileOptions) *engine.Graph {
	t.Helper()
	c, err := g.Compile(opts)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return c
}

// TestSendFanOutMergesInSendOrder: map-reduce with Send; the workers finish
// in reverse order but their writes are applied in Send order.
func TestSendFanOutMergesInSendOrder(t *testing.T) {
	const n = 8
	gates := make([]chan struct{}, n+1)
	for i := range gates {
		gates[i] = make(chan struct{})
	}
	close(gates[n])
	g := engine.NewStateGraph(engine.Field{Name: "items", Reducer: listReducer()}, engine.Field{Name: "total", Reducer: sumReducer()})
	g.AddNode("worker", func(ctx context.Context, s engine.State) (any, error) {
		i := s["i"].(int)
		<-gates[i+1]
		close(gates[i])
		return engine.State{"items": []string{fmt.Sprint("item", i)}, "total": i}, nil
	})
	g.AddConditionalEdges(engine.Start, func(context.Context, engine.State) (any, error) {
		var sends []engine.Send
		for i := 0; i < n; i++ {
			sends = append(sends, engine.Send{Node: "worker", Arg: engine.State{"i": i}})
		}
		return sends, nil
	})
	g.AddEdge("worker", engine.End)
	res, err := mustCompile(t, g, engine.CompileOptions{}).Invoke(context.Background(), engine.State{"items": []string{}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 0; i < n; i++ {
		want = append(want, fmt.Sprint("item", i))
	}
	if diff := cmp.Diff(want, res.Values["items"]); diff != "" {
		t.Errorf("items mismatch (-want +got):\n%s", diff)
	}
	if res.Values["total"] != 28 {
		t.Errorf("total = %v, want 28", res.Values["total"])
	}
}

func TestJoinEdgeWaitsForAllSources(t *testing.T) {
	g := engine.NewStateGraph(engine.Field{Name: "log", Reducer: listReducer()})
	step := func(name string) engine.NodeFunc {
		return func(context.Context, engine.State) (any, error) { return engine.State{"log": []string{name}}, nil }
	}
	g.AddNode("a", step("a")).AddNode("b", step("b")).AddNode("b2", step("b2")).AddNode("join", step("join"))
	g.AddEdge(engine.Start, "a").AddEdge(engine.Start, "b").AddEdge("b", "b2")
	g.AddJoinEdge([]string{"a", "b2"}, "join")
	g.AddEdge("join", engine.End)
	res, err := mustCompile(t, g, engine.CompileOptions{}).Invoke(context.Background(), engine.State{"log": []string{}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "b", "b2", "join"}
	if diff := cmp.Diff(want, res.Values["log"]); diff != "" {
		t.Errorf("log mismatch (-want +got):\n%s", diff)
	}
}

func TestGraphErrors(t *testing.T) {
	noop := func(context.Context, engine.State) (any, error) { return nil, nil }
	t.Run("compile problems are reported together", func(t *testing.T) {
		g := engine.NewStateGraph(engine.ValueField("x"))
		g.AddNode("a", noop).AddNode("a", noop).AddNode(engine.End, noop)
		g.AddEdge("a", "missing")
		_, err := g.Compile(engine.CompileOptions{InterruptBefore: []string{"ghost"}})
		for _, want := range []string{`node "a" already present`, `node "__end__" is reserved`, `unknown node "missing"`, "must have an entrypoint", `interrupt node "ghost" not found`} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Compile error = %v, want it to mention %q", err, want)
			}
		}
	})
	t.Run("two writes to a plain key in one step", func(t *testing.T) {
		g := engine.NewStateGraph(engine.ValueField("x"))
		w := func(context.Context, engine.State) (any, error) { return engine.State{"x": 1}, nil }
		g.AddNode("a", w).AddNode("b", w)
		g.AddEdge(engine.Start, "a").AddEdge(engine.Start, "b")
		_, err := mustCompile(t, g, engine.CompileOptions{}).Invoke(context.Background(), engine.State{"x": 0}, engine.Config{})
		if !errors.Is(err, engine.ErrInvalidUpdate) || !strings.Contains(err.Error(), "At key 'x': Can receive only one value per step.") {
			t.Errorf("error = %v, want LangGraph's InvalidUpdateError", err)
		}
	})
	t.Run("a node returning a non-dict", func(t *testing.T) {
		g := engine.NewStateGraph(engine.ValueField("x"))
		g.AddNode("a", func(context.Context, engine.State) (any, error) { return 42, nil })
		g.SetEntryPoint("a")
		_, err := mustCompile(t, g, engine.CompileOptions{}).Invoke(context.Background(), engine.State{"x": 0}, engine.Config{})
		if engine.ErrorKind(err) != "InvalidUpdateError" || !strings.Contains(err.Error(), "Expected dict, got 42") {
			t.Errorf("error = %v, want InvalidUpdateError Expected dict", err)
		}
	})
	t.Run("no input and nothing to resume", func(t *testing.T) {
		g := engine.NewStateGraph(engine.ValueField("x"))
		g.AddNode("a", noop).SetEntryPoint("a")
		_, err := mustCompile(t, g, engine.CompileOptions{}).Invoke(context.Background(), nil, engine.Config{})
		if !errors.Is(err, engine.ErrEmptyInput) {
			t.Errorf("error = %v, want EmptyInputError", err)
		}
	})
	t.Run("a checkpointer needs a thread", func(t *testing.T) {
		g := engine.NewStateGraph(engine.ValueField("x"))
		g.AddNode("a", noop).SetEntryPoint("a")
		_, err := mustCompile(t, g, engine.CompileOptions{Checkpointer: checkpoint.NewMemory()}).Invoke(context.Background(), engine.State{"x": 1}, engine.Config{})
		if err == nil || !strings.Contains(err.Error(), "ThreadID is required") {
			t.Errorf("error = %v, want a missing thread error", err)
		}
	})
}

// TestInterruptResume: a node asks twice; each resume answers the next
// question and the node re-runs from the start.
func TestInterruptResume(t *testing.T) {
	runs := 0
	g := engine.NewStateGraph(engine.ValueField("answer"))
	g.AddNode("ask", func(ctx context.Context, s engine.State) (any, error) {
		runs++
		name, err := engine.Interrupt(ctx, "name?")
		if err != nil {
			return nil, err
		}
		age, err := engine.Interrupt(ctx, "age?")
		if err != nil {
			return nil, err
		}
		return engine.State{"answer": fmt.Sprintf("%v/%v", name, age)}, nil
	})
	g.SetEntryPoint("ask")
	graph := mustCompile(t, g, engine.CompileOptions{Checkpointer: checkpoint.NewMemory()})
	cfg := engine.Config{ThreadID: "t"}
	ctx := context.Background()
	res, err := graph.Invoke(ctx, engine.State{"answer": ""}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Interrupts) != 1 || res.Interrupts[0].Value != "name?" || res.Interrupts[0].ID == "" {
		t.Fatalf("interrupts = %+v, want one asking name?", res.Interrupts)
	}
	snap, err := graph.GetState(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Next) != 1 || snap.Next[0] != "ask" || len(snap.Tasks[0].Interrupts) != 1 {
		t.Fatalf("snapshot next=%v tasks=%+v, want ask pending with its interrupt", snap.Next, snap.Tasks)
	}
	res, err = graph.Invoke(ctx, engine.Command{Resume: "Ada"}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Interrupts) != 1 || res.Interrupts[0].Value != "age?" {
		t.Fatalf("interrupts = %+v, want one asking age?", res.Interrupts)
	}
	res, err = graph.Invoke(ctx, engine.Command{Resume: 36}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Values["answer"] != "Ada/36" || len(res.Interrupts) != 0 || runs != 3 {
		t.Fatalf("answer=%v interrupts=%v runs=%d, want Ada/36, none, 3", res.Values["answer"], res.Interrupts, runs)
	}
}

// TestResumeParallelInterruptsByID: two tasks interrupt in one step; a
// plain resume is refused, a map by interrupt ID resumes both.
func TestResumeParallelInterruptsByID(t *testing.T) {
	g := engine.NewStateGraph(engine.Field{Name: "log", Reducer: listReducer()})
	ask := func(q string) engine.NodeFunc {
		return func(ctx context.Context, s engine.State) (any, error) {
			v, err := engine.Interrupt(ctx, q)
			if err != nil {
				return nil, err
			}
			return engine.State{"log": []string{fmt.Sprintf("%s=%v", q, v)}}, nil
		}
	}
	g.AddNode("a", ask("a")).AddNode("b", ask("b"))
	g.AddEdge(engine.Start, "a").AddEdge(engine.Start, "b")
	graph := mustCompile(t, g, engine.CompileOptions{Checkpointer: checkpoint.NewMemory()})
	cfg := engine.Config{ThreadID: "t"}
	ctx := context.Background()
	res, err := graph.Invoke(ctx, engine.State{"log": []string{}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Interrupts) != 2 {
		t.Fatalf("want 2 interrupts, got %+v", res.Interrupts)
	}
	if _, err := graph.Invoke(ctx, engine.Command{Resume: "x"}, cfg); err == nil || !strings.Contains(err.Error(), "multiple pending interrupts") {
		t.Fatalf("plain resume error = %v, want the multiple-interrupts error", err)
	}
	answers := map[string]any{}
	for _, in := range res.Interrupts {
		answers[in.ID] = "ans-" + in.Value.(string)
	}
	res, err = graph.Invoke(ctx, engine.Command{Resume: answers}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a=ans-a", "b=ans-b"}, res.Values["log"]); diff != "" {
		t.Errorf("log mismatch (-want +got):\n%s", diff)
	}
}

func TestCommandGotoFromNode(t *testing.T) {
	g := engine.NewStateGraph(engine.Field{Name: "log", Reducer: listReducer()})
	g.AddNode("router", func(context.Context, engine.State) (any, error) {
		return &engine.Command{Update: engine.State{"log": []string{"router"}}, Goto: "b"}, nil
	}, engine.WithEnds("a", "b"))
	g.AddNode("a", func(context.Context, engine.State) (any, error) { return engine.State{"log": []string{"a"}}, nil })
	g.AddNode("b", func(context.Context, engine.State) (any, error) { return engine.State{"log": []string{"b"}}, nil })
	g.SetEntryPoint("router")
	res, err := mustCompile(t, g, engine.CompileOptions{}).Invoke(context.Background(), engine.State{"log": []string{}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"router", "b"}, res.Values["log"]); diff != "" {
		t.Errorf("log mismatch (-want +got):\n%s", diff)
	}
}

// TestCancellationReachesTools: cancelling the run's context stops a tool
// that is waiting, and the run returns the cancellation.
func TestCancellationReachesTools(t *testing.T) {
	started := make(chan struct{})
	blocker := cityTool("block", func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	model := llm.NewScripted("m", llm.Script{Responses: []llm.Response{{Message: engine.AIMessage("", engine.ToolCall{Name: "block", Args: engine.NewObject("i", 1), ID: "c1"})}}})
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{blocker}, ToolNodeOptions: engine.ToolNodeOptions{HandleToolErrors: engine.ToolErrors{Disabled: true}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	_, err = agent.Invoke(ctx, engine.State{"messages": []any{"go"}}, engine.Config{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

func TestInvalidChatHistory(t *testing.T) {
	model := llm.NewScripted("m", llm.Script{Responses: []llm.Response{
		{Message: engine.AIMessage("", engine.ToolCall{Name: "t", Args: engine.NewObject("i", 1), ID: "c1"})},
		{Message: engine.AIMessage("never")},
	}})
	tool := cityTool("t", func(context.Context, engine.ToolInvocation) (any, error) { return "x", nil })
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{tool}, Checkpointer: checkpoint.NewMemory(), InterruptBefore: []string{"tools"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{ThreadID: "t"}
	if _, err := agent.Invoke(context.Background(), engine.State{"messages": []any{"go"}}, cfg); err != nil {
		t.Fatal(err)
	}
	_, err = agent.Invoke(context.Background(), engine.State{"messages": []any{"new question"}}, cfg)
	if !errors.Is(err, engine.ErrInvalidChatHistory) || !strings.HasPrefix(engine.ErrorMessage(err), "Found AIMessages with tool_calls that do not have a corresponding ToolMessage. Here are the first few of those tool calls: [{'name': 't', 'args': {'i': 1}, 'id': 'c1', 'type': 'tool_call'}].") {
		t.Fatalf("error = %v, want INVALID_CHAT_HISTORY", err)
	}
}

// transcript runs the agent and returns its stream as JSON lines.
func transcript(t *testing.T, maxConc int) string {
	t.Helper()
	model := llm.NewScripted("m", llm.Script{Responses: []llm.Response{
		{Message: engine.AIMessage("", callsOf("t", 12)...)},
		{Message: engine.AIMessage("done")},
	}})
	tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) {
		return engine.NewObject("i", argI(inv), "sq", argI(inv)*argI(inv)), nil
	})
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{tool}, Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for part, err := range agent.Stream(context.Background(), engine.State{"messages": []any{"go"}}, engine.Config{MaxConcurrency: maxConc}, engine.StreamUpdates, engine.StreamValues) {
		if err != nil {
			t.Fatal(err)
		}
		line, err := engine.MarshalValue(engine.ValueForJSON(part.Data))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s\n", part.Mode, line)
	}
	return b.String()
}

// TestTranscriptIsDeterministic: the same run gives the same bytes at any
// concurrency, IDs included.
func TestTranscriptIsDeterministic(t *testing.T) {
	want := transcript(t, 0)
	for _, c := range []int{1, 2, 7, 0} {
		if got := transcript(t, c); got != want {
			t.Fatalf("transcript at max_concurrency=%d differs:\n%s", c, cmp.Diff(want, got))
		}
	}
}

func TestStreamCustom(t *testing.T) {
	g := engine.NewStateGraph(engine.ValueField("x"))
	g.AddNode("a", func(ctx context.Context, s engine.State) (any, error) {
		rt := engine.RuntimeFrom(ctx)
		rt.StreamWriter("progress 1")
		rt.StreamWriter("progress 2")
		return engine.State{"x": rt.Context}, nil
	})
	g.SetEntryPoint("a")
	var got []any
	for part, err := range mustCompile(t, g, engine.CompileOptions{}).Stream(context.Background(), engine.State{"x": 0}, engine.Config{Context: "ctx-value"}, engine.StreamCustom, engine.StreamValues) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, part.Data)
	}
	want := []any{engine.State{"x": 0}, "progress 1", "progress 2", engine.State{"x": "ctx-value"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stream mismatch (-want +got):\n%s", diff)
	}
}

// TestValidationNodeReprompt is the reference document's ValidationNode
// example: the model must pick 37; a wrong pick is sent back with the
// validation error until it complies.
func TestValidationNodeReprompt(t *testing.T) {
	selectNumber := engine.ToolSchema{Name: "SelectNumber", Parameters: engine.NewObject("type", "object", "properties", engine.NewObject("a", engine.NewObject("type", "integer")), "required", []any{"a"})}
	vn, err := engine.NewValidationNode([]engine.ToolSchema{selectNumber}, engine.ValidationNodeOptions{Checks: map[string]func(*engine.Object) error{
		"SelectNumber": func(args *engine.Object) error {
			if a, _ := args.Get("a"); fmt.Sprint(a) != "37" {
				return errors.New("only 37 is allowed")
			}
			return nil
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	model := llm.NewScripted("m", llm.Script{Responses: []llm.Response{
		{Message: engine.AIMessage("", engine.ToolCall{Name: "SelectNumber", Args: engine.NewObject("a", 36), ID: "c1"})},
		{Message: engine.AIMessage("", engine.ToolCall{Name: "SelectNumber", Args: engine.NewObject("a", 37), ID: "c2"})},
	}})
	g := engine.NewStateGraph(engine.MessagesField("messages"))
	g.AddNode("model", func(ctx context.Context, s engine.State) (any, error) {
		m, err := model.Generate(ctx, engine.ModelRequest{Messages: engine.NewMessageList(s.Messages("messages")...), Tools: []engine.ToolSchema{selectNumber}})
		if err != nil {
			return nil, err
		}
		return engine.State{"messages": []engine.Message{m}}, nil
	})
	g.AddNode("validation", vn.Node())
	g.SetEntryPoint("model")
	g.AddConditionalEdges("model", func(_ context.Context, s engine.State) (any, error) {
		msgs := s.Messages("messages")
		if len(msgs[len(msgs)-1].ToolCalls) > 0 {
			return "validation", nil
		}
		return engine.End, nil
	}, "validation", engine.End)
	g.AddConditionalEdges("validation", func(_ context.Context, s engine.State) (any, error) {
		msgs := s.Messages("messages")
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Type == engine.TypeAI {
				return engine.End, nil
			}
			if v, _ := msgs[i].AdditionalKwargs.Get("is_error"); v == true {
				return "model", nil
			}
		}
		return engine.End, nil
	}, "model", engine.End)
	res, err := mustCompile(t, g, engine.CompileOptions{}).Invoke(context.Background(), engine.State{"messages": []any{[]any{"user", "Select a number, any number"}}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := res.Values.Messages("messages")
	var got []string
	for _, m := range msgs {
		got = append(got, fmt.Sprintf("%s:%s", m.Type, m.Text()))
	}
	if len(msgs) != 5 || !strings.Contains(msgs[2].Text(), "Value error, only 37 is allowed") || !strings.HasSuffix(msgs[2].Text(), "\n\nRespond after fixing all validation errors.") || msgs[4].Text() != `{"a":37}` {
		t.Fatalf("transcript = %q, want a rejected 36 then an accepted {\"a\":37}", got)
	}
}

// TestHumanInterruptTypes: the prebuilt HumanInterrupt payload and the
// responses a human may give, through interrupt().
func TestHumanInterruptTypes(t *testing.T) {
	req := engine.HumanInterrupt{
		ActionRequest: engine.ActionRequest{Action: "run_command", Args: engine.NewObject("command", "ls", "args", []any{"-l"})},
		Config:        engine.HumanInterruptConfig{AllowIgnore: true, AllowRespond: true, AllowEdit: false, AllowAccept: true},
		Description:   "Please review the command before execution",
	}
	g := engine.NewStateGraph(engine.ValueField("result"))
	g.AddNode("review", func(ctx context.Context, s engine.State) (any, error) {
		resp, err := engine.AskHuman(ctx, req)
		if err != nil {
			return nil, err
		}
		return engine.State{"result": resp[0].Type + ":" + resp[0].Text}, nil
	})
	g.SetEntryPoint("review")
	graph := mustCompile(t, g, engine.CompileOptions{Checkpointer: checkpoint.NewMemory()})
	cfg := engine.Config{ThreadID: "t"}
	ctx := context.Background()
	res, err := graph.Invoke(ctx, engine.State{"result": ""}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := engine.MarshalValue(engine.ValueForJSON(res.Interrupts[0].Value))
	want := `[{"action_request":{"action":"run_command","args":{"command":"ls","args":["-l"]}},"config":{"allow_ignore":true,"allow_respond":true,"allow_edit":false,"allow_accept":true},"description":"Please review the command before execution"}]`
	if string(payload) != want {
		t.Fatalf("payload = %s, want %s", payload, want)
	}
	// an edit is not allowed by this interrupt
	_, err = graph.Invoke(ctx, engine.Command{Resume: []any{engine.NewObject("type", "edit", "args", engine.NewObject("action", "x"))}}, cfg)
	if err == nil || !strings.Contains(err.Error(), `"edit" is not allowed`) {
		t.Fatalf("edit error = %v, want it refused", err)
	}
	res, err = graph.Invoke(ctx, engine.Command{Resume: []any{engine.NewObject("type", "response", "args", "use ls -la")}}, engine.Config{ThreadID: "t2"})
	if err == nil {
		t.Fatalf("resuming a thread with no interrupt should fail, got %+v", res)
	}
}

func TestHumanResponseParsing(t *testing.T) {
	all := engine.HumanInterruptConfig{AllowIgnore: true, AllowRespond: true, AllowEdit: true, AllowAccept: true}
	tests := []struct {
		reason string
		in     string
		want   string // response as JSON, or error substring
		err    bool
	}{
		{"accept carries no args", `{"type":"accept","args":null}`, `{"type":"accept","args":null}`, false},
		{"a response carries text", `{"type":"response","args":"try again"}`, `{"type":"response","args":"try again"}`, false},
		{"an edit carries the new action", `{"type":"edit","args":{"action":"ls","args":{"path":"/tmp"}}}`, `{"type":"edit","args":{"action":"ls","args":{"path":"/tmp"}}}`, false},
		{"unknown types are named", `{"type":"maybe"}`, `type "maybe" is not one of accept, ignore, response, edit`, true},
		{"a response needs text", `{"type":"response","args":3}`, `needs args to be a string, got int`, true},
		{"an edit needs an action", `{"type":"edit","args":{"args":{}}}`, `args.action to be a non-empty string`, true},
		{"a response is a dict", `"yes"`, `expected {"type": ..., "args": ...}`, true},
	}
	for _, tc := range tests {
		v, err := engine.DecodeJSON([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		r, err := engine.ParseHumanResponse(v, all)
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error = %v, want %q", tc.reason, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.reason, err)
			continue
		}
		b, _ := json.Marshal(r.ToValue())
		if string(b) != tc.want {
			t.Errorf("%s: got %s, want %s", tc.reason, b, tc.want)
		}
	}
}

// TestCheckpointListPrefix: each checkpoint tells how many messages are
// unchanged from its parent, so a checkpointer can store only new ones; a
// replacement (the pre-model hook's remove-all) resets it.
func TestCheckpointListPrefix(t *testing.T) {
	model := llm.NewScripted("m", llm.Script{Responses: []llm.Response{
		{Message: withID(engine.AIMessage("", engine.ToolCall{Name: "t", Args: engine.NewObject("i", 1), ID: "c1"}), "ai1")},
		{Message: withID(engine.AIMessage("done"), "ai2")},
	}})
	tool := cityTool("t", func(context.Context, engine.ToolInvocation) (any, error) { return "x", nil })
	saver := checkpoint.NewMemory()
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{tool}, Checkpointer: saver})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := engine.Config{ThreadID: "t"}
	if _, err := agent.Invoke(ctx, engine.State{"messages": []any{"go"}}, cfg); err != nil {
		t.Fatal(err)
	}
	list, err := saver.List(ctx, engine.CheckpointConfig{ThreadID: "t"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(list) - 1; i >= 0; i-- {
		cp := list[i].Checkpoint
		msgs := engine.State(cp.ChannelValues).Messages("messages")
		n := len(msgs)
		p, ok := cp.ListPrefix["messages"]
		got = append(got, fmt.Sprintf("%s/%d:%d,%v", list[i].Metadata.Source, n, p, ok))
	}
	// input (no messages stored yet), start (human added to an empty list), agent,
	// tools, agent: each keeps all its parent's messages
	want := []string{"input/0:0,false", "loop/1:0,true", "loop/2:1,true", "loop/3:2,true", "loop/4:3,true"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prefixes mismatch (-want +got):\n%s", diff)
	}
}
