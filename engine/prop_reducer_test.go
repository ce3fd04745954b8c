package engine_test

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/agenteval/agenteval/engine"
)

// addMessagesModel is add_messages written as plainly as possible: each
// update message replaces the last message with its id, marks it removed,
// or is appended; removed ids are dropped at the end.
func addMessagesModel(left, right []engine.Message) ([]engine.Message, error) {
	merged := slices.Clone(left)
	removed := map[string]bool{}
	for _, m := range right {
		i := -1
		for j := range merged {
			if merged[j].ID == m.ID {
				i = j
			}
		}
		switch {
		case i >= 0 && m.Type == engine.TypeRemove:
			removed[m.ID] = true
		case i >= 0:
			delete(removed, m.ID)
			merged[i] = m
		case m.Type == engine.TypeRemove:
			return nil, fmt.Errorf("unknown id %q", m.ID)
		default:
			merged = append(merged, m)
		}
	}
	return slices.DeleteFunc(merged, func(m engine.Message) bool { return removed[m.ID] }), nil
}

// TestPropAddMessagesMatchesModel checks the reducer, on both its
// scanning path (few update messages) and its indexed path (many), against
// the plain model, with ids drawn from a small set so updates hit existing
// messages, removals and re-additions often.
func TestPropAddMessagesMatchesModel(t *testing.T) {
	ids := rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"})
	gen := func(t *rapid.T, label string, max int, removes bool) []engine.Message {
		n := rapid.IntRange(0, max).Draw(t, label+" size")
		var out []engine.Message
		seen := map[string]bool{}
		for k := 0; k < n; k++ {
			id := ids.Draw(t, label+" id")
			if removes && rapid.IntRange(0, 3).Draw(t, label+" remove") == 0 {
				out = append(out, engine.RemoveMessage(id))
				continue
			}
			if !removes && seen[id] {
				continue // a channel's value never holds an id twice
			}
			seen[id] = true
			m := engine.HumanMessage(fmt.Sprintf("%s%d", label, k))
			m.ID = id
			out = append(out, m)
		}
		return out
	}
	rapid.Check(t, func(t *rapid.T) {
		left := gen(t, "left", 10, false)
		right := gen(t, "right", 16, true)
		got, err := engine.AddMessages(left, right)
		want, werr := addMessagesModel(left, right)
		if (err != nil) != (werr != nil) {
			t.Fatalf("error = %v, model's error = %v", err, werr)
		}
		if err != nil {
			return
		}
		render := func(ms []engine.Message) []string {
			var s []string
			for _, m := range ms {
				s = append(s, m.ID+":"+m.Content.String())
			}
			return s
		}
		if g, w := render(got), render(want); !slices.Equal(g, w) {
			t.Fatalf("AddMessages = %v, model = %v", g, w)
		}
	})
}
