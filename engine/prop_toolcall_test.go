package engine

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/agenteval/agenteval/engine/value"
)

// toolBehaviours are what a generated tool answers, each a way a call's
// outcome is shaped or handled differently.
var toolBehaviours = []string{
	"string", "int", "toolresult", "toolresult-error", "message", "ai-message",
	"command", "command-unmatched", "value-error", "tool-exception", "panic", "interrupt",
}

// echoTool is a tool named name whose answer (see toolBehaviours) carries
// everything its invocation held: the arguments as validated, the
// injected values, whether the runtime came through, the call's ID.
func echoTool(name, behaviour string, inject []Injection, handleTool, handleValidation bool) Tool {
	def := ToolDef{
		Name: name,
		Parameters: NewObject("type", "object",
			"properties", NewObject("i", NewObject("type", "integer"), "s", NewObject("type", "string")),
			"required", []any{"i"}),
		Inject: inject,
	}
	def.HandleToolError.Enabled = handleTool
	def.HandleValidationError.Enabled = handleValidation
	return NewTool(def, func(_ context.Context, inv ToolInvocation) (any, error) {
		args, _ := PyJSON(valueForJSON(inv.Args()))
		seen := fmt.Sprintf("args=%s injected=%v runtime=%t id=%s name=%s", args, inv.Injected, inv.Runtime != nil, inv.Call.ID, inv.Call.Name)
		switch behaviour {
		case "int":
			return len(seen), nil
		case "toolresult":
			return ToolResult{Content: []any{NewObject("type", "text", "text", seen)}, Artifact: seen}, nil
		case "toolresult-error":
			return ToolResult{Content: seen, Status: StatusError}, nil
		case "message":
			return Message{Type: TypeTool, Content: Text(seen), ToolCallID: inv.Call.ID}, nil
		case "ai-message":
			return AIMessage(seen), nil
		case "command":
			return &Command{Update: State{"messages": []Message{{Type: TypeTool, Content: Text(seen), ToolCallID: inv.Call.ID}}}}, nil
		case "command-unmatched":
			return Command{Update: State{"messages": []Message{{Type: TypeTool, Content: Text(seen), ToolCallID: "other"}}}}, nil
		case "value-error":
			return nil, NewError("ValueError", seen)
		case "tool-exception":
			return nil, NewError("ToolException", seen)
		case "panic":
			panic(seen)
		case "interrupt":
			return nil, &InterruptError{Interrupts: []InterruptValue{{Value: seen, ID: inv.Call.ID}}}
		}
		return seen, nil
	})
}

// drawToolNode draws a ToolNode of a few echo tools, some with injected
// arguments or their own error handling, under one of the node's error
// handling options.
func drawToolNode(t *rapid.T) *ToolNode {
	injections := [][]Injection{
		nil,
		{{Arg: "call_id", Kind: InjectToolCallID}},
		{{Arg: "x", Kind: InjectState, Field: "x"}},
		{{Arg: "rt", Kind: InjectRuntime}},
	}
	var tools []Tool
	for _, name := range []string{"a", "b", "c"} {
		tools = append(tools, echoTool(name,
			rapid.SampledFrom(toolBehaviours).Draw(t, name+".behaviour"),
			rapid.SampledFrom(injections).Draw(t, name+".inject"),
			rapid.Bool().Draw(t, name+".handleTool"),
			rapid.Bool().Draw(t, name+".handleValidation")))
	}
	handling := []ToolErrors{{}, {Disabled: true}, {InvalidArgsOnly: true}, {Message: "fixed"}, {Kinds: []string{"ValueError"}}}
	opts := ToolNodeOptions{HandleToolErrors: rapid.SampledFrom(handling).Draw(t, "handling")}
	n, err := NewToolNode(tools, opts)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// drawCall draws a call of one of the tools or of an unknown one, with
// arguments valid, coercible, invalid or missing.
func drawCall(t *rapid.T, i int) ToolCall {
	args := []*Object{
		nil,
		NewObject("i", i),
		NewObject("i", "7"),
		NewObject("i", "seven"),
		NewObject("i", 1.5),
		NewObject("s", "no i"),
		NewObject("i", i, "s", "x"),
		NewObject("i", i, "extra", true),
	}
	return ToolCall{
		Name: rapid.SampledFrom([]string{"a", "b", "c", "nope"}).Draw(t, "name"),
		Args: rapid.SampledFrom(args).Draw(t, "args"),
		ID:   fmt.Sprintf("call_%d", i),
	}
}

// callOutcome is a call's answer; errors compare by type and text.
type callOutcome struct {
	msg Message
	cmd *Command
	err string
}

func outcome(msg Message, cmd *Command, err error) callOutcome {
	return callOutcome{msg, cmd, fmt.Sprintf("%T:%v", err, err)}
}

// TestPropRunCallMatchesGeneral: runCall answers every call exactly as
// prepare and finish do (runGeneral), whatever the tool, its arguments,
// its injections and the error handling: its own path for the common call
// only saves work. (A runCall that passed the unvalidated arguments, left
// out the runtime, or took tools with injected arguments itself fails it.)
func TestPropRunCallMatchesGeneral(t *testing.T) {
	rapid.Check(t, propRunCallMatchesGeneral)
}

func FuzzRunCallMatchesGeneral(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propRunCallMatchesGeneral))
}

