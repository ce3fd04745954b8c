package harness_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
)

// TestCommandEnviron checks the variables a command agent gets about its
// run: the program answers with them, without calling the model.
func TestCommandEnviron(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the command agent of this test is a Python program")
	}
	// stale values in agenteval's own environment never reach the program
	t.Setenv("AGENTEVAL_VARIANT", "stale")
	t.Setenv("AGENTEVAL_MODEL", "stale")
	const program = `import json, os, sys
sys.stdin.readline()
v = [os.environ.get(k, "<unset>") for k in ("AGENTEVAL_SCENARIO", "AGENTEVAL_MODEL", "AGENTEVAL_VARIANT", "STYLE")]
print(json.dumps({"output": "|".join(v)}), flush=True)
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent.py"), []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, reason string
		env          string // agent.env lines
		variant      string // Options.Variant
		want         string
	}{
		{"plain", "a plain run: the model's name (scripted) and an empty variant; the program had no way to learn either, and a stale AGENTEVAL_VARIANT leaked in", "", "", "env-plain|scripted||<unset>"},
		{"variant", "an eval trial: the variant's name, which the program had no way to learn", "", "terse", "env-variant|scripted|terse|<unset>"},
		{"env", "the scenario's env comes after agenteval's variables", "  env: {STYLE: short}\n", "terse", "env-env|scripted|terse|short"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			yaml := "agent:\n  kind: command\n  command: [python3, agent.py]\n" + tc.env + "script: {responses: [{content: unused}]}\nturns:\n  - user: hi\nexpect:\n  final: {equals: \"" + tc.want + "\"}\n"
			s, err := harness.Parse(filepath.Join(dir, tc.name+".yaml"), []byte(yaml))
			if err != nil {
				t.Fatal(err)
			}
			s.Name = "env-" + tc.name
			res := harness.RunScenario(context.Background(), s, harness.Options{Variant: tc.variant})
			if res.Status != report.StatusPass {
				t.Errorf("%s\nstatus %s: %s (final %q, want %q)", tc.reason, res.Status, res.Message, res.Final, tc.want)
			}
		})
	}
}
