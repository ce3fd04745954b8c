package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/google/go-cmp/cmp"
)

// approvalAgent is a create_react_agent named "helper" whose one tool
// asks a human (interrupt) before it answers.
func approvalAgent(t *testing.T) *engine.Graph {
	t.Helper()
	model := llm.NewScripted("m", llm.Script{Responses: []llm.Response{
		{Message: engine.AIMessage("", engine.ToolCall{Name: "deploy", Args: engine.NewObject("i", 1), ID: "c1"})},
		{Message: engine.AIMessage("deployed")},
	}})
	deploy := cityTool("deploy", func(ctx context.Context, _ engine.ToolInvocation) (any, error) {
		v, err := engine.Interrupt(ctx, "deploy?")
		if err != nil {
			return nil, err
		}
		return fmt.Sprintf("answer: %v", v), nil
	})
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{deploy}, Name: "helper"})
	if err != nil {
		t.Fatal(err)
	}
	return agent
}

// parentGraph runs the agent as the node "helper" of a graph that then
// runs "report".
func parentGraph(t *testing.T, agent *engine.Graph, saver engine.Checkpointer) *engine.Graph {
	t.Helper()
	g := engine.NewStateGraph(engine.MessagesField("messages"))
	g.AddSubgraph("helper", agent)
	g.AddNode("report", func(_ context.Context, s engine.State) (any, error) {
		return engine.State{"messages": []engine.Message{engine.AIMessage(fmt.Sprintf("report: %d messages", len(s.Messages("messages"))))}}, nil
	})
	g.AddEdge(engine.Start, "helper")
	g.AddEdge("helper", "report")
	return mustCompile(t, g, engine.CompileOptions{Checkpointer: saver})
}

