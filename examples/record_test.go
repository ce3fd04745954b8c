package examples_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/serve"
)

// recordAddr is the local OpenAI-compatible server the recorded
// scenarios' base_url names.
const recordAddr = "127.0.0.1:18741"

// TestRecordExampleCassettes records the cassettes of the examples'
// recorded scenarios (dir/recorded, into dir/cassettes) from a local
// server at their base_url answering with the script of the scripted
// scenario of the same name (dir/scenarios), then records each once
// more and requires the two recordings' requests and answers to be the
// same bytes: what the replay matches is deterministic, so no
// normalisation beyond cassette's own is needed. It runs only when
// asked:
//
//	AGENTEVAL_RECORD_EXAMPLES=1 go test ./examples -run TestRecordExampleCassettes
func TestRecordExampleCassettes(t *testing.T) {
	if os.Getenv("AGENTEVAL_RECORD_EXAMPLES") != "1" {
		t.Skip("set AGENTEVAL_RECORD_EXAMPLES=1 to re-record the examples' cassettes")
	}
	for _, ex := range examples {
		if len(ex.edits) == 0 {
			continue
		}
		t.Run(ex.dir, func(t *testing.T) {
			ex.prepare(t)
			recorded, err := harness.LoadDir(filepath.Join(ex.dir, "recorded"))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range recorded {
				scripted, err := harness.Load(filepath.Join(ex.dir, "scenarios", filepath.Base(s.File)))
				if err != nil {
					t.Fatal(err)
				}
				data, err := engine.MarshalValue(scripted.Script)
				if err != nil {
					t.Fatal(err)
				}
				again := t.TempDir()
				for _, dir := range []string{filepath.Join(ex.dir, "cassettes"), again} {
					script, err := llm.ParseScript(data)
					if err != nil {
						t.Fatal(err)
					}
					srv, err := serve.New(serve.Options{Source: serve.NewScript(script)})
					if err != nil {
						t.Fatal(err)
					}
					ctx, cancel := context.WithCancel(context.Background())
					l, err := serve.Listen(ctx, recordAddr, srv)
					if err != nil {
						cancel()
						t.Fatal(err)
					}
					res := harness.RunScenario(context.Background(), s, harness.Options{Mode: cassette.ModeRecord, Overwrite: true, CassetteDir: dir})
					l.Close()
					cancel()
					if res.Status != report.StatusPass {
						t.Fatalf("%s: recording: %s %s", s.Name, res.Status, res.Message)
					}
				}
				first, err := cassette.Load(harness.CassettePath(filepath.Join(ex.dir, "cassettes"), s))
				if err != nil {
					t.Fatal(err)
				}
				second, err := cassette.Load(harness.CassettePath(again, s))
				if err != nil {
					t.Fatal(err)
				}
				if len(first.Interactions) != len(second.Interactions) {
					t.Fatalf("%s: %d interactions, then %d", s.Name, len(first.Interactions), len(second.Interactions))
				}
				for i, a := range first.Interactions {
					b := second.Interactions[i]
					if a.Request.Method+a.Request.URL+a.Request.Body != b.Request.Method+b.Request.URL+b.Request.Body {
						t.Errorf("%s: interaction %d: the request differs between two recordings:\n%s\n%s", s.Name, i, a.Request.Body, b.Request.Body)
					}
					if a.Response.Body != b.Response.Body {
						t.Errorf("%s: interaction %d: the answer differs between two recordings:\n%s\n%s", s.Name, i, a.Response.Body, b.Response.Body)
					}
				}
			}
		})
	}
}
