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

type userCtx struct{ Tier string }

// TestDynamicModelAndRuntimeContext: the model is chosen per call from the
// state and the runtime context; tools and prompt functions see the same
// context; custom state keys and the agent's name come through.
func TestDynamicModelAndRuntimeContext(t *testing.T) {
	cheap := llm.NewScripted("cheap", llm.Script{Responses: []llm.Response{
		{Message: engine.AIMessage("", engine.ToolCall{Name: "whoami", Args: engine.NewObject("i", 1), ID: "c1"})},
	}})
	premium := llm.NewScripted("premium", llm.Script{Responses: []llm.Response{{Message: engine.AIMessage("premium answer")}}})
	whoami := cityTool("whoami", func(_ context.Context, inv engine.ToolInvocation) (any, error) {
		st := inv.Injected["state"].(engine.State)
		return fmt.Sprintf("tier=%s note=%v", inv.Runtime.Context.(userCtx).Tier, st["note"]), nil
	})
	def := whoami.Definition()
	def.Inject = []engine.Injection{{Arg: "state", Kind: engine.InjectState}}
	whoami = engine.NewTool(def, whoami.Invoke)
	var prompts []int
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{
		ModelSelector: func(_ context.Context, s engine.State, rt *engine.Runtime) (engine.ChatModel, error) {
			if len(s.Messages("messages")) > 1 && rt.Context.(userCtx).Tier == "gold" {
				return premium, nil
			}
			return cheap, nil
		},
		Tools: []engine.Tool{whoami},
		Prompt: engine.PromptFunc(func(_ context.Context, s engine.State) ([]engine.Message, error) {
			prompts = append(prompts, len(s.Messages("messages")))
			return append([]engine.Message{engine.SystemMessage("note: " + fmt.Sprint(s["note"]))}, s.Messages("messages")...), nil
		}),
		StateFields: []engine.Field{engine.ValueField("note")},
		Name:        "helper",
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := agent.Invoke(context.Background(), engine.State{"messages": []any{"hi"}, "note": "vip"}, engine.Config{Context: userCtx{Tier: "gold"}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := res.Values.Messages("messages")
	var got []string
	for _, m := range msgs {
		got = append(got, fmt.Sprintf("%s/%s:%s", m.Type, m.Name, m.Text()))
	}
	want := []string{"human/:hi", "ai/helper:", "tool/whoami:tier=gold note=vip", "ai/helper:premium answer"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
	if c := premium.Calls(); len(c) != 1 || c[0].Request.Messages.At(0).Text() != "note: vip" || len(c[0].Request.Tools) != 1 {
		t.Errorf("premium calls = %+v, want one with the prompt and the tool bound", c)
	}
	if diff := cmp.Diff([]int{1, 3}, prompts); diff != "" {
		t.Errorf("prompt saw message counts (-want +got):\n%s", diff)
	}
}

// TestToolNodeInputForms: a state with a custom messages key, a message
// list (answered with a list), and a list of tool calls.
func TestToolNodeInputForms(t *testing.T) {
	echo := cityTool("echo", func(_ context.Context, inv engine.ToolInvocation) (any, error) { return inv.Args(), nil })
	call := engine.ToolCall{Name: "echo", Args: engine.NewObject("i", 7), ID: "c7"}
	ai := engine.AIMessage("", call)
	tn, err := engine.NewToolNode([]engine.Tool{echo}, engine.ToolNodeOptions{MessagesKey: "history"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		reason string
		input  any
		check  func(any) string
	}{
		{"a state under the custom key answers under that key", engine.State{"history": []engine.Message{engine.HumanMessage("x"), ai}}, func(out any) string {
			s, ok := out.(engine.State)
			if !ok || len(s.Messages("history")) != 1 || s.Messages("history")[0].Text() != `{"i": 7}` {
				return fmt.Sprintf("got %#v", out)
			}
			return ""
		}},
		{"a message list answers with a list", []engine.Message{engine.HumanMessage("x"), ai}, func(out any) string {
			l, ok := out.([]engine.Message)
			if !ok || len(l) != 1 || l[0].ToolCallID != "c7" {
				return fmt.Sprintf("got %#v", out)
			}
			return ""
		}},
		{"tool calls answer under the key", []engine.ToolCall{call}, func(out any) string {
			s, ok := out.(engine.State)
			if !ok || len(s.Messages("history")) != 1 {
				return fmt.Sprintf("got %#v", out)
			}
			return ""
		}},
		{"a state without messages is refused", engine.State{"other": 1}, nil},
	}
	for _, tc := range tests {
		out, err := tn.Invoke(ctx, tc.input)
		if tc.check == nil {
			if err == nil || !strings.Contains(err.Error(), "No message found in input") {
				t.Errorf("%s: error = %v, want No message found in input", tc.reason, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.reason, err)
			continue
		}
		if d := tc.check(out); d != "" {
			t.Errorf("%s: %s", tc.reason, d)
		}
	}
}

func TestToolsCondition(t *testing.T) {
	route := engine.ToolsCondition("history")
	tests := []struct {
		reason string
		state  engine.State
		want   any
	}{
		{"tool calls go to tools", engine.State{"history": []engine.Message{engine.AIMessage("", engine.ToolCall{Name: "x", ID: "1"})}}, "tools"},
		{"a plain answer ends", engine.State{"history": []engine.Message{engine.AIMessage("done")}}, engine.End},
		{"a human message ends", engine.State{"history": []engine.Message{engine.HumanMessage("hi")}}, engine.End},
		{"a list of several nodes routes on its last message", engine.State{"history": engine.NewMessageList(engine.HumanMessage("hi")).Append(engine.AIMessage("", engine.ToolCall{Name: "x", ID: "1"}))}, "tools"},
		{"a list whose last message answers ends", engine.State{"history": engine.NewMessageList(engine.AIMessage("", engine.ToolCall{Name: "x", ID: "1"})).Append(engine.AIMessage("done"))}, engine.End},
		{"a Send's list argument is read before the state's key", engine.State{engine.SendArgKey: engine.NewMessageList(engine.AIMessage("", engine.ToolCall{Name: "x", ID: "1"})), "history": []engine.Message{engine.AIMessage("done")}}, "tools"},
	}
	for _, tc := range tests {
		got, err := route(context.Background(), tc.state)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %v, %v; want %v", tc.reason, got, err, tc.want)
		}
	}
	if _, err := route(context.Background(), engine.State{}); err == nil {
		t.Error("empty state: want an error naming the missing messages")
	}
	if _, err := route(context.Background(), engine.State{"history": engine.MessageList{}}); err == nil || !strings.Contains(err.Error(), "No messages found") {
		t.Errorf("empty list: got %v, want the error naming the missing messages", err)
	}
}

// TestResumeWithCommandUpdate: a paused agent is resumed with a Command
// that rewrites the pending tool call (update) and the run goes on.
func TestResumeWithCommandUpdate(t *testing.T) {
	model := llm.NewScripted("m", llm.Script{Responses: []llm.Response{
		{Message: withID(engine.AIMessage("", engine.ToolCall{Name: "t", Args: engine.NewObject("i", 1), ID: "c1"}), "ai1")},
		{Message: engine.AIMessage("done")},
	}})
	tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) {
		return fmt.Sprint("i=", argI(inv)), nil
	})
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{tool}, Checkpointer: checkpoint.NewMemory(), InterruptBefore: []string{"tools"}, Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{ThreadID: "t"}
	ctx := context.Background()
	if _, err := agent.Invoke(ctx, engine.State{"messages": []any{"go"}}, cfg); err != nil {
		t.Fatal(err)
	}
	edited := withID(engine.AIMessage("", engine.ToolCall{Name: "t", Args: engine.NewObject("i", 9), ID: "c1"}), "ai1")
	res, err := agent.Invoke(ctx, engine.Command{Update: engine.State{"messages": []engine.Message{edited}}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	msgs := res.Values.Messages("messages")
	if len(msgs) != 4 || msgs[2].Text() != "i=9" || msgs[3].Text() != "done" {
		t.Fatalf("messages = %+v, want the edited call run and answered", msgs)
	}
}

func withID(m engine.Message, id string) engine.Message {
	m.ID = id
	return m
}

// TestV2FinalStateIsDeterministic: with one task per call, chunks arrive
// in completion order but the state is the same at any concurrency.
func TestV2FinalStateIsDeterministic(t *testing.T) {
	run := func(conc int) string {
		model := llm.NewScripted("m", llm.Script{Responses: []llm.Response{
			{Message: engine.AIMessage("", callsOf("t", 20)...)},
			{Message: engine.AIMessage("done")},
		}})
		tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) { return argI(inv), nil })
		agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{tool}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := agent.Invoke(context.Background(), engine.State{"messages": []any{"go"}}, engine.Config{MaxConcurrency: conc})
		if err != nil {
			t.Fatal(err)
		}
		b, err := engine.MarshalValue(res.Values.ToValue())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := run(0)
	for _, c := range []int{1, 3, 0, 0} {
		if got := run(c); got != want {
			t.Fatalf("final state at max_concurrency=%d differs:\n%s", c, cmp.Diff(want, got))
		}
	}
}
