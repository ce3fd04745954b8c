package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/harness"
)

func problemStrings(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

// checkRows compares what a dataset reader returned with a table case:
// its problems, and when there are none, the rows' values and lines (with
// problems, the good rows are read, but Prepare fails).
func checkRows(t *testing.T, rows []datasetRow, problems []Problem, want []map[string]string, wantLines []int, wantProblems []string) {
	t.Helper()
	if diff := cmp.Diff(wantProblems, problemStrings(problems)); diff != "" {
		t.Errorf("problems mismatch (-want +got):\n%s", diff)
	}
	if len(wantProblems) > 0 {
		return
	}
	var got []map[string]string
	var lines []int
	for _, r := range rows {
		got = append(got, r.vars)
		lines = append(lines, r.line)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows mismatch (-want +got):\n%.2000s", diff)
	}
	if diff := cmp.Diff(wantLines, lines); diff != "" {
		t.Errorf("lines mismatch (-want +got):\n%s", diff)
	}
}

func TestJSONLRows(t *testing.T) {
	tests := []struct {
		reason   string
		src      string
		want     []map[string]string // the rows' variables
		lines    []int               // the rows' lines
		problems []string
	}{
		{reason: "one object per line is one row; a number keeps its text, null is empty",
			src:   `{"city": "Paris", "temp": 21}` + "\n" + `{"city": "Lima", "temp": 18.50, "rain": true, "note": null}` + "\n",
			want:  []map[string]string{{"city": "Paris", "temp": "21"}, {"city": "Lima", "temp": "18.50", "rain": "true", "note": ""}},
			lines: []int{1, 2}},
		{reason: "blank lines, CRLF line ends and a byte order mark are not rows; lines keep their numbers",
			src:   "\ufeff\r\n" + `{"city": "Paris"}` + "\r\n   \r\n" + `{"city": "Lima"}`,
			want:  []map[string]string{{"city": "Paris"}, {"city": "Lima"}},
			lines: []int{2, 4}},
		{reason: "a line that is not JSON is an error at its line and column",
			src:      `{"city": "Paris"}` + "\n" + `{"city": Lima}` + "\n",
			problems: []string{`x.jsonl:2:10: not JSON: invalid character 'L' looking for beginning of value`}},
		{reason: "a line cut short says so",
			src:      `{"city": "Paris"`,
			problems: []string{`x.jsonl:1:17: the line ends inside its JSON object`}},
		{reason: "a row that is an array is not a row",
			src:      `["Paris"]`,
			problems: []string{`x.jsonl:1:1: a row is a JSON object, not an array`}},
		{reason: "nor is a string",
			src:      `  "Paris"`,
			problems: []string{`x.jsonl:1:3: a row is a JSON object, not a string`}},
		{reason: "a nested value is an error naming its key",
			src:      `{"city": {"name": "Paris"}, "tags": ["a"]}`,
			problems: []string{`x.jsonl:1:10: city: values are strings, numbers, booleans or null, not an object`, `x.jsonl:1:37: tags: values are strings, numbers, booleans or null, not an array`}},
		{reason: "a key given twice is an error, not a silent last-wins",
			src:      `{"city": "Paris", "city": "Lima"}`,
			problems: []string{`x.jsonl:1:19: city: the key is in the row twice`}},
		{reason: "two objects on one line are an error",
			src:      `{"city": "Paris"} {"city": "Lima"}`,
			problems: []string{`x.jsonl:1:19: one JSON object per line: more follows the row's`}},
		{reason: "an empty file is an error, not a dataset of no cases",
			src:      "\n\n",
			problems: []string{`x.jsonl: no rows: a .jsonl dataset has one JSON object per line`}},
		{reason: "every bad line is reported at once, in line order",
			src:      `[1]` + "\n" + `{"city": "Paris"}` + "\n" + `{"city": [1]}` + "\n",
			problems: []string{`x.jsonl:1:1: a row is a JSON object, not an array`, `x.jsonl:3:10: city: values are strings, numbers, booleans or null, not an array`}},
		{reason: "a line longer than a scanner's buffer is still one row",
			src:   `{"text": "` + strings.Repeat("a", 2<<20) + `"}`,
			want:  []map[string]string{{"text": strings.Repeat("a", 2<<20)}},
			lines: []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			rows, problems := jsonlRows("x.jsonl", []byte(tc.src), harness.DefaultDatasetRows)
			checkRows(t, rows, problems, tc.want, tc.lines, tc.problems)
		})
	}
}

