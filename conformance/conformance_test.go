package conformance

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// vectorsDir is the shared conformance folder beside the project.
const vectorsDir = "../../shared/conformance/vectors"

// TestVectors runs every public vector through the engine; every one must
// pass (DefaultOptions marks no API unsupported).
func TestVectors(t *testing.T) {
	if _, err := os.Stat(vectorsDir); err != nil {
		t.Skipf("no conformance vectors at %s: %v", vectorsDir, err)
	}
	vectors, err := LoadDir(vectorsDir)
	if err != nil {
		t.Fatalf("LoadDir(%s): %v", vectorsDir, err)
	}
	opts := DefaultOptions()
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			r := Run(context.Background(), v, opts)
			switch r.Status {
			case StatusSkip:
				t.Skipf("%s (%s): %s", v.Name, filepath.Base(v.Path), r.Diff)
			case StatusFail:
				t.Errorf("vector %s (%s): %s", v.Name, v.About, r.Diff)
			}
		})
	}
}
