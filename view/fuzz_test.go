package view_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
	"github.com/agenteval/agenteval/store"
	"github.com/agenteval/agenteval/view"
)

// FuzzPagesEscape puts arbitrary text in every field a page shows (a
// scenario's name, message, diff and final answer; an eval's names and a
// trial's answer) and checks that every page renders without a server
// error and that no text holding "<" reaches a page unescaped.
func FuzzPagesEscape(f *testing.F) {
	f.Add("react/weather", "final: mismatch", "-Paris\n+Lyon", "It is sunny.")
	f.Add(`<script>alert(1)</script>`, `<img src=x onerror=alert(1)>`, "-<b>\n+</pre><pre>", `"><svg onload=alert(1)>`)
	f.Add("a&b", "]]></title><title>", "@@ -1 +1 @@\n-\x00\n+\u2028", "{{.}}")
	f.Fuzz(func(t *testing.T, name, message, diff, final string) {
		st, err := store.Open(t.Context(), ":memory:", store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		r := &report.Report{Schema: report.Schema, Failed: 1, Scenarios: []report.Scenario{{
			Name: name, File: name + ".yaml", Status: report.StatusFail, Message: message, Diff: diff, Final: final, Transcript: final,
			Expectations: []report.Expectation{{Name: name, Message: message, Diff: diff}},
			Exchanges:    []report.Exchange{{From: "user", To: "agent", Label: message, Kind: "input"}},
		}}}
		e := &evalreport.Report{Schema: evalreport.Schema, Eval: name, Control: name, Variants: []evalreport.VariantInfo{{Name: message}},
			Cells: []evalreport.Cell{{Scenario: name, ID: name, Variant: message, N: 1, Verdict: "fail",
				Trials: []evalreport.Trial{{Index: 1, Status: report.StatusFail, Message: diff, Final: final}}}}}
		if _, err := st.Add(t.Context(), store.Entry{Started: time.Unix(0, 0), Suite: name, Run: r}); err != nil {
			t.Skip(err) // a credential-shaped input is refused, rightly
		}
		if _, err := st.Add(t.Context(), store.Entry{Started: time.Unix(1, 0), Suite: name, Eval: e}); err != nil {
			t.Skip(err)
		}
		h := view.New(st)
		q := url.QueryEscape(name)
		for _, path := range []string{"/", "/run/1", "/run/1/scenario?name=" + q, "/eval/2", "/eval/2/cell?id=" + q, "/scenario?name=" + q, "/compare?a=1&b=1", "/compare?a=2&b=2"} {
			code, body := get(t, h, path)
			if code >= 500 {
				t.Fatalf("GET %s = %d:\n%s", path, code, body)
			}
			for _, s := range []string{name, message, diff, final} {
				if len(s) > 1 && strings.Contains(s, "<") && strings.Contains(body, s) {
					t.Fatalf("GET %s shows %q unescaped", path, s)
				}
			}
		}
	})
}
