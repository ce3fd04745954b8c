package engine

import (
	"encoding/json"
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// seedOfWhole is seedOf as it was first written: the whole input
// marshalled, then hashed. The streamed seedOf must give the same seeds,
// or every ID a run makes up would change.
func seedOfWhole(thread string, input any) string {
	b, err := MarshalValue(valueForJSON(input))
	if err != nil {
		b = []byte(fmt.Sprint(input))
	}
	return hashHex(thread + "|" + string(b))
}

// TestPropSeedOfStreamsTheSameJSON: for generated inputs (states with
// message lists, nested maps and lists, objects, scalars, values the JSON
// encoder refuses) the streamed seed equals the whole-input one.
func TestPropSeedOfStreamsTheSameJSON(t *testing.T) {
	text := rapid.SampledFrom([]string{"", "q", "héllo \"world\"\n", "<tag>&", "\u2028", "a\x00b"})
	var value func(t *rapid.T, depth int) any
	value = func(t *rapid.T, depth int) any {
		kind := rapid.IntRange(0, 9).Draw(t, "kind")
		if depth > 2 {
			kind %= 5
		}
		switch kind {
		case 0:
			return nil
		case 1:
			return rapid.Bool().Draw(t, "bool")
		case 2:
			return text.Draw(t, "string")
		case 3:
			return rapid.IntRange(-5, 300).Draw(t, "int")
		case 4:
			return rapid.Float64().Draw(t, "float")
		case 5:
			n := rapid.IntRange(0, 4).Draw(t, "messages")
			msgs := make([]Message, n)
			for i := range msgs {
				switch rapid.IntRange(0, 2).Draw(t, "type") {
				case 0:
					msgs[i] = HumanMessage(text.Draw(t, "content"))
				case 1:
					msgs[i] = AIMessage(text.Draw(t, "content"), ToolCall{Name: "t", Args: NewObject("i", i), ID: fmt.Sprintf("c%d", i)})
				default:
					msgs[i] = ToolMessage(Text(text.Draw(t, "content")), "t", fmt.Sprintf("c%d", i))
				}
				if rapid.Bool().Draw(t, "has id") {
					msgs[i].ID = fmt.Sprintf("m%d", i)
				}
			}
			return msgs
		case 6:
			m := map[string]any{}
			for range rapid.IntRange(0, 3).Draw(t, "keys") {
				m[text.Draw(t, "key")] = value(t, depth+1)
			}
			return m
		case 7:
			var l []any
			for range rapid.IntRange(0, 3).Draw(t, "items") {
				l = append(l, value(t, depth+1))
			}
			return l
		case 8:
			return NewObject("b", value(t, depth+1), "a", value(t, depth+1))
		default:
			if rapid.Bool().Draw(t, "bad number") {
				return json.Number("1e") // refused by the encoder: the fmt.Sprint fallback
			}
			return make(chan int) // valueForJSON falls back to fmt.Sprint
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		input := State{"messages": value(t, 0)}
		for range rapid.IntRange(0, 2).Draw(t, "more keys") {
			input[text.Draw(t, "key")] = value(t, 1)
		}
		var in any = input
		if rapid.Bool().Draw(t, "bare value") {
			in = value(t, 0)
		}
		if got, want := seedOf("thread", in), seedOfWhole("thread", in); got != want {
			b, _ := MarshalValue(valueForJSON(in))
			t.Fatalf("seedOf(%s) = %s, whole-input seed %s", b, got, want)
		}
	})
}

// TestPropSeedCacheMatchesSeedOf: a seed cache used by a sequence of runs
// gives every run the seed that seedOf computes from scratch, whatever
// the runs' inputs do to the thread between runs: grow it (the usual
// turn), cut it back and grow it differently (a fork), copy it to a new
// array, replace a message in place, replace a tool call or a content
// block in place in the list the caller handed over, change a string
// field in place, give a message another's ID, hand the thread back with
// IDs on every message (as a run's result), or switch to another thread. The same
// thread as a MessageList, grown by appends and forked from the lists of
// earlier runs (so hashList resumes from a node's state), has the same
// seed.
func TestPropSeedCacheMatchesSeedOf(t *testing.T) {
	rapid.Check(t, propSeedCacheMatchesSeedOf)
}

func FuzzSeedCacheMatchesSeedOf(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propSeedCacheMatchesSeedOf))
}

