package textdiff

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// propLineDiffReconstructs: the kept and removed lines of a diff are want,
// the kept and added lines are got, and the diff is no longer than
// removing everything and adding everything.
func propLineDiffReconstructs(t *rapid.T) {
	line := rapid.SampledFrom([]string{"a", "b", "c", "d"})
	a := rapid.SliceOfN(line, 0, 12).Draw(t, "want")
	b := rapid.SliceOfN(line, 0, 12).Draw(t, "got")
	ops := Lines(a, b)
	var ra, rb []string
	edits := 0
	for _, op := range ops {
		switch op.Kind {
		case ' ':
			ra, rb = append(ra, op.Line), append(rb, op.Line)
		case '-':
			ra = append(ra, op.Line)
			edits++
		case '+':
			rb = append(rb, op.Line)
			edits++
		default:
			t.Fatalf("unknown op %q", op.Kind)
		}
	}
	if strings.Join(ra, "|") != strings.Join(a, "|") || strings.Join(rb, "|") != strings.Join(b, "|") {
		t.Fatalf("diff %v does not rebuild want %v and got %v", ops, a, b)
	}
	if lcs := lcsLen(a, b); edits != len(a)+len(b)-2*lcs {
		t.Fatalf("diff has %d edits, a shortest one has %d", edits, len(a)+len(b)-2*lcs)
	}
}

// lcsLen is the length of a longest common subsequence, by dynamic
// programming: the reference for the minimality of myers.
func lcsLen(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func TestPropLineDiffReconstructs(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propLineDiffReconstructs)
}

func FuzzLineDiffReconstructs(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propLineDiffReconstructs))
}

func TestLinesKeepsPrefixAndSuffix(t *testing.T) {
	ops := Lines([]string{"a", "b", "c"}, []string{"a", "x", "c"})
	var got []string
	for _, op := range ops {
		got = append(got, string(op.Kind)+op.Line)
	}
	if strings.Join(got, ",") != " a,-b,+x, c" || Changed(ops) != 2 {
		t.Errorf("Lines = %v (changed %d), want [ a -b +x  c] (changed 2)", got, Changed(ops))
	}
}
