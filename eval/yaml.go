package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/harness"
)

// yamlReader turns one YAML document into an engine value tree (ordered
// objects, json.Number numbers), remembering where each field is.
type yamlReader struct {
	file     string
	pos      map[string]Position // where each field's value starts
	keyPos   map[string]Position // where each mapping key is
	problems []Problem
	// limits bound the file as harness.Limits bound a scenario file:
	// budget and bytes are what is left of Values and ValueBytes, aliases
	// counted each time they are used, so a small hostile file cannot
	// expand into a large one.
	limits harness.Limits
	budget int
	bytes  int64
}

func newYAMLReader(file string, limits harness.Limits) *yamlReader {
	l := limits.Resolved()
	return &yamlReader{file: file, pos: map[string]Position{}, keyPos: map[string]Position{}, limits: l, budget: l.Values, bytes: l.ValueBytes}
}

// spend takes values and bytes from the budgets, reporting the first time
// one runs out; it returns false once either has.
func (r *yamlReader) spend(field string, at Position, values int, bytes int64) bool {
	if r.budget < 0 || r.bytes < 0 {
		return false
	}
	r.budget -= values
	r.bytes -= bytes
	switch {
	case r.budget < 0:
		r.problem(field, at, "%s", r.limits.ValuesMessage())
	case r.bytes < 0:
		r.problem(field, at, "%s", r.limits.ValueBytesMessage())
	default:
		return true
	}
	return false
}

func (r *yamlReader) problem(field string, at Position, format string, args ...any) {
	r.problems = append(r.problems, Problem{File: r.file, Line: at.Line, Col: at.Col, Field: field, Message: fmt.Sprintf(format, args...)})
}

// posOf is the position of the field, or of its nearest parent that has one.
func (r *yamlReader) posOf(field string) Position {
	for {
		if p, ok := r.pos[field]; ok {
			return p
		}
		if field == "" {
			return Position{Line: 1, Col: 1}
		}
		field = parentField(field)
	}
}

func (r *yamlReader) keyPosOf(field string) Position {
	if p, ok := r.keyPos[field]; ok {
		return p
	}
	return r.posOf(field)
}

// parentField drops the last ".key" or "[i]" of a field path.
func parentField(field string) string {
	i := strings.LastIndexAny(field, ".[")
	if i < 0 {
		return ""
	}
	return field[:i]
}

