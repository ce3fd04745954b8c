package cassette

import (
	"net/http"
	"strings"
	"testing"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
)

// TestScrubGeminiKeys: a Gemini request carries its API key in the
// x-goog-api-key header or in the key query parameter; neither reaches a
// cassette, whatever the key's shape (a real one starts with AIza, a
// test one need not).
func TestScrubGeminiKeys(t *testing.T) {
	t.Parallel()
	const plain = "my-gemini-test-key-123"
	for _, key := range []string{plain, fakeGoogleKey} {
		in := &vcr.Interaction{}
		in.Request.Method = "POST"
		in.Request.URL = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=" + key
		in.Request.Headers = http.Header{"X-Goog-Api-Key": {key}, "Content-Type": {"application/json"}}
		in.Request.Body = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
		out := Scrub(in)
		if got := out.Request.Headers.Get("X-Goog-Api-Key"); got != Redacted {
			t.Errorf("key %s: x-goog-api-key is %q, want %q", key, got, Redacted)
		}
		if strings.Contains(out.Request.URL, key) || !strings.Contains(out.Request.URL, "alt=sse") {
			t.Errorf("key %s: the URL is %q: want the key gone and alt=sse kept", key, out.Request.URL)
		}
		if h := ScrubHeaders(in.Request.Headers).Get("X-Goog-Api-Key"); h == key {
			t.Errorf("key %s: ScrubHeaders keeps x-goog-api-key", key)
		}
		if u := ScrubURL(in.Request.URL); strings.Contains(u, key) {
			t.Errorf("key %s: ScrubURL keeps the key: %s", key, u)
		}
	}
}
