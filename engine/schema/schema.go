package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/agenteval/agenteval/engine/value"
)

// pydanticErrorsURL is the prefix of the link pydantic 2.12 prints under
// each error.
const pydanticErrorsURL = "https://errors.pydantic.dev/2.12/v/"

// schemaURL names the schema document inside the jsonschema compiler. The
// compiler never loads anything else: external references are refused.
const schemaURL = "mem:///args.json"

// ValidationError is an argument validation failure, shaped like pydantic's
// ValidationError so LangGraph's texts can be rebuilt from it.
type ValidationError struct {
	// Title is the schema's title (the tool's name).
	Title string
	// Errors lists every problem in the order pydantic reports them.
	Errors []FieldError
}

// FieldError is one problem found by validation.
type FieldError struct {
	// Loc is the path to the value: object keys (string) and list
	// indexes (int). It is empty for a problem with the whole value.
	Loc []any
	// Type is pydantic's error type: missing, string_type, int_parsing, ...
	Type string
	// Msg is pydantic's message: "Field required", ...
	Msg string
	// Input is the value that failed, as pydantic shows it in input_value.
	Input any
}

// Error returns pydantic's text:
//
//	1 validation error for get_weather
//	city
//	  Field required [type=missing, input_value={'town': 'Oslo'}, input_type=dict]
//	    For further information visit https://errors.pydantic.dev/2.12/v/missing
//
// The location line is left out for a problem with the whole value, a key
// holding a dot is quoted in backticks, and an input_value longer than 50
// bytes is cut in the middle, as pydantic-core does.
func (e *ValidationError) Error() string {
	var b strings.Builder
	n := len(e.Errors)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	fmt.Fprintf(&b, "%d validation error%s for %s", n, plural, e.Title)
	for _, fe := range e.Errors {
		b.WriteString("\n")
		if len(fe.Loc) > 0 {
			b.WriteString(locString(fe.Loc))
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "  %s [type=%s, input_value=%s, input_type=%s]\n    For further information visit %s%s",
			fe.Msg, fe.Type, truncateRepr(value.PyRepr(fe.Input), 50), value.PyTypeName(fe.Input), pydanticErrorsURL, fe.Type)
	}
	return b.String()
}

// PyRepr is the same text: pydantic's repr of a ValidationError is its str.
func (e *ValidationError) PyRepr() string { return e.Error() }

// locString joins a location with dots, as pydantic-core's Location does.
func locString(loc []any) string {
	parts := make([]string, len(loc))
	for i, l := range loc {
		s := fmt.Sprint(l)
		if _, isKey := l.(string); isKey && strings.Contains(s, ".") {
			s = "`" + s + "`"
		}
		parts[i] = s
	}
	return strings.Join(parts, ".")
}

// truncateRepr shortens s to about max bytes the way pydantic-core's
// write_truncated_to_limited_bytes does: the head and tail, joined by "...",
// cut on character boundaries.
func truncateRepr(s string, max int) string {
	if len(s) <= max {
		return s
	}
	mid := (max + 1) / 2
	head := mid
	for head > 0 && !isRuneStart(s, head) {
		head--
	}
	tail := len(s) - (mid - 1)
	for tail < len(s) && !isRuneStart(s, tail) {
		tail++
	}
	return s[:head] + "..." + s[tail:]
}

func isRuneStart(s string, i int) bool {
	return i >= len(s) || s[i]&0xC0 != 0x80
}

// Schema is a compiled JSON Schema that validates values the way a pydantic
// model built from it does (lax mode). It is safe for concurrent use.
type Schema struct {
	title string
	root  *node
	// fast, when set, validates the common case without the coercion
	// pass: flat arguments of exactly the declared string, integer and
	// boolean types (see fastValidate).
	fast *fastPlan
}

// fastPlan is a flat model whose fields are all plain strings, integers
// or booleans, with no constraints beyond type and required.
type fastPlan struct {
	fields      []fastField
	ignoreExtra bool
}

type fastField struct {
	name     string
	kind     string // "string", "integer" or "boolean"
	required bool
}

// planFast returns the fast plan for a model node, or nil when some
// keyword needs the full pass.
func planFast(m *node) *fastPlan {
	if m.ref != nil || m.checkLib || m.isLiteral || len(m.branches) > 0 || len(m.typeNodes) > 0 || m.nullable || m.extra == extraAllow {
		return nil
	}
	p := &fastPlan{ignoreExtra: m.extra == extraIgnore}
	for _, f := range m.fields {
		fn := f.node
		if fn.ref != nil || fn.checkLib || fn.isLiteral || len(fn.branches) > 0 || len(fn.typeNodes) > 0 || fn.nullable || len(fn.types) != 1 {
			return nil
		}
		switch fn.types[0] {
		case "string", "integer", "boolean":
		default:
			return nil
		}
		p.fields = append(p.fields, fastField{name: f.name, kind: fn.types[0], required: m.required[f.name]})
	}
	return p
}

// fastValidate returns what the full pass would for arguments that need no
// coercion, built in dst when it is not nil, and false for anything else
// (which then takes the full pass).
func (p *fastPlan) fastValidate(o, dst *value.Object) (*value.Object, bool) {
	// check first, so a value that needs the full pass costs nothing here
	present := 0
	for _, f := range p.fields {
		v, ok := o.Get(f.name)
		if !ok {
			if f.required {
				return nil, false
			}
			continue
		}
		if !fastOK(f.kind, v) {
			return nil, false
		}
		present++
	}
	if present != o.Len() && !p.ignoreExtra {
		return nil, false
	}
	out := dst
	if out == nil {
		out = value.NewObjectCap(present)
	}
	for _, f := range p.fields {
		if v, ok := o.Get(f.name); ok {
			out.Set(f.name, fastValue(v))
		}
	}
	return out, true
}

// fastOK reports whether v needs no coercion for a field of kind: the
// fast path then takes it as it is (see fastValue).
func fastOK(kind string, v any) bool {
	switch kind {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		switch n := v.(type) {
		case json.Number:
			return canonicalInt(string(n))
		case int:
			return true
		}
	}
	return false
}

// fastValue returns v, which fastOK accepted, as the full pass would
// return it: a Go int becomes its json.Number, as ToValue makes it; every
// other accepted value is already in its final form.
func fastValue(v any) any {
	if n, ok := v.(int); ok {
		if n >= 0 && n < len(smallNumbers) {
			return smallNumbers[n]
		}
		return json.Number(strconv.Itoa(n))
	}
	return v
}

// smallNumbers holds json.Number(0) … json.Number(255) already boxed, so
// that the common small integer arguments cost no allocation. Read only.
var smallNumbers = func() (t [256]any) {
	for i := range t {
		t[i] = json.Number(strconv.Itoa(i))
	}
	return t
}()

// canonicalInt reports whether s is an integer literal as Python prints
// one: optional minus, no leading zeros, not -0.
func canonicalInt(s string) bool {
	if s == "" || s == "-0" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
	}
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) <= 18
}

// Title returns the title.
func (s *Schema) Title() string { return s.title }

