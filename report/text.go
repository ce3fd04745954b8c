package report

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteText writes r as the plain text that "agenteval run" prints, with
// the zero TextOptions: see WriteTextWith.
func WriteText(w io.Writer, r *Report) error { return WriteTextWith(w, r, TextOptions{}) }

// TextOptions tunes WriteTextWith. The zero value writes plain text and
// "agenteval run" as the command that reruns what failed.
type TextOptions struct {
	// Color puts ANSI colours on the verdicts, for a terminal.
	Color bool
	// Rerun is the command, without paths, that reruns scenarios
	// ("agenteval run --root testdata/scenarios"); the failed scenarios'
	// files are appended to it. Default "agenteval run".
	Rerun string
}

// WriteTextWith writes r as plain text, what failed first: one line per
// scenario in the order failures, errors, skips, passes (by name within
// each), "FAIL  name" followed by each failed expectation as
// "file:line: name: message" and its (-want +got) diff, "ERROR name"
// followed by the error, "SKIP  name: reason", "PASS  name"; a line for
// grader that passed, its score, threshold and reason (a failed one's
// message says them); each golden file written or changed by a passing
// scenario; then a blank
// line and the counts, derived from the scenarios, with the wall time,
// rate and parallelism only when r.Timing is set. When something failed,
// a blank line, the list of what failed, one "  FAIL  name  file:line"
// per scenario, and the command that reruns just those end the text.
func WriteTextWith(w io.Writer, r *Report, opts TextOptions) error {
	if r == nil {
		return errors.New("write text report: nil report")
	}
	n := counted(r)
	scenarios := failuresFirst(r.Scenarios)
	var b strings.Builder
	for _, s := range scenarios {
		writeTextScenario(&b, &s, opts.Color)
	}
	fmt.Fprintf(&b, "\n%d passed, %d failed, %d errors, %d skipped", n.Passed, n.Failed, n.Errored, n.Skipped)
	if t := r.Timing; t != nil {
		fmt.Fprintf(&b, " in %.0f ms (%.0f scenarios/s, parallel %d)", t.WallMS, t.PerSecond, t.Parallel)
	}
	b.WriteString("\n")
	writeRerun(&b, scenarios, opts)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write text report: %w", err)
	}
	return nil
}

// writeTextScenario writes one scenario's lines: its verdict, and what
// failed, each message once, at its file:line.
func writeTextScenario(b *strings.Builder, s *Scenario, color bool) {
	switch s.Status {
	case StatusPass:
		fmt.Fprintf(b, "%s  %s\n", paint(color, s.Status, "PASS"), s.Name)
	case StatusSkip:
		fmt.Fprintf(b, "%s  %s: %s\n", paint(color, s.Status, "SKIP"), s.Name, s.Message)
	case StatusError:
		fmt.Fprintf(b, "%s %s\n%s\n", paint(color, s.Status, "ERROR"), s.Name, indent(located(s.Location(), s.Message)))
		if s.Diff != "" {
			fmt.Fprintf(b, "      (-want +got):\n%s\n", indent(strings.TrimRight(s.Diff, "\n")))
		}
	default:
		fmt.Fprintf(b, "%s  %s\n", paint(color, StatusFail, "FAIL"), s.Name)
		exps := failedExpectations(s)
		if len(exps) == 0 {
			exps = []Expectation{{Message: s.Message, Diff: s.Diff, Line: s.Line}}
		}
		for _, e := range exps {
			loc := location(cmp.Or(e.File, s.File), e.Line)
			fmt.Fprintf(b, "%s\n", indent(located(loc, expectationText(e))))
			if e.Diff != "" {
				fmt.Fprintf(b, "      (-want +got):\n%s\n", indent(strings.TrimRight(e.Diff, "\n")))
			}
		}
	}
	for _, e := range s.Expectations {
		if e.Passed && e.Score != nil && e.Threshold != nil {
			fmt.Fprintf(b, "      %s: score %s (threshold %s)", e.Name, scoreText(*e.Score), scoreText(*e.Threshold))
			if r := firstLine(e.Reason); r != "" {
				fmt.Fprintf(b, ": %s", r)
			}
			b.WriteString("\n")
		}
	}
	if s.GoldenStatus == "written" || (s.GoldenStatus == "changed" && s.Status == StatusPass) {
		fmt.Fprintf(b, "      golden %s %s\n", s.Golden, s.GoldenStatus)
	}
	if s.Replay != "" {
		fmt.Fprintf(b, "      replayed %s: %s\n", s.Replay, replayNote)
	}
}

// replayNote says what a replay by order does not check.
const replayNote = "each request got the recorded answer at its place, whatever it said (agent.replay)"

