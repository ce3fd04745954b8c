package serve_test

import (
	"flag"
	"net/http/httptest"
	"testing"

	"go.uber.org/goleak"

	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/serve"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// updating reports whether goldie's -update flag is set; subtests that
// write golden files do not run in parallel then.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

const testKey = "sk-test-serve-0123456789abcdefghijklmnop"

// start serves src on a random port; at cleanup it fails the test if the
// server refused a request (unless allowProblems).
func start(t *testing.T, opts serve.Options, allowProblems bool) (*serve.Server, *httptest.Server) {
	t.Helper()
	srv, err := serve.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		if err := srv.Err(); err != nil && !allowProblems {
			t.Errorf("server refused requests:\n%v", err)
		}
	})
	return srv, ts
}

// weatherScript is the scenario script: form of a parallel tool call
// and an answer, with usage and a cache read.
func weatherScript(t *testing.T) llm.Script {
	t.Helper()
	s, err := llm.ParseScript([]byte(`{"responses": [
	  {"id": "ai1", "content": "Checking both.", "tool_calls": [
	    {"name": "get_weather", "args": {"city": "Paris", "days": 2}, "id": "call_a"},
	    {"name": "get_weather", "args": {"city": "London"}, "id": "call_b"}],
	   "usage": {"input_tokens": 50, "output_tokens": 20, "input_token_details": {"cache_read": 8}}},
	  {"id": "ai2", "content": "Paris is sunny; London is rainy — bring a coat.", "usage": {"input_tokens": 90, "output_tokens": 9}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
