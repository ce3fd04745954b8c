package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// msgsModel is add_messages written plainly: each update message replaces
// the last message with its ID, marks it removed or is appended; RemoveAll
// keeps only what follows it.
func msgsModel(left, right []Message) ([]Message, error) {
	for i := len(right) - 1; i >= 0; i-- {
		if right[i].Type == TypeRemove && right[i].ID == RemoveAllMessages {
			return slices.Clone(right[i+1:]), nil
		}
	}
	merged := slices.Clone(left)
	removed := map[string]bool{}
	for _, m := range right {
		i := -1 // the last message with the ID, as add_messages's index
		for j := range merged {
			if merged[j].ID == m.ID {
				i = j
			}
		}
		switch {
		case i >= 0 && m.Type == TypeRemove:
			removed[m.ID] = true
		case i >= 0:
			delete(removed, m.ID)
			merged[i] = m
		case m.Type == TypeRemove:
			return nil, fmt.Errorf("unknown id %q", m.ID)
		default:
			merged = append(merged, m)
		}
	}
	return slices.DeleteFunc(merged, func(m Message) bool { return removed[m.ID] }), nil
}

func renderMsgs(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID + "=" + m.Content.String()
	}
	return out
}

// TestPropMessagesChannelMatchesModel drives the add_messages channel
// through long histories (past the lengths where it indexes IDs and
// rebuilds its index) with the operations runs put it through: updates,
// checkpoints restored with and without the graph's index cache,
// fresh-read forks, in place and copying, and a run's long input list
// adopted by a new channel (listHint). After every operation its value
// must be the model's, and every value it handed out earlier must be
// unchanged (it appends into its own spare capacity, never into theirs),
// as a slice and as the interface get returned (whose header the channel
// cut from a block it goes on cutting: viewSlab; a block whose header is
// cut twice fails this).
//
// Many messages have IDs a run without a checkpointer makes up for its
// tasks (fast IDs, from a small set of numbers so they come again): new
// ones, appended without a lookup (mintState), and ones the list has,
// written again to replace or remove their message, in and out of the
// order the run makes them. Mutants this catches: fresh without its
// comparison with max (a replacement appends), find without tracking
// the gap (an indexed list misses a message appended untracked), a
// RemoveAll whose survivors are not seen.
func TestPropMessagesChannelMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lc := newListCache()
		c := newMessagesChan("messages")
		mintRun := &run{idKey: [2]uint64{rapid.Uint64().Draw(t, "key0"), rapid.Uint64().Draw(t, "key1")}}
		// arm gives a channel the run's mintState; max is at least that
		// of every channel before it, so at least that of every fast ID
		// its list holds (what armMint's empty channel guarantees)
		var mints []*mintState
		arm := func(ch *messagesChan) *messagesChan {
			s := &mintState{key: mintRun.idKey}
			for _, o := range mints {
				s.max = max(s.max, o.max)
			}
			mints = append(mints, s)
			ch.mint = s
			return ch
		}
		arm(c)
		minted := func() string {
			return mintRun.fastID(idMessage, rapid.IntRange(0, 2).Draw(t, "step"), rapid.IntRange(0, 2).Draw(t, "task"), rapid.IntRange(1, 40).Draw(t, "counter"))
		}
		var model []Message
		type held struct {
			view []Message
			want []string
			// box is the interface get returned, when the view came from
			// one: its header is the channel's (viewSlab), not a copy
			box any
		}
		var views []held
		serial := 0
		pool := rapid.IntRange(1, 3*deltaMax).Draw(t, "id pool")
		batch := func() []Message {
			n := rapid.IntRange(1, 2*scanMax).Draw(t, "batch size")
			var out []Message
			for range n {
				serial++
				id := fmt.Sprintf("id%d", rapid.IntRange(0, pool).Draw(t, "id"))
				madeUp := rapid.Bool().Draw(t, "made-up id")
				if madeUp {
					id = minted()
				}
				switch rapid.IntRange(0, 19).Draw(t, "kind") {
				case 0:
					out = append(out, RemoveMessage(id))
				case 1:
					if rapid.IntRange(0, 9).Draw(t, "remove all") == 0 {
						out = append(out, RemoveMessage(RemoveAllMessages))
					}
				case 2, 3:
					// the ID of a message in the list: it is replaced
					// (or, with a RemoveMessage, removed)
					if len(model) > 0 {
						m := HumanMessage(fmt.Sprintf("m%d", serial))
						m.ID = model[rapid.IntRange(0, len(model)-1).Draw(t, "existing")].ID
						if rapid.IntRange(0, 3).Draw(t, "remove existing") == 0 {
							m = RemoveMessage(m.ID)
						}
						out = append(out, m)
					}
				default:
					// a pooled ID (replaces when present) or a new one
					// (grows the list past the indexing thresholds)
					m := HumanMessage(fmt.Sprintf("m%d", serial))
					m.ID = id
					if !madeUp && rapid.IntRange(0, 2).Draw(t, "new id") > 0 {
						m.ID = fmt.Sprintf("new%d", serial)
					}
					out = append(out, m)
				}
			}
			return out
		}
		apply := func(ch *messagesChan, model []Message, right []Message, label string) []Message {
			before := renderMsgs(ch.view())
			_, err := ch.update([]any{right})
			want, werr := msgsModel(model, right)
			if (err != nil) != (werr != nil) {
				t.Fatalf("%s: error = %v, model's error = %v", label, err, werr)
			}
			if err != nil {
				if got := renderMsgs(ch.view()); !slices.Equal(got, before) {
					t.Fatalf("%s: a failed update changed the channel:\n got %v\nwant %v", label, got, before)
				}
				return model
			}
			if got := renderMsgs(ch.view()); !slices.Equal(got, renderMsgs(want)) {
				t.Fatalf("%s:\n got %v\nwant %v", label, got, renderMsgs(want))
			}
			return want
		}
		hold := func(ch *messagesChan) {
			v, _ := ch.get()
			views = append(views, held{v.([]Message), renderMsgs(v.([]Message)), v})
		}
		// checkpoint takes a checkpoint of c and, when the run ends,
		// gives back its array's spare capacity
		checkpoint := func(end bool) []Message {
			v, _ := c.checkpoint()
			lc.put(c)
			if end {
				c.release()
			}
			return v.([]Message)
		}
		restore := func(v []Message) *messagesChan {
			li := lc.get(v)
			if rapid.Bool().Draw(t, "saver rebuilt the list") {
				v = slices.Clone(v)
				li = lc.get(v)
			}
			return arm(c.restoreIndexed(v, true, li).(*messagesChan))
		}
		// input is a run's input list: a long list the graph's seed cache
		// has seen, some of it with an ID index already, normalized and
		// handed to a new, empty channel as a run without a checkpointer
		// does. Its IDs must be the ones normalizeWrite gives, and the
		// channel's value the model's.
		input := func() *messagesChan {
			// a thread with distinct IDs, then a few defects: messages
			// without an ID, removals, IDs seen before
			list := make([]Message, rapid.IntRange(seedCacheMin, seedCacheMin+3*deltaMax).Draw(t, "input length"))
			for i := range list {
				serial++
				list[i] = HumanMessage(fmt.Sprintf("m%d", serial))
				list[i].ID = fmt.Sprintf("in%d", serial)
			}
			for range rapid.IntRange(0, 3).Draw(t, "defects") {
				i := rapid.IntRange(0, len(list)-1).Draw(t, "defect at")
				switch rapid.IntRange(0, 3).Draw(t, "defect") {
				case 0:
					list[i].ID = ""
				case 1:
					list[i] = RemoveMessage(list[rapid.IntRange(0, len(list)-1).Draw(t, "removed")].ID)
				case 2:
					list[i] = RemoveMessage(RemoveAllMessages)
				default:
					list[i].ID = list[rapid.IntRange(0, len(list)-1).Draw(t, "same id as")].ID
				}
			}
			e := &seedEntry{snap: slices.Clone(list), stop: -1}
			if rapid.Bool().Draw(t, "indexed before") {
				e.index(e.snap, rapid.IntRange(0, len(list)).Draw(t, "indexed"))
			}
			k := knownList{list: list, snap: e.snap, entry: e}
			if rapid.Bool().Draw(t, "known as a shorter list") {
				k.list = list[:rapid.IntRange(len(list)/2, len(list)).Draw(t, "known length")]
			}
			ids := 0
			newID := func() string { ids++; return fmt.Sprintf("input%d", ids) }
			out, h := normalizeKnownList(k, newID)
			ids = 0
			want, _ := AddMessagesReducer{}.normalizeWrite(k.list, funcIDs(newID), false)
			if got, want := renderMsgs(out), renderMsgs(want.([]Message)); !slices.Equal(got, want) {
				t.Fatalf("normalized input:\n got %v\nwant %v", got, want)
			}
			views = append(views, held{out, renderMsgs(out), nil})
			n := arm(newMessagesChan("messages"))
			n.hint = h
			model = apply(n, nil, out, "input")
			return n
		}
		// scratch is where fresh reads fork (see case 5)
		var scratch messagesChan
		steps := rapid.IntRange(1, 40).Draw(t, "steps")
		for range steps {
			switch rapid.IntRange(0, 7).Draw(t, "op") {
			case 0, 1:
				model = apply(c, model, batch(), "update")
			case 2, 3:
				// the run ends (or not: another run may start from the
				// same checkpoint meanwhile) and the next run of the
				// thread starts from its newest checkpoint
				c = restore(checkpoint(rapid.Bool().Draw(t, "run ended")))
			case 4:
				// two runs start from the same checkpoint: one may take
				// the array's spare capacity, the other must copy
				v := checkpoint(true)
				a, b := restore(v), restore(v)
				modelA := apply(a, model, batch(), "first sibling")
				hold(a)
				modelB := apply(b, model, batch(), "second sibling")
				hold(b)
				c, model = b, modelB
				if rapid.Bool().Draw(t, "go on with the first") {
					c, model = a, modelA
				}
			case 5:
				// a fresh read: the fork takes the writes, then the
				// superstep applies the same writes to the channel
				// The fork goes into the channel the previous fresh read
				// used (as a task's freshChan does): nothing of that
				// read may show in this one.
				if rapid.Bool().Draw(t, "fill the array first") {
					// a full array: the fork in place makes the channel
					// take its next array (forkInto)
					for c.owned && len(c.msgs) < cap(c.msgs) {
						serial++
						m := HumanMessage(fmt.Sprintf("m%d", serial))
						m.ID = fmt.Sprintf("fill%d", serial)
						model = apply(c, model, []Message{m}, "fill")
					}
				}
				right := batch()
				f := c.forkInto(&scratch, rapid.Bool().Draw(t, "in place"))
				apply(f, model, right, "fork")
				hold(f)
				model = apply(c, model, right, "after fork")
			case 6:
				hold(c)
			case 7:
				c = input()
			}
			for i, h := range views {
				if got := renderMsgs(h.view); !slices.Equal(got, h.want) {
					t.Fatalf("value handed out at %d changed:\n got %v\nwant %v", i, got, h.want)
				}
				if h.box == nil {
					continue
				}
				if got := renderMsgs(h.box.([]Message)); !slices.Equal(got, h.want) {
					t.Fatalf("boxed value handed out at %d changed:\n got %v\nwant %v", i, got, h.want)
				}
			}
		}
	})
}