func TestCSVRows(t *testing.T) {
	tests := []struct {
		reason   string
		src      string
		want     []map[string]string
		lines    []int
		problems []string
	}{
		{reason: "the header names the variables, spaces around names dropped",
			src:   "city , temp\nParis,21\nLima, 18.50\n",
			want:  []map[string]string{{"city": "Paris", "temp": "21"}, {"city": "Lima", "temp": " 18.50"}},
			lines: []int{2, 3}},
		{reason: "a byte order mark (Excel's) is not part of the first name",
			src:   "\ufeffcity\nParis\n",
			want:  []map[string]string{{"city": "Paris"}},
			lines: []int{2}},
		{reason: "a quoted field over two lines is one row, at the line it starts",
			src:   "city,note\nParis,\"two\nlines\"\nLima,x\n",
			want:  []map[string]string{{"city": "Paris", "note": "two\nlines"}, {"city": "Lima", "note": "x"}},
			lines: []int{2, 4}},
		{reason: "a row with another number of fields is an error at its line; the others are still read",
			src:      "city,temp\nParis\nLima,18,x\nRome,20\n",
			problems: []string{"x.csv:2:1: wrong number of fields", "x.csv:3:1: wrong number of fields"}},
		{reason: "a bare quote is an error at its line and column",
			src:      "city,temp\nPa\"ris,21\n",
			problems: []string{`x.csv:2:3: bare " in non-quoted-field`}},
		{reason: "an empty or repeated column name is an error at its column",
			src:      "city,,city\nParis,1,2\n",
			problems: []string{"x.csv:1:6: column 2 has no name: the first row names the variables", "x.csv:1:7: city: column 3 has the name of column 1"}},
		{reason: "an empty file has no header",
			src:      "",
			problems: []string{"x.csv: no header row: the first row names the variables"}},
		{reason: "a header alone is no dataset",
			src:      "city,temp\n",
			problems: []string{"x.csv: no rows under the header"}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			rows, problems := csvRows("x.csv", []byte(tc.src), harness.DefaultDatasetRows)
			checkRows(t, rows, problems, tc.want, tc.lines, tc.problems)
		})
	}
}

