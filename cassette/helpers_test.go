package cassette

import (
	"compress/gzip"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
)

// realDir is where the shared real cassettes live, relative to this
// package.
const realDir = "../../shared/real-cassettes"

// realCassettes lists the 16 real cassettes, sorted; the test is skipped
// when the folder is not there.
func realCassettes(t testing.TB) []string {
	t.Helper()
	if _, err := os.Stat(realDir); err != nil {
		t.Skipf("real cassettes not available: %v", err)
	}
	var files []string
	err := filepath.WalkDir(realDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// dialGuard is a transport that fails the test if anything tries to use
// it: replay must not open a connection.
type dialGuard struct {
	t     testing.TB
	calls atomic.Int32
}

func (g *dialGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	g.calls.Add(1)
	g.t.Errorf("network used during replay: %s %s", req.Method, req.URL)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrPermission}
}

func gzipString(t testing.TB, s string) string {
	t.Helper()
	var b strings.Builder
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
