package emulator

import (
	"bytes"
	"fmt"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agenteval/agenteval/engine"
)

// parseSchema reads a schema written in a test.
func parseSchema(t testing.TB, src string) *engine.Object {
	t.Helper()
	o := &engine.Object{}
	if err := o.UnmarshalJSON([]byte(src)); err != nil {
		t.Fatalf("parse schema %s: %v", src, err)
	}
	return o
}

// checkValid validates v against schema with jsonschema/v6, independently
// of Value's own check.
func checkValid(t tb, schema *engine.Object, v any) {
	t.Helper()
	sdata, err := engine.MarshalValue(schema)
	if err != nil {
		t.Fatalf("marshal schema: %v", err)
	}
	sdoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sdata))
	if err != nil {
		t.Fatalf("unmarshal schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("test.json", sdoc); err != nil {
		t.Fatalf("add schema: %v", err)
	}
	s, err := c.Compile("test.json")
	if err != nil {
		t.Fatalf("compile %s: %v", sdata, err)
	}
	vdata, err := engine.MarshalValue(v)
	if err != nil {
		t.Fatalf("marshal value: %v", err)
	}
	vdoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(vdata))
	if err != nil {
		t.Fatalf("unmarshal value: %v", err)
	}
	if err := s.Validate(vdoc); err != nil {
		t.Fatalf("Value(%s) = %s, invalid: %v", sdata, vdata, err)
	}
}

// tb is what the helpers need of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// marshal serializes a value for comparisons.
func marshal(t tb, v any) string {
	t.Helper()
	b, err := engine.MarshalValue(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

func TestValueFormats(t *testing.T) {
	uuidV4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	tests := []struct {
		name, reason, schema string
		check                func(string) error
	}{{
		name:   "email",
		reason: "an email tool result must be an address net/mail accepts, on example.com",
		schema: `{"type":"string","format":"email"}`,
		check: func(s string) error {
			a, err := mail.ParseAddress(s)
			if err == nil && (a.Address != s || !strings.HasSuffix(s, "@example.com")) {
				err = fmt.Errorf("address %q is not bare or not on example.com", s)
			}
			return err
		},
	}, {
		name:   "date-time",
		reason: "date-times are RFC 3339 in UTC within 2024–2026",
		schema: `{"type":"string","format":"date-time"}`,
		check: func(s string) error {
			ts, err := time.Parse(time.RFC3339, s)
			if err == nil && (ts.Year() < 2024 || ts.Year() > 2026 || !strings.HasSuffix(s, "Z")) {
				err = fmt.Errorf("%s is outside 2024–2026 or not UTC", s)
			}
			return err
		},
	}, {
		name:   "date",
		reason: "a date is the date part of RFC 3339",
		schema: `{"type":"string","format":"date"}`,
		check: func(s string) error {
			_, err := time.Parse(time.DateOnly, s)
			return err
		},
	}, {
		name:   "uuid",
		reason: "a uuid has the version 4 shape: version nibble 4, variant 8–b",
		schema: `{"type":"string","format":"uuid"}`,
		check: func(s string) error {
			if !uuidV4.MatchString(s) {
				return fmt.Errorf("%q is not a v4 UUID", s)
			}
			return nil
		},
	}, {
		name:   "uri",
		reason: "uris point at example.com over https",
		schema: `{"type":"string","format":"uri"}`,
		check: func(s string) error {
			if !strings.HasPrefix(s, "https://example.com/") {
				return fmt.Errorf("%q is not on https://example.com/", s)
			}
			return nil
		},
	}, {
		name:   "ipv4",
		reason: "addresses come from the documentation range",
		schema: `{"type":"string","format":"ipv4"}`,
		check: func(s string) error {
			if !strings.HasPrefix(s, "192.0.2.") {
				return fmt.Errorf("%q is not in 192.0.2.0/24", s)
			}
			return nil
		},
	}, {
		name:   "hostname",
		reason: "hostnames are under example.com",
		schema: `{"type":"string","format":"hostname"}`,
		check: func(s string) error {
			if !strings.HasSuffix(s, ".example.com") {
				return fmt.Errorf("%q is not under example.com", s)
			}
			return nil
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			schema := parseSchema(t, tc.schema)
			for seed := range uint64(50) {
				v, err := Value(schema, seed)
				if err != nil {
					t.Fatalf("Value(%s, %d): %v (%s)", tc.schema, seed, err, tc.reason)
				}
				checkValid(t, schema, v)
				s, ok := v.(string)
				if !ok {
					t.Fatalf("Value(%s, %d) = %T, want a string (%s)", tc.schema, seed, v, tc.reason)
				}
				if err := tc.check(s); err != nil {
					t.Errorf("Value(%s, %d) = %q: %v (%s)", tc.schema, seed, s, err, tc.reason)
				}
			}
		})
	}
}

func TestValueShapes(t *testing.T) {
	tests := []struct {
		name, reason, schema string
		// want lists the values allowed, serialized; empty allows any
		// valid value.
		want []string
	}{{
		name:   "enum",
		reason: "an enum value is one of the listed ones",
		schema: `{"enum":["red",2,{"a":[true]},null]}`,
		want:   []string{`"red"`, `2`, `{"a":[true]}`, `null`},
	}, {
		name:   "const",
		reason: "const is copied as is",
		schema: `{"const":{"b":1,"a":2}}`,
		want:   []string{`{"b":1,"a":2}`},
	}, {
		name:   "integer multipleOf",
		reason: "an exclusive range with multipleOf leaves only 10",
		schema: `{"type":"integer","exclusiveMinimum":5,"exclusiveMaximum":15,"multipleOf":5}`,
		want:   []string{`10`},
	}, {
		name:   "number multipleOf",
		reason: "number multiples keep their decimals exactly",
		schema: `{"type":"number","minimum":0.1,"maximum":0.3,"multipleOf":0.1}`,
		want:   []string{`0.1`, `0.2`, `0.3`},
	}, {
		name:   "integer multipleOf fraction",
		reason: "an integer multiple of 2.5 is a multiple of 5",
		schema: `{"type":"integer","minimum":1,"maximum":9,"multipleOf":2.5}`,
		want:   []string{`5`},
	}, {
		name:   "allOf",
		reason: "allOf merges properties and required of object branches",
		schema: `{"allOf":[{"type":"object","properties":{"a":{"const":1}},"required":["a"]},{"properties":{"b":{"const":2}},"required":["b"]}]}`,
		want:   []string{`{"a":1,"b":2}`},
	}, {
		name:   "oneOf exclusive",
		reason: "a oneOf value fails the other branches: 3 matches both, so an integer branch must pick a non-multiple of 3 or a string",
		schema: `{"oneOf":[{"type":"integer","minimum":1,"maximum":3},{"type":"integer","multipleOf":3,"minimum":3,"maximum":3}]}`,
		want:   []string{`1`, `2`},
	}, {
		name:   "prefixItems",
		reason: "tuples follow prefixItems and items:false stops the array",
		schema: `{"type":"array","prefixItems":[{"const":"x"},{"type":"boolean"}],"items":false,"minItems":2}`,
		want:   []string{`["x",true]`, `["x",false]`},
	}, {
		name:   "uniqueItems",
		reason: "unique items from an enum of three fill three slots",
		schema: `{"type":"array","items":{"enum":[1,2,3]},"minItems":3,"maxItems":3,"uniqueItems":true}`,
	}, {
		name:   "pattern",
		reason: "simple patterns are generated from the regular expression",
		schema: `{"type":"string","pattern":"^[A-Z]{2}-[0-9]{3}$"}`,
	}, {
		name:   "not by retry",
		reason: "not is not generated for but met by drawing again",
		schema: `{"type":"integer","minimum":1,"maximum":10,"not":{"enum":[1,2,3,4,5]}}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			schema := parseSchema(t, tc.schema)
			for seed := range uint64(40) {
				v, err := Value(schema, seed)
				if err != nil {
					t.Fatalf("Value(%s, %d): %v (%s)", tc.schema, seed, err, tc.reason)
				}
				checkValid(t, schema, v)
				if got := marshal(t, v); len(tc.want) > 0 && !contains(tc.want, got) {
					t.Errorf("Value(%s, %d) = %s, want one of %v (%s)", tc.schema, seed, got, tc.want, tc.reason)
				}
			}
		})
	}
}

// contains says whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestValueErrors(t *testing.T) {
	tests := []struct {
		name, reason, schema string
		// want are substrings of the error.
		want []string
	}{{
		name:   "unsatisfiable pattern",
		reason: "a pattern no string of the allowed length matches is an error naming the path",
		schema: `{"type":"object","properties":{"items":{"type":"object","properties":{"city":{"type":"string","pattern":"^[a-z]+$","maxLength":0}},"required":["city"]}},"required":["items"]}`,
		want:   []string{"$.properties.items.properties.city", "pattern"},
	}, {
		name:   "unsatisfiable not",
		reason: "an unsupported keyword the draws never meet is named",
		schema: `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":3,"not":{"minimum":0}}},"required":["n"]}`,
		want:   []string{"$.properties.n.not", `"not"`, "after 16 attempts"},
	}, {
		name:   "false schema",
		reason: "a required property whose schema is false has no value",
		schema: `{"type":"object","properties":{"x":false},"required":["x"]}`,
		want:   []string{"$.properties.x", "false"},
	}, {
		name:   "external ref",
		reason: "references outside the document are refused when compiling",
		schema: `{"$ref":"https://example.com/other.json"}`,
		want:   []string{"compile schema"},
	}, {
		name:   "empty range",
		reason: "a range with no integer in it is reported with its path",
		schema: `{"type":"object","properties":{"n":{"type":"integer","minimum":1.2,"maximum":1.8}},"required":["n"]}`,
		want:   []string{"$.properties.n", "no integer"},
	}, {
		name:   "endless recursion",
		reason: "a required self-reference cannot end and is an error, not a stack overflow",
		schema: `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}},"required":["next"]}},"$ref":"#/$defs/n"}`,
		want:   []string{"recursion does not terminate"},
	}, {
		name:   "invalid schema",
		reason: "a schema that is not a schema fails to compile",
		schema: `{"type":"strin"}`,
		want:   []string{"compile schema"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := Value(parseSchema(t, tc.schema), 7)
			if err == nil {
				t.Fatalf("Value(%s) = %s, want an error (%s)", tc.schema, marshal(t, v), tc.reason)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Value(%s) error %q, want it to contain %q (%s)", tc.schema, err, w, tc.reason)
				}
			}
		})
	}
}

func TestValueRecursionTerminates(t *testing.T) {
	t.Parallel()
	schema := parseSchema(t, `{
		"$defs": {"tree": {"type": "object", "properties": {
			"label": {"type": "string"},
			"children": {"type": "array", "items": {"$ref": "#/$defs/tree"}},
			"parent": {"anyOf": [{"$ref": "#/$defs/tree"}, {"type": "null"}]}
		}, "required": ["label", "children", "parent"]}},
		"$ref": "#/$defs/tree"}`)
	for seed := range uint64(30) {
		v, err := Value(schema, seed)
		if err != nil {
			t.Fatalf("Value(tree, %d): %v", seed, err)
		}
		checkValid(t, schema, v)
		if d := depth(v); d > 2*(refSoftLimit+2) {
			t.Errorf("Value(tree, %d) nests %d deep, want the $ref limit to stop it", seed, d)
		}
	}
}

// depth is how deeply objects nest in v.
func depth(v any) int {
	d := 0
	switch v := v.(type) {
	case *engine.Object:
		for _, k := range v.Keys() {
			d = max(d, depth(get(v, k)))
		}
		return d + 1
	case []any:
		for _, x := range v {
			d = max(d, depth(x))
		}
		return d + 1
	}
	return 0
}

// TestValueGolden pins the value of one schema and seed, so that any
// change of the generator shows up here.
func TestValueGolden(t *testing.T) {
	t.Parallel()
	schema := parseSchema(t, `{"type":"object","properties":{
		"id":{"type":"string","format":"uuid"},
		"city":{"type":"string"},
		"email":{"type":"string","format":"email"},
		"when":{"type":"string","format":"date-time"},
		"count":{"type":"integer","minimum":0,"maximum":100},
		"price":{"type":"number","minimum":0,"maximum":50,"multipleOf":0.25},
		"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]}},
		"note":{"type":"string"}
	},"required":["id","city","email","when","count","price","tags"]}`)
	got, err := Value(schema, 42)
	if err != nil {
		t.Fatalf("Value: %v", err)
	}
	want := `{"id":"b91f4df8-ddcb-42b4-9fa3-5938b229a766","city":"city-2120","email":"ivan2949@example.com","when":"2024-06-20T03:20:16Z","count":94,"price":16.75,"tags":["b","b","c"]}`
	if diff := cmp.Diff(want, marshal(t, got)); diff != "" {
		t.Errorf("Value(schema, 42) mismatch (-want +got):\n%s", diff)
	}
}

func TestValueNilSchema(t *testing.T) {
	t.Parallel()
	v, err := Value(nil, 1)
	if err != nil {
		t.Fatalf("Value(nil): %v", err)
	}
	if _, ok := v.(string); !ok {
		t.Errorf("Value(nil) = %#v, want a string", v)
	}
}
