package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
)

func TestLimits(t *testing.T) {
	t.Parallel()
	const turns = "turns: [{user: hi}]\n"
	deep := func(n int) string {
		return "tags: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n" + turns
	}
	tests := []struct {
		name   string
		reason string
		limits Limits
		doc    string
		want   []string // problems; nil: the file loads
	}{
		{
			name:   "file_bytes",
			reason: "a file over FileBytes is refused before it is parsed",
			limits: Limits{FileBytes: 16},
			doc:    turns,
			want:   []string{"x.yaml:1:1: the file is larger than the limit of 16 bytes (--limit file_bytes=N, Limits.FileBytes)"},
		},
		{
			name:   "depth_raised",
			reason: "a user who needs deeper values raises Depth",
			limits: Limits{Depth: 400},
			doc:    "script: {responses: [{content: hi}]}\n" + turns + "expect: {interrupts: [" + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "]}\n",
		},
		{
			name:   "depth_lowered",
			reason: "the scan before parsing uses the configured depth",
			limits: Limits{Depth: 3},
			doc:    deep(4),
			want:   []string{"x.yaml:1:10: values are nested deeper than 3 levels (--limit depth=N, Limits.Depth)"},
		},
		{
			name:   "values",
			reason: "Values counts every value",
			limits: Limits{Values: 5},
			doc:    "tags: [a, b, c, d, e, f]\n" + turns,
			want:   []string{"x.yaml:1:17: tags[3]: the file expands to too many values: more than 5, aliases counted each time they are used (--limit values=N, Limits.Values)"},
		},
		{
			name:   "value_bytes",
			reason: "ValueBytes counts keys and scalars",
			limits: Limits{ValueBytes: 10},
			doc:    "description: 0123456789\n" + turns,
			want:   []string{"x.yaml:1:1: description: the file expands to too much text: more than 10 bytes of strings and keys, aliases counted each time they are used (--limit value_bytes=N, Limits.ValueBytes)"},
		},
		{
			name:   "no_limit",
			reason: "-1 lifts a limit",
			limits: Limits{RecursionLimit: -1},
			doc:    "agent: {recursion_limit: 2000000000}\nscript: {responses: [{content: hi}]}\n" + turns,
		},
		{
			name:   "recursion_limit",
			reason: "recursion_limit is capped",
			limits: Limits{RecursionLimit: 10},
			doc:    "agent: {recursion_limit: 11}\nscript: {responses: [{content: hi}]}\n" + turns,
			want:   []string{"x.yaml:1:26: agent.recursion_limit: 11 is above the cap of 10 supersteps (--limit recursion_limit=N, Limits.RecursionLimit): a run's cost grows with the square of its steps"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := tc.limits.Parse("x.yaml", []byte(tc.doc))
			if d := cmp.Diff(tc.want, problemStrings(t, err)); d != "" {
				t.Errorf("%s: Parse mismatch (-want +got):\n%s", tc.reason, d)
			}
		})
	}
}

func TestLimitsLoadRefusesLargeFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte("description: "+strings.Repeat("x", 100)+"\nturns: [{user: hi}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Limits{FileBytes: 64}.LoadDir(filepath.Dir(path))
	want := path + ":1:1: the file is larger than the limit of 64 bytes (--limit file_bytes=N, Limits.FileBytes)"
	if err == nil || err.Error() != want {
		t.Errorf("LoadDir = %v, want %s", err, want)
	}
}

