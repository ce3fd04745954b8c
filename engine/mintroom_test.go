package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/agenteval/agenteval/engine"
)

// answerPlan says what each call of a mintRoomGraph's tool answers: a
// string (""), or a ToolMessage with the ID plan[i] of its own.
type answerPlan []string

// editLast is a node that replaces the last message of the list by its
// ID, as a node that edits the last answer does.
func editLast(_ context.Context, s engine.State) (any, error) {
	msgs := s.Messages("messages")
	last := msgs[len(msgs)-1]
	return engine.State{"messages": []engine.Message{{Type: engine.TypeAI, ID: last.ID, Content: engine.Text("edited")}}}, nil
}

// mintRoomGraphs returns two graphs START → tools → edit → END over a
// messages key whose tool answers call i as plan says, and whose edit
// node replaces the last message (editLast): in one the node is the
// ToolNode's (its answers in a list the messages channel may take, see
// listRoom), in the other a node that copies them into a list of its own,
// which the channel merges message by message (the reference).
func mintRoomGraphs(t interface{ Fatal(...any) }, plan *answerPlan) (room, own *engine.Graph) {
	tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) {
		v, _ := inv.Args().Get("i")
		i, err := v.(json.Number).Int64()
		if err != nil {
			return nil, err
		}
		if id := (*plan)[i]; id != "" {
			return engine.Message{Type: engine.TypeTool, ID: id, Content: engine.Text(fmt.Sprint("own ", i))}, nil
		}
		return fmt.Sprint("ok ", i), nil
	})
	tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	copied := func(ctx context.Context, s engine.State) (any, error) {
		out, err := tn.Invoke(ctx, s)
		if err != nil {
			return nil, err
		}
		return engine.State{"messages": append([]engine.Message(nil), out.(engine.State).Messages("messages")...)}, nil
	}
	build := func(fn engine.NodeFunc) *engine.Graph {
		g, err := engine.NewStateGraph(engine.MessagesField("messages")).
			AddNode("tools", fn).
			AddNode("edit", editLast).
			AddEdge(engine.Start, "tools").
			AddEdge("tools", "edit").
			AddEdge("edit", engine.End).
			Compile(engine.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	return build(tn.Node()), build(copied)
}

// A ToolNode's answers whose IDs its task gave all in one pass are
// checked by the messages channel by their first and last IDs
// (mintState.freshRun); answers of which some came with an ID of their
// own must still be merged as add_messages merges them, as the same
// answers in a list of the node's own are. The IDs a run makes up are
// the same for the same input, so a tool can answer with an ID the run
// will make up for another answer: a channel that took the list on its
// first and last IDs alone, or a task that said it made up every ID when
// it did not, appends both messages of such an ID where the second must
// replace the first. And the node after the tools (editLast) replaces the
// last answer by its ID: a channel that took the list without noting its
// last ID as made up (mintState.max) appends the edit instead.
func TestMintedRoomMergesAsAddMessages(t *testing.T) {
	const n = 5
	input := engine.State{"messages": []engine.Message{engine.AIMessage("", callsOf("t", n)...)}}
	plan := make(answerPlan, n)
	room, own := mintRoomGraphs(t, &plan)
	ctx := context.Background()
	first, err := room.Invoke(ctx, input, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := first.Values.Messages("messages")
	if len(msgs) != n+1 {
		t.Fatalf("got %d messages, want %d", len(msgs), n+1)
	}
	ai, prev := msgs[0].ID, func(i int) string { return msgs[1+i].ID }
	cases := []struct {
		name   string
		plan   answerPlan
		reason string
	}{
		{"every answer gets its ID", answerPlan{"", "", "", "", ""},
			"the list taken as it is: the same run's IDs again"},
		{"a caller's ID in the middle", answerPlan{"", "", "mine", "", ""},
			"the IDs made up are one fewer: the last is not the first plus four"},
		{"first and last the next run's, the middle made up", answerPlan{prev(0), "", "", "", prev(4)},
			"the second answer gets the first's ID and replaces it; first and last alone look like a run of five"},
		{"the last the next run's", answerPlan{"", "", "", "", prev(4)},
			"the first four made up, the fifth the ID the run would have made: all new"},
		{"the AI message's ID in the middle", answerPlan{"", "", ai, "", ""},
			"the third answer replaces the AI message"},
		{"an answer's ID twice", answerPlan{"", "twice", "", "twice", ""},
			"the fourth answer replaces the second"},
		{"every answer the same run's ID, shifted", answerPlan{prev(1), prev(2), prev(3), prev(4), prev(0)},
			"no ID made up: the list is checked message by message"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			copy(plan, tc.plan)
			checkMergedAlike(t, room, own, input, tc.reason)
		})
	}
}

// TestPropMintedRoomMergesAsAddMessages is the same for any number of
// calls, each answering with a string, an ID the run makes up for an
// answer, a caller's ID or the AI message's.
func TestPropMintedRoomMergesAsAddMessages(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "calls")
		input := engine.State{"messages": []engine.Message{engine.AIMessage("", callsOf("t", n)...)}}
		plan := make(answerPlan, n)
		room, own := mintRoomGraphs(t, &plan)
		ctx := context.Background()
		first, err := room.Invoke(ctx, input, engine.Config{})
		if err != nil {
			t.Fatal(err)
		}
		msgs := first.Values.Messages("messages")
		for i := range plan {
			switch rapid.IntRange(0, 5).Draw(t, fmt.Sprintf("answer%d", i)) {
			case 1:
				plan[i] = msgs[1+rapid.IntRange(0, n-1).Draw(t, fmt.Sprintf("made%d", i))].ID
			case 2:
				plan[i] = fmt.Sprintf("own%d", rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("own%d", i)))
			case 3:
				plan[i] = msgs[0].ID
			}
		}
		checkMergedAlike(t, room, own, input, fmt.Sprintf("plan %q", plan))
	})
}

// checkMergedAlike runs input through both graphs of mintRoomGraphs and
// fails, saying why (what), when the state the room graph ends with is
// not the one merging message by message gives.
func checkMergedAlike(t interface {
	Fatal(...any)
	Fatalf(string, ...any)
}, room, own *engine.Graph, input engine.State, what string) {
	ctx := context.Background()
	got, err := room.Invoke(ctx, input, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := own.Invoke(ctx, input, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plainValues(got.Values), plainValues(want.Values)) {
		t.Fatalf("%s\nwith the node's list taken:\n%v\nmerged message by message:\n%v", what, renderValues(got.Values), renderValues(want.Values))
	}
}
