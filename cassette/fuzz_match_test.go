package cassette

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
)

// FuzzMatch checks request matching on any recorded request and any live
// one: replay never panics and never dials; a request that is the
// recorded one, byte for byte, is answered with the recorded response;
// one whose key matches is answered, each interaction once; any other
// request is a *MissError (ErrInteractionNotFound) that names the
// closest recorded request and at least one difference, whatever the
// URLs and bodies hold (bad escapes, deep or broken JSON, credentials).
func FuzzMatch(f *testing.F) {
	const url = "https://api.openai.com/v1/chat/completions"
	bodies := seedBodies()
	for i, b := range bodies {
		f.Add("POST", url, b, "POST", url, b, "")
		f.Add("POST", url, b, "POST", url, bodies[(i+1)%len(bodies)], "messages.0.content")
	}
	f.Add("GET", url+"?a=1&b=2", "", "GET", url+"?b=2&a=1", "", "")
	f.Add("POST", url, `{"a":1.0,"b":[1,2]}`, "POST", url, `{"b":[1,2],"a":1}`, "")
	f.Add("POST", url, `{"a":1}`, "post", url+"?key="+fakeOpenAIKey, `{"a":2}`, "a")
	f.Add("POST", "%zz", "x", "POST", "http://h/%zz", "x", "")
	f.Add("POST", url, strings.Repeat("[", 20000), "POST", url, strings.Repeat("[", 20000), "")
	f.Fuzz(func(t *testing.T, recMethod, recURL, recBody, method, reqURL, body, ignore string) {
		if !validMethod(method) {
			return // net/http refuses it before any matching
		}
		req, err := http.NewRequest(method, reqURL, strings.NewReader(body))
		if err != nil {
			return // not a request a client could send
		}
		in := &vcr.Interaction{
			Request:  vcr.Request{Method: recMethod, URL: recURL, Body: recBody},
			Response: vcr.Response{Code: 200, Status: "200 OK", Body: "recorded", Headers: http.Header{}},
		}
		r := Replay(&Cassette{Path: "fuzz.yaml", Interactions: []*vcr.Interaction{in}}, Options{IgnoreFields: strings.Fields(ignore)})
		same := recMethod == method && recURL == reqURL && recBody == body
		resp, err := r.RoundTrip(req)
		if err != nil {
			var miss *MissError
			if !errors.As(err, &miss) || !errors.Is(err, ErrInteractionNotFound) {
				t.Fatalf("RoundTrip error %v (%T) is not a *MissError", err, err)
			}
			if same {
				t.Fatalf("the recorded request itself missed: %v", err)
			}
			if miss.Closest == nil || len(miss.Closest.Differences) == 0 {
				t.Fatalf("a miss names no closest request or no difference: %v", err)
			}
			_ = err.Error()
			return
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != "recorded" {
			t.Fatalf("matched, but answered %q", got)
		}
		// an interaction answers once
		again, _ := http.NewRequest(method, reqURL, strings.NewReader(body))
		if _, err := r.RoundTrip(again); !errors.Is(err, ErrInteractionNotFound) {
			t.Fatalf("the one interaction answered twice: %v", err)
		}
	})
}

// validMethod reports whether m is a method net/http sends: a token.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, c := range m {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?={}`, c) {
			return false
		}
	}
	return true
}
