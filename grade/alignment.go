package grade

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// The methods of a trajectory score.
const (
	MethodLCS       = "lcs"
	MethodEdit      = "edit"
	MethodF1        = "f1"
	MethodPrecision = "precision"
	MethodRecall    = "recall"
)

// TrajectoryScore gives partial credit for the tool calls the agent made,
// compared with expected ones. The alignment methods compare sequences:
//
//   - "lcs" (the default): 2·L / (expected + made), L the length of the
//     longest common subsequence of the two;
//   - "edit": 1 − d / max(expected, made), d the edit distance
//     (insertions, deletions, substitutions of whole calls).
//
// Before aligning, the calls of each AI message are put in a canonical
// order (by name, then arguments), and so are those of each entry of
// Steps: the calls of one message count as a set. Calls lists the
// expected calls in order, each its own message.
//
// The multiset methods ignore order: with M the size of a maximum
// matching of expected to made calls, "precision" is M / made, "recall"
// M / expected and "f1" their harmonic mean; a ratio over nothing is 1.
// Two empty trajectories score 1 by every method.
//
// Args and ToolArgs say how arguments compare, as in Trajectory.
type TrajectoryScore struct {
	// Method is "lcs" (the default), "edit", "f1", "precision" or
	// "recall".
	Method string `json:"method,omitempty"`
	// Args is "exact" (the default), "ignore", "subset" or "superset";
	// ToolArgs overrides it per tool name.
	Args     string            `json:"args,omitempty"`
	ToolArgs map[string]string `json:"tool_args,omitempty"`
	// Calls are the expected calls in order; Steps, instead, group them
	// by AI message.
	Calls []Call   `json:"calls,omitempty"`
	Steps [][]Call `json:"steps,omitempty"`
}

// score scores the tool calls of the AI messages.
func (ts *TrajectoryScore) score(ais []engine.Message) (Score, error) {
	c := trajectoryCheck{t: Trajectory{Args: ts.Args, ToolArgs: ts.ToolArgs}}
	for _, m := range argModes(c.t) {
		switch m {
		case argsExact, argsIgnore, argsSubset, argsSuperset:
		default:
			return Score{}, fmt.Errorf("unknown argument mode %q (want exact, ignore, subset or superset)", m)
		}
	}
	want := ts.Calls
	if len(ts.Steps) > 0 {
		want = nil
		for _, g := range ts.Steps {
			want = append(want, canonicalCalls(g)...)
		}
	}
	var got []engine.ToolCall
	for _, m := range ais {
		got = append(got, canonicalToolCalls(m.ToolCalls)...)
	}
	switch cmp.Or(ts.Method, MethodLCS) {
	case MethodLCS:
		l := lcsLength(len(want), len(got), func(i, j int) bool { return c.matches(want[i], got[j]) })
		if len(want)+len(got) == 0 {
			return Score{Value: 1, Reason: "no calls expected, none made"}, nil
		}
		v := 2 * float64(l) / float64(len(want)+len(got))
		return Score{Value: v, Reason: fmt.Sprintf("%s in common, in order, of %d expected and %d made", countNoun(l, "call"), len(want), len(got)) + c.unmatched(want, got)}, nil
	case MethodEdit:
		d := editDistance(len(want), len(got), func(i, j int) bool { return c.matches(want[i], got[j]) })
		n := max(len(want), len(got))
		if n == 0 {
			return Score{Value: 1, Reason: "no calls expected, none made"}, nil
		}
		v := 1 - float64(d)/float64(n)
		return Score{Value: v, Reason: fmt.Sprintf("%s to turn the %d expected calls into the %d made", countNoun(d, "edit"), len(want), len(got)) + c.unmatched(want, got)}, nil
	case MethodPrecision, MethodRecall, MethodF1:
		m := matchedCount(c.match(want, got, c.matches))
		p, r := ratio(m, len(got)), ratio(m, len(want))
		v := p
		switch ts.Method {
		case MethodRecall:
			v = r
		case MethodF1:
			v = 0
			if p+r > 0 {
				v = 2 * p * r / (p + r)
			}
		}
		reason := fmt.Sprintf("%d of %d calls made were expected (precision %s), %d of %d expected calls were made (recall %s)",
			m, len(got), FormatScore(p), m, len(want), FormatScore(r))
		return Score{Value: v, Reason: reason + c.unmatched(want, got)}, nil
	}
	return Score{}, fmt.Errorf("unknown method %q (want lcs, edit, f1, precision or recall)", ts.Method)
}

