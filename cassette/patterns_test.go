package cassette

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
)

// Credentials shaped like real ones, for the pattern table.
const (
	fakePEM    = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAzTestOnlyKeyMaterial0123456789abcdef\nQWERTYUIOPasdfghjkl0123456789+/==\n-----END RSA PRIVATE KEY-----"
	fakeJWT    = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	fakeOrgID  = "org-AbCdEfGhIjKlMnOpQrStUvWx"
	fakeGroq   = "gsk_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
	fakeStripe = "sk_live_51HABCDEFGHIJKLMNOPQRSTUVwxyz0123"
	fakeXAI    = "xai-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
	fakeHF     = "hf_ABCDEFGHIJKLMNOPQRSTUVWXYZ01234567"
	fakeGitHub = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	fakeAWS    = "AKIAIOSFODNN7EXAMPLE"
	fakeSlack  = "xoxb-1234567890-abcdefghij"
	fakeBearer = "Bearer abcdefghijklmnopqrstuvwxyz012345"
)

// interactionWith returns a clean interaction changed by edit.
func interactionWith(edit func(*vcr.Interaction)) *vcr.Interaction {
	in := &vcr.Interaction{
		Request: vcr.Request{
			Method:  "POST",
			URL:     "https://api.example.com/v1/chat/completions",
			Body:    `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			Headers: http.Header{"Content-Type": {"application/json"}},
		},
		Response: vcr.Response{
			Code:    200,
			Status:  "200 OK",
			Body:    `{"ok":true}`,
			Headers: http.Header{"Content-Type": {"application/json"}},
		},
	}
	edit(in)
	return in
}

// credentialCases holds, for every pattern of credentialPatterns, a
// cassette that holds such a credential: Save must scrub it and Load must
// refuse it, naming the field.
var credentialCases = []struct {
	reason string
	// kind is the credentialPatterns entry the case covers.
	kind string
	in   *vcr.Interaction
	// secret is text that must not survive Save.
	secret string
	// field and message are what Load reports.
	field, message string
}{
	{"a PEM private key pasted into a message", "a PEM private key",
		interactionWith(func(in *vcr.Interaction) {
			in.Request.Body = `{"messages":[{"role":"user","content":` + jsonString(fakePEM) + `}]}`
		}), "QWERTYUIOPasdfghjkl", "request.body", "holds a PEM private key"},
	{"a PEM private key in a form body, escapes and all", "a PEM private key",
		interactionWith(func(in *vcr.Interaction) {
			in.Request.Body = "private=" + url.QueryEscape(fakePEM)
		}), "QWERTYUIOPasdfghjkl", "request.body", "holds a PEM private key"},
	{"an Anthropic key in an unnamed header", "an Anthropic API key (sk-ant-...)",
		interactionWith(func(in *vcr.Interaction) { in.Request.Headers.Set("X-Debug", "key="+fakeAnthropicKey) }),
		fakeAnthropicKey, "request.headers.X-Debug", "holds an Anthropic API key (sk-ant-...)"},
	{"an OpenAI key in a query value", "an OpenAI-style API key (sk-...)",
		interactionWith(func(in *vcr.Interaction) { in.Request.URL += "?q=" + fakeOpenAIKey }),
		fakeOpenAIKey, "request.url", "holds an OpenAI-style API key (sk-...)"},
	{"a Google key echoed in a response", "a Google API key (AIza...)",
		interactionWith(func(in *vcr.Interaction) { in.Response.Body = `{"error":{"message":"bad key ` + fakeGoogleKey + `"}}` }),
		fakeGoogleKey, "response.body", "holds a Google API key (AIza...)"},
	{"a Groq key in a form body value", "a Groq API key (gsk_...)",
		interactionWith(func(in *vcr.Interaction) { in.Request.Body = "note=" + fakeGroq + "&a=1" }),
		fakeGroq, "request.body", "holds a Groq API key (gsk_...)"},
	{"an xAI key in the form: field", "an xAI API key (xai-...)",
		interactionWith(func(in *vcr.Interaction) { in.Request.Form = url.Values{"note": {fakeXAI}} }),
		fakeXAI, "request.form.note", "holds an xAI API key (xai-...)"},
	{"a Hugging Face token in a stream", "a Hugging Face token (hf_...)",
		interactionWith(func(in *vcr.Interaction) { in.Response.Body = "data: {\"t\":\"" + fakeHF + "\"}\n\ndata: [DONE]\n\n" }),
		fakeHF, "response.body", "holds a Hugging Face token (hf_...)"},
	{"a GitHub token as URL user info", "a GitHub token",
		interactionWith(func(in *vcr.Interaction) { in.Request.URL = "https://" + fakeGitHub + "@api.example.com/v1/x" }),
		fakeGitHub, "request.url", "holds a GitHub token"},
	{"an AWS key id deep in a JSON body", "an AWS access key id (AKIA...)",
		interactionWith(func(in *vcr.Interaction) {
			in.Request.Body = `{"messages":[{"role":"tool","content":[{"type":"text","text":"id ` + fakeAWS + `"}]}]}`
		}), fakeAWS, "request.body", "holds an AWS access key id (AKIA...)"},
	{"a Slack token in a response header", "a Slack token (xox.-...)",
		interactionWith(func(in *vcr.Interaction) { in.Response.Headers.Set("X-Note", fakeSlack) }),
		fakeSlack, "response.headers.X-Note", "holds a Slack token (xox.-...)"},
	{"a JWT in a tool result", "a JWT (eyJ...)",
		interactionWith(func(in *vcr.Interaction) {
			in.Request.Body = `{"messages":[{"role":"tool","tool_call_id":"c1","content":"session ` + fakeJWT + `"}]}`
		}), fakeJWT, "request.body", "holds a JWT (eyJ...)"},
	{"an OpenAI organization id in a body", "an OpenAI organization id (org-...)",
		interactionWith(func(in *vcr.Interaction) { in.Response.Body = `{"organization":"` + fakeOrgID + `"}` }),
		fakeOrgID, "response.body", "holds an OpenAI organization id (org-...)"},
	{"a bearer token in a non-auth header", "a bearer token",
		interactionWith(func(in *vcr.Interaction) { in.Request.Headers.Set("X-Forwarded-Via", fakeBearer) }),
		"abcdefghijklmnopqrstuvwxyz012345", "request.headers.X-Forwarded-Via", "holds a bearer token"},
	{"a Stripe secret key in a tool result", "a Stripe secret key (sk_live_...)",
		interactionWith(func(in *vcr.Interaction) {
			in.Request.Body = `{"messages":[{"role":"tool","content":"charged with ` + fakeStripe + `"}]}`
		}), fakeStripe, "request.body", "holds a Stripe secret key (sk_live_...)"},
	{"an X-Custom-Auth header: a header named *-auth holds a credential", "a *-key, *-token or *-secret header",
		interactionWith(func(in *vcr.Interaction) { in.Request.Headers.Set("X-Custom-Auth", "opaque-credential-6") }),
		"opaque-credential-6", "request.headers.X-Custom-Auth", "credential header X-Custom-Auth is not redacted"},
	{"the Authorization header, whatever its value", "an auth header",
		interactionWith(func(in *vcr.Interaction) { in.Request.Headers.Set("Authorization", "Basic dXNlcjpwYXNz") }),
		"dXNlcjpwYXNz", "request.headers.Authorization", "credential header Authorization is not redacted"},
	{"the OpenAI-Organization header", "an auth header",
		interactionWith(func(in *vcr.Interaction) { in.Response.Headers.Set("Openai-Organization", "user-abc123") }),
		"user-abc123", "response.headers.Openai-Organization", "credential header Openai-Organization is not redacted"},
	{"an Anthropic-Api-Key header", "a *-key, *-token or *-secret header",
		interactionWith(func(in *vcr.Interaction) { in.Request.Headers.Set("Anthropic-Api-Key", "plain-secret-1") }),
		"plain-secret-1", "request.headers.Anthropic-Api-Key", "credential header Anthropic-Api-Key is not redacted"},
	{"an X-Custom-Token header", "a *-key, *-token or *-secret header",
		interactionWith(func(in *vcr.Interaction) { in.Request.Headers.Set("X-Custom-Token", "plain-secret-2") }),
		"plain-secret-2", "request.headers.X-Custom-Token", "credential header X-Custom-Token is not redacted"},
	{"an x_api_key header, underscores and all", "a *-key, *-token or *-secret header",
		interactionWith(func(in *vcr.Interaction) { in.Request.Headers["x_api_key"] = []string{"plain-secret-3"} }),
		"plain-secret-3", "request.headers.x_api_key", "credential header X_api_key is not redacted"},
	{"an X-Client-Secret header", "a *-key, *-token or *-secret header",
		interactionWith(func(in *vcr.Interaction) { in.Request.Headers.Set("X-Client-Secret", "plain-secret-4") }),
		"plain-secret-4", "request.headers.X-Client-Secret", "credential header X-Client-Secret is not redacted"},
	{"an OAuth code in the query", "a credential parameter",
		interactionWith(func(in *vcr.Interaction) {
			in.Request.URL = "https://app.example.com/oauth/callback?code=plain-code-5&state=xyz"
		}),
		"plain-code-5", "request.url", "query parameter code holds a credential"},
	{"a form-encoded OAuth token request", "a credential parameter",
		interactionWith(func(in *vcr.Interaction) {
			in.Request.Body = "grant_type=client_credentials&client_id=app&client_secret=plain-secret-6"
			in.Request.Headers.Set("Content-Type", "application/x-www-form-urlencoded")
		}), "plain-secret-6", "request.body", "form field client_secret holds a credential"},
	{"a numeric password in the form: field", "a credential parameter",
		interactionWith(func(in *vcr.Interaction) { in.Request.Form = url.Values{"username": {"u"}, "password": {"987654"}} }),
		"987654", "request.form.password", "form field password holds a credential"},
	{"a top-level api_key in a JSON body", "a credential field",
		interactionWith(func(in *vcr.Interaction) { in.Request.Body = `{"model":"m","api_key":"plain-secret-7"}` }),
		"plain-secret-7", "request.body", "credential field api_key is not redacted"},
	{"a numeric password at the top level of a JSON body", "a credential field",
		interactionWith(func(in *vcr.Interaction) { in.Request.Body = `{"username":"u","password":918273}` }),
		"918273", "request.body", "credential field password is not redacted"},
	{"an access token in an OAuth token response", "a credential field",
		interactionWith(func(in *vcr.Interaction) {
			in.Response.Body = `{"access_token":"plain-secret-8","token_type":"bearer"}`
		}),
		"plain-secret-8", "response.body", "credential field access_token is not redacted"},
	{"an authorization code in a JSON OAuth token request", "an OAuth grant field",
		interactionWith(func(in *vcr.Interaction) {
			in.Request.Body = `{"grant_type":"authorization_code","code":"plain-code-9"}`
		}),
		"plain-code-9", "request.body", "credential field code is not redacted"},
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestEveryCredentialPatternHasACase(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range credentialCases {
		covered[tc.kind] = true
	}
	kinds := map[string]bool{}
	for _, p := range credentialPatterns {
		kinds[p.kind] = true
		if !covered[p.kind] {
			t.Errorf("pattern %q has no case in credentialCases", p.kind)
		}
	}
	for _, tc := range credentialCases {
		if !kinds[tc.kind] {
			t.Errorf("case %q names kind %q, which is not in credentialPatterns", tc.reason, tc.kind)
		}
	}
}

// TestCredentialPatternsScrubbedOnSave: Save writes none of the table's
// credentials, and what it writes loads clean.
func TestCredentialPatternsScrubbedOnSave(t *testing.T) {
	for _, tc := range credentialCases {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "c.yaml")
			if err := (&Cassette{Interactions: []*vcr.Interaction{tc.in}}).Save(path, false); err != nil {
				t.Fatalf("Save: %v", err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), tc.secret) || strings.Contains(string(data), url.QueryEscape(tc.secret)) {
				t.Errorf("saved file holds %q:\n%s", tc.secret, data)
			}
			if _, err := Load(path); err != nil {
				t.Errorf("Load(saved) = %v, want a clean cassette", err)
			}
		})
	}
}

// TestCredentialPatternsRefusedOnLoad: Load refuses a file that holds one
// of the table's credentials and names the field.
func TestCredentialPatternsRefusedOnLoad(t *testing.T) {
	for _, tc := range credentialCases {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			data, err := (&Cassette{Interactions: []*vcr.Interaction{tc.in}}).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse("c.yaml", data)
			if !errors.Is(err, ErrCredential) {
				t.Fatalf("Parse = %v, want ErrCredential\n%s", err, data)
			}
			var fe *FormatError
			errors.As(err, &fe)
			for _, p := range fe.Problems {
				if p.Field == "interactions[0]."+tc.field && p.Message == tc.message {
					if p.Line == 0 {
						t.Errorf("problem %v has no line", p)
					}
					return
				}
			}
			t.Errorf("Parse error lacks %s: %s\ngot:\n%v", tc.field, tc.message, err)
		})
	}
}

// TestScrubKeepsModelContent: names that look like credentials inside
// model content are data, and shapes that are not credentials are kept,
// byte for byte, and Load does not refuse them.
func TestScrubKeepsModelContent(t *testing.T) {
	tests := []struct {
		reason string
		in     *vcr.Interaction
	}{
		{"an Anthropic tool_use input with key, token and password arguments",
			interactionWith(func(in *vcr.Interaction) { in.Response.Body = toolArgsResponse })},
		{"an OpenAI tool call whose arguments are named key and secret",
			interactionWith(func(in *vcr.Interaction) {
				in.Response.Body = `{"choices":[{"message":{"tool_calls":[{"id":"c1","type":"function","function":{"name":"get","arguments":"{\"key\":\"abc\",\"secret\":\"s\"}"}}]}}]}`
			})},
		{"the same arguments sent back in the next request, with a signature",
			interactionWith(func(in *vcr.Interaction) {
				in.Request.Body = `{"model":"m","max_tokens":100,"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"EqQBCkYIBxgCKkBr7wNVh0s1dK4AbC9+xYz/Q=="},{"type":"tool_use","id":"toolu_1","name":"lookup","input":{"key":"abc","auth":"x"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"found"}]}]}`
			})},
		{"a tool schema with properties named password and api_key",
			interactionWith(func(in *vcr.Interaction) {
				in.Request.Body = `{"model":"m","tools":[{"name":"login","input_schema":{"type":"object","properties":{"password":{"type":"string"},"api_key":{"type":"string"}}}}]}`
			})},
		{"rate-limit and idempotency headers end in tokens and key but are not credentials",
			interactionWith(func(in *vcr.Interaction) {
				in.Request.Headers.Set("Idempotency-Key", "stainless-retry-1")
				in.Response.Headers.Set("Anthropic-Ratelimit-Tokens-Limit", "80000")
				in.Response.Headers.Set("X-Ratelimit-Remaining-Tokens", "79000")
			})},
		{"a pagination token and an API version in the query",
			interactionWith(func(in *vcr.Interaction) { in.Request.URL += "?api-version=2024-06-01&page_token=abc" })},
		{"prose about passwords is not a credential",
			interactionWith(func(in *vcr.Interaction) {
				in.Response.Body = `{"content":"set password=hunter2 and the token to the key"}`
			})},
		{"a text body with an equals sign and spaces is not a form",
			interactionWith(func(in *vcr.Interaction) { in.Response.Body = "password = hunter2\n" })},
		{"a stream of deltas",
			interactionWith(func(in *vcr.Interaction) {
				in.Response.Body = "event: content_block_delta\ndata: {\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"key\\\": \\\"abc\\\"}\"}}\n\n"
			})},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			got := Scrub(tc.in)
			if got.Request.Body != tc.in.Request.Body || got.Response.Body != tc.in.Response.Body || got.Request.URL != tc.in.Request.URL {
				t.Errorf("Scrub changed model content:\nrequest  %q\n      -> %q\nresponse %q\n      -> %q\nurl %q -> %q",
					tc.in.Request.Body, got.Request.Body, tc.in.Response.Body, got.Response.Body, tc.in.Request.URL, got.Request.URL)
			}
			for _, h := range []struct{ want, got http.Header }{{tc.in.Request.Headers, got.Request.Headers}, {tc.in.Response.Headers, got.Response.Headers}} {
				for k := range h.want {
					if h.want.Get(k) != h.got.Get(k) {
						t.Errorf("Scrub changed header %s: %q -> %q", k, h.want.Get(k), h.got.Get(k))
					}
				}
			}
			data, err := (&Cassette{Interactions: []*vcr.Interaction{tc.in}}).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Parse("c.yaml", data); err != nil {
				t.Errorf("Parse = %v, want a clean cassette", err)
			}
		})
	}
}

// TestDocListsEveryCredentialPattern keeps the table in doc.go in step
// with credentialPatterns.
func TestDocListsEveryCredentialPattern(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range credentialPatterns {
		if !strings.Contains(string(doc), "//\t  "+p.kind+" ") {
			t.Errorf("doc.go's credential table lacks %q", p.kind)
		}
	}
}
