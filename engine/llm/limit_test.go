package llm

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
)

// endless is a body that never ends: data forever.
type endless struct{ data string }

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.data[i%len(e.data)]
	}
	return len(p), nil
}

// endlessTransport answers every request with a 200 whose body never
// ends, of the given content type; nothing goes to the network.
type endlessTransport struct{ contentType, data string }

func (t endlessTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {t.contentType}}, Body: io.NopCloser(endless{t.data}), Request: r}, nil
}

// TestResponseBodyIsBounded: a server whose answer never ends fails the
// call once MaxResponseBytes came through, whole or streamed, for both
// APIs. Before, the whole body was read with no bound (and a stream's
// line grew until memory ran out).
func TestResponseBodyIsBounded(t *testing.T) {
	t.Parallel()
	const max = 4096
	tests := []struct {
		reason   string
		model    func(c *http.Client) (engine.ChatModel, error)
		ct, data string
		want     string
	}{
		{"OpenAI, a whole body", func(c *http.Client) (engine.ChatModel, error) {
			return NewOpenAI(OpenAIConfig{Model: "m", HTTPClient: c, MaxResponseBytes: max})
		}, "application/json", `{"x":"`, "read response: the response is longer than 4096 bytes, the limit (MaxResponseBytes"},
		{"OpenAI, a stream whose line never ends", func(c *http.Client) (engine.ChatModel, error) {
			return NewOpenAI(OpenAIConfig{Model: "m", HTTPClient: c, MaxResponseBytes: max, Stream: true})
		}, "text/event-stream", "data: xxxxxxx", "the stream is longer than 4096 bytes"},
		{"Anthropic, a whole body", func(c *http.Client) (engine.ChatModel, error) {
			return NewAnthropic(AnthropicConfig{Model: "m", HTTPClient: c, MaxResponseBytes: max})
		}, "application/json", `{"x":"`, "read response: the response is longer than 4096 bytes"},
		{"Anthropic, a stream of events without end", func(c *http.Client) (engine.ChatModel, error) {
			return NewAnthropic(AnthropicConfig{Model: "m", HTTPClient: c, MaxResponseBytes: max, Stream: true})
		}, "text/event-stream", "event: ping\ndata: {\"type\": \"ping\"}\n\n", "the stream is longer than 4096 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			m, err := tc.model(&http.Client{Transport: endlessTransport{tc.ct, tc.data}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Generate(context.Background(), engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage("hi"))})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Generate = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestLimitBody pins the bounded reader: exactly max bytes pass, one more
// is an error, and a body within the bound ends as it does.
func TestLimitBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		body   string
		max    int64
		want   string // the bytes read
		err    bool
	}{
		{"a body within the bound is read whole, ending with EOF", "hello", 5, "hello", false},
		{"one byte past the bound is an error", "hello!", 5, "hello!", true},
		{"an empty body is fine", "", 0, "", false},
	}
	for _, tc := range tests {
		got, err := io.ReadAll(limitBody(strings.NewReader(tc.body), tc.max, "the body"))
		if string(got) != tc.want || (err != nil) != tc.err {
			t.Errorf("%s: read %q, %v; want %q, error %v", tc.reason, got, err, tc.want, tc.err)
		}
	}
}
