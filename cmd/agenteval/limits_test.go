package main

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/harness"
)

// gzipCassette writes a one-interaction cassette whose response body is
// n bytes of JSON, gzip-encoded, and returns its path.
func gzipCassette(t *testing.T, n int) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(`{"pad":"` + strings.Repeat("x", n-10) + `"}`))
	w.Close()
	in := &vcr.Interaction{
		Request: vcr.Request{Method: "POST", URL: "https://api.openai.com/v1/chat/completions", Body: "{}"},
		Response: vcr.Response{Code: 200, Status: "200 OK", Body: b.String(),
			Headers: http.Header{"Content-Type": {"application/json"}, "Content-Encoding": {"gzip"}}},
	}
	data, err := (&cassette.Cassette{Interactions: []*vcr.Interaction{in}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLimitFlags: every command that reads cassettes takes --limit for
// them (before, a user with a legitimately large cassette could not read
// it), and an error over a limit names the file, the field, the limit and
// the flag that raises it.
func TestLimitFlags(t *testing.T) {
	t.Parallel()
	bigBody := gzipCassette(t, 2<<10)
	provider := []string{"--root", "../../scenarios", "--cassettes", "../../cassettes", "--golden", "../../golden", "--no-reports", "../../scenarios/providers/openai_tool_call.yaml"}
	tests := []struct {
		reason string
		args   []string
		code   int
		want   string // in stdout or stderr
	}{
		{"cassette check: a body past cassette_body_bytes is refused with its file:line and field", []string{"cassette", "check", "--limit", "cassette_body_bytes=1KiB", bigBody},
			exitFailed, ":11: interactions[0].response.body: Content-Encoding gzip: gzip decoding gives more than 1 KiB, the limit (raise it to read the file: --limit cassette_body_bytes=N, Limits.MaxBodyBytes)"},
		{"cassette check: raised, the same file is clean", []string{"cassette", "check", "--limit", "cassette_body_bytes=4KiB", bigBody},
			0, "1 cassettes checked, 0 with problems"},
		{"cassette check takes only the limits on cassettes", []string{"cassette", "check", "--limit", "depth=3", bigBody},
			exitUsage, "cassette check: --limit depth=3: cassette check reads only cassettes: use cassette_file_bytes or cassette_body_bytes"},
		{"cassette import: the same limit, the same error", []string{"cassette", "import", "-o", t.TempDir() + "/", "--limit", "cassette_body_bytes=1KiB", bigBody},
			exitUsage, "gzip decoding gives more than 1 KiB, the limit (raise it to read the file: --limit cassette_body_bytes=N"},
		{"cassette usage reads within the limits too", []string{"cassette", "usage", "--limit", "cassette_file_bytes=100", bigBody},
			exitUsage, "bytes, more than 100 bytes, the limit (raise it to read the file: --limit cassette_file_bytes=N, Limits.MaxFileBytes)"},
		{"run: a cassette over cassette_file_bytes fails its scenario, naming the cassette and the flag", append([]string{"run", "--limit", "cassette_file_bytes=1KiB"}, provider...),
			exitFailed, "cassettes/providers/openai_tool_call.yaml: file too large: "},
		{"run: raised, the scenario replays", append([]string{"run", "--limit", "cassette_file_bytes=1MiB", "--limit", "cassette_body_bytes=-1"}, provider...),
			0, "1 passed"},
		{"resume names a wrong limit as run does", []string{"resume", "--state-dir", t.TempDir(), "--limit", "cassete_file_bytes=1", "--continue", "x.yaml"},
			exitUsage, `(did you mean "cassette_file_bytes"?)`},
		{"serve reads its scenario within the limits", []string{"serve", "--scenario", "testdata/run_limits/deep.yaml", "--limit", "depth=3"},
			exitUsage, "deep.yaml:2:29: values are nested deeper than 3 levels (--limit depth=N, Limits.Depth)"},
		{"eval bounds the eval file", []string{"eval", "--limit", "file_bytes=10", "testdata/eval/sim-half.yaml"},
			exitUsage, "sim-half.yaml:1:1: the file is larger than the limit of 10 bytes (--limit file_bytes=N, Limits.FileBytes)"},
		{"eval bounds the scenarios it names with the same limits", []string{"eval", "--limit", "depth=4", "testdata/eval/sim-half.yaml"},
			exitUsage, "testdata/eval/scenarios/weather.yaml:6:20: values are nested deeper than 4 levels (--limit depth=N, Limits.Depth)"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(tc.args...)
			if code != tc.code || !strings.Contains(out+errOut, tc.want) {
				t.Errorf("agenteval %s: exit %d, want %d and output containing %q\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), code, tc.code, tc.want, out, errOut)
			}
		})
	}
}

// TestLimitFlagHelp keeps the help of --limit in step with the limits:
// every name Set takes is listed with its default, the cassette commands
// list the cassette limits, and nothing else.
func TestLimitFlagHelp(t *testing.T) {
	t.Parallel()
	d := harness.Limits{}.Resolved()
	defaults := map[string]string{
		"file_bytes": helpSize(d.FileBytes), "depth": strconv.Itoa(d.Depth), "values": strconv.Itoa(d.Values),
		"value_bytes": helpSize(d.ValueBytes), "recursion_limit": strconv.Itoa(d.RecursionLimit),
		"cassette_file_bytes": helpSize(d.CassetteFileBytes), "cassette_body_bytes": helpSize(d.CassetteBodyBytes),
		"dataset_bytes": helpSize(d.DatasetBytes), "dataset_rows": strconv.Itoa(d.DatasetRows),
	}
	for _, n := range harness.LimitNames() {
		def, ok := defaults[n]
		if !ok {
			t.Errorf("limit %s has no default in this test", n)
			continue
		}
		want := n + " (" + def + ")"
		if !strings.Contains(limitUsage, want) {
			t.Errorf("--limit help lacks %q:\n%s", want, limitUsage)
		}
		if strings.Contains(cassetteLimitUsage, " "+n+" (") != strings.HasPrefix(n, "cassette_") {
			t.Errorf("--limit help of the cassette commands: %s listed %v, want it listed only if it bounds cassettes:\n%s", n, !strings.HasPrefix(n, "cassette_"), cassetteLimitUsage)
		} else if strings.HasPrefix(n, "cassette_") && !strings.Contains(cassetteLimitUsage, want) {
			t.Errorf("--limit help of the cassette commands lacks %q", want)
		}
	}
}

// helpSize writes a size as the help shows it: 4MiB, 256MiB.
func helpSize(n int64) string {
	switch {
	case n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GiB"
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10)
}
