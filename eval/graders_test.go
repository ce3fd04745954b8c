package eval

import (
	"context"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/grade"
	"github.com/agenteval/agenteval/report/evalreport"
	"github.com/agenteval/agenteval/serve"
)

// umbrella is the Go grader of testdata/graded: full marks for an answer
// that mentions an umbrella, a quarter otherwise.
func umbrella(_ context.Context, o *grade.Observed) (grade.Score, error) {
	if strings.Contains(o.Final, "umbrella") {
		return grade.Score{Value: 1, Reason: "mentions an umbrella"}, nil
	}
	return grade.Score{Value: 0.25, Reason: "no umbrella"}, nil
}

var gradedOptions = Options{Graders: map[string]grade.Func{"umbrella": umbrella}}

// TestGraderScoresReachTheReport: "a trial's outcome carries named scores
// in [0,1] from each expectation and from the graders", and each cell
// shows the mean of each with its bootstrap interval.
func TestGraderScoresReachTheReport(t *testing.T) {
	r := Run(context.Background(), prepare(t, "testdata/graded/graded.yaml"), gradedOptions)
	const wrong = "Pack something."
	// the scores a trial gets, by its answer: the graders' own scores,
	// never a 0/1 pass mark
	want := map[string]map[string]float64{
		"Rain in Lisbon tomorrow, 14 °C. Pack an umbrella.": {"forecast checked": 1, "like the reference": 1, "judged helpful": 0.5, "umbrella": 1},
		wrong: {"forecast checked": 0, "like the reference": similarity(wrong, "Rain in Lisbon tomorrow, 14 °C. Pack an umbrella."), "judged helpful": 0.5, "umbrella": 0.25},
	}
	kinds := map[string]string{"forecast checked": "trajectory_score", "like the reference": "answer", "judged helpful": "judge", "umbrella": "go"}
	sawWrong := 0
	for _, c := range r.Cells {
		if c.Errored > 0 {
			t.Fatalf("%s × %s: %s", c.ID, c.Variant, c.Trials[0].Message)
		}
		for _, tr := range c.Trials {
			w, ok := want[tr.Final]
			if !ok {
				t.Fatalf("%s trial %d: unexpected final %q", c.Variant, tr.Index, tr.Final)
			}
			if tr.Final == wrong {
				sawWrong++
			}
			got := map[string]float64{}
			for _, s := range tr.Scores {
				if s.Grader != "" {
					got[s.Name] = s.Value
					if s.Grader != kinds[s.Name] {
						t.Errorf("%s: grader %q, want %q", s.Name, s.Grader, kinds[s.Name])
					}
				} else if s.Value != 0 && s.Value != 1 {
					t.Errorf("expectation %s scored %v, want 0 or 1", s.Name, s.Value)
				}
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("%s trial %d grader scores mismatch (-want +got):\n%s", c.Variant, tr.Index, diff)
			}
		}
		// every named score's mean, over the trials, with its interval
		for _, st := range c.Scores {
			var xs []float64
			for _, tr := range c.Trials {
				for _, s := range tr.Scores {
					if s.Name == st.Name {
						xs = append(xs, s.Value)
					}
				}
			}
			if st.N != len(xs) || st.N != c.N || math.Abs(st.Value-mean(xs)) > 1e-12 || st.Lo > st.Value || st.Hi < st.Value {
				t.Errorf("%s × %s score %s = %+v, want the mean %v of %d trials inside its interval", c.ID, c.Variant, st.Name, st, mean(xs), len(xs))
			}
			if st.Grader != kinds[st.Name] {
				t.Errorf("%s × %s score %s: grader %q, want %q", c.ID, c.Variant, st.Name, st.Grader, kinds[st.Name])
			}
		}
	}
	if sawWrong == 0 || sawWrong == 20 {
		t.Fatalf("the flaky variant answered wrong in %d of 20 trials; the test needs both kinds", sawWrong)
	}
	// the comparison with the control compares the score means
	if len(r.Comparisons) != 1 || len(r.Comparisons[0].Cells) != 1 {
		t.Fatalf("Comparisons = %+v", r.Comparisons)
	}
	deltas := map[string]evalreport.ScoreDelta{}
	for _, d := range r.Comparisons[0].Cells[0].Scores {
		deltas[d.Name] = d
	}
	// the control is scripted: its 20 identical trials are one effective
	// trial, so however large the drop, one observation against 20 is
	// not significant (issue 30: copies are not evidence)
	if d := deltas["forecast checked"]; math.Abs(d.Delta+float64(sawWrong)/20) > 1e-12 || d.Significant || d.Grader != "trajectory_score" {
		t.Errorf("forecast checked: %+v, want a drop of %v, not significant against one effective control trial", d, float64(sawWrong)/20)
	}
	if d := deltas["judged helpful"]; d.Delta != 0 || d.Significant || d.P != 1 {
		t.Errorf("judged helpful: %+v, want no change (p = 1)", d)
	}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// similarity is the answer matcher's normalized Levenshtein similarity,
// as grade computes it.
func similarity(a, b string) float64 {
	res := grade.Check(context.Background(), grade.Expect{Graders: []grade.Grader{{Answer: &grade.AnswerMatch{Similar: &grade.Similar{To: b}}}}}, &grade.Observed{Final: a})
	for _, r := range res {
		if r.Grader != "" {
			return r.Score
		}
	}
	return math.NaN()
}

// TestProviderJudgeBehindScriptedAgent: a provider judge makes a scripted
// agent's cell a cassette cell, one cassette per trial, recorded once and
// replayed the same; without its cassette a trial is an error naming it.
func TestProviderJudgeBehindScriptedAgent(t *testing.T) {
	var turns []serve.Turn
	for _, s := range []string{"1", "0.5", "1"} {
		turns = append(turns, serve.Turn{Text: `{"reasoning": "fine", "score": ` + s + `}`})
	}
	ts := httptest.NewServer(fakeOpenAI(t, turns...))
	defer ts.Close()
	dir := t.TempDir()
	scenario := `script:
  responses:
    - content: It is sunny in Paris.
turns:
  - user: What's the weather in Paris?
expect:
  graders:
    - name: judged
      threshold: 0.5
      judge: {model: "openai-compatible:m1", base_url: "` + ts.URL + `/v1", builtin: helpfulness}
`
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "judged.yaml"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "e.yaml"), []byte("trials: 3\nvariants: [{name: scripted}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := prepare(t, filepath.Join(dir, "e.yaml"))
	env := func(string) (string, bool) { return "sk-test", true }
	rec := Run(context.Background(), p, Options{Mode: cassette.ModeRecord, Prices: prices, Parallel: 1, LookupEnv: env})
	var got []float64
	for _, tr := range rec.Cells[0].Trials {
		if tr.Status == "error" {
			t.Fatalf("record: %s", tr.Message)
		}
		for _, s := range tr.Scores {
			if s.Name == "judged" {
				got = append(got, s.Value)
			}
		}
		if want := "judged/scripted/trial-"; !strings.Contains(tr.Cassette, want) {
			t.Errorf("trial %d cassette %q, want one under %s", tr.Index, tr.Cassette, want)
		}
	}
	if diff := cmp.Diff([]float64{1, 0.5, 1}, got); diff != "" {
		t.Errorf("judge scores mismatch (-want +got):\n%s", diff)
	}
	ts.Close()
	replay := Run(context.Background(), p, Options{Prices: prices, Parallel: 3})
	if diff := cmp.Diff(jsonOf(t, rec), jsonOf(t, replay)); diff != "" {
		t.Errorf("replay differs from the recording (-record +replay):\n%s", diff)
	}
	if err := os.Remove(filepath.Join(dir, "cassettes", "judged", "scripted", "trial-3.yaml")); err != nil {
		t.Fatal(err)
	}
	miss := Run(context.Background(), p, Options{Prices: prices})
	if msg := miss.Cells[0].Trials[2].Message; !strings.HasPrefix(msg, "judged × scripted trial 3: ") || !strings.Contains(msg, "trial-3.yaml") {
		t.Errorf("a missing trial cassette: message %q, want the trial and its cassette named", msg)
	}
}
