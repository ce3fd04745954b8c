package grade

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// The built-in rubrics of a judge.
const (
	BuiltinCorrectness        = "correctness"
	BuiltinHelpfulness        = "helpfulness"
	BuiltinTrajectoryAccuracy = "trajectory_accuracy"
)

// What a judge sees of the run.
const (
	SeesFinal      = "final"
	SeesTranscript = "transcript"
	SeesToolCalls  = "tool_calls"
)

// Judge asks a model to score the run: LLM-as-judge, in the manner of
// langchain-ai/openevals and agentevals, with prompts of our own. The
// judge is sent one system message (its instructions: the rubric, the
// few-shot examples, the answer format) and one human message (the user's
// input and what it sees of the run, each in a tag such as
// <output>...</output>). It must answer with one JSON object,
// {"reasoning": "...", "score": <number>}: the score in [0,1], one of
// Choices when they are set. An answer that is not such an object is an
// error, never a score of 0.
type Judge struct {
	// Model is the judging model: "scripted" (the default: it answers
	// from Script) or a provider model ("openai:gpt-4.1-mini"), which the
	// runner puts behind the scenario's cassette.
	Model string `json:"model,omitempty"`
	// BaseURL is the provider's base URL (needed for openai-compatible).
	BaseURL string `json:"base_url,omitempty"`
	// Script is a scripted judge's answers, in engine/llm's script form.
	Script any `json:"script,omitempty"`
	// Rubric is what to grade by, in free text; Builtin names one of our
	// rubrics instead: "correctness" (against Reference), "helpfulness"
	// or "trajectory_accuracy" (against ReferenceTrajectory when set).
	// Exactly one of the two is set.
	Rubric  string `json:"rubric,omitempty"`
	Builtin string `json:"builtin,omitempty"`
	// Reference is a reference answer the judge compares with.
	Reference string `json:"reference,omitempty"`
	// ReferenceTrajectory is a reference list of tool calls.
	ReferenceTrajectory []Call `json:"reference_trajectory,omitempty"`
	// Choices, when set, are the only scores the judge may give; without
	// them the score is any number in [0,1].
	Choices []float64 `json:"choices,omitempty"`
	// Examples are graded examples shown to the judge (few-shot).
	Examples []JudgeExample `json:"examples,omitempty"`
	// Sees is what the judge is shown besides the user's input: "final"
	// (the last AI message's text), "transcript" (every message of the
	// thread) and "tool_calls" (the calls made, in order). Default:
	// ["transcript"] for trajectory_accuracy, ["final"] otherwise.
	Sees []string `json:"sees,omitempty"`
}

// JudgeExample is one graded example for a judge's prompt.
type JudgeExample struct {
	// Input is the user's input; Output what was graded.
	Input  string `json:"input,omitempty"`
	Output string `json:"output"`
	// Score is the score it deserves and Reasoning why.
	Score     float64 `json:"score"`
	Reasoning string  `json:"reasoning,omitempty"`
}

// Problem is one problem of a grader's specification: Field is the path
// of the field below the grader ("judge.reference"), Message what is
// wrong.
type Problem struct {
	Field   string
	Message string
}

// sees is what the judge sees, with its default.
func (j *Judge) sees() []string {
	if len(j.Sees) > 0 {
		return j.Sees
	}
	if j.Builtin == BuiltinTrajectoryAccuracy {
		return []string{SeesTranscript}
	}
	return []string{SeesFinal}
}

// judge asks the grader's model for a score.
func (env Env) judge(ctx context.Context, i int, j *Judge, o *Observed) (Score, error) {
	if env.Judge == nil {
		return Score{}, errors.New("no judge model: the runner supplies judge models (grade.Env.Judge)")
	}
	model, err := env.Judge(i, j)
	if err != nil {
		return Score{}, fmt.Errorf("judge model: %w", err)
	}
	req := engine.ModelRequest{Messages: engine.NewMessageList(
		engine.SystemMessage(JudgeInstructions(j)),
		engine.HumanMessage(JudgeInput(j, o)),
	)}
	msg, err := model.Generate(ctx, req)
	if err != nil {
		return Score{}, fmt.Errorf("judge model: %w", err)
	}
	s, err := ParseJudgeAnswer(msg.Text(), j.Choices)
	if err != nil {
		return Score{}, fmt.Errorf("the judge's answer cannot be parsed: %w", err)
	}
	return s, nil
}

