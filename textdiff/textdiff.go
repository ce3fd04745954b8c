// Package textdiff computes line edit scripts: which lines of one text
// were removed and which of another added, the rest kept. It is small,
// dependency-free and deterministic; the packages that show diffs (the
// cassette's nearest-request report, the harness's (-want +got) failures)
// format its scripts their own way.
package textdiff

import "slices"

// Op is one line of an edit script: Kind is ' ' (in both), '-' (only in
// the first text) or '+' (only in the second).
type Op struct {
	Kind byte
	Line string
}

// MaxEdits bounds the edit distance Lines searches for: Myers' algorithm
// keeps O(D²) state, so two very different texts come out as all of the
// first removed and all of the second added instead.
const MaxEdits = 2000

// Lines returns a shortest edit script turning a into b: the common prefix
// and suffix are kept, then Myers' O(ND) algorithm diffs the middle.
func Lines(a, b []string) []Op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []Op
	for _, l := range a[:pre] {
		ops = append(ops, Op{' ', l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, Op{' ', l})
	}
	return ops
}

// Changed counts the lines an edit script removes or adds.
func Changed(ops []Op) int {
	n := 0
	for _, op := range ops {
		if op.Kind != ' ' {
			n++
		}
	}
	return n
}

// myers finds a shortest edit script from a to b (E. Myers, "An O(ND)
// Difference Algorithm and Its Variations", 1986), keeping the furthest
// reaching x of every diagonal k = x-y after each edit count d so that the
// path can be walked back.
func myers(a, b []string) []Op {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil
	}
	limit := n + m
	if limit > MaxEdits {
		limit = MaxEdits
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
		ops := make([]Op, 0, n+m)
		for _, l := range a {
			ops = append(ops, Op{'-', l})
		}
		for _, l := range b {
			ops = append(ops, Op{'+', l})
		}
		return ops
	}
	var rev []Op
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
			rev = append(rev, Op{' ', a[x]})
		}
		if pk == k+1 {
			rev = append(rev, Op{'+', b[py]})
		} else {
			rev = append(rev, Op{'-', a[px]})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, Op{' ', a[x]})
	}
	slices.Reverse(rev)
	return rev
}
