package grade

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	"pgregory.net/rapid"
)

// Command graders start processes: no goroutine may outlive a test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// weatherRun is a run that called get_weather for Paris and answered.
func weatherRun() *Observed {
	call := mkMade("get_weather", "call_1", "city", "Paris")
	ai1 := engine.AIMessage("", call)
	ai1.ID = "ai1"
	ai2 := engine.AIMessage("It is sunny in Paris.")
	ai2.ID = "ai2"
	human := engine.HumanMessage("What's the weather in Paris?")
	human.ID = "h1"
	tool := engine.ToolMessage(engine.Text("sunny"), "get_weather", "call_1")
	tool.ID = "t1"
	msgs := []engine.Message{human, ai1, tool, ai2}
	return &Observed{AIMessages: []engine.Message{ai1, ai2}, Messages: msgs, Final: "It is sunny in Paris."}
}

// answering is a judge model that answers text and keeps the request.
func answering(text string, got *engine.ModelRequest) func(int, *Judge) (engine.ChatModel, error) {
	return func(int, *Judge) (engine.ChatModel, error) {
		return engine.ChatModelFunc(func(_ context.Context, req engine.ModelRequest) (engine.Message, error) {
			if got != nil {
				*got = req
			}
			return engine.AIMessage(text), nil
		}), nil
	}
}

func TestParseJudgeAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reason string
		text         string
		choices      []float64
		want         Score
		err          string
	}{
		{name: "plain", reason: "the answer format the prompt asks for",
			text: `{"reasoning": "Correct and complete.", "score": 0.9}`, want: Score{Value: 0.9, Reason: "Correct and complete."}},
		{name: "fenced", reason: "a Markdown code fence and text around it are tolerated",
			text: "Here is my grade:\n```json\n{\"score\": 1, \"reasoning\": \"ok\"}\n```", want: Score{Value: 1, Reason: "ok"}},
		{name: "boolean", reason: "true is 1, false 0, as openevals' boolean judges answer",
			text: `{"score": false, "reason": "wrong city"}`, want: Score{Value: 0, Reason: "wrong city"}},
		{name: "choice", reason: "a score among the choices",
			text: `{"score": 0.5}`, choices: []float64{0, 0.5, 1}, want: Score{Value: 0.5}},
		{name: "not-a-choice", reason: "a score outside the choices is an error, not rounded",
			text: `{"score": 0.7}`, choices: []float64{0, 0.5, 1}, err: "score 0.7 is not one of the choices 0, 0.5, 1"},
		{name: "garbage", reason: "no JSON object at all: the error quotes the answer",
			text: "I think it is fine.", err: `want a JSON object {"reasoning": "...", "score": <0 to 1>}, got "I think it is fine."`},
		{name: "no-score", reason: "an object without a score",
			text: `{"reasoning": "fine"}`, err: `the object has no "score", in "{\"reasoning\": \"fine\"}"`},
		{name: "out-of-range", reason: "a score above 1 is an error, not clamped",
			text: `{"score": 7}`, err: `score 7 is not a number from 0 to 1, in "{\"score\": 7}"`},
		{name: "string-score", reason: "a score in quotes is not a number",
			text: `{"score": "high"}`, err: `score "high" is not a number from 0 to 1, in "{\"score\": \"high\"}"`},
		{name: "broken-json", reason: "JSON that does not parse",
			text: `{"score": 1,}`, err: `want a JSON object {"score": <0 to 1>, "reason": "..."}: invalid character '}' looking for beginning of object key string, in "{\"score\": 1,}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseJudgeAnswer(tt.text, tt.choices)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("ParseJudgeAnswer (%s) error = %v, want %q", tt.reason, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseJudgeAnswer (%s): %v", tt.reason, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseJudgeAnswer (%s) mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestPropParseJudgeAnswerInRange: whatever a judge answers, parsing it
// either fails or gives a score in [0,1] (among the choices when there
// are some), and never panics.
func TestPropParseJudgeAnswerInRange(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propParseJudgeAnswerInRange)
}

func propParseJudgeAnswerInRange(t *rapid.T) {
	text := rapid.OneOf(
		rapid.String(),
		rapid.Custom(func(t *rapid.T) string {
			return rapid.SampledFrom([]string{"", "ok ", "```json\n"}).Draw(t, "before") +
				`{"score": ` + rapid.SampledFrom([]string{"0", "1", "0.5", "-1", "2", "true", `"x"`, "null", "1e400"}).Draw(t, "score") +
				rapid.SampledFrom([]string{"}", `, "reasoning": "r"}`, ", }", "}}"}).Draw(t, "after")
		}),
	).Draw(t, "text")
	var choices []float64
	if rapid.Bool().Draw(t, "choices") {
		choices = []float64{0, 0.5, 1}
	}
	s, err := ParseJudgeAnswer(text, choices)
	if err != nil {
		return
	}
	if s.Value < 0 || s.Value > 1 {
		t.Fatalf("ParseJudgeAnswer(%q) = %v, outside [0,1]", text, s.Value)
	}
	if choices != nil && s.Value != 0 && s.Value != 0.5 && s.Value != 1 {
		t.Fatalf("ParseJudgeAnswer(%q) = %v, not a choice", text, s.Value)
	}
}

