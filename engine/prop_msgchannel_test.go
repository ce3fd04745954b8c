package engine

import (
	"fmt"
	"math/bits"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func renderMsgs(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID + "=" + m.Content.String()
	}
	return out
}

// listMsgs is the messages of a MessageList read through All (not
// Slice, whose slice is built once and kept).
func listMsgs(l MessageList) []Message {
	var out []Message
	for _, m := range l.All() {
		out = append(out, m)
	}
	return out
}

// TestPropMessagesChannelMatchesModel drives the add_messages channel
// through long histories (past the lengths where it indexes IDs and
// merges its tail into its base) with the operations runs put it
// through: updates, checkpoints restored as the list itself (Memory) or
// as a copy (a saver that decoded it), two runs from one checkpoint,
// fresh-read forks, in place and copying, and a run's input list adopted
// by a new, empty channel. After every operation its value must be the
// model's, every value it handed out earlier must be unchanged (it
// appends into its own tail, never into a list handed out), and a list's
// chain must stay O(log n) nodes long.
//
// Many messages have IDs a run without a checkpointer makes up for its
// tasks (fast IDs, from a small set of numbers so they come again): new
// ones, appended without a lookup (mintState), and ones the list has,
// written again to replace or remove their message, in and out of the
// order the run makes them. Mutants this catches: fresh without its
// comparison with max (a replacement appends), find without indexing
// the tail's untracked positions, a RemoveAll whose survivors are not
// seen, commitTail writing into base's node instead of a copy, an
// adopted input list that is not a set (an ID twice, a removal), a
// first array cut from the size hint with a length (grow returning
// make([]Message, h)).
func TestPropMessagesChannelMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := newMessagesChan("messages")
		// the graph's note of its last run's length (sizeHint), which
		// sizes the first array of a channel that starts empty
		hint := new(sizeHint)
		hint.note(rapid.IntRange(0, 300).Draw(t, "size hint"))
		hint.note(rapid.IntRange(0, 300).Draw(t, "next size hint"))
		c.hint = hint
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
			list MessageList
			want []string
		}
		var views []held
		// placed are the lists of messages tasks put in place, as a
		// saver keeps their writes
		var placed []held
		var placedLists [][]Message
		serial := 0
		pool := rapid.IntRange(1, 200).Draw(t, "id pool")
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
		check := func(ch *messagesChan, want []Message, label string) {
			l := ch.list
			if got := renderMsgs(listMsgs(l)); !slices.Equal(got, renderMsgs(want)) {
				t.Fatalf("%s:\n got %v\nwant %v", label, got, renderMsgs(want))
			}
			if got := renderMsgs(ch.view()); !slices.Equal(got, renderMsgs(want)) {
				t.Fatalf("%s: Slice:\n got %v\nwant %v", label, got, renderMsgs(want))
			}
			if d, n := MessageListDepth(l), l.Len(); n > 0 && d > 2*bits.Len(uint(n))+1 {
				t.Fatalf("%s: %d messages in a chain of %d nodes", label, n, d)
			}
		}
		apply := func(ch *messagesChan, model []Message, right []Message, label string) []Message {
			before := renderMsgs(listMsgs(ch.list))
			_, err := ch.update([]any{right})
			want, werr := addMessages(model, right)
			if (err != nil) != (werr != nil) {
				t.Fatalf("%s: error = %v, model's error = %v", label, err, werr)
			}
			if err != nil {
				if got := renderMsgs(listMsgs(ch.list)); !slices.Equal(got, before) {
					t.Fatalf("%s: a failed update changed the channel:\n got %v\nwant %v", label, got, before)
				}
				return model
			}
			check(ch, want, label)
			return want
		}
		hold := func(ch *messagesChan) {
			v, _ := ch.get()
			l := v.(MessageList)
			views = append(views, held{l, renderMsgs(listMsgs(l))})
		}
		checkpoint := func() MessageList {
			v, _ := c.checkpoint()
			return v.(MessageList)
		}
		restore := func(v MessageList) *messagesChan {
			var stored any = v
			if rapid.Bool().Draw(t, "saver decoded the list") {
				stored = slices.Clone(v.Slice())
			}
			n := arm(c.restore(stored, true).(*messagesChan))
			check(n, model, "restored")
			return n
		}
		// input is a run's input list, handed to a new, empty channel:
		// a MessageList the caller made (adopted as it is when it is a
		// set of IDs) or a slice
		input := func() *messagesChan {
			// a thread with distinct IDs, then a few defects: messages
			// without an ID, removals, IDs seen before
			list := make([]Message, rapid.IntRange(1, 300).Draw(t, "input length"))
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
			ids := 0
			newID := func() string { ids++; return fmt.Sprintf("input%d", ids) }
			var in any = list
			if rapid.Bool().Draw(t, "as a MessageList") {
				// built in pieces, as a conversation grows
				var l MessageList
				for k := 0; k < len(list); {
					j := min(len(list), k+rapid.IntRange(1, 80).Draw(t, "piece"))
					l = l.Append(list[k:j]...)
					k = j
				}
				in = l
			}
			out, err := AddMessagesReducer{}.normalizeWrite(in, funcIDs(newID), false)
			if err != nil {
				t.Fatal(err)
			}
			ids = 0
			want, _ := AddMessagesReducer{}.normalizeWrite(list, funcIDs(newID), false)
			got, _ := MessagesFromValue(out)
			if g, w := renderMsgs(got), renderMsgs(want.([]Message)); !slices.Equal(g, w) {
				t.Fatalf("normalized input:\n got %v\nwant %v", g, w)
			}
			n := arm(newMessagesChan("messages"))
			n.hint = hint
			before := model
			model = nil
			if _, err := n.update([]any{out}); err != nil {
				if _, werr := addMessages(nil, want.([]Message)); werr == nil {
					t.Fatalf("input: %v", err)
				}
				model = before
				return c
			}
			wantList, _ := addMessages(nil, want.([]Message))
			check(n, wantList, "input")
			model = wantList
			return n
		}
		// scratch is where fresh reads fork (see case 5)
		var scratch messagesChan
		steps := rapid.IntRange(1, 40).Draw(t, "steps")
		for range steps {
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0, 1:
				model = apply(c, model, batch(), "update")
			case 2, 3:
				// the next run of the thread starts from its newest
				// checkpoint (this one notes its length)
				c.noteSize()
				c = restore(checkpoint())
			case 4:
				// two runs start from the same checkpoint (a fork)
				v := checkpoint()
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
				right := batch()
				f := c.forkInto(&scratch, rapid.Bool().Draw(t, "in place"))
				apply(f, model, right, "fork")
				hold(f)
				model = apply(c, model, right, "after fork")
			case 6:
				hold(c)
			case 7:
				c = input()
			case 8:
				// a task's attempt reads fresh in place and fails (its
				// writes are not applied, its fork is read no more);
				// the retry reads fresh in place again, with other
				// writes, which the superstep applies
				var failed messagesChan
				f := c.forkInto(&failed, true)
				apply(f, model, batch(), "failed attempt")
				f.list.Slice()
				if rapid.Bool().Draw(t, "the retry writes the key") {
					right := batch()
					f = c.forkInto(&scratch, true)
					apply(f, model, right, "retry")
					hold(f)
					model = apply(c, model, right, "after retry")
				}
			case 9:
				// the superstep's single task puts its one message where
				// the channel appends next (reserveMessage), and a saver
				// keeps the list of it (PutWrites): it must never change.
				// An attempt may fail first, its message in the same
				// place; the superstep applies the write with the
				// task's other writes of the key, before or after it,
				// which a fresh read in place may apply first.
				one := func() (Message, bool) {
					b := batch()
					if len(b) == 0 {
						return Message{}, false
					}
					return b[0], true
				}
				if m, ok := one(); ok && rapid.Bool().Draw(t, "a failed attempt first") {
					if p := c.place(m); p != nil && rapid.Bool().Draw(t, "its fresh read") {
						var failed messagesChan
						f := c.forkInto(&failed, true)
						f.update([]any{p})
						f.list.Slice()
					}
				}
				m, ok := one()
				if !ok {
					break
				}
				place := c.place(m)
				if place == nil {
					break
				}
				placed = append(placed, held{want: renderMsgs(place)})
				placedLists = append(placedLists, place)
				var values []any
				if rapid.Bool().Draw(t, "a write before") {
					values = append(values, batch())
				}
				values = append(values, place)
				if rapid.Bool().Draw(t, "a write after") {
					values = append(values, batch())
				}
				want, werr := model, error(nil)
				for _, v := range values {
					if want, werr = addMessages(want, v.([]Message)); werr != nil {
						break
					}
				}
				if werr != nil {
					// the superstep fails, and with it the run: the next
					// one starts from the checkpoint
					c.noteSize()
					c = restore(checkpoint())
					break
				}
				if rapid.Bool().Draw(t, "a fresh read in place") {
					f := c.forkInto(&scratch, true)
					if _, err := f.update(values); err != nil {
						t.Fatalf("fresh read: %v", err)
					}
					check(f, want, "fresh read of a placed write")
					hold(f)
				}
				if _, err := c.update(values); err != nil {
					t.Fatalf("placed write: %v", err)
				}
				check(c, want, "placed write")
				model = want
			}
			for i, p := range placedLists {
				if got := renderMsgs(p); !slices.Equal(got, placed[i].want) {
					t.Fatalf("placed write %d changed:\n got %v\nwant %v", i, got, placed[i].want)
				}
			}
			for i, h := range views {
				if got := renderMsgs(listMsgs(h.list)); !slices.Equal(got, h.want) {
					t.Fatalf("value handed out at %d changed:\n got %v\nwant %v", i, got, h.want)
				}
				if got := renderMsgs(h.list.Slice()); !slices.Equal(got, h.want) {
					t.Fatalf("value handed out at %d changed as one slice:\n got %v\nwant %v", i, got, h.want)
				}
			}
		}
	})
}

