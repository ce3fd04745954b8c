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

// TestPropHistoryCacheResumes checks the remembered scans: validating the
// growing prefixes of one list (as the model calls of a thread do, each
// list sharing the nodes of the one before), and now and then a shorter
// view of it (a fork), gives the full check's
// verdict every time. Histories are mostly of the usual shape (each AI
// message's calls answered right after it, in any order), with now and
// then a call left unanswered or an answer to an older call.
func TestPropHistoryCacheResumes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var msgs []Message
		add := func(m Message) {
			m.ID = fmt.Sprintf("m%d", len(msgs))
			msgs = append(msgs, m)
		}
		var older []string
		for len(msgs) < historyCacheMin+rapid.IntRange(0, 2*historyCacheMin).Draw(t, "extra") {
			if rapid.IntRange(0, 4).Draw(t, "human") == 0 {
				add(HumanMessage("q"))
				continue
			}
			var tcs []ToolCall
			for k := range rapid.IntRange(0, 3).Draw(t, "calls") {
				tcs = append(tcs, ToolCall{Name: "t", Args: NewObject(), ID: fmt.Sprintf("c%d_%d", len(msgs), k)})
			}
			add(AIMessage("", tcs...))
			order := rapid.Permutation(tcs).Draw(t, "answer order")
			for _, tc := range order {
				// rapid favours a range's ends: the anomalies sit inside it
				switch rapid.IntRange(0, 99).Draw(t, "anomaly") {
				case 50: // left unanswered
				case 51:
					if len(older) > 0 {
						add(ToolMessage(Text("r"), "t", older[rapid.IntRange(0, len(older)-1).Draw(t, "older")]))
					}
				default:
					add(ToolMessage(Text("r"), "t", tc.ID))
				}
			}
			for _, tc := range tcs {
				older = append(older, tc.ID)
			}
		}
		n := len(msgs)
		var hc historyCache
		lists := map[int]MessageList{}
		k := rapid.IntRange(historyCacheMin, n).Draw(t, "first length")
		for range rapid.IntRange(2, 30).Draw(t, "calls of the model") {
			if rapid.IntRange(0, 4).Draw(t, "shorter view") == 0 {
				k = rapid.IntRange(0, n).Draw(t, "length")
			} else {
				k = min(n, k+rapid.IntRange(1, 12).Draw(t, "grown by"))
			}
			view := msgs[:k:k]
			want := validateChatHistory(view)
			// the list of the first k messages, appended to the longest
			// list made before that is no longer (so lists share nodes,
			// and a shorter view followed by growth forks)
			j := 0
			for l := range lists {
				if l <= k && l > j {
					j = l
				}
			}
			lists[k] = lists[j].Append(msgs[j:k]...)
			if got := hc.validate(lists[k]); (got == nil) != (want == nil) {
				t.Fatalf("validate(first %d) = %v, full check %v", k, got, want)
			}
		}
	})
}

// validateChatHistory is the check read whole (the oracle for
// historyCache.validate): it refuses a history with a tool call that has no tool
// message (LangGraph's _validate_chat_history).
func validateChatHistory(msgs []Message) error {
	if historyComplete(msgs) {
		return nil
	}
	return checkEveryCallAnswered(msgs)
}

// historyComplete reports whether every tool call is answered by a
// ToolMessage among the messages after its AI message and before the
// next AI message: the usual shape of a history, checked without a map.
// False means only that the full check must run.
func historyComplete(msgs []Message) bool {
	var s historyScan
	return s.scan(msgs) && s.complete()
}
