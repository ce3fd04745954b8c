package schema

import (
	"encoding/json"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/agenteval/agenteval/engine/value"
)

// fastSchemas are flat schemas the fast path plans for, and ones it must
// leave to the full pass.
var fastSchemas = []string{
	`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},"metric":{"type":"boolean"}},"required":["city"]}`,
	`{"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"integer"}},"required":["a","b"]}`,
	`{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`,
	`{"type":"object","properties":{}}`,
}

func drawJSONScalar(t *rapid.T, label string) any {
	switch rapid.IntRange(0, 6).Draw(t, label+"_kind") {
	case 0:
		return rapid.SampledFrom([]string{"Paris", "", "21", "true", "é ✓"}).Draw(t, label+"_s")
	case 1:
		return json.Number(rapid.SampledFrom([]string{"0", "7", "-3", "-0", "007", "1.0", "2.5", "1e2", "12345678901234567890"}).Draw(t, label+"_n"))
	case 2:
		return rapid.Bool().Draw(t, label+"_b")
	case 3:
		return nil
	case 4:
		return []any{"x"}
	default:
		return value.NewObject("k", "v")
	}
}

// TestPropFastValidateMatchesFull: whenever the fast path answers, it
// answers exactly what the full pass would (values and key order); the
// fast path only saves work.
func TestPropFastValidateMatchesFull(t *testing.T) { rapid.Check(t, propFastValidateMatchesFull) }

// FuzzFastValidateMatchesFull feeds the same property from the fuzzer.
func FuzzFastValidateMatchesFull(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propFastValidateMatchesFull))
}

func propFastValidateMatchesFull(t *rapid.T) {
	src := rapid.SampledFrom(fastSchemas).Draw(t, "schema")
	raw, err := value.DecodeJSON([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s, err := CompileSchema("tool", raw.(*value.Object))
	if err != nil {
		t.Fatal(err)
	}
	if s.fast == nil {
		t.Fatalf("no fast plan for %s", src)
	}
	in := &value.Object{}
	for i, k := range rapid.SliceOfDistinct(rapid.SampledFrom([]string{"city", "days", "metric", "a", "b", "q", "extra"}), func(s string) string { return s }).Draw(t, "keys") {
		in.Set(k, drawJSONScalar(t, "v"+string(rune('0'+i))))
	}
	fast, ok := s.fast.fastValidate(in, nil)
	full, ferr := s.validateFull(in)
	// ValidateInto the second of two objects made together gives the
	// same, and the first growing past its room leaves the second as is
	slab := value.NewObjects(2, s.FastCap())
	into, ierr := s.ValidateInto(in, &slab[1])
	if c, d := mustJSON(t, into), mustJSON(t, valueOr(full, fast, ok)); c != d || (ierr == nil) != (ferr == nil || ok) {
		t.Fatalf("ValidateInto gave %s (%v), Validate %s for %s", c, ierr, d, mustJSON(t, in))
	}
	before := mustJSON(t, into)
	for k := range 5 {
		slab[0].Set(fmt.Sprint("grown", k), k)
	}
	if after := mustJSON(t, into); after != before {
		t.Fatalf("the first object growing changed the second: %s -> %s", before, after)
	}
	if !ok {
		return
	}
	if ferr != nil {
		t.Fatalf("fast path accepted %s, full pass refused it: %v", mustJSON(t, in), ferr)
	}
	a, b := mustJSON(t, fast), mustJSON(t, full)
	if a != b {
		t.Fatalf("fast path gave %s, full pass %s for %s", a, b, mustJSON(t, in))
	}
}

// valueOr is the fast path's result when it answered, else the full
// pass's.
func valueOr(full any, fast *value.Object, ok bool) any {
	if ok {
		return fast
	}
	return full
}

func mustJSON(t *rapid.T, v any) string {
	b, err := value.MarshalValue(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFastPlanScope: schemas with anything beyond plain types and
// required get no fast plan.
func TestFastPlanScope(t *testing.T) {
	tests := []struct {
		reason string
		schema string
		fast   bool
	}{
		{"plain strings, integers and booleans", fastSchemas[0], true},
		{"numbers coerce ints to floats", `{"type":"object","properties":{"x":{"type":"number"}}}`, false},
		{"constraints need the library", `{"type":"object","properties":{"x":{"type":"string","minLength":2}}}`, false},
		{"enums are literals", `{"type":"object","properties":{"x":{"enum":["a","b"]}}}`, false},
		{"nested objects take the full pass", `{"type":"object","properties":{"x":{"type":"object","properties":{"y":{"type":"string"}}}}}`, false},
		{"optional values may be null", `{"type":"object","properties":{"x":{"type":["string","null"]}}}`, false},
		{"extra keys kept need the full pass", `{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":true}`, false},
	}
	for _, tc := range tests {
		raw, err := value.DecodeJSON([]byte(tc.schema))
		if err != nil {
			t.Fatal(err)
		}
		s, err := CompileSchema("tool", raw.(*value.Object))
		if err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		if (s.fast != nil) != tc.fast {
			t.Errorf("%s: fast plan = %v, want %v", tc.reason, s.fast != nil, tc.fast)
		}
	}
}
