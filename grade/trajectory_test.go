package grade

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// tc is a tool call the agent made.
func mkMade(name, id string, kv ...any) engine.ToolCall {
	return engine.ToolCall{Name: name, ID: id, Args: engine.NewObject(kv...)}
}

// call is an expected call.
func mkWant(name string, kv ...any) Call {
	return Call{Name: name, Args: engine.NewObject(kv...)}
}

// ais builds the AI messages of a run: one message per group of calls.
func mkAIs(groups ...[]engine.ToolCall) []engine.Message {
	var out []engine.Message
	for _, g := range groups {
		out = append(out, engine.AIMessage("", g...))
	}
	return out
}

func mkMades(cs ...engine.ToolCall) []engine.ToolCall { return cs }

func jnum(s string) json.Number { return json.Number(s) }

func TestCheckTrajectory(t *testing.T) {
	t.Parallel()
	paris := mkMade("get_weather", "c1", "city", "Paris")
	lyon := mkMade("get_weather", "c2", "city", "Lyon")
	searchX := mkMade("search", "c3", "q", "x")
	tests := []struct {
		name   string
		reason string
		t      Trajectory
		got    []engine.Message
		want   Result // Diff not compared
	}{
		{
			name:   "strict-pass",
			reason: "strict is the default mode: the same calls in the same order pass",
			t:      Trajectory{Calls: []Call{mkWant("search", "q", "x"), mkWant("get_weather", "city", "Paris")}},
			got:    mkAIs(mkMades(searchX), mkMades(paris)),
			want:   Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "strict-args-differ",
			reason: "the message names the 1-based call and both renderings",
			t:      Trajectory{Calls: []Call{mkWant("search", "q", "x"), mkWant("get_weather", "city", "Paris")}},
			got:    mkAIs(mkMades(searchX, lyon)),
			want:   Result{Name: "trajectory", Message: `trajectory (strict): call 2: want get_weather {"city": "Paris"}, got get_weather {"city": "Lyon"}`},
		},
		{
			name:   "strict-missing-call",
			reason: "a call that was not made shows as 'got no call'",
			t:      Trajectory{Calls: []Call{mkWant("search", "q", "x"), mkWant("get_weather", "city", "Paris")}},
			got:    mkAIs(mkMades(searchX)),
			want:   Result{Name: "trajectory", Message: `trajectory (strict): call 2: want get_weather {"city": "Paris"}, got no call`},
		},
		{
			name:   "strict-extra-call",
			reason: "a call beyond the expected ones fails strict",
			t:      Trajectory{Mode: "strict", Calls: []Call{mkWant("search", "q", "x")}},
			got:    mkAIs(mkMades(searchX), mkMades(paris)),
			want:   Result{Name: "trajectory", Message: `trajectory (strict): call 2: want no call, got get_weather {"city": "Paris"}`},
		},
		{
			name:   "strict-order",
			reason: "strict compares order",
			t:      Trajectory{Calls: []Call{mkWant("get_weather", "city", "Paris"), mkWant("search", "q", "x")}},
			got:    mkAIs(mkMades(searchX, paris)),
			want:   Result{Name: "trajectory", Message: `trajectory (strict): call 1: want get_weather {"city": "Paris"}, got search {"q": "x"}`},
		},
		{
			name:   "strict-numbers",
			reason: "1 and 1.0 are the same number, and key order does not matter",
			t:      Trajectory{Calls: []Call{mkWant("add", "b", jnum("2.0"), "a", jnum("1"))}},
			got:    mkAIs(mkMades(mkMade("add", "c", "a", jnum("1.0"), "b", jnum("2")))),
			want:   Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "strict-nil-args",
			reason: "expected args left out mean the empty object",
			t:      Trajectory{Calls: []Call{{Name: "now"}}},
			got:    mkAIs(mkMades(engine.ToolCall{Name: "now", ID: "c"}), mkMades(mkMade("now", "d"))),
			want:   Result{Name: "trajectory", Message: `trajectory (strict): call 2: want no call, got now {}`},
		},
		{
			name:   "no-calls-contribute-nothing",
			reason: "AI messages without tool calls are not part of the trajectory",
			t:      Trajectory{Calls: []Call{mkWant("search", "q", "x")}},
			got:    append(mkAIs(mkMades(searchX)), engine.AIMessage("done")),
			want:   Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "args-ignore",
			reason: "args ignore compares names only",
			t:      Trajectory{Args: "ignore", Calls: []Call{mkWant("get_weather", "city", "Paris")}},
			got:    mkAIs(mkMades(lyon)),
			want:   Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "args-subset-pass",
			reason: "args subset: the made call's arguments are among the expected ones (agentevals: output subset of reference)",
			t:      Trajectory{Args: "subset", Calls: []Call{mkWant("get_weather", "city", "Paris", "units", "metric")}},
			got:    mkAIs(mkMades(paris)),
			want:   Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "args-subset-fail",
			reason: "args subset: an argument that was not expected fails",
			t:      Trajectory{Args: "subset", Calls: []Call{mkWant("get_weather", "city", "Paris")}},
			got:    mkAIs(mkMades(mkMade("get_weather", "c", "city", "Paris", "units", "metric"))),
			want:   Result{Name: "trajectory", Message: `trajectory (strict): call 1: want get_weather {"city": "Paris"}, got get_weather {"city": "Paris", "units": "metric"}`},
		},
		{
			name:   "args-superset-pass",
			reason: "args superset: the made call has every expected argument and may have more",
			t:      Trajectory{Args: "superset", Calls: []Call{mkWant("get_weather", "city", "Paris")}},
			got:    mkAIs(mkMades(mkMade("get_weather", "c", "city", "Paris", "units", "metric"))),
			want:   Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "args-superset-fail",
			reason: "args superset: a missing expected argument fails",
			t:      Trajectory{Args: "superset", Calls: []Call{mkWant("get_weather", "city", "Paris", "units", "metric")}},
			got:    mkAIs(mkMades(paris)),
			want:   Result{Name: "trajectory", Message: `trajectory (strict): call 1: want get_weather {"city": "Paris", "units": "metric"}, got get_weather {"city": "Paris"}`},
		},
		{
			name:   "tool-args-override",
			reason: "ToolArgs sets the argument mode of one tool; the others keep Args",
			t: Trajectory{Args: "exact", ToolArgs: map[string]string{"search": "ignore"},
				Calls: []Call{mkWant("search", "q", "anything"), mkWant("get_weather", "city", "Paris")}},
			got:  mkAIs(mkMades(searchX, lyon)),
			want: Result{Name: "trajectory", Message: `trajectory (strict): call 2: want get_weather {"city": "Paris"}, got get_weather {"city": "Lyon"}`},
		},
		{
			name:   "unordered-pass",
			reason: "unordered accepts any order across and within AI messages",
			t:      Trajectory{Mode: "unordered", Calls: []Call{mkWant("get_weather", "city", "Paris"), mkWant("search", "q", "x")}},
			got:    mkAIs(mkMades(searchX), mkMades(paris)),
			want:   Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "unordered-duplicate-missing",
			reason: "duplicates count: two expected calls need two made calls",
			t:      Trajectory{Mode: "unordered", Calls: []Call{mkWant("search", "q", "x"), mkWant("search", "q", "x")}},
			got:    mkAIs(mkMades(searchX)),
			want:   Result{Name: "trajectory", Message: `trajectory (unordered): expected call search {"q": "x"} was not made`},
		},
		{
			name:   "unordered-duplicate-extra",
			reason: "a call made twice when expected once is unexpected the second time",
			t:      Trajectory{Mode: "unordered", Calls: []Call{mkWant("search", "q", "x"), mkWant("get_weather", "city", "Paris")}},
			got:    mkAIs(mkMades(searchX, searchX)),
			want:   Result{Name: "trajectory", Message: `trajectory (unordered): expected call get_weather {"city": "Paris"} was not made (and 1 more)`},
		},
		{
			name:   "subset-pass",
			reason: "subset mode: the agent made only expected calls, fewer is fine",
			t:      Trajectory{Mode: "subset", Calls: []Call{mkWant("get_weather", "city", "Paris"), mkWant("search", "q", "x")}},
			got:    mkAIs(mkMades(searchX)),
			want:   Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "subset-fail",
			reason: "subset mode: a call that was not expected fails",
			t:      Trajectory{Mode: "subset", Calls: []Call{mkWant("search", "q", "x")}},
			got:    mkAIs(mkMades(searchX), mkMades(lyon)),
			want:   Result{Name: "trajectory", Message: `trajectory (subset): unexpected call get_weather {"city": "Lyon"}`},
		},
		{
			name:   "superset-pass",
			reason: "superset mode: the agent made at least the expected calls",
			t:      Trajectory{Mode: "superset", Calls: []Call{mkWant("search", "q", "x")}},
			got:    mkAIs(mkMades(lyon), mkMades(searchX)),
			want:   Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "superset-fail",
			reason: "superset mode: an expected call that was not made fails",
			t:      Trajectory{Mode: "superset", Calls: []Call{mkWant("search", "q", "x"), mkWant("get_weather", "city", "Paris")}},
			got:    mkAIs(mkMades(searchX, lyon)),
			want:   Result{Name: "trajectory", Message: `trajectory (superset): expected call get_weather {"city": "Paris"} was not made`},
		},
		{
			name:   "superset-args-subset",
			reason: "modes combine: superset trajectory with subset arguments",
			t:      Trajectory{Mode: "superset", Args: "subset", Calls: []Call{mkWant("get_weather", "city", "Paris", "units", "metric")}},
			got:    mkAIs(mkMades(searchX, paris)),
			want:   Result{Name: "trajectory", Passed: true},
		},
		{
			name: "unordered-args-superset",
			reason: "unordered checks both directions (openevals unordered.py _scorer): search {} is within search {q: x}, " +
				"but the way back, made {q: x} within expected {}, fails, so the extra argument is unexpected",
			t:    Trajectory{Mode: "unordered", Args: "superset", Calls: []Call{mkWant("search"), mkWant("get_weather", "city", "Lyon")}},
			got:  mkAIs(mkMades(lyon, searchX)),
			want: Result{Name: "trajectory", Message: `trajectory (unordered): unexpected call search {"q": "x"}`},
		},
		{
			name: "max-matching-not-greedy",
			reason: "search {} (superset args) matches both made calls; a greedy pass (openevals' _is_trajectory_superset) gives it the first " +
				"and leaves search {q: x} unmatched, a maximum matching moves it to the second: the deliberate difference in the package doc",
			t:    Trajectory{Mode: "superset", Args: "superset", Calls: []Call{mkWant("search"), mkWant("search", "q", "x")}},
			got:  mkAIs(mkMades(searchX, mkMade("search", "c9", "q", "y"))),
			want: Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "grouped-pass",
			reason: "group_parallel compares each AI message's calls as a set",
			t: Trajectory{GroupParallel: true, Steps: [][]Call{
				{mkWant("get_weather", "city", "Paris"), mkWant("search", "q", "x")},
				{mkWant("get_weather", "city", "Lyon")},
			}},
			got:  mkAIs(mkMades(searchX, paris), mkMades(lyon)),
			want: Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "grouped-split-differently",
			reason: "with group_parallel, parallel calls made one per message fail",
			t: Trajectory{GroupParallel: true, Steps: [][]Call{
				{mkWant("get_weather", "city", "Paris"), mkWant("search", "q", "x")},
			}},
			got:  mkAIs(mkMades(searchX), mkMades(paris)),
			want: Result{Name: "trajectory", Message: `trajectory (strict, grouped): AI message 1 with tool calls: want [get_weather {"city": "Paris"}, search {"q": "x"}], got [search {"q": "x"}]`},
		},
		{
			name:   "grouped-extra-message",
			reason: "with group_parallel, the number of AI messages with calls must match",
			t:      Trajectory{GroupParallel: true, Steps: [][]Call{{mkWant("search", "q", "x")}}},
			got:    mkAIs(mkMades(searchX), mkMades(searchX)),
			want:   Result{Name: "trajectory", Message: `trajectory (strict, grouped): AI message 2 with tool calls: want no message, got [search {"q": "x"}]`},
		},
		{
			name:   "flat-ignores-grouping",
			reason: "without group_parallel, strict compares the flat list",
			t:      Trajectory{Calls: []Call{mkWant("search", "q", "x"), mkWant("get_weather", "city", "Paris")}},
			got:    mkAIs(mkMades(searchX), mkMades(paris)),
			want:   Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "grouped-unordered-flattens",
			reason: "group_parallel only matters in strict mode; other modes flatten the steps",
			t:      Trajectory{Mode: "unordered", GroupParallel: true, Steps: [][]Call{{mkWant("search", "q", "x"), mkWant("get_weather", "city", "Paris")}}},
			got:    mkAIs(mkMades(paris), mkMades(searchX)),
			want:   Result{Name: "trajectory", Passed: true},
		},
		{
			name:   "unknown-mode",
			reason: "a mode the loader let through fails rather than passing silently",
			t:      Trajectory{Mode: "fuzzy"},
			want:   Result{Name: "trajectory", Message: `trajectory: unknown mode "fuzzy" (want strict, unordered, subset or superset)`},
		},
		{
			name:   "unknown-arg-mode",
			reason: "an unknown argument mode fails too",
			t:      Trajectory{ToolArgs: map[string]string{"search": "regex"}},
			want:   Result{Name: "trajectory", Message: `trajectory: unknown argument mode "regex" (want exact, ignore, subset or superset)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := CheckExpect(Expect{Trajectory: &tt.t}, &Observed{AIMessages: tt.got})
			if len(got) != 1 {
				t.Fatalf("CheckExpect(%s) returned %d entries, want 1", tt.name, len(got))
			}
			got[0].Diff = ""
			if diff := cmp.Diff(tt.want, got[0], passFailScores); diff != "" {
				t.Errorf("CheckExpect(%s) mismatch (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

func TestCheckTrajectoryDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		t      Trajectory
		got    []engine.Message
		want   string
	}{
		{
			name:   "strict",
			reason: "a strict diff lines the calls up in order",
			t:      Trajectory{Calls: []Call{mkWant("search", "q", "x"), mkWant("get_weather", "city", "Paris")}},
			got:    mkAIs(mkMades(mkMade("search", "a", "q", "x"), mkMade("get_weather", "b", "city", "Lyon"))),
			want: `  search {"q": "x"}
- get_weather {"city": "Paris"}
+ get_weather {"city": "Lyon"}
`,
		},
		{
			name:   "unordered",
			reason: "an unordered diff puts matched made calls in the expected order, so only the differences show",
			t:      Trajectory{Mode: "unordered", Calls: []Call{mkWant("a"), mkWant("b"), mkWant("c")}},
			got:    mkAIs(mkMades(mkMade("c", "1"), mkMade("a", "2"), mkMade("d", "3"))),
			want: `  a {}
- b {}
  c {}
+ d {}
`,
		},
		{
			name:   "lenient-args",
			reason: "a pair matched under lenient arguments shows the made call on both sides, not as a change",
			t:      Trajectory{Mode: "superset", Args: "superset", Calls: []Call{mkWant("get_weather", "city", "Paris"), mkWant("search", "q", "x")}},
			got:    mkAIs(mkMades(mkMade("get_weather", "1", "city", "Paris", "units", "metric"))),
			want: `  get_weather {"city": "Paris", "units": "metric"}
- search {"q": "x"}
`,
		},
		{
			name:   "grouped",
			reason: "a grouped diff numbers the AI messages",
			t:      Trajectory{GroupParallel: true, Steps: [][]Call{{mkWant("a"), mkWant("b")}}},
			got:    mkAIs(mkMades(mkMade("a", "1")), mkMades(mkMade("b", "2"))),
			want: `  [1] a {}
- [1] b {}
+ [2] b {}
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := CheckExpect(Expect{Trajectory: &tt.t}, &Observed{AIMessages: tt.got})
			if len(got) != 1 || got[0].Passed {
				t.Fatalf("CheckExpect(%s) = %+v, want one failed entry", tt.name, got)
			}
			if diff := cmp.Diff(tt.want, got[0].Diff); diff != "" {
				t.Errorf("CheckExpect(%s) diff mismatch (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

// genCalls draws a short list of tool calls from a small alphabet, so
// that duplicates and near-duplicates are common.
func genCalls(t *rapid.T, label string) []engine.ToolCall {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) engine.ToolCall {
		name := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "name")
		args := engine.NewObject()
		for _, k := range []string{"x", "y"} {
			if rapid.Bool().Draw(t, "has_"+k) {
				args.Set(k, json.Number(fmt.Sprint(rapid.IntRange(0, 2).Draw(t, k))))
			}
		}
		return engine.ToolCall{Name: name, Args: args}
	}), 0, 6).Draw(t, label)
}

func expectedOf(cs []engine.ToolCall) []Call {
	out := make([]Call, len(cs))
	for i, c := range cs {
		out[i] = Call{Name: c.Name, Args: c.Args}
	}
	return out
}

func trajectoryPasses(tr Trajectory, got []engine.ToolCall) bool {
	var msgs []engine.Message
	for _, c := range got {
		msgs = append(msgs, engine.AIMessage("", c))
	}
	return checkTrajectory(tr, msgs).Passed
}

// propTrajectoryMatchPermutation: unordered matching accepts any
// permutation of the expected calls; strict accepts it exactly when it is
// element-wise equal to them.
func propTrajectoryMatchPermutation(t *rapid.T) {
	want := genCalls(t, "calls")
	perm := rapid.Permutation(identityOrder(len(want))).Draw(t, "perm")
	got := make([]engine.ToolCall, len(want))
	same := true
	for i, j := range perm {
		got[i] = want[j]
		if want[i].Name != want[j].Name || !engine.ValueEqual(want[i].Args, want[j].Args) {
			same = false
		}
	}
	exp := expectedOf(want)
	if !trajectoryPasses(Trajectory{Mode: "unordered", Calls: exp}, got) {
		t.Fatalf("unordered match of a permutation failed")
	}
	if p := trajectoryPasses(Trajectory{Mode: "strict", Calls: exp}, got); p != same {
		t.Fatalf("strict match = %v, want %v (element-wise equal: %v)", p, same, same)
	}
}

// propTrajectoryMatchDuality: with exact arguments, the calls B are a
// subset of the expected A exactly when, expecting B, the calls A are a
// superset of them.
func propTrajectoryMatchDuality(t *rapid.T) {
	a, b := genCalls(t, "a"), genCalls(t, "b")
	sub := trajectoryPasses(Trajectory{Mode: "subset", Calls: expectedOf(a)}, b)
	sup := trajectoryPasses(Trajectory{Mode: "superset", Calls: expectedOf(b)}, a)
	if sub != sup {
		t.Fatalf("subset(want a, got b) = %v but superset(want b, got a) = %v", sub, sup)
	}
}

func TestPropTrajectoryMatchPermutation(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propTrajectoryMatchPermutation)
}

func TestPropTrajectoryMatchDuality(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propTrajectoryMatchDuality)
}

func FuzzTrajectoryMatchPermutation(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propTrajectoryMatchPermutation))
}

func FuzzTrajectoryMatchDuality(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propTrajectoryMatchDuality))
}

func TestMaxMatching(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		adj    [][]int
		n      int
		want   []int
	}{
		{"empty", "no nodes, no pairs", nil, 0, []int{}},
		{"greedy-trap", "left 0 takes 0 first; left 1 can only take 0, so 0 must move to 1", [][]int{{0, 1}, {0}}, 2, []int{1, 0}},
		{"unmatchable", "two left nodes competing for one right node leave one unmatched", [][]int{{0}, {0}}, 1, []int{0, -1}},
		{"chain", "an augmenting path of length three", [][]int{{0, 1}, {1, 2}, {0}}, 3, []int{1, 2, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := maxMatching(tt.adj, tt.n)
			if diff := cmp.Diff(tt.want, got, passFailScores); diff != "" {
				t.Errorf("maxMatching(%s) mismatch (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}