// FuzzParseJudgeAnswer feeds the same property from the fuzzer.
func FuzzParseJudgeAnswer(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propParseJudgeAnswerInRange))
}

func TestJudgeGrader(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	th := func(f float64) *float64 { return &f }
	tests := []struct {
		name, reason string
		g            Grader
		answer       string
		want         Result
		prompt       []string // in the system message
		input        []string // in the human message
	}{
		{
			name: "correctness-pass", reason: "a built-in rubric with a reference: the judge's reasoning becomes the reason",
			g:      Grader{Judge: &Judge{Builtin: "correctness", Reference: "Sunny in Paris."}},
			answer: `{"reasoning": "Matches the reference.", "score": 1}`,
			want:   Result{Name: "graders[0] (judge)", Grader: "judge", Passed: true, Score: 1, Threshold: 1, Reason: "Matches the reference."},
			prompt: []string{"Grade the correctness", `"score": <a number from 0 to 1>`},
			input: []string{"<input>\nWhat's the weather in Paris?\n</input>", "<output>\nIt is sunny in Paris.\n</output>",
				"<reference_output>\nSunny in Paris.\n</reference_output>"},
		},
		{
			name: "rubric-fail", reason: "a score under the threshold fails with the reasoning's first line in the message",
			g: Grader{Name: "polite", Threshold: th(0.8), Judge: &Judge{Rubric: "The answer is polite.", Choices: []float64{0, 0.5, 1},
				Examples: []JudgeExample{{Input: "hi", Output: "What do you want?", Score: 0, Reasoning: "curt"}}, Sees: []string{"final", "tool_calls"}}},
			answer: "{\"reasoning\": \"Correct but curt.\\nNo greeting.\", \"score\": 0.5}",
			want: Result{Name: "polite", Grader: "judge", Score: 0.5, Threshold: 0.8, Reason: "Correct but curt.\nNo greeting.",
				Message: "polite: score 0.5, want at least 0.8: Correct but curt."},
			prompt: []string{"<rubric>\nThe answer is polite.\n</rubric>", "<example>\n<input>\nhi\n</input>\n<output>\nWhat do you want?\n</output>\n<score>\n0\n</score>\n<reasoning>\ncurt\n</reasoning>\n</example>", "one of 0, 0.5, 1"},
			input:  []string{"<tool_calls>\n1. get_weather {\"city\": \"Paris\"}\n</tool_calls>"},
		},
		{
			name: "trajectory-reference", reason: "trajectory accuracy sees the transcript and the reference trajectory",
			g:      Grader{Threshold: th(0.5), Judge: &Judge{Builtin: "trajectory_accuracy", ReferenceTrajectory: []Call{mkWant("get_weather", "city", "Paris")}}},
			answer: `{"reasoning": "Same call as the reference.", "score": 0.75}`,
			want:   Result{Name: "graders[0] (judge)", Grader: "judge", Passed: true, Score: 0.75, Threshold: 0.5, Reason: "Same call as the reference."},
			prompt: []string{"against a reference trajectory"},
			input: []string{"<transcript>\nhuman: What's the weather in Paris?\nai:  [calls: get_weather {\"city\": \"Paris\"}]\ntool get_weather: sunny\nai: It is sunny in Paris.\n</transcript>",
				"<reference_trajectory>\n1. get_weather {\"city\": \"Paris\"}\n</reference_trajectory>"},
		},
		{
			name: "garbage", reason: "an answer that cannot be parsed is an error naming the scenario and the grader, never a 0",
			g:      Grader{Judge: &Judge{Builtin: "helpfulness"}},
			answer: "Looks great!",
			want: Result{Name: "graders[0] (judge)", Grader: "judge", Threshold: 1, Errored: true,
				Message: `scenario "react/weather": graders[0] (judge): the judge's answer cannot be parsed: want a JSON object {"reasoning": "...", "score": <0 to 1>}, got "Looks great!"`},
			prompt: []string{"how helpful"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var req engine.ModelRequest
			env := Env{Scenario: "react/weather", Judge: answering(tt.answer, &req)}
			got := env.Grade(ctx, []Grader{tt.g}, weatherRun())
			if diff := cmp.Diff([]Result{tt.want}, got); diff != "" {
				t.Errorf("Grade (%s) mismatch (-want +got):\n%s", tt.reason, diff)
			}
			if req.Messages.Len() != 2 {
				t.Fatalf("judge got %d messages, want a system and a human one", req.Messages.Len())
			}
			for _, p := range tt.prompt {
				if !strings.Contains(req.Messages.At(0).Text(), p) {
					t.Errorf("judge's instructions (%s) lack %q:\n%s", tt.reason, p, req.Messages.At(0).Text())
				}
			}
			for _, p := range tt.input {
				if !strings.Contains(req.Messages.At(1).Text(), p) {
					t.Errorf("judge's input (%s) lacks %q:\n%s", tt.reason, p, req.Messages.At(1).Text())
				}
			}
		})
	}
}

func TestGraderErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	failing := func(context.Context, *Observed) (Score, error) { return Score{}, errors.New("no data") }
	tests := []struct {
		name, reason string
		env          Env
		g            Grader
		want         string
	}{
		{"no-judge-model", "without Env.Judge a judge cannot run", Env{}, Grader{Judge: &Judge{Rubric: "x"}},
			"graders[0] (judge): no judge model: the runner supplies judge models (grade.Env.Judge)"},
		{"judge-model-error", "a model that cannot be built", Env{Judge: func(int, *Judge) (engine.ChatModel, error) { return nil, errors.New("no cassette") }},
			Grader{Judge: &Judge{Rubric: "x"}}, "graders[0] (judge): judge model: no cassette"},
		{"go-unregistered", "a Go grader must be registered", Env{}, Grader{Go: "mine"},
			`graders[0] (go): no Go grader "mine" is registered (harness.Options.Graders)`},
		{"go-error", "a Go grader's error is the scenario's", Env{Funcs: map[string]Func{"mine": failing}}, Grader{Go: "mine"},
			`graders[0] (go): go grader "mine": no data`},
		{"go-out-of-range", "a score outside [0,1] is an error", Env{Funcs: map[string]Func{"mine": func(context.Context, *Observed) (Score, error) { return Score{Value: 2}, nil }}},
			Grader{Go: "mine"}, "graders[0] (go): score 2 is outside [0,1]"},
		{"no-kind", "a grader with no kind", Env{}, Grader{Name: "empty"},
			"empty: no kind: set one of judge, trajectory_score, order, args, answer, go or command"},
		{"command-no-record", "a command grader needs the run's record", Env{}, Grader{Command: &Command{Run: []string{"true"}}},
			"graders[0] (command): command: no run record to send (grade.Env.Record)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.env.Grade(ctx, []Grader{tt.g}, nil)
			if len(got) != 1 || !got[0].Errored || got[0].Message != tt.want {
				t.Errorf("Grade (%s) = %+v, want an error %q", tt.reason, got, tt.want)
			}
		})
	}
}

