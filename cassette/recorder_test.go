package cassette

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// echoServer answers POST bodies with {"n":<call>,"echo":<body>} and
// counts its calls.
func echoServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		k := n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Set-Cookie", "session=s3cr3t; path=/")
		fmt.Fprintf(w, `{"n":%d,"echo":%q}`, k, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func fakeNow() func() time.Time {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var n atomic.Int64
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * 250 * time.Millisecond) }
}

func post(t *testing.T, c *http.Client, url, body string) (string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+fakeOpenAIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, b), err
}

func TestRecordThenReplay(t *testing.T) {
	srv, served := echoServer(t)
	path := filepath.Join(t.TempDir(), "cassettes", "echo.yaml")
	bodies := []string{`{"model":"m","messages":["a"]}`, `{"model":"m","messages":["b"]}`, `{"model":"m","messages":["a"]}`}

	rec, err := Open(path, Options{Mode: ModeRecord, Scenario: "echo", Now: fakeNow()})
	if err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for _, b := range bodies {
		out, err := post(t, rec.Client(), srv.URL+"/v1/chat/completions", b)
		if err != nil {
			t.Fatal(err)
		}
		recorded = append(recorded, out)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{fakeOpenAIKey, "s3cr3t"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("recorded file holds %q:\n%s", secret, data)
		}
	}
	if !strings.Contains(string(data), "duration: 250ms") {
		t.Errorf("recorded file lacks the recorded latency:\n%s", data)
	}

	// Replay: another server address, no network, same answers, in order.
	guard := &dialGuard{t: t}
	rep, err := Open(path, Options{Scenario: "echo", Transport: guard})
	if err != nil {
		t.Fatal(err)
	}
	var replayed []string
	for _, b := range bodies {
		out, err := post(t, rep.Client(), "http://127.0.0.1:1/v1/chat/completions", b)
		if err != nil {
			t.Fatal(err)
		}
		replayed = append(replayed, out)
	}
	if strings.Join(recorded, "\n") != strings.Join(replayed, "\n") {
		t.Errorf("replay differs from recording:\nrecorded:\n%s\nreplayed:\n%s", strings.Join(recorded, "\n"), strings.Join(replayed, "\n"))
	}
	if served.Load() != 3 || guard.calls.Load() != 0 {
		t.Errorf("server saw %d calls, guard %d; want 3 and 0", served.Load(), guard.calls.Load())
	}
	calls := rep.Calls()
	if len(calls) != 3 || calls[0].Interaction != 0 || calls[1].Interaction != 1 || calls[2].Interaction != 2 || calls[0].Duration != 250*time.Millisecond {
		t.Errorf("Calls() = %+v", calls)
	}
	if u := rep.Unused(); len(u) != 0 {
		t.Errorf("Unused() = %v, want none", u)
	}

	// A fourth identical request finds every matching interaction used.
	_, err = post(t, rep.Client(), "http://127.0.0.1:1/v1/chat/completions", bodies[0])
	var miss *MissError
	if !errors.As(err, &miss) || !errors.Is(err, ErrInteractionNotFound) {
		t.Fatalf("fourth request: %v, want a *MissError", err)
	}
	if miss.Closest == nil || !miss.Closest.Used || !strings.Contains(err.Error(), "already replayed") {
		t.Errorf("miss should point at the used interaction: %v", err)
	}
}

