package eval

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/harness"
)

// TestDocsExamples keeps docs/eval.md's examples true: its eval files
// parse, and its CSV and JSONL datasets and its labels file read without
// a problem.
func TestDocsExamples(t *testing.T) {
	data, err := os.ReadFile("../docs/eval.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(yaml|csv|jsonl)\n(.*?)```").FindAllStringSubmatch(string(data), -1)
	seen := map[string]int{}
	for _, b := range blocks {
		kind, body := b[1], b[2]
		switch {
		case kind == "yaml" && strings.HasPrefix(body, "# eval file"):
			if _, err := Parse("docs/eval.md", []byte(body)); err != nil {
				t.Errorf("docs/eval.md: an eval file example does not parse:\n%v\n%s", err, body)
			}
		case kind == "csv" && strings.HasPrefix(body, "scenario,"):
			kind = "labels"
			if _, ps := parseLabels("docs/eval.md.csv", []byte(body), harness.DefaultDatasetRows); len(ps) > 0 {
				t.Errorf("docs/eval.md: the labels example has problems: %v", ps)
			}
		case kind == "csv":
			if _, ps := csvRows("docs/eval.md", []byte(body), harness.DefaultDatasetRows); len(ps) > 0 {
				t.Errorf("docs/eval.md: the CSV example has problems: %v", ps)
			}
		case kind == "jsonl":
			if _, ps := jsonlRows("docs/eval.md", []byte(body), harness.DefaultDatasetRows); len(ps) > 0 {
				t.Errorf("docs/eval.md: the JSONL example has problems: %v", ps)
			}
		default:
			continue
		}
		seen[kind]++
	}
	if seen["yaml"] < 2 || seen["csv"] != 1 || seen["jsonl"] != 1 || seen["labels"] != 1 {
		t.Errorf("docs/eval.md examples checked: %v, want 2 eval files, a CSV and a JSONL dataset, a CSV labels file", seen)
	}
}
