package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/engine"
)

// TestPrepareGraphScenario: a graph of agents whose nodes all have
// models of their own needs no top-level script under any variant, and a
// variant's prompt, which has no one agent to go to, is a problem at the
// variant.
func TestPrepareGraphScenario(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := `agent:
  kind: graph
  nodes: [{name: helper, model: helper}]
models:
  helper: {responses: [{content: Done.}]}
turns: [{user: hi}]
`
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "pipeline.yaml"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		reason, variants, want string
	}{
		{"no script is needed", "variants: [{name: baseline}]\n", ""},
		{"a prompt has no agent to go to", "variants:\n  - name: baseline\n  - name: terse\n    prompt: Be brief.\n",
			"evals.yaml:5:13: variants[1].prompt: scenario pipeline is a graph of agents"},
	} {
		path := filepath.Join(dir, "evals.yaml")
		if err := os.WriteFile(path, []byte("root: scenarios\n"+tc.variants), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Prepare(f)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Prepare (%s): %v", tc.reason, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Prepare (%s) = %v, want a problem containing %q", tc.reason, err, tc.want)
		}
	}
}

// TestVariantMiddlewareReachesGraphNodes: a variant's middleware override
// sets the options of the middleware of that type wherever the scenario
// has one, on the agent and on each node of a graph of agents, and leaves
// the scenario itself as it was. Before, only the agent's own middleware
// was looked at, so an override meant for a node was reported as unused.
func TestVariantMiddlewareReachesGraphNodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := `agent:
  kind: graph
  nodes:
    - {name: a, kind: agent, model: m, middleware: [{type: ModelCallLimitMiddleware, options: {run_limit: 5, exit_behavior: end}}]}
    - {name: b, model: m}
models:
  m: {responses: [{content: Done.}, {content: Done.}]}
turns: [{user: hi}]
`
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "pipeline.yaml"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "evals.yaml")
	src := "root: scenarios\nvariants:\n  - name: baseline\n  - name: tight\n    middleware: [{type: ModelCallLimitMiddleware, options: {run_limit: 1}}]\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(f)
	if err != nil {
		t.Fatalf("Prepare: %v (the override must count as used)", err)
	}
	got := map[string]string{}
	for _, c := range p.cells {
		mw := c.s.Agent.Nodes[0].Middleware
		if len(mw) != 1 {
			t.Fatalf("%s: node a has %d middleware, want 1", c.variant.Name, len(mw))
		}
		got[c.variant.Name] = engine.PyRepr(mw[0].Options)
		if n := len(c.s.Agent.Nodes[1].Middleware); n != 0 {
			t.Errorf("%s: node b has %d middleware, want none (it had none)", c.variant.Name, n)
		}
	}
	want := map[string]string{
		"baseline": "{'run_limit': 5, 'exit_behavior': 'end'}",
		"tight":    "{'run_limit': 1, 'exit_behavior': 'end'}",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("node a's middleware options per variant (-want +got):\n%s", diff)
	}
}
