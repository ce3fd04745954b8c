package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	anoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/serve"
)

// upstreamKey is the real key the recorder sends upstream in place of
// the client's dummy one; it must never reach the cassette.
const upstreamKey = "sk-proj-UPSTREAMabcdefghijklmnopqrstuvwxyz0123456789"

// lockstepUpstream is a provider that streams events in lockstep with
// the test: after each event a client delivers, it waits for the test
// to say the client has it before it sends the next. A server between
// the two that held the stream back until it ended would deadlock the
// test (caught by the client's deadline), so a test that finishes proves
// every event crossed the relay before the provider sent the next.
type lockstepUpstream struct {
	events []string
	// delivered says which events the client hands to its caller (not
	// a ping, not [DONE]), after which the provider waits.
	delivered func(ev string) bool
	ack       chan struct{}
	sent      atomic.Int32
	keys      atomic.Value // the key of the last request
}

func (u *lockstepUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("X-Api-Key")
	if key == "" {
		key = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	u.keys.Store(key)
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(200)
	for i, ev := range u.events {
		u.sent.Store(int32(i + 1))
		w.Write([]byte(ev))
		w.(http.Flusher).Flush()
		if i < len(u.events)-1 && u.delivered(ev) {
			select {
			case <-u.ack:
			case <-r.Context().Done():
				return
			}
		}
	}
}

// delivered is true for the events the SDKs hand to their callers.
func delivered(ev string) bool {
	return !strings.Contains(ev, "[DONE]") && !strings.HasPrefix(ev, "event: ping")
}

// compactJSON is s compacted, for comparing what the SDK decoded with
// what was sent.
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(strings.TrimSpace(s))); err != nil {
		t.Fatalf("compact %q: %v", s, err)
	}
	return b.String()
}

// streamCase is one protocol: the provider's events, where the request
// goes, and how its official SDK streams it.
type streamCase struct {
	name   string
	path   string
	events []string
	// stream runs the SDK against base and calls got with the raw JSON of
	// each event it delivers, as it delivers it.
	stream func(ctx context.Context, base string, got func(raw string)) error
}

