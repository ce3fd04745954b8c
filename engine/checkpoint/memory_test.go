package checkpoint_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/checkpoint/checkpointtest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func cfg(thread, id string) engine.CheckpointConfig {
	return engine.CheckpointConfig{ThreadID: thread, CheckpointID: id}
}

// step returns a checkpoint whose channel "step" holds n.
func step(n int) *engine.Checkpoint {
	return &engine.Checkpoint{V: 4, ChannelValues: map[string]any{"step": n}, ChannelVersions: map[string]int64{"step": int64(n)}}
}

func loop(n int) engine.CheckpointMetadata {
	return engine.CheckpointMetadata{Source: "loop", Step: n, Parents: map[string]string{}}
}

// putChain puts n checkpoints in thread, each the child of the previous,
// with sources from sources (cycled) and returns their IDs in put order.
func putChain(t *testing.T, m engine.Checkpointer, thread string, n int, sources ...string) []string {
	t.Helper()
	if len(sources) == 0 {
		sources = []string{"loop"}
	}
	var ids []string
	parent := ""
	for i := range n {
		meta := loop(i)
		meta.Source = sources[i%len(sources)]
		got, err := m.Put(t.Context(), cfg(thread, parent), step(i), meta)
		if err != nil {
			t.Fatalf("Put %d in %q: %v", i, thread, err)
		}
		parent = got.CheckpointID
		ids = append(ids, got.CheckpointID)
	}
	return ids
}

func idsOf(tuples []*engine.CheckpointTuple) []string {
	ids := []string{}
	for _, tp := range tuples {
		ids = append(ids, tp.Config.CheckpointID)
	}
	return ids
}

var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestMemoryCheckpointIDs: assigned IDs are UUID-shaped, sort in put order
// within a thread, differ between threads and namespaces, and are the same
// for the same sequence of puts.
func TestMemoryCheckpointIDs(t *testing.T) {
	t.Parallel()
	m := checkpoint.NewMemory()
	ids := putChain(t, m, "t1", 20)
	// the put counter leads, a hash of the thread follows; these exact
	// values are part of transcripts, so a change here is a visible one
	want := []string{"00000000-0001-603e-bc71-fe49acae0e66", "00000000-0002-603e-bc71-fe49acae0e66", "00000000-0003-603e-bc71-fe49acae0e66"}
	if d := cmp.Diff(want, ids[:3]); d != "" {
		t.Errorf("first IDs of thread t1 mismatch (-want +got):\n%s", d)
	}
	for i, id := range ids {
		if !uuidShape.MatchString(id) {
			t.Errorf("ID %d = %q is not UUID-shaped (8-4-4-4-12 lowercase hex, version 6)", i, id)
		}
	}
	if !slices.IsSorted(ids) {
		t.Errorf("IDs of one thread do not sort in put order: %v", ids)
	}
	again := putChain(t, checkpoint.NewMemory(), "t1", 20)
	if d := cmp.Diff(ids, again); d != "" {
		t.Errorf("the same puts on a fresh Memory gave other IDs (-first +second):\n%s", d)
	}
	other := putChain(t, m, "t2", 1)
	if other[0] == ids[0] {
		t.Errorf("first IDs of threads t1 and t2 are both %s, want them to differ", ids[0])
	}
	ns, err := m.Put(t.Context(), engine.CheckpointConfig{ThreadID: "t1", CheckpointNS: "sub"}, step(0), loop(0))
	if err != nil {
		t.Fatal(err)
	}
	if ns.CheckpointID == ids[0] {
		t.Errorf("first IDs of thread t1 in namespaces \"\" and \"sub\" are both %s, want them to differ", ids[0])
	}
	// IDs are decimal-free hex, so put 16 must not sort before put 9
	if !(ids[8] < ids[15]) {
		t.Errorf("put 9 ID %s does not sort before put 16 ID %s", ids[8], ids[15])
	}
}

// TestMemoryZeroValue: a Memory that was not made by NewMemory works.
func TestMemoryZeroValue(t *testing.T) {
	t.Parallel()
	var m checkpoint.Memory
	if got, err := m.GetTuple(t.Context(), cfg("t1", "")); got != nil || err != nil {
		t.Errorf("GetTuple on a zero Memory = %v, %v; want nil, nil", got, err)
	}
	ids := putChain(t, &m, "t1", 2)
	list, err := m.List(t.Context(), cfg("t1", ""), engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{ids[1], ids[0]}, idsOf(list)); d != "" {
		t.Errorf("List on a zero Memory mismatch (-want +got):\n%s", d)
	}
}