// CompileSchema compiles schema (a JSON Schema object) for values titled
// title (the tool name, used in error texts). Errors name what is wrong in
// the schema.
func CompileSchema(title string, schema *value.Object) (*Schema, error) {
	if schema == nil {
		return nil, errors.New("invalid JSON Schema: the schema is missing")
	}
	doc, ok := modelValue(schema).(*value.Object)
	if !ok || doc == nil {
		return nil, errors.New("invalid JSON Schema: the schema is not an object")
	}
	if err := checkNumbers(doc, ""); err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	lib, err := compileLib(doc)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	c := &schemaCompiler{doc: doc, byPtr: map[string]*node{}}
	root := c.compileAt("", doc, lib)
	if err := c.checkCycles(); err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	// The arguments are a model: follow references to the object schema.
	m := root
	for hops := 0; m.ref != nil && hops <= len(c.all); hops++ {
		m = m.ref
	}
	if m.hasType && !m.allows("object") {
		return nil, fmt.Errorf("invalid JSON Schema: tool arguments need \"type\": \"object\", got %s", keywordText(m.obj, "type"))
	}
	// The root is a model even without properties: a tool without
	// parameters gets no arguments.
	m.model = true
	for _, tn := range m.typeNodes {
		if tn.types[0] == "object" {
			tn.model = true
		}
	}
	sc := &Schema{title: title, root: root}
	if m == root {
		sc.fast = planFast(m)
	}
	return sc, nil
}

// keywordText renders the value under key in o as JSON for an error text.
func keywordText(o *value.Object, key string) string {
	v, _ := o.Get(key)
	s, err := value.PyJSON(v)
	if err != nil {
		return value.PyRepr(v)
	}
	return s
}

// Validate checks v and returns the value pydantic would hand to the tool,
// or a *ValidationError listing every problem. v is never modified; the
// result shares nothing with it.
func (s *Schema) Validate(v any) (any, error) {
	return s.ValidateInto(v, nil)
}

// ValidateInto is Validate that builds the result in dst, an empty Object
// (see value.NewObjects), when the arguments take the fast path: flat,
// of exactly the declared types (see FastCap). Otherwise, or with dst
// nil, the result is a new value and dst is left as it is.
func (s *Schema) ValidateInto(v any, dst *value.Object) (any, error) {
	if s.fast != nil {
		if o, ok := v.(*value.Object); ok && o != nil {
			if out, ok := s.fast.fastValidate(o, dst); ok {
				return out, nil
			}
		}
	}
	return s.validateFull(v)
}

// FastCap is how many keys a result of the fast path holds at most (the
// model's fields), or 0 when the schema has no fast path: the room an
// Object given to ValidateInto needs.
func (s *Schema) FastCap() int {
	if s.fast == nil {
		return 0
	}
	return len(s.fast.fields)
}

// validateFull is the full pydantic-style pass.
func (s *Schema) validateFull(v any) (any, error) {
	v = modelValue(v)
	st := &vstate{exact: exactExact}
	o, ok := v.(*value.Object)
	if !ok || o == nil {
		return nil, &ValidationError{Title: s.title, Errors: []FieldError{{
			Loc:   []any{},
			Type:  "model_type",
			Msg:   "Input should be a valid dictionary or instance of " + s.title,
			Input: value.CloneValue(v),
		}}}
	}
	out, ok := s.root.validate(o, []any{}, st)
	if !ok {
		return nil, &ValidationError{Title: s.title, Errors: st.errs}
	}
	return out, nil
}

// exactness ranks how well a value matched a type, as pydantic-core's
// smart unions rank their members.
const (
	exactLax = iota
	exactStrict
	exactExact
)

// vstate collects the errors and the exactness of one validation.
type vstate struct {
	errs      []FieldError
	exact     int
	fieldsSet int
	hasFields bool
}

func (st *vstate) floor(e int) {
	if e < st.exact {
		st.exact = e
	}
}

// add records an error; the input is copied so the error never changes
// with the caller's value.
func (st *vstate) add(loc []any, typ, msg string, input any) {
	st.addShared(loc, typ, msg, value.CloneValue(input))
}

// addShared records an error whose input is already a private copy.
func (st *vstate) addShared(loc []any, typ, msg string, input any) {
	st.errs = append(st.errs, FieldError{Loc: loc, Type: typ, Msg: msg, Input: input})
}

// at returns loc extended by one item, never sharing loc's array.
func at(loc []any, item any) []any {
	out := make([]any, len(loc)+1)
	copy(out, loc)
	out[len(loc)] = item
	return out
}

type extraMode int

const (
	extraIgnore extraMode = iota
	extraForbid
	extraAllow
)

type field struct {
	name string
	node *node
}

// node is one compiled schema: what the coercion pass needs, and the
// jsonschema library's schema for the constraints it checks.
type node struct {
	ptr string
	obj *value.Object
	lib *jsonschema.Schema
	// checkLib is set when the schema has keywords the coercion pass does
	// not model, so the library must check the coerced value.
	checkLib bool

	// ref is the schema this one delegates coercion to ($ref, a single
	// allOf member).
	ref *node

	isLiteral bool
	enumClass bool
	literal   []any

	hasType  bool
	nullable bool
	// types are the declared types other than null, in order.
	types []string
	// typeNodes are one node per type when there are several.
	typeNodes []*node
	// branches are the members of anyOf/oneOf other than null.
	branches []*node

	title     string
	model     bool
	fields    []field
	declared  map[string]bool
	required  map[string]bool
	extra     extraMode
	extraNode *node

	prefix    []*node
	items     *node
	hasItems  bool
	tupleOnly bool
}

func (n *node) allows(t string) bool {
	for _, x := range n.types {
		if x == t {
			return true
		}
	}
	return false
}

// schemaCompiler builds the node graph of one schema document.
type schemaCompiler struct {
	doc   *value.Object
	byPtr map[string]*node
	all   []*node
}

// modeledKeys are the keywords the coercion pass handles itself, or that
// only annotate. Any other keyword makes the library check the node.
var modeledKeys = map[string]bool{
	"type": true, "properties": true, "required": true, "items": true, "prefixItems": true,
	"additionalItems": true, "additionalProperties": true, "anyOf": true, "enum": true, "const": true,
	"$ref": true, "$defs": true, "definitions": true, "$schema": true, "$id": true, "id": true,
	"$comment": true, "$anchor": true, "title": true, "description": true, "default": true,
	"examples": true, "deprecated": true, "readOnly": true, "writeOnly": true, "discriminator": true,
}

// annotationKeys only describe; a $ref beside them is a plain reference.
var annotationKeys = map[string]bool{
	"$ref": true, "$defs": true, "definitions": true, "$schema": true, "$id": true, "id": true,
	"$comment": true, "$anchor": true, "title": true, "description": true, "default": true,
	"examples": true, "deprecated": true, "readOnly": true, "writeOnly": true, "allOf": true,
}

func (c *schemaCompiler) newNode(ptr string, lib *jsonschema.Schema) *node {
	n := &node{ptr: ptr, lib: lib}
	c.all = append(c.all, n)
	return n
}

// compileAt compiles the schema at a JSON pointer once; references reach
// the same node, so recursive schemas make a cyclic graph.
func (c *schemaCompiler) compileAt(ptr string, v any, lib *jsonschema.Schema) *node {
	if n, ok := c.byPtr[ptr]; ok {
		return n
	}
	n := c.newNode(ptr, lib)
	c.byPtr[ptr] = n
	c.fill(n, v)
	return n
}

func (c *schemaCompiler) compile(ptr string, v any, lib *jsonschema.Schema) *node {
	n := c.newNode(ptr, lib)
	c.fill(n, v)
	return n
}