// unmatched lists, after "; ", the expected calls no made call matches
// and the made calls no expected call matches (by a maximum matching), or
// is empty when every call pairs up.
func (c trajectoryCheck) unmatched(want []Call, got []engine.ToolCall) string {
	pairs := c.match(want, got, c.matches)
	used := make([]bool, len(got))
	var parts []string
	for i, j := range pairs {
		if j < 0 {
			parts = append(parts, "missing "+formatWant(want[i]))
		} else {
			used[j] = true
		}
	}
	for j, ok := range used {
		if !ok {
			parts = append(parts, "unexpected "+formatGot(got[j]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	const shown = 3
	s := "; " + strings.Join(parts[:min(shown, len(parts))], ", ")
	if len(parts) > shown {
		s += fmt.Sprintf(" (and %d more)", len(parts)-shown)
	}
	return s
}

// ratio is n/d, or 1 when d is 0 (nothing to get wrong).
func ratio(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

// canonicalCalls sorts a message's expected calls by name, then
// arguments.
func canonicalCalls(cs []Call) []Call {
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b Call) int { return strings.Compare(formatWant(a), formatWant(b)) })
	return out
}

// canonicalToolCalls sorts a message's calls by name, then arguments.
func canonicalToolCalls(cs []engine.ToolCall) []engine.ToolCall {
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b engine.ToolCall) int { return strings.Compare(formatGot(a), formatGot(b)) })
	return out
}

// lcsLength is the length of the longest common subsequence of two
// sequences of lengths m and n whose elements i and j match when eq(i, j)
// (the textbook dynamic programme, one row at a time).
func lcsLength(m, n int, eq func(i, j int) bool) int {
	prev, cur := make([]int, n+1), make([]int, n+1)
	for i := 1; i <= m; i++ {
		for j := 1; j <= n; j++ {
			if eq(i-1, j-1) {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[n]
}

// editDistance is the Levenshtein distance between two sequences of
// lengths m and n whose elements i and j match when eq(i, j): the fewest
// insertions, deletions and substitutions that turn one into the other
// (Wagner–Fischer, one row at a time).
func editDistance(m, n int, eq func(i, j int) bool) int {
	prev, cur := make([]int, n+1), make([]int, n+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= m; i++ {
		cur[0] = i
		for j := 1; j <= n; j++ {
			sub := prev[j-1]
			if !eq(i-1, j-1) {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[n]
}

// Order checks that tools were called in an order: for each name of
// Before and the one after it, the first call of the first comes before
// the first call of the second. The score is the share of such pairs that
// hold (1 when Before names fewer than two tools); a pair fails when
// either tool was not called.
type Order struct {
	// Before names tools in the order of their first calls.
	Before []string `json:"before"`
}

// score checks the order of the first calls of the named tools.
func (ord *Order) score(ais []engine.Message) Score {
	first := map[string]int{}
	n := 0
	for _, m := range ais {
		for _, c := range m.ToolCalls {
			n++
			if _, ok := first[c.Name]; !ok {
				first[c.Name] = n
			}
		}
	}
	pairs := len(ord.Before) - 1
	if pairs < 1 {
		return Score{Value: 1, Reason: "fewer than two tools to order"}
	}
	held := 0
	var bad []string
	for i := range pairs {
		a, b := ord.Before[i], ord.Before[i+1]
		ia, okA := first[a]
		ib, okB := first[b]
		switch {
		case !okA:
			bad = append(bad, fmt.Sprintf("%s was not called", a))
		case !okB:
			bad = append(bad, fmt.Sprintf("%s was not called", b))
		case ia < ib:
			held++
		default:
			bad = append(bad, fmt.Sprintf("%s (call %d) came before %s (call %d)", b, ib, a, ia))
		}
	}
	reason := fmt.Sprintf("%d of %d pairs in order", held, pairs)
	if len(bad) > 0 {
		reason += ": " + strings.Join(slices.Compact(bad), "; ")
	}
	return Score{Value: float64(held) / float64(pairs), Reason: reason}
}
