package llm_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
)

// realDir holds the real recorded cassettes (see its MANIFEST.md).
const realDir = "../../../shared/real-cassettes"

// dialGuard fails the test if a request reaches it: replay must never
// open a connection.
type dialGuard struct{ t testing.TB }

func (g dialGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	g.t.Errorf("network used during replay: %s %s", req.Method, req.URL)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrPermission}
}

// replayReal imports a real cassette and returns a replaying recorder
// over it (with a dial guard underneath) and the imported cassette. The
// test fails at cleanup if an interaction was never replayed.
func replayReal(t *testing.T, rel string, opts cassette.Options) (*cassette.Recorder, *cassette.Cassette) {
	t.Helper()
	path := filepath.Join(realDir, rel)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real cassette not available: %v", err)
	}
	c, _, err := cassette.Import(path)
	if err != nil {
		t.Fatalf("Import(%s): %v", rel, err)
	}
	opts.Transport = dialGuard{t}
	if opts.Scenario == "" {
		opts.Scenario = t.Name()
	}
	rec := cassette.Replay(c, opts)
	t.Cleanup(func() {
		if u := rec.Unused(); len(u) > 0 {
			t.Errorf("interactions never replayed: %v", u)
		}
	})
	return rec, c
}

// recordedBody returns interaction i's request body as an object.
func recordedBody(t *testing.T, c *cassette.Cassette, i int) *engine.Object {
	t.Helper()
	v, err := engine.DecodeJSON([]byte(c.Interactions[i].Request.Body))
	if err != nil {
		t.Fatalf("recorded request %d: %v", i, err)
	}
	return v.(*engine.Object)
}

// toolsOf returns the tool schemas of a recorded request, in either wire
// format: what the recorded client bound, to bind the same.
func toolsOf(t *testing.T, body *engine.Object) []engine.ToolSchema {
	t.Helper()
	raw, _ := body.Get("tools")
	var out []engine.ToolSchema
	for _, x := range raw.([]any) {
		o := x.(*engine.Object)
		if fn, ok := o.Get("function"); ok {
			o = fn.(*engine.Object)
		}
		s := engine.ToolSchema{}
		if v, ok := o.Get("name"); ok {
			s.Name = v.(string)
		}
		if v, ok := o.Get("description"); ok {
			s.Description = v.(string)
		}
		for _, k := range []string{"parameters", "input_schema"} {
			if v, ok := o.Get(k); ok {
				s.Parameters = v.(*engine.Object)
			}
		}
		out = append(out, s)
	}
	return out
}

// messageText returns recorded message i's content as text (string
// content, or the text of its first block).
func messageText(t *testing.T, body *engine.Object, path ...any) string {
	t.Helper()
	var v any = body
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v, _ = v.(*engine.Object).Get(k)
		case int:
			v = v.([]any)[k]
		}
	}
	s, ok := v.(string)
	if !ok {
		t.Fatalf("recorded value at %v is %T, not a string", path, v)
	}
	return s
}

// wantMessage compares messages as their LangChain dicts.
func wantMessage(t *testing.T, want, got engine.Message) {
	t.Helper()
	if diff := cmp.Diff(dictJSON(t, want), dictJSON(t, got)); diff != "" {
		t.Errorf("message mismatch (-want +got):\n%s", diff)
	}
}

// dictJSON renders a message as indented JSON in the engine's key
// order, so a difference shows as a readable diff.
func dictJSON(t *testing.T, m engine.Message) string {
	t.Helper()
	b, err := engine.MarshalValue(m.ToValue())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// jo and n build expected values tersely.
func jo(kv ...any) *engine.Object { return engine.NewObject(kv...) }

func n(i int) json.Number { return json.Number(strconv.Itoa(i)) }

func usage(in, out, total int, inDetails, outDetails *engine.Object) *engine.Usage {
	return &engine.Usage{InputTokens: in, OutputTokens: out, TotalTokens: total, InputTokenDetails: inDetails, OutputTokenDetails: outDetails}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
