package harness

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/grade"
	"github.com/agenteval/agenteval/report"
)

// GoldenSuffix ends every golden transcript's file name.
const GoldenSuffix = ".golden"

// Transcript renders a run as the golden transcript: one block per turn,
// one line per superstep (its number and the nodes that ran), then the
// messages the step added or replaced with their IDs, tool calls (and
// invalid ones, whose arguments were not JSON, marked ✗) and tool
// results, the state keys it wrote besides messages, interrupts, and the
// turn's error. It is line-oriented and stable so that a change in
// behaviour shows up as a reviewable diff.
func Transcript(s *Scenario, o *grade.Observed) string {
	return transcript(s, o, reportSteps(o.Steps))
}

// transcript renders the golden transcript of a run whose steps are
// already in their report form.
func transcript(s *Scenario, o *grade.Observed, steps []report.Step) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# scenario %s\n", s.Name)
	emulated := map[string]string{}
	for _, t := range s.Tools {
		switch {
		case t.Emulate != nil && t.Emulate.Output != nil:
			emulated[t.Name] = "emulated: schema"
		case t.Emulate != nil:
			emulated[t.Name] = "emulated: model"
		}
	}
	turn := -1
	paused := "" // the subgraph task whose pending steps are being written
	for si, st := range steps {
		if st.Turn != turn {
			writeStreamed(&b, o, turn)
			turn = st.Turn
			paused = ""
			fmt.Fprintf(&b, "\nturn %d · thread %s · %s%s\n", turn+1, st.Thread, describeTurn(s.Turns[turn]), describeStream(s.Turns[turn]))
		}
		indent := "    "
		if st.Namespace == "" {
			fmt.Fprintf(&b, "  step %d · %s\n", st.Step, strings.Join(compactNodes(st.Nodes), ", "))
		} else {
			levels := strings.Split(st.Namespace, "|")
			if top := levels[0]; st.Pending && top != paused {
				paused = top
				name, _, _ := strings.Cut(top, ":")
				fmt.Fprintf(&b, "  paused in %s\n", name)
			}
			indent = "      "
			path := strings.ReplaceAll(grade.NamespacePath(levels), "|", " › ")
			fmt.Fprintf(&b, "    %s › step %d · %s\n", path, st.Step, strings.Join(compactNodes(st.Nodes), ", "))
		}
		for mi, m := range st.Messages {
			note := ""
			if m.Type == string(engine.TypeTool) {
				note = emulated[m.Name]
			}
			writeMessage(&b, indent, m, note)
			if si < len(o.Steps) && mi < len(o.Steps[si].Changed) {
				writeInvalidCalls(&b, indent, o.Steps[si].Changed[mi])
			}
		}
		if len(st.Removed) > 0 {
			fmt.Fprintf(&b, "%s- removed %s\n", indent, strings.Join(st.Removed, ", "))
		}
		var other []string
		for _, k := range st.Keys {
			if k != "messages" {
				other = append(other, k)
			}
		}
		if len(other) > 0 {
			fmt.Fprintf(&b, "%skeys: %s\n", indent, strings.Join(other, ", "))
		}
	}
	writeStreamed(&b, o, turn)
	if len(o.Interrupts) > 0 {
		b.WriteString("\ninterrupts:\n")
		for _, iv := range o.Interrupts {
			fmt.Fprintf(&b, "  %s\n", oneLine(engine.PyRepr(iv)))
		}
	}
	b.WriteString("\nresult:\n")
	if o.Err != nil {
		fmt.Fprintf(&b, "  error: %s\n", oneLine(grade.ErrorText(o.Err)))
	}
	if o.HasStructured {
		fmt.Fprintf(&b, "  structured_response: %s\n", oneLine(engine.PyRepr(o.Structured)))
	}
	fmt.Fprintf(&b, "  final: %s\n", quote(o.Final))
	u := o.Usage
	runs := ""
	if u.ToolRuns != u.ToolCalls {
		runs = fmt.Sprintf(" (%d tool runs)", u.ToolRuns)
	}
	fmt.Fprintf(&b, "  usage: %d model calls, %d tool calls%s, %d steps, %d tokens\n", u.ModelCalls, u.ToolCalls, runs, u.Steps, u.TotalTokens)
	if u.EmulatedModelCalls > 0 {
		fmt.Fprintf(&b, "  emulated: %d of the model calls answered tool calls\n", u.EmulatedModelCalls)
	}
	return b.String()
}

