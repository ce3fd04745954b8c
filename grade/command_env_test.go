package grade

import (
	"context"
	"strings"
	"testing"
)

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

// TestCommandGraderEnvironment plants a credential of each kind in
// agenteval's environment and has a command grader print its own: none
// reaches it (they did: the audit's graders inherited the real OpenAI
// and Anthropic keys), while PATH and HOME do.
func TestCommandGraderEnvironment(t *testing.T) {
	for k, v := range plantedCredentials {
		t.Setenv(k, v)
	}
	t.Setenv("LC_ALL", "C")
	env := Env{Dir: "testdata/graders", Record: []byte(`{}`)}
	got := env.Grade(context.Background(), []Grader{{Command: &Command{Run: []string{"sh", "env.sh"}}}}, nil)
	if len(got) != 1 || !got[0].Passed {
		t.Fatalf("the env grader did not pass: %+v", got)
	}
	seen := " " + got[0].Reason
	for k, v := range plantedCredentials {
		if strings.Contains(seen, " "+k+"=") || strings.Contains(seen, v) {
			t.Errorf("%s reached the command grader: %s", k, got[0].Reason)
		}
	}
	for _, k := range []string{"PATH", "HOME", "LC_ALL"} {
		if !strings.Contains(seen, " "+k+"=") {
			t.Errorf("%s, a harmless variable, did not reach the command grader: %s", k, got[0].Reason)
		}
	}
}
