package eval

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
)

func TestParseLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason, path, data string
		want               []string // problems, or the labels as "scenario[case] variant trial grader rater pass/score"
	}{
		{"a CSV with every column reads", "l.csv",
			"scenario,case,variant,trial,grader,rater,label\nsupport,Peru,terse,3,helpful,ann,pass\nsupport,,,1,,,FAIL\n",
			[]string{"support[Peru] terse 3 helpful ann pass=true", "support[] - 1 - - pass=false"}},
		{"a JSONL file with scores reads, numbers as written", "l.jsonl",
			`{"scenario": "support", "trial": 2, "score": 0.5}` + "\n\n" + `{"scenario": "support", "trial": "4", "score": 1, "rater": "bob"}` + "\n",
			[]string{"support[] - 2 - - score=0.5", "support[] - 4 - bob score=1"}},
		{"every problem at once, each at its file:line and field", "l.csv",
			"scenario,trial,label,score,verdict\n,0,maybe,,x\nsupport,x,,2,y\nsupport,1,pass,1,z\nsupport,2,,,\n",
			[]string{
				"l.csv:2:1: verdict: unknown column: expected scenario, case, variant, trial, grader, rater, label, score",
				"l.csv:2:1: scenario: missing: every label names the trial's scenario",
				`l.csv:2:1: trial: "0": expected a whole number from 1`,
				`l.csv:2:1: label: "maybe": expected pass or fail`,
				`l.csv:3:1: trial: "x": expected a whole number from 1`,
				`l.csv:3:1: score: "2": expected a number in [0, 1]`,
				"l.csv:4:1: label: both label and score: a row has one of them",
				"l.csv:5:1: label: missing: a row has a label (pass or fail) or a score in [0, 1]",
			}},
		{"a trial labelled twice by one rater for one judge is refused, naming both lines", "l.csv",
			"scenario,trial,label\nsupport,1,pass\nsupport,1,fail\n",
			[]string{"l.csv:3:1: trial: this trial, judge and rater are labelled at line 2 too"}},
		{"a score that is not a number", "l.jsonl", `{"scenario": "s", "trial": 1, "score": "NaN"}` + "\n",
			[]string{`l.jsonl:1:1: score: "NaN": expected a number in [0, 1]`}},
		{"a line that is not JSON is at its line and column", "l.jsonl", "{\"scenario\": \"s\", \"trial\": 1, \"label\": \"pass\"}\n{oops\n",
			[]string{"l.jsonl:2:2: not JSON: invalid character 'o'"}},
		{"another extension is refused", "l.txt", "x", []string{"l.txt: expected a .csv or .jsonl labels file"}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			labels, problems := parseLabels(tc.path, []byte(tc.data), 1000)
			var got []string
			for _, p := range problems {
				got = append(got, p.String())
			}
			if len(problems) == 0 {
				for _, l := range labels {
					got = append(got, labelText(l))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parseLabels mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func labelText(l Label) string {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	v := ""
	if l.Pass != nil {
		v = "pass=" + map[bool]string{true: "true", false: "false"}[*l.Pass]
	} else {
		v = "score=" + strconv.FormatFloat(*l.Score, 'g', -1, 64)
	}
	return l.Scenario + "[" + l.Case + "] " + dash(l.Variant) + " " + strconv.Itoa(l.Trial) + " " + dash(l.Grader) + " " + dash(l.Rater) + " " + v
}

// FuzzReadLabels: no input makes the labels reader panic, and whatever it
// refuses it refuses with problems that name the file and a line.
func FuzzReadLabels(f *testing.F) {
	f.Add("l.csv", []byte("scenario,case,variant,trial,grader,rater,label\nsupport,Peru,terse,3,helpful,ann,pass\n"))
	f.Add("l.csv", []byte("scenario,trial,score\ns,1,0.5\ns,\"2\n"))
	f.Add("l.jsonl", []byte(`{"scenario": "s", "trial": 1, "label": "fail"}`+"\n"+`{"scenario": 1}`))
	f.Add("l.jsonl", []byte("\ufeff{\"trial\": [1]}\n{"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		path := "l.csv"
		if strings.HasSuffix(name, "l") {
			path = "l.jsonl"
		}
		labels, problems := parseLabels(path, data, 50)
		for _, p := range problems {
			if p.File != path {
				t.Fatalf("problem %q does not name the file", p.String())
			}
		}
		for _, l := range labels {
			if l.Scenario == "" || l.Trial < 1 || (l.Pass == nil) == (l.Score == nil) || l.Line < 1 {
				t.Fatalf("label %+v accepted", l)
			}
		}
	})
}

// calibrationReport is a report with one judge ("helpful") graded in
// scenario "support", variants base (control) and terse, four trials
// each; trial 4 of terse could not run, and scenario "two" has two judges.
func calibrationReport() *evalreport.Report {
	judged := func(i int, score float64, pass bool) evalreport.Trial {
		t := evalreport.Trial{Index: i, Status: report.StatusPass, Scores: []evalreport.Score{{Name: "helpful", Grader: "judge", Value: score}}}
		if !pass {
			t.Status = report.StatusFail
			t.Failures = []evalreport.Failure{{Name: "helpful", Message: "helpful: score 0"}}
		}
		return t
	}
	return &evalreport.Report{Control: "base", Seed: 3, Cells: []evalreport.Cell{
		{Scenario: "support", ID: "support", Variant: "base", Trials: []evalreport.Trial{judged(1, 1, true), judged(2, 1, true), judged(3, 0, false), judged(4, 0.5, true)}},
		{Scenario: "support", ID: "support", Variant: "terse", Trials: []evalreport.Trial{judged(1, 0, false), judged(2, 1, true), judged(3, 0, false), {Index: 4, Status: report.StatusError}}},
		{Scenario: "two", ID: "two", Variant: "base", Trials: []evalreport.Trial{{Index: 1, Status: report.StatusPass, Scores: []evalreport.Score{{Name: "a", Grader: "judge", Value: 1}, {Name: "b", Grader: "judge", Value: 1}}}}},
	}}
}

func TestCalibrate(t *testing.T) {
	t.Parallel()
	pass, fail := ptr(true), ptr(false)
	l := func(variant string, trial int, rater string, p *bool) Label {
		return Label{Scenario: "support", Variant: variant, Trial: trial, Rater: rater, Pass: p, File: "l.csv", Line: trial + 1}
	}
	r := calibrationReport()
	// ann agrees with the judge on 5 of 6 trials (base 4: judge pass, ann fail)
	labels := []Label{l("", 1, "ann", pass), l("", 2, "ann", pass), l("", 3, "ann", fail), l("", 4, "ann", fail),
		l("terse", 1, "ann", fail), l("terse", 2, "ann", pass)}
	if err := Calibrate(r, labels, "l.csv"); err != nil {
		t.Fatal(err)
	}
	if len(r.Calibration) != 1 || len(r.Calibration[0].Raters) != 1 {
		t.Fatalf("Calibration = %+v, want one judge with one rater", r.Calibration)
	}
	ra := r.Calibration[0].Raters[0]
	// judge: pass pass fail pass fail pass; ann: pass pass fail fail fail pass.
	// Po = 5/6; judge passes 4/6, ann 3/6: Pe = 4/6·3/6 + 2/6·3/6 = 1/2; κ = (5/6 − 1/2)/(1/2) = 2/3
	if ra.N != 6 || ra.Agreement != 5.0/6 || ra.Kappa == nil || abs(ra.Kappa.Value-2.0/3) > 1e-12 {
		t.Errorf("ann: %+v (κ %+v), want n 6, agreement 5/6, κ 2/3", ra, ra.Kappa)
	}
	if r.Labels != "l.csv" || r.Calibration[0].Kind != "pass_fail" || r.Calibration[0].Units != 6 || r.Calibration[0].Alpha == nil {
		t.Errorf("calibration = %+v", r.Calibration[0])
	}
}

func TestCalibrateRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason string
		label  Label
		want   string
	}{
		{"a trial the report lacks", Label{Scenario: "support", Trial: 9}, "l.csv:7:1: trial: support × base has no trial 9 in the report"},
		{"a variant the report lacks", Label{Scenario: "support", Variant: "loud", Trial: 1}, "l.csv:7:1: trial: support × loud has no trial 1 in the report"},
		{"a trial that could not run", Label{Scenario: "support", Variant: "terse", Trial: 4}, "l.csv:7:1: trial: support × terse trial 4 could not run: there is no verdict to compare"},
		{"a trial with two judges needs the grader named", Label{Scenario: "two", Trial: 1}, `l.csv:7:1: grader: two × base trial 1 has 2 judges ("a", "b"): name one`},
		{"a judge the trial lacks", Label{Scenario: "support", Trial: 1, Grader: "kind"}, `l.csv:7:1: grader: support × base trial 1 has no judge "kind"`},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			l := tc.label
			l.Pass, l.File, l.Line = ptr(true), "l.csv", 7
			err := Calibrate(calibrationReport(), []Label{l}, "l.csv")
			var le *LoadError
			if !errors.As(err, &le) || err.Error() != tc.want {
				t.Errorf("Calibrate = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestReadLabelsLimits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := dir + "/l.csv"
	if err := writeFile(path, "scenario,trial,label\ns,1,pass\ns,2,pass\ns,3,pass\n"); err != nil {
		t.Fatal(err)
	}
	_, err := ReadLabels(path, harness.Limits{DatasetRows: 2})
	if err == nil || !strings.Contains(err.Error(), "l.csv:4:1") {
		t.Errorf("ReadLabels past DatasetRows = %v, want a problem at l.csv:4", err)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