// compactNodes writes "tools ×3" for a node that ran as several tasks.
func compactNodes(nodes []string) []string {
	var out []string
	for i := 0; i < len(nodes); {
		j := i
		for j < len(nodes) && nodes[j] == nodes[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, fmt.Sprintf("%s ×%d", nodes[i], j-i))
		} else {
			out = append(out, nodes[i])
		}
		i = j
	}
	if len(out) == 0 {
		return []string{"(no task)"}
	}
	return out
}

func describeTurn(t Turn) string {
	switch {
	case t.User != "":
		return "user: " + quote(t.User)
	case t.Decisions != nil:
		return "decisions: " + oneLine(engine.PyRepr(t.Decisions))
	case t.Resume != nil:
		return "resume: " + oneLine(engine.PyRepr(t.Resume))
	case t.UpdateState != nil:
		s := "update_state: " + oneLine(engine.PyRepr(t.UpdateState))
		if t.AsNode != "" {
			s += " as " + t.AsNode
		}
		return s
	case t.FromStep != nil:
		return fmt.Sprintf("continue from step %d", *t.FromStep)
	}
	return "continue"
}

// describeStream is what a turn asks of the stream, "" for nothing:
// " · stream_mode updates, messages · subgraphs".
func describeStream(t Turn) string {
	var s string
	if len(t.StreamMode) > 0 {
		s += " · stream_mode " + strings.Join(t.StreamMode, ", ")
	}
	if t.Subgraphs {
		s += " · subgraphs"
	}
	return s
}

// writeStreamed writes what the "messages" stream mode delivered in turn
// ti, one line per message: the node that produced it (after its
// subgraph's path), the message, how many chunks it came in and the text
// of each, then the tool calls its chunks carried.
func writeStreamed(b *strings.Builder, o *grade.Observed, ti int) {
	first := true
	for _, sm := range o.Streamed {
		if sm.Turn != ti || len(sm.Chunks) == 0 {
			continue
		}
		if first {
			b.WriteString("  streamed:\n")
			first = false
		}
		where := fmt.Sprintf("step %d · %s", sm.Step, sm.Node)
		if p := sm.Path(); p != "" {
			where = strings.ReplaceAll(p, "|", " › ") + " › " + where
		}
		m := sm.Chunks[0]
		head := string(m.Type)
		if m.Name != "" {
			head += " " + m.Name
		}
		pieces := make([]string, len(sm.Chunks))
		for i, c := range sm.Chunks {
			pieces[i] = quote(c.Text())
		}
		fmt.Fprintf(b, "    %s · %s [%s] · %s: %s", where, head, orNone(m.ID), countChunks(len(sm.Chunks)), strings.Join(pieces, " "))
		if calls := sm.ToolCalls(); len(calls) > 0 {
			fmt.Fprintf(b, " → %s", strings.Join(calls, ", "))
		}
		b.WriteString("\n")
	}
}

func countChunks(n int) string {
	if n == 1 {
		return "1 chunk"
	}
	return fmt.Sprintf("%d chunks", n)
}

func writeMessage(b *strings.Builder, indent string, m report.Message, note string) {
	head := m.Type
	if m.Name != "" {
		head += " " + m.Name
	}
	fmt.Fprintf(b, "%s+ %s [%s]", indent, head, orNone(m.ID))
	if m.ToolCallID != "" {
		fmt.Fprintf(b, " ← %s", m.ToolCallID)
	}
	if m.Status == "error" {
		b.WriteString(" (error)")
	}
	if note != "" {
		fmt.Fprintf(b, " (%s)", note)
	}
	if m.Content != "" || len(m.ToolCalls) == 0 {
		fmt.Fprintf(b, " %s", quote(m.Content))
	}
	b.WriteString("\n")
	for _, c := range m.ToolCalls {
		fmt.Fprintf(b, "%s    → %s %s [%s]\n", indent, c.Name, c.Args, orNone(c.ID))
	}
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// quote writes a text as a Go-quoted string, so newlines and control
// characters stay on one line.
func quote(s string) string { return fmt.Sprintf("%q", s) }

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", `\n`) }

// CassettePath is where a scenario's cassette is: <dir>/<Rel>.yaml.
func CassettePath(dir string, s *Scenario) string {
	return filepath.Join(dir, filepath.FromSlash(s.Rel)+".yaml")
}

// GoldenPath is where a scenario's golden transcript lives.
func GoldenPath(dir string, s *Scenario) string {
	return filepath.Join(dir, filepath.FromSlash(s.Rel)+GoldenSuffix)
}
