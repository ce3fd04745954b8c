package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/agenteval/agenteval/engine"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// parseYAML reads the file into an engine value tree, recording positions;
// it reports false when the file is not YAML the tree can hold.
func (r *reader) parseYAML(data []byte) (any, bool) {
	f, err := parseBytes(data)
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) {
			at := Position{Line: 1, Col: 1}
			if t := ye.GetToken(); t != nil && t.Position != nil {
				at = Position{Line: t.Position.Line, Col: t.Position.Column}
			}
			r.problem("", at, "invalid YAML: "+ye.GetMessage())
		} else {
			r.problem("", Position{Line: 1, Col: 1}, "invalid YAML: "+err.Error())
		}
		return nil, false
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d != nil && d.Body != nil && !isComment(d.Body) {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		r.pos[""] = Position{Line: 1, Col: 1}
		return nil, true
	}
	if len(docs) > 1 {
		at := position(docs[1].Body)
		if m, ok := docs[1].Body.(*ast.MappingNode); ok {
			at = firstKeyPos(m, at)
		}
		r.problem("", at, "a scenario file holds one YAML document, found another")
		return nil, false
	}
	doc := r.value(docs[0].Body, "", Position{Line: 1, Col: 1}, 0)
	return doc, len(r.problems) == 0
}

// parseBytes runs goccy's parser, turning a panic in it (outside code,
// fed outside input) into an error.
func parseBytes(data []byte) (f *ast.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("the YAML parser failed: %v", p)
		}
	}()
	return parser.ParseBytes(data, 0, parser.AllowDuplicateMapKey())
}

// isComment reports whether a document body is only comments.
func isComment(n ast.Node) bool {
	switch n.(type) {
	case *ast.CommentGroupNode, *ast.CommentNode:
		return true
	}
	return false
}

// value converts one YAML node into an engine value, recording the position
// of path; at is the position to use for a value with no token of its own
// (an empty value after a key).
func (r *reader) value(n ast.Node, path string, at Position, depth int) any {
	here := position(n)
	if here.Line == 0 {
		here = at
	}
	if !r.spend(path, here, 1, 0) {
		return nil
	}
	if depth > r.limits.Depth {
		// The path itself would be hundreds of segments long.
		if p := position(n); p.Line > 0 {
			at = p
		}
		r.problem("", at, r.depthMessage())
		return nil
	}
	if s, ok := scalarText(n); ok && !r.spend(path, position(n), 0, int64(len(s))) {
		return nil
	}
	if n == nil {
		r.pos[path] = at
		return nil
	}
	switch n := n.(type) {
	case *ast.NullNode:
		r.pos[path] = at
		return nil
	case *ast.MappingNode:
		return r.mapping(n.Values, path, firstKeyPos(n, at), depth)
	case *ast.MappingValueNode:
		return r.mapping([]*ast.MappingValueNode{n}, path, position(n.Key), depth)
	case *ast.SequenceNode:
		r.pos[path] = position(n)
		list := make([]any, len(n.Values))
		for i, e := range n.Values {
			list[i] = r.value(e, joinIndex(path, i), position(n), depth+1)
		}
		return list
	case *ast.StringNode:
		r.pos[path] = position(n)
		return n.Value
	case *ast.LiteralNode:
		r.pos[path] = position(n)
		if n.Value == nil {
			return ""
		}
		return n.Value.Value
	case *ast.IntegerNode:
		r.pos[path] = position(n)
		return r.integer(n, path)
	case *ast.FloatNode:
		r.pos[path] = position(n)
		return r.float(n, path)
	case *ast.BoolNode:
		r.pos[path] = position(n)
		return n.Value
	case *ast.InfinityNode, *ast.NanNode:
		r.pos[path] = position(n)
		r.problem(path, position(n), fmt.Sprintf("%s is not a JSON number", n.GetToken().Value))
		return nil
	case *ast.AnchorNode:
		v := r.value(n.Value, path, position(n), depth+1)
		r.pos[path] = position(n)
		if n.Name != nil {
			r.anchors[n.Name.GetToken().Value] = v
		}
		return v
	case *ast.AliasNode:
		r.pos[path] = position(n)
		return r.alias(n, path)
	case *ast.TagNode:
		return r.tagged(n, path, depth)
	case *ast.CommentGroupNode, *ast.CommentNode:
		r.pos[path] = at
		return nil
	}
	r.pos[path] = position(n)
	r.problem(path, position(n), fmt.Sprintf("unsupported YAML %s", n.Type()))
	return nil
}

// integer reads an integer scalar, keeping its literal when it is a JSON
// number.
func (r *reader) integer(n *ast.IntegerNode, path string) any {
	lit := n.GetToken().Value
	if isJSONNumber(lit) {
		return r.number(path, lit)
	}
	switch v := n.Value.(type) {
	case int64:
		return json.Number(strconv.FormatInt(v, 10))
	case uint64:
		return json.Number(strconv.FormatUint(v, 10))
	}
	r.problem(path, position(n), fmt.Sprintf("cannot read the number %s", lit))
	return nil
}