func propSeedCacheMatchesSeedOf(t *rapid.T) {
	text := rapid.SampledFrom([]string{"", "q", "héllo \"world\"", "x"})
	// with every message's ID set (as in threads a channel made), the
	// seed entries' ID indexes cover long lists
	allIDs := rapid.Bool().Draw(t, "all IDs")
	serial := 0
	newMsg := func(i int) Message {
		var m Message
		switch rapid.IntRange(0, 3).Draw(t, "type") {
		case 0:
			m = HumanMessage(text.Draw(t, "content"))
		case 1:
			// mostly one call; sometimes as many as make a short list
			// worth caching (seedCached)
			calls := make([]ToolCall, rapid.SampledFrom([]int{1, 1, 1, seedCacheMin + 6}).Draw(t, "calls"))
			for k := range calls {
				calls[k] = ToolCall{Name: "t", Args: NewObject("i", i), ID: fmt.Sprintf("c%d-%d", i, k)}
			}
			m = AIMessage(text.Draw(t, "content"), calls...)
		case 2:
			m = ToolMessage(Text(text.Draw(t, "content")), "t", fmt.Sprintf("c%d", i))
		default:
			m = Message{Type: TypeHuman, Content: Blocks(NewObject("type", "text", "text", text.Draw(t, "block")))}
		}
		serial++
		if allIDs || rapid.Bool().Draw(t, "has id") {
			m.ID = fmt.Sprintf("m%d", serial)
		}
		return m
	}
	c := newSeedCache()
	thread := "t1"
	var msgs []Message
	// list mirrors msgs; lists[n] is the list of msgs's first n messages
	// an earlier run used, while no message changed in place since
	var list MessageList
	lists := map[int]MessageList{}
	clones := func(ms []Message) []Message {
		out := make([]Message, len(ms))
		for i := range ms {
			out[i] = ms[i].Clone()
		}
		return out
	}
	prefill := rapid.IntRange(seedCacheMin-4, 3*seedStride+20)
	if rapid.Bool().Draw(t, "short list") {
		prefill = rapid.IntRange(0, 6) // cached only with many tool calls
	}
	for i := range prefill.Draw(t, "prefill") {
		msgs = append(msgs, newMsg(i))
	}
	list = NewMessageList(clones(msgs)...)
	lists[len(msgs)] = list
	for range rapid.IntRange(1, 12).Draw(t, "runs") {
		before, cutAt := len(msgs), 0
		op := rapid.IntRange(0, 12).Draw(t, "op")
		switch op {
		case 0, 1: // a turn: the thread grows
			for range rapid.IntRange(1, 5).Draw(t, "new") {
				msgs = append(msgs, newMsg(len(msgs)))
			}
		case 2: // a fork: cut back, grow differently
			msgs = msgs[:rapid.IntRange(0, len(msgs)).Draw(t, "cut")]
			cutAt = len(msgs)
			for range rapid.IntRange(0, 5).Draw(t, "new") {
				msgs = append(msgs, newMsg(len(msgs)))
			}
		case 3: // a copy in a new array
			msgs = append([]Message(nil), msgs...)
		case 4: // a message replaced in place
			if len(msgs) > 0 {
				i := rapid.IntRange(0, len(msgs)-1).Draw(t, "at")
				msgs[i] = newMsg(i + 1000)
			}
		case 5: // a tool call replaced in place, in the caller's list
			for i := range msgs {
				if len(msgs[i].ToolCalls) > 0 {
					msgs[i].ToolCalls[0] = ToolCall{Name: "u", Args: NewObject("j", 1), ID: "c-new"}
					break
				}
			}
		case 6: // a content block replaced in place
			for i := range msgs {
				if msgs[i].Content.IsList() {
					msgs[i].Content.blocks[0] = NewObject("type", "text", "text", "changed")
					break
				}
			}
		case 7: // a string field changed in place
			if len(msgs) > 0 {
				msgs[rapid.IntRange(0, len(msgs)-1).Draw(t, "at")].Status = "error"
			}
		case 8: // a turn that adds many messages at once
			for range rapid.IntRange(64, 128).Draw(t, "many new") {
				msgs = append(msgs, newMsg(len(msgs)))
			}
		case 9: // a message with the ID of another
			if len(msgs) > 1 {
				i, j := rapid.IntRange(0, len(msgs)-1).Draw(t, "at"), rapid.IntRange(0, len(msgs)-1).Draw(t, "same id as")
				msgs[i].ID = msgs[j].ID
			}
		case 10: // a fork at the first message an ID index stops at
			seen := map[string]bool{}
			for i, m := range msgs {
				if m.ID == "" || seen[m.ID] {
					msgs = msgs[:i]
					for range rapid.IntRange(1, 128).Draw(t, "new after cut") {
						msgs = append(msgs, newMsg(len(msgs)))
					}
					break
				}
				seen[m.ID] = true
			}
		case 11: // the thread handed back by a run without a checkpointer:
			// its messages without an ID have one now, and a new one
			for i := range msgs {
				if msgs[i].ID == "" {
					msgs[i].ID = fmt.Sprintf("given%d", i)
				}
			}
			msgs = append(msgs, newMsg(len(msgs)))
		default:
			thread = rapid.SampledFrom([]string{"t1", "t2"}).Draw(t, "thread")
		}
		input := State{"messages": msgs}
		if rapid.Bool().Draw(t, "another key") {
			input["a"] = "first" // a key hashed before the list: another state before '['
		}
		got := c.seed(thread, input)
		want := seedOfWhole(thread, input)
		if got != want {
			t.Fatalf("cached seed %s, from scratch %s (%d messages)", got, want, len(msgs))
		}
		switch op {
		case 0, 1, 8: // appended
			list = list.Append(clones(msgs[before:])...)
		case 2: // cut back: from the list of that length, when there is one
			for n := range lists {
				if n > cutAt {
					delete(lists, n) // another branch's
				}
			}
			cut := cutAt
			for cut > 0 {
				if _, ok := lists[cut]; ok {
					break
				}
				cut--
			}
			list = lists[cut].Append(clones(msgs[cut:])...)
		case 3, 12: // the same messages
		default: // changed in place: nothing earlier is the same list
			clear(lists)
			list = NewMessageList(clones(msgs)...)
		}
		if list.Len() != len(msgs) {
			t.Fatalf("the mirror list has %d messages, the thread %d", list.Len(), len(msgs))
		}
		lists[len(msgs)] = list
		linput := State{"messages": list}
		if _, ok := input["a"]; ok {
			linput["a"] = "first"
		}
		if got := c.seed(thread, linput); got != want {
			t.Fatalf("seed of the MessageList %s, of the slice %s (%d messages)", got, want, len(msgs))
		}
	}
}

