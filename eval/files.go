package eval

import (
	"fmt"
	"io"
	"os"

	"github.com/agenteval/agenteval/atomicfile"
)

// files are the files WriteDir writes, by format.
var files = []struct {
	name  string
	write func(io.Writer, *Report) error
}{
	{"eval.json", WriteJSON},
	{"eval-junit.xml", WriteJUnit},
	{"eval.md", WriteMarkdown},
	{"eval.html", WriteHTML},
}

// WriteDir writes r into dir, creating it if need be, as eval.json
// (WriteJSON), eval-junit.xml (WriteJUnit), eval.md (WriteMarkdown) and
// eval.html (WriteHTML), replacing files of those names as one set
// (atomicfile.WriteSet): all four are written and synced to temporary
// files before any is renamed into place, so a failure (a full disk)
// leaves the previous four as they were, never a truncated eval.json
// beside an older eval.md.
func WriteDir(dir string, r *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	set := make([]atomicfile.File, len(files))
	for i, f := range files {
		set[i] = atomicfile.File{Name: f.name, Write: func(w io.Writer) error { return f.write(w, r) }}
	}
	if err := atomicfile.WriteSet(dir, 0o644, set...); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
