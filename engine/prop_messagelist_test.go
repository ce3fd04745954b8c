package engine_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/agenteval/agenteval/engine"
)

// listEntry is a MessageList and the slice it must equal.
type listEntry struct {
	list engine.MessageList
	want []engine.Message
}

// renderMessages is a list as "id:content" lines, for comparisons.
func renderMessages(msgs []engine.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "%s:%s:%s\n", m.Type, m.ID, m.Content.String())
	}
	return b.String()
}

// checkList checks every accessor of l against want.
func checkList(t *rapid.T, l engine.MessageList, want []engine.Message) {
	if l.Len() != len(want) {
		t.Fatalf("Len() = %d, want %d", l.Len(), len(want))
	}
	if g, w := renderMessages(l.Slice()), renderMessages(want); g != w {
		t.Fatalf("Slice() =\n%s\nwant\n%s", g, w)
	}
	var all []engine.Message
	for i, m := range l.All() {
		if i != len(all) {
			t.Fatalf("All() gave position %d after %d messages", i, len(all))
		}
		all = append(all, m)
	}
	if g, w := renderMessages(all), renderMessages(want); g != w {
		t.Fatalf("All() =\n%s\nwant\n%s", g, w)
	}
	for i := range want {
		if g, w := renderMessages([]engine.Message{l.At(i)}), renderMessages(want[i:i+1]); g != w {
			t.Fatalf("At(%d) = %s, want %s", i, g, w)
		}
	}
	last, ok := l.Last()
	if ok != (len(want) > 0) || ok && renderMessages([]engine.Message{last}) != renderMessages(want[len(want)-1:]) {
		t.Fatalf("Last() = %v %v, want the last of %d", last, ok, len(want))
	}
	for _, m := range want {
		wantAt := -1
		for j := range want {
			if want[j].ID == m.ID {
				wantAt = j
			}
		}
		if got := l.Index(m.ID); got != wantAt {
			t.Fatalf("Index(%q) = %d, want %d", m.ID, got, wantAt)
		}
	}
	if got := l.Index("no such id"); got != -1 {
		t.Fatalf("Index of a missing ID = %d", got)
	}
	var back []engine.Message
	for i, m := range l.Backward() {
		if i != len(want)-1-len(back) {
			t.Fatalf("Backward() gave position %d after %d messages", i, len(back))
		}
		back = append(back, m)
	}
	slices.Reverse(back)
	if g, w := renderMessages(back), renderMessages(want); g != w {
		t.Fatalf("Backward() reversed =\n%s\nwant\n%s", g, w)
	}
	for _, k := range []int{0, len(want) / 3, len(want) / 2, len(want) - 1, len(want)} {
		if k < 0 {
			continue
		}
		p := l.Prefix(k)
		if g, w := renderMessages(p.Slice()), renderMessages(want[:k]); g != w {
			t.Fatalf("Prefix(%d) =\n%s\nwant\n%s", k, g, w)
		}
		if g, w := renderMessages(l.Since(k)), renderMessages(want[k:]); g != w {
			t.Fatalf("Since(%d) =\n%s\nwant\n%s", k, g, w)
		}
		// a prefix shares its messages with the list, and looks IDs up
		// within itself only
		if got := l.SharedPrefix(p); got != k {
			t.Fatalf("SharedPrefix(Prefix(%d)) = %d", k, got)
		}
		for j, m := range want {
			wantAt := -1
			for i := range want[:k] {
				if want[i].ID == m.ID {
					wantAt = i
				}
			}
			if got := p.Index(m.ID); got != wantAt {
				t.Fatalf("Prefix(%d).Index(%q) = %d, want %d (message %d)", k, m.ID, got, wantAt, j)
			}
		}
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	wb, _ := json.Marshal(append([]engine.Message{}, want...))
	if string(b) != string(wb) {
		t.Fatalf("MarshalJSON = %s, want %s", b, wb)
	}
}

// TestPropMessageListMatchesSlices adds random writes to lists drawn from
// a growing pool, so lists are forked (one list added to twice), long
// lists get short appends and short ones long appends, and checks every
// list, through every accessor, against AddMessages on plain slices,
// including the IDs given to messages without one and the error for
// removing an unknown ID. Add is the messages channel's merge on a
// channel holding the list, and so is AddMessages: the merge itself is
// checked against plain models in TestPropAddMessagesMatchesModel and
// TestPropMessagesChannelMatchesModel; this property checks what lists
// share. A list never changes once made: every list in the pool is
// checked again at the end.
//
// Mutants it fails: a replacement written into the shared node instead
// of a copy (an earlier list changes); appendOwned merging without
// copying prev's items; Index returning the first of two equal IDs; All
// skipping a node.
func TestPropMessageListMatchesSlices(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := rapid.SampledFrom([]string{"", "", "a", "b", "c", "d", "e", "f", "g", "h"})
		pool := []listEntry{{}}
		counter := 0
		steps := rapid.IntRange(1, 12).Draw(t, "steps")
		for s := 0; s < steps; s++ {
			from := pool[rapid.IntRange(0, len(pool)-1).Draw(t, "from")]
			// writes: mostly short, sometimes long (past scanMax, so nodes
			// and the write itself are indexed)
			n := rapid.IntRange(0, 6).Draw(t, "size")
			if rapid.IntRange(0, 4).Draw(t, "long") == 0 {
				n = rapid.IntRange(30, 90).Draw(t, "long size")
			}
			var right []engine.Message
			for k := 0; k < n; k++ {
				id := ids.Draw(t, "id")
				switch rapid.IntRange(0, 12).Draw(t, "kind") {
				case 0:
					right = append(right, engine.RemoveMessage(id))
					continue
				case 1:
					if rapid.IntRange(0, 3).Draw(t, "remove all") == 0 {
						right = append(right, engine.RemoveMessage(engine.RemoveAllMessages))
						continue
					}
				}
				counter++
				m := engine.HumanMessage(fmt.Sprintf("m%d", counter))
				if id != "" {
					m.ID = fmt.Sprintf("%s%d", id, rapid.IntRange(0, n/8).Draw(t, "id suffix"))
				}
				right = append(right, m)
			}
			got, err := from.list.Add(right)
			want, werr := engine.AddMessages(from.want, right)
			if (err != nil) != (werr != nil) || err != nil && err.Error() != werr.Error() {
				t.Fatalf("Add error = %v, AddMessages error = %v", err, werr)
			}
			if err != nil {
				continue
			}
			checkList(t, got, want)
			pool = append(pool, listEntry{got, slices.Clone(want)})
			if rapid.IntRange(0, 5).Draw(t, "append") == 0 {
				extra := []engine.Message{engine.AIMessage(fmt.Sprintf("x%d", counter))}
				extra[0].ID = fmt.Sprintf("x%d", counter)
				pool = append(pool, listEntry{got.Append(extra...), append(slices.Clone(want), extra...)})
			}
		}
		for _, e := range pool {
			checkList(t, e.list, e.want)
		}
	})
}