// TestSeedCachedLists: which input lists the seed cache serves, each for
// a reason, and that the second seed of the same input is right.
func TestSeedCachedLists(t *testing.T) {
	calls := func(n int) []ToolCall {
		out := make([]ToolCall, n)
		for i := range out {
			out[i] = ToolCall{Name: "t", Args: NewObject("i", i), ID: fmt.Sprintf("c%d", i)}
		}
		return out
	}
	humans := func(n int) []Message {
		out := make([]Message, n)
		for i := range out {
			out[i] = HumanMessage("q")
		}
		return out
	}
	for _, tc := range []struct {
		name string
		msgs []Message
		want bool
	}{
		{"W1's input: one AI message of 256 calls", []Message{AIMessage("", calls(256)...)}, true},
		{"63 calls and their message make 64 parts", []Message{AIMessage("", calls(63)...)}, true},
		{"62 calls and their message are too few", []Message{AIMessage("", calls(62)...)}, false},
		{"a long list of short messages", humans(seedCacheMin), true},
		{"a short list of short messages", humans(seedCacheMin - 1), false},
		{"content blocks count as parts", []Message{{Type: TypeHuman, Content: Blocks(make([]any, seedCacheMin)...)}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := seedCached(tc.msgs); got != tc.want {
				t.Fatalf("seedCached = %v, want %v", got, tc.want)
			}
			c := newSeedCache()
			input := State{"messages": tc.msgs}
			c.seed("t", input)
			seed := c.seed("t", input)
			if want := seedOfWhole("t", input); seed != want {
				t.Fatalf("seed %s, from scratch %s", seed, want)
			}
		})
	}
}