func (c *schemaCompiler) fill(n *node, v any) {
	o, ok := v.(*value.Object)
	if !ok || o == nil {
		// true accepts anything; false rejects everything, which the
		// library reports.
		if b, isBool := v.(bool); isBool && !b {
			n.checkLib = true
		}
		return
	}
	n.obj = o
	n.title, _ = getString(o, "title")
	for _, k := range o.Keys() {
		if !modeledKeys[k] {
			n.checkLib = true
		}
	}

	if r, ok := getString(o, "$ref"); ok {
		var libRef *jsonschema.Schema
		if n.lib != nil {
			libRef = n.lib.Ref
		}
		if target, ptr, ok := c.resolve(r); ok {
			n.ref = c.compileAt(ptr, target, libRef)
		}
		// Beside a reference, anything but annotations is checked by the
		// library; the reference decides the coercion.
		for _, k := range o.Keys() {
			if !annotationKeys[k] {
				n.checkLib = true
			}
		}
		if n.ref == nil {
			n.checkLib = true
		}
		return
	}
	if all, ok := o.Get("allOf"); ok {
		list, _ := all.([]any)
		structural := o.Has("type") || o.Has("properties") || o.Has("items") || o.Has("enum") ||
			o.Has("const") || o.Has("anyOf") || o.Has("oneOf")
		if len(list) == 1 && !structural {
			var lib *jsonschema.Schema
			if n.lib != nil && len(n.lib.AllOf) == 1 {
				lib = n.lib.AllOf[0]
			}
			n.ref = c.compile(n.ptr+"/allOf/0", list[0], lib)
			n.checkLib = false
			for _, k := range o.Keys() {
				if !annotationKeys[k] {
					n.checkLib = true
				}
			}
			return
		}
		n.checkLib = true
	}

	if e, ok := o.Get("enum"); ok {
		if list, ok := e.([]any); ok && len(list) > 0 {
			n.isLiteral = true
			n.literal = list
			// pydantic writes an Enum class under $defs and refers to it; an
			// inline enum is a typing.Literal.
			n.enumClass = isDefinition(n.ptr)
		}
	} else if cv, ok := o.Get("const"); ok {
		n.isLiteral = true
		n.literal = []any{cv}
	}

	c.fillTypes(n, o)
	c.fillObject(n, o)
	c.fillArray(n, o)
	c.splitTypes(n)
}

func (c *schemaCompiler) fillTypes(n *node, o *value.Object) {
	union, key := o.Has("anyOf"), "anyOf"
	if !union && o.Has("oneOf") {
		union, key = true, "oneOf"
	}
	if union {
		raw, _ := o.Get(key)
		list, _ := raw.([]any)
		var libs []*jsonschema.Schema
		if n.lib != nil {
			if key == "anyOf" {
				libs = n.lib.AnyOf
			} else {
				libs = n.lib.OneOf
			}
		}
		for i, b := range list {
			var lib *jsonschema.Schema
			if i < len(libs) {
				lib = libs[i]
			}
			bn := c.compile(fmt.Sprintf("%s/%s/%d", n.ptr, key, i), b, lib)
			if bn.isNullOnly() {
				n.nullable = true
				continue
			}
			n.branches = append(n.branches, bn)
		}
		if key == "oneOf" {
			n.checkLib = true
		}
		return
	}
	t, ok := o.Get("type")
	switch tv := t.(type) {
	case string:
		n.hasType = true
		n.addType(tv)
	case []any:
		n.hasType = true
		for _, x := range tv {
			if s, ok := x.(string); ok {
				n.addType(s)
			}
		}
	default:
		if !ok && o.Has("properties") {
			// A schema with properties but no type is meant as an object.
			n.hasType = true
			n.addType("object")
		}
	}
}

// splitTypes gives a node with several types one member per type, each
// with the node's object and array parts; the node itself checks the
// constraints after the union.
func (c *schemaCompiler) splitTypes(n *node) {
	if len(n.types) < 2 {
		return
	}
	for _, t := range n.types {
		tn := c.newNode(n.ptr, nil)
		*tn = *n
		tn.lib, tn.checkLib = nil, false
		tn.isLiteral, tn.enumClass, tn.literal = false, false, nil
		tn.nullable, tn.types, tn.typeNodes, tn.branches = false, []string{t}, nil, nil
		n.typeNodes = append(n.typeNodes, tn)
	}
}

func (n *node) addType(t string) {
	switch t {
	case "null":
		n.nullable = true
	case "string", "integer", "number", "boolean", "array", "object":
		for _, x := range n.types {
			if x == t {
				return
			}
		}
		n.types = append(n.types, t)
	}
}

// isNullOnly reports whether n is {"type": "null"}: the None member of an
// Optional.
func (n *node) isNullOnly() bool {
	return n.hasType && n.nullable && len(n.types) == 0 && !n.isLiteral && n.ref == nil &&
		len(n.branches) == 0 && !n.checkLib
}

func (c *schemaCompiler) fillObject(n *node, o *value.Object) {
	props, hasProps := o.Get("properties")
	ap, hasAP := o.Get("additionalProperties")
	n.declared = map[string]bool{}
	n.required = map[string]bool{}
	if req, ok := o.Get("required"); ok {
		list, _ := req.([]any)
		for _, r := range list {
			if s, ok := r.(string); ok {
				n.required[s] = true
			}
		}
	}
	if hasAP {
		switch a := ap.(type) {
		case bool:
			if a {
				n.extra = extraAllow
			} else {
				n.extra = extraForbid
			}
		case *value.Object:
			n.extra = extraAllow
			var lib *jsonschema.Schema
			if n.lib != nil {
				lib, _ = n.lib.AdditionalProperties.(*jsonschema.Schema)
			}
			n.extraNode = c.compile(n.ptr+"/additionalProperties", a, lib)
		}
	}
	if pobj, ok := props.(*value.Object); ok && hasProps {
		n.model = true
		for _, name := range pobj.Keys() {
			pv, _ := pobj.Get(name)
			var lib *jsonschema.Schema
			if n.lib != nil {
				lib = n.lib.Properties[name]
			}
			fn := c.compile(n.ptr+"/properties/"+escapePointer(name), pv, lib)
			n.fields = append(n.fields, field{name: name, node: fn})
			n.declared[name] = true
		}
	}
	if n.extra == extraForbid {
		n.model = true
	}
	if n.model {
		// A required name that is not a property is still a field of the
		// model (of any type), after the properties.
		if req, ok := o.Get("required"); ok {
			list, _ := req.([]any)
			for _, r := range list {
				if s, ok := r.(string); ok && !n.declared[s] {
					n.fields = append(n.fields, field{name: s, node: c.newNode(n.ptr+"/required", nil)})
					n.declared[s] = true
				}
			}
		}
	}
}

func (c *schemaCompiler) fillArray(n *node, o *value.Object) {
	draft2020 := n.lib == nil || n.lib.DraftVersion >= 2020
	if pv, ok := o.Get("prefixItems"); ok && draft2020 {
		list, _ := pv.([]any)
		for i, p := range list {
			var lib *jsonschema.Schema
			if n.lib != nil && i < len(n.lib.PrefixItems) {
				lib = n.lib.PrefixItems[i]
			}
			n.prefix = append(n.prefix, c.compile(fmt.Sprintf("%s/prefixItems/%d", n.ptr, i), p, lib))
		}
	}
	iv, hasItems := o.Get("items")
	rest := iv
	restKey := "items"
	if list, ok := iv.([]any); ok && hasItems {
		// draft-07 tuple: items is a list, additionalItems the rest.
		libList, _ := n.libItems().([]*jsonschema.Schema)
		for i, p := range list {
			var lib *jsonschema.Schema
			if i < len(libList) {
				lib = libList[i]
			}
			n.prefix = append(n.prefix, c.compile(fmt.Sprintf("%s/items/%d", n.ptr, i), p, lib))
		}
		rest, hasItems = o.Get("additionalItems")
		restKey = "additionalItems"
	}
	if !hasItems {
		return
	}
	n.hasItems = true
	if b, ok := rest.(bool); ok && !b {
		n.tupleOnly = true
		return
	}
	var lib *jsonschema.Schema
	if n.lib != nil {
		if restKey == "additionalItems" {
			lib, _ = n.lib.AdditionalItems.(*jsonschema.Schema)
		} else if n.lib.Items2020 != nil {
			lib = n.lib.Items2020
		} else {
			lib, _ = n.lib.Items.(*jsonschema.Schema)
		}
	}
	n.items = c.compile(n.ptr+"/"+restKey, rest, lib)
}