var recordStreamCases = []streamCase{
	{
		name: "chat-completions", path: "/v1/chat/completions",
		events: []string{
			`data: {"id":"chatcmpl-up","object":"chat.completion.chunk","created":1772492557,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_up","type":"function","function":{"name":"get_weather","arguments":""}}],"refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"mBGHa7"}` + "\n\n",
			`data: {"id":"chatcmpl-up","object":"chat.completion.chunk","created":1772492557,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"etG"}` + "\n\n",
			`data: {"id":"chatcmpl-up","object":"chat.completion.chunk","created":1772492557,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"kM"}` + "\n\n",
			`data: {"id":"chatcmpl-up","object":"chat.completion.chunk","created":1772492557,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null,"obfuscation":"2U"}` + "\n\n",
			`data: {"id":"chatcmpl-up","object":"chat.completion.chunk","created":1772492557,"model":"gpt-4o-2024-08-06","choices":[],"usage":{"prompt_tokens":81,"completion_tokens":15,"total_tokens":96}}` + "\n\n",
			"data: [DONE]\n\n",
		},
		stream: func(ctx context.Context, base string, got func(string)) error {
			c := openai.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey("dummy"), option.WithMaxRetries(0))
			s := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: "gpt-4o", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather in Paris?")},
				StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}})
			defer s.Close()
			for s.Next() {
				got(s.Current().RawJSON())
			}
			return s.Err()
		},
	},
	{
		name: "responses", path: "/v1/responses",
		events: []string{
			"event: response.created\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_up","object":"response","created_at":1772492557,"status":"in_progress","model":"gpt-4o","output":[]}}` + "\n\n",
			"event: response.output_text.delta\n" + `data: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_up","output_index":0,"content_index":0,"delta":"Sun","logprobs":[],"obfuscation":"a1"}` + "\n\n",
			"event: response.output_text.delta\n" + `data: {"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_up","output_index":0,"content_index":0,"delta":"ny.","logprobs":[],"obfuscation":"b2"}` + "\n\n",
			"event: response.completed\n" + `data: {"type":"response.completed","sequence_number":3,"response":{"id":"resp_up","object":"response","created_at":1772492557,"status":"completed","model":"gpt-4o","output":[{"type":"message","id":"msg_up","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Sunny.","annotations":[]}]}],"usage":{"input_tokens":9,"output_tokens":2,"total_tokens":11}}}` + "\n\n",
		},
		stream: func(ctx context.Context, base string, got func(string)) error {
			c := openai.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey("dummy"), option.WithMaxRetries(0))
			s := c.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "gpt-4o", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("weather?")}})
			defer s.Close()
			for s.Next() {
				got(s.Current().RawJSON())
			}
			return s.Err()
		},
	},
	{
		name: "messages", path: "/v1/messages",
		// Anthropic pads its events' JSON with spaces: kept byte for byte
		events: []string{
			"event: message_start\n" + `data: {"type":"message_start","message":{"model":"claude-sonnet-4-20250514","id":"msg_up","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":6,"output_tokens":1}}             }` + "\n\n",
			"event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}              }` + "\n\n",
			"event: ping\n" + `data: {"type": "ping"}` + "\n\n",
			"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Sun"}   }` + "\n\n",
			"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ny."}}` + "\n\n",
			"event: content_block_stop\n" + `data: {"type":"content_block_stop","index":0             }` + "\n\n",
			"event: message_delta\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":4}       }` + "\n\n",
			"event: message_stop\n" + `data: {"type":"message_stop"       }` + "\n\n",
		},
		stream: func(ctx context.Context, base string, got func(string)) error {
			c := anthropic.NewClient(anoption.WithBaseURL(base), anoption.WithAPIKey("dummy"), anoption.WithMaxRetries(0))
			s := c.Messages.NewStreaming(ctx, anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 64, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("weather?"))}})
			defer s.Close()
			for s.Next() {
				got(s.Current().RawJSON())
			}
			return s.Err()
		},
	},
}

// TestRecorderRelaysAndRecordsStreams puts serve in record mode between
// each official Go SDK and a provider that streams in lockstep (see
// lockstepUpstream): the SDK must get every event while the provider
// still holds back the rest — the relay passes events on as they come —
// and the cassette written afterwards must hold the stream byte for
// byte, the real key scrubbed, so that replaying it sends the recorded
// events, one HTTP chunk each, in their recorded boundaries, and the SDK
// reads the same events again.
func TestRecorderRelaysAndRecordsStreams(t *testing.T) {
	for _, tc := range recordStreamCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			up := &lockstepUpstream{events: tc.events, delivered: delivered, ack: make(chan struct{}, len(tc.events))}
			ups := httptest.NewServer(up)
			defer ups.Close()
			path := filepath.Join(t.TempDir(), "stream.yaml")
			rec, err := cassette.Open(path, cassette.Options{Mode: cassette.ModeRecord, Scenario: tc.name})
			if err != nil {
				t.Fatal(err)
			}
			srv, err := serve.New(serve.Options{Source: serve.NewRecorder(rec, serve.RecorderOptions{Upstreams: map[string]serve.Upstream{
				"openai": {BaseURL: ups.URL + "/v1", Key: upstreamKey}, "anthropic": {BaseURL: ups.URL, Key: upstreamKey}}})})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(srv)
			// a guard, not a measurement: a relay that buffered the
			// stream would otherwise hang the test
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var want, got []string
			var at, sentWhenGot []int32 // where each delivered event is in the stream (1-based); how many were sent when it arrived
			for i, ev := range tc.events {
				if delivered(ev) {
					want = append(want, compactJSON(t, dataOf(t, ev)))
					at = append(at, int32(i+1))
				}
			}
			err = tc.stream(ctx, ts.URL, func(raw string) {
				got = append(got, compactJSON(t, raw))
				sentWhenGot = append(sentWhenGot, up.sent.Load())
				up.ack <- struct{}{}
			})
			ts.Close() // waits for the handler, which stores the stream
			if err != nil {
				t.Fatalf("the SDK's stream through the recorder: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("events the SDK delivered mismatch (-want +got):\n%s", diff)
			}
			// the provider waits after each delivered event until the
			// SDK has it: had the relay held an event back, the SDK
			// would have seen it only after the provider went on
			if diff := cmp.Diff(at, sentWhenGot); diff != "" {
				t.Errorf("events sent by the provider when the SDK delivered each (-want +got):\n%s", diff)
			}
			if k, _ := up.keys.Load().(string); k != upstreamKey {
				t.Errorf("the provider got key %q, want the real one in place of the client's", k)
			}
			if err := srv.Err(); err != nil {
				t.Errorf("server problems: %v", err)
			}
			if err := rec.Stop(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(upstreamKey)) || bytes.Contains(data, []byte("UPSTREAM")) {
				t.Errorf("the cassette holds the key:\n%s", data)
			}
			saved, err := cassette.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(saved.Interactions) != 1 {
				t.Fatalf("the cassette has %d interactions, want 1", len(saved.Interactions))
			}
			if body, want := saved.Interactions[0].Response.Body, strings.Join(tc.events, ""); body != want {
				t.Errorf("recorded stream differs from the provider's:\n got %q\nwant %q", body, want)
			}

			// replayed: the recorded events, one chunk each, then the SDK
			_, replay := start(t, serve.Options{Source: serve.NewReplayOrdered(saved)}, false)
			var header http.Header
			body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"weather?"}]}`
			switch tc.path {
			case "/v1/messages":
				header = http.Header{"Anthropic-Version": {"2023-06-01"}}
				body = `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"weather?"}]}`
			case "/v1/responses":
				body = `{"model":"m","stream":true,"input":"weather?"}`
			}
			a := rawPost(t, replay.URL, tc.path, header, body)
			var chunks []string
			for _, c := range a.chunks {
				chunks = append(chunks, string(c))
			}
			if diff := cmp.Diff(tc.events, chunks); diff != "" {
				t.Errorf("replayed chunks are not the recorded events (-want +got):\n%s", diff)
			}
			_, replay2 := start(t, serve.Options{Source: serve.NewReplayOrdered(saved)}, false)
			var again []string
			if err := tc.stream(ctx, replay2.URL, func(raw string) { again = append(again, compactJSON(t, raw)) }); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, again); diff != "" {
				t.Errorf("events the SDK read from the replay mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRecorderStreamBrokenOff: a provider's stream that breaks off
// reaches the client as far as it came, then the connection is cut (no
// last chunk: the client cannot take it for a whole answer); it is a
// problem of the request, and fails the recording (nothing is written).
func TestRecorderStreamBrokenOff(t *testing.T) {
	events := recordStreamCases[0].events
	ups := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(events[0]))
		w.(http.Flusher).Flush()
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	}))
	defer ups.Close()
	path := filepath.Join(t.TempDir(), "broken.yaml")
	rec, err := cassette.Open(path, cassette.Options{Mode: cassette.ModeRecord})
	if err != nil {
		t.Fatal(err)
	}
	srv, ts := start(t, serve.Options{Source: serve.NewRecorder(rec, serve.RecorderOptions{Upstreams: map[string]serve.Upstream{"openai": {BaseURL: ups.URL + "/v1"}}})}, true)
	a := rawPost(t, ts.URL, "/v1/chat/completions", nil, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	ts.Close()
	if len(a.chunks) != 1 || string(a.chunks[0]) != events[0] || !a.cut {
		t.Errorf("the client got %q (cut: %v), want the first event, then the connection cut", a.chunks, a.cut)
	}
	if err := srv.Err(); err == nil || !strings.Contains(err.Error(), "request 1 (POST /v1/chat/completions, model m): the answer broke off") {
		t.Errorf("Err() = %v, want the request's answer broke off", err)
	}
	if err := rec.Stop(); !errors.Is(err, cassette.ErrRecordingFailed) {
		t.Errorf("Stop() = %v, want ErrRecordingFailed", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a cassette was written: %v", err)
	}
}

// TestRecorderStreamOutlivesClient: the SDK stops reading at "data:
// [DONE]" and hangs up before the provider has ended its response; the
// recording must still hold the whole stream, because the forwarded
// request outlives the client's. The provider ends its response only
// once the server has seen the client go.
func TestRecorderStreamOutlivesClient(t *testing.T) {
	events := recordStreamCases[0].events
	hold := make(chan struct{})
	ups := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range events {
			w.Write([]byte(ev))
			w.(http.Flusher).Flush()
		}
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	defer ups.Close()
	path := filepath.Join(t.TempDir(), "outlive.yaml")
	rec, err := cassette.Open(path, cassette.Options{Mode: cassette.ModeRecord})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Options{Source: serve.NewRecorder(rec, serve.RecorderOptions{Upstreams: map[string]serve.Upstream{"openai": {BaseURL: ups.URL + "/v1"}}})})
	if err != nil {
		t.Fatal(err)
	}
	gone := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		go func() {
			<-r.Context().Done()
			close(gone)
		}()
		srv.ServeHTTP(w, r)
	}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard against a hang
	defer cancel()
	if err := recordStreamCases[0].stream(ctx, ts.URL, func(string) {}); err != nil {
		t.Fatal(err)
	}
	<-gone // the server saw the client hang up
	close(hold)
	ts.Close()
	if err := srv.Err(); err != nil {
		t.Errorf("server problems: %v", err)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Interactions[0].Response.Body, strings.Join(events, ""); got != want {
		t.Errorf("recorded %q, want the whole stream %q", got, want)
	}
}
