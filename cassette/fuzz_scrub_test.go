package cassette

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// seedBodies are bodies with and without credentials, of every shape the
// scrubber reads: JSON, form, stream, text.
func seedBodies() []string {
	out := []string{
		"", "{}", "[]", `"x"`, "a=1&b=2", "password = hunter2\n",
		toolArgsResponse,
		`{"api_key":"hunter2","messages":[{"role":"user","content":"` + fakeOpenAIKey + `"}]}`,
		`{"grant_type":"authorization_code","code":"abc","password":123}`,
		"grant_type=password&username=u&password=987654&client_secret=s3",
		"data: {\"t\":\"" + fakeHF + "\"}\n\ndata: [DONE]\n\n",
		`{"function":{"arguments":"{\"key\":\"abc\",\"token\":\"` + fakeJWT + `\"}"}}`,
		`{"k":"` + strings.ReplaceAll(fakePEM, "\n", `\n`) + `"}`,
		"Authorization: " + fakeBearer,
		strings.Repeat("[", 20) + strings.Repeat("]", 20),
	}
	for _, tc := range credentialCases {
		out = append(out, tc.in.Request.Body, tc.in.Response.Body)
	}
	return out
}

// FuzzScrub checks the scrubber's contract on any input: Scrub leaves the
// live interaction alone; what it returns holds nothing the check would
// refuse (scrubbed on save means clean on load); scrubbing twice changes
// nothing more; and an interaction the check finds clean comes back
// unchanged, byte for byte. A project's additions (Scrubbing: a header
// name, a secret value) are part of the input, and the contract holds
// with them.
func FuzzScrub(f *testing.F) {
	for _, b := range seedBodies() {
		f.Add("X-Api-Key", "v", "https://api.example.com/v1/x?a=1", b, "k", "v", "X-Custom-Auth", "s3cr3t-v4lu3-0f-th3-3nv")
	}
	for _, tc := range credentialCases {
		for k, vs := range tc.in.Request.Headers {
			f.Add(k, vs[0], tc.in.Request.URL, tc.in.Request.Body, "password", "1", "", "")
		}
	}
	f.Add("Anthropic-Api-Key", "abc", "https://u:p@x/oauth?code=abc&state=1", "x=1", "client_secret", "s", "", "")
	f.Add("X-Custom-Auth", "opaque-4f9a", "https://x/y?q=my-db-p4ssw0rd-9", `{"dsn":"my-db-p4ssw0rd-9"}`, "k", "v", "x_custom_auth", "my-db-p4ssw0rd-9")
	f.Fuzz(func(t *testing.T, hname, hvalue, rawURL, body, fkey, fval, xheader, secret string) {
		if strings.ContainsAny(secret, "REDACT") {
			// a secret that overlaps REDACTED could be remade by its own
			// replacement; a real one is random text, not a fuzzer's
			return
		}
		extra := &Scrubbing{Headers: []string{xheader}, Values: SecretValues(secret)}
		in := &vcr.Interaction{
			Request: vcr.Request{
				Method:  "POST",
				URL:     rawURL,
				Body:    body,
				Headers: http.Header{hname: {hvalue}},
				Form:    url.Values{fkey: {fval}},
			},
			Response: vcr.Response{Code: 200, Body: body, Headers: http.Header{hname: {hvalue}}},
		}
		before := *in
		before.Request.Headers = in.Request.Headers.Clone()
		before.Request.Form = url.Values{fkey: {fval}}
		once := extra.Scrub(in)
		opts := []cmp.Option{cmpopts.IgnoreUnexported(vcr.Response{}), cmpopts.EquateEmpty()}
		if diff := cmp.Diff(&before, in, opts...); diff != "" {
			t.Fatalf("Scrub changed the live interaction (-before +after):\n%s", diff)
		}
		if ps := scanInteraction("f", once, "i", func(string) int { return 0 }, extra); len(ps) > 0 {
			t.Fatalf("the scrubbed interaction still holds credentials: %v\n%+v", ps, once)
		}
		if diff := cmp.Diff(once, extra.Scrub(once), opts...); diff != "" {
			t.Fatalf("Scrub is not idempotent (-once +twice):\n%s", diff)
		}
		if len(scanInteraction("f", in, "i", func(string) int { return 0 }, extra)) == 0 {
			if diff := cmp.Diff(in, once, opts...); diff != "" {
				t.Fatalf("Scrub changed an interaction the check finds clean (-in +scrubbed):\n%s", diff)
			}
		}
	})
}

