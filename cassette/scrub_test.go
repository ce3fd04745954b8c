package cassette

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
	"github.com/google/go-cmp/cmp"
)

// Fake credentials, shaped like real ones.
const (
	fakeOpenAIKey    = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"
	fakeAnthropicKey = "sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-abcdefgh"
	fakeGoogleKey    = "AIzaSyA1234567890abcdefghijklmnopqrstuv"
)

func TestScrubLeavesTheLiveInteractionAlone(t *testing.T) {
	live := &vcr.Interaction{
		Request: vcr.Request{
			Method:  "POST",
			URL:     "https://generativelanguage.googleapis.com/v1beta/models?key=" + fakeGoogleKey,
			Body:    `{"model":"gpt-4o","api_key":"hunter2","messages":[{"role":"user","content":"my key is ` + fakeOpenAIKey + `"}]}`,
			Headers: http.Header{"Authorization": {"Bearer " + fakeOpenAIKey}, "X-Api-Key": {fakeAnthropicKey}, "Accept": {"application/json"}},
		},
		Response: vcr.Response{
			Code:    200,
			Body:    `{"ok":true}`,
			Headers: http.Header{"Set-Cookie": {"__cf_bm=abc; path=/"}, "Content-Type": {"application/json"}},
		},
	}
	before := *live
	beforeHeaders := live.Request.Headers.Clone()
	got := Scrub(live)
	if diff := cmp.Diff(beforeHeaders, live.Request.Headers); diff != "" {
		t.Errorf("Scrub changed the live request headers (-before +after):\n%s", diff)
	}
	if live.Request.URL != before.Request.URL || live.Request.Body != before.Request.Body {
		t.Errorf("Scrub changed the live request")
	}
	want := &vcr.Interaction{
		Request: vcr.Request{
			Method:  "POST",
			URL:     "https://generativelanguage.googleapis.com/v1beta/models?key=REDACTED",
			Body:    `{"model":"gpt-4o","api_key":"REDACTED","messages":[{"role":"user","content":"my key is REDACTED"}]}`,
			Headers: http.Header{"Authorization": {"REDACTED"}, "X-Api-Key": {"REDACTED"}, "Accept": {"application/json"}},
		},
		Response: vcr.Response{
			Code:    200,
			Body:    `{"ok":true}`,
			Headers: http.Header{"Set-Cookie": {"REDACTED"}, "Content-Type": {"application/json"}},
		},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(vcr.Response{})); diff != "" {
		t.Errorf("Scrub mismatch (-want +got):\n%s", diff)
	}
}

func TestScrubBodyKeepsCleanBodiesByteForByte(t *testing.T) {
	for _, body := range []string{
		`{"b": 1,   "a": [1, 2.50]}`,
		"data: {\"x\":1}\n\ndata: [DONE]\n\n",
		`{"id":"toolu_01DYJo37oETVsCdLTTcCWcdq","task-list":"risk-assessment-of-the-quarterly-plan"}`,
		`{"max_tokens": 100, "tokens": 3}`,
	} {
		if got := ScrubBody(body); got != body {
			t.Errorf("ScrubBody(%q) = %q, want it unchanged", body, got)
		}
	}
}

func TestLoadRefusesCredentials(t *testing.T) {
	tests := []struct {
		reason, cassette, want string
	}{
		{"an auth header", `
version: 1
interactions:
    - request:
        headers:
            Authorization:
                - Bearer ` + fakeOpenAIKey + `
        url: https://api.openai.com/v1/chat/completions
        method: POST
      response:
        code: 200
`, "c.yaml:6: interactions[0].request.headers.Authorization: credential header Authorization is not redacted"},
		{"a key in the body", `
version: 1
interactions:
    - request:
        body: '{"messages":[{"role":"user","content":"` + fakeAnthropicKey + `"}]}'
        url: https://api.anthropic.com/v1/messages
        method: POST
      response:
        code: 200
`, "c.yaml:5: interactions[0].request.body: holds an Anthropic API key (sk-ant-...)"},
		{"a key in the query", `
version: 1
interactions:
    - request:
        url: https://example.com/v1/chat?api_key=abc
        method: POST
      response:
        code: 200
`, "c.yaml:5: interactions[0].request.url: query parameter api_key holds a credential"},
		{"a cookie in the response", `
version: 1
interactions:
    - request:
        url: https://example.com/v1/chat
        method: POST
      response:
        headers:
            Set-Cookie:
                - session=1234
        code: 200
`, "c.yaml:9: interactions[0].response.headers.Set-Cookie: credential header Set-Cookie is not redacted"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tc.cassette))
			if !errors.Is(err, ErrCredential) {
				t.Errorf("Parse = %v, want ErrCredential", err)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse error = %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
