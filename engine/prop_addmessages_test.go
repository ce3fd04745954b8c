package engine

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPropMessagesChannelIsAddMessages: the messages channel's merge
// (messagesChan.add on a channel restored from left, the route every
// graph takes) gives the list addMessages gives, add_messages as LangGraph
// writes it, and the same error. IDs come from a small set so updates hit
// existing messages, removals and re-additions often; some messages come
// without an ID, some updates are long enough for the channel to index
// its IDs (past scanMax), and a few hold a RemoveAll. Left holds each ID
// once at most, as every list a channel holds does (add_messages never
// makes a list with an ID twice from one without).
func TestPropMessagesChannelIsAddMessages(t *testing.T) {
	rapid.Check(t, propMessagesChannelIsAddMessages)
}

func FuzzMessagesChannelIsAddMessages(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propMessagesChannelIsAddMessages))
}

func propMessagesChannelIsAddMessages(t *rapid.T) {
	ids := rapid.SampledFrom([]string{"", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"})
	draw := func(label string, max int, removes bool) []Message {
		n := rapid.IntRange(0, max).Draw(t, label+" size")
		var out []Message
		seen := map[string]bool{}
		for k := range n {
			id := ids.Draw(t, label+" id")
			if removes && id != "" {
				switch rapid.IntRange(0, 7).Draw(t, label+" kind") {
				case 0, 1:
					out = append(out, RemoveMessage(id))
					continue
				case 2:
					if rapid.IntRange(0, 3).Draw(t, label+" remove all") == 0 {
						out = append(out, RemoveMessage(RemoveAllMessages))
						continue
					}
				}
			}
			if !removes && id != "" {
				if seen[id] {
					continue
				}
				seen[id] = true
			}
			m := HumanMessage(fmt.Sprintf("%s%d", label, k))
			m.ID = id
			out = append(out, m)
		}
		return out
	}
	left := draw("left", 12, false)
	right := draw("right", 2*scanMax+4, true)
	leftCopy, rightCopy := slices.Clone(left), slices.Clone(right)
	want, werr := addMessages(left, right)
	c := newMessagesChan("messages").restore(left, true).(*messagesChan)
	err := c.add(right)
	if fmt.Sprint(err) != fmt.Sprint(werr) {
		t.Fatalf("channel's error = %v, addMessages's = %v", err, werr)
	}
	if !slices.EqualFunc(left, leftCopy, messageEqual) || !slices.EqualFunc(right, rightCopy, messageEqual) {
		t.Fatalf("an input was modified")
	}
	if err != nil {
		return
	}
	if g, w := renderTyped(c.view()), renderTyped(want); !slices.Equal(g, w) {
		t.Fatalf("channel = %v\naddMessages = %v", g, w)
	}
}

// messageEqual compares the fields the property's messages set.
func messageEqual(a, b Message) bool {
	return a.Type == b.Type && a.ID == b.ID && a.Content.String() == b.Content.String()
}

// renderTyped shows each message's type, ID and content.
func renderTyped(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m.Type) + ":" + m.ID + "=" + m.Content.String()
	}
	return out
}
