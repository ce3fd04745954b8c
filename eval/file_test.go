package eval

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestParseProblems(t *testing.T) {
	tests := []struct {
		reason string
		src    string
		want   []string
	}{
		{"an empty file says what a file needs", "", []string{"x.yaml:1:1: the file is empty: an eval file is a mapping with at least variants"}},
		{"broken YAML is reported at its place", "variants: [\n", []string{"x.yaml:1:"}},
		{"a missing required field is named", "name: a\n", []string{"x.yaml:1:1: variants: missing required field"}},
		{"an unknown field is reported at its key", "variants:\n  - name: a\n    promt: hi\n", []string{`x.yaml:3:5: variants[0].promt: unknown field "promt" (did you mean "prompt"?)`}},
		{"a top-level typo gets a suggestion too", "trails: 3\nvariants: [{name: a}]\n", []string{`x.yaml:1:1: trails: unknown field "trails" (did you mean "trials"?)`}},
		{"every problem is reported at once, in file order", "trials: 0\nvariants:\n  - name: a\n    model: gpt4\n",
			[]string{"x.yaml:1:9: trials:", "x.yaml:4:12: variants[0].model:"}},
		{"variant names name folders, so they are restricted", "variants:\n  - name: a/b\n", []string{"x.yaml:2:11: variants[0].name:"}},
		{"two variants may not share a name", "variants:\n  - name: a\n  - name: a\n", []string{`x.yaml:3:11: variants[1].name: variant "a" is also variants[0]`}},
		{"the control must name a variant", "control: b\nvariants:\n  - name: a\n", []string{`x.yaml:1:10: control: no variant is named "b": expected one of "a"`}},
		{"a stochastic model is scripted", "variants:\n  - name: a\n    model: openai:gpt-4.1\n    stochastic: {p: 0.5}\n", []string{"x.yaml:4:5: variants[0].stochastic: a stochastic model is scripted"}},
		{"a probability is in [0, 1]", "variants:\n  - name: a\n    stochastic: {p: 1.5}\n", []string{"x.yaml:3:21: variants[0].stochastic.p:"}},
		{"a dataset needs rows from somewhere", "variants: [{name: a}]\ndatasets:\n  - scenario: s\n", []string{"x.yaml:3:5: datasets[0]: a dataset needs a file or rows"}},
		{"a threshold's k is at least 1", "variants: [{name: a}]\nthresholds: {pass_at: {k: 0, min: 0.9}}\n", []string{"x.yaml:2:27: thresholds.pass_at.k:"}},
		{"two documents are one too many", "variants: [{name: a}]\n---\nvariants: [{name: b}]\n", []string{"an eval file holds one YAML document"}},
		{"an alias bomb is stopped", "a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\nvariants: [{name: a}]\n",
			[]string{"the file expands to too many values"}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("x.yaml", []byte(tc.src))
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Parse: %v, want a *LoadError", err)
			}
			got := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("Parse problems lack %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestParseKeepsWhatTheFileSays(t *testing.T) {
	f, err := Load("testdata/basic.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if f.EvalName() != "basic" || f.TrialsPerCell() != 5 || f.ControlName() != "baseline" {
		t.Errorf("Load(basic.yaml) = name %q, trials %d, control %q", f.EvalName(), f.TrialsPerCell(), f.ControlName())
	}
	if f.Variants[2].RecursionLimit != 10 {
		t.Errorf("variants[2].recursion_limit = %d, want 10", f.Variants[2].RecursionLimit)
	}
	pf, err := Parse("p.yaml", []byte("variants:\n  - name: a\n    params: {temperature: 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := pf.Variants[0].Params.MarshalJSON()
	if diff := cmp.Diff(`{"temperature":0}`, string(got)); diff != "" {
		t.Errorf("params mismatch (-want +got):\n%s", diff)
	}
	if p := f.Pos("variants[1].stochastic.p"); p != (Position{Line: 7, Col: 21}) {
		t.Errorf("Pos(variants[1].stochastic.p) = %v, want 7:21", p)
	}
}

// TestSchemaAcceptsTheBundledEvals keeps the published schema and the
// files the project ships in step.
func TestSchemaAcceptsTheBundledEvals(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile(SchemaID); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../evals/*.yaml")
	files = append(files, "testdata/basic.yaml", "testdata/sim.yaml")
	for _, path := range files {
		if _, err := Load(path); err != nil {
			t.Errorf("Load(%s): %v", path, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{"testdata/basic.yaml", "testdata/sim.yaml"} {
		data, err := os.ReadFile(seed)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("variants: [{name: a, script: {responses: [{content: x}]}}]\n"))
	f.Add([]byte("a: &a [1]\nvariants: [{name: a, params: *a}]\n"))
	f.Add([]byte("variants:\n  - name: a\n    stochastic: {p: 0.5, seed: 1}\ndatasets: [{scenario: s, rows: [{x: 1}]}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || len(le.Problems) == 0 {
				t.Fatalf("Parse error %v is not a *LoadError with problems", err)
			}
			for _, p := range le.Problems {
				if p.File != "fuzz.yaml" {
					t.Fatalf("problem %v names another file", p)
				}
			}
			return
		}
		if len(file.Variants) == 0 {
			t.Fatalf("Parse accepted a file without variants")
		}
	})
}