func TestMemoryPutKeepsGivenID(t *testing.T) {
	t.Parallel()
	m := checkpoint.NewMemory()
	c := step(1)
	c.ID = "1ef-given"
	got, err := m.Put(t.Context(), engine.CheckpointConfig{ThreadID: "t1", CheckpointNS: "ns", CheckpointID: "parent"}, c, loop(1))
	if err != nil {
		t.Fatal(err)
	}
	want := engine.CheckpointConfig{ThreadID: "t1", CheckpointNS: "ns", CheckpointID: "1ef-given"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Put config mismatch (-want +got):\n%s", d)
	}
	// the caller's checkpoint is not changed when an ID is assigned
	c2 := step(2)
	if _, err := m.Put(t.Context(), want, c2, loop(2)); err != nil {
		t.Fatal(err)
	}
	if c2.ID != "" {
		t.Errorf("Put set the caller's checkpoint ID to %q, want it left empty", c2.ID)
	}
}

// TestMemoryForkIsNewest: a checkpoint put as the child of an older one
// (a replay or fork) is the thread's newest, and its parent is the older one.
func TestMemoryForkIsNewest(t *testing.T) {
	t.Parallel()
	m := checkpoint.NewMemory()
	ids := putChain(t, m, "t1", 3)
	at := cfg("t1", ids[0])
	at.Fork = true
	fork, err := m.Put(t.Context(), at, step(9), engine.CheckpointMetadata{Source: "fork", Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.GetTuple(t.Context(), cfg("t1", ""))
	if err != nil {
		t.Fatal(err)
	}
	if got.Config.CheckpointID != fork.CheckpointID || got.ParentConfig == nil || got.ParentConfig.CheckpointID != ids[0] {
		t.Errorf("newest = %s with parent %+v, want the fork %s with parent %s", got.Config.CheckpointID, got.ParentConfig, fork.CheckpointID, ids[0])
	}
}

// TestMemoryListTuplesAreComplete: List returns the same tuples GetTuple
// does, writes and parents included.
func TestMemoryListTuplesAreComplete(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := checkpoint.NewMemory()
	ids := putChain(t, m, "t1", 3)
	if err := m.PutWrites(ctx, cfg("t1", ids[2]), []engine.PendingWrite{{Channel: "c", Value: 1}}, "task"); err != nil {
		t.Fatal(err)
	}
	list, err := m.List(ctx, cfg("t1", ""), engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range list {
		want, err := m.GetTuple(ctx, got.Config)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("List tuple %s differs from GetTuple (-GetTuple +List):\n%s", got.Config.CheckpointID, d)
		}
	}
}

func TestMemoryErrors(t *testing.T) {
	t.Parallel()
	m := checkpoint.NewMemory()
	ids := putChain(t, m, "t1", 1)
	tests := []struct {
		reason string
		call   func(ctx context.Context) error
		want   string
	}{
		{"Put needs a thread", func(ctx context.Context) error {
			_, err := m.Put(ctx, cfg("", ""), step(0), loop(0))
			return err
		}, "put checkpoint: thread ID is empty"},
		{"Put needs a checkpoint", func(ctx context.Context) error {
			_, err := m.Put(ctx, cfg("t1", ""), nil, loop(0))
			return err
		}, `put checkpoint in thread "t1": checkpoint is nil`},
		{"GetTuple needs a thread", func(ctx context.Context) error {
			_, err := m.GetTuple(ctx, cfg("", ids[0]))
			return err
		}, "get checkpoint: thread ID is empty"},
		{"List needs a thread", func(ctx context.Context) error {
			_, err := m.List(ctx, cfg("", ""), engine.ListOptions{})
			return err
		}, "list checkpoints: thread ID is empty"},
		{"a negative limit is a mistake", func(ctx context.Context) error {
			_, err := m.List(ctx, cfg("t1", ""), engine.ListOptions{Limit: -1})
			return err
		}, `list checkpoints of thread "t1": limit -1 is negative`},
		{"PutWrites needs a thread", func(ctx context.Context) error {
			return m.PutWrites(ctx, cfg("", ids[0]), nil, "task")
		}, "put writes: thread ID is empty"},
		{"writes belong to a checkpoint", func(ctx context.Context) error {
			return m.PutWrites(ctx, cfg("t1", ""), nil, "task")
		}, `put writes of task "task" in thread "t1": checkpoint ID is empty; writes belong to a checkpoint`},
		{"writes to an unknown checkpoint would be lost", func(ctx context.Context) error {
			return m.PutWrites(ctx, cfg("t1", "nope"), nil, "task")
		}, `put writes of task "task" in thread "t1": no checkpoint "nope"`},
		{"writes to an unknown thread would be lost", func(ctx context.Context) error {
			return m.PutWrites(ctx, cfg("t9", ids[0]), nil, "task")
		}, fmt.Sprintf(`put writes of task "task" in thread "t9": no checkpoint %q`, ids[0])},
		{"DeleteThread needs a thread", func(ctx context.Context) error {
			return m.DeleteThread(ctx, "")
		}, "delete thread: thread ID is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			err := tc.call(t.Context())
			got := "<nil>"
			if err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("error mismatch (-want +got):\n%s\n(%s)", d, tc.reason)
			}
		})
	}
}

