package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/harness"
)

// TestParseWithinLimits: an eval file is bounded as a scenario file is,
// by the same harness.Limits and with the same messages, so that the
// --limit that raises one raises the other. Before, an eval file had
// fixed caps, no check before the YAML parser (60 KB of "[" cost it 1.4
// GB) and counted aliases by values only (a long string aliased a few
// thousand times expanded to gigabytes).
func TestParseWithinLimits(t *testing.T) {
	t.Parallel()
	const variants = "variants: [{name: a}]\n"
	nested := func(n int) string {
		return "tags: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n" + variants
	}
	// a 100 KB string used 200 times: 20 MB of text from 100 KB of YAML
	aliased := "description: &s \"" + strings.Repeat("x", 100_000) + "\"\ntags: [" + strings.TrimSuffix(strings.Repeat("*s, ", 200), ", ") + "]\n" + variants
	tests := []struct {
		reason string
		limits harness.Limits
		doc    string
		want   string // a problem; "" when the file parses
	}{
		{"nesting is refused where it passes the depth, before the parser runs", harness.Limits{},
			nested(300), "x.yaml:1:207: values are nested deeper than 200 levels (--limit depth=N, Limits.Depth)"},
		{"compact sequences nest as deep as brackets", harness.Limits{},
			"tags:\n" + strings.Repeat("- ", 300) + "x\n" + variants, "x.yaml:2:403: values are nested deeper than 200 levels"},
		{"a user who needs deeper values raises depth", harness.Limits{Depth: 400},
			"variants: [{name: a, params: {x: " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "}}]\n", ""},
		{"aliases count their bytes each time they are used", harness.Limits{},
			aliased, "the file expands to too much text: more than 16MiB of strings and keys, aliases counted each time they are used (--limit value_bytes=N, Limits.ValueBytes)"},
		{"value_bytes can be raised", harness.Limits{ValueBytes: 32 << 20},
			aliased, ""},
		{"values are counted as for scenarios", harness.Limits{Values: 5},
			"tags: [a, b, c, d, e, f]\n" + variants, "x.yaml:1:17: tags[3]: the file expands to too many values: more than 5, aliases counted each time they are used (--limit values=N, Limits.Values)"},
		{"a file over file_bytes is refused", harness.Limits{FileBytes: 16},
			variants + variants, "x.yaml:1:1: the file is larger than the limit of 16 bytes (--limit file_bytes=N, Limits.FileBytes)"},
		{"invalid UTF-8 is refused at its place, not replaced", harness.Limits{},
			"name: caf\xe9\n" + variants, "x.yaml:1:10: invalid UTF-8 (byte 0xe9): the file must be UTF-8 text"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			f, err := ParseWithin("x.yaml", []byte(tc.doc), tc.limits)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tc.want == "" && err != nil || !strings.Contains(got, tc.want) {
				t.Fatalf("ParseWithin = %.400s\nwant a problem containing %q", got, tc.want)
			}
			if err == nil && f.Limits != tc.limits {
				t.Errorf("File.Limits = %+v, want the limits it was parsed within, %+v", f.Limits, tc.limits)
			}
		})
	}
}

// TestLoadWithinRefusesLargeFile: LoadWithin reads no more than
// FileBytes and one byte of a file.
func TestLoadWithinRefusesLargeFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte("variants: [{name: a}]\n# "+strings.Repeat("x", 100)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadWithin(path, harness.Limits{FileBytes: 64})
	if err == nil || !strings.Contains(err.Error(), path+":1:1: the file is larger than the limit of 64 bytes (--limit file_bytes=N") {
		t.Errorf("LoadWithin = %v, want the file refused, naming it and the limit", err)
	}
}

// TestJSONLRowsHaveNoLineCap: a dataset row may be longer than 1 MiB (a
// long document to summarise); a 1 MiB line cap once refused one as
// "bufio.Scanner: token too long", without its line.
func TestJSONLRowsHaveNoLineCap(t *testing.T) {
	t.Parallel()
	doc := strings.Repeat("y", 2<<20)
	rows, problems := jsonlRows("d.jsonl", []byte(`{"id": "1"}`+"\n"+`{"doc": "`+doc+`"}`+"\n"), harness.DefaultDatasetRows)
	if len(problems) > 0 {
		t.Fatalf("jsonlRows = %v", problems)
	}
	if len(rows) != 2 || rows[1].vars["doc"] != doc {
		t.Errorf("jsonlRows read %d rows, want 2, the second with its %d bytes", len(rows), len(doc))
	}
}
