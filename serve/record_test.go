package serve_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/serve"
)

// TestRecorderForwardsAndRecords puts serve in record mode in front of
// an upstream (another serve, standing in for OpenAI): the client gets
// the upstream's answer, the upstream sees the real key in place of the
// client's dummy one, and the cassette holds the exchange with the key
// scrubbed — and replays by order to the same bytes.
func TestRecorderForwardsAndRecords(t *testing.T) {
	const realKey = "sk-proj-REALKEYabcdefghijklmnopqrstuvwxyz0123456789"
	upstream, up := start(t, serve.Options{Key: realKey, Source: serve.NewTurns(serve.Turn{Text: "from upstream", Usage: serve.Usage{Input: 3, Output: 2}})}, false)
	path := filepath.Join(t.TempDir(), "rec.yaml")
	rec, err := cassette.Open(path, cassette.Options{Mode: cassette.ModeRecord, Scenario: "rec"})
	if err != nil {
		t.Fatal(err)
	}
	_, ts := start(t, serve.Options{Source: serve.NewRecorder(rec, serve.RecorderOptions{Upstreams: map[string]serve.Upstream{"openai": {BaseURL: up.URL + "/v1", Key: realKey}}})}, false)
	client := openai.NewClient(option.WithBaseURL(ts.URL+"/v1/"), option.WithAPIKey("dummy"), option.WithMaxRetries(0))
	params := openai.ChatCompletionNewParams{Model: "gpt-4.1-mini", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
	c, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Choices[0].Message.Content; got != "from upstream" {
		t.Errorf("content = %q, want the upstream's", got)
	}
	if n := len(upstream.Exchanges()); n != 1 {
		t.Errorf("upstream saw %d requests, want 1", n)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), realKey) || !strings.Contains(string(data), "from upstream") {
		t.Errorf("cassette holds the key or lacks the answer:\n%s", data)
	}
	saved, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, replay := start(t, serve.Options{Source: serve.NewReplayOrdered(saved)}, false)
	client = openai.NewClient(option.WithBaseURL(replay.URL+"/v1/"), option.WithAPIKey("dummy"), option.WithMaxRetries(0))
	c2, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if c2.RawJSON() != c.RawJSON() {
		t.Errorf("replayed answer %s\nwant the recorded %s", c2.RawJSON(), c.RawJSON())
	}
}