func joinKey(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func joinIndex(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

func nodePos(n ast.Node) Position {
	if n == nil {
		return Position{}
	}
	t := n.GetToken()
	if t == nil || t.Position == nil {
		return Position{}
	}
	return Position{Line: t.Position.Line, Col: t.Position.Column}
}

// parse reads data; ok is false when it is not YAML (the problem is
// recorded). An empty document gives nil. The checks the YAML parser
// needs come first (harness.Limits.CheckYAML): its cost grows with the
// square of the nesting of flow collections, so 60 KB of "[" cost it
// 1.4 GB before the depth of the values could be checked.
func (r *yamlReader) parse(data []byte) (doc any, ok bool) {
	if at, msg, ok := r.limits.CheckYAML(data); !ok {
		r.problem("", Position{Line: at.Line, Col: at.Col}, "%s", msg)
		return nil, false
	}
	f, err := parseYAMLBytes(data)
	if err != nil {
		at := Position{Line: 1, Col: 1}
		msg := err.Error()
		var ye yaml.Error
		if errors.As(err, &ye) {
			if t := ye.GetToken(); t != nil && t.Position != nil {
				at = Position{Line: t.Position.Line, Col: t.Position.Column}
			}
			msg = ye.GetMessage()
		}
		r.problem("", at, "invalid YAML: %s", msg)
		return nil, false
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		switch d.Body.(type) {
		case *ast.CommentGroupNode, *ast.CommentNode:
			continue
		}
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		return nil, true
	}
	if len(docs) > 1 {
		r.problem("", nodePos(docs[1].Body), "an eval file holds one YAML document, found another")
		return nil, false
	}
	n := len(r.problems)
	v := r.value(docs[0].Body, "", Position{Line: 1, Col: 1}, 0, map[string]any{})
	return v, len(r.problems) == n
}

func parseYAMLBytes(data []byte) (f *ast.File, err error) {
	defer func() {
		// goccy's parser is outside code fed outside input
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("the YAML parser failed: %v", p)
		}
	}()
	return parser.ParseBytes(data, 0)
}

func (r *yamlReader) value(n ast.Node, field string, at Position, depth int, anchors map[string]any) any {
	if p := nodePos(n); p.Line > 0 {
		at = p
	}
	if !r.spend(field, at, 1, 0) {
		return nil
	}
	if depth > r.limits.Depth {
		r.problem(field, at, "%s", r.limits.DepthMessage())
		return nil
	}
	if m, ok := n.(*ast.MappingNode); ok && len(m.Values) > 0 && m.Values[0] != nil {
		// a mapping is where its first key is, not its first value
		if p := nodePos(m.Values[0].Key); p.Line > 0 && !m.IsFlowStyle {
			at = p
		}
	}
	if _, seen := r.pos[field]; !seen {
		r.pos[field] = at
	}
	switch n := n.(type) {
	case nil, *ast.NullNode:
		return nil
	case *ast.MappingNode:
		return r.mapping(n.Values, field, depth, anchors)
	case *ast.MappingValueNode:
		return r.mapping([]*ast.MappingValueNode{n}, field, depth, anchors)
	case *ast.SequenceNode:
		list := make([]any, len(n.Values))
		for i, e := range n.Values {
			list[i] = r.value(e, joinIndex(field, i), at, depth+1, anchors)
		}
		return list
	case *ast.AnchorNode:
		v := r.value(n.Value, field, at, depth+1, anchors)
		if n.Name != nil {
			anchors[n.Name.GetToken().Value] = v
		}
		return v
	case *ast.AliasNode:
		name := ""
		if n.Value != nil {
			name = n.Value.GetToken().Value
		}
		v, ok := anchors[name]
		if !ok {
			r.problem(field, at, "unknown alias *%s", name)
		}
		// an alias expands where it is used: count what it holds
		values, bytes := measure(v, r.budget+1, r.bytes+1)
		if !r.spend(field, at, values, bytes) {
			return nil
		}
		return v
	case *ast.TagNode:
		r.problem(field, at, "tags (%s) are not supported", n.Start.Value)
		return nil
	case *ast.StringNode:
		if !r.spend(field, at, 0, int64(len(n.Value))) {
			return nil
		}
		return n.Value
	case *ast.LiteralNode:
		if n.Value == nil {
			return ""
		}
		if !r.spend(field, at, 0, int64(len(n.Value.Value))) {
			return nil
		}
		return n.Value.Value
	case *ast.BoolNode:
		return n.Value
	case *ast.IntegerNode, *ast.FloatNode:
		lit := n.GetToken().Value
		if !r.spend(field, at, 0, int64(len(lit))) {
			return nil
		}
		return r.number(field, at, lit)
	case *ast.InfinityNode, *ast.NanNode:
		r.problem(field, at, "%s is not a JSON number", n.GetToken().Value)
		return nil
	default:
		r.problem(field, at, "unsupported YAML value %s", n.Type())
		return nil
	}
}

func (r *yamlReader) number(field string, at Position, lit string) any {
	s := strings.ReplaceAll(lit, "_", "")
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		return json.Number(strconv.FormatInt(i, 10))
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if _, err := strconv.ParseFloat(lit, 64); err == nil && json.Valid([]byte(lit)) {
			return json.Number(lit)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}
	r.problem(field, at, "%s is not a number", lit)
	return nil
}

func (r *yamlReader) mapping(pairs []*ast.MappingValueNode, field string, depth int, anchors map[string]any) any {
	o := engine.NewObject()
	for _, p := range pairs {
		if p == nil || p.Key == nil {
			continue
		}
		kp := nodePos(p.Key)
		k, ok := scalarKey(p.Key)
		if !ok {
			r.problem(field, kp, "mapping keys must be strings")
			continue
		}
		child := joinKey(field, k)
		if k == "<<" {
			r.problem(field, kp, "merge keys are not supported in eval files")
			continue
		}
		if o.Has(k) {
			r.problem(child, kp, "duplicate key %q", k)
			continue
		}
		r.keyPos[child] = kp
		if !r.spend(child, kp, 0, int64(len(k))) {
			return o
		}
		o.Set(k, r.value(p.Value, child, kp, depth+1, anchors))
	}
	return o
}

func scalarKey(k ast.MapKeyNode) (string, bool) {
	switch n := k.(type) {
	case *ast.StringNode:
		return n.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return n.GetToken().Value, true
	}
	return "", false
}

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