func (n *node) libItems() any {
	if n.lib == nil {
		return nil
	}
	return n.lib.Items
}

// resolve finds the target of a local reference: "#", "#/$defs/X",
// "#/definitions/X" or any JSON pointer into the document. Other references
// are left to the library.
func (c *schemaCompiler) resolve(ref string) (any, string, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, "", false
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, "", false
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, "", false
	}
	var cur any = c.doc
	if frag == "" {
		return cur, "", true
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch t := cur.(type) {
		case *value.Object:
			v, ok := t.Get(tok)
			if !ok {
				return nil, "", false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return nil, "", false
			}
			cur = t[i]
		default:
			return nil, "", false
		}
	}
	return cur, frag, true
}

// isDefinition reports whether ptr names an entry of $defs or
// definitions itself, where pydantic puts its Enum classes and models.
func isDefinition(ptr string) bool {
	for _, p := range []string{"/$defs/", "/definitions/"} {
		if rest, ok := strings.CutPrefix(ptr, p); ok {
			return rest != "" && !strings.Contains(rest, "/")
		}
	}
	return false
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// checkCycles refuses schemas that delegate to themselves without
// descending into the value ({"$ref": "#"} at the root, anyOf holding its
// own parent): validating with them would never end.
func (c *schemaCompiler) checkCycles() error {
	const (
		white = iota
		grey
		black
	)
	color := map[*node]int{}
	var visit func(n *node) error
	visit = func(n *node) error {
		switch color[n] {
		case grey:
			return fmt.Errorf("schema at %q refers to itself without descending into the value", "#"+n.ptr)
		case black:
			return nil
		}
		color[n] = grey
		next := append([]*node{}, n.branches...)
		if n.ref != nil {
			next = append(next, n.ref)
		}
		next = append(next, n.typeNodes...)
		for _, m := range next {
			if err := visit(m); err != nil {
				return err
			}
		}
		color[n] = black
		return nil
	}
	for _, n := range c.all {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}

// validate coerces v to n's schema. On failure it adds the errors to st and
// returns false.
func (n *node) validate(v any, loc []any, st *vstate) (any, bool) {
	out, ok := n.coerce(v, loc, st)
	if !ok {
		return nil, false
	}
	if n.checkLib {
		if !n.checkConstraints(v, out, loc, st) {
			return nil, false
		}
	}
	return out, true
}

func (n *node) coerce(v any, loc []any, st *vstate) (any, bool) {
	switch {
	case n.ref != nil:
		return n.ref.validate(v, loc, st)
	case n.isLiteral:
		return n.validateLiteral(v, loc, st)
	case n.nullable && v == nil:
		return nil, true
	case len(n.branches) == 1:
		return n.branches[0].validate(v, loc, st)
	case len(n.branches) > 1:
		return validateUnion(n.branches, v, loc, st)
	case len(n.typeNodes) > 0:
		return validateUnion(n.typeNodes, v, loc, st)
	case len(n.types) == 1:
		return n.validateType(n.types[0], v, loc, st)
	case n.nullable:
		// "type": "null", or an anyOf holding only null
		st.add(loc, "none_required", "Input should be None", v)
		return nil, false
	}
	if n.model {
		// properties without a type were made an object; additionalProperties
		// false alone makes a model too.
		return n.validateType("object", v, loc, st)
	}
	return value.CloneValue(v), true
}

// validateUnion follows pydantic-core's smart union: an exact match wins at
// once; otherwise the member that set the most fields, then the most exact
// one, then the first. When every member fails, each member's errors are
// reported with the member's name inserted in the location.
func validateUnion(choices []*node, v any, loc []any, st *vstate) (any, bool) {
	var (
		best      any
		found     bool
		bestExact int
		bestSet   int
		bestHas   bool
		errs      []FieldError
	)
	for _, ch := range choices {
		sub := &vstate{exact: exactExact}
		out, ok := ch.validate(v, loc, sub)
		if ok {
			if sub.exact == exactExact && !sub.hasFields {
				return out, true
			}
			better := !found
			if found {
				if bestHas && sub.hasFields && bestSet != sub.fieldsSet {
					better = bestSet < sub.fieldsSet
				} else {
					better = bestExact < sub.exact
				}
			}
			if better {
				best, bestExact, bestSet, bestHas = out, sub.exact, sub.fieldsSet, sub.hasFields
			}
			found = true
			continue
		}
		if found {
			continue
		}
		tag := ch.tag()
		for _, e := range sub.errs {
			nl := make([]any, 0, len(e.Loc)+1)
			nl = append(nl, e.Loc[:len(loc)]...)
			nl = append(nl, tag)
			nl = append(nl, e.Loc[len(loc):]...)
			e.Loc = nl
			errs = append(errs, e)
		}
	}
	if found {
		st.floor(bestExact)
		return best, true
	}
	st.errs = append(st.errs, errs...)
	return nil, false
}

// tag names a union member the way pydantic-core names its validators.
func (n *node) tag() string {
	switch {
	case n.ref != nil:
		return n.ref.tag()
	case n.isLiteral:
		reprs := make([]string, len(n.literal))
		for i, l := range n.literal {
			reprs[i] = value.PyRepr(l)
		}
		if n.enumClass {
			prefix := "enum"
			if len(n.types) == 1 {
				switch n.types[0] {
				case "string":
					prefix = "str-enum"
				case "integer":
					prefix = "int-enum"
				case "number":
					prefix = "float-enum"
				}
			}
			name := n.title
			if name == "" {
				name = n.ptr[strings.LastIndex(n.ptr, "/")+1:]
			}
			return prefix + "[" + name + "]"
		}
		return "literal[" + strings.Join(reprs, ",") + "]"
	case len(n.branches) > 0 || len(n.typeNodes) > 0:
		choices := n.branches
		if len(choices) == 0 {
			choices = n.typeNodes
		}
		var inner string
		if len(choices) == 1 {
			inner = choices[0].tag()
		} else {
			names := make([]string, len(choices))
			for i, c := range choices {
				names[i] = c.tag()
			}
			inner = "union[" + strings.Join(names, ",") + "]"
		}
		if n.nullable {
			return "nullable[" + inner + "]"
		}
		return inner
	case len(n.types) == 1:
		t := n.typeTag(n.types[0])
		if n.nullable {
			return "nullable[" + t + "]"
		}
		return t
	case n.hasType && n.nullable:
		return "none"
	case n.model:
		return n.typeTag("object")
	}
	return "any"
}

func (n *node) typeTag(t string) string {
	constrained := func(keys ...string) bool {
		for _, k := range keys {
			if n.obj.Has(k) {
				return true
			}
		}
		return false
	}
	switch t {
	case "string":
		if constrained("minLength", "maxLength", "pattern") {
			return "constrained-str"
		}
		return "str"
	case "integer":
		if constrained("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf") {
			return "constrained-int"
		}
		return "int"
	case "number":
		if constrained("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf") {
			return "constrained-float"
		}
		return "float"
	case "boolean":
		return "bool"
	case "array":
		if len(n.prefix) > 0 {
			names := make([]string, len(n.prefix))
			for i, p := range n.prefix {
				names[i] = p.tag()
			}
			return "tuple[" + strings.Join(names, ", ") + "]"
		}
		if n.items != nil {
			return "list[" + n.items.tag() + "]"
		}
		return "list[any]"
	case "object":
		if n.model {
			if n.title != "" {
				return n.title
			}
			return "Model"
		}
		if n.extraNode != nil {
			return "dict[str," + n.extraNode.tag() + "]"
		}
		return "dict[str,any]"
	}
	return "any"
}

func (n *node) validateType(t string, v any, loc []any, st *vstate) (any, bool) {
	switch t {
	case "string":
		if s, ok := v.(string); ok {
			return s, true
		}
		st.add(loc, "string_type", "Input should be a valid string", v)
		return nil, false
	case "integer":
		return validateInt(v, loc, st)
	case "number":
		return validateFloat(v, loc, st)
	case "boolean":
		return validateBool(v, loc, st)
	case "array":
		return n.validateArray(v, loc, st)
	case "object":
		return n.validateObject(v, loc, st)
	}
	return value.CloneValue(v), true
}

// numberLiteral matches a JSON number; json.Number values outside it (from
// Go code) are treated as not numbers.
var numberLiteral = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$`)

// pyNumber classifies v the way Python sees a decoded JSON value: an int
// literal, a float literal, or neither.
func pyNumber(v any) (lit string, isInt, isNum bool) {
	n, ok := v.(json.Number)
	if !ok || !numberLiteral.MatchString(string(n)) {
		return "", false, false
	}
	s := string(n)
	return s, !strings.ContainsAny(s, ".eE"), true
}

// maxIntDigits is Python's limit on int/str conversion (sys.int_info).
const maxIntDigits = 4300

func validateInt(v any, loc []any, st *vstate) (any, bool) {
	if b, ok := v.(bool); ok {
		st.floor(exactLax)
		if b {
			return json.Number("1"), true
		}
		return json.Number("0"), true
	}
	if s, ok := v.(string); ok {
		st.floor(exactLax)
		i, typ := strAsInt(s)
		switch typ {
		case "":
			return json.Number(i.String()), true
		case "int_parsing_size":
			st.add(loc, typ, "Unable to parse input string as an integer, exceeded maximum size", v)
		default:
			st.add(loc, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", v)
		}
		return nil, false
	}
	lit, isInt, isNum := pyNumber(v)
	if !isNum {
		st.add(loc, "int_type", "Input should be a valid integer", v)
		return nil, false
	}
	if isInt {
		i, ok := new(big.Int).SetString(lit, 10)
		if !ok {
			st.add(loc, "int_type", "Input should be a valid integer", v)
			return nil, false
		}
		return json.Number(i.String()), true
	}
	st.floor(exactLax)
	f, _ := strconv.ParseFloat(lit, 64)
	return floatAsInt(f, v, loc, st)
}

// floatAsInt is pydantic-core's float_as_int.
func floatAsInt(f float64, input any, loc []any, st *vstate) (any, bool) {
	switch {
	case math.IsInf(f, 0) || math.IsNaN(f):
		st.add(loc, "finite_number", "Input should be a finite number", input)
	case f != math.Trunc(f):
		st.add(loc, "int_from_float", "Input should be a valid integer, got a number with a fractional part", input)
	case f > -9223372036854775808.0 && f < 9223372036854775808.0:
		return json.Number(strconv.FormatInt(int64(f), 10)), true
	default:
		st.add(loc, "int_parsing_size", "Unable to parse input string as an integer, exceeded maximum size", input)
	}
	return nil, false
}

var jsonInt = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)$`)

// strAsInt is pydantic-core's str_as_int: a JSON integer, or after
// clean_int_str (whitespace, a leading +, leading zeros, a zero fraction,
// underscores between digits). The second result is the error type, "" on
// success.
func strAsInt(s string) (*big.Int, string) {
	parse := func(x string) (*big.Int, bool) {
		if !jsonInt.MatchString(x) {
			return nil, false
		}
		return new(big.Int).SetString(x, 10)
	}
	if jsonInt.MatchString(s) && len(strings.TrimPrefix(s, "-")) > maxIntDigits {
		return nil, "int_parsing_size"
	}
	if i, ok := parse(s); ok {
		return i, ""
	}
	cleaned, ok := cleanIntStr(s)
	if !ok {
		return nil, "int_parsing"
	}
	if len(strings.TrimPrefix(cleaned, "-")) > maxIntDigits {
		return nil, "int_parsing"
	}
	if i, ok := parse(cleaned); ok {
		return i, ""
	}
	return nil, "int_parsing"
}

func cleanIntStr(s string) (string, bool) {
	lenBefore := len(s)
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		if strings.HasPrefix(rest, "-") {
			return "", false
		}
		s = rest
	}
	neg := false
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		if strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
			return "", false
		}
		neg, s = true, rest
	}
	s, ok := stripLeadingZeros(s)
	if !ok {
		return "", false
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		dec := s[i+1:]
		if dec != "" && strings.Trim(dec, "0") == "" {
			s = s[:i]
		}
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if stripped, ok := stripUnderscores(s); ok {
		return sign + stripped, true
	}
	if lenBefore == len(s) {
		return "", false
	}
	return sign + s, true
}

