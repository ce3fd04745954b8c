package harness

import (
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/grade"
	"github.com/agenteval/agenteval/report"
)

// reportSteps renders the steps of a run as reports and transcripts show
// them; no steps is nil.
func reportSteps(steps []grade.Step) []report.Step {
	if len(steps) == 0 {
		return nil
	}
	out := make([]report.Step, len(steps))
	for i, st := range steps {
		out[i] = report.Step{Turn: st.Turn, Thread: st.Thread, Step: st.Step, Namespace: st.Namespace, Pending: st.Pending, Nodes: st.Nodes, Removed: st.Removed, Keys: st.Keys}
		for _, m := range st.Changed {
			out[i].Messages = append(out[i].Messages, reportMessage(m))
		}
	}
	return out
}

// toExpectations turns grade's results into report entries.
func toExpectations(rs []grade.Result) []report.Expectation {
	out := make([]report.Expectation, len(rs))
	for i, r := range rs {
		out[i] = toExpectation(r)
	}
	return out
}

// toExpectation turns one of grade's results into a report entry. Only a
// grader's entry carries its score, threshold and reason, so reports of
// pass/fail expectations stay as they were.
func toExpectation(r grade.Result) report.Expectation {
	e := report.Expectation{Name: r.Name, Passed: r.Passed, Message: r.Message, Diff: r.Diff}
	if r.Grader != "" {
		score, threshold := r.Score, r.Threshold
		e.Grader, e.Reason = r.Grader, r.Reason
		if !r.Errored {
			e.Score, e.Threshold = &score, &threshold
		}
	}
	return e
}

// reportMessage is a message as reports show it.
func reportMessage(m engine.Message) report.Message {
	rm := report.Message{Type: string(m.Type), ID: m.ID, Name: m.Name, Content: contentText(m), ToolCallID: m.ToolCallID, Status: m.Status}
	for _, c := range m.ToolCalls {
		args, _ := engine.PyJSON(argsValue(c.Args))
		rm.ToolCalls = append(rm.ToolCalls, report.ToolCall{Name: c.Name, ID: c.ID, Args: args})
	}
	return rm
}

// contentText is a message's text, or its content's JSON when it has
// blocks that are not text.
func contentText(m engine.Message) string {
	if !m.Content.IsList() {
		return m.Content.String()
	}
	if t := m.Text(); t != "" {
		return t
	}
	s, err := engine.PyJSON(m.Content.Value())
	if err != nil {
		return m.Text()
	}
	return s
}