// writeRerun ends the text of a run where something failed: the list of
// what failed, at its place, and the command that reruns just those.
func writeRerun(b *strings.Builder, scenarios []Scenario, opts TextOptions) {
	var bad []Scenario
	width := 0
	for _, s := range scenarios {
		if failed(s.Status) {
			bad = append(bad, s)
			width = max(width, utf8.RuneCountInString(s.Name))
		}
	}
	if len(bad) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%d failed:\n", len(bad))
	var files []string
	seen := map[string]bool{}
	for _, s := range bad {
		word := "FAIL "
		if s.Status == StatusError {
			word = "ERROR"
		}
		pad := strings.Repeat(" ", width-utf8.RuneCountInString(s.Name))
		fmt.Fprintf(b, "  %s %s%s  %s\n", paint(opts.Color, s.Status, word), s.Name, pad, s.Location())
		if s.File != "" && !seen[s.File] {
			seen[s.File] = true
			files = append(files, shellQuote(s.File))
		}
	}
	if len(files) > 0 {
		fmt.Fprintf(b, "rerun them: %s %s\n", cmp.Or(opts.Rerun, "agenteval run"), strings.Join(files, " "))
	}
}

// paint colours a verdict's word for a terminal when color is set.
func paint(color bool, s Status, word string) string {
	if !color {
		return word
	}
	code := "32" // green
	switch s {
	case StatusFail, StatusError:
		code = "1;31" // bold red
	case StatusSkip:
		code = "33" // yellow
	}
	return "\033[" + code + "m" + word + "\033[0m"
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and "-_./:=@%+,".
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// indent puts six spaces before every line of s.
func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "      " + l
	}
	return strings.Join(lines, "\n")
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// trajectoryText writes a trajectory as plain text, one line per step and
// one per message and tool call; contents are Go-quoted so that each stays
// on its line.
func trajectoryText(steps []Step) string {
	var b strings.Builder
	for _, st := range steps {
		fmt.Fprintf(&b, "turn %d step %d", st.Turn, st.Step)
		if st.Thread != "" {
			fmt.Fprintf(&b, " thread %s", st.Thread)
		}
		if st.Namespace != "" {
			fmt.Fprintf(&b, " in %s", st.Namespace)
		}
		fmt.Fprintf(&b, ": %s\n", strings.Join(st.Nodes, ", "))
		for _, m := range st.Messages {
			head := m.Type
			if m.Name != "" {
				head += " " + m.Name
			}
			b.WriteString("  " + head)
			if m.ToolCallID != "" {
				fmt.Fprintf(&b, " (answers %s)", m.ToolCallID)
			}
			if m.Status != "" && m.Status != "success" {
				fmt.Fprintf(&b, " [%s]", m.Status)
			}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				fmt.Fprintf(&b, " %q", m.Content)
			}
			b.WriteString("\n")
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "    -> %s %s", c.Name, c.Args)
				if c.ID != "" {
					fmt.Fprintf(&b, " [%s]", c.ID)
				}
				b.WriteString("\n")
			}
		}
		if len(st.Keys) > 0 {
			fmt.Fprintf(&b, "  keys: %s\n", strings.Join(st.Keys, ", "))
		}
	}
	return b.String()
}

// failureText is the body of a failure or an error: every failed
// expectation at its file:line with its message and diff, or the
// scenario's message and diff when no expectation failed.
func failureText(s *Scenario) string {
	var parts []string
	for _, e := range failedExpectations(s) {
		loc := location(cmp.Or(e.File, s.File), e.Line)
		parts = append(parts, joinNonEmpty(located(loc, expectationText(e)), e.Diff))
	}
	if len(parts) == 0 {
		parts = append(parts, joinNonEmpty(located(s.Location(), s.Message), s.Diff))
	}
	return strings.Join(parts, "\n\n")
}

func joinNonEmpty(a, b string) string {
	a, b = strings.TrimRight(a, "\n"), strings.TrimRight(b, "\n")
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

// oneLine folds runs of white space, newlines included, into one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// truncate shortens s to at most n runes, ending it with "…" when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// xmlText drops the runes XML 1.0 does not allow (most control
// characters, surrogates, U+FFFE and U+FFFF) and invalid UTF-8.
func xmlText(s string) string {
	ok := true
	for _, r := range s {
		if !xmlRune(r) {
			ok = false
			break
		}
	}
	if ok && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				continue
			}
		}
		if xmlRune(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// xmlRune reports whether r is in XML 1.0's Char production.
func xmlRune(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// seconds formats milliseconds as seconds with millisecond precision.
func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }
