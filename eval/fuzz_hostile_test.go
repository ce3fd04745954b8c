package eval

import (
	"bytes"
	"io"
	"testing"

	"github.com/agenteval/agenteval/report/evalreport"
)

// FuzzReadJSON reads any bytes as an eval report, as --baseline, report
// compare and report merge read files from outside: ReadJSON returns an
// error or a report, and what it returns can be written in every format,
// merged with itself and compared with itself, without a panic.
func FuzzReadJSON(f *testing.F) {
	r := reportOf(cell("react/weather", "a", 7, 10, 0.25), cell("react/weather", "b", 3, 10, 0.5))
	r.Variants = append(r.Variants, evalreport.VariantInfo{Name: "b"})
	r.Cells[0].Thresholds = &evalreport.Thresholds{PassRate: &evalreport.MinThreshold{Min: 0.5}}
	r.Budget = &evalreport.Budget{MaxCostUSD: 2, SpentUSD: 1, Run: 20, Stopped: true, Reason: "max cost"}
	r.Shards = []string{"1/2"}
	Recompute(r)
	var good bytes.Buffer
	if err := evalreport.WriteJSON(&good, r); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:good.Len()/2])
	for _, seed := range []string{
		`{"schema":"` + evalreport.Schema + `"}`,
		`{"schema":"` + evalreport.Schema + `","cells":[{"id":"s","variant":"nope","trials":[{"index":-1,"status":"??"}]}]}`,
		`{"schema":"` + evalreport.Schema + `","control":"x","variants":[],"cells":[{"id":"s","variant":"x","trials":[{"index":1,"status":"pass"},{"index":1,"status":"pass"}]}]}`,
		`{"schema":"agenteval.eval/v0"}`,
		`{"schema":"` + evalreport.Schema + `","extra":1}`,
		`{"schema":"` + evalreport.Schema + `"} []`,
		`[]`, ``, `null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := evalreport.ReadJSON(bytes.NewReader(data))
		if err != nil {
			if r != nil {
				t.Fatalf("ReadJSON returned a report with its error %v", err)
			}
			return
		}
		for _, write := range []func(io.Writer, *evalreport.Report) error{
			evalreport.WriteJSON, evalreport.WriteJUnit, evalreport.WriteMarkdown, evalreport.WriteHTML, evalreport.WriteText,
		} {
			_ = write(io.Discard, r)
		}
		_, _ = Merge(r, r)
		if m, err := Merge(r); err == nil {
			_ = evalreport.WriteText(io.Discard, m)
		}
		c := Compare(r, r, "base.json", "cur.json")
		_ = evalreport.WriteComparison(io.Discard, c)
		if th, err := ParseThreshold("pass_rate:delta>=-0.05"); err == nil {
			if res, err := Check(c, []Threshold{th}); err == nil {
				_ = evalreport.WriteChecks(io.Discard, res)
			}
		}
	})
}