func stripLeadingZeros(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	switch c := s[0]; {
	case c == '0':
	case c >= '1' && c <= '9' || c == '-':
		return s, true
	default:
		return "", false
	}
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '0' || c == '_':
		case c >= '1' && c <= '9' || c == '-':
			return s[i:], true
		case c == '.':
			return s[i-1:], true
		default:
			return "", false
		}
	}
	return s[len(s)-1:], true
}

func stripUnderscores(s string) (string, bool) {
	if strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") || !strings.Contains(s, "_") || strings.Contains(s, "__") {
		return "", false
	}
	return strings.ReplaceAll(s, "_", ""), true
}

// rustFloat is the syntax Rust's f64::from_str accepts.
var rustFloat = regexp.MustCompile(`^[+-]?(?:(?i:inf|infinity|nan)|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)$`)

// strAsFloat is pydantic-core's str_as_float.
func strAsFloat(s string) (float64, bool) {
	parse := func(x string) (float64, bool) {
		if !rustFloat.MatchString(x) {
			return 0, false
		}
		f, err := strconv.ParseFloat(x, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		return f, true
	}
	if f, ok := parse(strings.TrimSpace(s)); ok {
		return f, true
	}
	if stripped, ok := stripUnderscores(s); ok {
		return parse(stripped)
	}
	return 0, false
}

// floatValue renders a Python float as a JSON number: its repr, or a
// literal Python reads back as infinity.
func floatValue(f float64) json.Number {
	switch {
	case math.IsInf(f, 1):
		return "1e999"
	case math.IsInf(f, -1):
		return "-1e999"
	}
	return json.Number(value.PyFloatRepr(f))
}

func validateFloat(v any, loc []any, st *vstate) (any, bool) {
	if b, ok := v.(bool); ok {
		st.floor(exactLax)
		if b {
			return json.Number("1.0"), true
		}
		return json.Number("0.0"), true
	}
	if s, ok := v.(string); ok {
		st.floor(exactLax)
		f, ok := strAsFloat(s)
		if !ok {
			st.add(loc, "float_parsing", "Input should be a valid number, unable to parse string as a number", v)
			return nil, false
		}
		if math.IsNaN(f) {
			st.add(loc, "finite_number", "Input should be a finite number", v)
			return nil, false
		}
		return floatValue(f), true
	}
	lit, isInt, isNum := pyNumber(v)
	if !isNum {
		st.add(loc, "float_type", "Input should be a valid number", v)
		return nil, false
	}
	if isInt {
		// float(int): an int too large for a float is an OverflowError,
		// which pydantic reports as float_type.
		st.floor(exactStrict)
		i, _ := new(big.Int).SetString(lit, 10)
		f, err := strconv.ParseFloat(i.String(), 64)
		if err != nil {
			st.add(loc, "float_type", "Input should be a valid number", v)
			return nil, false
		}
		return floatValue(f), true
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		st.add(loc, "float_type", "Input should be a valid number", v)
		return nil, false
	}
	if math.IsInf(f, 0) {
		return json.Number(lit), true
	}
	return floatValue(f), true
}

func validateBool(v any, loc []any, st *vstate) (any, bool) {
	if b, ok := v.(bool); ok {
		return b, true
	}
	st.floor(exactLax)
	parsing := func() (any, bool) {
		st.add(loc, "bool_parsing", "Input should be a valid boolean, unable to interpret input", v)
		return nil, false
	}
	if s, ok := v.(string); ok {
		switch asciiLower(s) {
		case "0", "f", "n", "no", "off", "false":
			return false, true
		case "1", "t", "y", "on", "yes", "true":
			return true, true
		}
		return parsing()
	}
	if lit, isInt, isNum := pyNumber(v); isNum {
		var i int64
		if isInt {
			n, err := strconv.ParseInt(lit, 10, 64)
			if err != nil {
				// too large for i64: float(int) then float_as_int fails
				st.add(loc, "bool_type", "Input should be a valid boolean", v)
				return nil, false
			}
			i = n
		} else {
			f, _ := strconv.ParseFloat(lit, 64)
			if math.IsInf(f, 0) || f != math.Trunc(f) || f <= -9223372036854775808.0 || f >= 9223372036854775808.0 {
				st.add(loc, "bool_type", "Input should be a valid boolean", v)
				return nil, false
			}
			i = int64(f)
		}
		switch i {
		case 0:
			return false, true
		case 1:
			return true, true
		}
		return parsing()
	}
	st.add(loc, "bool_type", "Input should be a valid boolean", v)
	return nil, false
}

// asciiLower lower-cases ASCII letters only, as Rust's eq_ignore_ascii_case
// compares.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func (n *node) validateArray(v any, loc []any, st *vstate) (any, bool) {
	arr, ok := v.([]any)
	if !ok {
		if len(n.prefix) > 0 {
			st.add(loc, "tuple_type", "Input should be a valid tuple", v)
		} else {
			st.add(loc, "list_type", "Input should be a valid list", v)
		}
		return nil, false
	}
	out := make([]any, 0, len(arr))
	good := true
	if len(n.prefix) > 0 {
		// a tuple: a list for it is a lax match
		st.floor(exactLax)
	}
	for i, e := range arr {
		var sub *node
		switch {
		case i < len(n.prefix):
			sub = n.prefix[i]
		case n.tupleOnly:
			continue
		default:
			sub = n.items
		}
		if sub == nil {
			out = append(out, value.CloneValue(e))
			continue
		}
		cv, ok := sub.validate(e, at(loc, i), st)
		if !ok {
			good = false
			continue
		}
		out = append(out, cv)
	}
	// pydantic's tuples require every position; their schema says so with
	// minItems.
	for i := len(arr); i < len(n.prefix) && i < n.minItems(); i++ {
		st.add(at(loc, i), "missing", "Field required", v)
		good = false
	}
	if n.tupleOnly && len(arr) > len(n.prefix) {
		st.add(loc, "too_long", fmt.Sprintf("Tuple should have at most %d item%s after validation, not %d", len(n.prefix), plural(len(n.prefix)), len(arr)), v)
		good = false
	}
	if !good {
		return nil, false
	}
	return out, true
}