// The rubrics of the built-in judges. Each says what a good answer does,
// point by point, so that a judge's reasoning can follow it.
const (
	correctnessRubric = `Grade the correctness of the AI assistant's output: whether it answers the user's input with facts that are true.

A correct output:
- answers the question the input asks, accurately and completely;
- agrees with the reference answer on every fact that matters, when a reference is given;
- contains no statement that is false or that contradicts the reference;
- may use other words, another order or more detail than the reference, as long as the facts agree.

Give the highest score to an output that is fully correct, the lowest to one that is wrong or does not answer, and a score in between to one that is partly correct.`

	helpfulnessRubric = `Grade how helpful the AI assistant's output is to the person who wrote the input.

A helpful output:
- addresses what the person asked for, directly;
- gives the information or takes the action they need, without detours;
- is clear, and no longer than the answer needs;
- says plainly when it cannot help, and why.

Give the highest score to an output that fully serves the person, the lowest to one that does not help at all.`

	trajectoryRubric = `Grade the trajectory of an AI agent: the steps it took to answer the user's input (the tool calls it made, the results it got, and its answer).

An accurate trajectory:
- makes progress towards the user's goal at each step;
- calls the tools the task needs, with sensible arguments;
- follows a logical order: it gathers what it needs before it uses it;
- makes no needless or repeated calls;
- ends with an answer that what the tools returned supports.

Give the highest score to a trajectory that does all of this, the lowest to one that does not reach the goal.`

	trajectoryReferenceRubric = `Grade the trajectory of an AI agent (the tool calls it made, the results it got, and its answer) against a reference trajectory, which shows the calls a good run makes.

An accurate trajectory:
- makes the calls of the reference that matter, with equivalent arguments;
- may order independent calls differently, or make a harmless extra call, and still be accurate;
- does not skip a step the reference needs, nor call tools the task does not need;
- ends with an answer that what the tools returned supports.

Give the highest score to a trajectory equivalent to the reference, the lowest to one that does not reach the goal.`
)

