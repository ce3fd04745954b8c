package harness

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"
)

// TestPropParseMutationsNeverPanic edits valid and broken scenario files at
// random (inserting, deleting and replacing bytes) and checks Parse's
// contract on each result.
func TestPropParseMutationsNeverPanic(t *testing.T) {
	seeds := [][]byte{[]byte(fullScenario)}
	files, _ := filepath.Glob("testdata/load/*.yaml")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	alphabet := []byte("abc:-[]{}&*!|>'\"#,? \n\t0123456789.<")
	rapid.Check(t, func(t *rapid.T) {
		data := append([]byte(nil), rapid.SampledFrom(seeds).Draw(t, "seed")...)
		for range rapid.IntRange(1, 8).Draw(t, "edits") {
			if len(data) == 0 {
				break
			}
			i := rapid.IntRange(0, len(data)-1).Draw(t, "at")
			b := rapid.SampledFrom(alphabet).Draw(t, "byte")
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				data = append(data[:i], append([]byte{b}, data[i:]...)...)
			case 1:
				data = append(data[:i], data[i+1:]...)
			default:
				data[i] = b
			}
		}
		propParse(t, data)
	})
}

// FuzzParse feeds Parse arbitrary files: it must never panic, and it must
// return either a scenario or a *LoadError whose problems all name the file.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/load/*.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(fullScenario))
	f.Add([]byte("script: {responses: [{content: hi}]}\nturns: [{user: hi}]\n"))
	f.Add([]byte("a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b, <<]\n"))
	f.Add([]byte("turns: [{user: !!str 1, from_step: 1e400}]\nexpect: {max_cost: .inf}\n"))
	f.Add([]byte("{? [a]: b, 1: 2, <<: 3}"))
	f.Fuzz(func(t *testing.T, data []byte) { propParse(t, data) })
}

// fataler is what propParse needs of *testing.T and *rapid.T.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// propParse checks Parse's contract on one input.
func propParse(t fataler, data []byte) {
	s, err := Parse("fuzz.yaml", data)
	if err == nil {
		if s == nil {
			t.Fatal("Parse returned neither a scenario nor an error")
		}
		return
	}
	if s != nil {
		t.Fatalf("Parse returned a scenario and an error: %v", err)
	}
	var le *LoadError
	if !errors.As(err, &le) || len(le.Problems) == 0 {
		t.Fatalf("Parse error %T %v, want a *LoadError with problems", err, err)
	}
	for _, p := range le.Problems {
		if p.File != "fuzz.yaml" || p.Line < 0 || p.Col < 0 || p.Message == "" {
			t.Fatalf("malformed problem %#v", p)
		}
	}
}