func propRunCallMatchesGeneral(t *rapid.T) {
	n := drawToolNode(t)
	call := drawCall(t, rapid.IntRange(0, 300).Draw(t, "i"))
	var state State
	if rapid.Bool().Draw(t, "state") {
		state = State{"messages": []Message{AIMessage("", call)}, "x": 1}
	}
	kind := rapid.SampledFrom([]inputKind{inputDict, inputList, inputToolCalls}).Draw(t, "kind")
	rt := &Runtime{}
	ctx := context.Background()
	var m1, m2 Message
	var dst *Object
	if rapid.Bool().Draw(t, "slab") {
		dst = &value.NewObjects(1, n.argsCap)[0]
	}
	c1, e1 := n.runCall(ctx, &call, state, kind, rt, dst, &m1)
	c2, e2 := n.runGeneral(ctx, &call, state, kind, rt, &m2)
	if a, b := outcome(m1, c1, e1), outcome(m2, c2, e2); !reflect.DeepEqual(a, b) {
		t.Fatalf("runCall answered\n%+v\nprepare and finish\n%+v", a, b)
	}
}

// TestPropInvokeMergesInCallOrder: Invoke, whose calls run at once on
// fanOut's workers, gives what running the calls one after another in
// call order gives: the same tool messages in the same slots, the same
// commands, the first error in call order, the interrupts in call order.
// (Writing a call's answer to another call's slot, or taking the first
// error to finish instead of the first in call order, fails it.)
func TestPropInvokeMergesInCallOrder(t *testing.T) {
	rapid.Check(t, propInvokeMergesInCallOrder)
}

func FuzzInvokeMergesInCallOrder(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propInvokeMergesInCallOrder))
}

func propInvokeMergesInCallOrder(t *rapid.T) {
	n := drawToolNode(t)
	calls := make([]ToolCall, rapid.IntRange(0, 40).Draw(t, "calls"))
	for i := range calls {
		calls[i] = drawCall(t, i)
	}
	input := State{"messages": []Message{HumanMessage("go"), AIMessage("", calls...)}, "x": 1}
	kind := inputDict
	if rapid.Bool().Draw(t, "list") {
		kind = inputList
	}
	var in any = input
	if kind == inputList {
		in = input["messages"]
	}
	ctx := context.Background()
	got, gotErr := n.Invoke(ctx, in)

	state := input
	if kind == inputList {
		state = State{"messages": in}
	}
	msgs := make([]Message, len(calls))
	cmds := make([]*Command, len(calls))
	errs := make([]error, len(calls))
	for i := range calls {
		cmds[i], errs[i] = n.runGeneral(ctx, &calls[i], state, kind, nil, &msgs[i])
	}
	want, wantErr := n.collect(msgs, cmds, errs, kind, false)
	if fmt.Sprintf("%T:%v", gotErr, gotErr) != fmt.Sprintf("%T:%v", wantErr, wantErr) {
		t.Fatalf("Invoke failed with %v, in call order %v", gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Invoke gave\n%#v\nin call order\n%#v", got, want)
	}
}
