package cassette

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// flakyServer answers its first good requests like echoServer, then
// breaks every later request the way fail says.
func flakyServer(t *testing.T, good int32, fail string) *httptest.Server {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= good {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"ok":true}`))
			return
		}
		switch fail {
		case "drop": // the connection closes before any response
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case "truncate": // a body shorter than its Content-Length
			w.Header().Set("Content-Length", "100")
			w.Write([]byte(`{"partial":`))
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// refusedURL is the address of a listener that was closed: connecting to
// it is refused.
func refusedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestFailedRecordingWritesNothing(t *testing.T) {
	earlier := []byte("---\nversion: 1\ninteractions:\n- request:\n    body: '{\"q\":0}'\n    url: http://127.0.0.1:1/v1/x\n    method: POST\n  response:\n    body: '{\"old\":true}'\n    code: 200\n    duration: 0s\n")
	tests := []struct {
		reason string
		mode   Mode
		// url returns where the requests go; requests is how many are made
		url      func(t *testing.T) string
		requests int
		earlier  bool
	}{
		{"the server refuses the connection: no cassette appears", ModeRecord, refusedURL, 1, false},
		{"a refused connection leaves the earlier cassette byte for byte", ModeRecord, refusedURL, 1, true},
		{"the server drops the connection mid-scenario after one good answer", ModeRecord, func(t *testing.T) string { return flakyServer(t, 1, "drop").URL }, 3, true},
		{"a response body cut short mid-scenario", ModeRecord, func(t *testing.T) string { return flakyServer(t, 1, "truncate").URL }, 2, false},
		{"replay-or-record: a failed new recording leaves the file as it was", ModeReplayOrRecord, func(t *testing.T) string { return flakyServer(t, 1, "drop").URL }, 3, true},
		{"record mode with no request at all writes no empty cassette", ModeRecord, refusedURL, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			if tc.earlier {
				if err := os.WriteFile(path, earlier, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rec, err := Open(path, Options{Mode: tc.mode, Overwrite: true, Now: fakeNow()})
			if err != nil {
				t.Fatal(err)
			}
			url := tc.url(t)
			failed := false
			for i := 0; i < tc.requests; i++ {
				if _, err := post(t, rec.Client(), url+"/v1/x", `{"q":`+string(rune('1'+i))+`}`); err != nil {
					failed = true
				}
			}
			if tc.requests > 0 && !failed {
				t.Fatal("no request failed: the test server did not break")
			}
			if err := rec.Stop(); !errors.Is(err, ErrRecordingFailed) {
				t.Errorf("Stop() = %v, want ErrRecordingFailed", err)
			}
			got, err := os.ReadFile(path)
			switch {
			case tc.earlier && !bytes.Equal(got, earlier):
				t.Errorf("the earlier cassette changed (err %v):\n%s", err, got)
			case !tc.earlier && !errors.Is(err, os.ErrNotExist):
				t.Errorf("a cassette was written: %q (err %v)", got, err)
			}
			leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
			if len(leftovers) > 0 {
				t.Errorf("temporary files left behind: %v", leftovers)
			}
		})
	}
}

func TestDiscardWritesNothing(t *testing.T) {
	srv, _ := echoServer(t)
	path := filepath.Join(t.TempDir(), "c.yaml")
	rec, err := Open(path, Options{Mode: ModeRecord, Now: fakeNow()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := post(t, rec.Client(), srv.URL+"/v1/x", `{"q":1}`); err != nil {
		t.Fatal(err)
	}
	// the run failed after a good request: what was recorded is not what
	// a complete run does
	if err := rec.Finish(errors.New("the scenario failed")); err != nil {
		t.Errorf("Finish(failed run) = %v, want nil: nothing went wrong in the recorder", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat after a discarded recording = %v, want no file", err)
	}
	if err := rec.Stop(); err != nil {
		t.Errorf("Stop after Discard = %v, want nil (idempotent)", err)
	}
}

func TestReplayOrRecordRecordsOverAnEmptyCassette(t *testing.T) {
	srv, _ := echoServer(t)
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("version: 1\ninteractions: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{Mode: ModeReplay}); !errors.Is(err, ErrCassetteEmpty) {
		t.Errorf("Open(replay, empty) = %v, want ErrCassetteEmpty", err)
	}
	rec, err := Open(path, Options{Mode: ModeReplayOrRecord, Now: fakeNow()})
	if err != nil {
		t.Fatalf("Open(replay-or-record, empty) = %v, want it taken as missing", err)
	}
	if _, err := post(t, rec.Client(), srv.URL+"/v1/x", `{"q":1}`); err != nil {
		t.Fatal(err)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(path); err != nil || len(c.Interactions) != 1 {
		t.Errorf("Load = %v, %v; want one interaction", c, err)
	}
}

// TestRecordingRefusesBodiesOverTheLimit: a provider's answer longer than
// Limits.MaxBodyBytes fails the recording, whole or streamed, instead of
// being held in memory however long it is; nothing is written. Before, a
// whole body was read with no bound.
func TestRecordingRefusesBodiesOverTheLimit(t *testing.T) {
	big := `{"text":"` + strings.Repeat("x", 2048) + `"}`
	tests := []struct {
		reason, contentType, body string
		// want is in the request's error (whole bodies) or Stop's
		want string
	}{
		{"a whole body past the limit fails the request, naming the limit", "application/json", big,
			"read response body: the body is longer than 1024 bytes, the body limit (Limits.MaxBodyBytes)"},
		{"a stream past the limit fails the recording", "text/event-stream", "data: " + big + "\n\ndata: [DONE]\n\n",
			"read the streamed response: the stream is longer than 1024 bytes, the body limit (Limits.MaxBodyBytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.Write([]byte(tc.body))
			}))
			t.Cleanup(srv.Close)
			path := filepath.Join(t.TempDir(), "c.yaml")
			rec, err := Open(path, Options{Mode: ModeRecord, Now: fakeNow(), Limits: Limits{MaxBodyBytes: 1024}})
			if err != nil {
				t.Fatal(err)
			}
			_, reqErr := post(t, rec.Client(), srv.URL+"/v1/x", `{"q":1}`)
			stopErr := rec.Stop()
			if !errors.Is(stopErr, ErrRecordingFailed) {
				t.Errorf("Stop() = %v, want ErrRecordingFailed", stopErr)
			}
			if got := fmt.Sprint(reqErr, stopErr); !strings.Contains(got, tc.want) {
				t.Errorf("errors %q, want one containing %q", got, tc.want)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Stat after a refused recording = %v, want no cassette", err)
			}
		})
	}
}
