package emulator

import (
	"encoding/json"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/agenteval/agenteval/engine"
)

// schemaGen draws random, satisfiable JSON Schemas: objects with nested
// properties, required and optional, arrays with min/max items, enums,
// consts, formats, numeric ranges with multipleOf, string lengths and
// patterns, oneOf over distinct types, anyOf, allOf and $defs references,
// one of them recursive.
type schemaGen struct {
	t    *rapid.T
	defs []string
}

// formats are those Value gives realistic strings for.
var testFormats = []string{"email", "date-time", "date", "time", "uri", "url", "uuid", "hostname", "ipv4", "ipv6", "duration"}

// testPatterns are simple patterns with their shortest match length.
var testPatterns = []string{`^[a-z]{3,6}$`, `^[A-Z][a-z]+-\d{2}$`, `^(red|green|blue)$`, `^\w+@\w+\.com$`, `[0-9]`}

func drawSchema(t *rapid.T) *engine.Object {
	g := &schemaGen{t: t}
	defs := &engine.Object{}
	for i := range rapid.IntRange(0, 2).Draw(t, "defs") {
		name := fmt.Sprintf("d%d", i)
		defs.Set(name, g.schema(1, fmt.Sprintf("def%d", i)))
		g.defs = append(g.defs, "#/$defs/"+name)
	}
	if rapid.Bool().Draw(t, "tree") {
		defs.Set("tree", engine.NewObject(
			"type", "object",
			"properties", engine.NewObject(
				"value", engine.NewObject("type", "integer"),
				"children", engine.NewObject("type", "array", "items", engine.NewObject("$ref", "#/$defs/tree")),
			),
			"required", []any{"value"},
		))
		g.defs = append(g.defs, "#/$defs/tree")
	}
	root := g.schema(3, "root")
	if defs.Len() > 0 {
		root.Set("$defs", defs)
	}
	return root
}

// schema draws a schema with up to depth levels of nesting below it.
func (g *schemaGen) schema(depth int, label string) *engine.Object {
	kinds := []string{"string", "integer", "number", "boolean", "null", "enum", "const"}
	if depth > 0 {
		kinds = append(kinds, "object", "object", "array", "oneOf", "anyOf", "allOf")
	}
	if len(g.defs) > 0 {
		kinds = append(kinds, "ref")
	}
	switch k := rapid.SampledFrom(kinds).Draw(g.t, label+".kind"); k {
	case "string":
		return g.str(label)
	case "integer", "number":
		return g.number(label, k == "integer")
	case "boolean", "null":
		return engine.NewObject("type", k)
	case "enum":
		n := rapid.IntRange(1, 4).Draw(g.t, label+".enum")
		vals := make([]any, n)
		for i := range vals {
			vals[i] = fmt.Sprintf("v%d", i)
		}
		if rapid.Bool().Draw(g.t, label+".enumNumbers") {
			vals = append(vals, json.Number("7"), nil)
		}
		return engine.NewObject("enum", vals)
	case "const":
		return engine.NewObject("const", engine.NewObject("k", json.Number("1"), "s", "x"))
	case "object":
		return g.object(depth, label, true)
	case "array":
		minI := rapid.IntRange(0, 3).Draw(g.t, label+".minItems")
		s := engine.NewObject("type", "array", "items", g.schema(depth-1, label+".items"))
		if minI > 0 {
			s.Set("minItems", json.Number(fmt.Sprint(minI)))
		}
		if rapid.Bool().Draw(g.t, label+".hasMax") {
			s.Set("maxItems", json.Number(fmt.Sprint(minI+rapid.IntRange(0, 3).Draw(g.t, label+".maxItems"))))
		}
		if rapid.Bool().Draw(g.t, label+".unique") {
			// items with thousands of values, so uniqueness is reachable
			s.Set("items", engine.NewObject("type", "string", "minLength", json.Number("3")))
			s.Set("uniqueItems", true)
		}
		return s
	case "oneOf":
		types := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"string", "integer", "boolean", "null", "array"}), 1, 4, rapid.ID[string]).Draw(g.t, label+".oneOfTypes")
		var branches []any
		for i, t := range types {
			bl := fmt.Sprintf("%s.oneOf%d", label, i)
			switch t {
			case "string":
				branches = append(branches, g.str(bl))
			case "integer":
				branches = append(branches, g.number(bl, true))
			case "array":
				branches = append(branches, engine.NewObject("type", "array", "items", g.schema(depth-1, bl+".items")))
			default:
				branches = append(branches, engine.NewObject("type", t))
			}
		}
		return engine.NewObject("oneOf", branches)
	case "anyOf":
		return engine.NewObject("anyOf", []any{g.schema(depth-1, label+".anyOf0"), g.schema(depth-1, label+".anyOf1")})
	case "allOf":
		a := g.object(depth-1, label+".allOf0", false, "city", "name", "id", "count")
		b := g.object(depth-1, label+".allOf1", false, "email", "status", "tags", "x y")
		return engine.NewObject("allOf", []any{a, b})
	case "ref":
		return engine.NewObject("$ref", rapid.SampledFrom(g.defs).Draw(g.t, label+".ref"))
	default:
		panic("unknown kind " + k)
	}
}

