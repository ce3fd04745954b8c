package report

import (
	"fmt"
	"io"
	"os"

	"github.com/agenteval/agenteval/atomicfile"
)

// files are the files WriteDir writes, by format.
var files = []FileWriter[*Report]{
	{Name: "agenteval.json", Write: WriteJSON},
	{Name: "junit.xml", Write: WriteJUnit},
	{Name: "summary.md", Write: WriteMarkdown},
	{Name: "report.html", Write: WriteHTML},
}

// WriteDir writes r into dir, creating it if need be, as agenteval.json
// (WriteJSON), junit.xml (WriteJUnit), summary.md (WriteMarkdown) and
// report.html (WriteHTML), replacing files of those names as one set
// (WriteFiles), never a truncated agenteval.json beside an old
// summary.md.
func WriteDir(dir string, r *Report) error {
	if err := WriteFiles(dir, r, files); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// ReadJSONFile reads the JSON report at path (see ReadJSON). An error
// names the file.
func ReadJSONFile(path string) (*Report, error) {
	return ReadFile(path, ReadJSON)
}

// FileWriter is one file of a set of reports: its name and its writer.
type FileWriter[R any] struct {
	Name  string
	Write func(io.Writer, R) error
}

// WriteFiles writes r into dir, creating it if need be, as the files,
// replacing files of those names as one set (atomicfile.WriteSet): all
// are written and synced to temporary files before any is renamed into
// place, so a failure (a full disk) leaves the previous run's files as
// they were.
func WriteFiles[R any](dir string, r R, files []FileWriter[R]) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	set := make([]atomicfile.File, len(files))
	for i, f := range files {
		set[i] = atomicfile.File{Name: f.Name, Write: func(w io.Writer) error { return f.Write(w, r) }}
	}
	return atomicfile.WriteSet(dir, 0o644, set...)
}

// ReadFile reads the report at path with read; an error names the file.
func ReadFile[R any](path string, read func(io.Reader) (R, error)) (R, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero R
		return zero, err
	}
	defer f.Close()
	r, err := read(f)
	if err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
