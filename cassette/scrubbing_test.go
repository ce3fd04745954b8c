package cassette

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
)

// envSecret is a credential of no known shape, as a project's own
// service issues them: only the environment says it is one.
const envSecret = "opaque-db-passw0rd-4f9a"

// TestScrubbing checks what a project adds to the credential table: each
// case holds a credential the table alone misses, which the Scrubbing
// scrubs (nothing of it left), notes at its field, and which a second
// scrub finds clean.
func TestScrubbing(t *testing.T) {
	t.Parallel()
	extra := &Scrubbing{Headers: []string{"X-Service-Pass"}, Values: SecretValues(envSecret, "short")}
	tests := []struct {
		name, reason string
		in           *vcr.Interaction
		field, msg   string
	}{
		{"named header", "a header the project names carries a credential of no known shape",
			interactionWith(func(in *vcr.Interaction) { in.Request.Headers.Set("X-Service-Pass", "hunter2-but-longer") }),
			"request.headers.X-Service-Pass", "credential header X-Service-Pass is not redacted"},
		{"named header, other spelling", "header names compare in lower case with '-' read as '_', as the table's do",
			interactionWith(func(in *vcr.Interaction) { in.Request.Headers["x_service_pass"] = []string{"hunter2-but-longer"} }),
			"request.headers.x_service_pass", "credential header X_service_pass is not redacted"},
		{"env value in a header", "the environment's secret echoed in an unnamed header",
			interactionWith(func(in *vcr.Interaction) { in.Response.Headers.Set("X-Debug", "dsn user:"+envSecret) }),
			"response.headers.X-Debug", "holds the value of a credential variable of the environment"},
		{"env value in the query", "in a query parameter whose name says nothing",
			interactionWith(func(in *vcr.Interaction) { in.Request.URL += "?q=" + envSecret }),
			"request.url", "holds the value of a credential variable of the environment"},
		{"env value deep in a JSON body", "in a tool result: a name deeper in a body is content, the value is still a secret",
			interactionWith(func(in *vcr.Interaction) {
				in.Request.Body = `{"messages":[{"role":"tool","content":"connected with ` + envSecret + `"}]}`
			}),
			"request.body", "holds the value of a credential variable of the environment"},
		{"env value in a response body", "echoed by the server",
			interactionWith(func(in *vcr.Interaction) { in.Response.Body = "error: bad password " + envSecret }),
			"response.body", "holds the value of a credential variable of the environment"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if ps := scanInteraction("c.yaml", tc.in, "i", func(string) int { return 0 }, nil); len(ps) != 0 {
				t.Fatalf("%s: the table alone already finds %v: the case tests nothing", tc.reason, ps)
			}
			ps := scanInteraction("c.yaml", tc.in, "i", func(string) int { return 0 }, extra)
			if len(ps) != 1 || ps[0].Field != "i."+tc.field || ps[0].Message != tc.msg || !ps[0].Secret {
				t.Errorf("%s: the check found %+v, want one secret at i.%s: %s", tc.reason, ps, tc.field, tc.msg)
			}
			out := extra.Scrub(tc.in)
			data, err := (&Cassette{Interactions: []*vcr.Interaction{out}}).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), envSecret) || strings.Contains(string(data), "hunter2") {
				t.Errorf("%s: the scrubbed interaction still holds the secret:\n%s", tc.reason, data)
			}
			if ps := scanInteraction("c.yaml", out, "i", func(string) int { return 0 }, extra); len(ps) != 0 {
				t.Errorf("%s: the scrubbed interaction is refused: %v", tc.reason, ps)
			}
		})
	}
	if got := extra.Text("log: short " + envSecret + " " + fakeOpenAIKey); got != "log: short REDACTED REDACTED" {
		t.Errorf("Text = %q: want the secret value and the key shape redacted, and a value shorter than MinSecretBytes kept", got)
	}
}

// TestScrubbingRecordAndOpen records through a Recorder with Scrubbing:
// the saved file holds neither the header nor the value; and opens a
// file that holds them: refused, naming file:line: field, wrapping
// ErrCredential, although the table alone finds it clean.
func TestScrubbingRecordAndOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scrubbing := Scrubbing{Headers: []string{"X-Custom-Pass"}, Values: []string{envSecret}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"echo":"` + envSecret + `"}`))
	}))
	defer ts.Close()
	srv := ts.URL
	path := filepath.Join(dir, "rec.yaml")
	rec, err := Open(path, Options{Mode: ModeRecord, Scrubbing: scrubbing})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", srv+"/v1/x?dsn="+envSecret, strings.NewReader(`{"password_hint":"`+envSecret+`"}`))
	req.Header.Set("X-Custom-Pass", "plain-pass-77")
	resp, err := rec.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), envSecret) || strings.Contains(string(data), "plain-pass-77") {
		t.Errorf("the recorded cassette holds a secret:\n%s", data)
	}
	if _, err := Open(path, Options{Scrubbing: scrubbing}); err != nil {
		t.Errorf("Open(the scrubbed recording) = %v, want it to replay", err)
	}

	leaky := filepath.Join(dir, "leaky.yaml")
	src := strings.ReplaceAll(string(data), "REDACTED", envSecret)
	if err := os.WriteFile(leaky, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(leaky); err != nil {
		t.Fatalf("Load (the table alone) = %v: the file should hold nothing it knows", err)
	}
	_, err = Open(leaky, Options{Scrubbing: scrubbing})
	if !errors.Is(err, ErrCredential) || !strings.Contains(err.Error(), "leaky.yaml:") ||
		!strings.Contains(err.Error(), "request.headers.X-Custom-Pass: credential header X-Custom-Pass is not redacted") ||
		!strings.Contains(err.Error(), "holds the value of a credential variable of the environment") {
		t.Errorf("Open(a file holding the project's secrets) = %v, want ErrCredential naming file:line: field", err)
	}
}

// TestScrubbingReplaysALiveSecret: a request that carries a secret value
// of the environment (a tool result sent back to the model) matches its
// recording, which holds the value as REDACTED, so a scenario recorded
// with the value scrubbed still replays.
func TestScrubbingReplaysALiveSecret(t *testing.T) {
	t.Parallel()
	scrubbing := Scrubbing{Values: []string{envSecret}}
	in := interactionWith(func(in *vcr.Interaction) {
		in.Request.Body = `{"messages":[{"role":"tool","content":"connected with ` + envSecret + `"}]}`
	})
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := (&Cassette{Interactions: []*vcr.Interaction{in}}).save(path, false, &scrubbing); err != nil {
		t.Fatal(err)
	}
	rec, err := Open(path, Options{Scrubbing: scrubbing})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", in.Request.URL, strings.NewReader(in.Request.Body))
	resp, err := rec.RoundTrip(req)
	if err != nil {
		t.Fatalf("replaying a request that carries the secret: %v", err)
	}
	resp.Body.Close()
}
