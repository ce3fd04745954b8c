package grade

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// Trajectory modes and argument modes, as in openevals'
// create_trajectory_match_evaluator (trajectory_match_mode and
// tool_args_match_mode; python/openevals/trajectory/match.py).
const (
	modeStrict    = "strict"
	modeUnordered = "unordered"
	modeSubset    = "subset"
	modeSuperset  = "superset"

	argsExact    = "exact"
	argsIgnore   = "ignore"
	argsSubset   = "subset"
	argsSuperset = "superset"
)

// trajectoryCheck compares expected calls with the calls the agent made,
// under one Trajectory's modes.
type trajectoryCheck struct {
	t Trajectory
}

// argMode is the argument mode for calls of the named tool.
func (c trajectoryCheck) argMode(name string) string {
	if m := c.t.ToolArgs[name]; m != "" {
		return m
	}
	if c.t.Args != "" {
		return c.t.Args
	}
	return argsExact
}

// matches reports whether the call made matches the expected one: same name
// and arguments equal under the tool's argument mode, compared as
// openevals' matchers are called by its strict and superset modes,
// matcher(made call's args, expected call's args).
func (c trajectoryCheck) matches(want Call, got engine.ToolCall) bool {
	return want.Name == got.Name && argsMatch(c.argMode(want.Name), got.Args, engine.ValueForJSON(want.Args))
}

// matchesBack is matches with the arguments the other way round,
// matcher(expected call's args, made call's args): openevals' subset mode
// runs its superset check with the trajectories swapped
// (python/openevals/trajectory/subset.py, _scorer: _is_trajectory_superset(
// reference_outputs, outputs, ...)), so under "subset" arguments the
// expected arguments must be within the made call's, and under "superset"
// the made call's within the expected ones.
func (c trajectoryCheck) matchesBack(want Call, got engine.ToolCall) bool {
	return want.Name == got.Name && argsMatch(c.argMode(want.Name), engine.ValueForJSON(want.Args), got.Args)
}

// argsMatch is openevals' matcher for an argument mode
// (python/openevals/trajectory/utils.py: _exact_match, _subset_match,
// _superset_match, _ignore_match), called as matcher(first, second):
// "subset" means every key of first is in second with an equal value,
// "superset" every key of second in first. Nil arguments are the empty
// object; arguments that are not an object match nothing but "ignore".
// Values compare with engine.ValueEqual (1 equals 1.0, key order does not
// matter).
func argsMatch(mode string, first, second any) bool {
	if mode == argsIgnore {
		return true
	}
	a, ok1 := argsObject(first)
	b, ok2 := argsObject(second)
	if !ok1 || !ok2 {
		return false // arguments are always an object
	}
	switch mode {
	case argsExact:
		return engine.ValueEqual(a, b)
	case argsSubset:
		return keysWithin(a, b)
	case argsSuperset:
		return keysWithin(b, a)
	}
	return false
}

// argsObject is v as arguments: nil is the empty object.
func argsObject(v any) (*engine.Object, bool) {
	switch o := v.(type) {
	case nil:
		return engine.NewObject(), true
	case *engine.Object:
		if o == nil {
			return engine.NewObject(), true
		}
		return o, true
	}
	return nil, false
}

// keysWithin reports whether every key of small is in big with an equal
// value.
func keysWithin(small, big *engine.Object) bool {
	for _, k := range small.Keys() {
		bv, ok := big.Get(k)
		if !ok {
			return false
		}
		sv, _ := small.Get(k)
		if !engine.ValueEqual(sv, bv) {
			return false
		}
	}
	return true
}

