package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/agenteval/agenteval/engine"
)

// TestPropToolNodeListRoomChangesNothing: a ToolNode in a graph answers
// in a list of its own, which the messages channel takes as a node of its
// list instead of copying the answers (listRoom). A
// run must give what the same graph gives when the node's answers come in
// a list of their own: the same values after the node, after a node that
// appends to the list, after a second round of calls, whatever the
// messages before the calls and however many calls; and the lists a run
// returned must not change when the graph runs again. (A channel that
// takes a list whose IDs are not all new to it, or a ToolNode that writes
// into its list after handing it over, fails it.)
func TestPropToolNodeListRoomChangesNothing(t *testing.T) {
	rapid.Check(t, propToolNodeListRoomChangesNothing)
}

func FuzzToolNodeListRoomChangesNothing(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propToolNodeListRoomChangesNothing))
}

func propToolNodeListRoomChangesNothing(t *rapid.T) {
	tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) {
		v, _ := inv.Args().Get("i")
		return fmt.Sprint("ok ", v), nil
	})
	tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// the node's answers in a list of their own: what the graph did
	// before the messages channel could take the node's array
	ownList := func(ctx context.Context, s engine.State) (any, error) {
		out, err := tn.Invoke(ctx, s)
		if err != nil {
			return nil, err
		}
		msgs := out.(engine.State).Messages("messages")
		return engine.State{"messages": append([]engine.Message(nil), msgs...)}, nil
	}
	second := rapid.IntRange(0, 40).Draw(t, "second")
	// after answers the first round of calls with a second one (or with
	// a message when there is none), then with a message
	after := func(_ context.Context, s engine.State) (any, error) {
		msgs := s.Messages("messages")
		rounds := 0
		for _, m := range msgs {
			if m.Type == engine.TypeAI && len(m.ToolCalls) > 0 {
				rounds++
			}
		}
		if rounds == 1 && second > 0 {
			return engine.State{"messages": []engine.Message{engine.AIMessage("", callsOf("t", second)...)}}, nil
		}
		return engine.State{"messages": []engine.Message{engine.AIMessage(fmt.Sprintf("after %d", len(msgs)))}}, nil
	}
	route := func(_ context.Context, s engine.State) (any, error) {
		msgs := s.Messages("messages")
		if last := msgs[len(msgs)-1]; last.Type == engine.TypeAI && len(last.ToolCalls) > 0 {
			return "tools", nil
		}
		return engine.End, nil
	}
	// aside, when drawn, runs beside the first tools task and writes a
	// message the superstep applies before the node's answers (tasks
	// apply in name order): the channel then holds more messages than the
	// node read
	aside := rapid.Bool().Draw(t, "aside")
	build := func(tools engine.NodeFunc) *engine.Graph {
		sg := engine.NewStateGraph(engine.MessagesField("messages")).
			AddNode("tools", tools).
			AddNode("after", after).
			AddEdge(engine.Start, "tools").
			AddEdge("tools", "after").
			AddConditionalEdges("after", route, "tools", engine.End)
		if aside {
			sg = sg.AddNode("aside", func(context.Context, engine.State) (any, error) {
				return engine.State{"messages": []engine.Message{engine.HumanMessage("aside")}}, nil
			}).AddEdge(engine.Start, "aside").AddEdge("aside", "after")
		}
		g, err := sg.Compile(engine.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	withRoom, without := build(tn.Node()), build(ownList)

	var input []engine.Message
	for i := range rapid.IntRange(0, 6).Draw(t, "before") {
		if rapid.Bool().Draw(t, fmt.Sprintf("human%d", i)) {
			input = append(input, engine.HumanMessage(fmt.Sprintf("h%d", i)))
		} else {
			input = append(input, engine.AIMessage(fmt.Sprintf("a%d", i)))
		}
	}
	input = append(input, engine.AIMessage("", callsOf("t", rapid.IntRange(1, 300).Draw(t, "calls"))...))
	state := engine.State{"messages": input}
	ctx := context.Background()
	got, err := withRoom.Invoke(ctx, state, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	kept := append([]engine.Message(nil), got.Values.Messages("messages")...)
	want, err := without.Invoke(ctx, state, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plainValues(got.Values), plainValues(want.Values)) {
		t.Fatalf("with the node's array taken:\n%v\nwith a list of its own:\n%v", renderValues(got.Values), renderValues(want.Values))
	}
	if _, err := withRoom.Invoke(ctx, state, engine.Config{}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Values.Messages("messages"), kept) {
		t.Fatalf("a run's result changed when the graph ran again")
	}
}

func renderValues(v engine.State) []string {
	var out []string
	for _, m := range v.Messages("messages") {
		out = append(out, fmt.Sprintf("%s %s %q", m.Type, m.ID, m.Content.String()))
	}
	return out
}

// plainValues is v with each MessageList as its messages, for a deep
// comparison (two equal lists may be made of different nodes).
func plainValues(v engine.State) engine.State {
	out := engine.State{}
	for k, x := range v {
		if l, ok := x.(engine.MessageList); ok {
			x = l.Slice()
		}
		out[k] = x
	}
	return out
}
