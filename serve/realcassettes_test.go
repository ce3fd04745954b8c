package serve_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	anoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/serve"
)

// realCassettes is the folder of real recorded traffic the project keeps
// beside the repository (see its MANIFEST.md).
const realCassettes = "../../shared/real-cassettes"

// realCassetteFiles lists the real cassettes, or skips the test when the
// folder is not beside the repository.
func realCassetteFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(realCassettes, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".yaml") {
			files = append(files, path)
		}
		return err
	})
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("no real cassettes at %s", realCassettes)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 16 {
		t.Fatalf("found %d real cassettes, want the 16 MANIFEST.md lists", len(files))
	}
	return files
}

// tee keeps the raw bytes of every response body the client reads, so a
// test can compare what reached the SDK with the recording.
type tee struct {
	rt     http.RoundTripper
	mu     sync.Mutex
	bodies [][]byte
}

func (t *tee) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.bodies = append(t.bodies, body)
	t.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// TestRealCassettesReplayOrdered replays each of the real cassettes,
// recorded from other clients (mostly Python), through serve's
// replay-ordered mode to the official Go SDK of its protocol: every
// recorded answer must reach the SDK byte for byte — JSON bodies, error
// bodies and event streams alike — and the SDK must read it (or, for an
// error status, fail with that status). The Go client's requests differ
// from the recorded ones, which is why the mode matches by order.
func TestRealCassettesReplayOrdered(t *testing.T) {
	for _, file := range realCassetteFiles(t) {
		name, _ := filepath.Rel(realCassettes, file)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, _, err := cassette.Import(file)
			if err != nil {
				t.Fatal(err)
			}
			src := serve.NewReplayOrdered(c)
			srv, ts := start(t, serve.Options{Source: src}, false)
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			tap := &tee{rt: tr}
			hc := &http.Client{Transport: tap}
			oa := openai.NewClient(option.WithBaseURL(ts.URL+"/v1/"), option.WithAPIKey("sk-dummy"), option.WithMaxRetries(0), option.WithHTTPClient(hc))
			an := anthropic.NewClient(anoption.WithBaseURL(ts.URL), anoption.WithAPIKey("sk-dummy"), anoption.WithMaxRetries(0), anoption.WithHTTPClient(hc))
			ctx := context.Background()
			for i, in := range c.Interactions {
				u, _ := url.Parse(in.Request.URL)
				p := serve.ProtocolOf(u.Path)
				stream := strings.Contains(strings.ReplaceAll(in.Request.Body, " ", ""), `"stream":true`)
				var callErr error
				switch p {
				case serve.OpenAIChat:
					params := openai.ChatCompletionNewParams{Model: "gpt-4o", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("replay")}}
					if stream {
						s := oa.Chat.Completions.NewStreaming(ctx, params)
						var acc openai.ChatCompletionAccumulator
						for s.Next() {
							acc.AddChunk(s.Current())
						}
						callErr = s.Err()
						if callErr == nil && len(acc.Choices) == 0 {
							t.Errorf("interaction %d: the SDK assembled no choice", i)
						}
					} else {
						var r *openai.ChatCompletion
						r, callErr = oa.Chat.Completions.New(ctx, params)
						if callErr == nil && len(r.Choices) == 0 {
							t.Errorf("interaction %d: the SDK read no choice", i)
						}
					}
				case serve.Messages:
					params := anthropic.MessageNewParams{Model: "claude-3-opus", MaxTokens: 256, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("replay"))}}
					if stream {
						s := an.Messages.NewStreaming(ctx, params)
						acc := anthropic.Message{}
						for s.Next() {
							if err := acc.Accumulate(s.Current()); err != nil {
								t.Errorf("interaction %d: accumulate: %v", i, err)
							}
						}
						callErr = s.Err()
						if callErr == nil && len(acc.Content) == 0 {
							t.Errorf("interaction %d: the SDK assembled no content", i)
						}
					} else {
						var m *anthropic.Message
						m, callErr = an.Messages.New(ctx, params)
						if callErr == nil && len(m.Content) == 0 {
							t.Errorf("interaction %d: the SDK read no content", i)
						}
					}
				default:
					t.Fatalf("interaction %d: %s is no protocol serve speaks", i, in.Request.URL)
				}
				if code := in.Response.Code; code >= 400 {
					var oe *openai.Error
					var ae *anthropic.Error
					switch {
					case errors.As(callErr, &oe) && oe.StatusCode == code, errors.As(callErr, &ae) && ae.StatusCode == code:
					default:
						t.Errorf("interaction %d: err = %v, want the recorded status %d", i, callErr, code)
					}
				} else if callErr != nil {
					t.Errorf("interaction %d: %v", i, callErr)
				}
				tap.mu.Lock()
				got := tap.bodies[len(tap.bodies)-1]
				tap.mu.Unlock()
				if !bytes.Equal(got, []byte(in.Response.Body)) {
					t.Errorf("interaction %d: the body that reached the SDK differs from the recording:\n got %q\nwant %q", i, got, in.Response.Body)
				}
			}
			if n := src.Remaining(); n != 0 {
				t.Errorf("Remaining() = %d, want 0", n)
			}
			if got := len(srv.Exchanges()); got != len(c.Interactions) {
				t.Errorf("Exchanges() has %d, want %d", got, len(c.Interactions))
			}
		})
	}
}

// TestRealCassettesReplayEventByEvent replays each real cassette again,
// reading the answers off the connection chunk by chunk: a recorded
// event stream must go out in its recorded events, one HTTP chunk each
// (each flushed as a provider flushes it), every byte as recorded —
// the padding after the JSON of Anthropic's events, OpenAI's obfuscation
// fields, a stream without a final blank line — and a JSON answer must
// go out whole, byte for byte.
func TestRealCassettesReplayEventByEvent(t *testing.T) {
	for _, file := range realCassetteFiles(t) {
		name, _ := filepath.Rel(realCassettes, file)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, _, err := cassette.Import(file)
			if err != nil {
				t.Fatal(err)
			}
			_, ts := start(t, serve.Options{Source: serve.NewReplayOrdered(c)}, false)
			streams := 0
			for i, in := range c.Interactions {
				u, _ := url.Parse(in.Request.URL)
				body, header := `{"model":"m","messages":[{"role":"user","content":"replay"}]}`, http.Header(nil)
				if serve.ProtocolOf(u.Path) == serve.Messages {
					body, header = `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"replay"}]}`, http.Header{"Anthropic-Version": {"2023-06-01"}}
				}
				a := rawPost(t, ts.URL, u.Path, header, body)
				if a.status != in.Response.Code {
					t.Errorf("interaction %d: status %d, want the recorded %d", i, a.status, in.Response.Code)
				}
				if got := a.body(); !bytes.Equal(got, []byte(in.Response.Body)) {
					t.Errorf("interaction %d: body differs from the recording:\n got %q\nwant %q", i, got, in.Response.Body)
				}
				if !llm.IsEventStream([]byte(in.Response.Body)) {
					continue
				}
				streams++
				want := recordedEvents(in.Response.Body)
				var got []string
				for _, c := range a.chunks {
					got = append(got, string(c))
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("interaction %d: the stream's chunks are not its recorded events (-want +got):\n%s", i, diff)
				}
			}
			t.Logf("%d interactions, %d streamed", len(c.Interactions), streams)
		})
	}
}
