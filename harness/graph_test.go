package harness_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/grade"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
)

// nsPattern is a subgraph task's checkpoint namespace, "node:<task id>".
var nsPattern = regexp.MustCompile(`^(researcher|writer):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// loadSubgraphScenario loads the corpus's graph scenario with its first
// turn only and no expectations.
func loadSubgraphScenario(t *testing.T) *harness.Scenario {
	t.Helper()
	scenarios, err := harness.LoadDir("../scenarios", "../scenarios/subgraphs/research_then_email.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := *scenarios[0]
	s.Turns = s.Turns[:1]
	s.Expect = grade.Expect{}
	return &s
}

// TestGraphSubgraphNamespaces runs a graph of two agents to the
// interrupt inside the second: the steps inside the subgraphs carry their
// tasks' namespaces, "node:<task id>" as LangGraph names them, the
// second's marked pending (its task paused inside); the streamed
// messages carry the same namespaces; the interrupt raised inside the
// subgraph is the run's.
func TestGraphSubgraphNamespaces(t *testing.T) {
	t.Parallel()
	s := loadSubgraphScenario(t)
	res, obs := harness.RunScenarioObserved(context.Background(), s, harness.Options{Transport: noNetwork{t}})
	if res.Status != report.StatusPass {
		t.Fatalf("status %s: %s", res.Status, res.Message)
	}
	seen := map[string]bool{}
	for _, st := range obs.Steps {
		if st.Namespace == "" {
			continue
		}
		if !nsPattern.MatchString(st.Namespace) {
			t.Errorf("step %d (%v) namespace %q, want node:<task id>", st.Step, st.Nodes, st.Namespace)
		}
		node, _, _ := strings.Cut(st.Namespace, ":")
		if want := node == "writer"; st.Pending != want {
			t.Errorf("step %d of %s: Pending = %v, want %v (only the writer paused inside)", st.Step, node, st.Pending, want)
		}
		seen[st.Namespace] = true
	}
	if len(seen) != 2 {
		t.Errorf("steps show namespaces %v, want one per subgraph task", seen)
	}
	for _, m := range obs.Streamed {
		if len(m.Namespace) != 1 || !seen[m.Namespace[0]] {
			t.Errorf("streamed %s from %s: namespace %q, want one of the steps' %v", m.Chunks[0].ID, m.Node, m.Namespace, seen)
		}
	}
	if len(obs.Interrupts) != 1 || res.Usage.ToolCalls != 1 {
		t.Errorf("interrupts %d, tool calls %d; want the writer's one interrupt after the researcher's one call", len(obs.Interrupts), res.Usage.ToolCalls)
	}
}

// TestGraphResumeInsideSubgraph resumes, in another run (agenteval
// resume), a graph whose second agent paused inside its subgraph: the
// decision goes to the subgraph, which goes on from its own checkpoint,
// and the resumed turn shows only the subgraph steps it ran.
func TestGraphResumeInsideSubgraph(t *testing.T) {
	t.Parallel()
	s := loadSubgraphScenario(t)
	opts := harness.Options{Transport: noNetwork{t}, StateDir: t.TempDir()}
	if res := harness.RunScenario(context.Background(), s, opts); res.Status != report.StatusPass {
		t.Fatalf("first turn: status %s: %s", res.Status, res.Message)
	}
	full, err := harness.LoadDir("../scenarios", "../scenarios/subgraphs/research_then_email.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := harness.Resume(context.Background(), s, full[0].Turns[1], opts)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Interrupts) != 0 || r.Final != "I e-mailed Ana that Paris is sunny, 22°C." {
		t.Fatalf("resumed: err %v, interrupts %v, final %q; want the writer's answer", r.Err, r.Interrupts, r.Final)
	}
	for _, want := range []string{"  step 2 · writer\n", "    writer › step 3 · tools\n", `"sent"`, "    writer › step 4 · model · ai [w2] · 3 chunks"} {
		if !strings.Contains(r.Transcript, want) {
			t.Errorf("resumed transcript lacks %q:\n%s", want, r.Transcript)
		}
	}
	for _, not := range []string{"writer › step 1 ·", "researcher ›", "[w1]"} {
		if strings.Contains(r.Transcript, not) {
			t.Errorf("resumed transcript shows %q, which the first run ran:\n%s", not, r.Transcript)
		}
	}
}