func (n *node) minItems() int {
	v, ok := n.obj.Get("minItems")
	if !ok {
		return 0
	}
	lit, isInt, isNum := pyNumber(v)
	if !isNum {
		return 0
	}
	if !isInt {
		f, _ := strconv.ParseFloat(lit, 64)
		lit = strconv.FormatFloat(math.Trunc(f), 'f', 0, 64)
	}
	i, err := strconv.Atoi(lit)
	if err != nil {
		return math.MaxInt
	}
	return i
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (n *node) validateObject(v any, loc []any, st *vstate) (any, bool) {
	o, ok := v.(*value.Object)
	if !ok || o == nil {
		if n.model && n.title != "" {
			st.add(loc, "model_type", "Input should be a valid dictionary or instance of "+n.title, v)
		} else {
			st.add(loc, "dict_type", "Input should be a valid dictionary", v)
		}
		return nil, false
	}
	if n.model {
		return n.validateModel(o, loc, st)
	}
	out := &value.Object{}
	good := true
	for _, k := range o.Keys() {
		val, _ := o.Get(k)
		if n.extraNode == nil {
			out.Set(k, value.CloneValue(val))
			continue
		}
		cv, ok := n.extraNode.validate(val, at(loc, k), st)
		if !ok {
			good = false
			continue
		}
		out.Set(k, cv)
	}
	if !good {
		return nil, false
	}
	return out, true
}

// validateModel is pydantic-core's model-fields validator: fields in order,
// missing required fields where they fall, then the extra keys.
func (n *node) validateModel(o *value.Object, loc []any, st *vstate) (any, bool) {
	st.floor(exactStrict)
	out := &value.Object{}
	good := true
	set := 0
	var whole *value.Object
	for _, f := range n.fields {
		val, present := o.Get(f.name)
		if !present {
			if n.required[f.name] {
				if whole == nil {
					whole = o.Clone()
				}
				st.addShared(at(loc, f.name), "missing", "Field required", whole)
				good = false
			}
			continue
		}
		set++
		cv, ok := f.node.validate(val, at(loc, f.name), st)
		if !ok {
			good = false
			continue
		}
		out.Set(f.name, cv)
	}
	for _, k := range o.Keys() {
		if n.declared[k] {
			continue
		}
		val, _ := o.Get(k)
		switch n.extra {
		case extraForbid:
			st.add(at(loc, k), "extra_forbidden", "Extra inputs are not permitted", val)
			good = false
		case extraAllow:
			if n.extraNode == nil {
				out.Set(k, value.CloneValue(val))
				continue
			}
			cv, ok := n.extraNode.validate(val, at(loc, k), st)
			if !ok {
				good = false
				continue
			}
			out.Set(k, cv)
		}
	}
	st.fieldsSet, st.hasFields = set, true
	if !good {
		return nil, false
	}
	return out, true
}

// validateLiteral checks a typing.Literal (an enum or const without title)
// or an Enum class (an enum with a title).
func (n *node) validateLiteral(v any, loc []any, st *vstate) (any, bool) {
	typ := "literal_error"
	if n.enumClass {
		typ = "enum"
		st.floor(exactLax)
		if len(n.types) == 1 {
			// pydantic-core's str/int/float enums coerce the input to the
			// value type first.
			sub := &vstate{exact: exactExact}
			var cv any
			var ok bool
			switch n.types[0] {
			case "string":
				cv, ok = n.validateType("string", v, loc, sub)
			case "integer":
				cv, ok = validateInt(v, loc, sub)
			case "number":
				cv, ok = validateFloat(v, loc, sub)
			}
			if ok {
				if m, found := matchLiteral(cv, n.literal); found {
					return value.CloneValue(m), true
				}
			}
		}
	}
	if m, found := matchLiteral(v, n.literal); found {
		return value.CloneValue(m), true
	}
	st.add(loc, typ, "Input should be "+expectedRepr(n.literal), v)
	return nil, false
}

// expectedRepr is pydantic-core's expected_repr_name: reprs joined by ", "
// with " or " before the last.
func expectedRepr(members []any) string {
	reprs := make([]string, len(members))
	for i, m := range members {
		reprs[i] = value.PyRepr(m)
	}
	if len(reprs) == 1 {
		return reprs[0]
	}
	return strings.Join(reprs[:len(reprs)-1], ", ") + " or " + reprs[len(reprs)-1]
}

// matchLiteral follows pydantic-core's LiteralLookup: bools, ints and
// strings by exact type first, then Python equality (1.0 == 1, True == 1).
func matchLiteral(v any, members []any) (any, bool) {
	if b, ok := v.(bool); ok {
		for _, m := range members {
			if mb, ok := m.(bool); ok && mb == b {
				return m, true
			}
		}
	}
	if _, isInt, isNum := pyNumber(v); isNum && isInt {
		for _, m := range members {
			if _, mInt, mNum := pyNumber(m); mNum && mInt && pyEqual(v, m) {
				return m, true
			}
		}
	}
	if s, ok := v.(string); ok {
		for _, m := range members {
			if ms, ok := m.(string); ok && ms == s {
				return m, true
			}
		}
	}
	for _, m := range members {
		if pyEqual(v, m) {
			return m, true
		}
	}
	return nil, false
}

// pyEqual is Python's == on decoded JSON values: numbers by value, True
// equal to 1 and False to 0, dicts without regard to key order.
func pyEqual(a, b any) bool {
	ra, fa, na := pyNumValue(a)
	rb, fb, nb := pyNumValue(b)
	if na || nb {
		if !na || !nb {
			return false
		}
		if ra != nil && rb != nil {
			return ra.Cmp(rb) == 0
		}
		return ra == nil && rb == nil && fa == fb
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !pyEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case *value.Object:
		y, ok := b.(*value.Object)
		if !ok || x == nil || y == nil || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.Keys() {
			xv, _ := x.Get(k)
			yv, ok := y.Get(k)
			if !ok || !pyEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// pyNumValue is the exact value of a Python number (bools count as 0 and
// 1); an infinite float has a nil rational and its float value.
func pyNumValue(v any) (*big.Rat, float64, bool) {
	if b, ok := v.(bool); ok {
		if b {
			return big.NewRat(1, 1), 0, true
		}
		return new(big.Rat), 0, true
	}
	lit, isInt, isNum := pyNumber(v)
	if !isNum {
		return nil, 0, false
	}
	if isInt {
		r, ok := new(big.Rat).SetString(lit)
		if !ok {
			return nil, 0, false
		}
		return r, 0, true
	}
	f, _ := strconv.ParseFloat(lit, 64)
	if math.IsInf(f, 0) {
		return nil, f, true
	}
	return new(big.Rat).SetFloat64(f), 0, true
}

// checkConstraints runs the library on the coerced value and turns what it
// finds into pydantic errors.
func (n *node) checkConstraints(in, out any, loc []any, st *vstate) bool {
	if n.lib == nil {
		return true
	}
	plain, ok := toPlain(out)
	if !ok {
		return true
	}
	err := libValidate(n.lib, plain)
	if err == nil {
		return true
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		st.add(loc, "value_error", "Value error, "+err.Error(), in)
		return false
	}
	leaves := flattenLib(verr, nil)
	type keyed struct {
		leaf *jsonschema.ValidationError
		pos  []int
	}
	ks := make([]keyed, len(leaves))
	for i, l := range leaves {
		ks[i] = keyed{l, valuePositions(out, l.InstanceLocation)}
	}
	sort.SliceStable(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		for x := 0; x < len(a.pos) && x < len(b.pos); x++ {
			if a.pos[x] != b.pos[x] {
				return a.pos[x] < b.pos[x]
			}
		}
		if len(a.pos) != len(b.pos) {
			return len(a.pos) < len(b.pos)
		}
		return a.leaf.SchemaURL < b.leaf.SchemaURL
	})
	before := len(st.errs)
	for _, k := range ks {
		n.addLibError(k.leaf, in, out, loc, st)
	}
	if len(st.errs) == before {
		// nothing mappable: still a failure
		st.add(loc, "value_error", "Value error, "+verr.Error(), in)
	}
	return false
}

// libValidate runs the library, turning a panic inside it into an error.
func libValidate(s *jsonschema.Schema, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("schema validation failed: %v", p)
		}
	}()
	return s.Validate(v)
}

// flattenLib lists the errors that say what is wrong, looking through the
// ones that only group others.
func flattenLib(e *jsonschema.ValidationError, acc []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	group := false
	switch e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf, *kind.AnyOf, *kind.OneOf:
		group = len(e.Causes) > 0
	}
	if !group {
		return append(acc, e)
	}
	for _, c := range e.Causes {
		acc = flattenLib(c, acc)
	}
	return acc
}

