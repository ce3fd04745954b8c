package cassette

import (
	"fmt"
	"strings"

	"github.com/agenteval/agenteval/textdiff"
)

// The diff of a miss report: textdiff's edit script with context lines.
// go-cmp is kept out of product code (see ARCHITECTURE.md).

// diffSize counts the lines that differ.
func diffSize(a, b []string) int { return textdiff.Changed(textdiff.Lines(a, b)) }

// formatDiff renders the differing lines of a and b with context lines
// around them, "-" for a and "+" for b, at most maxLines lines.
func formatDiff(a, b string, context, maxLines int) string {
	ops := textdiff.Lines(strings.Split(a, "\n"), strings.Split(b, "\n"))
	keep := make([]bool, len(ops))
	for i, op := range ops {
		if op.Kind == ' ' {
			continue
		}
		for j := max(0, i-context); j <= min(len(ops)-1, i+context); j++ {
			keep[j] = true
		}
	}
	var out []string
	skipped := false
	for i, op := range ops {
		if !keep[i] {
			skipped = true
			continue
		}
		if skipped && len(out) > 0 {
			out = append(out, "  ...")
		}
		skipped = false
		out = append(out, string(op.Kind)+" "+op.Line)
	}
	if len(out) > maxLines {
		rest := len(out) - maxLines
		out = append(out[:maxLines], fmt.Sprintf("  ... (%d more lines)", rest))
	}
	return strings.Join(out, "\n")
}
