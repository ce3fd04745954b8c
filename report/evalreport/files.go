package evalreport

import (
	"fmt"

	"github.com/agenteval/agenteval/report"
)

// files are what WriteDir writes, by writer.
var files = []report.FileWriter[*Report]{
	{Name: "eval.json", Write: WriteJSON},
	{Name: "eval-junit.xml", Write: WriteJUnit},
	{Name: "eval.md", Write: WriteMarkdown},
	{Name: "eval.html", Write: WriteHTML},
}

// WriteDir writes the report into dir (created if missing) as eval.json,
// eval-junit.xml, eval.md and eval.html, the files "agenteval eval
// --report-dir" leaves, as one set (report.WriteFiles): all four are
// written and synced before any replaces the previous run's, so a
// failure leaves that run's four files as they were.
func WriteDir(dir string, r *Report) error {
	if err := report.WriteFiles(dir, r, files); err != nil {
		return fmt.Errorf("write eval report: %w", err)
	}
	return nil
}

// ReadJSONFile reads the eval report at path (see ReadJSON). An error
// names the file.
func ReadJSONFile(path string) (*Report, error) {
	return report.ReadFile(path, ReadJSON)
}
