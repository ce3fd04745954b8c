package evalreport

import (
	"fmt"
	"io"
	"os"

	"github.com/agenteval/agenteval/atomicfile"
)

// files are what WriteDir writes, by writer.
var files = []struct {
	name  string
	write func(io.Writer, *Report) error
}{
	{"eval.json", WriteJSON},
	{"eval-junit.xml", WriteJUnit},
	{"eval.md", WriteMarkdown},
	{"eval.html", WriteHTML},
}

// WriteDir writes the report into dir (created if missing) as eval.json,
// eval-junit.xml, eval.md and eval.html, the files "agenteval eval
// --report-dir" leaves, as one set (atomicfile.WriteSet): all four are
// written and synced before any replaces the previous run's, so a
// failure leaves that run's four files as they were.
func WriteDir(dir string, r *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	set := make([]atomicfile.File, len(files))
	for i, f := range files {
		set[i] = atomicfile.File{Name: f.name, Write: func(w io.Writer) error { return f.write(w, r) }}
	}
	if err := atomicfile.WriteSet(dir, 0o644, set...); err != nil {
		return fmt.Errorf("write eval report: %w", err)
	}
	return nil
}

// ReadJSONFile reads the eval report at path (see ReadJSON). An error
// names the file.
func ReadJSONFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