func TestMemoryThreadsAndDeleteThread(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := checkpoint.NewMemory()
	if got := m.Threads(); len(got) != 0 {
		t.Errorf("Threads() of a new Memory = %v, want none", got)
	}
	putChain(t, m, "b", 2)
	putChain(t, m, "a", 1)
	if _, err := m.Put(ctx, engine.CheckpointConfig{ThreadID: "b", CheckpointNS: "sub"}, step(0), loop(0)); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a", "b"}, m.Threads()); d != "" {
		t.Errorf("Threads() mismatch (-want +got):\n%s", d)
	}
	if err := m.DeleteThread(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := m.DeleteThread(ctx, "never-existed"); err != nil {
		t.Errorf("DeleteThread of an unknown thread: %v, want nil", err)
	}
	if d := cmp.Diff([]string{"a"}, m.Threads()); d != "" {
		t.Errorf("Threads() after DeleteThread(b) mismatch (-want +got):\n%s", d)
	}
	for _, ns := range []string{"", "sub"} {
		got, err := m.GetTuple(ctx, engine.CheckpointConfig{ThreadID: "b", CheckpointNS: ns})
		if err != nil || got != nil {
			t.Errorf("GetTuple(b, ns %q) after delete = %v, %v; want nil, nil", ns, got, err)
		}
	}
	// a deleted thread starts again from its first ID
	again := putChain(t, m, "b", 1)
	if first := putChain(t, checkpoint.NewMemory(), "b", 1); again[0] != first[0] {
		t.Errorf("first ID after delete = %s, want %s as for a new thread", again[0], first[0])
	}
}

