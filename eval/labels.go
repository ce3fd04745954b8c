package eval

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agenteval/agenteval/harness"
)

// Label is a person's verdict on what a judge graded in one trial: the
// trial is named by its scenario, case, variant and index, the judge by
// its grader name (needed only when the trial has several judges), the
// person by Rater. Exactly one of Pass and Score is set.
type Label struct {
	Scenario, Case, Variant string
	Trial                   int
	Grader, Rater           string
	// Pass is a pass/fail label; Score a score in [0, 1].
	Pass  *bool
	Score *float64
	// File and Line locate the label.
	File string
	Line int
}

// labelColumns are the columns (CSV) or keys (JSONL) of a labels file.
var labelColumns = []string{"scenario", "case", "variant", "trial", "grader", "rater", "label", "score"}

// ReadLabels reads a labels file (.csv with a header row, or .jsonl, one
// object per line) within the dataset limits (harness.Limits
// DatasetBytes and DatasetRows). Every problem is reported at once as
// "file:line:col: field: message" in a *LoadError: an unknown column or
// key, a missing scenario or trial, a trial that is not a whole number
// from 1, a label other than pass or fail, a score outside [0, 1] or not
// a number, a row with both or neither of label and score, and the same
// trial, judge and rater labelled twice.
func ReadLabels(path string, limits harness.Limits) ([]Label, error) {
	lim := limits.Resolved()
	data, err := readDataset(path, lim.DatasetBytes)
	if err != nil {
		return nil, fmt.Errorf("read labels: %w", err)
	}
	labels, problems := parseLabels(path, data, lim.DatasetRows)
	if len(problems) > 0 {
		return nil, &LoadError{Problems: problems}
	}
	return labels, nil
}

// parseLabels reads a labels file's rows; the extension of path says
// whether it is CSV or JSON Lines.
func parseLabels(path string, data []byte, maxRows int) ([]Label, []Problem) {
	var rows []datasetRow
	var problems []Problem
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		rows, problems = csvRows(path, data, maxRows)
	case ".jsonl":
		rows, problems = jsonlRows(path, data, maxRows)
	default:
		return nil, []Problem{{File: path, Message: "expected a .csv or .jsonl labels file"}}
	}
	var labels []Label
	seen := map[string]int{}
	unknown := map[string]bool{}
	for _, r := range rows {
		bad := func(field, format string, args ...any) {
			problems = append(problems, Problem{File: r.file, Line: r.line, Col: r.col, Field: field, Message: fmt.Sprintf(format, args...)})
		}
		before := len(problems)
		for _, k := range sortedKeys(r.vars) {
			if !slices.Contains(labelColumns, k) && !unknown[k] {
				unknown[k] = true // said once, at its first row
				bad(k, "unknown column: expected %s", strings.Join(labelColumns, ", "))
			}
		}
		l := Label{Scenario: r.vars["scenario"], Case: r.vars["case"], Variant: r.vars["variant"], Grader: r.vars["grader"], Rater: r.vars["rater"], File: r.file, Line: r.line}
		if l.Scenario == "" {
			bad("scenario", "missing: every label names the trial's scenario")
		}
		switch t, err := strconv.Atoi(strings.TrimSpace(r.vars["trial"])); {
		case r.vars["trial"] == "":
			bad("trial", "missing: every label names the trial's number, from 1")
		case err != nil || t < 1:
			bad("trial", "%q: expected a whole number from 1", r.vars["trial"])
		default:
			l.Trial = t
		}
		label, score := strings.TrimSpace(r.vars["label"]), strings.TrimSpace(r.vars["score"])
		switch {
		case label != "" && score != "":
			bad("label", "both label and score: a row has one of them")
		case label == "" && score == "":
			bad("label", "missing: a row has a label (pass or fail) or a score in [0, 1]")
		case label != "":
			switch strings.ToLower(label) {
			case "pass":
				l.Pass = ptr(true)
			case "fail":
				l.Pass = ptr(false)
			default:
				bad("label", "%q: expected pass or fail", label)
			}
		default:
			s, err := strconv.ParseFloat(score, 64)
			if err != nil || math.IsNaN(s) || s < 0 || s > 1 {
				bad("score", "%q: expected a number in [0, 1]", score)
			} else {
				l.Score = ptr(s)
			}
		}
		if len(problems) > before {
			continue
		}
		key := strings.Join([]string{l.Scenario, l.Case, l.Variant, strconv.Itoa(l.Trial), l.Grader, l.Rater}, "\x00")
		if at, dup := seen[key]; dup {
			bad("trial", "this trial, judge and rater are labelled at line %d too", at)
			continue
		}
		seen[key] = l.Line
		labels = append(labels, l)
	}
	return labels, problems
}

func ptr[T any](v T) *T { return &v }

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
