package harness_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// plantedCredentials are a credential of each kind a developer's shell
// holds, by the variable its provider's SDK reads.
var plantedCredentials = map[string]string{
	"OPENAI_API_KEY":                 "sk-proj-planted0openai0key0000000000000",
	"OPENAI_ORG_ID":                  "org-planted0openai0organization0",
	"ANTHROPIC_API_KEY":              "sk-ant-api03-planted0anthropic0key000000",
	"GEMINI_API_KEY":                 "AIzaPlanted0gemini0key000000000000000000",
	"GOOGLE_API_KEY":                 "AIzaPlanted0google0key000000000000000000",
	"GOOGLE_APPLICATION_CREDENTIALS": "/home/dev/planted-service-account.json",
	"AZURE_OPENAI_API_KEY":           "planted0azure0openai0key00000000",
	"AZURE_OPENAI_ENDPOINT":          "https://planted.openai.azure.com",
	"MISTRAL_API_KEY":                "planted0mistral0key00000000000000",
	"AWS_ACCESS_KEY_ID":              "AKIAPLANTED000000000",
	"AWS_SECRET_ACCESS_KEY":          "planted0aws0secret0access0key000000000000",
	"AWS_SESSION_TOKEN":              "planted0aws0session0token00000000",
	"HF_TOKEN":                       "hf_planted0hugging0face0token000000000",
	"HUGGING_FACE_HUB_TOKEN":         "hf_planted0hub0token0000000000000000000",
	"COHERE_API_KEY":                 "planted0cohere0key0000000000000000",
	"CO_API_KEY":                     "planted0co0key00000000000000000000",
	"GROQ_API_KEY":                   "gsk_planted0groq0key00000000000000",
	"XAI_API_KEY":                    "xai-planted0xai0key000000000000000",
	"GITHUB_TOKEN":                   "ghp_planted0github0token000000000000000000",
	"STRIPE_API_KEY":                 "sk_live_planted0stripe0key000000000",
	"DATABASE_URL":                   "postgres://app:planted-password@db/app",
	"HTTPS_PROXY":                    "http://user:planted-proxy-password@proxy:3128",
}

// TestCommandAgentEnvironmentIsClean plants a credential of each kind in
// agenteval's environment and has a command agent answer with the names
// of its variables: none of them reaches it (the audit's agents got every
// provider's keys but OpenAI's and Anthropic's), the dummy key and the
// harmless variables do, and so does a variable the scenario passes by
// name (agent.pass_env).
func TestCommandAgentEnvironmentIsClean(t *testing.T) {
	for k, v := range plantedCredentials {
		t.Setenv(k, v)
	}
	t.Setenv("AGENTEVAL_TEST_PASSED", "passed-on-purpose")
	const program = `read line
names=$(env | cut -d= -f1 | sort | tr '\n' ' ')
printf '{"output": "key=%s passed=%s names= %s"}\n' "$OPENAI_API_KEY" "$AGENTEVAL_TEST_PASSED" "$names"
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "env.sh"), []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := "agent:\n  kind: command\n  command: [sh, env.sh]\n  pass_env: [AGENTEVAL_TEST_PASSED]\nscript: {responses: [{content: unused}]}\nturns:\n  - user: hi\n"
	s, err := harness.Parse(filepath.Join(dir, "clean.yaml"), []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	s.Name = "clean"
	res := harness.RunScenario(context.Background(), s, harness.Options{})
	if res.Status != report.StatusPass {
		t.Fatalf("status %s: %s", res.Status, res.Message)
	}
	if want := "key=" + harness.DummyAPIKey + " passed=passed-on-purpose "; !strings.HasPrefix(res.Final, want) {
		t.Errorf("the program's answer %q does not start with %q: the dummy key and the passed variable", res.Final, want)
	}
	for k := range plantedCredentials {
		if k == "OPENAI_API_KEY" || k == "ANTHROPIC_API_KEY" || k == "GEMINI_API_KEY" {
			continue // set to the dummy key (checked above for OpenAI's)
		}
		if strings.Contains(res.Final, " "+k+" ") {
			t.Errorf("%s reached the command agent: %s", k, res.Final)
		}
	}
	for _, k := range []string{"PATH", "OPENAI_BASE_URL", "AGENTEVAL_SCENARIO"} {
		if !strings.Contains(res.Final, " "+k+" ") {
			t.Errorf("%s did not reach the command agent: %s", k, res.Final)
		}
	}
}
