package cassette

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
)

// zeros compresses n zero bytes with gzip (one member) or zlib.
func zeros(t testing.TB, enc string, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	if enc == "deflate" {
		w, _ = zlib.NewWriterLevel(&b, zlib.BestCompression)
	} else {
		w, _ = gzip.NewWriterLevel(&b, gzip.BestCompression)
	}
	chunk := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			t.Fatal(err)
		}
		n -= k
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gzipBomb returns about size bytes of gzip that decode to about a
// thousand times as much: gzip members of 16 MiB of zeros, one after
// another (gzip readers read every member).
func gzipBomb(t testing.TB, size int) []byte {
	member := zeros(t, "gzip", 16<<20)
	return bytes.Repeat(member, max(1, size/len(member)))
}

// encodedCassette is a one-interaction cassette whose response (or
// request) body is encoded.
func encodedCassette(t testing.TB, part, enc string, body []byte) []byte {
	in := &vcr.Interaction{
		Request:  vcr.Request{Method: "POST", URL: "https://api.openai.com/v1/chat/completions", Body: "{}"},
		Response: vcr.Response{Code: 200, Status: "200 OK", Body: "{}", Headers: http.Header{"Content-Type": {"application/json"}}},
	}
	if part == "request" {
		in.Request.Body, in.Request.Headers = string(body), http.Header{"Content-Encoding": {enc}}
	} else {
		in.Response.Body = string(body)
		in.Response.Headers.Set("Content-Encoding", enc)
	}
	data, err := (&Cassette{Interactions: []*vcr.Interaction{in}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// aliasBomb is a pydantic-ai cassette whose parsed_body expands, through
// YAML aliases, to 10^9 strings.
func aliasBomb() []byte {
	var b strings.Builder
	b.WriteString("interactions:\n- request:\n    method: POST\n    uri: https://x/v1\n    parsed_body:\n")
	b.WriteString("      a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "      a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("  response:\n    parsed_body: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n")
	return []byte(b.String())
}

func TestLimits(t *testing.T) {
	small := Limits{MaxBodyBytes: 1024, MaxFileBytes: 64 << 10}
	tests := []struct {
		reason string
		limits Limits
		op     string // load or import
		data   func(t testing.TB) []byte
		want   string
	}{
		{"a gzip response body past the body limit names the interaction and field", small, "load",
			func(t testing.TB) []byte { return encodedCassette(t, "response", "gzip", zeros(t, "gzip", 2048)) },
			"c.yaml:11: interactions[0].response.body: Content-Encoding gzip: gzip decoding gives more than 1 KiB, the limit (raise it to read the file: --limit cassette_body_bytes=N, Limits.MaxBodyBytes)"},
		{"a deflate request body past the limit names the request body", small, "load",
			func(t testing.TB) []byte { return encodedCassette(t, "request", "deflate", zeros(t, "deflate", 2048)) },
			"c.yaml:5: interactions[0].request.body: Content-Encoding deflate: deflate decoding gives more than 1 KiB, the limit"},
		{"a body within the limit decodes", small, "load",
			func(t testing.TB) []byte { return encodedCassette(t, "response", "gzip", zeros(t, "gzip", 1024)) },
			""},
		{"a file past the file limit is refused before it is parsed", Limits{MaxFileBytes: 100}, "load",
			func(t testing.TB) []byte {
				return encodedCassette(t, "response", "identity", []byte(strings.Repeat("x", 200)))
			},
			"load c.yaml: file too large: 605 bytes, more than 100 bytes, the limit (raise it to read the file: --limit cassette_file_bytes=N, Limits.MaxFileBytes)"},
		{"import: a vcrpy !!binary gzip body past the limit", small, "import",
			func(t testing.TB) []byte {
				return []byte("interactions:\n- request:\n    body: null\n    method: POST\n    uri: https://x/v1\n  response:\n    body:\n      string: !!binary |\n        " +
					base64String(zeros(t, "gzip", 4096)) + "\n    headers:\n      Content-Encoding:\n      - gzip\n    status:\n      code: 200\n      message: OK\nversion: 1\n")
			}, "c.yaml:2: interactions[0]: response.body: Content-Encoding gzip: gzip decoding gives more than 1 KiB"},
		{"import: a gzip-compressed file that decompresses past the file limit (it was cut at 1 GiB without a word)", small, "import",
			func(t testing.TB) []byte { return zeros(t, "gzip", 128<<10) },
			"import c.yaml: gzip decoding gives more than 64 KiB, the limit (raise it to read the file: --limit cassette_file_bytes=N, Limits.MaxFileBytes)"},
		{"import: YAML aliases that expand a parsed_body to 10^9 strings", small, "import",
			func(t testing.TB) []byte { return aliasBomb() },
			"request.parsed_body: expands to more than 1 KiB, the limit (raise it to read the file: --limit cassette_body_bytes=N, Limits.MaxBodyBytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(path, tc.data(t), 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			if tc.op == "import" {
				_, _, err = tc.limits.Import(path)
			} else {
				_, err = tc.limits.Load(path)
			}
			got := ""
			if err != nil {
				got = strings.ReplaceAll(err.Error(), path, "c.yaml")
			}
			if tc.want == "" && err != nil || !strings.Contains(got, tc.want) {
				t.Errorf("%s = %v\nwant an error containing %q", tc.op, got, tc.want)
			}
		})
	}
}

// TestLoadRefusesAFileOverTheDefaultLimit: a sparse file of 256 MiB and
// one byte is refused from its size, before a byte of it is read.
func TestLoadRefusesAFileOverTheDefaultLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(DefaultMaxFileBytes + 1); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	for name, op := range map[string]func() error{
		"Load":   func() error { _, err := Load(path); return err },
		"Check":  func() error { _, err := Check(path); return err },
		"Import": func() error { _, _, err := Import(path); return err },
	} {
		if err := op(); !errors.Is(err, errFileTooLarge) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "more than 256 MiB") {
			t.Errorf("%s(256 MiB + 1) = %v, want a too-large error naming the file and the 256 MiB limit", name, err)
		}
	}
}

// base64String encodes b for a !!binary YAML scalar.
func base64String(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
