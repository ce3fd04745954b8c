package report

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes a summary of r fit for a GitHub Actions job summary
// ($GITHUB_STEP_SUMMARY), what failed first: a headline with ✅ (nothing
// failed or errored) or ❌ and the counts; a "Failures" section with each
// failed or errored scenario, each failed expectation at its file:line
// with its message and its diff in a ```diff block; when graders ran, a
// "Graders" section with each grader's score, threshold and reason; then
// the table of the scenarios (status, name, model calls, tool calls,
// tokens, cost), failures first, folded in a <details> when something
// failed so that it does not push the failures down. The counts are
// derived from the scenarios. Timing is shown only when r.Timing is set,
// so the output is otherwise byte-stable.
func WriteMarkdown(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("write markdown report: nil report")
	}
	n := counted(r)
	scenarios := failuresFirst(r.Scenarios)
	var b strings.Builder
	icon := "✅"
	if n.Failed > 0 || n.Errored > 0 {
		icon = "❌"
	}
	fmt.Fprintf(&b, "## %s agenteval: %d passed, %d failed, %d errored, %d skipped\n\n", icon, n.Passed, n.Failed, n.Errored, n.Skipped)
	if len(r.Shards) > 0 {
		fmt.Fprintf(&b, "Shards: %s\n\n", mdInline(strings.Join(r.Shards, ", ")))
	}
	if t := r.Timing; t != nil {
		fmt.Fprintf(&b, "%d scenarios in %s s (parallel %d, %.1f scenarios/s), started %s\n\n",
			len(scenarios), seconds(t.WallMS), t.Parallel, t.PerSecond, mdInline(t.Started))
	}
	if len(scenarios) == 0 {
		b.WriteString("No scenarios ran.\n")
	}
	folded := writeMarkdownFailures(&b, scenarios)
	writeGradersMarkdown(&b, scenarios)
	if len(scenarios) > 0 {
		writeMarkdownTable(&b, scenarios, folded)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write markdown report: %w", err)
	}
	return nil
}

// writeMarkdownFailures writes the Failures section and reports whether
// there was one.
func writeMarkdownFailures(b *strings.Builder, scenarios []Scenario) bool {
	wrote := false
	for _, s := range scenarios {
		if !failed(s.Status) {
			continue
		}
		if !wrote {
			b.WriteString("### Failures\n")
			wrote = true
		}
		blankLine(b)
		fmt.Fprintf(b, "#### %s %s\n\n", statusIcon(s.Status), mdInline(s.Name))
		exps := failedExpectations(&s)
		if s.Status == StatusError || len(exps) == 0 {
			exps = []Expectation{{Message: s.Message, Diff: s.Diff, Line: s.Line}}
		}
		for _, e := range exps {
			if loc := location(cmp.Or(e.File, s.File), e.Line); loc != "" {
				fmt.Fprintf(b, "%s\n\n", mdCode(loc))
			}
			msg := expectationText(e)
			if msg != "" {
				for _, line := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
					fmt.Fprintf(b, "> %s\n", mdInline(line))
				}
				b.WriteString("\n")
			}
			if e.Diff != "" {
				fence := codeFence(e.Diff)
				fmt.Fprintf(b, "%sdiff\n%s\n%s\n\n", fence, strings.TrimRight(e.Diff, "\n"), fence)
			}
		}
	}
	return wrote
}

// writeMarkdownTable writes the table of the scenarios, in a <details>
// when fold is set.
func writeMarkdownTable(b *strings.Builder, scenarios []Scenario, fold bool) {
	if fold {
		blankLine(b)
		fmt.Fprintf(b, "<details><summary>All %d scenarios</summary>\n\n", len(scenarios))
	}
	b.WriteString("| | Scenario | Model calls | Tool calls | Tokens | Cost |\n")
	b.WriteString("| :-: | :-- | --: | --: | --: | --: |\n")
	for _, s := range scenarios {
		name := mdInline(s.Name)
		if s.Replay != "" {
			name += " (replayed " + mdInline(s.Replay) + ")"
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %s |\n",
			statusIcon(s.Status), name, s.Usage.ModelCalls, s.Usage.ToolCalls, s.Usage.TotalTokens, cost(s.Usage))
	}
	if fold {
		b.WriteString("\n</details>\n")
	}
}

// blankLine ends b with an empty line, unless it already does.
func blankLine(b *strings.Builder) {
	s := b.String()
	switch {
	case s == "" || strings.HasSuffix(s, "\n\n"):
	case strings.HasSuffix(s, "\n"):
		b.WriteString("\n")
	default:
		b.WriteString("\n\n")
	}
}

// mdCode writes s as inline code, with a fence of backticks longer than
// any run inside it.
func mdCode(s string) string {
	s = oneLine(s)
	fence := strings.Repeat("`", longestBackticks(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// statusIcon is the emoji of a verdict.
func statusIcon(s Status) string {
	switch s {
	case StatusPass:
		return "✅"
	case StatusFail:
		return "❌"
	case StatusError:
		return "💥"
	case StatusSkip:
		return "⏭️"
	}
	return "❔"
}

// cost formats a scenario's cost in dollars, "no price" when a model's
// price is unknown (a scripted model has none).
func cost(u Usage) string {
	if !u.CostKnown {
		return "no price"
	}
	return fmt.Sprintf("$%.4f", u.CostUSD)
}

// mdInline puts text on one line and escapes with a backslash the
// characters that would start Markdown or HTML markup in it, "|" among
// them, so it is safe in a table cell.
func mdInline(s string) string {
	var b strings.Builder
	for _, r := range oneLine(s) {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '#', '|', '~', '&':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codeFence is a fence of backticks longer than any run of backticks in
// s, and at least three.
func codeFence(s string) string {
	return strings.Repeat("`", max(3, longestBackticks(s)+1))
}

// longestBackticks is the length of the longest run of backticks in s.
func longestBackticks(s string) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// writeGradersMarkdown writes a table of every grader that scored, by
// scenario, or nothing when none did.
func writeGradersMarkdown(b *strings.Builder, scenarios []Scenario) {
	first := true
	for _, s := range scenarios {
		for _, e := range s.Expectations {
			if e.Score == nil || e.Threshold == nil {
				continue
			}
			if first {
				b.WriteString("\n### Graders\n\n| | Scenario | Grader | Score | Threshold | Reason |\n| :-: | :-- | :-- | --: | --: | :-- |\n")
				first = false
			}
			icon := "✅"
			if !e.Passed {
				icon = "❌"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", icon, mdInline(s.Name), mdInline(e.Name),
				scoreText(*e.Score), scoreText(*e.Threshold), mdInline(e.Reason))
		}
	}
}
