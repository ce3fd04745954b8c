package harness

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/emulator"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/engine/value"
	"github.com/agenteval/agenteval/grade"
	"github.com/agenteval/agenteval/serve"
	"github.com/agenteval/agenteval/textdiff"
)

// documentedLimits is every limit docs/limits.md lists, by the name in
// its first column, with the default its second column must show,
// formatted from the constant in the code: a size (bytes), a count, a
// duration, or "none".
var documentedLimits = map[string]any{
	"`file_bytes`":                    size(DefaultFileBytes),
	"`depth`":                         count(DefaultDepth),
	"`values`":                        count(DefaultValues),
	"`value_bytes`":                   size(DefaultValueBytes),
	"`recursion_limit`":               count(DefaultRecursionLimit),
	"`cassette_file_bytes`":           size(cassette.DefaultMaxFileBytes),
	"`cassette_body_bytes`":           size(cassette.DefaultMaxBodyBytes),
	"`dataset_bytes`":                 size(DefaultDatasetBytes),
	"`dataset_rows`":                  count(DefaultDatasetRows),
	"command agent stdout line":       size(commandLineBytes),
	"`agent.recursion_limit`":         count(engine.DefaultRecursionLimit),
	"`timeout` (scenario)":            "none",
	"`timeout` (tool)":                "none",
	"tool grace":                      DefaultToolGrace,
	"`agent.timeout` (command agent)": defaultCommandTimeout,
	"command agent stderr":            size(commandTailBytes),
	"command grader `timeout`":        grade.DefaultCommandTimeout,
	"command grader stdout":           size(grade.MaxCommandOutputBytes),
	"command grader stderr":           size(grade.MaxCommandStderrBytes),
	"JSON nesting":                    count(value.MaxJSONDepth),
	"emulated values":                 count(emulator.MaxValues),
	"emulated string bytes":           size(emulator.MaxStringBytes),
	"scripted request log":            count(llm.DefaultRequestLog),
	"serve request body":              size(serve.DefaultMaxRequestBytes),
	"provider error body":             size(llm.MaxErrorBodyBytes),
	"provider response body":          size(llm.MaxResponseBodyBytes),
	"diff edits":                      count(textdiff.MaxEdits),
}

type (
	size  int64
	count int
)

// docDefault writes a default the way docs/limits.md shows it: 4 MiB,
// 262,144, 2 s.
func docDefault(v any) string {
	switch v := v.(type) {
	case size:
		for _, u := range []struct {
			unit string
			n    int64
		}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
			if v >= size(u.n) && int64(v)%u.n == 0 {
				return fmt.Sprintf("%d %s", int64(v)/u.n, u.unit)
			}
		}
		return fmt.Sprintf("%d bytes", v)
	case count:
		s := strconv.Itoa(int(v))
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	case time.Duration:
		return strconv.FormatFloat(v.Seconds(), 'f', -1, 64) + " s"
	}
	return fmt.Sprint(v)
}

// TestLimitsDoc keeps docs/limits.md in step with the code: its table
// lists every limit of documentedLimits and no other, each default is the
// constant's value, every name --limit takes has a row that says how to
// set it, and every name the table gives to --limit is one Set takes.
func TestLimitsDoc(t *testing.T) {
	data, err := os.ReadFile("../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| limit ") || strings.HasPrefix(line, "| ---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 4 {
			t.Errorf("docs/limits.md: row %q has %d cells, want 4 (limit, default, where to change it, when exceeded)", line, len(cells))
			continue
		}
		if _, dup := rows[cells[0]]; dup {
			t.Errorf("docs/limits.md: %s has two rows", cells[0])
		}
		rows[cells[0]] = cells
	}
	for name, def := range documentedLimits {
		cells, ok := rows[name]
		if !ok {
			t.Errorf("docs/limits.md lacks a row for %s (default %s)", name, docDefault(def))
			continue
		}
		if got, want := cells[1], docDefault(def); got != want {
			t.Errorf("docs/limits.md: %s: default %q, but the code's is %q", name, got, want)
		}
	}
	for name := range rows {
		if _, ok := documentedLimits[name]; !ok {
			t.Errorf("docs/limits.md lists %s, which documentedLimits does not know: add its constant there", name)
		}
	}
	for _, n := range LimitNames() {
		cells, ok := rows["`"+n+"`"]
		if !ok {
			t.Errorf("docs/limits.md lacks a row for --limit %s", n)
			continue
		}
		if !strings.Contains(cells[2], "`--limit "+n+"=N`") {
			t.Errorf("docs/limits.md: %s: %q does not say --limit %s=N", n, cells[2], n)
		}
	}
	for name, cells := range rows {
		for _, f := range strings.Split(cells[2], "`--limit ")[1:] {
			flag, _, _ := strings.Cut(f, "=")
			var l Limits
			if err := l.Set(flag + "=1"); err != nil {
				t.Errorf("docs/limits.md: %s: --limit %s: %v", name, flag, err)
			}
		}
	}
}