// funcIDs is an idSource that calls a function.
type funcIDs func() string

func (f funcIDs) nextID() string { return f() }

// TestGrowRoom: growTail leaves room for appends to come, in proportion to
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
			got := growTail(make([]Message, tc.len), tc.n)
			if len(got) != tc.len || cap(got) != tc.wantCap {
				t.Fatalf("grow(%d, %d): len %d cap %d, want len %d cap %d", tc.len, tc.n, len(got), cap(got), tc.len, tc.wantCap)
			}
		})
	}
}

// TestForkMergeForgetsParentIndex: a fresh read's fork reads its
// channel's tail index for the messages it shares; when its own appends
// make it take base's last node into its tail, positions move, and a
// later lookup must still find every message of the new tail (here, one
// of base's, to replace it rather than append it twice). A merge that
// kept the fork's index starting at the parent's length missed the
// messages before that length.
func TestForkMergeForgetsParentIndex(t *testing.T) {
	msg := func(id string) Message {
		m := HumanMessage(id)
		m.ID = id
		return m
	}
	var base []Message
	for i := range 200 {
		base = append(base, msg(fmt.Sprintf("b%d", i)))
	}
	c := newMessagesChan("messages").restore(NewMessageList(base...), true).(*messagesChan)
	var tail []Message
	for i := range 40 {
		tail = append(tail, msg(fmt.Sprintf("t%d", i)))
	}
	// appended in one write, looked up one by one, so the channel indexes
	// its tail (past scanMax; one message a write would start chunks)
	if _, err := c.update([]any{tail}); err != nil {
		t.Fatal(err)
	}
	if c.tailIDs == nil {
		t.Fatal("the channel did not index its tail")
	}
	run := &run{idKey: [2]uint64{1, 2}}
	c.mint = &mintState{key: run.idKey}
	var f messagesChan
	c.forkInto(&f, false)
	// the fork appends messages with IDs the run made up (no lookup) until
	// it merges base's last node into its tail; the write replaces one of
	// the tail's first, so its full tail grows rather than starting a
	// chunk (nextChunk)
	last := msg("t39")
	last.Content = Text("replaced too")
	fresh := []Message{last}
	for i := range 70 {
		m := HumanMessage("fresh")
		m.ID = run.fastID(idMessage, 1, 0, i+1)
		fresh = append(fresh, m)
	}
	replaced := msg("b5")
	replaced.Content = Text("replaced")
	if _, err := f.update([]any{fresh, []Message{replaced}}); err != nil {
		t.Fatal(err)
	}
	got := f.view()
	if len(got) != 200+40+70 {
		t.Fatalf("the fork holds %d messages, want %d (b5 replaced, not appended)", len(got), 200+40+70)
	}
	if got[5].Content.String() != "replaced" || got[239].Content.String() != "replaced too" {
		t.Fatalf("messages 5 and 239 are %q and %q, want the replacements", got[5].Content.String(), got[239].Content.String())
	}
}