// checkTrajectory checks the tool calls of the AI messages against t,
// following openevals' trajectory match evaluators (langchain-ai/openevals
// at bdb122e, python/openevals/trajectory/strict.py, unordered.py,
// subset.py, superset.py and utils.py), argMode giving each tool's
// argument mode (tool_args_match_mode and tool_args_match_overrides):
//
//   - strict: the same calls in the same order, each made call's
//     arguments against its expected call's, matcher(made, expected);
//     with GroupParallel, the same number of AI messages with calls,
//     each message's calls matching its step as a multiset;
//   - superset: every expected call matches a distinct made call,
//     matcher(made, expected) (superset.py: _is_trajectory_superset(
//     outputs, reference_outputs));
//   - subset: every made call matches a distinct expected call,
//     matcher(expected, made) (subset.py: the same check with the
//     trajectories swapped);
//   - unordered: both of the above (unordered.py), each with its own
//     pairing.
//
// The multiset comparisons use a maximum matching where openevals pairs
// greedily in order; the package doc lists this and the other deliberate
// differences. AI messages without tool calls contribute nothing.
func checkTrajectory(t Trajectory, ais []engine.Message) Result {
	ex := Result{Name: "trajectory"}
	mode := t.Mode
	if mode == "" {
		mode = modeStrict
	}
	switch mode {
	case modeStrict, modeUnordered, modeSubset, modeSuperset:
	default:
		ex.Message = fmt.Sprintf("trajectory: unknown mode %q (want strict, unordered, subset or superset)", mode)
		return ex
	}
	for _, m := range argModes(t) {
		switch m {
		case argsExact, argsIgnore, argsSubset, argsSuperset:
		default:
			ex.Message = fmt.Sprintf("trajectory: unknown argument mode %q (want exact, ignore, subset or superset)", m)
			return ex
		}
	}
	c := trajectoryCheck{t: t}
	var gotGroups [][]engine.ToolCall
	for _, m := range ais {
		if len(m.ToolCalls) > 0 {
			gotGroups = append(gotGroups, m.ToolCalls)
		}
	}
	// Steps, when given, are the expected calls; without them every
	// expected call is its own AI message
	wantGroups := t.Steps
	if len(wantGroups) == 0 {
		for _, call := range t.Calls {
			wantGroups = append(wantGroups, []Call{call})
		}
	}
	if mode == modeStrict && t.GroupParallel {
		return c.strictGrouped(ex, wantGroups, gotGroups)
	}
	want := t.Calls
	if len(t.Steps) > 0 && (t.GroupParallel || len(want) == 0) {
		want = flattenGroups(t.Steps)
	}
	got := flattenGroups(gotGroups)
	if mode == modeStrict {
		return c.strict(ex, want, got)
	}
	return c.multiset(ex, mode, want, got)
}

// argModes lists the argument modes t uses, in a stable order.
func argModes(t Trajectory) []string {
	var ms []string
	if t.Args != "" {
		ms = append(ms, t.Args)
	}
	for _, name := range sortedToolNames(t.ToolArgs) {
		ms = append(ms, t.ToolArgs[name])
	}
	return ms
}

func sortedToolNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func flattenGroups[T any](groups [][]T) []T {
	var out []T
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// strict passes when the calls are the same, in the same order.
func (c trajectoryCheck) strict(ex Result, want []Call, got []engine.ToolCall) Result {
	bad := -1
	for i := 0; i < max(len(want), len(got)); i++ {
		if i >= len(want) || i >= len(got) || !c.matches(want[i], got[i]) {
			bad = i
			break
		}
	}
	if bad < 0 {
		ex.Passed = true
		return ex
	}
	wantText, gotText := "no call", "no call"
	if bad < len(want) {
		wantText = formatWant(want[bad])
	}
	if bad < len(got) {
		gotText = formatGot(got[bad])
	}
	ex.Message = fmt.Sprintf("trajectory (strict): call %d: want %s, got %s", bad+1, wantText, gotText)
	pairs := make([]int, len(want))
	for i := range want {
		pairs[i] = -1
		if i < len(got) && c.matches(want[i], got[i]) {
			pairs[i] = i
		}
	}
	ex.Diff = callsDiff(want, got, pairs, identityOrder(len(got)))
	return ex
}

// strictGrouped passes when every AI message with tool calls matches its
// expected step, the calls of one message compared as a multiset.
func (c trajectoryCheck) strictGrouped(ex Result, want [][]Call, got [][]engine.ToolCall) Result {
	var wantLines, gotLines []string
	bad := -1
	var badMsg string
	for i := 0; i < max(len(want), len(got)); i++ {
		var w []Call
		var g []engine.ToolCall
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		pairs := c.match(w, g, c.matches)
		ok := i < len(want) && i < len(got) && len(w) == len(g) && matchedCount(pairs) == len(w)
		prefix := fmt.Sprintf("[%d] ", i+1)
		wl, gl := callLines(w, g, pairs, orderGot(pairs, len(g)))
		for _, l := range wl {
			wantLines = append(wantLines, prefix+l)
		}
		for _, l := range gl {
			gotLines = append(gotLines, prefix+l)
		}
		if !ok && bad < 0 {
			bad = i
			badMsg = fmt.Sprintf("trajectory (strict, grouped): AI message %d with tool calls: want %s, got %s", i+1, groupText(w, i < len(want)), gotGroupText(g, i < len(got)))
		}
	}
	if bad < 0 {
		ex.Passed = true
		return ex
	}
	ex.Message = badMsg
	ex.Diff = lineDiff(joinLines(wantLines), joinLines(gotLines))
	return ex
}

func groupText(w []Call, ok bool) string {
	if !ok {
		return "no message"
	}
	parts := make([]string, len(w))
	for i, c := range w {
		parts[i] = formatWant(c)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func gotGroupText(g []engine.ToolCall, ok bool) string {
	if !ok {
		return "no message"
	}
	parts := make([]string, len(g))
	for i, c := range g {
		parts[i] = formatGot(c)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// multiset checks the unordered, subset and superset modes. Expected calls
// are paired with made calls by a maximum matching under matches
// (superset's direction) and, for unordered and subset, made calls with
// expected ones under matchesBack (subset's direction).
func (c trajectoryCheck) multiset(ex Result, mode string, want []Call, got []engine.ToolCall) Result {
	var missing, extra []string // expected calls not made; calls not expected
	pairs := c.match(want, got, c.matches)
	if mode == modeUnordered || mode == modeSuperset {
		for i, j := range pairs {
			if j < 0 {
				missing = append(missing, fmt.Sprintf("expected call %s was not made", formatWant(want[i])))
			}
		}
	}
	if mode == modeUnordered || mode == modeSubset {
		back := c.match(want, got, c.matchesBack)
		matched := make([]bool, len(got))
		for _, j := range back {
			if j >= 0 {
				matched[j] = true
			}
		}
		for j, ok := range matched {
			if !ok {
				extra = append(extra, fmt.Sprintf("unexpected call %s", formatGot(got[j])))
			}
		}
		if mode == modeSubset {
			pairs = back
		}
	}
	problems := append(missing, extra...)
	if len(problems) == 0 {
		ex.Passed = true
		return ex
	}
	ex.Message = fmt.Sprintf("trajectory (%s): %s", mode, problems[0])
	if len(problems) > 1 {
		ex.Message += fmt.Sprintf(" (and %d more)", len(problems)-1)
	}
	ex.Diff = callsDiff(want, got, pairs, orderGot(pairs, len(got)))
	return ex
}

// match returns a maximum matching between expected and made calls under
// matches:
// pairs[i] is the made call matched to want[i], or -1. It uses augmenting
// paths (Kuhn's algorithm), so a call that a greedy pass would give to the
// wrong expectation is moved when that lets more calls match.
func (c trajectoryCheck) match(want []Call, got []engine.ToolCall, matches func(Call, engine.ToolCall) bool) []int {
	adj := make([][]int, len(want))
	for i, w := range want {
		for j, g := range got {
			if matches(w, g) {
				adj[i] = append(adj[i], j)
			}
		}
	}
	return maxMatching(adj, len(got))
}

// maxMatching returns a maximum bipartite matching of left nodes to right
// nodes 0..n-1, where adj[i] lists the right nodes left node i may take:
// result[i] is i's right node or -1.
func maxMatching(adj [][]int, n int) []int {
	owner := make([]int, n) // owner[j] is the left node holding j, or -1
	for j := range owner {
		owner[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for _, j := range adj[i] {
			if seen[j] {
				continue
			}
			seen[j] = true
			if owner[j] < 0 || try(owner[j], seen) {
				owner[j] = i
				return true
			}
		}
		return false
	}
	for i := range adj {
		try(i, make([]bool, n))
	}
	pairs := make([]int, len(adj))
	for i := range pairs {
		pairs[i] = -1
	}
	for j, i := range owner {
		if i >= 0 {
			pairs[i] = j
		}
	}
	return pairs
}

func matchedCount(pairs []int) int {
	n := 0
	for _, j := range pairs {
		if j >= 0 {
			n++
		}
	}
	return n
}

func identityOrder(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// orderGot lists the made calls in the order of the expected calls they
// match, then the unmatched ones in the order they were made, so that a
// diff of an unordered comparison shows only what differs.
func orderGot(pairs []int, n int) []int {
	order := make([]int, 0, n)
	used := make([]bool, n)
	for _, j := range pairs {
		if j >= 0 {
			order = append(order, j)
			used[j] = true
		}
	}
	for j := range n {
		if !used[j] {
			order = append(order, j)
		}
	}
	return order
}

// callsDiff renders expected and made calls one per line, made calls in
// order, and diffs them. A matched pair shows the made call on both sides,
// so that an argument mode other than exact does not show as a change.
func callsDiff(want []Call, got []engine.ToolCall, pairs, order []int) string {
	wl, gl := callLines(want, got, pairs, order)
	return lineDiff(joinLines(wl), joinLines(gl))
}

func callLines(want []Call, got []engine.ToolCall, pairs, order []int) (wl, gl []string) {
	for i, w := range want {
		if j := pairs[i]; j >= 0 {
			wl = append(wl, formatGot(got[j]))
		} else {
			wl = append(wl, formatWant(w))
		}
	}
	for _, j := range order {
		gl = append(gl, formatGot(got[j]))
	}
	return wl, gl
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// formatWant renders an expected call as `name {json args}`.
func formatWant(c Call) string {
	args := engine.ValueForJSON(c.Args)
	if args == nil {
		args = engine.NewObject()
	}
	return c.Name + " " + callJSON(args)
}

// formatGot renders a made call as `name {json args}`.
func formatGot(c engine.ToolCall) string {
	var args any = c.Args
	if c.Args == nil {
		args = engine.NewObject()
	}
	return c.Name + " " + callJSON(args)
}

// callJSON renders v as Python's json.dumps does, or with %v when it is not
// a JSON value.
func callJSON(v any) string {
	s, err := engine.PyJSON(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return s
}
