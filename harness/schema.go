package harness

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/agenteval/agenteval/engine"
)

// SchemaID is the $id of the scenario file's JSON Schema.
const SchemaID = "https://agenteval.dev/schema/scenario/v1.json"

//go:embed scenario.schema.json
var schemaJSON []byte

// SchemaJSON returns the JSON Schema (draft 2020-12) of scenario files, with
// a description on every property for editors to show. Each call returns a
// fresh copy.
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }

// compiledSchema is the scenario schema, compiled once, with its document
// kept in key order for finding the keys a level allows.
type compiledSchema struct {
	schema *jsonschema.Schema
	doc    *engine.Object
}

// loadSchema compiles the embedded schema; it fails only if the embedded file
// is broken, which a test rules out.
var loadSchema = sync.OnceValues(func() (*compiledSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("scenario schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, fmt.Errorf("scenario schema: %w", err)
	}
	sch, err := c.Compile(SchemaID)
	if err != nil {
		return nil, fmt.Errorf("scenario schema: %w", err)
	}
	ordered, err := engine.DecodeJSON(schemaJSON)
	if err != nil {
		return nil, fmt.Errorf("scenario schema: %w", err)
	}
	obj, ok := ordered.(*engine.Object)
	if !ok {
		return nil, errors.New("scenario schema: not an object")
	}
	return &compiledSchema{schema: sch, doc: obj}, nil
})

// validateSchema checks the document against the schema and reports each
// violation as a problem at its place in the file.
func (r *reader) validateSchema(doc any) {
	cs, err := loadSchema()
	if err != nil {
		r.problem("", Position{}, err.Error())
		return
	}
	err = cs.schema.Validate(plainJSON(doc))
	if err == nil {
		return
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		r.problem("", Position{}, err.Error())
		return
	}
	r.schemaError(cs, doc, ve)
}

// schemaError turns one validation error tree into problems. Grouping kinds
// are walked into; a failed oneOf becomes one message of its own instead of
// the failures of each alternative.
func (r *reader) schemaError(cs *compiledSchema, doc any, e *jsonschema.ValidationError) {
	switch e.ErrorKind.(type) {
	case *kind.OneOf:
		r.oneOfProblem(cs, doc, e)
		return
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			r.schemaError(cs, doc, c)
		}
		return
	}
	path := instancePath(doc, e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		allowed := cs.allowedKeys(e.SchemaURL)
		for _, p := range k.Properties {
			child := joinKey(path, p)
			r.problem(child, r.keyPosOf(child), unknownKeyMessage(p, allowed))
		}
	case *kind.Required:
		for _, m := range k.Missing {
			r.problem(joinKey(path, m), r.posOf(path), "missing required field")
		}
	case *kind.DependentRequired:
		child := joinKey(path, k.Prop)
		r.problem(child, r.keyPosOf(child), "only allowed together with "+orList(k.Missing, false))
	case *kind.Type:
		r.problem(path, r.posOf(path), fmt.Sprintf("expected %s, got %s", typeList(k.Want), typeName(k.Got)))
	case *kind.Enum:
		got := fmt.Sprint(k.Got)
		if s, ok := k.Got.(string); ok {
			got = strconv.Quote(s)
		}
		var want []string
		for _, w := range k.Want {
			want = append(want, fmt.Sprint(w))
		}
		msg := fmt.Sprintf("unknown %s %s: expected %s", enumNoun(e.SchemaURL), got, orList(want, true))
		if s, ok := k.Got.(string); ok {
			if m := suggest(s, want); m != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", m)
			}
		}
		r.problem(path, r.posOf(path), msg)
	case *kind.Pattern:
		if path == "agent.model" {
			r.problem(path, r.posOf(path), modelMessage(k.Got))
			return
		}
		if strings.HasSuffix(path, ".stream_mode") {
			modes := []string{"values", "updates", "messages"}
			msg := fmt.Sprintf("unknown stream mode %q: expected %s, or a list of them", k.Got, orList(modes, true))
			if m := suggest(k.Got, modes); m != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", m)
			}
			r.problem(path, r.posOf(path), msg)
			return
		}
		r.problem(path, r.posOf(path), fmt.Sprintf("%q does not match the pattern %s", k.Got, k.Want))
	case *kind.Minimum:
		r.problem(path, r.posOf(path), fmt.Sprintf("must be at least %s, got %s", ratString(k.Want), ratString(k.Got)))
	case *kind.Maximum:
		r.problem(path, r.posOf(path), fmt.Sprintf("must be at most %s, got %s", ratString(k.Want), ratString(k.Got)))
	case *kind.MinProperties:
		r.problem(path, r.posOf(path), fmt.Sprintf("needs at least %d %s", k.Want, plural(k.Want, "key", "keys")))
	case *kind.MinItems:
		r.problem(path, r.posOf(path), fmt.Sprintf("needs at least %d %s", k.Want, plural(k.Want, "entry", "entries")))
	case *kind.MinLength:
		if k.Want == 1 {
			r.problem(path, r.posOf(path), "must not be empty")
			return
		}
		r.problem(path, r.posOf(path), fmt.Sprintf("needs at least %d characters", k.Want))
	default:
		r.problem(path, r.posOf(path), e.ErrorKind.LocalizedString(message.NewPrinter(language.English)))
	}
}