// TestChunksKeepMessagesInPlace: a thread that grows a message at a time
// from an empty list (a run of the prebuilt agent, a superstep per
// message, a checkpoint after each) keeps every message where it was
// first written: a full short tail becomes a node and the appends go on
// in a chunk twice its size (nextChunk), where growing the tail copied
// every message into a larger array, which the lists handed out before
// (checkpoints) kept alive beside it. The chain stays logarithmic. (At 68
// messages the tail has an index, a checkpoint seals it, and the tails
// after merge as before: the channel property checks that phase.)
func TestChunksKeepMessagesInPlace(t *testing.T) {
	at := func(l MessageList, i int) *Message {
		for n := l.n; n != nil; n = n.prev {
			if i >= n.off {
				return &n.items[i-n.off]
			}
		}
		return nil
	}
	c := newMessagesChan("messages")
	var first []*Message // where each message was written
	for i := range 60 {
		m := HumanMessage(fmt.Sprint(i))
		m.ID = fmt.Sprintf("m%d", i)
		if _, err := c.update([]any{[]Message{m}}); err != nil {
			t.Fatal(err)
		}
		first = append(first, at(c.list, i))
		c.resetPrefix() // a checkpoint takes the list
	}
	for i, p := range first {
		if got := at(c.list, i); got != p || got.ID != fmt.Sprintf("m%d", i) {
			t.Fatalf("message %d moved from %p to %p (or is not m%d)", i, p, got, i)
		}
	}
	if d, n := MessageListDepth(c.list), c.list.Len(); d > bits.Len(uint(n)) {
		t.Fatalf("%d messages in %d nodes, want at most %d", n, d, bits.Len(uint(n)))
	}
	// on to a long thread: the checkpoints seal indexed tails, and the
	// tails after them start no chunks, so the chain stays logarithmic
	for i := 60; i < 3000; i++ {
		m := HumanMessage(fmt.Sprint(i))
		m.ID = fmt.Sprintf("m%d", i)
		if _, err := c.update([]any{[]Message{m}}); err != nil {
			t.Fatal(err)
		}
		c.resetPrefix()
		if d, n := MessageListDepth(c.list), c.list.Len(); d > 2*bits.Len(uint(n))+1 {
			t.Fatalf("%d messages in %d nodes, want at most %d", n, d, 2*bits.Len(uint(n))+1)
		}
	}
}

