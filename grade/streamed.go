package grade

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// checkStreamed matches the messages the "messages" stream mode
// delivered against the expected ones: as many, in order, every field an
// entry sets holding for its message. The diff shows each message as one
// line, with the fields its entry sets (all of them past the entries).
func checkStreamed(want []StreamedExpect, got []Streamed) Result {
	ex := Result{Name: "streamed"}
	for i := range min(len(want), len(got)) {
		if why := streamedMismatch(want[i], got[i]); why != "" {
			ex.Message = fmt.Sprintf("streamed: message %d (%s): %s", i+1, describeStreamed(got[i]), why)
			ex.Diff = streamedDiff(want, got)
			return ex
		}
	}
	if len(want) != len(got) {
		ex.Message = fmt.Sprintf("streamed: want %s, got %d", countNoun(len(want), "streamed message"), len(got))
		ex.Diff = streamedDiff(want, got)
		return ex
	}
	ex.Passed = true
	return ex
}

// streamedMismatch says how a streamed message fails its entry, "" when
// it does not.
func streamedMismatch(w StreamedExpect, g Streamed) string {
	var why []string
	if w.Node != "" && g.Node != w.Node {
		why = append(why, fmt.Sprintf("node %q, want %q", g.Node, w.Node))
	}
	if w.Namespace != nil && g.Path() != *w.Namespace {
		why = append(why, fmt.Sprintf("namespace %q, want %q", g.Path(), *w.Namespace))
	}
	if w.Type != "" && streamedType(g) != w.Type {
		why = append(why, fmt.Sprintf("type %q, want %q", streamedType(g), w.Type))
	}
	if w.ID != "" && streamedID(g) != w.ID {
		why = append(why, fmt.Sprintf("id %q, want %q", streamedID(g), w.ID))
	}
	if w.Text != nil {
		if r := checkFinal(*w.Text, g.Text()); !r.Passed {
			why = append(why, strings.TrimPrefix(r.Message, "final: "))
		}
	}
	if w.Chunks != nil && len(g.Chunks) != *w.Chunks {
		why = append(why, fmt.Sprintf("%s, want %d", countNoun(len(g.Chunks), "chunk"), *w.Chunks))
	}
	if w.Pieces != nil && !slices.Equal(g.Pieces(), w.Pieces) {
		why = append(why, fmt.Sprintf("pieces %s, want %s", quoteList(g.Pieces()), quoteList(w.Pieces)))
	}
	if w.ToolCalls != nil && !slices.Equal(g.ToolCalls(), *w.ToolCalls) {
		why = append(why, fmt.Sprintf("tool calls %s, want %s", quoteList(g.ToolCalls()), quoteList(*w.ToolCalls)))
	}
	return strings.Join(why, "; ")
}

func streamedType(g Streamed) string {
	if len(g.Chunks) == 0 {
		return ""
	}
	return string(g.Chunks[0].Type)
}

func streamedID(g Streamed) string {
	if len(g.Chunks) == 0 {
		return ""
	}
	return g.Chunks[0].ID
}

// describeStreamed names a streamed message in a failure: its type, ID
// and the node (with its subgraph) that produced it.
func describeStreamed(g Streamed) string {
	node := g.Node
	if p := g.Path(); p != "" {
		node = p + " › " + node
	}
	return fmt.Sprintf("%s %s from %s", streamedType(g), streamedID(g), node)
}

// streamedDiff is a line diff of the expected messages against the
// streamed ones, each a line of the fields its entry sets.
func streamedDiff(want []StreamedExpect, got []Streamed) string {
	var w, g strings.Builder
	for i, e := range want {
		w.WriteString(streamedLine(e, nil, false) + "\n")
		if i < len(got) {
			g.WriteString(streamedLine(e, &got[i], false) + "\n")
		}
	}
	// past the entries, every field of the message
	all := StreamedExpect{Node: "*", Namespace: new(string), Type: "*", Chunks: new(int), Pieces: []string{}, ToolCalls: &[]string{}}
	for i := len(want); i < len(got); i++ {
		g.WriteString(streamedLine(all, &got[i], true) + "\n")
	}
	return lineDiff(w.String(), g.String())
}

// streamedLine renders the fields e sets: e's own values or, when g is
// given, g's, except that a field g satisfies shows e's value (unless
// full), so that the lines of a diff differ only where the entry fails.
func streamedLine(e StreamedExpect, g *Streamed, full bool) string {
	var parts []string
	add := func(key, want string, got func() (string, bool)) {
		if g != nil {
			if v, ok := got(); full || !ok {
				want = v
			}
		}
		parts = append(parts, key+"="+want)
	}
	if e.Namespace != nil {
		add("namespace", strconv.Quote(*e.Namespace), func() (string, bool) { return strconv.Quote(g.Path()), g.Path() == *e.Namespace })
	}
	if e.Node != "" {
		add("node", e.Node, func() (string, bool) { return g.Node, g.Node == e.Node })
	}
	if e.Type != "" {
		add("type", e.Type, func() (string, bool) { return streamedType(*g), streamedType(*g) == e.Type })
	}
	if e.ID != "" {
		add("id", e.ID, func() (string, bool) { return streamedID(*g), streamedID(*g) == e.ID })
	}
	if e.Text != nil {
		add("text", describeTextMatch(*e.Text), func() (string, bool) { return strconv.Quote(g.Text()), checkFinal(*e.Text, g.Text()).Passed })
	}
	if e.Chunks != nil {
		add("chunks", strconv.Itoa(*e.Chunks), func() (string, bool) { return strconv.Itoa(len(g.Chunks)), len(g.Chunks) == *e.Chunks })
	}
	if e.Pieces != nil {
		add("pieces", quoteList(e.Pieces), func() (string, bool) { return quoteList(g.Pieces()), slices.Equal(g.Pieces(), e.Pieces) })
	}
	if e.ToolCalls != nil {
		add("tool_calls", quoteList(*e.ToolCalls), func() (string, bool) { return quoteList(g.ToolCalls()), slices.Equal(g.ToolCalls(), *e.ToolCalls) })
	}
	if len(parts) == 0 {
		return "(any message)"
	}
	return strings.Join(parts, " ")
}

// describeTextMatch writes a TextMatch as its text when it asks for an
// equal one, else as its conditions: {contains ["a"] regex "^x"}.
func describeTextMatch(m TextMatch) string {
	if m.Equals != nil && m.Contains == nil && m.Regex == "" && m.NotContains == nil {
		return strconv.Quote(*m.Equals)
	}
	var conds []string
	if m.Equals != nil {
		conds = append(conds, "equals "+strconv.Quote(*m.Equals))
	}
	if m.Contains != nil {
		conds = append(conds, "contains "+quoteList(m.Contains))
	}
	if m.Regex != "" {
		conds = append(conds, "regex "+strconv.Quote(m.Regex))
	}
	if m.NotContains != nil {
		conds = append(conds, "not_contains "+quoteList(m.NotContains))
	}
	return "{" + strings.Join(conds, " ") + "}"
}

// quoteList writes strings as ["a" "b"].
func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, " ") + "]"
}