// float reads a float scalar, keeping its literal when it is a JSON
// number; infinities and NaN are problems.
func (r *reader) float(n *ast.FloatNode, path string) any {
	lit := n.GetToken().Value
	if isJSONNumber(lit) {
		return r.number(path, lit)
	}
	if math.IsInf(n.Value, 0) || math.IsNaN(n.Value) {
		r.problem(path, position(n), fmt.Sprintf("%s is not a JSON number", lit))
		return nil
	}
	return json.Number(strconv.FormatFloat(n.Value, 'g', -1, 64))
}

// alias reads an alias: a copy of its anchor's value, which counts
// against the budget of values again.
func (r *reader) alias(n *ast.AliasNode, path string) any {
	name := ""
	if n.Value != nil {
		name = n.Value.GetToken().Value
	}
	v, ok := r.anchors[name]
	if !ok {
		r.problem(path, position(n), fmt.Sprintf("unknown anchor %q", name))
		return nil
	}
	values, bytes := measure(v, r.budget+1, r.bytes+1)
	if !r.spend(path, position(n), values, bytes) {
		return nil
	}
	return engine.CloneValue(v)
}

// tagged reads a tagged value: the standard tags read the value as it is
// (!!str keeps a scalar's text); other tags are problems.
func (r *reader) tagged(n *ast.TagNode, path string, depth int) any {
	tag := ""
	if n.Start != nil {
		tag = n.Start.Value
	}
	switch tag {
	case "!!str":
		if s, ok := scalarText(n.Value); ok {
			r.pos[path] = position(n)
			return s
		}
		return r.value(n.Value, path, position(n), depth+1)
	case "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq":
		return r.value(n.Value, path, position(n), depth+1)
	}
	r.pos[path] = position(n)
	r.problem(path, position(n), fmt.Sprintf("unsupported YAML tag %s", tag))
	return nil
}

// firstKeyPos is where a mapping starts: its first key, or its "{".
func firstKeyPos(n *ast.MappingNode, at Position) Position {
	if n.IsFlowStyle || len(n.Values) == 0 {
		if p := position(n); p.Line > 0 {
			return p
		}
		return at
	}
	return position(n.Values[0].Key)
}

// mapping converts a mapping's pairs into an *engine.Object. Merge keys
// ("<<: *base") add the keys the mapping does not set itself.
func (r *reader) mapping(pairs []*ast.MappingValueNode, path string, at Position, depth int) any {
	r.pos[path] = at
	obj := &engine.Object{}
	var merges []any
	for _, mv := range pairs {
		if mv == nil {
			continue
		}
		if _, ok := mv.Key.(*ast.MergeKeyNode); ok {
			// The merged value has no field path of its own.
			merge := path + ".<<"
			merges = append(merges, r.value(mv.Value, merge, position(mv.Key), depth+1))
			for p := range r.pos {
				if p == merge || strings.HasPrefix(p, merge+".") || strings.HasPrefix(p, merge+"[") {
					delete(r.pos, p)
					delete(r.keyPos, p)
				}
			}
			continue
		}
		key, ok := r.key(mv.Key)
		kp := position(mv.Key)
		if !ok {
			r.problem(path, kp, "mapping keys must be strings or numbers")
			continue
		}
		child := joinKey(path, key)
		if first, dup := r.keyPos[child]; dup && obj.Has(key) {
			r.problem(child, kp, fmt.Sprintf("duplicate key %q (first at line %d)", key, first.Line))
			continue
		}
		r.keyPos[child] = kp
		if !r.spend(child, kp, 0, int64(len(key))) {
			return obj
		}
		obj.Set(key, r.value(mv.Value, child, kp, depth+1))
	}
	for _, m := range merges {
		var srcs []any
		switch m := m.(type) {
		case *engine.Object:
			srcs = []any{m}
		case []any:
			srcs = m
		}
		for _, src := range srcs {
			o, ok := src.(*engine.Object)
			if !ok {
				r.problem(path, at, "a merge key (<<) needs a mapping or a list of mappings")
				continue
			}
			for _, k := range o.Keys() {
				if !obj.Has(k) {
					v, _ := o.Get(k)
					obj.Set(k, v)
				}
			}
		}
	}
	return obj
}

// key returns a mapping key as a string; scalar keys keep their text.
func (r *reader) key(k ast.MapKeyNode) (string, bool) {
	switch k := k.(type) {
	case *ast.MappingKeyNode:
		return scalarText(k.Value)
	case ast.Node:
		return scalarText(k)
	}
	return "", false
}

// scalarText is the text of a scalar node, as written.
func scalarText(n ast.Node) (string, bool) {
	switch n := n.(type) {
	case *ast.StringNode:
		return n.Value, true
	case *ast.LiteralNode:
		if n.Value == nil {
			return "", true
		}
		return n.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.NullNode, *ast.InfinityNode, *ast.NanNode:
		if t := n.GetToken(); t != nil {
			return t.Value, true
		}
	case *ast.TagNode:
		return scalarText(n.Value)
	}
	return "", false
}

// number returns a JSON number literal as a json.Number, or reports it
// when a float64 cannot hold it (later stages, and the schema validator's
// exact arithmetic, would choke on an exponent of a million).
func (r *reader) number(path, lit string) any {
	if _, err := strconv.ParseFloat(lit, 64); err != nil {
		r.problem(path, r.pos[path], fmt.Sprintf("the number %s is out of range", lit))
		return nil
	}
	return json.Number(lit)
}

// isJSONNumber reports whether s is a number as JSON writes it.
func isJSONNumber(s string) bool {
	if s == "" {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil && string(n) == s
}

// spend takes values and bytes from the file's budgets (Limits.Values and
// Limits.ValueBytes), reporting the first time one runs out; it returns
// false once either has.
func (r *reader) spend(path string, at Position, values int, bytes int64) bool {
	if r.budget < 0 || r.bytes < 0 {
		return false
	}
	r.budget -= values
	r.bytes -= bytes
	switch {
	case r.budget < 0:
		r.problem(path, at, r.limits.ValuesMessage())
	case r.bytes < 0:
		r.problem(path, at, r.limits.ValueBytesMessage())
	default:
		return true
	}
	return false
}

// depthMessage says values nest too deep.
func (r *reader) depthMessage() string { return r.limits.DepthMessage() }

// measure counts the values in v and the bytes of its strings, numbers
// and keys, stopping once it passes either limit.
func measure(v any, values int, bytes int64) (int, int64) {
	n, b := 1, int64(0)
	switch v := v.(type) {
	case string:
		b = int64(len(v))
	case json.Number:
		b = int64(len(v))
	case *engine.Object:
		for _, k := range v.Keys() {
			if n > values || b > bytes {
				break
			}
			e, _ := v.Get(k)
			en, eb := measure(e, values-n, bytes-b)
			n, b = n+en, b+eb+int64(len(k))
		}
	case []any:
		for _, e := range v {
			if n > values || b > bytes {
				break
			}
			en, eb := measure(e, values-n, bytes-b)
			n, b = n+en, b+eb
		}
	}
	return n, b
}

// decode stores a value tree into a Go value by its json tags. Fields typed
// any take the engine value as it is. Values of the wrong type are left
// out: the schema has reported them.
func (r *reader) decode(v any, dst reflect.Value, path string) {
	if v == nil {
		return
	}
	switch dst.Kind() {
	case reflect.Interface:
		dst.Set(reflect.ValueOf(v))
	case reflect.String:
		if s, ok := v.(string); ok {
			dst.SetString(s)
		}
	case reflect.Bool:
		if b, ok := v.(bool); ok {
			dst.SetBool(b)
		}
	case reflect.Int:
		n, ok := v.(json.Number)
		if !ok {
			return
		}
		i, err := n.Int64()
		if err != nil {
			// Not an int64: "2.0" is an integer to the schema, "2.5" was
			// reported by it, and a huge integer does not fit.
			f, _ := n.Float64()
			if f != math.Trunc(f) {
				return
			}
			if f < math.MinInt64 || f >= math.MaxInt64 {
				r.problem(path, r.posOf(path), fmt.Sprintf("%s is out of range", n))
				return
			}
			i = int64(f)
		}
		if dst.OverflowInt(i) {
			r.problem(path, r.posOf(path), fmt.Sprintf("%s is out of range", n))
			return
		}
		dst.SetInt(i)
	case reflect.Float64:
		if n, ok := v.(json.Number); ok {
			f, _ := n.Float64() // in range: number checked it
			dst.SetFloat(f)
		}
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		r.decode(v, p.Elem(), path)
		dst.Set(p)
	case reflect.Slice:
		list, ok := v.([]any)
		if str, isStr := v.(string); isStr && dst.Type() == reflect.TypeFor[StreamModes]() {
			// stream_mode: "messages" is the list of that one mode
			list, ok = []any{str}, true
		}
		if !ok {
			return
		}
		out := reflect.MakeSlice(dst.Type(), len(list), len(list))
		for i, e := range list {
			r.decode(e, out.Index(i), joinIndex(path, i))
		}
		dst.Set(out)
	case reflect.Map:
		obj, ok := v.(*engine.Object)
		if !ok {
			return
		}
		out := reflect.MakeMapWithSize(dst.Type(), obj.Len())
		for _, k := range obj.Keys() {
			e, _ := obj.Get(k)
			ev := reflect.New(dst.Type().Elem()).Elem()
			r.decode(e, ev, joinKey(path, k))
			out.SetMapIndex(reflect.ValueOf(k), ev)
		}
		dst.Set(out)
	case reflect.Struct:
		obj, ok := v.(*engine.Object)
		if !ok {
			return
		}
		t := dst.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name := jsonName(f)
			if name == "" {
				continue
			}
			if e, ok := obj.Get(name); ok {
				r.decode(e, dst.Field(i), joinKey(path, name))
			}
		}
	}
}

// jsonName is a struct field's key in the file, or "" for fields that are
// not read from it.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}
