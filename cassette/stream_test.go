package cassette

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sseEvents is a small event stream, as a provider sends it.
var sseEvents = []string{
	"event: message_start\ndata: {\"type\":\"message_start\"}\n\n",
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"hi\"}}   \n\n",
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
}

// sseServer streams sseEvents, each flushed; with cut it drops the
// connection after the first.
func sseServer(t *testing.T, cut bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, ev := range sseEvents {
			w.Write([]byte(ev))
			w.(http.Flusher).Flush()
			if cut && i == 0 {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRecordStream records streamed responses, which reach the client
// as they arrive and are stored whole when they end.
func TestRecordStream(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		cut    bool
		// read is what the client does with the body.
		read func(io.Reader) error
		// wantErr is in Stop's error; "" means the recording is written.
		wantErr string
	}{
		{
			name:   "read to the end",
			reason: "the usual client: the stream is stored byte for byte",
			read:   func(r io.Reader) error { _, err := io.ReadAll(r); return err },
		},
		{
			name:   "closed early",
			reason: "a client that stops reading before the end (an SDK stops at data: [DONE], before EOF): the rest is read for it, so the recording is whole",
			read: func(r io.Reader) error {
				buf := make([]byte, len(sseEvents[0]))
				_, err := io.ReadFull(r, buf)
				return err
			},
		},
		{
			name:    "broken off",
			reason:  "a stream that ends before the provider finished is no recording",
			cut:     true,
			read:    func(r io.Reader) error { io.ReadAll(r); return nil },
			wantErr: "read the streamed response",
		},
		{
			name:    "never closed",
			reason:  "a body still open at Stop would be stored after the file was written: refused",
			read:    nil,
			wantErr: "streamed responses were still being read",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := sseServer(t, tc.cut)
			path := filepath.Join(t.TempDir(), "s.yaml")
			rec, err := Open(path, Options{Mode: ModeRecord})
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest("POST", srv.URL+"/v1/messages", strings.NewReader(`{"stream":true}`))
			req.Header.Set("X-Api-Key", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789")
			resp, err := rec.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if tc.read != nil {
				if err := tc.read(resp.Body); err != nil {
					t.Fatalf("%s\nread: %v", tc.reason, err)
				}
				resp.Body.Close()
			}
			err = rec.Stop()
			if tc.read == nil {
				resp.Body.Close()
			}
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrRecordingFailed) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nStop() = %v, want ErrRecordingFailed saying %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nStop: %v", tc.reason, err)
			}
			c, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := c.Interactions[0].Response.Body, strings.Join(sseEvents, ""); got != want {
				t.Errorf("%s\nrecorded body %q, want %q", tc.reason, got, want)
			}
			if h := c.Interactions[0].Request.Headers.Get("X-Api-Key"); h != "REDACTED" {
				t.Errorf("recorded key header %q, want REDACTED", h)
			}
		})
	}
}

// TestRecordStreamPassesEventsThrough checks that a streamed response is
// not held back: the client reads the first event while the provider
// waits to send the second until the client has it.
func TestRecordStreamPassesEventsThrough(t *testing.T) {
	next := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, ev := range sseEvents {
			w.Write([]byte(ev))
			w.(http.Flusher).Flush()
			if i == 0 {
				select {
				case <-next:
				case <-r.Context().Done():
					return
				}
			}
		}
	}))
	defer srv.Close()
	rec, err := Open(filepath.Join(t.TempDir(), "s.yaml"), Options{Mode: ModeRecord})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rec.Client().Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, len(sseEvents[0]))
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatal(err)
	}
	close(next)
	rest, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(first) + string(rest); got != strings.Join(sseEvents, "") {
		t.Errorf("the client read %q", got)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Cassette().Interactions); n != 1 || !bytes.Equal([]byte(rec.Cassette().Interactions[0].Response.Body), []byte(strings.Join(sseEvents, ""))) {
		t.Errorf("recorded %d interactions: %+v", n, rec.Cassette().Interactions)
	}
}

// TestRecordKeepsRequestOrder: an exchange is stored in the order its
// request was sent, not the order its answer ended. A client that stops
// reading a stream at "data: [DONE]" and sends its next request at once
// may see that answer end first (a command agent behind `agenteval
// serve` did, on a loaded CI machine); stored in the order they ended,
// the replay gave the agent its second answer first.
func TestRecordKeepsRequestOrder(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "text/event-stream")
			for _, ev := range sseEvents {
				w.Write([]byte(ev))
				w.(http.Flusher).Flush()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"answer":` + strconv.Quote(string(body)) + `}`))
	}))
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "s.yaml")
	rec, err := Open(path, Options{Mode: ModeRecord})
	if err != nil {
		t.Fatal(err)
	}
	send := func(body string) *http.Response {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/chat/completions", strings.NewReader(body))
		resp, err := rec.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	bodies := []string{`{"n":1,"stream":true}`, `{"n":2,"stream":true}`, `{"n":3}`}
	first := send(bodies[0])
	// the first stream's client has what it needs and goes on: the
	// second stream and a plain answer end before the first is closed
	second := send(bodies[1])
	io.ReadAll(second.Body)
	second.Body.Close()
	third := send(bodies[2])
	io.ReadAll(third.Body)
	third.Body.Close()
	first.Body.Close()
	calls := rec.Calls()
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interactions) != len(bodies) {
		t.Fatalf("%d interactions, want %d", len(c.Interactions), len(bodies))
	}
	for i, want := range bodies {
		if got := c.Interactions[i].Request.Body; got != want {
			t.Errorf("interaction %d is the request %s, want %s (the order the requests were sent)", i, got, want)
		}
	}
	// the calls, in the order they ended, name the interaction each made
	wantEnded := []int{1, 2, 0}
	for k, call := range calls {
		if call.Interaction != wantEnded[k] {
			t.Errorf("call %d names interaction %d, want %d", k, call.Interaction, wantEnded[k])
		}
	}
}
