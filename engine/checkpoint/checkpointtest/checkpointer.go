package checkpointtest

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
)

// threadDeleter is implemented by checkpointers that can delete a thread.
type threadDeleter interface {
	DeleteThread(ctx context.Context, threadID string) error
}

// Run runs the checkpointer conformance suite. newSaver must return a
// fresh, empty checkpointer each time it is called (once per subtest, and
// twice in the determinism test); it may register cleanups on t.
// Subtests run in parallel.
func Run(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer)
	}{
		{"PutGetTuple", testPutGetTuple},
		{"IDsSortInPutOrder", testIDs},
		{"PutKeepsGivenID", testPutKeepsGivenID},
		{"ForkIsNewest", testForkIsNewest},
		{"List", testList},
		{"ListTuplesAreComplete", testListTuplesAreComplete},
		{"PutWrites", testPutWrites},
		{"ValuesRoundTrip", testValuesRoundTrip},
		{"ListPrefixChains", testListPrefixChains},
		{"CopiesAreIndependent", testCopiesAreIndependent},
		{"Errors", testErrors},
		{"ConcurrentThreads", testConcurrentThreads},
		{"Conflicts", testConflicts},
		{"ConcurrentWritersOneWins", testConcurrentWriters},
		{"DeleteThread", testDeleteThread},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newSaver)
		})
	}
}

func cfg(thread, id string) engine.CheckpointConfig {
	return engine.CheckpointConfig{ThreadID: thread, CheckpointID: id}
}

// step returns a checkpoint whose channel "step" holds n.
func step(n int) *engine.Checkpoint {
	return &engine.Checkpoint{V: 4, TS: fmt.Sprintf("2025-11-01T00:00:%02dZ", n%60), ChannelValues: map[string]any{"step": n}, ChannelVersions: map[string]int64{"step": int64(n + 1)}, VersionsSeen: map[string]map[string]int64{}}
}

func loop(n int) engine.CheckpointMetadata {
	return engine.CheckpointMetadata{Source: "loop", Step: n, Parents: map[string]string{}}
}

