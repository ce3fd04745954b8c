package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// projectFolders are the top-level folders of this repository that hold
// what agenteval reads: the layout a user's repository has too (see
// ARCHITECTURE.md), and the repo's own examples and vectors.
var projectFolders = []string{"scenarios", "evals", "cassettes", "golden", "reports", "docs", "examples", "conformance"}

// outputFlags are the flags whose value is a file or folder the command
// writes, not one it reads.
var outputFlags = map[string]bool{"-o": true, "--out": true, "--report-dir": true, "--state-dir": true}

// TestHelpPathsExist reads every command's --help (its long text and its
// Examples block) and checks that each path it shows as an input exists in
// this repository, so that a reader who copies an example from a checkout
// runs it on real files. Help texts once showed scenarios/weather.yaml,
// scenarios/react/weather.yaml, cassettes/hitl/ and evals/providers.yaml,
// none of which exist (issue 36).
//
// The rule that tells inputs from outputs: a word is a path the test
// checks when its first segment is one of projectFolders (scenarios/,
// evals/, cassettes/, golden/, reports/, docs/, examples/, conformance/)
// and it is not an output, that is neither the word after a shell
// redirection ">" nor the value of an output flag (-o, --out,
// --report-dir, --state-dir). A glob must match at least one file.
// Paths outside those folders (shard-*/agenteval.json, base.json,
// tests/cassettes/*.yaml) stand for the user's own files and are not
// checked.
func TestHelpPathsExist(t *testing.T) {
	t.Parallel()
	repo := filepath.Join("..", "..")
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	checked := 0
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, p := range inputPaths(c.Long + "\n" + c.Example) {
			checked++
			full := filepath.Join(repo, filepath.FromSlash(p))
			if strings.Contains(p, "*") {
				if m, _ := filepath.Glob(full); len(m) == 0 {
					t.Errorf("%s --help shows %s, which matches no file in the repository", c.CommandPath(), p)
				}
				continue
			}
			if _, err := os.Stat(full); err != nil {
				t.Errorf("%s --help shows %s, which does not exist in the repository", c.CommandPath(), p)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if checked < 20 {
		t.Fatalf("found only %d input paths in the help texts: the rule no longer reads them", checked)
	}
}

// inputPaths returns the words of text that TestHelpPathsExist's rule
// calls input paths, in order.
func inputPaths(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		words := strings.Fields(line)
		for i, w := range words {
			if i > 0 && (words[i-1] == ">" || outputFlags[words[i-1]]) {
				continue
			}
			if flag, value, ok := strings.Cut(w, "="); ok && strings.HasPrefix(flag, "-") {
				if outputFlags[flag] {
					continue
				}
				w = value
			}
			w = strings.TrimLeft(w, `("'`)
			w = strings.TrimRight(w, `"'),.:;`)
			first, _, ok := strings.Cut(w, "/")
			if !ok {
				continue
			}
			for _, f := range projectFolders {
				if first == f {
					out = append(out, w)
					break
				}
			}
		}
	}
	return out
}

// TestInputPaths pins the rule on lines like the help texts'.
func TestInputPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line   string
		want   []string
		reason string
	}{
		{"  agenteval run scenarios/hitl scenarios/react/single_tool_call.yaml", []string{"scenarios/hitl", "scenarios/react/single_tool_call.yaml"}, "arguments under project folders are inputs"},
		{"  agenteval eval --format json evals/suite.yaml > reports/eval/suite.json", []string{"evals/suite.yaml"}, "what a redirection writes is an output"},
		{"  agenteval run --parallel 8 --report-dir reports/", nil, "--report-dir names what the command writes"},
		{"  agenteval cassette import -o cassettes/ tests/cassettes/*.yaml", nil, "-o is an output; tests/ stands for the user's files"},
		{"  agenteval run --root=docs/examples --state-dir=scenarios/state", []string{"docs/examples"}, "a --flag=value's value is read by the same rule"},
		{`scenario in this folder ("scenarios/"), runs it. docs/eval.md.`, []string{"scenarios/", "docs/eval.md"}, "prose paths lose their quotes and punctuation"},
		{"  agenteval report compare base.json new.json", nil, "bare file names are the user's own"},
	}
	for _, tt := range tests {
		got := inputPaths(tt.line)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("inputPaths(%q) = %q, want %q (%s)", tt.line, got, tt.want, tt.reason)
		}
	}
}