// TestMemoryConcurrentUse: puts, writes, reads and lists from many
// goroutines on shared and separate threads (run with -race); each thread
// ends with every put, in order.
func TestMemoryConcurrentUse(t *testing.T) {
	t.Parallel()
	const workers, puts = 8, 25
	m := checkpoint.NewMemory()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			ctx := context.Background()
			thread := fmt.Sprint("t", w%3) // threads shared by several workers
			for i := range puts {
				// unordered roots in a shared thread: each put branches
				put, err := m.Put(ctx, engine.CheckpointConfig{ThreadID: thread, Fork: true}, step(i), loop(i))
				if err != nil {
					errs <- err
					return
				}
				if err := m.PutWrites(ctx, put, []engine.PendingWrite{{Channel: "c", Value: i}}, fmt.Sprint("task", w)); err != nil {
					errs <- err
					return
				}
				if _, err := m.GetTuple(ctx, cfg(thread, "")); err != nil {
					errs <- err
					return
				}
				if _, err := m.List(ctx, cfg(thread, ""), engine.ListOptions{Limit: 3}); err != nil {
					errs <- err
					return
				}
				_ = m.Threads()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	total := 0
	for _, thread := range m.Threads() {
		list, err := m.List(t.Context(), cfg(thread, ""), engine.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		total += len(list)
		ids := idsOf(list)
		if !slices.IsSortedFunc(ids, func(a, b string) int { return strings.Compare(b, a) }) {
			t.Errorf("thread %s: List is not newest first: %v", thread, ids)
		}
	}
	if total != workers*puts {
		t.Errorf("%d checkpoints stored, want %d", total, workers*puts)
	}
}

// TestPropMemoryListNewestFirst: for any sequence of puts across a few
// threads, List returns each thread's checkpoints in exactly the reverse
// of their put order, and GetTuple without an ID returns the last put.
func TestPropMemoryListNewestFirst(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propMemoryListNewestFirst)
}

// FuzzMemoryListNewestFirst feeds the same property from the fuzzer.
func FuzzMemoryListNewestFirst(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Add([]byte("\x00\x10\xff\x01\x7f\x02\x80\x03\xfe\x04\x40\x05\xc0\x06\x20\x07"))
	f.Fuzz(rapid.MakeFuzz(propMemoryListNewestFirst))
}

func propMemoryListNewestFirst(t *rapid.T) {
	ctx := context.Background()
	m := checkpoint.NewMemory()
	threads := []string{"t1", "t2", "t3"}
	namespaces := []string{"", "sub"}
	type key struct{ thread, ns string }
	put := map[key][]string{} // IDs in put order
	n := rapid.IntRange(1, 60).Draw(t, "puts")
	for i := range n {
		k := key{rapid.SampledFrom(threads).Draw(t, "thread"), rapid.SampledFrom(namespaces).Draw(t, "ns")}
		parent, fork := "", false
		if prev := put[k]; len(prev) > 0 && rapid.Bool().Draw(t, "fork") {
			parent, fork = rapid.SampledFrom(prev).Draw(t, "parent"), true
		} else if len(prev) > 0 {
			parent = prev[len(prev)-1]
		}
		got, err := m.Put(ctx, engine.CheckpointConfig{ThreadID: k.thread, CheckpointNS: k.ns, CheckpointID: parent, Fork: fork}, step(i), loop(i))
		if err != nil {
			t.Fatalf("Put %d: %v", i, err)
		}
		put[k] = append(put[k], got.CheckpointID)
	}
	for _, th := range threads {
		for _, ns := range namespaces {
			k := key{th, ns}
			c := engine.CheckpointConfig{ThreadID: th, CheckpointNS: ns}
			list, err := m.List(ctx, c, engine.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(put[k])
			slices.Reverse(want)
			if want == nil {
				want = []string{}
			}
			if d := cmp.Diff(want, idsOf(list)); d != "" {
				t.Fatalf("List(%s, ns %q) is not the reverse put order (-want +got):\n%s", th, ns, d)
			}
			newest, err := m.GetTuple(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case len(put[k]) == 0 && newest != nil:
				t.Fatalf("GetTuple(%s, ns %q) = %s for a thread never put", th, ns, newest.Config.CheckpointID)
			case len(put[k]) > 0 && (newest == nil || newest.Config.CheckpointID != put[k][len(put[k])-1]):
				t.Fatalf("GetTuple(%s, ns %q) = %v, want the last put %s", th, ns, newest, put[k][len(put[k])-1])
			}
		}
	}
}

// TestMemoryConformance runs the shared checkpointer and store suites
// against Memory and MemoryStore.
func TestMemoryConformance(t *testing.T) {
	t.Parallel()
	checkpointtest.Run(t, func(*testing.T) engine.Checkpointer { return checkpoint.NewMemory() })
	checkpointtest.RunStore(t, func(_ *testing.T, clock engine.Clock) engine.Store { return checkpoint.NewMemoryStore(clock) })
}

// TestMemoryChildCounts: Memory counts a checkpoint's children in its own
// record, roots in the thread, and children of a parent it does not hold
// aside until that parent is put. Each case puts checkpoints with the
// given IDs under the given parents and expects a conflict exactly where a
// second child of the same parent is put.
func TestMemoryChildCounts(t *testing.T) {
	t.Parallel()
	type put struct {
		id, parent string
		conflict   bool
	}
	cases := []struct {
		name   string
		reason string
		puts   []put
	}{
		{"second root", "roots are counted in the thread", []put{{"a", "", false}, {"b", "", true}}},
		{"second child", "a stored parent counts its children", []put{{"a", "", false}, {"b", "a", false}, {"c", "a", true}}},
		{"absent parent", "children of a parent not stored yet are counted aside", []put{{"b", "ghost", false}, {"c", "ghost", true}}},
		{"parent put after its child", "the count kept aside moves to the parent when it is put", []put{{"b", "ghost", false}, {"ghost", "", false}, {"c", "ghost", true}}},
		{"parent put again", "a checkpoint put again under its ID keeps its children", []put{{"a", "", false}, {"b", "a", false}, {"a", "", false}, {"c", "a", true}}},
		{"child put again", "a checkpoint put again under its own parent is not its sibling", []put{{"a", "", false}, {"b", "a", false}, {"b", "a", false}}},
		{"child moved", "a checkpoint put again under another parent frees its old one", []put{{"a", "", false}, {"x", "", true}, {"b", "a", false}, {"b", "ghost", false}, {"c", "a", false}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := checkpoint.NewMemory()
			for i, p := range c.puts {
				cp := step(i)
				cp.ID = p.id
				_, err := m.Put(t.Context(), cfg("t", p.parent), cp, loop(i))
				if got := errors.Is(err, engine.ErrCheckpointConflict); got != p.conflict || (err != nil && !got) {
					t.Fatalf("put %d (%s under %q): err = %v, want conflict %v (%s)", i, p.id, p.parent, err, p.conflict, c.reason)
				}
			}
		})
	}
}

// TestMemoryDeleteThreadKeepsOthers: DeleteThread removes every namespace
// of the thread and nothing of threads whose IDs share a prefix, and a
// put after it starts the thread afresh.
func TestMemoryDeleteThreadKeepsOthers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := checkpoint.NewMemory()
	for _, c := range []engine.CheckpointConfig{{ThreadID: "t"}, {ThreadID: "t", CheckpointNS: "sub:1"}, {ThreadID: "t2"}} {
		if _, err := m.Put(ctx, c, step(0), loop(0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.DeleteThread(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"t2"}, m.Threads()); d != "" {
		t.Errorf("threads after DeleteThread(t) mismatch (-want +got):\n%s", d)
	}
	for _, ns := range []string{"", "sub:1"} {
		if tp, err := m.GetTuple(ctx, engine.CheckpointConfig{ThreadID: "t", CheckpointNS: ns}); err != nil || tp != nil {
			t.Errorf("GetTuple(t, %q) after delete = %v, %v; want nothing", ns, tp, err)
		}
	}
	got, err := m.Put(ctx, cfg("t", ""), step(1), loop(1))
	if err != nil {
		t.Fatalf("a root put after the delete: %v", err)
	}
	if want := "00000000-0001-"; !strings.HasPrefix(got.CheckpointID, want) {
		t.Errorf("first ID after the delete = %s, want the thread's first (%s...)", got.CheckpointID, want)
	}
}

// TestMemoryPutAgainKeepsWrites: a checkpoint put again under its ID takes
// the new checkpoint and keeps the writes stored against the ID (as
// InMemorySaver keeps them apart from its checkpoints), in one record:
// List still returns the ID once.
func TestMemoryPutAgainKeepsWrites(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := checkpoint.NewMemory()
	for i := range 3 {
		cp := step(i)
		cp.ID = "a"
		if _, err := m.Put(ctx, cfg("t", ""), cp, loop(i)); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
		if i == 0 {
			if err := m.PutWrites(ctx, cfg("t", "a"), []engine.PendingWrite{{Channel: "x", Value: 1}, {Channel: "y", Value: 2}}, "task"); err != nil {
				t.Fatal(err)
			}
		}
	}
	list, err := m.List(ctx, cfg("t", ""), engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("List after three puts of one ID = %v, want that ID once", idsOf(list))
	}
	got := list[0]
	if got.Checkpoint.ChannelValues["step"] != 2 || got.Metadata.Step != 2 {
		t.Errorf("checkpoint a = step %v (metadata step %d), want the last put, 2", got.Checkpoint.ChannelValues["step"], got.Metadata.Step)
	}
	want := []engine.PendingWrite{{TaskID: "task", Channel: "x", Value: 1}, {TaskID: "task", Channel: "y", Value: 2}}
	if d := cmp.Diff(want, got.PendingWrites); d != "" {
		t.Errorf("writes of checkpoint a after it was put again (-want +got):\n%s", d)
	}
}