// TestSubgraphInterruptResume: an agent used as a node (add_node(name,
// compiled)) runs in its own checkpoint namespace "helper:<task id>"
// with the parent's checkpointer; interrupt() inside it pauses the parent,
// get_state(subgraphs=True) shows the subgraph's paused state in the
// task, and Command(resume=...) on the parent resumes the subgraph where
// it stopped (pregel/_loop.py, _retry.py and main.py get_state).
func TestSubgraphInterruptResume(t *testing.T) {
	ctx := context.Background()
	saver := checkpoint.NewMemory()
	parent := parentGraph(t, approvalAgent(t), saver)
	cfg := engine.Config{ThreadID: "t1"}
	res, err := parent.Invoke(ctx, engine.State{"messages": []any{"ship it"}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Interrupts) != 1 || res.Interrupts[0].Value != "deploy?" {
		t.Fatalf("Invoke interrupts = %+v, want one asking deploy?", res.Interrupts)
	}
	snap, err := parent.GetState(ctx, engine.Config{ThreadID: "t1", Subgraphs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(snap.Next, []string{"helper"}) || len(snap.Tasks) != 1 {
		t.Fatalf("parent Next = %v, tasks %d; want [helper], 1", snap.Next, len(snap.Tasks))
	}
	task := snap.Tasks[0]
	if task.State == nil {
		t.Fatal("GetState(Subgraphs) gave no subgraph state")
	}
	sub := task.State
	if !cmp.Equal(sub.Next, []string{"tools"}) {
		t.Errorf("subgraph Next = %v, want [tools]", sub.Next)
	}
	if want := "helper:" + task.ID; sub.Config.CheckpointNS != want {
		t.Errorf("subgraph namespace = %q, want %q", sub.Config.CheckpointNS, want)
	}
	if got := sub.Metadata.Parents[""]; got != snap.Config.CheckpointID {
		t.Errorf("subgraph metadata parents[\"\"] = %q, want the parent's checkpoint %q", got, snap.Config.CheckpointID)
	}
	if len(sub.Interrupts) != 1 || sub.Interrupts[0].ID != res.Interrupts[0].ID {
		t.Errorf("subgraph interrupts = %+v, want the one the parent reported", sub.Interrupts)
	}
	plain, err := parent.GetState(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c := plain.Tasks[0].StateConfig; c == nil || c.CheckpointNS != sub.Config.CheckpointNS || plain.Tasks[0].State != nil {
		t.Errorf("GetState without Subgraphs: task state config = %+v, want the namespace only", c)
	}

	res, err = parent.Invoke(ctx, engine.Command{Resume: "yes"}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Values.Messages("messages") {
		got = append(got, fmt.Sprintf("%s/%s:%s", m.Type, m.Name, m.Text()))
	}
	want := []string{"human/:ship it", "ai/helper:", "tool/deploy:answer: yes", "ai/helper:deployed", "ai/:report: 4 messages"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("messages after resume mismatch (-want +got):\n%s", d)
	}
}

// TestSubgraphStream: with Config.Subgraphs a stream yields the
// subgraph's chunks under its namespace ("helper:<task id>") and the
// parent's with none; without it only the parent's, where the subgraph
// node's update is the subgraph's output.
func TestSubgraphStream(t *testing.T) {
	ctx := context.Background()
	for _, subgraphs := range []bool{false, true} {
		parent := parentGraph(t, approvalAgent(t), checkpoint.NewMemory())
		cfg := engine.Config{ThreadID: "t1", Subgraphs: subgraphs}
		if _, err := parent.Invoke(ctx, engine.State{"messages": []any{"go"}}, cfg); err != nil {
			t.Fatal(err)
		}
		var got []string
		for part, err := range parent.Stream(ctx, engine.Command{Resume: "ok"}, cfg, engine.StreamUpdates) {
			if err != nil {
				t.Fatal(err)
			}
			ns := "()"
			if part.Namespace != nil {
				ns = strings.Join(part.Namespace, ",")
				if !strings.HasPrefix(ns, "helper:") || strings.Contains(ns, "|") {
					t.Errorf("namespace %q, want helper:<task id>", ns)
				}
				ns = "helper"
			}
			for node := range part.Data.(map[string]any) {
				got = append(got, ns+" "+node)
			}
		}
		want := []string{"() helper", "() report"}
		if subgraphs {
			want = []string{"helper tools", "helper agent", "() helper", "() report"}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("Subgraphs=%v: chunks mismatch (-want +got):\n%s", subgraphs, d)
		}
	}
}

// TestSubgraphCommandParent: a Command with Graph CommandParent returned
// inside a subgraph is the subgraph node's output in the parent (its
// update and goto apply there); at the top level it fails with
// LangGraph's "There is no parent graph".
func TestSubgraphCommandParent(t *testing.T) {
	ctx := context.Background()
	inner := engine.NewStateGraph(engine.ValueField("route"))
	inner.AddNode("decide", func(context.Context, engine.State) (any, error) {
		return &engine.Command{Graph: engine.CommandParent, Update: engine.State{"route": "b"}, Goto: "b"}, nil
	})
	inner.AddEdge(engine.Start, "decide")
	sub := mustCompile(t, inner, engine.CompileOptions{})
	outer := engine.NewStateGraph(engine.ValueField("route"), engine.ValueField("visited"))
	outer.AddSubgraph("router", sub, engine.WithEnds("a", "b"))
	for _, n := range []string{"a", "b"} {
		outer.AddNode(n, func(context.Context, engine.State) (any, error) { return engine.State{"visited": n}, nil })
	}
	outer.AddEdge(engine.Start, "router")
	g := mustCompile(t, outer, engine.CompileOptions{})
	res, err := g.Invoke(ctx, engine.State{"route": "?"}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Values["route"] != "b" || res.Values["visited"] != "b" {
		t.Errorf("values = %v, want route b, visited b", res.Values)
	}
	if _, err := sub.Invoke(ctx, engine.State{"route": "?"}, engine.Config{}); err == nil || engine.ErrorKind(err) != "InvalidUpdateError" || !strings.Contains(err.Error(), "There is no parent graph") {
		t.Errorf("top-level Command(graph=PARENT) error = %v, want InvalidUpdateError: There is no parent graph", err)
	}
}

// TestSubgraphStreamMessages follows StreamMessagesHandler
// (pregel/_messages.py) for an agent used as a node: a node's input
// messages count as streamed when it starts (on_chain_start), so the
// parent's subgraph node, which writes back the whole conversation, never
// streams the user's message again. Without Subgraphs the subgraph's
// models do not stream (on_chat_model_start skips a namespace below the
// top) and its messages come whole when the node ends, under the parent's
// node and no namespace; with Subgraphs they come chunk by chunk under
// the subgraph's namespace and inner node, and nothing is repeated.
func TestSubgraphStreamMessages(t *testing.T) {
	ctx := context.Background()
	newAgent := func() *engine.Graph {
		model := llm.NewScripted("m", llm.Script{ChunkSize: 5, Responses: []llm.Response{
			{Message: engine.AIMessage("", engine.ToolCall{Name: "deploy", Args: engine.NewObject("i", 1), ID: "c1"})},
			{Message: engine.AIMessage("deployed it")},
		}})
		deploy := cityTool("deploy", func(context.Context, engine.ToolInvocation) (any, error) { return "ok", nil })
		agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{deploy}, Name: "helper"})
		if err != nil {
			t.Fatal(err)
		}
		return agent
	}
	tests := []struct {
		subgraphs bool
		want      []string
	}{
		{false, []string{
			`() helper ai ""`, `() helper tool "ok"`, `() helper ai "deployed it"`,
			`() report ai "report: 4 messages"`,
		}},
		{true, []string{
			`helper agent ai ""`, `helper tools tool "ok"`, `helper agent ai "deplo"`, `helper agent ai "yed i"`, `helper agent ai "t"`,
			`() report ai "report: 4 messages"`,
		}},
	}
	for _, tc := range tests {
		parent := parentGraph(t, newAgent(), checkpoint.NewMemory())
		var got []string
		for part, err := range parent.Stream(ctx, engine.State{"messages": []any{"ship it"}}, engine.Config{ThreadID: "t1", Subgraphs: tc.subgraphs}, engine.StreamMessages) {
			if err != nil {
				t.Fatal(err)
			}
			c := part.Data.(engine.MessageChunk)
			ns := "()"
			if part.Namespace != nil {
				ns, _, _ = strings.Cut(strings.Join(part.Namespace, "|"), ":")
			}
			node, _ := c.Metadata.Get("langgraph_node")
			got = append(got, fmt.Sprintf("%s %v %s %q", ns, node, c.Message.Type, c.Message.Text()))
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("Subgraphs=%v: messages mismatch (-want +got):\n%s", tc.subgraphs, d)
		}
	}
}

// TestSubgraphStateByNamespace: a config naming a subgraph task's
// namespace reads that subgraph's checkpoints (get_state and
// get_state_history route a namespaced config to the subgraph by its
// name, pregel/main.py): the namespace of a finished subgraph task is
// "node:<id of the parent's task>", its history the subgraph's own
// supersteps; a namespace no subgraph has is LangGraph's ValueError, and
// a run given one is refused.
func TestSubgraphStateByNamespace(t *testing.T) {
	ctx := context.Background()
	saver := checkpoint.NewMemory()
	parent := parentGraph(t, approvalAgent(t), saver)
	cfg := engine.Config{ThreadID: "t1"}
	if _, err := parent.Invoke(ctx, engine.State{"messages": []any{"ship it"}}, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := parent.Invoke(ctx, engine.Command{Resume: "yes"}, cfg); err != nil {
		t.Fatal(err)
	}
	hist, err := parent.GetStateHistory(ctx, cfg, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// the checkpoint that scheduled "helper" names the task
	var ns string
	for _, h := range hist {
		for _, task := range h.Tasks {
			if task.Name == "helper" {
				ns = "helper:" + task.ID
			}
		}
	}
	if ns == "" {
		t.Fatal("no checkpoint of the parent scheduled helper")
	}
	sub, err := parent.GetStateHistory(ctx, engine.Config{ThreadID: "t1", CheckpointNS: ns}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for i := len(sub) - 1; i >= 0; i-- {
		h := sub[i]
		if h.Config.CheckpointNS != ns {
			t.Errorf("subgraph checkpoint namespace %q, want %q", h.Config.CheckpointNS, ns)
		}
		steps = append(steps, fmt.Sprintf("%d %s %v", h.Metadata.Step, h.Metadata.Source, h.Next))
	}
	want := []string{"-1 input [__start__]", "0 loop [agent]", "1 loop [tools]", "2 loop [agent]", "3 loop []"}
	if d := cmp.Diff(want, steps); d != "" {
		t.Errorf("subgraph history mismatch (-want +got):\n%s", d)
	}
	last, err := parent.GetState(ctx, engine.Config{ThreadID: "t1", CheckpointNS: ns})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(last.Values.Messages("messages")); got != 4 {
		t.Errorf("subgraph's last state has %d messages, want 4", got)
	}
	_, err = parent.GetState(ctx, engine.Config{ThreadID: "t1", CheckpointNS: "report:x"})
	if engine.ErrorKind(err) != "ValueError" || !strings.Contains(err.Error(), "Subgraph report not found") {
		t.Errorf("GetState(report:x) error = %v, want ValueError: Subgraph report not found", err)
	}
	if _, err := parent.Invoke(ctx, engine.State{"messages": []any{"again"}}, engine.Config{ThreadID: "t1", CheckpointNS: ns}); err == nil || !strings.Contains(err.Error(), "CheckpointNS") {
		t.Errorf("Invoke with CheckpointNS error = %v, want a refusal", err)
	}
}
