//go:build linux

package cassette

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileEnv names the file and the operation a child process of
// TestHostileInputStaysWithinBudget runs.
const hostileEnv = "AGENTEVAL_CASSETTE_HOSTILE"

// TestHostileInputStaysWithinBudget reads hostile files in a child
// process each, so that its peak memory is its own: a 2.3 MB cassette
// whose body is a gzip bomb (it decodes to about 2.4 GB), the same body in
// a vcrpy file to import, and a YAML alias bomb. Each must end in under
// 2 s with a clear error, the child's peak resident memory under 200 MB.
// The old code decoded the whole bomb ("fatal error: out of memory" in
// decodeBody): so that it cannot take the machine with it, the child
// runs under ulimit -v 4 GiB and a watchdog ends it once its heap passes
// 512 MiB.
func TestHostileInputStaysWithinBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's address space does not fit the child's ulimit, and its speed the time budget")
	}
	if testing.Short() {
		t.Skip("builds a 2.3 MB gzip bomb")
	}
	bomb := gzipBomb(t, 1700<<10)
	tests := []struct {
		reason, op string
		data       []byte
		want       string
	}{
		{"a go-vcr cassette of 2.3 MB whose response body is a gzip bomb", "load",
			encodedCassette(t, "response", "gzip", bomb),
			"interactions[0].response.body: Content-Encoding gzip: gzip decoding gives more than 64 MiB, the limit"},
		{"a vcrpy cassette whose !!binary body is the same bomb", "import",
			[]byte("interactions:\n- request:\n    body: null\n    method: POST\n    uri: https://x/v1\n  response:\n    body:\n      string: !!binary |\n        " +
				base64String(bomb) + "\n    headers:\n      Content-Encoding:\n      - gzip\n    status:\n      code: 200\n      message: OK\nversion: 1\n"),
			"response.body: Content-Encoding gzip: gzip decoding gives more than 64 MiB"},
		{"a gzip-compressed cassette file that is itself the bomb", "import", bomb,
			"gzip decoding gives more than 256 MiB, the limit (raise it to read the file: --limit cassette_file_bytes=N, Limits.MaxFileBytes)"},
		{"a pydantic-ai cassette whose parsed_body is a YAML alias bomb", "import", aliasBomb(),
			"request.parsed_body: expands to more than 64 MiB, the limit"},
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "hostile.yaml")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", "-c", `ulimit -v 4194304 && exec "$0" "$@"`, exe, "-test.run=^TestHostileInputChild$", "-test.v")
			cmd.Env = append(os.Environ(), hostileEnv+"="+tc.op+":"+path)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child failed: %v\n%.2000s", err, out)
			}
			var elapsed time.Duration
			var rssKiB int64
			var msg string
			for _, line := range strings.Split(string(out), "\n") {
				line = strings.TrimSpace(line)
				if v, ok := strings.CutPrefix(line, "elapsed "); ok {
					elapsed, _ = time.ParseDuration(v)
				}
				if v, ok := strings.CutPrefix(line, "maxrss_kib "); ok {
					rssKiB, _ = strconv.ParseInt(v, 10, 64)
				}
				if v, ok := strings.CutPrefix(line, "error "); ok {
					msg = v
				}
			}
			t.Logf("%s: %v, peak RSS %d MiB", tc.op, elapsed, rssKiB>>10)
			if elapsed <= 0 || rssKiB <= 0 {
				t.Fatalf("the child did not report:\n%s", out)
			}
			if elapsed >= 2*time.Second {
				t.Errorf("%s took %v, want under 2s", tc.op, elapsed)
			}
			if rssKiB >= 200<<10 {
				t.Errorf("%s peaked at %d MiB resident, want under 200 MB", tc.op, rssKiB>>10)
			}
			if !strings.Contains(msg, tc.want) || !strings.Contains(msg, path) {
				t.Errorf("%s error = %q\nwant it to name %s and contain %q", tc.op, msg, path, tc.want)
			}
		})
	}
}

// TestHostileInputChild is the child of TestHostileInputStaysWithinBudget;
// it does nothing unless that test runs it.
func TestHostileInputChild(t *testing.T) {
	spec := os.Getenv(hostileEnv)
	if spec == "" {
		t.Skip("run by TestHostileInputStaysWithinBudget")
	}
	op, path, _ := strings.Cut(spec, ":")
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		watchHeap(512<<20, stop)
	}()
	defer func() {
		close(stop)
		<-watched
	}()
	start := time.Now()
	var err error
	if op == "import" {
		_, _, err = Import(path)
	} else {
		_, err = Load(path)
	}
	elapsed := time.Since(start)
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("elapsed %v\nmaxrss_kib %d\n", elapsed, ru.Maxrss)
	if err != nil {
		fmt.Printf("error %s\n", strings.ReplaceAll(err.Error(), "\n", " | "))
	}
}

// watchHeap ends the process as soon as its heap passes limit bytes, or
// returns when stop is closed.
func watchHeap(limit uint64, stop <-chan struct{}) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for {
		select {
		case <-stop:
			return
		default:
		}
		metrics.Read(sample)
		if n := sample[0].Value.Uint64(); n > limit {
			fmt.Printf("heap %d MiB, over the %d MiB watchdog\n", n>>20, limit>>20)
			os.Exit(3)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
