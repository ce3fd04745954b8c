package evalreport

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWriteDirFailureKeepsPreviousSet: an eval report that cannot be
// written leaves the previous one's four files as they were (issue 19,
// item 4: eval --report-dir once wrote each in place, and a failure left
// a truncated eval.json beside the previous run's eval.md). Here the JSON
// encoder refuses a NaN, as a full disk would refuse a write.
func TestWriteDirFailureKeepsPreviousSet(t *testing.T) {
	dir := t.TempDir()
	if err := WriteDir(dir, fixture()); err != nil {
		t.Fatalf("WriteDir: %v", err)
	}
	before := readFiles(t, dir)
	if len(before) != 4 {
		t.Fatalf("WriteDir wrote %d files, want 4: %v", len(before), before)
	}
	bad := fixture()
	bad.Cells = bad.Cells[:1]
	bad.Budget.SpentUSD = math.NaN()
	if err := WriteDir(dir, bad); err == nil {
		t.Fatal("WriteDir of a report with a NaN succeeded")
	}
	if d := cmp.Diff(before, readFiles(t, dir)); d != "" {
		t.Errorf("files after a failed WriteDir (-want +got):\n%s", d)
	}
}

// readFiles reads every file of dir, by name.
func readFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}