// TestSlicesShareOneArray: a thread that grows a message a step and is
// asked for as one slice every step (create_agent's model node, a
// provider) gets its slices cut from arrays that grow by doubling
// (extendFlat): a few arrays for the whole run, not a copy of the thread
// per step, across the chunks its tail grows in and the checkpoints that
// seal it. Every slice holds the thread as it was.
func TestSlicesShareOneArray(t *testing.T) {
	c := newMessagesChan("messages")
	var want []Message
	arrays := map[*Message]bool{}
	const n = 500
	for i := range n {
		m := HumanMessage(fmt.Sprint(i))
		m.ID = fmt.Sprintf("m%d", i)
		want = append(want, m)
		if _, err := c.update([]any{[]Message{m}}); err != nil {
			t.Fatal(err)
		}
		got := c.list.Slice()
		if !slices.Equal(renderMsgs(got), renderMsgs(want)) {
			t.Fatalf("step %d: Slice = %v", i, renderMsgs(got))
		}
		arrays[arrayOf(got)] = true
		c.resetPrefix() // a checkpoint takes the list
	}
	if max := 4 * bits.Len(n); len(arrays) > max {
		t.Fatalf("%d steps cut their slices from %d arrays, want at most %d", n, len(arrays), max)
	}
}

// TestSizeHintSizesTheFirstArray: a graph's runs note how long they built
// their thread from empty (sizeHint), and a run's first array takes the
// smaller of the last two lengths, so the prebuilt agent's 22 messages
// are one array (one node), not a short tail followed by chunks twice
// its size, while one long run does not make the next short ones
// allocate its length. A run whose list was set whole or taken from a
// node notes nothing. Mutants this catches: noteSize not noting (or grow
// not reading) the hint (the third run's list is three nodes); the hint
// taken from the last run alone (a run after a long one takes 1024
// places); setList not clearing own (a list a RemoveAll set notes its
// length); no cap at maxChunk.
func TestSizeHintSizesTheFirstArray(t *testing.T) {
	hint := new(sizeHint)
	mk := func() *messagesChan {
		c := newMessagesChan("messages")
		c.hint = hint
		return c
	}
	thread := func(n int) *messagesChan {
		t.Helper()
		c := mk()
		for i := range n {
			m := HumanMessage(fmt.Sprint(i))
			m.ID = fmt.Sprintf("m%d", i)
			if _, err := c.update([]any{[]Message{m}}); err != nil {
				t.Fatal(err)
			}
			c.resetPrefix() // a checkpoint takes the list
		}
		(&run{chans: []channel{c}}).noteSizes()
		return c
	}
	for run, want := range []int{3, 3, 1} {
		c := thread(22)
		if d := MessageListDepth(c.list); d != want {
			t.Fatalf("run %d: 22 messages in %d nodes, want %d", run, d, want)
		}
		if want == 1 && cap(c.tail) != 22 {
			t.Fatalf("run %d: the array has %d places, want 22", run, cap(c.tail))
		}
	}

	// a list set whole says nothing of the next run's: one the run was
	// given, or one a RemoveAll left after the run had grown its own
	adopted := mk()
	if _, err := adopted.update([]any{NewMessageList(Message{Type: TypeHuman, ID: "a", Content: Text("x")})}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := adopted.update([]any{[]Message{{Type: TypeHuman, ID: fmt.Sprint("b", i), Content: Text("x")}}}); err != nil {
			t.Fatal(err)
		}
	}
	(&run{chans: []channel{adopted}}).noteSizes()
	removed := mk()
	if _, err := removed.update([]any{[]Message{{Type: TypeHuman, ID: "a", Content: Text("x")}}}); err != nil {
		t.Fatal(err)
	}
	rest := []Message{RemoveMessage(RemoveAllMessages)}
	for i := range 300 {
		rest = append(rest, Message{Type: TypeHuman, ID: fmt.Sprintf("r%d", i), Content: Text("x")})
	}
	if _, err := removed.update([]any{rest}); err != nil {
		t.Fatal(err)
	}
	(&run{chans: []channel{removed}}).noteSizes()
	if got := hint.get(); got != 22 {
		t.Fatalf("after runs whose lists were set whole the hint is %d, want 22", got)
	}

	// one long run does not size the next one's array; two do, up to
	// maxChunk
	thread(3000)
	if c := thread(2); cap(c.tail) > 22 {
		t.Fatalf("a run of 2 after one of 3000 took %d places, want at most 22", cap(c.tail))
	}
	thread(3000)
	thread(3000)
	if got := hint.get(); got != maxChunk {
		t.Fatalf("after runs of 3000 the hint is %d, want maxChunk (%d)", got, maxChunk)
	}
}

