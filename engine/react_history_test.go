package engine

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestPropHistoryCompleteIsSound checks the map-free fast path of the
// chat-history check: whenever it calls a history complete, the full
// check finds no tool call without a ToolMessage. Histories mix answered,
// unanswered, reordered, duplicated and early answers.
func TestPropHistoryCompleteIsSound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var msgs []Message
		var calls []string
		n := rapid.IntRange(0, 30).Draw(t, "messages")
		for i := range n {
			switch rapid.IntRange(0, 3).Draw(t, "type") {
			case 0:
				msgs = append(msgs, HumanMessage("q"))
			case 1:
				var tcs []ToolCall
				for k := range rapid.IntRange(0, 3).Draw(t, "calls") {
					id := fmt.Sprintf("c%d_%d", i, k)
					tcs = append(tcs, ToolCall{Name: "t", Args: NewObject(), ID: id})
					calls = append(calls, id)
				}
				msgs = append(msgs, AIMessage("", tcs...))
			default:
				id := "early"
				if len(calls) > 0 {
					id = calls[rapid.IntRange(0, len(calls)-1).Draw(t, "answers")]
				}
				msgs = append(msgs, ToolMessage(Text("r"), "t", id))
			}
		}
		fast := historyComplete(msgs)
		answered := map[string]bool{}
		for _, m := range msgs {
			if m.Type == TypeTool {
				answered[m.ToolCallID] = true
			}
		}
		complete := true
		for _, id := range calls {
			complete = complete && answered[id]
		}
		if fast && !complete {
			t.Fatalf("fast path calls an incomplete history complete: %v", renderMsgs(msgs))
		}
		if err := validateChatHistory(msgs); (err == nil) != complete {
			t.Fatalf("validateChatHistory = %v, complete = %v", err, complete)
		}
	})
}