// funcIDs is an idSource that calls a function.
type funcIDs func() string

func (f funcIDs) nextID() string { return f() }

// TestGrowRoom: grow leaves room for appends to come, in proportion to
// the list it makes: short lists growing by a few messages double, a
// batch larger than the list (W1's 256 tool messages after one AI
// message) gets an eighth, not room for the batch again, and a thread
// prefilled at once keeps its eighth for the turns after (W4 continued
// from the newest checkpoint appends there for 300 turns at 10,000
// messages; with 4 spare places it copied the thread every turn).
func TestGrowRoom(t *testing.T) {
	for _, tc := range []struct {
		name    string
		len, n  int
		wantCap int
	}{
		{"a short list doubles", 10, 1, 2 * 11},
		{"an empty list gets four spare places", 0, 1, 1 + 4},
		{"a large batch on a short list gets an eighth", 1, 256, 257 + 257/8},
		{"a long list grows by an eighth", 2048, 1, 2049 + 2049/8},
		{"a thread prefilled at once keeps an eighth", 0, 10000, 10000 + 1250},
		{"a short prefill too", 0, 100, 100 + 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := grow(make([]Message, tc.len), tc.n)
			if len(got) != tc.len || cap(got) != tc.wantCap {
				t.Fatalf("grow(%d, %d): len %d cap %d, want len %d cap %d", tc.len, tc.n, len(got), cap(got), tc.len, tc.wantCap)
			}
		})
	}
}