// TestForkNodeStandsForTheChannels: a fresh read in place (the prebuilt
// agent's router) makes a list node over the places the superstep then
// appends the same writes to, and the channel takes that node instead of
// making its own (forked). A node of a failed attempt whose caches were
// filled from its own message (an ID index) does not stand for the
// retry's. Mutants: commitTail never taking the fork's node (a node
// more); taking it without bare (the list finds the failed attempt's ID,
// not the retry's).
func TestForkNodeStandsForTheChannels(t *testing.T) {
	msg := func(id string) Message {
		m := HumanMessage(id)
		m.ID = id
		return m
	}
	// one array for the thread (the size hint), so the failed
	// attempt's node is long enough to index its IDs
	hint := new(sizeHint)
	hint.note(4 * scanMax)
	hint.note(4 * scanMax)
	c := newMessagesChan("messages")
	c.hint = hint
	for i := range 2 * scanMax {
		if _, err := c.update([]any{[]Message{msg(fmt.Sprint("m", i))}}); err != nil {
			t.Fatal(err)
		}
	}
	var scratch messagesChan
	right := []Message{msg("a")}
	f := c.forkInto(&scratch, true)
	if _, err := f.update([]any{right}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.update([]any{right}); err != nil {
		t.Fatal(err)
	}
	if c.list.n != f.list.n {
		t.Fatalf("the channel made a node of its own over the places its fork in place made one over")
	}

	// a failed attempt appends "lost" in place, and its node indexes
	// its IDs; the retry puts "won" in the same place
	var failed messagesChan
	f = c.forkInto(&failed, true)
	if _, err := f.update([]any{[]Message{msg("lost")}}); err != nil {
		t.Fatal(err)
	}
	if f.list.Index("lost") < 0 {
		t.Fatal("the failed attempt's fork does not find its own message")
	}
	place := c.place(msg("won"))
	if _, err := c.update([]any{place}); err != nil {
		t.Fatal(err)
	}
	if got, want := c.list.Index("won"), 2*scanMax+1; got != want {
		t.Fatalf("Index(won) = %d, want %d", got, want)
	}
	if got := c.list.Index("lost"); got != -1 {
		t.Fatalf("Index(lost) = %d, want -1: the list took the failed attempt's node and its index", got)
	}
}

// TestDepthAtLeast: a node does not keep its chain's depth; takeRoom
// asks whether a chain is at least maxRoomDepth nodes long by walking it.
// Mutants: counting from 0 (a chain of k nodes is not at least k deep),
// an empty chain at least 0 deep reported false.
func TestDepthAtLeast(t *testing.T) {
	var l MessageList
	for range 3 {
		// appends of one message onto a longer node: a node each
		l = MessageList{n: newListNode(l.n, []Message{HumanMessage("x")})}
	}
	for _, tc := range []struct {
		list   MessageList
		k      int
		want   bool
		reason string
	}{
		{MessageList{}, 0, true, "every chain has at least no nodes"},
		{MessageList{}, 1, false, "the empty list has no node"},
		{l, 3, true, "three nodes are at least three"},
		{l, 4, false, "three nodes are not four"},
		{MessageList{n: l.n.prev}, 2, true, "a chain's prefix is a chain of its own"},
	} {
		if got := tc.list.n.depthAtLeast(tc.k); got != tc.want {
			t.Errorf("depthAtLeast(%d) of %d nodes = %v, want %v (%s)", tc.k, MessageListDepth(tc.list), got, tc.want, tc.reason)
		}
	}
}
