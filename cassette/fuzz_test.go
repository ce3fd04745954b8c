package cassette

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// seedCassettes are small files of every layout, good and bad.
var seedCassettes = []string{
	"---\nversion: 1\ninteractions: []\n",
	"version: 1\ninteractions:\n    - request:\n        body: '{\"a\":1}'\n        url: https://api.openai.com/v1/chat/completions\n        method: POST\n      response:\n        body: '{\"id\":\"x\"}'\n        headers:\n            Content-Type:\n                - application/json\n        status: 200 OK\n        code: 200\n        duration: 1.5s\n",
	"version: 2\ninteractions:\n    - id: 0\n      request:\n        proto: HTTP/1.1\n        url: https://x/v1\n        method: POST\n      response:\n        body: 'data: {}'\n        headers: {}\n        code: 200\n        duration: 1s\n",
	"interactions:\n- request:\n    body: null\n    method: POST\n    uri: https://x/v1\n  response:\n    content: '{}'\n    status_code: 200\nversion: 1\n",
	"interactions:\n- request:\n    body: '{}'\n    method: POST\n    uri: https://x/v1\n  response:\n    body:\n      string: !!binary |\n        H4sIAAAAAAAAA6tWKkktLlGyUlAqSS0uUaoFAPhLvjYSAAAA\n    headers:\n      Content-Encoding:\n      - gzip\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
	"interactions:\n- request:\n    method: POST\n    parsed_body:\n      model: m\n      n: 1\n    uri: https://x/v1\n  response:\n    parsed_body:\n      a: [1, 2.5, true, null]\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
	"version: 1\ninteractions:\n    - request: {url: 'https://x?key=sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ', method: POST}\n      response: {code: 200}\n",
	"interactions: [\n",
	"- a\n- b\n",
	"a: &x [*x]\n",
}

// FuzzParse checks that Parse never panics, fails only with a
// *FormatError, and that what it accepts survives Marshal and Parse
// unchanged.
func FuzzParse(f *testing.F) {
	for _, s := range seedCassettes {
		f.Add([]byte(s))
	}
	if files := realCassettesIfPresent(); len(files) > 0 {
		for _, p := range files[:3] {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.yaml", data)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || len(fe.Problems) == 0 {
				t.Fatalf("Parse error %v is not a *FormatError with problems", err)
			}
			return
		}
		out, err := c.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed cassette: %v", err)
		}
		back, err := Parse("fuzz.yaml", out)
		if err != nil {
			t.Fatalf("Parse(Marshal(c)): %v\n%s", err, out)
		}
		if diff := cmp.Diff(c.Interactions, back.Interactions, cmpopts.IgnoreUnexported(vcr.Response{}), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip mismatch (-first +second):\n%s", diff)
		}
	})
}

// FuzzImport checks that Import never panics and that what it returns
// holds no credential and saves as a loadable cassette.
func FuzzImport(f *testing.F) {
	for _, s := range seedCassettes {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _, err := ImportBytes("fuzz.yaml", data)
		if err != nil {
			return
		}
		out, err := c.Marshal()
		if err != nil {
			t.Fatalf("Marshal of an imported cassette: %v", err)
		}
		if _, err := Parse("fuzz.yaml", out); err != nil {
			var fe *FormatError
			if errors.As(err, &fe) {
				for _, p := range fe.Problems {
					if p.Secret {
						t.Fatalf("imported cassette holds a credential: %v", p)
					}
				}
			}
		}
	})
}

func realCassettesIfPresent() []string {
	files, _ := filepath.Glob(filepath.Join(realDir, "dd-trace-py/tests/contrib/*/cassettes/*.yaml"))
	return files
}