// TestForkOfAFullArrayGrowsTheChannel: a superstep's single task forks
// the messages channel in place for its fresh read; when the channel's
// array is full, the channel takes its next array at the fork, so the
// fork and then the superstep's add append into that one array (without
// it each grew its own, and the fork's was thrown away). The channel's
// value and the values it handed out stay as they were.
func TestForkOfAFullArrayGrowsTheChannel(t *testing.T) {
	c := newMessagesChan("messages")
	var want []Message
	for i := 0; i == 0 || len(c.msgs) < cap(c.msgs); i++ {
		m := HumanMessage(fmt.Sprintf("m%d", i))
		m.ID = fmt.Sprintf("id%d", i)
		want = append(want, m)
		if _, err := c.update([]any{[]Message{m}}); err != nil {
			t.Fatal(err)
		}
	}
	held, _ := c.get()
	heldWant := renderMsgs(slices.Clone(want))
	var scratch messagesChan
	next := AIMessage("next")
	next.ID = "next"
	f := c.forkInto(&scratch, true)
	if _, err := f.update([]any{[]Message{next}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.update([]any{[]Message{next}}); err != nil {
		t.Fatal(err)
	}
	want = append(want, next)
	for _, got := range []struct {
		name string
		msgs []Message
		want []string
	}{
		{"channel", c.view(), renderMsgs(want)},
		{"fork", f.view(), renderMsgs(want)},
		{"value held before", held.([]Message), heldWant},
	} {
		if diff := cmp.Diff(got.want, renderMsgs(got.msgs)); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", got.name, diff)
		}
	}
	if &f.msgs[0] != &c.msgs[0] {
		t.Errorf("the fork and the channel appended into different arrays")
	}
}
