package cassette

import (
	"strings"
	"testing"
)

// textSecrets are credentials of every shape in the table, as they would
// appear in free text (a transcript, a log line).
var textSecrets = map[string]string{
	"a PEM private key":                   fakePEM,
	"an Anthropic API key (sk-ant-...)":   fakeAnthropicKey,
	"an OpenAI-style API key (sk-...)":    fakeOpenAIKey,
	"a Google API key (AIza...)":          fakeGoogleKey,
	"a Groq API key (gsk_...)":            fakeGroq,
	"an xAI API key (xai-...)":            fakeXAI,
	"a Hugging Face token (hf_...)":       fakeHF,
	"a GitHub token":                      fakeGitHub,
	"an AWS access key id (AKIA...)":      fakeAWS,
	"a Slack token (xox.-...)":            fakeSlack,
	"a JWT (eyJ...)":                      fakeJWT,
	"an OpenAI organization id (org-...)": fakeOrgID,
	"a bearer token":                      fakeBearer,
	"a Stripe secret key (sk_live_...)":   fakeStripe,
}

// TestScrubTextCoversEveryShape: every shape of the table is scrubbed
// from free text and found by FindCredential at its offset, so reports,
// golden files and logs are held to the same table as cassettes.
func TestScrubTextCoversEveryShape(t *testing.T) {
	for _, p := range credentialPatterns {
		if p.scope != inText {
			continue
		}
		secret, ok := textSecrets[p.kind]
		if !ok {
			t.Errorf("pattern %q has no secret in textSecrets", p.kind)
			continue
		}
		text := "the tool said: " + secret + " (end)"
		got := ScrubText(text)
		if strings.Contains(got, strings.TrimPrefix(secret, "Bearer ")) || !strings.Contains(got, Redacted) {
			t.Errorf("ScrubText(%q) = %q: the %s survived", text, got, p.kind)
		}
		kind, at, found := FindCredential(text)
		if !found || kind != p.kind || at != len("the tool said: ") {
			t.Errorf("FindCredential(%q) = %q, %d, %v; want %q at %d", text, kind, at, found, p.kind, len("the tool said: "))
		}
		if _, _, found := FindCredential(got); found {
			t.Errorf("FindCredential finds a credential in the scrubbed %q", got)
		}
	}
	for _, clean := range []string{"", "Sunny in Paris.", "sk-short", "ask-the-user-for-their-name", `{"key": "abc", "token": "t-1"}`} {
		if got := ScrubText(clean); got != clean {
			t.Errorf("ScrubText(%q) = %q, want it unchanged", clean, got)
		}
		if kind, _, found := FindCredential(clean); found {
			t.Errorf("FindCredential(%q) found %s", clean, kind)
		}
	}
}

func TestCredentialVariable(t *testing.T) {
	tests := []struct {
		name   string
		secret bool
		reason string
	}{
		{"OPENAI_API_KEY", true, "an API key"},
		{"GITHUB_TOKEN", true, "a token CI sets"},
		{"AWS_SECRET_ACCESS_KEY", true, "ends in _KEY"},
		{"AWS_SESSION_TOKEN", true, "ends in _TOKEN"},
		{"DATABASE_PASSWORD", true, "ends in _PASSWORD"},
		{"CLIENT_SECRET", true, "ends in _SECRET"},
		{"TOKEN", true, "a credential parameter's name"},
		{"PASSWORD", true, "a credential parameter's name"},
		{"HOME", false, "a path"},
		{"SSH_AUTH_SOCK", false, "a socket path, not a credential"},
		{"KEYBOARD_LAYOUT", false, "KEY is not a suffix here"},
	}
	for _, tc := range tests {
		if got := CredentialVariable(tc.name); got != tc.secret {
			t.Errorf("CredentialVariable(%q) = %v, want %v: %s", tc.name, got, tc.secret, tc.reason)
		}
	}
}