// valuePositions turns an instance location into positions in v (key order
// for objects) so errors sort in the value's order.
func valuePositions(v any, path []string) []int {
	pos := make([]int, 0, len(path))
	cur := v
	for _, seg := range path {
		switch t := cur.(type) {
		case *value.Object:
			idx := -1
			for i, k := range t.Keys() {
				if k == seg {
					idx = i
					break
				}
			}
			pos = append(pos, idx)
			cur, _ = t.Get(seg)
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(t) {
				pos = append(pos, math.MaxInt)
				cur = nil
				continue
			}
			pos = append(pos, i)
			cur = t[i]
		default:
			pos = append(pos, math.MaxInt)
			cur = nil
		}
	}
	return pos
}

// locate converts an instance location to a pydantic location and finds
// the value there.
func locate(v any, loc []any, path []string) ([]any, any) {
	out := append([]any{}, loc...)
	cur := v
	for _, seg := range path {
		switch t := cur.(type) {
		case []any:
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(t) {
				out = append(out, i)
				cur = t[i]
				continue
			}
			out = append(out, seg)
			cur = nil
		case *value.Object:
			out = append(out, seg)
			cur, _ = t.Get(seg)
		default:
			out = append(out, seg)
			cur = nil
		}
	}
	return out, cur
}

var libPrinter = message.NewPrinter(language.English)

func (n *node) addLibError(e *jsonschema.ValidationError, in, out any, loc []any, st *vstate) {
	eloc, val := locate(out, loc, e.InstanceLocation)
	input := val
	if len(e.InstanceLocation) == 0 {
		// pydantic shows the input as given, before coercion
		input = in
	}
	bound := func(keyword string, r *big.Rat) string {
		if e.SchemaURL == n.lib.Location && n.obj != nil {
			if lit, ok := n.obj.Get(keyword); ok {
				if _, _, isNum := pyNumber(lit); isNum {
					return value.PyRepr(lit)
				}
			}
		}
		if r == nil {
			return "?"
		}
		if r.IsInt() {
			return r.Num().String()
		}
		f, _ := r.Float64()
		return value.PyFloatRepr(f)
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			st.add(at(eloc, m), "missing", "Field required", val)
		}
	case *kind.AdditionalProperties:
		o, _ := val.(*value.Object)
		for _, p := range k.Properties {
			pv, _ := o.Get(p)
			st.add(at(eloc, p), "extra_forbidden", "Extra inputs are not permitted", pv)
		}
	case *kind.Type:
		want := ""
		if len(k.Want) > 0 {
			want = k.Want[0]
		}
		typ, msg := typeError(want)
		st.add(eloc, typ, msg, input)
	case *kind.Enum:
		members := make([]any, len(k.Want))
		for i, w := range k.Want {
			members[i] = fromPlain(w)
		}
		st.add(eloc, "literal_error", "Input should be "+expectedRepr(members), input)
	case *kind.Const:
		st.add(eloc, "literal_error", "Input should be "+value.PyRepr(fromPlain(k.Want)), input)
	case *kind.MinLength:
		st.add(eloc, "string_too_short", fmt.Sprintf("String should have at least %d character%s", k.Want, plural(k.Want)), input)
	case *kind.MaxLength:
		st.add(eloc, "string_too_long", fmt.Sprintf("String should have at most %d character%s", k.Want, plural(k.Want)), input)
	case *kind.Pattern:
		st.add(eloc, "string_pattern_mismatch", fmt.Sprintf("String should match pattern '%s'", k.Want), input)
	case *kind.Minimum:
		st.add(eloc, "greater_than_equal", "Input should be greater than or equal to "+bound("minimum", k.Want), input)
	case *kind.ExclusiveMinimum:
		st.add(eloc, "greater_than", "Input should be greater than "+bound("exclusiveMinimum", k.Want), input)
	case *kind.Maximum:
		st.add(eloc, "less_than_equal", "Input should be less than or equal to "+bound("maximum", k.Want), input)
	case *kind.ExclusiveMaximum:
		st.add(eloc, "less_than", "Input should be less than "+bound("exclusiveMaximum", k.Want), input)
	case *kind.MultipleOf:
		st.add(eloc, "multiple_of", "Input should be a multiple of "+bound("multipleOf", k.Want), input)
	case *kind.MinItems:
		st.add(eloc, "too_short", fmt.Sprintf("List should have at least %d item%s after validation, not %d", k.Want, plural(k.Want), k.Got), input)
	case *kind.MaxItems:
		st.add(eloc, "too_long", fmt.Sprintf("List should have at most %d item%s after validation, not %d", k.Want, plural(k.Want), k.Got), input)
	case *kind.MinProperties:
		st.add(eloc, "too_short", fmt.Sprintf("Dictionary should have at least %d item%s after validation, not %d", k.Want, plural(k.Want), k.Got), input)
	case *kind.MaxProperties:
		st.add(eloc, "too_long", fmt.Sprintf("Dictionary should have at most %d item%s after validation, not %d", k.Want, plural(k.Want), k.Got), input)
	default:
		st.add(eloc, "value_error", "Value error, "+e.ErrorKind.LocalizedString(libPrinter), input)
	}
}