// TestMessageListFromMessagesWithoutIDs: a list made of messages without
// IDs gets them on its first Add, as add_messages gives its left side
// theirs; the list it was made from keeps its messages as they were.
func TestMessageListFromMessagesWithoutIDs(t *testing.T) {
	left := []engine.Message{engine.HumanMessage("hi"), engine.AIMessage("hello")}
	l := engine.NewMessageList(left...)
	right := []engine.Message{engine.HumanMessage("again")}
	got, err := l.Add(right)
	if err != nil {
		t.Fatal(err)
	}
	want, err := engine.AddMessages(left, right)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := renderMessages(got.Slice()), renderMessages(want); g != w {
		t.Fatalf("Add =\n%s\nwant\n%s", g, w)
	}
	if l.At(0).ID != "" {
		t.Fatalf("the original list changed: %q", l.At(0).ID)
	}
}

// TestMessageListAtOutOfRange: At panics as a slice index does.
func TestMessageListAtOutOfRange(t *testing.T) {
	l := engine.NewMessageList(engine.HumanMessage("a")).Append(engine.AIMessage("b"))
	for _, i := range []int{-1, 2, 100} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("At(%d) did not panic", i)
				}
			}()
			l.At(i)
		}()
	}
}

// TestMessageListDepthIsLogarithmic: appends one message at a time keep
// the chain of a list of n messages at most log₂(n)+1 nodes long, and a
// one-message append onto a long list does not copy it (the long node is
// shared: the fork reads the same message value).
func TestMessageListDepthIsLogarithmic(t *testing.T) {
	var l engine.MessageList
	for i := 0; i < 5000; i++ {
		m := engine.HumanMessage(fmt.Sprint(i))
		m.ID = fmt.Sprint(i)
		l = l.Append(m)
		if d, max := engine.MessageListDepth(l), bitsLen(l.Len()); d > max {
			t.Fatalf("after %d appends the chain has %d nodes, want ≤ %d", i+1, d, max)
		}
	}
	long := engine.NewMessageList(l.Slice()...)
	a := long.Append(engine.HumanMessage("a"))
	b := long.Append(engine.HumanMessage("b"))
	if !engine.MessageListShares(a, long) || !engine.MessageListShares(b, long) {
		t.Fatal("a short append copied the long list")
	}
}

// bitsLen is ⌊log₂ n⌋ + 1.
func bitsLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

// BenchmarkMessageListForkAdd is a W4 turn's list work on a fork: four
// messages added one at a time to a list of M messages that other forks
// share. It costs the same at 10 and 10,000 messages.
func BenchmarkMessageListForkAdd(b *testing.B) {
	for _, m := range []int{10, 10000} {
		b.Run(fmt.Sprintf("messages=%d", m), func(b *testing.B) {
			msgs := make([]engine.Message, m)
			for i := range msgs {
				msgs[i] = engine.HumanMessage(fmt.Sprint(i))
				msgs[i].ID = fmt.Sprint("h", i)
			}
			base := engine.NewMessageList(msgs...)
			turn := make([]engine.Message, 4)
			for i := range turn {
				turn[i] = engine.AIMessage(fmt.Sprint(i))
				turn[i].ID = fmt.Sprint("t", i)
			}
			b.ReportAllocs()
			for b.Loop() {
				l := base
				for i := range turn {
					var err error
					if l, err = l.Add(turn[i : i+1]); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