// object draws an object schema with up to four properties.
// An allOf branch is never closed: additionalProperties does not see the
// properties of the other branches, so a closed branch is unsatisfiable.
// The two branches of an allOf draw from different names, since the same
// property with two types could have no value.
func (g *schemaGen) object(depth int, label string, mayClose bool, names ...string) *engine.Object {
	if len(names) == 0 {
		names = []string{"city", "name", "id", "count", "email", "status", "tags", "x y"}
	}
	names = rapid.SliceOfNDistinct(rapid.SampledFrom(names), 0, 4, rapid.ID[string]).Draw(g.t, label+".props")
	props := &engine.Object{}
	var required []any
	for _, n := range names {
		props.Set(n, g.schema(max(depth-1, 0), label+"."+n))
		if rapid.Bool().Draw(g.t, label+"."+n+".required") {
			required = append(required, n)
		}
	}
	s := engine.NewObject("type", "object", "properties", props)
	if len(required) > 0 {
		s.Set("required", required)
	}
	if mayClose && rapid.Bool().Draw(g.t, label+".closed") {
		s.Set("additionalProperties", false)
	}
	return s
}

// str draws a string schema: a format, a pattern or lengths.
func (g *schemaGen) str(label string) *engine.Object {
	s := engine.NewObject("type", "string")
	switch rapid.IntRange(0, 3).Draw(g.t, label+".strKind") {
	case 1:
		s.Set("format", rapid.SampledFrom(testFormats).Draw(g.t, label+".format"))
	case 2:
		s.Set("pattern", rapid.SampledFrom(testPatterns).Draw(g.t, label+".pattern"))
	case 3:
		minL := rapid.IntRange(0, 12).Draw(g.t, label+".minLength")
		s.Set("minLength", json.Number(fmt.Sprint(minL)))
		s.Set("maxLength", json.Number(fmt.Sprint(minL+rapid.IntRange(0, 8).Draw(g.t, label+".maxLength"))))
	}
	return s
}

// number draws an integer or number schema with a range that holds a
// multiple of its multipleOf.
func (g *schemaGen) number(label string, integer bool) *engine.Object {
	typ := "number"
	steps := []string{"0.5", "0.25", "0.1", "3", "1.5"}
	if integer {
		typ = "integer"
		steps = []string{"1", "2", "5", "7"}
	}
	s := engine.NewObject("type", typ)
	lo := rapid.IntRange(-1000, 1000).Draw(g.t, label+".min")
	width := rapid.IntRange(10, 1000).Draw(g.t, label+".width")
	if rapid.Bool().Draw(g.t, label+".hasMin") {
		if rapid.Bool().Draw(g.t, label+".exclusiveMin") {
			s.Set("exclusiveMinimum", json.Number(fmt.Sprint(lo)))
		} else {
			s.Set("minimum", json.Number(fmt.Sprint(lo)))
		}
	}
	if rapid.Bool().Draw(g.t, label+".hasMax") {
		if rapid.Bool().Draw(g.t, label+".exclusiveMax") {
			s.Set("exclusiveMaximum", json.Number(fmt.Sprint(lo+width)))
		} else {
			s.Set("maximum", json.Number(fmt.Sprint(lo+width)))
		}
	}
	if rapid.Bool().Draw(g.t, label+".hasMultipleOf") {
		s.Set("multipleOf", json.Number(rapid.SampledFrom(steps).Draw(g.t, label+".multipleOf")))
	}
	return s
}

// propValueSatisfiesSchema: for a random schema and seed, Value returns a
// value that jsonschema/v6 accepts, and the same seed gives the same bytes.
func propValueSatisfiesSchema(t *rapid.T) {
	schema := drawSchema(t)
	seed := rapid.Uint64().Draw(t, "seed")
	v, err := Value(schema, seed)
	if err != nil {
		t.Fatalf("Value(%s, %d): %v", marshal(t, schema), seed, err)
	}
	checkValid(t, schema, v)
	again, err := Value(schema, seed)
	if err != nil {
		t.Fatalf("Value again: %v", err)
	}
	if a, b := marshal(t, v), marshal(t, again); a != b {
		t.Fatalf("Value(%s, %d) differs between calls:\n%s\n%s", marshal(t, schema), seed, a, b)
	}
}

func TestPropValueSatisfiesSchema(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propValueSatisfiesSchema)
}

func FuzzValue(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propValueSatisfiesSchema))
}

// FuzzValueAnySchema feeds arbitrary JSON as a schema: Value may refuse
// it, but never panics, and what it returns is valid.
func FuzzValueAnySchema(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"type":"object","properties":{"a":{"type":"string","format":"email"}},"required":["a"]}`,
		`{"$defs":{"n":{"type":"array","items":{"$ref":"#/$defs/n"}}},"$ref":"#/$defs/n"}`,
		`{"oneOf":[{"type":"integer"},{"multipleOf":2}]}`,
		`{"type":"string","pattern":"(a|b)+\\b[^x]{2}"}`,
		`{"type":["integer","null"],"exclusiveMinimum":1e300}`,
		`{"allOf":[{"$ref":"#"}]}`,
		`{"type":"array","items":[{"type":"string"}],"additionalItems":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
		`{"type":"number","multipleOf":1e-9,"minimum":0.5,"maximum":0.5}`,
	} {
		f.Add([]byte(s), uint64(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		schema := &engine.Object{}
		if err := schema.UnmarshalJSON(data); err != nil {
			return
		}
		v, err := Value(schema, seed)
		if err != nil {
			return
		}
		checkValid(t, schema, v)
	})
}