// oneOfProblem reports a failed "exactly one of" group. Each alternative of
// the schema's oneOf requires one key; the message names the keys and which
// of them the value set.
func (r *reader) oneOfProblem(cs *compiledSchema, doc any, e *jsonschema.ValidationError) {
	path := instancePath(doc, e.InstanceLocation)
	keys := cs.oneOfKeys(e.SchemaURL + "/oneOf")
	obj, _ := valueAt(doc, e.InstanceLocation).(*engine.Object)
	var set []string
	for _, k := range keys {
		if v, ok := obj.Get(k); ok && v != nil && v != false {
			set = append(set, k)
		}
	}
	got := "none"
	if len(set) > 0 {
		got = andList(set)
	}
	if len(keys) == 0 {
		r.problem(path, r.posOf(path), e.ErrorKind.LocalizedString(message.NewPrinter(language.English)))
		return
	}
	r.problem(path, r.posOf(path), fmt.Sprintf("needs exactly one of %s, got %s", orList(keys, false), got))
}

// lookup returns the schema value at a JSON pointer fragment
// ("/$defs/tool/oneOf").
func (cs *compiledSchema) lookup(url string) any {
	_, frag, _ := strings.Cut(url, "#")
	var cur any = cs.doc
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case *engine.Object:
			cur, _ = c.Get(tok)
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// allowedKeys returns the properties of the object schema at url, in
// schema order.
func (cs *compiledSchema) allowedKeys(url string) []string {
	parent, ok := cs.lookup(url).(*engine.Object)
	if !ok {
		return nil
	}
	props, _ := parent.Get("properties")
	if o, ok := props.(*engine.Object); ok {
		return o.Keys()
	}
	return nil
}

// oneOfKeys returns the key each alternative of the oneOf at url requires.
func (cs *compiledSchema) oneOfKeys(url string) []string {
	alts, _ := cs.lookup(url).([]any)
	var keys []string
	for _, a := range alts {
		o, _ := a.(*engine.Object)
		req, _ := o.Get("required")
		list, _ := req.([]any)
		if len(list) != 1 {
			return nil
		}
		k, _ := list[0].(string)
		keys = append(keys, k)
	}
	return keys
}

// enumNoun names what an enum value is for messages: the property the enum
// belongs to in the schema ("kind", "mode"), or "value" for the values of a
// map (tool_args) or list.
func enumNoun(url string) string {
	_, frag, _ := strings.Cut(url, "#")
	toks := strings.Split(frag, "/")
	if n := len(toks); n >= 2 && toks[n-2] == "properties" {
		return toks[n-1]
	}
	return "value"
}

// instancePath turns a schema error's instance location into a field path,
// telling list indexes from keys by the document itself.
func instancePath(doc any, loc []string) string {
	path := ""
	cur := doc
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return joinKey(path, tok)
			}
			path = joinIndex(path, i)
			cur = c[i]
		case *engine.Object:
			path = joinKey(path, tok)
			cur, _ = c.Get(tok)
		default:
			return joinKey(path, tok)
		}
	}
	return path
}

// valueAt returns the value at an instance location, or nil.
func valueAt(doc any, loc []string) any {
	cur := doc
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		case *engine.Object:
			cur, _ = c.Get(tok)
		default:
			return nil
		}
	}
	return cur
}

// plainJSON converts an engine value tree into the map-based model the
// schema validator reads.
func plainJSON(v any) any {
	switch v := v.(type) {
	case *engine.Object:
		m := make(map[string]any, v.Len())
		for _, k := range v.Keys() {
			e, _ := v.Get(k)
			m[k] = plainJSON(e)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plainJSON(e)
		}
		return out
	default:
		return v
	}
}

// typeName describes a JSON type in the words of a YAML file.
func typeName(t string) string {
	switch t {
	case "object":
		return "a mapping"
	case "array":
		return "a list"
	case "string":
		return "a string"
	case "integer":
		return "an integer"
	case "number":
		return "a number"
	case "boolean":
		return "a boolean"
	case "null":
		return "null"
	}
	return t
}

// typeList describes the wanted types: "a boolean or a string".
func typeList(want []string) string {
	names := make([]string, len(want))
	for i, w := range want {
		names[i] = typeName(w)
	}
	return orList(names, false)
}

// ratString prints a schema bound or value.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.RatString()
	}
	// a bound or value as the file writes it: 1.5, not 3/2
	s := strings.TrimRight(r.FloatString(9), "0")
	return strings.TrimSuffix(s, ".")
}

// plural picks the singular or plural word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