func TestReplayMissShowsNearestRequest(t *testing.T) {
	srv, _ := echoServer(t)
	path := filepath.Join(t.TempDir(), "weather.yaml")
	rec, err := Open(path, Options{Mode: ModeRecord, Now: fakeNow()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := post(t, rec.Client(), srv.URL+"/v1/chat/completions", `{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"weather in Paris?"}]}`); err != nil {
		t.Fatal(err)
	}
	if _, err := post(t, rec.Client(), srv.URL+"/v1/embeddings", `{"input":"x"}`); err != nil {
		t.Fatal(err)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}

	rep, err := Open(path, Options{Scenario: "weather", Transport: &dialGuard{t: t}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = post(t, rep.Client(), "http://localhost/v1/chat/completions", `{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"weather in London?"}]}`)
	var miss *MissError
	if !errors.As(err, &miss) {
		t.Fatalf("err = %v, want *MissError", err)
	}
	msg := miss.Error()
	for _, want := range []string{
		`cassette: scenario "weather": ` + path + `: POST http://localhost/v1/chat/completions: requested interaction not found`,
		"closest recorded request: interaction 0 at " + path + ":4: POST ",
		"differs in: body at messages[0].content[0].text",
		"body (-recorded +requested):",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("miss error lacks %q:\n%s", want, msg)
		}
	}
	var minus, plus bool
	for _, l := range strings.Split(msg, "\n") {
		minus = minus || strings.HasPrefix(l, "- ") && strings.TrimSpace(l[2:]) == `"text": "weather in Paris?"`
		plus = plus || strings.HasPrefix(l, "+ ") && strings.TrimSpace(l[2:]) == `"text": "weather in London?"`
	}
	if !minus || !plus {
		t.Errorf("miss diff lacks the -recorded/+requested text lines:\n%s", msg)
	}
}

func TestRecordRefusesAnExistingCassette(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("version: 1\ninteractions: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{Mode: ModeRecord}); !errors.Is(err, ErrCassetteExists) {
		t.Errorf("Open(record, existing) = %v, want ErrCassetteExists", err)
	}
	rec, err := Open(path, Options{Mode: ModeRecord, Overwrite: true})
	if err != nil {
		t.Fatalf("Open(record, overwrite) = %v", err)
	}
	srv, _ := echoServer(t)
	if _, err := post(t, rec.Client(), srv.URL+"/v1/x", `{"q":1}`); err != nil {
		t.Fatal(err)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(path); err != nil || len(c.Interactions) != 1 {
		t.Errorf("Load(overwritten) = %v, %v; want the one new interaction", c, err)
	}
}

func TestReplayOrRecordAppends(t *testing.T) {
	srv, served := echoServer(t)
	path := filepath.Join(t.TempDir(), "c.yaml")
	for round, want := range []int32{1, 2} {
		rec, err := Open(path, Options{Mode: ModeReplayOrRecord, Now: fakeNow()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := post(t, rec.Client(), srv.URL+"/v1/x", `{"q":1}`); err != nil {
			t.Fatal(err)
		}
		if round == 1 {
			if _, err := post(t, rec.Client(), srv.URL+"/v1/x", `{"q":2}`); err != nil {
				t.Fatal(err)
			}
		}
		if err := rec.Stop(); err != nil {
			t.Fatal(err)
		}
		if served.Load() != want {
			t.Errorf("round %d: server saw %d calls, want %d", round, served.Load(), want)
		}
	}
	c, err := Load(path)
	if err != nil || len(c.Interactions) != 2 {
		t.Fatalf("Load = %v, %v; want 2 interactions", c, err)
	}
	// the one replayed, then the one recorded after it
	if a, b := c.Interactions[0].Request.Body, c.Interactions[1].Request.Body; a != `{"q":1}` || b != `{"q":2}` {
		t.Errorf("interactions hold %s then %s, want the first request's, then the second's", a, b)
	}
}

func TestReplayNeedsTheFile(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "missing.yaml"), Options{Scenario: "s"})
	if !errors.Is(err, ErrCassetteNotFound) || !strings.Contains(err.Error(), `scenario "s"`) {
		t.Errorf("Open(replay, missing) = %v, want ErrCassetteNotFound naming the scenario", err)
	}
}

func TestLivePassesThrough(t *testing.T) {
	srv, served := echoServer(t)
	path := filepath.Join(t.TempDir(), "never.yaml")
	rec, err := Open(path, Options{Mode: ModeLive})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := post(t, rec.Client(), srv.URL+"/v1/x", `{}`); err != nil {
		t.Fatal(err)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) || served.Load() != 1 {
		t.Errorf("live mode wrote a cassette or did not reach the server (%v, %d calls)", err, served.Load())
	}
}

func TestReplayIsSafeForConcurrentUse(t *testing.T) {
	srv, _ := echoServer(t)
	path := filepath.Join(t.TempDir(), "c.yaml")
	rec, err := Open(path, Options{Mode: ModeRecord, Now: fakeNow()})
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	for i := range n {
		if _, err := post(t, rec.Client(), srv.URL+"/v1/x", fmt.Sprintf(`{"i":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	rep, err := Open(path, Options{Transport: &dialGuard{t: t}})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, n)
	for i := range n {
		go func() {
			out, err := post(t, rep.Client(), "http://x/v1/x", fmt.Sprintf(`{"i":%d}`, i))
			if err == nil && !strings.Contains(out, fmt.Sprintf(`\"i\":%d}`, i)) {
				err = fmt.Errorf("request %d answered with %s", i, out)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestRecordingLeavesTheLiveRequestAlone: go-vcr v2 hands its filters the
// caller's header map; scrubbing here must work on copies.
func TestRecordingLeavesTheLiveRequestAlone(t *testing.T) {
	srv, _ := echoServer(t)
	rec, err := Open(filepath.Join(t.TempDir(), "c.yaml"), Options{Mode: ModeRecord, Now: fakeNow()})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/x?key="+fakeGoogleKey, strings.NewReader(`{"api_key":"hunter2"}`))
	req.Header.Set("Authorization", "Bearer "+fakeOpenAIKey)
	resp, err := rec.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if req.Header.Get("Authorization") != "Bearer "+fakeOpenAIKey || !strings.Contains(req.URL.RawQuery, fakeGoogleKey) {
		t.Errorf("the live request was changed: %v %s", req.Header, req.URL)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	in := rec.Cassette().Interactions[0]
	if in.Request.Headers.Get("Authorization") != Redacted || strings.Contains(in.Request.URL, fakeGoogleKey) || strings.Contains(in.Request.Body, "hunter2") {
		t.Errorf("recorded interaction not scrubbed: %+v", in.Request)
	}
}

func TestReplayHonorsCancellation(t *testing.T) {
	srv, _ := echoServer(t)
	path := filepath.Join(t.TempDir(), "c.yaml")
	rec, _ := Open(path, Options{Mode: ModeRecord, Now: fakeNow()})
	if _, err := post(t, rec.Client(), srv.URL+"/v1/x", `{"q":1}`); err != nil {
		t.Fatal(err)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	rep, err := Open(path, Options{Transport: &dialGuard{t: t}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://x/v1/x", strings.NewReader(`{"q":1}`))
	if _, err := rep.Client().Do(req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: %v, want context.Canceled", err)
	}
	if u := rep.Unused(); len(u) != 1 {
		t.Errorf("a cancelled request used up an interaction: unused %v", u)
	}
}