func typeError(want string) (string, string) {
	switch want {
	case "string":
		return "string_type", "Input should be a valid string"
	case "integer":
		return "int_type", "Input should be a valid integer"
	case "number":
		return "float_type", "Input should be a valid number"
	case "boolean":
		return "bool_type", "Input should be a valid boolean"
	case "array":
		return "list_type", "Input should be a valid list"
	case "object":
		return "dict_type", "Input should be a valid dictionary"
	case "null":
		return "none_required", "Input should be None"
	}
	return "value_error", "Value error, invalid type"
}

// modelValue brings a value into the engine's value model, converting Go
// values (int, float64, map[string]any, []string, structs) on the way.
// Values already in the model are returned as they are.
func modelValue(v any) any {
	if inModel(v) {
		return v
	}
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = modelValue(e)
		}
		return out
	case *value.Object:
		if t == nil {
			return nil
		}
		out := &value.Object{}
		for _, k := range t.Keys() {
			e, _ := t.Get(k)
			out.Set(k, modelValue(e))
		}
		return out
	}
	c, err := value.ToValue(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if !inModel(c) {
		switch c.(type) {
		case []any, *value.Object:
			return modelValue(c)
		}
		return fmt.Sprint(v)
	}
	return c
}

func inModel(v any) bool {
	switch t := v.(type) {
	case nil, bool, json.Number, string:
		return true
	case []any:
		for _, e := range t {
			if !inModel(e) {
				return false
			}
		}
		return true
	case *value.Object:
		if t == nil {
			return false
		}
		for _, k := range t.Keys() {
			e, _ := t.Get(k)
			if !inModel(e) {
				return false
			}
		}
		return true
	}
	return false
}

// maxLibExponent bounds the exponents handed to the library, which works
// with exact rationals: 1e1000000000 would take forever to expand.
const maxLibExponent = 400

// toPlain converts a value to the map[string]any form the library reads.
// It reports false when a number is not a JSON number.
func toPlain(v any) (any, bool) {
	switch t := v.(type) {
	case nil, bool, string:
		return t, true
	case json.Number:
		lit, _, isNum := pyNumber(t)
		if !isNum {
			return nil, false
		}
		return json.Number(tameExponent(lit)), true
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			p, ok := toPlain(e)
			if !ok {
				return nil, false
			}
			out[i] = p
		}
		return out, true
	case *value.Object:
		if t == nil {
			return nil, true
		}
		out := make(map[string]any, t.Len())
		for _, k := range t.Keys() {
			e, _ := t.Get(k)
			p, ok := toPlain(e)
			if !ok {
				return nil, false
			}
			out[k] = p
		}
		return out, true
	}
	return nil, false
}

// tameExponent replaces a literal whose exponent is huge by one with the
// same float value (what Python compares anyway).
func tameExponent(lit string) string {
	i := strings.IndexAny(lit, "eE")
	if i < 0 {
		return lit
	}
	exp, err := strconv.Atoi(lit[i+1:])
	if err == nil && exp <= maxLibExponent && exp >= -maxLibExponent {
		return lit
	}
	f, _ := strconv.ParseFloat(lit, 64)
	switch {
	case math.IsInf(f, 1):
		return "1e" + strconv.Itoa(maxLibExponent)
	case math.IsInf(f, -1):
		return "-1e" + strconv.Itoa(maxLibExponent)
	}
	return strconv.FormatFloat(f, 'e', -1, 64)
}

// fromPlain converts a library value back into the value model.
func fromPlain(v any) any {
	c, err := value.ToValue(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return c
}

// checkNumbers refuses json.Number values in a schema that are not JSON
// numbers (NaN from Go code); the library cannot read them.
func checkNumbers(v any, path string) error {
	switch t := v.(type) {
	case json.Number:
		if _, _, ok := pyNumber(t); !ok {
			return fmt.Errorf("at %q: %q is not a JSON number", "#"+path, string(t))
		}
	case []any:
		for i, e := range t {
			if err := checkNumbers(e, path+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	case *value.Object:
		for _, k := range t.Keys() {
			e, _ := t.Get(k)
			if err := checkNumbers(e, path+"/"+escapePointer(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func getString(o *value.Object, key string) (string, bool) {
	v, ok := o.Get(key)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

// compileLib compiles the document with the library: draft 2020-12 unless
// "$schema" says otherwise, formats asserted, nothing loaded from outside.
func compileLib(doc *value.Object) (s *jsonschema.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("%v", p)
		}
	}()
	plain, ok := toPlain(doc)
	if !ok {
		return nil, errors.New("the schema holds a value that is not JSON")
	}
	c := NewCompiler()
	c.UseRegexpEngine(lenientRegexp)
	c.AssertFormat()
	for _, f := range laxFormats {
		c.RegisterFormat(f)
	}
	if err := c.AddResource(schemaURL, plain); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// lenientRegexp compiles patterns with Go's regexp. A pattern it cannot
// compile (lookaround, backreferences) matches everything rather than
// making the tool unusable.
func lenientRegexp(s string) (jsonschema.Regexp, error) {
	re, err := regexp.Compile(s)
	if err != nil {
		return anyRegexp(s), nil
	}
	return re, nil
}

type anyRegexp string

func (r anyRegexp) String() string            { return string(r) }
func (r anyRegexp) MatchString(s string) bool { return true }

var (
	laxDateTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(?:[Tt _]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?)?$|^-?\d+(?:\.\d+)?$`)
	laxTime     = regexp.MustCompile(`^\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?$`)
	laxUUID     = regexp.MustCompile(`^(?:urn:uuid:)?\{?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\}?$`)
)

// laxFormats accept what pydantic's datetime, time and UUID types accept
// from a string, which is more than RFC 3339 and RFC 4122 allow.
var laxFormats = []*jsonschema.Format{
	{Name: "date-time", Validate: formatMatcher(laxDateTime, "a datetime")},
	{Name: "time", Validate: formatMatcher(laxTime, "a time")},
	{Name: "uuid", Validate: formatMatcher(laxUUID, "a UUID")},
}

func formatMatcher(re *regexp.Regexp, what string) func(any) error {
	return func(v any) error {
		s, ok := v.(string)
		if !ok || re.MatchString(s) {
			return nil
		}
		return fmt.Errorf("not %s", what)
	}
}