func TestLimitsSet(t *testing.T) {
	t.Parallel()
	var l Limits
	for _, s := range []string{"file_bytes=8MiB", "depth=300", "values=-1", "value_bytes=1GiB", "recursion_limit=200000", "cassette_file_bytes=1GiB", "cassette_body_bytes=-1", "dataset_bytes=1GiB", "dataset_rows=50000"} {
		if err := l.Set(s); err != nil {
			t.Fatalf("Set(%q): %v", s, err)
		}
	}
	want := Limits{FileBytes: 8 << 20, Depth: 300, Values: -1, ValueBytes: 1 << 30, RecursionLimit: 200_000, CassetteFileBytes: 1 << 30, CassetteBodyBytes: -1, DatasetBytes: 1 << 30, DatasetRows: 50_000}
	if l != want {
		t.Errorf("Set: got %+v, want %+v", l, want)
	}
	// the cassette limits as package cassette takes them: -1 is no limit
	if c := l.Cassette(); c.MaxFileBytes != 1<<30 || c.MaxBodyBytes != 1<<62-1 {
		t.Errorf("Cassette() = %+v, want MaxFileBytes 1 GiB and MaxBodyBytes unbounded", c)
	}
	if c := (Limits{}).Cassette(); c.MaxFileBytes != cassette.DefaultMaxFileBytes || c.MaxBodyBytes != cassette.DefaultMaxBodyBytes {
		t.Errorf("Limits{}.Cassette() = %+v, want cassette's defaults", c)
	}
	for s, msg := range map[string]string{
		"depht=3":    `unknown limit "depht": expected one of file_bytes, depth, values, value_bytes, recursion_limit, cassette_file_bytes, cassette_body_bytes, dataset_bytes, dataset_rows (did you mean "depth"?)`,
		"depth":      `limit "depth": expected name=N with name one of file_bytes, depth, values, value_bytes, recursion_limit, cassette_file_bytes, cassette_body_bytes, dataset_bytes, dataset_rows`,
		"depth=x":    `limit depth: "x": expected an integer >= -1 (-1: no limit), optionally with KiB, MiB or GiB`,
		"values=-2":  `limit values: "-2": expected an integer >= -1 (-1: no limit), optionally with KiB, MiB or GiB`,
		"depth=4GiB": `limit depth: 4294967296 is too large`,
	} {
		if err := l.Set(s); err == nil || err.Error() != msg {
			t.Errorf("Set(%q) = %v, want %s", s, err, msg)
		}
	}
}

// TestScanNestingSkipsText: brackets in strings, comments and block
// scalars are text, not nesting, so the scan before parsing never refuses
// a file the parser would accept.
func TestScanNestingSkipsText(t *testing.T) {
	t.Parallel()
	many := strings.Repeat("[{", 300)
	docs := map[string]string{
		"double":  "a: \"" + many + "\"\n",
		"escaped": "a: \"\\\"" + many + "\"\n",
		"single":  "a: 'it''s " + many + "'\n",
		"plain":   "a: text " + many + "\n",
		"comment": "a: 1 # " + many + "\n",
		"literal": "a: |\n  " + many + "\n  more\nb: 1\n",
		"folded":  "a: >-\n    " + many + "\n\n    " + many + "\nb: 1\n",
		"flow":    "a: [\"" + many + "\", '" + many + "', x]\n",
		// a lone CR is a line break to the parser: the "#" after it
		// starts a comment (FuzzScanNesting found this)
		"cr_comment": "a: 1\r# " + many + "\r",
		// a tab does not end a tag: the brackets after it are the tag's
		"tag_tab": "!\t" + many,
		// nor is "#" right after a document end marker
		"end_comment": "a: 1\n...# " + many + "\n",
		// in a flow, brackets after a scalar's first character are its text
		"flow_scalar": "a: [ 0" + many,
		// goccy starts a comment right after a closing quote or bracket
		"quote_comment":   "a: \"x\"# " + many + "\n",
		"bracket_comment": "a: [b]# " + many + "\n",
		// outside a flow, a tab does not end an anchor's name either
		"anchor_tab": "a: &x\t" + many + " , [\n",
	}
	for name, doc := range docs {
		if at, deep := scanNesting([]byte(doc), 200); deep {
			t.Errorf("%s: scanNesting(%.40q) = deep at %v, want not deep", name, doc, at)
		}
	}
	for name, doc := range map[string]string{
		"after_literal": "a: |\n  x\nb: " + many + "\n",
		"anchored":      "a: &x !!seq " + many + "\n",
		"dashes":        strings.Repeat("- ", 202) + "x\n",
		// and "- " after one starts a line of sequence entries
		"cr_dashes": "a:\r" + strings.Repeat("- ", 202) + "x\r",
	} {
		if _, deep := scanNesting([]byte(doc), 200); !deep {
			t.Errorf("%s: scanNesting(%.40q) = not deep, want deep", name, doc)
		}
	}
}