// FuzzCanonicalBody checks that matching scrubs both sides alike: a live
// request body has the canonical form of its scrubbed recording, so a
// request carrying a live key matches the redacted cassette, and
// canonicalising never panics.
func FuzzCanonicalBody(f *testing.F) {
	for _, b := range seedBodies() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) {
		live, liveJSON := CanonicalBody(body, nil)
		saved, savedJSON := CanonicalBody(ScrubBody(body), nil)
		if live != saved || liveJSON != savedJSON {
			t.Fatalf("a body and its scrubbed copy canonicalise differently:\nbody   %q\nscrub  %q\nlive:\n%s\nsaved:\n%s", body, ScrubBody(body), live, saved)
		}
	})
}

// FuzzDecodeBody checks gzip and deflate decoding against the standard
// readers: the same bytes when they fit the limit, an error when they do
// not, never more than the limit held, never a panic.
func FuzzDecodeBody(f *testing.F) {
	compress := func(enc string, s string) string {
		var b bytes.Buffer
		var w io.WriteCloser
		if enc == "deflate" {
			w = zlib.NewWriter(&b)
		} else {
			w = gzip.NewWriter(&b)
		}
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	for _, enc := range []string{"gzip", "deflate"} {
		for _, s := range []string{"", `{"ok":true}`, strings.Repeat("a", 5000)} {
			f.Add(enc, compress(enc, s))
		}
		f.Add(enc, "not encoded")
	}
	f.Add("gzip", compress("gzip", "a")+compress("gzip", "b"))
	f.Add("gzip", compress("gzip", "abc")[:10])
	f.Add("x-gzip", compress("gzip", "x"))
	f.Add("br", "x")
	const limit = 4096
	f.Fuzz(func(t *testing.T, enc, body string) {
		got, h, err := decodeBody(body, http.Header{"Content-Encoding": {enc}}, limit)
		if err == nil && int64(len(got)) > limit {
			t.Fatalf("decoded %d bytes past the limit %d", len(got), limit)
		}
		norm := strings.ToLower(strings.TrimSpace(enc))
		var r io.ReadCloser
		var rerr error
		switch {
		case (norm == "gzip" || norm == "x-gzip") && strings.HasPrefix(body, "\x1f\x8b"):
			r, rerr = gzip.NewReader(strings.NewReader(body))
		case norm == "deflate" && len(body) >= 2 && body[0]&0x0f == 8:
			r, rerr = zlib.NewReader(strings.NewReader(body))
		default:
			return // not encoded, or an encoding decodeBody refuses
		}
		var want []byte
		if rerr == nil {
			want, rerr = io.ReadAll(io.LimitReader(r, limit+1))
		}
		switch {
		case rerr == nil && len(want) <= limit:
			if err != nil {
				t.Fatalf("decodeBody refused a body the standard reader decodes: %v", err)
			}
			if got != string(want) {
				t.Fatalf("decodeBody = %q, the standard reader %q", got, want)
			}
			if h.Get("Content-Encoding") != "" {
				t.Fatalf("Content-Encoding left after decoding: %v", h)
			}
		case err == nil:
			t.Fatalf("decodeBody accepted a body the standard reader refuses or that passes the limit (%v, %d bytes)", rerr, len(want))
		}
	})
}