func TestGoGrader(t *testing.T) {
	t.Parallel()
	short := func(_ context.Context, o *Observed) (Score, error) {
		if n := len(o.Final); n > 10 {
			return Score{Value: 10 / float64(n), Reason: "the answer is long"}, nil
		}
		return Score{Value: 1, Reason: "short"}, nil
	}
	th := 0.5
	got := Env{Funcs: map[string]Func{"short": short}}.Grade(context.Background(), []Grader{{Go: "short", Threshold: &th}}, &Observed{Final: "It is sunny in Paris."})
	want := []Result{{Name: "graders[0] (go)", Grader: "go", Score: 10.0 / 21, Threshold: 0.5, Reason: "the answer is long",
		Message: "graders[0] (go): score 0.476, want at least 0.5: the answer is long"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Grade(go grader) mismatch (-want +got):\n%s", diff)
	}
}

func TestCommandGrader(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	record := []byte(`{"name": "react/weather", "final": "It is sunny in Paris.", "trajectory": [{"messages": [{"type": "ai", "tool_calls": [{"name": "get_weather"}, {"name": "search"}]}]}]}`)
	tests := []struct {
		name, reason string
		run          []string
		timeout      string
		node         bool
		want         Result
	}{
		{name: "shell", reason: "a shell script reads the record and scores it",
			run:  []string{"sh", "sunny.sh"},
			want: Result{Name: "graders[0] (command)", Grader: "command", Passed: true, Score: 1, Threshold: 1, Reason: "the answer mentions the sun"}},
		{name: "node", reason: "so does a Node script", node: true,
			run: []string{"node", "count_calls.js"},
			want: Result{Name: "graders[0] (command)", Grader: "command", Score: 0.5, Threshold: 1, Reason: "1 of 2 calls were get_weather",
				Message: "graders[0] (command): score 0.5, want at least 1: 1 of 2 calls were get_weather"}},
		{name: "exit-status", reason: "a failing command is an error with its stderr, not a 0",
			run:  []string{"sh", "fail.sh"},
			want: Result{Name: "graders[0] (command)", Grader: "command", Threshold: 1, Errored: true, Message: `graders[0] (command): command "sh fail.sh": exit status 3: no rubric for this run`}},
		{name: "garbage", reason: "stdout that is not a score is an error quoting it",
			run: []string{"sh", "garbage.sh"},
			want: Result{Name: "graders[0] (command)", Grader: "command", Threshold: 1, Errored: true,
				Message: `graders[0] (command): command "sh garbage.sh": stdout: want a JSON object {"score": <0 to 1>, "reason": "..."}: invalid character 'l' looking for beginning of value, got "looks good to me\n"`}},
		{name: "timeout", reason: "a command past its timeout is killed and is an error",
			run: []string{"sh", "slow.sh"}, timeout: "200ms",
			want: Result{Name: "graders[0] (command)", Grader: "command", Threshold: 1, Errored: true, Message: `graders[0] (command): command "sh slow.sh": timed out after 200ms`}},
		{name: "flood", reason: "a command that writes without end to stdout is killed at the output limit and is an error naming it (it took agenteval past 5 GB)",
			run: []string{"sh", "flood.sh"},
			want: Result{Name: "graders[0] (command)", Grader: "command", Threshold: 1, Errored: true,
				Message: `graders[0] (command): command "sh flood.sh": it wrote more than 16MiB to its stdout, the limit of a command grader's answer (grade.MaxCommandOutputBytes); it was killed`}},
		{name: "missing", reason: "a program that does not exist",
			run: []string{"./nope.sh"},
			want: Result{Name: "graders[0] (command)", Grader: "command", Threshold: 1, Errored: true,
				Message: `graders[0] (command): command "./nope.sh": fork/exec testdata/graders/nope.sh: no such file or directory`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.node {
				if _, err := exec.LookPath("node"); err != nil {
					t.Skip("node is not installed")
				}
			}
			env := Env{Dir: "testdata/graders", Record: record}
			got := env.Grade(ctx, []Grader{{Command: &Command{Run: tt.run, Timeout: tt.timeout}}}, nil)
			if diff := cmp.Diff([]Result{tt.want}, got); diff != "" {
				t.Errorf("Grade (%s) mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

func TestEnvCheckOrder(t *testing.T) {
	t.Parallel()
	o := weatherRun()
	e := Expect{
		Final:   &TextMatch{Contains: []string{"sunny"}},
		Graders: []Grader{{Order: &Order{Before: []string{"get_weather"}}}, {Answer: &AnswerMatch{Text: expPtr("it is sunny in paris.")}}},
	}
	var names []string
	for _, r := range Check(context.Background(), e, o) {
		names = append(names, r.Name)
	}
	want := []string{"final", "graders[0] (order)", "graders[1] (answer)", invToolCallsAnswered, invMessageIDsUnique, invRemainingSteps}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("Check names mismatch (-want +got):\n%s", diff)
	}
}

func TestGraderProblems(t *testing.T) {
	t.Parallel()
	th := func(f float64) *float64 { return &f }
	tests := []struct {
		name, reason string
		g            Grader
		want         []Problem
	}{
		{"ok", "a well-formed grader has none", Grader{Order: &Order{Before: []string{"a", "b"}}}, nil},
		{"no-kind", "a grader needs a kind", Grader{},
			[]Problem{{"", "needs exactly one of judge, trajectory_score, order, args, answer, go or command"}}},
		{"two-kinds", "and only one", Grader{Go: "x", Order: &Order{}},
			[]Problem{{"", "needs exactly one of judge, trajectory_score, order, args, answer, go or command, got order and go"}}},
		{"threshold", "a threshold outside [0,1]", Grader{Go: "x", Threshold: th(1.5)},
			[]Problem{{"threshold", "must be from 0 to 1, got 1.5"}}},
		{"judge-rubric", "a judge needs a rubric or a builtin", Grader{Judge: &Judge{}},
			[]Problem{{"judge", "needs a rubric (free text) or a builtin (correctness, helpfulness or trajectory_accuracy)"}}},
		{"judge-both", "not both", Grader{Judge: &Judge{Rubric: "x", Builtin: "helpfulness"}},
			[]Problem{{"judge.builtin", "set rubric or builtin, not both"}}},
		{"correctness-reference", "correctness compares with a reference", Grader{Judge: &Judge{Builtin: "correctness", Choices: []float64{0, 2}}},
			[]Problem{{"judge.reference", "missing: the correctness rubric compares with a reference answer"}, {"judge.choices[1]", "must be from 0 to 1, got 2"}}},
		{"regex", "a field's regex must compile", Grader{Args: &ArgsMatch{Tool: "t", Fields: map[string]Matcher{"q": {Regex: "a("}, "r": {}}}},
			[]Problem{{"args.fields.q.regex", "invalid regular expression: error parsing regexp: missing closing ): `a(`"},
				{"args.fields.r", "sets no condition: set regex, approx, one_of, text, schema or similar"}}},
		{"answer-empty", "an answer grader needs a condition", Grader{Answer: &AnswerMatch{Of: "final"}},
			[]Problem{{"answer", "needs a condition (regex, approx, one_of, text, schema or similar) or fields"}}},
		{"timeout", "a command's timeout is a duration", Grader{Command: &Command{Run: []string{"x"}, Timeout: "ten"}},
			[]Problem{{"command.timeout", `want a duration such as "10s": time: invalid duration "ten"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, tt.g.Problems()); diff != "" {
				t.Errorf("Problems (%s) mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}