// JudgeInstructions is the system message a judge is sent: who it is,
// the rubric, the examples and the answer format.
func JudgeInstructions(j *Judge) string {
	var b strings.Builder
	b.WriteString("You are an expert data labeler evaluating the work of an AI assistant.\n\n")
	switch j.Builtin {
	case BuiltinCorrectness:
		b.WriteString(correctnessRubric)
	case BuiltinHelpfulness:
		b.WriteString(helpfulnessRubric)
	case BuiltinTrajectoryAccuracy:
		if len(j.ReferenceTrajectory) > 0 {
			b.WriteString(trajectoryReferenceRubric)
		} else {
			b.WriteString(trajectoryRubric)
		}
	default:
		b.WriteString("Grade the AI assistant's work against this rubric:\n<rubric>\n")
		b.WriteString(strings.TrimSpace(j.Rubric))
		b.WriteString("\n</rubric>")
	}
	b.WriteString("\n\n")
	if len(j.Examples) > 0 {
		b.WriteString("Here are graded examples:\n")
		for _, ex := range j.Examples {
			b.WriteString("<example>\n")
			if ex.Input != "" {
				writeTag(&b, "input", ex.Input)
			}
			writeTag(&b, "output", ex.Output)
			writeTag(&b, "score", FormatScore(ex.Score))
			if ex.Reasoning != "" {
				writeTag(&b, "reasoning", ex.Reasoning)
			}
			b.WriteString("</example>\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("Think it through, then answer with one JSON object and nothing else:\n")
	b.WriteString(`{"reasoning": "<why, in a few sentences>", "score": <`)
	if len(j.Choices) > 0 {
		parts := make([]string, len(j.Choices))
		for i, c := range j.Choices {
			parts[i] = formatNumber(c)
		}
		b.WriteString("one of " + strings.Join(parts, ", "))
	} else {
		b.WriteString("a number from 0 to 1")
	}
	b.WriteString(">}\n")
	return b.String()
}

// JudgeInput is the human message a judge is sent: the user's input and
// what the judge sees of the run, each in its tag.
func JudgeInput(j *Judge, o *Observed) string {
	var b strings.Builder
	var inputs []string
	for _, m := range o.Messages {
		if m.Type == engine.TypeHuman {
			inputs = append(inputs, m.Text())
		}
	}
	writeTag(&b, "input", strings.Join(inputs, "\n"))
	for _, s := range j.sees() {
		switch s {
		case SeesFinal:
			writeTag(&b, "output", o.Final)
		case SeesTranscript:
			writeTag(&b, "transcript", judgeTranscript(o.Messages))
		case SeesToolCalls:
			var lines []string
			for _, m := range o.AIMessages {
				for _, c := range m.ToolCalls {
					lines = append(lines, fmt.Sprintf("%d. %s", len(lines)+1, formatGot(c)))
				}
			}
			if len(lines) == 0 {
				lines = []string{"(no tool calls)"}
			}
			writeTag(&b, "tool_calls", strings.Join(lines, "\n"))
		}
	}
	if j.Reference != "" {
		writeTag(&b, "reference_output", j.Reference)
	}
	if len(j.ReferenceTrajectory) > 0 {
		lines := make([]string, len(j.ReferenceTrajectory))
		for i, c := range j.ReferenceTrajectory {
			lines[i] = fmt.Sprintf("%d. %s", i+1, formatWant(c))
		}
		writeTag(&b, "reference_trajectory", strings.Join(lines, "\n"))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// judgeTranscript renders messages one per line: "human: ...", "ai: ...
// [calls: ...]", "tool get_weather: ...".
func judgeTranscript(msgs []engine.Message) string {
	var lines []string
	for _, m := range msgs {
		switch m.Type {
		case engine.TypeAI:
			line := "ai: " + m.Text()
			if len(m.ToolCalls) > 0 {
				calls := make([]string, len(m.ToolCalls))
				for i, c := range m.ToolCalls {
					calls[i] = formatGot(c)
				}
				line += " [calls: " + strings.Join(calls, "; ") + "]"
			}
			lines = append(lines, line)
		case engine.TypeTool:
			lines = append(lines, "tool "+m.Name+": "+m.Text())
		default:
			lines = append(lines, string(m.Type)+": "+m.Text())
		}
	}
	return strings.Join(lines, "\n")
}

func writeTag(b *strings.Builder, tag, text string) {
	fmt.Fprintf(b, "<%s>\n%s\n</%s>\n", tag, strings.TrimSpace(text), tag)
}

// ParseJudgeAnswer reads a judge's answer: one JSON object with a score
// (a number in [0,1], or true for 1 and false for 0) and optionally
// reasoning (or reason), which becomes the Score's Reason. The object may
// be wrapped in a Markdown code fence or in text before and after it.
// With choices, the score must be one of them.
func ParseJudgeAnswer(text string, choices []float64) (Score, error) {
	start := strings.IndexByte(text, '{')
	end := strings.LastIndexByte(text, '}')
	if start < 0 || end < start {
		return Score{}, fmt.Errorf(`want a JSON object {"reasoning": "...", "score": <0 to 1>}, got %s`, quoteText(text))
	}
	s, err := ParseScoreJSON([]byte(text[start : end+1]))
	if err != nil {
		return Score{}, fmt.Errorf("%w, in %s", err, quoteText(text))
	}
	if len(choices) > 0 && !slices.ContainsFunc(choices, func(c float64) bool { return math.Abs(c-s.Value) < 1e-9 }) {
		parts := make([]string, len(choices))
		for i, c := range choices {
			parts[i] = formatNumber(c)
		}
		return Score{}, fmt.Errorf("score %s is not one of the choices %s", formatNumber(s.Value), strings.Join(parts, ", "))
	}
	return s, nil
}

// ParseScoreJSON reads a score object, {"score": <number in [0,1] or a
// boolean>, "reason" or "reasoning": "..."}: what judges and command
// graders answer. Other keys are ignored.
func ParseScoreJSON(data []byte) (Score, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return Score{}, fmt.Errorf(`want a JSON object {"score": <0 to 1>, "reason": "..."}: %w`, err)
	}
	if dec.More() {
		return Score{}, errors.New("want one JSON object, got more after it")
	}
	raw, ok := obj["score"]
	if !ok {
		return Score{}, errors.New(`the object has no "score"`)
	}
	var s Score
	switch v := raw.(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return Score{}, fmt.Errorf("score %s is not a number from 0 to 1", v)
		}
		s.Value = f
	case bool:
		if v {
			s.Value = 1
		}
	default:
		return Score{}, fmt.Errorf("score %s is not a number from 0 to 1", shortJSON(engine.ValueForJSON(raw)))
	}
	for _, key := range []string{"reasoning", "reason"} {
		if r, ok := obj[key].(string); ok && r != "" {
			s.Reason = r
			break
		}
	}
	return s, nil
}

// Problems lists what is wrong with the grader's specification that the
// scenario schema cannot say: no kind or more than one, a judge without
// its rubric or reference, a regex that does not compile, a threshold or
// choice outside [0,1], a command's timeout that is not a duration. A
// runner reports them when it loads the scenario.
func (g Grader) Problems() []Problem {
	var ps []Problem
	add := func(field, format string, args ...any) {
		ps = append(ps, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	var kinds []string
	for _, k := range []struct {
		name string
		set  bool
	}{{KindJudge, g.Judge != nil}, {KindTrajectoryScore, g.TrajectoryScore != nil}, {KindOrder, g.Order != nil},
		{KindArgs, g.Args != nil}, {KindAnswer, g.Answer != nil}, {KindGo, g.Go != ""}, {KindCommand, g.Command != nil}} {
		if k.set {
			kinds = append(kinds, k.name)
		}
	}
	switch len(kinds) {
	case 0:
		add("", "needs exactly one of judge, trajectory_score, order, args, answer, go or command")
	case 1:
	default:
		add("", "needs exactly one of judge, trajectory_score, order, args, answer, go or command, got %s", strings.Join(kinds, " and "))
	}
	if t := g.Threshold; t != nil && (*t < 0 || *t > 1) {
		add("threshold", "must be from 0 to 1, got %s", formatNumber(*t))
	}
	if j := g.Judge; j != nil {
		switch {
		case j.Rubric == "" && j.Builtin == "":
			add("judge", "needs a rubric (free text) or a builtin (correctness, helpfulness or trajectory_accuracy)")
		case j.Rubric != "" && j.Builtin != "":
			add("judge.builtin", "set rubric or builtin, not both")
		}
		if j.Builtin == BuiltinCorrectness && j.Reference == "" {
			add("judge.reference", "missing: the correctness rubric compares with a reference answer")
		}
		for i, c := range j.Choices {
			if c < 0 || c > 1 {
				add(fmt.Sprintf("judge.choices[%d]", i), "must be from 0 to 1, got %s", formatNumber(c))
			}
		}
		for i, ex := range j.Examples {
			if ex.Score < 0 || ex.Score > 1 {
				add(fmt.Sprintf("judge.examples[%d].score", i), "must be from 0 to 1, got %s", formatNumber(ex.Score))
			}
		}
	}
	if a := g.Args; a != nil {
		if len(a.Fields) == 0 && a.Schema == nil {
			add("args", "needs fields or schema")
		}
		ps = append(ps, matcherProblems("args.fields", a.Fields)...)
	}
	if a := g.Answer; a != nil {
		m := a.matcher()
		if m.empty() && len(a.Fields) == 0 {
			add("answer", "needs a condition (regex, approx, one_of, text, schema or similar) or fields")
		}
		ps = append(ps, matcherProblems("answer", map[string]Matcher{"": m})...)
		ps = append(ps, matcherProblems("answer.fields", a.Fields)...)
	}
	if c := g.Command; c != nil {
		if _, err := c.timeout(); err != nil {
			add("command.timeout", "%v", err)
		}
	}
	return ps
}

// matcherProblems checks the matchers of fields: each sets a condition
// and its regex compiles. The key "" is the whole-value matcher at base.
func matcherProblems(base string, fields map[string]Matcher) []Problem {
	var ps []Problem
	for _, path := range sortedKeys(fields) {
		m := fields[path]
		at := base
		if path != "" {
			at = jsonPathChild(base, path)
			if m.empty() {
				ps = append(ps, Problem{Field: at, Message: "sets no condition: set regex, approx, one_of, text, schema or similar"})
			}
		}
		if m.Regex != "" {
			if _, err := compileRegex(m.Regex); err != nil {
				ps = append(ps, Problem{Field: at + ".regex", Message: "invalid regular expression: " + err.Error()})
			}
		}
		if m.Similar != nil && (m.Similar.Min < 0 || m.Similar.Min > 1) {
			ps = append(ps, Problem{Field: at + ".similar.min", Message: fmt.Sprintf("must be from 0 to 1, got %s", formatNumber(m.Similar.Min))})
		}
	}
	return ps
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func compileRegex(s string) (*regexp.Regexp, error) { return regexp.Compile(s) }
