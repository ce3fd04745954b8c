package evalreport

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/report"
)

func TestSummarizeWhy(t *testing.T) {
	t.Parallel()
	fail := func(i int, final string, names ...string) Trial {
		tr := Trial{Index: i, Status: report.StatusFail, Final: final}
		for _, n := range names {
			tr.Failures = append(tr.Failures, Failure{Name: n, Message: fmt.Sprintf("%s failed in trial %d", n, i)})
		}
		return tr
	}
	pass := func(i int, final string) Trial { return Trial{Index: i, Status: report.StatusPass, Final: final} }
	tests := []struct {
		reason      string
		trials      []Trial
		wantFailing []FailureCount
		wantAnswers []Answer
		wantOther   int
	}{
		{
			reason: "the expectation failed most comes first; its example is the failure of the lowest trial index, whatever order the trials are in",
			trials: []Trial{fail(3, "no", "final", "trajectory"), pass(1, "yes"), fail(2, "no", "final")},
			wantFailing: []FailureCount{
				{Name: "final", Trials: 2, Example: FailureExample{Trial: 2, Message: "final failed in trial 2"}},
				{Name: "trajectory", Trials: 1, Example: FailureExample{Trial: 3, Message: "trajectory failed in trial 3"}},
			},
			wantAnswers: []Answer{{Final: "no", Trials: 2, FirstTrial: 2}, {Final: "yes", Trials: 1, Passed: 1, FirstTrial: 1}},
		},
		{
			reason:      "ties in count go to the expectation that failed first, then by name",
			trials:      []Trial{fail(1, "a", "z"), fail(2, "a", "b")},
			wantFailing: []FailureCount{{Name: "z", Trials: 1, Example: FailureExample{Trial: 1, Message: "z failed in trial 1"}}, {Name: "b", Trials: 1, Example: FailureExample{Trial: 2, Message: "b failed in trial 2"}}},
			wantAnswers: []Answer{{Final: "a", Trials: 2, FirstTrial: 1}},
		},
		{
			reason:      "an errored trial gave no answer and is not counted among the answers",
			trials:      []Trial{pass(1, "x"), {Index: 2, Status: report.StatusError, Message: "cassette not found"}},
			wantAnswers: []Answer{{Final: "x", Trials: 1, Passed: 1, FirstTrial: 1}},
		},
		{
			reason:      "an empty final answer is an answer too",
			trials:      []Trial{fail(1, "", "final")},
			wantFailing: []FailureCount{{Name: "final", Trials: 1, Example: FailureExample{Trial: 1, Message: "final failed in trial 1"}}},
			wantAnswers: []Answer{{Final: "", Trials: 1, FirstTrial: 1}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			c := Cell{Trials: tc.trials}
			SummarizeWhy(&c)
			if diff := cmp.Diff(tc.wantFailing, c.Failing); diff != "" {
				t.Errorf("Failing mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAnswers, c.Answers); diff != "" {
				t.Errorf("Answers mismatch (-want +got):\n%s", diff)
			}
			if c.OtherAnswers != tc.wantOther {
				t.Errorf("OtherAnswers = %d, want %d", c.OtherAnswers, tc.wantOther)
			}
		})
	}
}

// TestSummarizeWhyBounds: a cell lists MaxAnswers answers and counts the
// rest, and keeps the details of the DetailTrials failed and passed
// trials of lowest index.
func TestSummarizeWhyBounds(t *testing.T) {
	t.Parallel()
	var c Cell
	n := 3 * DetailTrials
	for i := n; i >= 1; i-- { // reverse order: the bounds go by index, not position
		st := report.StatusPass
		if i%2 == 0 {
			st = report.StatusFail
		}
		c.Trials = append(c.Trials, Trial{Index: i, Status: st, Final: fmt.Sprint("answer ", i), Detail: &TrialDetail{}})
	}
	SummarizeWhy(&c)
	if len(c.Answers) != MaxAnswers || c.OtherAnswers != n-MaxAnswers {
		t.Errorf("answers: %d listed and %d other, want %d and %d", len(c.Answers), c.OtherAnswers, MaxAnswers, n-MaxAnswers)
	}
	for _, tr := range c.Trials {
		want := tr.Index <= 2*DetailTrials // the first DetailTrials of each parity
		if got := tr.Detail != nil; got != want {
			t.Errorf("trial %d (%s) keeps detail = %v, want %v", tr.Index, tr.Status, got, want)
		}
	}
}

func TestNewFailureCuts(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", MaxFailureMessage+5)
	f := NewFailure("final", long, strings.Repeat("x", MaxFailureDiff+10))
	if want := strings.Repeat("é", MaxFailureMessage) + "… (5 more characters)"; f.Message != want {
		t.Errorf("Message cut to %d runes, want %q", len([]rune(f.Message)), want)
	}
	if want := strings.Repeat("x", MaxFailureDiff) + "\n… (10 more bytes)"; f.Diff != want {
		t.Errorf("Diff = ...%q, want ...%q", f.Diff[len(f.Diff)-20:], want[len(want)-20:])
	}
	if g := NewFailure("a", "short", "d"); g != (Failure{Name: "a", Message: "short", Diff: "d"}) {
		t.Errorf("NewFailure changed short text: %+v", g)
	}
}
