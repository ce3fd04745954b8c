package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/google/go-cmp/cmp"
)

// These tests exercise ToolNode features that the conformance vectors do
// not reach: InjectedRuntime (ToolRuntime in langgraph-prebuilt), the
// error for an injected store without one, a ToolNode given to
// CreateReactAgent in place of tools, a Command with goto returned by a
// tool, and ValidationNode's format_error.

// callingModel answers with one call of tool, then with "done".
func callingModel(tool string, args *engine.Object) *llm.Scripted {
	return llm.NewScripted("m", llm.Script{Responses: []llm.Response{
		{Message: engine.Message{Type: engine.TypeAI, ID: "ai1", Content: engine.Text(""), ToolCalls: []engine.ToolCall{{Name: tool, Args: args, ID: "call_1"}}}},
		{Message: engine.Message{Type: engine.TypeAI, ID: "ai2", Content: engine.Text("done")}},
	}})
}

func lastToolMessage(t *testing.T, res *engine.Result) engine.Message {
	t.Helper()
	msgs := res.Values.Messages("messages")
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Type == engine.TypeTool {
			return msgs[i]
		}
	}
	t.Fatalf("no tool message in %v", msgs)
	return engine.Message{}
}

// TestInjectRuntime: a tool asking for the runtime gets the run's context,
// store, node and step, and the model never sees the argument
// (tool_node.py _inject_tool_args, ToolRuntime).
func TestInjectRuntime(t *testing.T) {
	t.Parallel()
	tool := engine.NewTool(engine.ToolDef{Name: "whoami", Description: "Say where it runs.",
		Parameters: engine.NewObject("type", "object", "properties", &engine.Object{}),
		Inject:     []engine.Injection{{Arg: "runtime", Kind: engine.InjectRuntime}}},
		func(_ context.Context, inv engine.ToolInvocation) (any, error) {
			rt, ok := inv.Injected["runtime"].(*engine.Runtime)
			if !ok || rt != inv.Runtime {
				return nil, fmt.Errorf("runtime not injected: %T", inv.Injected["runtime"])
			}
			return fmt.Sprintf("context=%v node=%s step=%d store=%t", rt.Context, rt.Node, rt.Step, rt.Store != nil), nil
		})
	model := callingModel("whoami", &engine.Object{})
	g, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{tool}, Store: checkpoint.NewMemoryStore(engine.SystemClock{})})
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Invoke(context.Background(), engine.State{"messages": []engine.Message{engine.HumanMessage("where?")}}, engine.Config{Context: "tenant-7"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lastToolMessage(t, res).Text(), "context=tenant-7 node=tools step=2 store=true"; got != want {
		t.Errorf("tool message = %q, want %q", got, want)
	}
	params := model.Calls()[0].Request.Tools[0].Parameters
	if props, _ := params.Get("properties"); props.(*engine.Object).Has("runtime") {
		t.Errorf("the model sees the injected runtime argument: %s", engine.PyRepr(params))
	}
}

// TestInjectStoreWithoutStore: a tool that wants the store in a graph
// compiled without one fails with LangGraph's ValueError text
// (tool_node.py _inject_store).
func TestInjectStoreWithoutStore(t *testing.T) {
	t.Parallel()
	tool := engine.NewTool(engine.ToolDef{Name: "remember", Description: "Store a fact.",
		Parameters: engine.NewObject("type", "object", "properties", &engine.Object{}),
		Inject:     []engine.Injection{{Arg: "store", Kind: engine.InjectStore}}},
		func(context.Context, engine.ToolInvocation) (any, error) { return "stored", nil })
	g, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: callingModel("remember", &engine.Object{}), Tools: []engine.Tool{tool}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Invoke(context.Background(), engine.State{"messages": []engine.Message{engine.HumanMessage("remember")}}, engine.Config{})
	const want = "Cannot inject store into tools with InjectedStore annotations - please compile your graph with a store."
	if err == nil || !strings.Contains(err.Error(), want) || engine.ErrorKind(err) != "ValueError" {
		t.Errorf("Invoke error = %v (kind %q), want ValueError %q", err, engine.ErrorKind(err), want)
	}
}

// TestReactAgentWithToolNode: a ToolNode given to create_react_agent is
// used as it is, with its own error handling (chat_agent_executor.py
// accepts a ToolNode for tools).
func TestReactAgentWithToolNode(t *testing.T) {
	t.Parallel()
	failing := cityTool("flaky", func(context.Context, engine.ToolInvocation) (any, error) {
		return nil, engine.NewError("ValueError", "down")
	})
	tn, err := engine.NewToolNode([]engine.Tool{failing}, engine.ToolNodeOptions{HandleToolErrors: engine.ToolErrors{Message: "flaky is down, try later"}})
	if err != nil {
		t.Fatal(err)
	}
	model := callingModel("flaky", engine.NewObject("i", 1))
	g, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, ToolNode: tn})
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Invoke(context.Background(), engine.State{"messages": []engine.Message{engine.HumanMessage("go")}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	msg := lastToolMessage(t, res)
	if msg.Text() != "flaky is down, try later" || msg.Status != engine.StatusError {
		t.Errorf("tool message = %q (%s), want the ToolNode's own error text", msg.Text(), msg.Status)
	}
	if tools := model.Calls()[0].Request.Tools; len(tools) != 1 || tools[0].Name != "flaky" {
		t.Errorf("model bound %v, want the ToolNode's tools", tools)
	}
}

// TestToolCommandGoto: a tool returning a Command with goto sends the run
// to that node as well as along the ToolNode's own edge, with the
// Command's update applied (Command(goto=...) from a tool; Pregel adds
// the goto to the static edges).
func TestToolCommandGoto(t *testing.T) {
	t.Parallel()
	tool := cityTool("handoff", func(_ context.Context, inv engine.ToolInvocation) (any, error) {
		return &engine.Command{
			Update: engine.State{"messages": []engine.Message{engine.ToolMessage(engine.Text("handing off"), "handoff", inv.Call.ID)}},
			Goto:   "specialist",
		}, nil
	})
	tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		ran []string // nodes of one superstep run concurrently
	)
	note := func(name string) engine.NodeFunc {
		return func(context.Context, engine.State) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			ran = append(ran, name)
			return nil, nil
		}
	}
	g := engine.NewStateGraph(engine.MessagesField("messages"))
	g.AddNode("tools", tn.Node())
	g.AddNode("after", note("after"))
	g.AddNode("specialist", note("specialist"))
	g.AddEdge(engine.Start, "tools")
	g.AddEdge("tools", "after")
	g.AddEdge("after", engine.End)
	g.AddEdge("specialist", engine.End)
	compiled, err := g.Compile(engine.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ai := engine.AIMessage("", engine.ToolCall{Name: "handoff", Args: engine.NewObject("i", 1), ID: "call_1"})
	ai.ID = "ai1"
	res, err := compiled.Invoke(context.Background(), engine.State{"messages": []engine.Message{ai}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := lastToolMessage(t, res).Text(); got != "handing off" {
		t.Errorf("tool message = %q, want the Command's update", got)
	}
	slices.Sort(ran)
	if d := cmp.Diff([]string{"after", "specialist"}, ran); d != "" {
		t.Errorf("nodes after the tools (-want +got):\n%s", d)
	}
}

// TestValidationNodeFormatError: format_error builds the error text from
// the error, the call and the schema; the message stays an error tool
// message (validation.py ValidationNode, format_error).
func TestValidationNodeFormatError(t *testing.T) {
	t.Parallel()
	schema := engine.ToolSchema{Name: "Person", Description: "A person.",
		Parameters: engine.NewObject("type", "object", "properties", engine.NewObject("age", engine.NewObject("type", "integer")), "required", []any{"age"})}
	n, err := engine.NewValidationNode([]engine.ToolSchema{schema}, engine.ValidationNodeOptions{
		FormatError: func(err error, call engine.ToolCall, s engine.ToolSchema) string {
			return fmt.Sprintf("%s(%s) for %s is invalid", s.Name, call.ID, call.Name)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ai := engine.AIMessage("", engine.ToolCall{Name: "Person", Args: engine.NewObject("age", "old"), ID: "call_p"})
	out, err := n.Invoke(context.Background(), engine.State{"messages": []engine.Message{ai}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := toolMessages(t, out)
	if len(msgs) != 1 || msgs[0].Text() != "Person(call_p) for Person is invalid" {
		t.Fatalf("ValidationNode answered %v, want the format_error text", msgs)
	}
	if v, _ := msgs[0].AdditionalKwargs.Get("is_error"); v != true {
		t.Errorf("additional_kwargs = %s, want is_error true", engine.PyRepr(msgs[0].AdditionalKwargs))
	}
}

// TestNodeTagsChangeNothing: ToolNode and ValidationNode keep their tags
// (tool_node.py and tool_validator.py pass tags=tags, trace=False to
// RunnableCallable) but a run is the same with them: LangGraph reads a
// task's tags from its PregelNode, never from the node's runnable, so not
// even TAG_HIDDEN ("langsmith:hidden") hides the tools node's update
// chunk or its tool messages in "messages" mode.
func TestNodeTagsChangeNothing(t *testing.T) {
	t.Parallel()
	tags := []string{"langsmith:hidden", "nostream", "team:weather"}
	run := func(tags []string) []string {
		tool := cityTool("weather", func(context.Context, engine.ToolInvocation) (any, error) { return "sunny", nil })
		tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{Tags: tags})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tags, tn.Tags()); d != "" {
			t.Errorf("ToolNode.Tags() (-want +got):\n%s", d)
		}
		g, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: callingModel("weather", engine.NewObject("i", 1)), ToolNode: tn})
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		for part, err := range g.Stream(context.Background(), engine.State{"messages": []engine.Message{engine.HumanMessage("go")}}, engine.Config{}, engine.StreamUpdates, engine.StreamMessages) {
			if err != nil {
				t.Fatal(err)
			}
			switch part.Mode {
			case engine.StreamUpdates:
				for node := range part.Data.(map[string]any) {
					seen = append(seen, "updates:"+node)
				}
			case engine.StreamMessages:
				c := part.Data.(engine.MessageChunk)
				node, _ := c.Metadata.Get("langgraph_node")
				seen = append(seen, fmt.Sprintf("messages:%s:%s", node, c.Message.Type))
			}
		}
		return seen
	}
	with := run(tags)
	if !slices.Contains(with, "updates:tools") || !slices.Contains(with, "messages:tools:tool") {
		t.Errorf("stream with tags = %v, want the tools node's update chunk and tool message", with)
	}
	if d := cmp.Diff(run(nil), with); d != "" {
		t.Errorf("stream with tags differs from the stream without (-without +with):\n%s", d)
	}
	schema := engine.ToolSchema{Name: "Person", Parameters: engine.NewObject("type", "object", "properties", &engine.Object{})}
	vn, err := engine.NewValidationNode([]engine.ToolSchema{schema}, engine.ValidationNodeOptions{Tags: tags})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(tags, vn.Tags()); d != "" {
		t.Errorf("ValidationNode.Tags() (-want +got):\n%s", d)
	}
}
