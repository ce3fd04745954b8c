package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/report"
)

// TestReplayedByOrderIsMarked: a scenario whose cassette was replayed by
// order (a changed request would have passed) says so in every format
// a person reads, and its JSON keeps the mark; a scenario replayed by
// content carries none, so its report is as before.
func TestReplayedByOrderIsMarked(t *testing.T) {
	t.Parallel()
	r := &report.Report{Schema: report.Schema, Scenarios: []report.Scenario{
		{Name: "imported", File: "scenarios/imported.yaml", Status: report.StatusPass, Cassette: "cassettes/imported.yaml", Replay: "by-order"},
		{Name: "matched", File: "scenarios/matched.yaml", Status: report.StatusPass, Cassette: "cassettes/matched.yaml"},
	}}
	writers := []struct {
		name  string
		write func(*bytes.Buffer) error
		want  string
	}{
		{"text", func(b *bytes.Buffer) error { return report.WriteText(b, r) }, "replayed by-order: each request got the recorded answer at its place, whatever it said (agent.replay)"},
		{"markdown", func(b *bytes.Buffer) error { return report.WriteMarkdown(b, r) }, "| imported (replayed by-order) |"},
		{"html", func(b *bytes.Buffer) error { return report.WriteHTML(b, r) }, "<strong>replayed by-order</strong>: each request got the recorded answer at its place, whatever it said"},
		{"json", func(b *bytes.Buffer) error { return report.WriteJSON(b, r) }, `"replay": "by-order"`},
	}
	for _, w := range writers {
		var b bytes.Buffer
		if err := w.write(&b); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if got := b.String(); !strings.Contains(got, w.want) || strings.Count(got, "by-order") != 1 {
			t.Errorf("%s: want the one scenario replayed by order marked with %q, got:\n%s", w.name, w.want, got)
		}
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	back, err := report.ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Scenarios[0].Replay != "by-order" || back.Scenarios[1].Replay != "" {
		t.Errorf("read back: replay %q and %q, want \"by-order\" and \"\"", back.Scenarios[0].Replay, back.Scenarios[1].Replay)
	}
}
