package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
