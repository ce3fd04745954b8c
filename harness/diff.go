package harness

import (
	"fmt"
	"slices"
	"strings"
)

// diffContext is how many unchanged lines lineDiff keeps around a change;
// longer runs of unchanged lines are elided.
const diffContext = 3

// maxDiffEdits bounds the edit distance lineDiff searches for: Myers'
// algorithm keeps O(D²) state, so two very different texts are shown as
// all of want removed and all of got added instead.
const maxDiffEdits = 2000

// noNewline marks a last line that has no newline after it.
const noNewline = " (no newline at end)"

// diffOp is one line of a diff: kind is ' ' (in both), '-' (only in want)
// or '+' (only in got).
type diffOp struct {
	kind byte
	text string
}

// lineDiff returns a (-want +got) diff of two texts, line by line: each
// output line is "- " (only in want), "+ " (only in got) or "  " (in both)
// followed by the line and a newline. Unchanged lines more than 3 away from
// a change are cut to one "  ... N identical lines" line when N is more
// than 3. A last line without a newline is marked
// " (no newline at end)". Equal texts give "".
func lineDiff(want, got string) string {
	if want == got {
		return ""
	}
	ops := diffLines(splitLines(want), splitLines(got))
	return formatDiff(ops)
}

// splitLines splits s into lines that keep their "\n", so that a missing
// final newline is a difference.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffLines returns the edit script turning a into b: the common prefix and
// suffix are taken off, then Myers' O(ND) algorithm diffs the middle.
func diffLines(a, b []string) []diffOp {
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
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

// myers finds a shortest edit script from a to b (E. Myers, "An O(ND)
// Difference Algorithm and Its Variations", 1986), keeping the furthest
// reaching x of every diagonal k = x-y after each edit count d so that the
// path can be walked back.
func myers(a, b []string) []diffOp {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil
	}
	limit := n + m
	if limit > maxDiffEdits {
		limit = maxDiffEdits
	}
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int // trace[d][k+d] is v[k] after d edits
	end := -1
	for d := 0; d <= limit && end < 0; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: insert b[y]
			} else {
				x = v[off+k-1] + 1 // right: delete a[x]
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				end = d
			}
		}
		trace = append(trace, slices.Clone(v[off-d:off+d+1]))
	}
	if end < 0 {
		ops := make([]diffOp, 0, n+m)
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
		return ops
	}
	var rev []diffOp
	x, y := n, m
	for d := end; d > 0; d-- {
		prev := trace[d-1]
		get := func(k int) int { return prev[k+d-1] }
		k := x - y
		var pk int
		if k == -d || (k != d && get(k-1) < get(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := get(pk)
		py := px - pk
		// the edit leads from (px, py) to (mx, my); a diagonal follows
		mx, my := px+1, py
		if pk == k+1 {
			mx, my = px, py+1
		}
		for x > mx && y > my {
			x--
			y--
			rev = append(rev, diffOp{' ', a[x]})
		}
		if pk == k+1 {
			rev = append(rev, diffOp{'+', b[py]})
		} else {
			rev = append(rev, diffOp{'-', a[px]})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffOp{' ', a[x]})
	}
	slices.Reverse(rev)
	return rev
}

// formatDiff renders ops, eliding long runs of unchanged lines.
func formatDiff(ops []diffOp) string {
	var b strings.Builder
	write := func(op diffOp) {
		b.WriteByte(op.kind)
		b.WriteByte(' ')
		if line, ok := strings.CutSuffix(op.text, "\n"); ok {
			b.WriteString(line)
		} else {
			b.WriteString(op.text + noNewline)
		}
		b.WriteByte('\n')
	}
	for i := 0; i < len(ops); {
		if ops[i].kind != ' ' {
			write(ops[i])
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].kind == ' ' {
			j++
		}
		head, tail := diffContext, diffContext // lines kept after a change, before the next
		if i == 0 {
			head = 0
		}
		if j == len(ops) {
			tail = 0
		}
		if j-i-head-tail <= diffContext {
			for _, op := range ops[i:j] {
				write(op)
			}
		} else {
			for _, op := range ops[i : i+head] {
				write(op)
			}
			fmt.Fprintf(&b, "  ... %d identical lines\n", j-i-head-tail)
			for _, op := range ops[j-tail : j] {
				write(op)
			}
		}
		i = j
	}
	return b.String()
}
