package engine

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestPropIDArenaMatchesFormatUUID: the IDs an idArena cuts from its
// chunks are the UUIDs formatUUID makes of the same bytes, and every ID
// handed out keeps its text while the arena goes on (its chunk is never
// written again).
func TestPropIDArenaMatchesFormatUUID(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var a idArena
		var got, want []string
		for range rapid.IntRange(1, 300).Draw(t, "ids") {
			var sum, copySum [16]byte
			for i := range sum {
				sum[i] = rapid.Byte().Draw(t, "byte")
			}
			copySum = sum
			got = append(got, a.uuid(&sum))
			want = append(want, formatUUID(&copySum))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("ID %d = %s, want %s", i, got[i], want[i])
			}
		}
	})
}

// TestPropParseFastMessageIDInvertsFastID: a fast message ID parses back
// to the numbers packed in it, under its own key only; the run's other
// IDs (task IDs, hashed IDs of numbers out of range, IDs of another key)
// do not parse. A parse without the check of the first half would take
// another key's ID (or almost any version-8 UUID) for one of the run's,
// and the messages channel would then append it without looking it up.
func TestPropParseFastMessageIDInvertsFastID(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := [2]uint64{rapid.Uint64().Draw(t, "key0"), rapid.Uint64().Draw(t, "key1")}
		other := [2]uint64{rapid.Uint64().Draw(t, "other0"), rapid.Uint64().Draw(t, "other1")}
		if other == key {
			other[0]++
		}
		r := &run{idKey: key}
		step := rapid.IntRange(-1, 1<<22-2).Draw(t, "step")
		ord := rapid.IntRange(0, 1<<20-1).Draw(t, "task")
		n := rapid.IntRange(0, 1<<20-1).Draw(t, "counter")
		id := r.fastIDIn(&idArena{}, idMessage, step, ord, n)
		p, ok := parseFastMessageID(key, id)
		want := uint64(idMessage)<<62 | uint64(step+1)<<40 | uint64(ord)<<20 | uint64(n)
		if !ok || p != want {
			t.Fatalf("parse(%s) = %#x, %v; want %#x", id, p, ok, want)
		}
		if _, ok := parseFastMessageID(other, id); ok {
			t.Fatalf("%s parses under another key", id)
		}
		if task := r.fastID(idTask, step, ord, n); task != id {
			if _, ok := parseFastMessageID(key, task); ok {
				t.Fatalf("task ID %s parses as a message ID", task)
			}
		}
		hashed := r.fastID(idMessage, step, ord, 1<<20+n) // a counter out of range
		if _, ok := parseFastMessageID(key, hashed); ok {
			t.Fatalf("hashed ID %s parses", hashed)
		}
		if upper := strings.ToUpper(id); upper != id {
			if _, ok := parseFastMessageID(key, upper); ok {
				t.Fatalf("%s parses: the run writes lowercase", upper)
			}
		}
		x := rapid.Uint64().Draw(t, "x")
		if unmix64(mix64(x)) != x {
			t.Fatalf("unmix64(mix64(%#x)) = %#x", x, unmix64(mix64(x)))
		}
	})
}

// TestParseFastMessageIDRejects: strings that are not fast IDs, each for
// a reason, do not parse (and do not panic).
func TestParseFastMessageIDRejects(t *testing.T) {
	key := [2]uint64{1, 2}
	good := (&run{idKey: key}).fastID(idMessage, 0, 0, 1)
	if _, ok := parseFastMessageID(key, good); !ok {
		t.Fatalf("%s does not parse", good)
	}
	for _, tc := range []struct{ id, why string }{
		{"", "empty"},
		{good[:35], "one digit short"},
		{good + "0", "one digit more"},
		{strings.Replace(good, "-", "0", 1), "a dash replaced"},
		{good[:10] + "g" + good[11:], "not a hex digit"},
		{uuidFromHash("a"), "a hashed ID"},
		{"call_1", "a caller's ID"},
		{strings.ToUpper(good), "uppercase digits, which writeUUID never writes"},
		{good[:14] + "4" + good[15:], "version 4, not 8"},
		{good[:19] + "c" + good[20:], "another variant"},
		{good[:35] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", good[35])+1)%16]), "last digit changed"},
	} {
		if _, ok := parseFastMessageID(key, tc.id); ok {
			t.Errorf("%s: %q parses", tc.why, tc.id)
		}
	}
}

// TestPropHashedIDsInArena: hashed IDs cut from an arena (a run's task
// IDs, a task's message IDs with a saver) are the IDs uuidFromHash
// returns, and stay so after the arena has handed out more (past its
// chunks' ends).
func TestPropHashedIDsInArena(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var arena idArena
		var parts [][]string
		var got []string
		for range rapid.IntRange(1, 150).Draw(t, "ids") {
			p := rapid.SliceOfN(rapid.String(), 1, 6).Draw(t, "parts")
			parts = append(parts, p)
			got = append(got, uuidFromHashIn(&arena, p...))
		}
		for i, p := range parts {
			if want := uuidFromHash(p...); got[i] != want {
				t.Fatalf("ID %d of %q in an arena = %s, want %s", i, p, got[i], want)
			}
		}
	})
}

// TestPropRecycledTasksKeepTheirIDs: a run without a saver cuts the IDs
// of its tasks' messages from each task's arena, and a task recycled for
// the next superstep keeps the rest of its arena's chunk. Every ID handed
// out must keep the text fastID gives its numbers while later supersteps'
// tasks, recycled or new, cut theirs. An arena that rewound its chunk on
// recycling (or a task that kept another's chunk) rewrites earlier IDs.
func TestPropRecycledTasksKeepTheirIDs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := &run{idKey: fastIDKey(rapid.StringMatching(`[0-9a-f]{32}`).Draw(t, "seed"))}
		type made struct {
			id           string
			step, ord, n int
		}
		var all []made
		for step := range rapid.IntRange(1, 12).Draw(t, "steps") {
			r.step = step
			for ord := range rapid.IntRange(1, 4).Draw(t, "tasks") {
				tk := r.newTask(pushTask, nil, "tools", ord)
				tk.scratch = &scratchpad{step: step}
				r.tasks = append(r.tasks, tk)
				for n := range rapid.IntRange(0, 40).Draw(t, "messages") {
					n++ // counters start at 1
					all = append(all, made{id: r.messageID(tk, n), step: step, ord: ord, n: n})
				}
			}
			r.recycleTasks()
		}
		seen := map[string]bool{}
		for _, m := range all {
			if want := r.fastID(idMessage, m.step, m.ord, m.n); m.id != want {
				t.Fatalf("message %d of task %d at step %d: ID %s, want %s", m.n, m.ord, m.step, m.id, want)
			}
			if seen[m.id] {
				t.Fatalf("ID %s twice", m.id)
			}
			seen[m.id] = true
		}
	})
}
