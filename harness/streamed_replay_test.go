package harness_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/grade"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/serve"
)

// TestReplayedStreamIsTheRecordedStream records a scenario that streams
// messages from each provider's fake server (whose event streams break
// every text in pieces), then replays it offline from the cassette: the
// replayed chunks are the recorded ones, piece for piece, and they are
// the text deltas of the event streams the cassette holds. A cassette
// keeps a stream's events as they came, so a replay streams what the
// recording streamed.
func TestReplayedStreamIsTheRecordedStream(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, model, path string
		key, keyVar       string
		// delta finds the text of one delta event in a recorded body
		delta *regexp.Regexp
	}{
		{"openai", "openai:gpt-4.1-mini", "/v1", fakeOpenAIKey, "OPENAI_API_KEY", regexp.MustCompile(`"delta":\{"content":("(?:[^"\\]|\\.)*")`)},
		{"anthropic", "anthropic:claude-sonnet-4-5", "", fakeAnthropicKey, "ANTHROPIC_API_KEY", regexp.MustCompile(`"type":"text_delta","text":("(?:[^"\\]|\\.)*")`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := newFake(tc.key,
				serve.Turn{Model: "m-1", Text: "Let me look that up for you.", ToolCalls: []serve.ToolCall{{ID: "call_1", Name: "lookup", Args: `{"q":"tides"}`}}, Usage: serve.Usage{Input: 20, Output: 9}},
				serve.Turn{Model: "m-1", Text: "High tide is at 14:05 — é, ü and 中 stay whole.", Usage: serve.Usage{Input: 41, Output: 12}},
			)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ln, err := serve.Listen(ctx, "127.0.0.1:0", fake.srv)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			dir := t.TempDir()
			file := filepath.Join(dir, "scenarios", "tides.yaml")
			src := fmt.Sprintf(`agent: {model: %q, base_url: %q}
tools:
  - name: lookup
    results: [{return: "14:05"}]
turns:
  - user: When is high tide?
    stream_mode: messages
`, tc.model, ln.URL+tc.path)
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			scenarios, err := harness.LoadDir(filepath.Join(dir, "scenarios"))
			if err != nil {
				t.Fatal(err)
			}
			s := scenarios[0]
			opts := harness.Options{CassetteDir: filepath.Join(dir, "cassettes"), GoldenDir: filepath.Join(dir, "golden"), Mode: cassette.ModeRecord,
				LookupEnv: func(k string) (string, bool) { return tc.key, k == tc.keyVar }}
			res, rec := harness.RunScenarioObserved(ctx, s, opts)
			if res.Status != report.StatusPass {
				t.Fatalf("record: status %s: %s", res.Status, res.Message)
			}
			opts.Mode, opts.Transport, opts.LookupEnv = cassette.ModeReplay, noNetwork{t}, nil
			res, rep := harness.RunScenarioObserved(ctx, s, opts)
			if res.Status != report.StatusPass {
				t.Fatalf("replay: status %s: %s", res.Status, res.Message)
			}
			recorded, replayed := streamedPieces(rec.Streamed), streamedPieces(rep.Streamed)
			if len(recorded) != 3 {
				t.Fatalf("recorded stream = %q, want the two answers and the tool message", recorded)
			}
			if d := cmp.Diff(recorded, replayed); d != "" {
				t.Errorf("replayed chunks differ from the recorded ones (-recorded +replayed):\n%s", d)
			}
			c, err := cassette.Load(harness.CassettePath(opts.CassetteDir, s))
			if err != nil {
				t.Fatal(err)
			}
			var deltas []string
			for _, in := range c.Interactions {
				for _, m := range tc.delta.FindAllStringSubmatch(in.Response.Body, -1) {
					var text string
					if err := json.Unmarshal([]byte(m[1]), &text); err != nil {
						t.Fatal(err)
					}
					if text != "" {
						deltas = append(deltas, text)
					}
				}
			}
			var pieces []string
			for _, sm := range rep.Streamed {
				for _, p := range sm.Pieces() {
					if p != "" && sm.Node == "agent" {
						pieces = append(pieces, p)
					}
				}
			}
			if len(deltas) < 4 {
				t.Fatalf("cassette holds the text deltas %q, want each answer in pieces", deltas)
			}
			if d := cmp.Diff(deltas, pieces); d != "" {
				t.Errorf("replayed pieces are not the cassette's text deltas (-cassette +replayed):\n%s", d)
			}
		})
	}
}

// streamedPieces writes each streamed message as its node and the text
// of its chunks.
func streamedPieces(ms []grade.Streamed) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s %q", m.Node, m.Pieces()))
	}
	return out
}