// TestDatasetCases runs eval files with datasets through Prepare: case
// names, and every problem at the file:line of the row it concerns.
func TestDatasetCases(t *testing.T) {
	scenario, err := os.ReadFile("testdata/scenarios/capital.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		reason   string
		datasets string            // the eval file's datasets: list
		files    map[string]string // dataset files
		want     []string          // the cells' IDs under one variant, or
		problems []string          // the problems
		limits   harness.Limits    // the limits the eval file is loaded within
	}{
		{reason: "JSONL rows are cases named by the name template",
			datasets: "  - {scenario: capital, file: c.jsonl, name: \"{{country}}\"}\n",
			files:    map[string]string{"c.jsonl": `{"country": "Peru", "capital": "Lima"}` + "\n" + `{"country": "Chile", "capital": "Santiago"}` + "\n"},
			want:     []string{"capital[Chile]", "capital[Peru]"}},
		{reason: "without a name template cases are numbered, file rows first, then inline rows",
			datasets: "  - scenario: capital\n    file: c.csv\n    rows: [{country: Chile, capital: Santiago}]\n",
			files:    map[string]string{"c.csv": "country,capital\nPeru,Lima\n"},
			want:     []string{"capital[case-1]", "capital[case-2]"}},
		{reason: "a bad JSONL line is reported at the dataset's file:line and the key",
			datasets: "  - {scenario: capital, file: c.jsonl}\n",
			files:    map[string]string{"c.jsonl": `{"country": "Peru", "capital": "Lima"}` + "\n" + `{"country": ["Chile"], "capital": "Santiago"}` + "\n"},
			problems: []string{"/c.jsonl:2:13: country: values are strings, numbers, booleans or null, not an array"}},
		{reason: "two rows with the same case name: the second is reported, naming the first",
			datasets: "  - {scenario: capital, file: c.jsonl, name: \"{{capital}}\"}\n",
			files:    map[string]string{"c.jsonl": `{"country": "Peru", "capital": "Lima"}` + "\n\n" + `{"country": "Peru (again)", "capital": "Lima"}` + "\n"},
			problems: []string{`/c.jsonl:3:1: case name "Lima" is also the row's at `, `/c.jsonl:1 (datasets[0].name)`}},
		{reason: "a CSV row without the name template's variable is reported at its line",
			datasets: "  - {scenario: capital, file: c.csv, name: \"{{country}}-{{city}}\"}\n",
			files:    map[string]string{"c.csv": "country,capital\nPeru,Lima\n"},
			problems: []string{`/c.csv:2:1: the row has no city for the case name (datasets[0].name "{{country}}-{{city}}")`}},
		{reason: "a case name that cannot name a folder is reported at its inline row",
			datasets: "  - scenario: capital\n    name: \"{{country}}\"\n    rows:\n      - {country: São Paulo, capital: x}\n",
			problems: []string{`e.yaml:7:9: datasets[0].rows[0]: case name "São Paulo" (datasets[0].name): use letters`}},
		{reason: "two datasets of one scenario must not name two cases alike",
			datasets: "  - {scenario: capital, rows: [{country: Peru, capital: Lima}]}\n  - {scenario: capital, rows: [{country: Chile, capital: Santiago}]}\n",
			problems: []string{"datasets[1].name: case case-1 (", "of scenario capital is also a case of another dataset"}},
		{reason: "an empty dataset file is an error naming it",
			datasets: "  - {scenario: capital, file: c.jsonl}\n",
			files:    map[string]string{"c.jsonl": ""},
			problems: []string{"/c.jsonl: no rows"}},
		{reason: "every dataset's problems at once",
			datasets: "  - {scenario: capital, file: a.csv}\n  - {scenario: capital, file: b.jsonl}\n",
			files:    map[string]string{"a.csv": "country,capital\nPeru\n", "b.jsonl": "[]\n"},
			problems: []string{"/a.csv:2:1: wrong number of fields", "/b.jsonl:1:1: a row is a JSON object, not an array"}},
		{reason: "a dataset file over dataset_bytes is refused before it is read whole, naming the field, the file and the limit",
			datasets: "  - {scenario: capital, file: c.csv}\n",
			files:    map[string]string{"c.csv": "country,capital\nPeru,Lima\nChile,Santiago\n"},
			limits:   harness.Limits{DatasetBytes: 20},
			problems: []string{"datasets[0].file: ", "/c.csv: the dataset is larger than the limit of 20 bytes (--limit dataset_bytes=N, Limits.DatasetBytes)"}},
		{reason: "a CSV dataset with more rows than dataset_rows stops at the first row past it",
			datasets: "  - {scenario: capital, file: c.csv}\n",
			files:    map[string]string{"c.csv": "country,capital\nPeru,Lima\nChile,Santiago\nCuba,Havana\n"},
			limits:   harness.Limits{DatasetRows: 2},
			problems: []string{"/c.csv:4:1: the dataset has more than 2 rows, the limit (--limit dataset_rows=N, Limits.DatasetRows)"}},
		{reason: "a JSONL dataset too, blank lines not counted",
			datasets: "  - {scenario: capital, file: c.jsonl}\n",
			files:    map[string]string{"c.jsonl": `{"country": "Peru", "capital": "Lima"}` + "\n\n" + `{"country": "Cuba", "capital": "Havana"}` + "\n"},
			limits:   harness.Limits{DatasetRows: 1},
			problems: []string{"/c.jsonl:3:1: the dataset has more than 1 rows, the limit"}},
		{reason: "raising dataset_rows admits the rows",
			datasets: "  - {scenario: capital, file: c.csv, name: \"{{country}}\"}\n",
			files:    map[string]string{"c.csv": "country,capital\nPeru,Lima\nChile,Santiago\n"},
			limits:   harness.Limits{DatasetRows: 2},
			want:     []string{"capital[Chile]", "capital[Peru]"}},
		{reason: "reading a file of bad lines stops after 100 problems, saying so",
			datasets: "  - {scenario: capital, file: c.jsonl}\n",
			files:    map[string]string{"c.jsonl": strings.Repeat("[]\n", 1000)},
			problems: []string{"/c.jsonl:100:1: a row is a JSON object", "/c.jsonl:101:1: 100 problems: the rest of the file is not read"}},
		{reason: "a value the template lacks is an error naming the case and its row",
			datasets: "  - {scenario: capital, file: c.jsonl, name: \"{{country}}\"}\n",
			files:    map[string]string{"c.jsonl": `{"country": "Peru"}` + "\n"},
			problems: []string{"case Peru (", "/c.jsonl:1): no value for {{capital}}"}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "scenarios", "capital.yaml"), scenario, 0o644); err != nil {
				t.Fatal(err)
			}
			for name, data := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, "e.yaml")
			src := "trials: 1\nvariants: [{name: a}]\ndatasets:\n" + tc.datasets
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := LoadWithin(path, tc.limits)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Prepare(f)
			if tc.problems != nil {
				if err == nil {
					t.Fatalf("Prepare: no error, want %q", tc.problems)
				}
				var le *LoadError
				if strings.Contains(tc.reason, "template lacks") {
					le = nil // instantiate's error names the scenario file
				} else if !errors.As(err, &le) {
					t.Errorf("Prepare error %v is not a *LoadError", err)
				}
				for _, w := range tc.problems {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("Prepare error lacks %q:\n%s", w, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, c := range p.cells {
				ids = append(ids, c.id)
			}
			if diff := cmp.Diff(tc.want, ids); diff != "" {
				t.Errorf("cells mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzDatasetRows: the dataset readers never panic on outside input, and
// every problem they report is in the file they were given, at a line of
// it (or at none, for the file as a whole).
func FuzzDatasetRows(f *testing.F) {
	f.Add([]byte(`{"city": "Paris", "n": 1}`+"\n"+`[1]`), true)
	f.Add([]byte(`{"a": {"b": 1}, "a": null} {}`), true)
	f.Add([]byte("city,temp\nParis,21\nLima\n\"x"), false)
	f.Add([]byte("\ufeff,a,a\n1,2,3\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) {
		read := csvRows
		if jsonl {
			read = jsonlRows
		}
		rows, problems := read("f", data, harness.DefaultDatasetRows)
		lines := strings.Count(string(data), "\n") + 1
		for _, p := range problems {
			if p.File != "f" || p.Line < 0 || p.Line > lines || (p.Line > 0 && p.Col < 1) {
				t.Fatalf("problem %v is not at a place of the file (%d lines)", p, lines)
			}
		}
		for _, r := range rows {
			if r.line < 1 || r.line > lines {
				t.Fatalf("row at line %d of %d", r.line, lines)
			}
		}
	})
}