// putChain puts n checkpoints in thread, each the child of the previous,
// with sources from sources (cycled), and returns their IDs in put order.
func putChain(t *testing.T, s engine.Checkpointer, thread string, n int, sources ...string) []string {
	t.Helper()
	if len(sources) == 0 {
		sources = []string{"loop"}
	}
	var ids []string
	parent := ""
	for i := range n {
		meta := loop(i)
		meta.Source = sources[i%len(sources)]
		got, err := s.Put(t.Context(), cfg(thread, parent), step(i), meta)
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

func mustGet(t *testing.T, s engine.Checkpointer, c engine.CheckpointConfig) *engine.CheckpointTuple {
	t.Helper()
	got, err := s.GetTuple(t.Context(), c)
	if err != nil {
		t.Fatalf("GetTuple(%+v): %v", c, err)
	}
	return got
}

func testPutGetTuple(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	ctx := t.Context()
	s := newSaver(t)
	ids := putChain(t, s, "t1", 3)
	if err := s.PutWrites(ctx, cfg("t1", ids[1]), []engine.PendingWrite{{Channel: "messages", Value: "w"}}, "task-a"); err != nil {
		t.Fatal(err)
	}
	tuple := func(i int, writes ...engine.PendingWrite) *engine.CheckpointTuple {
		c := step(i)
		c.ID = ids[i]
		tp := &engine.CheckpointTuple{Config: cfg("t1", ids[i]), Checkpoint: c, Metadata: loop(i), PendingWrites: writes}
		if i > 0 {
			tp.ParentConfig = &engine.CheckpointConfig{ThreadID: "t1", CheckpointID: ids[i-1]}
		}
		return tp
	}
	tests := []struct {
		reason string
		cfg    engine.CheckpointConfig
		want   *engine.CheckpointTuple
	}{
		{"without an ID: the newest checkpoint", cfg("t1", ""), tuple(2)},
		{"with an ID: that checkpoint, with its parent and writes", cfg("t1", ids[1]), tuple(1, engine.PendingWrite{TaskID: "task-a", Channel: "messages", Value: "w"})},
		{"the first checkpoint has no parent config", cfg("t1", ids[0]), tuple(0)},
		{"an unknown ID is not found", cfg("t1", "nope"), nil},
		{"an unknown thread is not found", cfg("t9", ""), nil},
		{"an unknown thread with a known ID is not found", cfg("t9", ids[0]), nil},
		{"another namespace of the thread is another history", engine.CheckpointConfig{ThreadID: "t1", CheckpointNS: "sub"}, nil},
	}
	for _, tc := range tests {
		got := mustGet(t, s, tc.cfg)
		if d := cmp.Diff(tc.want, got, Equal()); d != "" {
			t.Errorf("GetTuple(%+v) mismatch (-want +got):\n%s\n(%s)", tc.cfg, d, tc.reason)
		}
	}
	// a namespace is its own history with its own newest
	sub := engine.CheckpointConfig{ThreadID: "t1", CheckpointNS: "sub"}
	put, err := s.Put(ctx, sub, step(7), loop(7))
	if err != nil {
		t.Fatal(err)
	}
	if put.ThreadID != "t1" || put.CheckpointNS != "sub" || put.CheckpointID == "" {
		t.Errorf("Put in namespace sub returned %+v, want thread t1, namespace sub and an ID", put)
	}
	if got := mustGet(t, s, sub); got == nil || got.Config != put || got.Checkpoint.ChannelValues["step"] != 7 {
		t.Errorf("GetTuple(ns sub) = %+v, want the checkpoint put there", got)
	}
	if got := mustGet(t, s, cfg("t1", "")); got == nil || got.Config.CheckpointID != ids[2] {
		t.Errorf("a put in namespace sub changed the newest of namespace \"\": %+v", got)
	}
}

var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func testIDs(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	s := newSaver(t)
	ids := putChain(t, s, "t1", 20)
	for i, id := range ids {
		if !uuidShape.MatchString(id) {
			t.Errorf("ID %d = %q is not UUID-shaped (8-4-4-4-12 lowercase hex)", i, id)
		}
	}
	if !slices.IsSorted(ids) {
		t.Errorf("IDs of one thread do not sort in put order: %v", ids)
	}
	if len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Errorf("IDs of one thread repeat: %v", ids)
	}
	// IDs are hex, so put 16 must not sort before put 9
	if !(ids[8] < ids[15]) {
		t.Errorf("put 9 ID %s does not sort before put 16 ID %s", ids[8], ids[15])
	}
	again := putChain(t, newSaver(t), "t1", 20)
	if d := cmp.Diff(ids, again); d != "" {
		t.Errorf("the same puts on a fresh checkpointer gave other IDs (-first +second):\n%s", d)
	}
	other := putChain(t, s, "t2", 1)
	if other[0] == ids[0] {
		t.Errorf("first IDs of threads t1 and t2 are both %s, want them to differ", ids[0])
	}
	ns, err := s.Put(t.Context(), engine.CheckpointConfig{ThreadID: "t1", CheckpointNS: "sub"}, step(0), loop(0))
	if err != nil {
		t.Fatal(err)
	}
	if ns.CheckpointID == ids[0] {
		t.Errorf("first IDs of thread t1 in namespaces \"\" and \"sub\" are both %s, want them to differ", ids[0])
	}
}

func testPutKeepsGivenID(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	ctx := t.Context()
	s := newSaver(t)
	c := step(1)
	c.ID = "1ef-given"
	got, err := s.Put(ctx, engine.CheckpointConfig{ThreadID: "t1", CheckpointNS: "ns", CheckpointID: "parent-not-stored"}, c, loop(1))
	if err != nil {
		t.Fatal(err)
	}
	want := engine.CheckpointConfig{ThreadID: "t1", CheckpointNS: "ns", CheckpointID: "1ef-given"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Put config mismatch (-want +got):\n%s", d)
	}
	tp := mustGet(t, s, want)
	if tp == nil || tp.ParentConfig == nil || tp.ParentConfig.CheckpointID != "parent-not-stored" {
		t.Errorf("GetTuple of a checkpoint put under an unknown parent = %+v, want the parent config kept", tp)
	}
	// the caller's checkpoint is not changed when an ID is assigned
	c2 := step(2)
	if _, err := s.Put(ctx, want, c2, loop(2)); err != nil {
		t.Fatal(err)
	}
	if c2.ID != "" {
		t.Errorf("Put set the caller's checkpoint ID to %q, want it left empty", c2.ID)
	}
	// a put with an ID that exists replaces that checkpoint
	c3 := step(3)
	c3.ID = "1ef-given"
	if _, err := s.Put(ctx, engine.CheckpointConfig{ThreadID: "t1", CheckpointNS: "ns"}, c3, loop(3)); err != nil {
		t.Fatal(err)
	}
	tp = mustGet(t, s, want)
	if tp == nil || tp.Checkpoint.ChannelValues["step"] != 3 || tp.Metadata.Step != 3 {
		t.Errorf("GetTuple after a second put with the same ID = %+v, want the second checkpoint", tp)
	}
	list, err := s.List(ctx, engine.CheckpointConfig{ThreadID: "t1", CheckpointNS: "ns"}, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.Join(idsOf(list), " "), "1ef-given"); n != 1 {
		t.Errorf("List after replacing a checkpoint shows it %d times, want once: %v", n, idsOf(list))
	}
}

func testForkIsNewest(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	s := newSaver(t)
	ids := putChain(t, s, "t1", 3)
	at := cfg("t1", ids[0])
	at.Fork = true
	fork, err := s.Put(t.Context(), at, step(9), engine.CheckpointMetadata{Source: "fork", Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := mustGet(t, s, cfg("t1", ""))
	if got == nil || got.Config.CheckpointID != fork.CheckpointID || got.ParentConfig == nil || got.ParentConfig.CheckpointID != ids[0] {
		t.Fatalf("newest = %+v, want the fork %s with parent %s", got, fork.CheckpointID, ids[0])
	}
	if got.Metadata.Source != "fork" || got.Checkpoint.ChannelValues["step"] != 9 {
		t.Errorf("fork read back as %+v / %+v", got.Metadata, got.Checkpoint.ChannelValues)
	}
	// the original branch is intact
	if old := mustGet(t, s, cfg("t1", ids[2])); old == nil || old.ParentConfig == nil || old.ParentConfig.CheckpointID != ids[1] {
		t.Errorf("the checkpoint forked around = %+v, want it unchanged", old)
	}
}

func testList(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	s := newSaver(t)
	// sources: input, loop, update, loop, input, loop, update
	ids := putChain(t, s, "t1", 7, "input", "loop", "update", "loop")
	putChain(t, s, "t2", 2)
	rev := func(idx ...int) []string {
		out := []string{}
		for _, i := range idx {
			out = append(out, ids[i])
		}
		return out
	}
	tests := []struct {
		reason string
		cfg    engine.CheckpointConfig
		opts   engine.ListOptions
		want   []string
	}{
		{"everything, newest first", cfg("t1", ""), engine.ListOptions{}, rev(6, 5, 4, 3, 2, 1, 0)},
		{"Limit keeps the newest", cfg("t1", ""), engine.ListOptions{Limit: 2}, rev(6, 5)},
		{"a Limit above the count keeps all", cfg("t1", ""), engine.ListOptions{Limit: 100}, rev(6, 5, 4, 3, 2, 1, 0)},
		{"Before keeps strictly older IDs", cfg("t1", ""), engine.ListOptions{Before: ids[3]}, rev(2, 1, 0)},
		{"Before the first keeps nothing", cfg("t1", ""), engine.ListOptions{Before: ids[0]}, rev()},
		// a proper prefix of ID 2 sorts after ID 1 (they differ earlier) and before ID 2
		{"Before an ID that was never put still compares by ID", cfg("t1", ""), engine.ListOptions{Before: ids[2][:len(ids[2])-1]}, rev(1, 0)},
		{"Source filters by metadata source", cfg("t1", ""), engine.ListOptions{Source: "loop"}, rev(5, 3, 1)},
		{"Limit applies after Source and Before", cfg("t1", ""), engine.ListOptions{Source: "loop", Before: ids[5], Limit: 1}, rev(3)},
		{"a checkpoint ID in the config lists only that one", cfg("t1", ids[2]), engine.ListOptions{}, rev(2)},
		{"a checkpoint ID and a Before it fails list nothing", cfg("t1", ids[2]), engine.ListOptions{Before: ids[1]}, rev()},
		{"a checkpoint ID and a Source it fails list nothing", cfg("t1", ids[2]), engine.ListOptions{Source: "loop"}, rev()},
		{"an unknown checkpoint ID lists nothing", cfg("t1", "nope"), engine.ListOptions{}, rev()},
		{"an unknown thread lists nothing", cfg("t9", ""), engine.ListOptions{}, rev()},
		{"another namespace lists nothing", engine.CheckpointConfig{ThreadID: "t1", CheckpointNS: "sub"}, engine.ListOptions{}, rev()},
	}
	for _, tc := range tests {
		got, err := s.List(t.Context(), tc.cfg, tc.opts)
		if err != nil {
			t.Fatalf("List(%+v, %+v): %v", tc.cfg, tc.opts, err)
		}
		if d := cmp.Diff(tc.want, idsOf(got)); d != "" {
			t.Errorf("List(%+v, %+v) mismatch (-want +got):\n%s\n(%s)", tc.cfg, tc.opts, d, tc.reason)
		}
	}
}

func testListTuplesAreComplete(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	ctx := t.Context()
	s := newSaver(t)
	ids := putChain(t, s, "t1", 3)
	if err := s.PutWrites(ctx, cfg("t1", ids[2]), []engine.PendingWrite{{Channel: "c", Value: 1}}, "task"); err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx, cfg("t1", ""), engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 {
		t.Fatalf("List returned %d tuples, want 3", len(list))
	}
	for _, got := range list {
		want := mustGet(t, s, got.Config)
		if d := cmp.Diff(want, got, Equal()); d != "" {
			t.Errorf("List tuple %s differs from GetTuple (-GetTuple +List):\n%s", got.Config.CheckpointID, d)
		}
	}
}

func testPutWrites(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	w := func(task, ch string, v any) engine.PendingWrite {
		return engine.PendingWrite{TaskID: task, Channel: ch, Value: v}
	}
	type put struct {
		task   string
		writes []engine.PendingWrite
	}
	tests := []struct {
		reason string
		puts   []put
		want   []engine.PendingWrite
	}{
		{
			reason: "grouped by task in first-write order, each task's writes in their order",
			puts: []put{
				{"b", []engine.PendingWrite{w("", "messages", 1), w("", "x", 2)}},
				{"a", []engine.PendingWrite{w("", "messages", 3)}},
			},
			want: []engine.PendingWrite{w("b", "messages", 1), w("b", "x", 2), w("a", "messages", 3)},
		},
		{
			reason: "a task's ordinary writes keep the first value put at each index (LangGraph's savers)",
			puts: []put{
				{"a", []engine.PendingWrite{w("", "c", 1), w("", "c", 2)}},
				{"b", []engine.PendingWrite{w("", "c", 3)}},
				{"a", []engine.PendingWrite{w("", "c", 4)}},
			},
			want: []engine.PendingWrite{w("a", "c", 1), w("a", "c", 2), w("b", "c", 3)},
		},
		{
			reason: "a later put's writes at new indexes are added after the task's others",
			puts: []put{
				{"a", []engine.PendingWrite{w("", "c", 1)}},
				{"b", []engine.PendingWrite{w("", "c", 2)}},
				{"a", []engine.PendingWrite{w("", "c", 3), w("", "d", 4)}},
			},
			want: []engine.PendingWrite{w("a", "c", 1), w("a", "d", 4), w("b", "c", 2)},
		},
		{
			reason: "error, interrupt and resume writes have one slot each that a new write replaces in place",
			puts: []put{
				{"a", []engine.PendingWrite{w("", "__interrupt__", "i1")}},
				{"a", []engine.PendingWrite{w("", "__resume__", "r1"), w("", "__error__", "e1")}},
				{"a", []engine.PendingWrite{w("", "__resume__", "r2")}},
			},
			want: []engine.PendingWrite{w("a", "__interrupt__", "i1"), w("a", "__resume__", "r2"), w("a", "__error__", "e1")},
		},
		{
			reason: "the taskID argument names the writes, whatever they carried",
			puts:   []put{{"real", []engine.PendingWrite{w("other", "c", 1)}}},
			want:   []engine.PendingWrite{w("real", "c", 1)},
		},
		{
			reason: "an empty put changes nothing",
			puts: []put{
				{"a", []engine.PendingWrite{w("", "c", 1)}},
				{"a", nil},
			},
			want: []engine.PendingWrite{w("a", "c", 1)},
		},
		{
			reason: "the same channel twice in one task keeps both writes",
			puts:   []put{{"a", []engine.PendingWrite{w("", "__pregel_tasks", engine.Send{Node: "x", Arg: 1}), w("", "__pregel_tasks", engine.Send{Node: "x", Arg: 2})}}},
			want:   []engine.PendingWrite{w("a", "__pregel_tasks", engine.Send{Node: "x", Arg: 1}), w("a", "__pregel_tasks", engine.Send{Node: "x", Arg: 2})},
		},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			s := newSaver(t)
			ids := putChain(t, s, "t1", 2)
			for _, p := range tc.puts {
				if err := s.PutWrites(ctx, cfg("t1", ids[0]), p.writes, p.task); err != nil {
					t.Fatal(err)
				}
			}
			got := mustGet(t, s, cfg("t1", ids[0]))
			if d := cmp.Diff(tc.want, got.PendingWrites, Equal()); d != "" {
				t.Errorf("PendingWrites mismatch (-want +got):\n%s\n(%s)", d, tc.reason)
			}
			if other := mustGet(t, s, cfg("t1", ids[1])); len(other.PendingWrites) != 0 {
				t.Errorf("writes leaked to another checkpoint: %v", other.PendingWrites)
			}
		})
	}
}

// testValuesRoundTrip puts every sample value as a channel value and as a
// pending write, and reads them back.
func testValuesRoundTrip(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	ctx := t.Context()
	s := newSaver(t)
	values := SampleValues()
	names := slices.Sorted(maps.Keys(values))
	cp := &engine.Checkpoint{
		V:               4,
		TS:              "2025-11-01T00:00:00.123456789Z",
		ChannelValues:   map[string]any{},
		ChannelVersions: map[string]int64{},
		VersionsSeen:    map[string]map[string]int64{"agent": {"messages": 3, "branch:to:agent": 2}, "tools": {}, "__input__": nil},
		UpdatedChannels: []string{"messages", "tasks"},
		ListPrefix:      map[string]int{"messages": 0},
	}
	var writes []engine.PendingWrite
	for i, name := range names {
		cp.ChannelValues[name] = values[name]
		cp.ChannelVersions[name] = int64(i + 1)
		writes = append(writes, engine.PendingWrite{Channel: name, Value: values[name]})
	}
	meta := engine.CheckpointMetadata{Source: "loop", Step: 3, Parents: map[string]string{"": "root", "sub": "x"}}
	put, err := s.Put(ctx, cfg("t1", ""), cp, meta)
	if err != nil {
		t.Fatalf("Put of every sample value: %v", err)
	}
	if err := s.PutWrites(ctx, put, writes, "task-1"); err != nil {
		t.Fatalf("PutWrites of every sample value: %v", err)
	}
	got := mustGet(t, s, put)
	want := &engine.CheckpointTuple{Config: put, Metadata: meta, Checkpoint: cp}
	cp.ID = put.CheckpointID
	for i := range writes {
		writes[i].TaskID = "task-1"
	}
	want.PendingWrites = writes
	if d := cmp.Diff(want, got, Equal()); d != "" {
		t.Errorf("values read back differ (-put +read):\n%s", d)
	}
	// nil maps stay nil, empty ones empty
	bare := &engine.Checkpoint{V: 1}
	put, err = s.Put(ctx, cfg("t2", ""), bare, engine.CheckpointMetadata{Source: "input", Step: -1})
	if err != nil {
		t.Fatal(err)
	}
	got = mustGet(t, s, put)
	bare.ID = put.CheckpointID
	if d := cmp.Diff(bare, got.Checkpoint, Equal()); d != "" {
		t.Errorf("a checkpoint with nil maps read back differs (-put +read):\n%s", d)
	}
	if got.Metadata.Parents != nil {
		t.Errorf("nil metadata parents read back as %#v", got.Metadata.Parents)
	}
}

// testListPrefixChains grows a message list along a chain of checkpoints
// the way the engine does, with ListPrefix set, and with the awkward
// steps: replaced and removed messages, a message list that does not
// change, a fork from an older checkpoint, a remove-all, a lost prefix, a
// task channel holding the same list inside Sends, and pending writes whose
// Sends hold the list plus one message. Every checkpoint must read back as
// it was put.
func testListPrefixChains(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	ctx := t.Context()
	s := newSaver(t)
	type putCase struct {
		parent int // index into puts; -1 for none
		msgs   []engine.Message
		prefix int // -1: no ListPrefix entry
	}
	base := SampleMessages(40)
	edited := slices.Clone(base[:12])
	edited[11] = engine.AIMessage("edited by a human")
	edited[11].ID = base[11].ID
	cases := []putCase{
		{-1, base[:0], -1},
		{0, base[:1], 0},
		{1, base[:2], 1},
		{2, base[:4], 2},
		{3, base[:4], 4}, // unchanged
		{4, base[:7], 4},
		{5, base[:10], 7},
		{6, base[:12], 10},
		{7, edited, 11},       // last message replaced by ID
		{8, edited[:10], 10},  // removed from the end
		{5, base[:9], 7},      // fork from an older checkpoint
		{10, base[:15], 9},    // grows on the fork
		{11, nil, 0},          // remove all
		{12, base[20:25], 0},  // a fresh list
		{13, base[20:26], -1}, // prefix unknown
		{14, base[20:30], 6},  //
		{9, append(slices.Clone(edited[:10]), base[30:33]...), 10}, // back on the edited branch
	}
	for i := 17; i < 32; i++ { // a chain of appends
		prev := cases[i-1].msgs
		next := append(slices.Clone(prev), SampleMessage(100+i))
		cases = append(cases, putCase{i - 1, next, len(prev)})
	}
	var ids []string
	var want []*engine.Checkpoint
	for i, c := range cases {
		parent := ""
		if c.parent >= 0 {
			parent = ids[c.parent]
		}
		cp := &engine.Checkpoint{
			V:               4,
			ChannelValues:   map[string]any{"messages": c.msgs, "remaining_steps": 25 - i%25},
			ChannelVersions: map[string]int64{"messages": int64(i + 1), "remaining_steps": int64(i + 1)},
			VersionsSeen:    map[string]map[string]int64{"agent": {"messages": int64(i)}},
			UpdatedChannels: []string{"messages"},
		}
		if c.prefix >= 0 {
			cp.ListPrefix = map[string]int{"messages": c.prefix}
		}
		if i%4 == 3 && len(c.msgs) > 0 {
			st := engine.State{"messages": c.msgs, "remaining_steps": 7}
			cp.ChannelValues["__pregel_tasks"] = []any{
				engine.Send{Node: "tools", Arg: engine.ToolCallWithContext{Call: engine.ToolCall{Name: "a", ID: "1"}, State: st}},
				engine.Send{Node: "tools", Arg: engine.ToolCallWithContext{Call: engine.ToolCall{Name: "b", ID: "2"}, State: st}},
			}
			cp.ChannelVersions["__pregel_tasks"] = int64(i + 1)
		}
		at := cfg("t1", parent)
		at.Fork = c.parent != i-1 // forks from an older checkpoint
		put, err := s.Put(ctx, at, cp, loop(i))
		if err != nil {
			t.Fatalf("Put %d: %v", i, err)
		}
		ids = append(ids, put.CheckpointID)
		c := *cp
		c.ID = put.CheckpointID
		want = append(want, &c)
		if i%5 == 2 {
			// writes against the checkpoint just put, holding its list
			// plus the message the task appends
			st := engine.State{"messages": append(slices.Clone(cp.ChannelValues["messages"].([]engine.Message)), SampleMessage(1000+i))}
			ws := []engine.PendingWrite{
				{Channel: "messages", Value: []engine.Message{SampleMessage(1000 + i)}},
				{Channel: "__pregel_tasks", Value: engine.Send{Node: "tools", Arg: engine.ToolCallWithContext{Call: engine.ToolCall{Name: "a", ID: "1"}, State: st}}},
			}
			if err := s.PutWrites(ctx, put, ws, "task"); err != nil {
				t.Fatalf("PutWrites %d: %v", i, err)
			}
		}
	}
	for i, id := range ids {
		got := mustGet(t, s, cfg("t1", id))
		if got == nil {
			t.Fatalf("checkpoint %d (%s) not found", i, id)
		}
		if d := cmp.Diff(want[i], got.Checkpoint, Equal()); d != "" {
			t.Errorf("checkpoint %d read back differs (-put +read):\n%s", i, d)
		}
		if i%5 == 2 {
			msgs := want[i].ChannelValues["messages"].([]engine.Message)
			st, _ := got.PendingWrites[1].Value.(engine.Send).Arg.(engine.ToolCallWithContext)
			if d := cmp.Diff(append(slices.Clone(msgs), SampleMessage(1000+i)), st.State["messages"], Equal()); d != "" {
				t.Errorf("pending write of checkpoint %d read back differs (-put +read):\n%s", i, d)
			}
		}
	}
	// List reads the same values, newest first
	list, err := s.List(ctx, cfg("t1", ""), engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(ids) {
		t.Fatalf("List returned %d checkpoints, want %d", len(list), len(ids))
	}
	for _, got := range list {
		i := slices.Index(ids, got.Config.CheckpointID)
		if d := cmp.Diff(want[i], got.Checkpoint, Equal()); d != "" {
			t.Errorf("List: checkpoint %d differs (-put +read):\n%s", i, d)
		}
	}
}

func testCopiesAreIndependent(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	ctx := t.Context()
	s := newSaver(t)
	c := &engine.Checkpoint{
		V:               4,
		TS:              "2025-11-01T00:00:00Z",
		ChannelValues:   map[string]any{"messages": "v1"},
		ChannelVersions: map[string]int64{"messages": 1},
		VersionsSeen:    map[string]map[string]int64{"agent": {"messages": 1}},
		UpdatedChannels: []string{"messages"},
	}
	meta := engine.CheckpointMetadata{Source: "loop", Step: 0, Parents: map[string]string{"": "root"}}
	writes := []engine.PendingWrite{{Channel: "messages", Value: "w"}}
	put, err := s.Put(ctx, cfg("t1", ""), c, meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutWrites(ctx, put, writes, "task"); err != nil {
		t.Fatal(err)
	}
	want := mustGet(t, s, put)

	// change the writes' slice (the checkpoint and metadata were handed
	// over: the caller does not change them, engine.Checkpointer)
	writes[0].Value = "changed"
	writes[0].Channel = "changed"
	// change what was read
	got1 := mustGet(t, s, put)
	got1.Checkpoint.ChannelValues["messages"] = "changed"
	got1.Checkpoint.ChannelVersions["messages"] = 9
	got1.Checkpoint.VersionsSeen["agent"]["messages"] = 9
	got1.Checkpoint.UpdatedChannels[0] = "changed"
	got1.Checkpoint.ID = "changed"
	got1.Metadata.Parents[""] = "changed"
	got1.PendingWrites[0].Value = "changed"
	list, err := s.List(ctx, put, engine.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list[0].Checkpoint.ChannelVersions["messages"] = 10

	got2 := mustGet(t, s, put)
	if d := cmp.Diff(want, got2, Equal()); d != "" {
		t.Errorf("stored tuple changed through a caller's copy (-before +after):\n%s", d)
	}
}

func testErrors(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	s := newSaver(t)
	ids := putChain(t, s, "t1", 1)
	tests := []struct {
		reason string
		call   func(ctx context.Context) error
	}{
		{"Put needs a thread", func(ctx context.Context) error {
			_, err := s.Put(ctx, cfg("", ""), step(0), loop(0))
			return err
		}},
		{"Put needs a checkpoint", func(ctx context.Context) error {
			_, err := s.Put(ctx, cfg("t1", ""), nil, loop(0))
			return err
		}},
		{"GetTuple needs a thread", func(ctx context.Context) error {
			_, err := s.GetTuple(ctx, cfg("", ids[0]))
			return err
		}},
		{"List needs a thread", func(ctx context.Context) error {
			_, err := s.List(ctx, cfg("", ""), engine.ListOptions{})
			return err
		}},
		{"a negative limit is a mistake", func(ctx context.Context) error {
			_, err := s.List(ctx, cfg("t1", ""), engine.ListOptions{Limit: -1})
			return err
		}},
		{"PutWrites needs a thread", func(ctx context.Context) error {
			return s.PutWrites(ctx, cfg("", ids[0]), nil, "task")
		}},
		{"writes belong to a checkpoint", func(ctx context.Context) error {
			return s.PutWrites(ctx, cfg("t1", ""), nil, "task")
		}},
		{"writes to an unknown checkpoint would be lost", func(ctx context.Context) error {
			return s.PutWrites(ctx, cfg("t1", "nope"), nil, "task")
		}},
		{"writes to an unknown thread would be lost", func(ctx context.Context) error {
			return s.PutWrites(ctx, cfg("t9", ids[0]), nil, "task")
		}},
	}
	for _, tc := range tests {
		if err := tc.call(t.Context()); err == nil {
			t.Errorf("%s: error = nil, want one", tc.reason)
		}
	}
	if d, ok := s.(threadDeleter); ok {
		if err := d.DeleteThread(t.Context(), ""); err == nil {
			t.Errorf("DeleteThread(\"\"): error = nil, want one (a thread ID is needed)")
		}
	}
}

func testConcurrentThreads(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	const workers, puts = 6, 12
	s := newSaver(t)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	var mu sync.Mutex
	putIDs := map[string][]string{} // per thread, in the order Put returned
	for w := range workers {
		wg.Go(func() {
			ctx := context.Background()
			thread := fmt.Sprint("t", w%3) // threads shared by several workers
			for i := range puts {
				// puts of a shared thread are serialized here only so the
				// test knows their order, and each names the head
				mu.Lock()
				head := ""
				if ids := putIDs[thread]; len(ids) > 0 {
					head = ids[len(ids)-1]
				}
				put, err := s.Put(ctx, cfg(thread, head), step(i), loop(i))
				if err == nil {
					putIDs[thread] = append(putIDs[thread], put.CheckpointID)
				}
				mu.Unlock()
				if err != nil {
					errs <- err
					return
				}
				if err := s.PutWrites(ctx, put, []engine.PendingWrite{{Channel: "c", Value: i}}, fmt.Sprint("task", w)); err != nil {
					errs <- err
					return
				}
				if _, err := s.GetTuple(ctx, cfg(thread, "")); err != nil {
					errs <- err
					return
				}
				if _, err := s.List(ctx, cfg(thread, ""), engine.ListOptions{Limit: 3}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	// separate threads, put without a lock
	for w := range workers {
		wg.Go(func() {
			ctx := context.Background()
			thread := fmt.Sprint("own", w)
			parent := ""
			for i := range puts {
				put, err := s.Put(ctx, cfg(thread, parent), step(i), loop(i))
				if err != nil {
					errs <- err
					return
				}
				parent = put.CheckpointID
				if err := s.PutWrites(ctx, put, []engine.PendingWrite{{Channel: "c", Value: i}}, "task"); err != nil {
					errs <- err
					return
				}
				if got, err := s.GetTuple(ctx, cfg(thread, "")); err != nil || got == nil || got.Config.CheckpointID != parent {
					errs <- fmt.Errorf("thread %s: newest after put %d = %v, %v; want %s", thread, i, got, err, parent)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	threads := slices.Sorted(maps.Keys(putIDs))
	for w := range workers {
		threads = append(threads, fmt.Sprint("own", w))
	}
	total := 0
	for _, thread := range threads {
		list, err := s.List(t.Context(), cfg(thread, ""), engine.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		total += len(list)
		ids := idsOf(list)
		if !slices.IsSortedFunc(ids, func(a, b string) int { return strings.Compare(b, a) }) {
			t.Errorf("thread %s: List is not newest first: %v", thread, ids)
		}
		if want, ok := putIDs[thread]; ok {
			want = slices.Clone(want)
			sort.Sort(sort.Reverse(sort.StringSlice(want)))
			if d := cmp.Diff(want, ids); d != "" {
				t.Errorf("thread %s: List mismatch with the puts (-want +got):\n%s", thread, d)
			}
		}
	}
	if total != 2*workers*puts {
		t.Errorf("%d checkpoints stored, want %d", total, 2*workers*puts)
	}
}

func testDeleteThread(t *testing.T, newSaver func(t *testing.T) engine.Checkpointer) {
	ctx := t.Context()
	s := newSaver(t)
	d, ok := s.(threadDeleter)
	if !ok {
		t.Skipf("%T has no DeleteThread", s)
	}
	first := putChain(t, s, "b", 2)
	putChain(t, s, "a", 1)
	if _, err := s.Put(ctx, engine.CheckpointConfig{ThreadID: "b", CheckpointNS: "sub"}, step(0), loop(0)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutWrites(ctx, cfg("b", first[1]), []engine.PendingWrite{{Channel: "c", Value: 1}}, "task"); err != nil {
		t.Fatal(err)
	}
	if err := d.DeleteThread(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := d.DeleteThread(ctx, "never-existed"); err != nil {
		t.Errorf("DeleteThread of an unknown thread: %v, want nil", err)
	}
	for _, ns := range []string{"", "sub"} {
		got, err := s.GetTuple(ctx, engine.CheckpointConfig{ThreadID: "b", CheckpointNS: ns})
		if err != nil || got != nil {
			t.Errorf("GetTuple(b, ns %q) after delete = %v, %v; want nil, nil", ns, got, err)
		}
		list, err := s.List(ctx, engine.CheckpointConfig{ThreadID: "b", CheckpointNS: ns}, engine.ListOptions{})
		if err != nil || len(list) != 0 {
			t.Errorf("List(b, ns %q) after delete = %d tuples, %v; want none", ns, len(list), err)
		}
	}
	if got := mustGet(t, s, cfg("a", "")); got == nil {
		t.Errorf("deleting thread b deleted thread a")
	}
	// a deleted thread starts again from its first ID, without old writes
	again := putChain(t, s, "b", 2)
	if again[0] != first[0] {
		t.Errorf("first ID after delete = %s, want %s as for a new thread", again[0], first[0])
	}
	if got := mustGet(t, s, cfg("b", again[1])); got == nil || len(got.PendingWrites) != 0 {
		t.Errorf("a re-created checkpoint = %+v, want it without the deleted thread's writes", got)
	}
}