// TestParseRejectsInvalidUTF8: bytes that are not UTF-8 were replaced
// silently; they are a problem at their line and column.
func TestParseRejectsInvalidUTF8(t *testing.T) {
	t.Parallel()
	doc := "script: {responses: [{content: hi}]}\nturns:\n  - user: caf\xe9 au lait\n"
	_, err := Parse("x.yaml", []byte(doc))
	want := []string{"x.yaml:3:14: invalid UTF-8 (byte 0xe9): the file must be UTF-8 text"}
	if d := cmp.Diff(want, problemStrings(t, err)); d != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", d)
	}
}

// TestParseRejectsControlCharacters: characters outside YAML's printable
// set are a problem at their line and column, as invalid UTF-8 is; goccy
// would read them (a NUL inside an anchor's name).
func TestParseRejectsControlCharacters(t *testing.T) {
	t.Parallel()
	tests := []struct{ reason, doc, want string }{
		{"a NUL", "turns:\n  - user: a\x00b\n", "x.yaml:2:12: character U+0000 is not allowed in a YAML file (in a double-quoted string, write it as the escape \"\\u0000\")"},
		{"an escape character", "name: \x1b[31mred\n", "x.yaml:1:7: character U+001B is not allowed"},
		{"DEL", "name: x\x7f\n", "x.yaml:1:8: character U+007F is not allowed"},
		{"a C1 control", "name: x\u0090\n", "x.yaml:1:8: character U+0090 is not allowed"},
		{"U+FFFF", "name: x\uffff\n", "x.yaml:1:8: character U+FFFF is not allowed"},
	}
	for _, tc := range tests {
		_, err := Parse("x.yaml", []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Parse = %v, want a problem containing %q", tc.reason, err, tc.want)
		}
	}
	// tab, line breaks, NEL, a byte order mark and other text are fine
	if at, msg, ok := checkUTF8([]byte("\ufeffa:\t\"x\u0085y\"\r\nb: caf\u00e9 \U0001F600\n")); !ok {
		t.Errorf("checkUTF8 refused printable text at %v: %s", at, msg)
	}
}

// FuzzScanNesting: the scan before parsing is a lower bound of the
// nesting the parser finds: when it refuses a file at depth d, the file is
// not YAML or its values nest deeper than d. So the scan never refuses a
// file that the exact check would accept.
func FuzzScanNesting(f *testing.F) {
	for _, s := range []string{
		"a: [[x]]\n", "a: \"[[[\"\n", "a: |\n  [[[\nb: [1]\n", "- - - - x\n", "a: {b: [c, {d: [e]}]}\n",
		"a: 'it''s [[[['\n", "a: b # [[[[\n", "? [a]\n: b\n", "a: &x [[[[1]]]]\nb: *x\n", "a: !!seq [[[[]]]]\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		const depth = 3
		if _, _, ok := checkUTF8([]byte(doc)); !ok {
			return // refused before the scan (CheckYAML)
		}
		if _, deep := scanNesting([]byte(doc), depth); !deep {
			return
		}
		l := Limits{Depth: 10_000}.withDefaults()
		r := &reader{file: "x.yaml", pos: positions{}, keyPos: positions{}, anchors: map[string]any{}, limits: l, budget: l.Values, bytes: l.ValueBytes}
		v, _ := r.parseYAML([]byte(doc))
		if len(r.problems) > 0 {
			return // the file is refused anyway (not YAML, a tag, ...)
		}
		if d := treeDepth(v); d <= depth {
			t.Errorf("scanNesting(%q) refused it at depth %d, but its values nest %d deep", doc, depth, d)
		}
	})
}

// treeDepth is how deep the values of v nest, v itself at depth 0.
func treeDepth(v any) int {
	d := 0
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			d = max(d, 1+treeDepth(e))
		}
		if len(v) == 0 {
			d = 0
		}
	case *engine.Object:
		for _, k := range v.Keys() {
			e, _ := v.Get(k)
			d = max(d, 1+treeDepth(e))
		}
	}
	return d
}
