package eval

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// FuzzReadJSON reads any bytes as an eval report, as --baseline, report
// compare and report merge read files from outside: ReadJSON returns an
// error or a report, and what it returns can be written in every format,
// merged with itself and compared with itself, without a panic.
func FuzzReadJSON(f *testing.F) {
	r := reportOf(cell("react/weather", "a", 7, 10, 0.25), cell("react/weather", "b", 3, 10, 0.5))
	r.Variants = append(r.Variants, VariantInfo{Name: "b"})
	r.Cells[0].Thresholds = &Thresholds{PassRate: &MinThreshold{Min: 0.5}}
	r.Budget = &Budget{MaxCostUSD: 2, SpentUSD: 1, Run: 20, Stopped: true, Reason: "max cost"}
	r.Shards = []string{"1/2"}
	Recompute(r)
	var good bytes.Buffer
	if err := WriteJSON(&good, r); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:good.Len()/2])
	for _, seed := range []string{
		`{"schema":"` + Schema + `"}`,
		`{"schema":"` + Schema + `","cells":[{"id":"s","variant":"nope","trials":[{"index":-1,"status":"??"}]}]}`,
		`{"schema":"` + Schema + `","control":"x","variants":[],"cells":[{"id":"s","variant":"x","trials":[{"index":1,"status":"pass"},{"index":1,"status":"pass"}]}]}`,
		`{"schema":"agenteval.eval/v0"}`,
		`{"schema":"` + Schema + `","extra":1}`,
		`{"schema":"` + Schema + `"} []`,
		`[]`, ``, `null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			if r != nil {
				t.Fatalf("ReadJSON returned a report with its error %v", err)
			}
			return
		}
		for name, write := range map[string]func(io.Writer, *Report) error{
			"json": WriteJSON, "junit": WriteJUnit, "markdown": WriteMarkdown, "html": WriteHTML, "text": WriteText,
		} {
			_ = name
			_ = write(io.Discard, r)
		}
		_, _ = Merge(r, r)
		if m, err := Merge(r); err == nil {
			_ = WriteText(io.Discard, m)
		}
		c := Compare(r, r, "base.json", "cur.json")
		_ = WriteComparison(io.Discard, c)
		if th, err := ParseThreshold("pass_rate:delta>=-0.05"); err == nil {
			_, _ = Check(c, []Threshold{th})
		}
	})
}

// FuzzDatasetRows reads any bytes as a CSV and as a JSONL dataset:
// errors or rows, never a panic; an error in a JSONL file names its line.
func FuzzDatasetRows(f *testing.F) {
	for _, seed := range []string{
		"country,capital\nPeru,Lima\nFrance,Paris\n",
		"a,b\n1\n",
		"\"unterminated,x\n",
		"",
		`{"country": "Peru", "capital": "Lima"}` + "\n" + `{"country": "France"}` + "\n",
		`{"n": 1, "ok": true, "x": null}` + "\n\n",
		`{"nested": {"a": 1}}`,
		`[1, 2]`,
		`{"a": "` + strings.Repeat("x", 100) + `"}` + "\n" + `{"a":`,
		strings.Repeat("[", 20000),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = csvRows(data)
		if _, err := jsonlRows(data); err != nil && !strings.HasPrefix(err.Error(), "line ") {
			t.Fatalf("jsonlRows error %q does not name its line", err)
		}
	})
}
