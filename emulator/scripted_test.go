package emulator_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/emulator"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

func call(args *engine.Object) engine.ToolInvocation {
	return engine.ToolInvocation{Call: engine.ToolCall{Name: "t", Args: args, ID: "c"}}
}

func TestScripted(t *testing.T) {
	rules := []emulator.Rule{
		{When: engine.NewObject("city", "Paris"), Return: "sunny"},
		{When: engine.NewObject("city", "Lyon"), Match: "subset", Times: 1, Return: "rain once"},
		{When: engine.NewObject("city", "^Ber"), Match: "regex", Error: "no data", ErrorType: "ValueError"},
		{When: engine.NewObject("n", json.Number("2")), Return: engine.NewObject("twice", json.Number("4"))},
	}
	tests := []struct {
		reason  string
		args    []*engine.Object // calls in order; the last is checked
		want    string
		wantErr string
	}{
		{"exact match", []*engine.Object{engine.NewObject("city", "Paris")}, "sunny", ""},
		{"exact match fails on an extra argument", []*engine.Object{engine.NewObject("city", "Paris", "day", "mon")}, "", `scripted tool "t" has no result for arguments {'city': 'Paris', 'day': 'mon'}`},
		{"subset match ignores other arguments", []*engine.Object{engine.NewObject("city", "Lyon", "day", "mon")}, "rain once", ""},
		{"a rule with times is used up", []*engine.Object{engine.NewObject("city", "Lyon"), engine.NewObject("city", "Lyon")}, "", "has no result"},
		{"regex match raises the rule's error", []*engine.Object{engine.NewObject("city", "Berlin")}, "", "no data"},
		{"numbers compare by value and return JSON", []*engine.Object{engine.NewObject("n", json.Number("2.0"))}, `{"twice": 4}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			s, err := emulator.NewScripted("t", rules)
			if err != nil {
				t.Fatal(err)
			}
			var got any
			for _, a := range tc.args {
				got, err = s.Call(context.Background(), call(a))
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Call error = %v, want %q", err, tc.wantErr)
				}
				if !strings.Contains(tc.wantErr, "no result") && engine.ErrorKind(err) != "ValueError" {
					t.Errorf("error kind %q, want ValueError", engine.ErrorKind(err))
				}
				return
			}
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			text, _ := got.(string)
			if o, ok := got.(*engine.Object); ok {
				text, _ = engine.PyJSON(o)
			}
			if text != tc.want {
				t.Errorf("Call = %q, want %q", text, tc.want)
			}
		})
	}
}

func TestScriptedBadPattern(t *testing.T) {
	_, err := emulator.NewScripted("t", []emulator.Rule{{When: engine.NewObject("q", "("), Match: "regex"}})
	if err == nil || !strings.Contains(err.Error(), "rule 0: when.q:") {
		t.Errorf("NewScripted error = %v, want one naming rule 0's when.q", err)
	}
}

func TestScriptedUnmatched(t *testing.T) {
	s, _ := emulator.NewScripted("t", nil)
	s.Call(context.Background(), call(engine.NewObject("a", json.Number("1"))))
	if got := s.Unmatched(); len(got) != 1 || got[0] != "{'a': 1}" {
		t.Errorf("Unmatched = %q, want [{'a': 1}]", got)
	}
}

// TestWrapperWithReactAgent emulates one of two tools of a
// create_react_agent through the ToolNode wrapper: the emulated tool never
// runs, its tool message is the emulator model's text, the other runs.
func TestWrapperWithReactAgent(t *testing.T) {
	agentModel := llm.NewScripted("agent", llm.Script{Responses: []llm.Response{
		{Message: engine.AIMessage("", engine.ToolCall{Name: "quote", Args: engine.NewObject("s", "X"), ID: "c1"}, engine.ToolCall{Name: "buy", Args: engine.NewObject("s", "X"), ID: "c2"})},
		{Message: engine.AIMessage("done")},
	}})
	emu := llm.NewScripted("emu", llm.Script{Responses: []llm.Response{{Message: engine.AIMessage("X is 10 USD")}}})
	ran := map[string]bool{}
	tool := func(name string) engine.Tool {
		return engine.NewTool(engine.ToolDef{Name: name, Description: name + " a stock"}, func(context.Context, engine.ToolInvocation) (any, error) {
			ran[name] = true
			return name + " ran", nil
		})
	}
	w, err := emulator.Wrapper(emu, []string{"quote"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: agentModel, Tools: []engine.Tool{tool("quote"), tool("buy")},
		ToolNodeOptions: engine.ToolNodeOptions{Wrap: emulator.Chain(nil, w), MaxConcurrency: 1}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Invoke(context.Background(), engine.State{"messages": []any{"buy X"}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := res.Values.Messages("messages")
	var got []string
	for _, m := range msgs {
		if m.Type == engine.TypeTool {
			got = append(got, m.Name+": "+m.Text())
		}
	}
	if strings.Join(got, "|") != "quote: X is 10 USD|buy: buy ran" || ran["quote"] || !ran["buy"] {
		t.Errorf("tool messages %q, ran %v; want the quote emulated and buy run", got, ran)
	}
	calls := emu.Calls()
	if len(calls) != 1 || !strings.Contains(calls[0].Request.Messages.At(0).Text(), "Tool: quote\nDescription: quote a stock\nArguments: {'s': 'X'}") {
		t.Errorf("emulator calls %+v: want one with LangChain's prompt for quote", calls)
	}
}

func TestChainOrder(t *testing.T) {
	var order []string
	mk := func(name string) engine.ToolCallWrapper {
		return func(ctx context.Context, req engine.ToolCallRequest, next engine.ToolCallExecutor) (any, error) {
			order = append(order, name)
			return next(ctx, req)
		}
	}
	w := emulator.Chain(mk("outer"), mk("inner"))
	w(context.Background(), engine.ToolCallRequest{}, func(context.Context, engine.ToolCallRequest) (any, error) {
		order = append(order, "tool")
		return nil, nil
	})
	if strings.Join(order, ",") != "outer,inner,tool" {
		t.Errorf("order %v, want outer, inner, tool", order)
	}
}
