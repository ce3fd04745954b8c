package grade

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// maxQuotedBytes is how many bytes of a text a message quotes before cutting it.
const maxQuotedBytes = 200

// CheckExpect checks what the run showed against every set field of e and
// returns one entry per set field, in field order: "trajectory", "final",
// "structured_response", "interrupts", "max_model_calls",
// "max_tool_calls", "max_steps", "max_tokens", "max_cost", "error",
// "streamed".
// Golden is left to the runner (see CheckGolden). A failed entry's
// Message is one line that starts with the entry's name; its Diff, when
// there is one, is a (-want +got) line diff. A run that failed when
// e.Error is nil is reported by Check, not here: CheckExpect checks the
// other fields as usual. A nil o is the zero Observed.
func CheckExpect(e Expect, o *Observed) []Result {
	if o == nil {
		o = &Observed{}
	}
	var out []Result
	if e.Trajectory != nil {
		out = append(out, checkTrajectory(*e.Trajectory, o.AIMessages))
	}
	if e.Final != nil {
		out = append(out, checkFinal(*e.Final, o.Final))
	}
	if e.StructuredResponse != nil {
		out = append(out, checkStructured(*e.StructuredResponse, o))
	}
	if e.Interrupts != nil {
		out = append(out, checkInterrupts(*e.Interrupts, o.Interrupts))
	}
	u := o.Usage
	if e.MaxModelCalls != nil {
		out = append(out, checkMax("max_model_calls", "model call", *e.MaxModelCalls, u.ModelCalls))
	}
	if e.MaxToolCalls != nil {
		out = append(out, checkMax("max_tool_calls", "tool call", *e.MaxToolCalls, u.ToolCalls))
	}
	if e.MaxSteps != nil {
		out = append(out, checkMax("max_steps", "superstep", *e.MaxSteps, u.Steps))
	}
	if e.MaxTokens != nil {
		out = append(out, checkMax("max_tokens", "token", *e.MaxTokens, u.TotalTokens))
	}
	if e.MaxCost != nil {
		out = append(out, checkCost(*e.MaxCost, u))
	}
	if e.Error != nil {
		out = append(out, checkError(*e.Error, o.Err))
	}
	if e.Streamed != nil {
		out = append(out, checkStreamed(*e.Streamed, o.Streamed))
	}
	return binaryAll(out)
}

// checkFinal matches the final text: every set field of m must hold.
func checkFinal(m TextMatch, got string) Result {
	ex := Result{Name: "final"}
	var want []string // the conditions that failed
	if m.Equals != nil && got != *m.Equals {
		want = append(want, fmt.Sprintf("equal to %s", quoteText(*m.Equals)))
		ex.Diff = lineDiff(*m.Equals, got)
	}
	for _, s := range m.Contains {
		if !strings.Contains(got, s) {
			want = append(want, fmt.Sprintf("containing %q", s))
		}
	}
	if m.Regex != "" {
		re, err := regexp.Compile(m.Regex)
		if err != nil {
			ex.Message = fmt.Sprintf("final: regex %q: %v", m.Regex, err)
			ex.Diff = ""
			return ex
		}
		if !re.MatchString(got) {
			want = append(want, fmt.Sprintf("matching regex %q", m.Regex))
		}
	}
	for _, s := range m.NotContains {
		if strings.Contains(got, s) {
			want = append(want, fmt.Sprintf("not containing %q", s))
		}
	}
	if len(want) == 0 {
		ex.Passed = true
		return ex
	}
	ex.Message = fmt.Sprintf("final: want text %s, got %s", strings.Join(want, " and "), quoteText(got))
	return ex
}

// quoteText quotes s for a one-line message, cut after maxQuotedBytes bytes.
func quoteText(s string) string {
	if len(s) <= maxQuotedBytes {
		return strconv.Quote(s)
	}
	cut := maxQuotedBytes
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("... (%d bytes)", len(s))
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// checkInterrupts matches the interrupts raised against the expected ones:
// as many, each expected value a subset of the one raised.
func checkInterrupts(want []any, got []any) Result {
	ex := Result{Name: "interrupts"}
	w := make([]any, len(want))
	for i, v := range want {
		w[i] = engine.ValueForJSON(v)
	}
	g := make([]any, len(got))
	for i, v := range got {
		g[i] = engine.ValueForJSON(v)
	}
	diff := func() string { return lineDiff(indentedJSON(w), indentedJSON(projectValue(w, g))) }
	for i := range min(len(w), len(g)) {
		if where, ok := valueSubset(w[i], g[i], "$"); !ok {
			ex.Message = fmt.Sprintf("interrupts: interrupt %d: %s", i+1, where)
			ex.Diff = diff()
			return ex
		}
	}
	if len(w) != len(g) {
		ex.Message = fmt.Sprintf("interrupts: want %s, got %d", countNoun(len(w), "interrupt"), len(g))
		ex.Diff = diff()
		return ex
	}
	ex.Passed = true
	return ex
}

func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// checkMax checks a usage count against its limit; what is the counted
// thing in the singular ("tool call").
func checkMax(name, what string, limit, got int) Result {
	ex := Result{Name: name}
	if got <= limit {
		ex.Passed = true
		return ex
	}
	ex.Message = fmt.Sprintf("%s: %s, want at most %d", name, countNoun(got, what), limit)
	return ex
}

// checkCost checks the run's cost against its limit; an unknown cost fails.
func checkCost(limit float64, u Usage) Result {
	ex := Result{Name: "max_cost"}
	switch {
	case !u.CostKnown:
		ex.Message = "max_cost: cost unknown: a model's price is not in the price table"
	case u.CostUSD > limit:
		ex.Message = fmt.Sprintf("max_cost: cost $%s, want at most $%s", formatDollars(u.CostUSD), formatDollars(limit))
	default:
		ex.Passed = true
	}
	return ex
}

// formatDollars formats an amount with up to six decimals, no trailing zeros.
func formatDollars(f float64) string {
	s := strconv.FormatFloat(f, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// checkError checks that the run failed as expected: the error's Python
// kind equals Type, and its message (or its full text) contains Contains.
func checkError(want ErrorExpect, err error) Result {
	ex := Result{Name: "error"}
	if err == nil {
		ex.Message = "error: expected an error, the run succeeded"
		if d := describeErrorExpect(want); d != "" {
			ex.Message = "error: expected an error (" + d + "), the run succeeded"
		}
		return ex
	}
	kind, msg := engine.ErrorKind(err), engine.ErrorMessage(err)
	var want2 []string
	if want.Type != "" && kind != want.Type {
		want2 = append(want2, "a "+want.Type)
	}
	if want.Contains != "" && !strings.Contains(msg, want.Contains) && !strings.Contains(err.Error(), want.Contains) {
		want2 = append(want2, fmt.Sprintf("an error containing %q", want.Contains))
	}
	if len(want2) == 0 {
		ex.Passed = true
		return ex
	}
	ex.Message = fmt.Sprintf("error: want %s, got %s: %s", strings.Join(want2, " and "), kind, quoteText(msg))
	return ex
}

func describeErrorExpect(e ErrorExpect) string {
	var parts []string
	if e.Type != "" {
		parts = append(parts, e.Type)
	}
	if e.Contains != "" {
		parts = append(parts, fmt.Sprintf("containing %q", e.Contains))
	}
	return strings.Join(parts, " ")
}
