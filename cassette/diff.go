package cassette

import (
	"fmt"
	"strings"
)

// A line diff for miss reports: small, dependency-free and deterministic.
// go-cmp is kept out of product code (see ARCHITECTURE.md).

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
}

// maxDiffCells bounds the LCS table; larger inputs fall back to replacing
// the whole differing middle.
const maxDiffCells = 4 << 20

// lineDiff returns the edit script turning a into b.
func lineDiff(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for _, l := range a[:pre] {
		ops = append(ops, diffOp{' ', l})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > maxDiffCells {
		for _, l := range ma {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, diffOp{'+', l})
		}
	} else {
		ops = append(ops, lcsDiff(ma, mb)...)
	}
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

func lcsDiff(a, b []string) []diffOp {
	n, m := len(a), len(b)
	// t[i][j] = LCS length of a[i:], b[j:]
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else if t[i+1][j] >= t[i][j+1] {
				t[i][j] = t[i+1][j]
			} else {
				t[i][j] = t[i][j+1]
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}

// diffSize counts the lines that differ.
func diffSize(a, b []string) int {
	n := 0
	for _, op := range lineDiff(a, b) {
		if op.kind != ' ' {
			n++
		}
	}
	return n
}

// formatDiff renders the differing lines of a and b with context lines
// around them, "-" for a and "+" for b, at most maxLines lines.
func formatDiff(a, b string, context, maxLines int) string {
	ops := lineDiff(strings.Split(a, "\n"), strings.Split(b, "\n"))
	keep := make([]bool, len(ops))
	for i, op := range ops {
		if op.kind == ' ' {
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
		out = append(out, string(op.kind)+" "+op.line)
	}
	if len(out) > maxLines {
		rest := len(out) - maxLines
		out = append(out[:maxLines], fmt.Sprintf("  ... (%d more lines)", rest))
	}
	return strings.Join(out, "\n")
}
