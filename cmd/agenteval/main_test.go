package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestHelpHasExamples(t *testing.T) {
	// every command a user runs has examples in its help (STYLE.md)
	for _, args := range [][]string{
		{"conformance"}, {"run"}, {"resume"}, {"schema"}, {"report", "merge"}, {"eval"}, {"report", "compare"},
		{"bench"}, {"bench", "compare"}, {"cassette", "import"}, {"cassette", "check"}, {"cassette", "usage"}, {"view"},
	} {
		code, out, _ := runCLI(append(args, "--help")...)
		if code != 0 || !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help (code %d) lacks examples:\n%s", strings.Join(args, " "), code, out)
		}
	}
}
