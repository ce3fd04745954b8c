package harness

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/agenteval/agenteval/emulator"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/engine/middleware"
)

// Problem is one thing wrong with a scenario file: where it is, which field,
// and what was expected instead.
type Problem struct {
	// File is the file's path as given to Load or Parse.
	File string
	// Line and Col are 1-based; 0 when the problem has no place in the
	// file (a file that cannot be read).
	Line, Col int
	// Field is the dotted path of the field ("tools[0].results[1].when",
	// "agent.kind"); empty for the document as a whole.
	Field string
	// Message says what is wrong.
	Message string
}

// String formats the problem as "file:line:col: field: message", leaving out
// the parts it does not have.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, p.Col)
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// LoadError lists every problem found in one scenario file, in file order.
type LoadError struct {
	Problems []Problem
}

// Error returns the problems, one per line.
func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// maxNodes caps the values a file may expand to (aliases included), so a
// small file of nested aliases cannot exhaust memory.
const maxNodes = 1 << 20

// maxDepth caps the nesting of values.
const maxDepth = 200

// Load reads and parses the scenario file at path. See Parse.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load scenario: %w", err)
	}
	return Parse(path, data)
}

// Parse parses a scenario file's contents; path names the file in problems
// and becomes Scenario.File. It checks the file against the schema
// (SchemaJSON) and then the rules the schema cannot state, and returns a
// *LoadError listing every problem, or the scenario with the positions of
// its fields (Scenario.Pos). Name and Rel are left as written; LoadDir fills
// them in.
func Parse(path string, data []byte) (*Scenario, error) {
	r := &reader{file: path, pos: positions{}, keyPos: positions{}, anchors: map[string]any{}, budget: maxNodes}
	doc, ok := r.parseYAML(data)
	if !ok {
		return nil, r.err()
	}
	if doc == nil {
		r.problem("", Position{Line: 1, Col: 1}, "the file is empty: a scenario is a mapping with at least turns")
		return nil, r.err()
	}
	r.validateSchema(doc)
	s := &Scenario{File: path, pos: r.pos}
	if _, ok := doc.(*engine.Object); ok {
		r.decode(doc, reflect.ValueOf(s).Elem(), "")
		r.check(s)
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	return s, nil
}

// LoadDir loads the scenario files named by paths (the root itself when
// there are none). A path is a file, or a directory searched recursively for
// *.yaml and *.yml files, skipping files and directories whose names start
// with "." or "_". Files load in path order. Each scenario's Rel is its path
// relative to root, without extension and with forward slashes; for a path
// not under root it is relative to that path's own directory (a file's base
// name, or the file's path below the directory given). Name defaults to
// Rel. Every file is loaded: the error joins every file's *LoadError, and
// names used twice, and the scenarios that did load are returned with it.
func LoadDir(root string, paths ...string) ([]*Scenario, error) {
	if len(paths) == 0 {
		paths = []string{root}
	}
	type file struct{ path, base string }
	var files []file
	var errs []error
	seen := map[string]bool{}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("load scenarios: %w", err))
			continue
		}
		base := root
		if !under(root, p) {
			base = p
			if !info.IsDir() {
				base = filepath.Dir(p)
			}
		}
		if !info.IsDir() {
			if !seen[filepath.Clean(p)] {
				seen[filepath.Clean(p)] = true
				files = append(files, file{p, base})
			}
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if path != p && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			if ext := filepath.Ext(name); ext != ".yaml" && ext != ".yml" {
				return nil
			}
			if !seen[filepath.Clean(path)] {
				seen[filepath.Clean(path)] = true
				files = append(files, file{path, base})
			}
			return nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("load scenarios: %w", err))
		}
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Compare(a.path, b.path) })

	var out []*Scenario
	names := map[string]*Scenario{}
	for _, f := range files {
		s, err := Load(f.path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.Rel = relName(f.base, f.path)
		if s.Name == "" {
			s.Name = s.Rel
		}
		if first, ok := names[s.Name]; ok {
			pos := s.Pos("name")
			if pos == (Position{}) {
				pos = Position{Line: 1, Col: 1}
			}
			errs = append(errs, &LoadError{Problems: []Problem{{
				File: s.File, Line: pos.Line, Col: pos.Col, Field: "name",
				Message: fmt.Sprintf("duplicate scenario name %q (also %s)", s.Name, first.File),
			}}})
			continue
		}
		names[s.Name] = s
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}

// under reports whether path lies in or below root.
func under(root, path string) bool {
	ar, err1 := filepath.Abs(root)
	ap, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(ar, ap)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// relName is path relative to base, without extension, with forward
// slashes.
func relName(base, path string) string {
	rel := filepath.Base(path)
	if ab, err := filepath.Abs(base); err == nil {
		if ap, err := filepath.Abs(path); err == nil {
			if r, err := filepath.Rel(ab, ap); err == nil && r != "." {
				rel = r
			}
		}
	}
	return filepath.ToSlash(strings.TrimSuffix(rel, filepath.Ext(rel)))
}

// reader holds the state of parsing one file: where each field is, and the
// problems found so far.
type reader struct {
	file     string
	pos      positions // where each field's value starts
	keyPos   positions // where each mapping key is
	anchors  map[string]any
	budget   int
	problems []Problem
}

// problem records a problem with the field at path.
func (r *reader) problem(path string, at Position, msg string) {
	r.problems = append(r.problems, Problem{File: r.file, Line: at.Line, Col: at.Col, Field: path, Message: msg})
}

// err returns the problems as a *LoadError in file order, or nil.
func (r *reader) err() error {
	if len(r.problems) == 0 {
		return nil
	}
	ps := slices.Clone(r.problems)
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col),
			cmp.Compare(a.Field, b.Field), cmp.Compare(a.Message, b.Message))
	})
	ps = slices.Compact(ps)
	return &LoadError{Problems: ps}
}

// posOf returns where the field at path starts, or, when it is not in the
// file, where its nearest enclosing field starts.
func (r *reader) posOf(path string) Position {
	for {
		if p, ok := r.pos[path]; ok {
			return p
		}
		if p, ok := r.keyPos[path]; ok {
			return p
		}
		if path == "" {
			return Position{Line: 1, Col: 1}
		}
		path = parentPath(path)
	}
}

// keyPosOf returns where the key of the field at path is, falling back to
// posOf.
func (r *reader) keyPosOf(path string) Position {
	if p, ok := r.keyPos[path]; ok {
		return p
	}
	return r.posOf(path)
}

// parentPath drops the last key or index of a field path.
func parentPath(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// joinKey appends a mapping key to a field path, quoting keys that are not
// plain words.
func joinKey(path, key string) string {
	plain := key != ""
	for _, c := range key {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if !plain {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// joinIndex appends a list index to a field path.
func joinIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// position converts a token's position.
func position(n ast.Node) Position {
	if n == nil {
		return Position{}
	}
	t := n.GetToken()
	if t == nil || t.Position == nil {
		return Position{}
	}
	return Position{Line: t.Position.Line, Col: t.Position.Column}
}

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
	r.budget--
	if r.budget < 0 {
		if r.budget == -1 {
			r.problem(path, at, "the file expands to too many values")
		}
		return nil
	}
	if depth > maxDepth {
		// The path itself would be hundreds of segments long.
		if p := position(n); p.Line > 0 {
			at = p
		}
		r.problem("", at, fmt.Sprintf("values are nested deeper than %d levels", maxDepth))
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
	case *ast.FloatNode:
		r.pos[path] = position(n)
		lit := n.GetToken().Value
		if isJSONNumber(lit) {
			return r.number(path, lit)
		}
		if math.IsInf(n.Value, 0) || math.IsNaN(n.Value) {
			r.problem(path, position(n), fmt.Sprintf("%s is not a JSON number", lit))
			return nil
		}
		return json.Number(strconv.FormatFloat(n.Value, 'g', -1, 64))
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
		name := ""
		if n.Value != nil {
			name = n.Value.GetToken().Value
		}
		v, ok := r.anchors[name]
		if !ok {
			r.problem(path, position(n), fmt.Sprintf("unknown anchor %q", name))
			return nil
		}
		r.budget -= countValues(v, r.budget+1)
		if r.budget < 0 {
			r.problem(path, position(n), "the file expands to too many values")
			r.budget = -2
			return nil
		}
		return engine.CloneValue(v)
	case *ast.TagNode:
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
	case *ast.CommentGroupNode, *ast.CommentNode:
		r.pos[path] = at
		return nil
	}
	r.pos[path] = position(n)
	r.problem(path, position(n), fmt.Sprintf("unsupported YAML %s", n.Type()))
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

// countValues counts the values in v, stopping once it passes limit.
func countValues(v any, limit int) int {
	n := 1
	switch v := v.(type) {
	case *engine.Object:
		for _, k := range v.Keys() {
			if n > limit {
				break
			}
			e, _ := v.Get(k)
			n += countValues(e, limit-n)
		}
	case []any:
		for _, e := range v {
			if n > limit {
				break
			}
			n += countValues(e, limit-n)
		}
	}
	return n
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

// check runs the rules the schema cannot state, reporting each broken one.
func (r *reader) check(s *Scenario) {
	r.checkAgent(s)
	r.checkScripts(s)
	r.checkTools(s)
	r.checkTurns(s)
	r.checkExpect(s)
}

// checkAgent checks the agent's model and middleware.
func (r *reader) checkAgent(s *Scenario) {
	a := &s.Agent
	if strings.HasPrefix(a.Model, "openai-compatible:") && a.BaseURL == "" {
		r.problem("agent.base_url", r.posOf("agent.model"), `missing: an "openai-compatible" model needs the server's base_url`)
	}
	if len(a.Middleware) > 0 && a.Kind != "agent" {
		kind := cmp.Or(a.Kind, "react")
		r.problem("agent.middleware", r.posOf("agent.middleware"), fmt.Sprintf(`middleware needs agent.kind "agent" (create_agent), not %q`, kind))
	}
	r.checkMiddlewareOptions(s)
}

// checkMiddlewareOptions builds each middleware once, as the runner will,
// so that a wrong option is an error of the file, at its options.
func (r *reader) checkMiddlewareOptions(s *Scenario) {
	models := map[string]engine.ChatModel{"model": llm.NewScripted("model", llm.Script{})}
	for name := range s.Models {
		models[name] = llm.NewScripted(name, llm.Script{})
	}
	for i, m := range s.Agent.Middleware {
		opts, ok := m.Options.(*engine.Object)
		if m.Options != nil && !ok {
			continue // the schema has reported it
		}
		if _, err := middleware.Build(m.Type, opts, middleware.BuildOptions{Models: models}); err != nil {
			if errors.Is(err, middleware.ErrUnknownClass) {
				continue // the schema has reported it
			}
			path := fmt.Sprintf("agent.middleware[%d].options", i)
			if m.Options == nil {
				path = fmt.Sprintf("agent.middleware[%d]", i)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				r.problem(path, r.posOf(path), line)
			}
		}
	}
}

// checkScripts checks that a scripted model has a script and that every
// script parses.
func (r *reader) checkScripts(s *Scenario) {
	if s.Agent.Model == "" || s.Agent.Model == "scripted" {
		if s.Script == nil {
			at := r.posOf("agent.model")
			if _, ok := r.pos["agent.model"]; !ok {
				at = r.posOf("")
			}
			r.problem("script", at, `missing: the "scripted" model (the default agent.model) answers from script`)
		}
	}
	if s.Script != nil {
		r.checkScript("script", s.Script)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Models)) {
		r.checkScript(joinKey("models", name), s.Models[name])
	}
}

// checkScript parses one script with engine/llm and reports its problems
// at their places.
func (r *reader) checkScript(path string, v any) {
	if _, ok := v.(*engine.Object); !ok {
		return // the schema has reported it
	}
	data, err := engine.MarshalValue(v)
	if err != nil {
		r.problem(path, r.posOf(path), err.Error())
		return
	}
	_, err = llm.ParseScript(data)
	if err == nil {
		return
	}
	var se *llm.ScriptError
	if !errors.As(err, &se) {
		r.problem(path, r.posOf(path), err.Error())
		return
	}
	for _, p := range se.Problems {
		field := path
		if p.Path != "" {
			if strings.HasPrefix(p.Path, "[") {
				field += p.Path
			} else {
				field += "." + p.Path
			}
		}
		r.problem(field, r.posOf(field), p.Message)
	}
}

// checkTools checks tool names and scripted results.
func (r *reader) checkTools(s *Scenario) {
	first := map[string]int{}
	for i, t := range s.Tools {
		tp := joinIndex("tools", i)
		if t.Name != "" {
			if j, dup := first[t.Name]; dup {
				r.problem(tp+".name", r.posOf(tp+".name"), fmt.Sprintf("duplicate tool %q (also tools[%d])", t.Name, j))
			} else {
				first[t.Name] = i
			}
		}
		if t.Latency != nil {
			if err := t.Latency.Validate(); err != nil {
				r.problem(tp+".latency", r.posOf(tp+".latency"), err.Error())
			}
		}
		if e := t.Emulate; e != nil {
			ep := tp + ".emulate"
			if schema, ok := e.Output.(*engine.Object); ok {
				if e.Model != "" {
					r.problem(ep+".model", r.keyPosOf(ep+".model"), "an emulated tool is answered either by a model or from an output schema: set model or output, not both")
				}
				if _, err := emulator.Value(schema, uint64(e.Seed)); err != nil {
					r.problem(ep+".output", r.posOf(ep+".output"), fmt.Sprintf("no value can be generated from this schema: %v", err))
				}
			} else if m := e.Model; m != "" && m != "agent" && !strings.Contains(m, ":") {
				if _, ok := s.Models[m]; !ok {
					msg := fmt.Sprintf("no model %q: expected \"agent\", a name from models or a provider model such as \"openai:gpt-4.1-mini\"", m)
					r.problem(ep+".model", r.posOf(ep+".model"), msg)
				}
			}
		}
		for j, res := range t.Results {
			rp := joinIndex(tp+".results", j)
			if res.Return != nil && res.Error != "" {
				r.problem(rp+".error", r.keyPosOf(rp+".error"), "a result either returns or raises: set return or error, not both")
			}
			if res.Match == "regex" {
				r.checkRegexes(rp+".when", res.When)
			}
		}
	}
}

// checkRegexes checks that every string in a regex result's when compiles.
func (r *reader) checkRegexes(path string, v any) {
	switch v := v.(type) {
	case string:
		if _, err := regexp.Compile(v); err != nil {
			r.problem(path, r.posOf(path), "invalid regular expression: "+err.Error())
		}
	case *engine.Object:
		for _, k := range v.Keys() {
			e, _ := v.Get(k)
			r.checkRegexes(joinKey(path, k), e)
		}
	case []any:
		for i, e := range v {
			r.checkRegexes(joinIndex(path, i), e)
		}
	}
}

// checkTurns checks that each turn can run on its thread.
func (r *reader) checkTurns(s *Scenario) {
	noCheckpointer := s.Agent.Checkpointer != nil && !*s.Agent.Checkpointer
	started := map[string]bool{}
	for i, t := range s.Turns {
		tp := joinIndex("turns", i)
		thread := cmp.Or(t.Thread, "main")
		kind := turnKind(t)
		if noCheckpointer {
			switch {
			case kind != "user" && kind != "":
				r.problem(tp+"."+kind, r.keyPosOf(tp+"."+kind), "needs a checkpointer: agent.checkpointer is false, so every turn starts a fresh thread")
			case t.FromStep != nil:
				r.problem(tp+".from_step", r.keyPosOf(tp+".from_step"), "needs a checkpointer: agent.checkpointer is false, so there are no checkpoints")
			case started[thread]:
				r.problem(tp, r.posOf(tp), fmt.Sprintf("needs a checkpointer: a second turn on thread %q, but agent.checkpointer is false, so every turn starts a fresh thread", thread))
			}
			started[thread] = true
			continue
		}
		if !started[thread] {
			switch kind {
			case "resume", "decisions", "continue":
				r.problem(tp+"."+kind, r.keyPosOf(tp+"."+kind), fmt.Sprintf("thread %q has not started: its first turn cannot be %s", thread, kind))
			default:
				if t.FromStep != nil {
					r.problem(tp+".from_step", r.keyPosOf(tp+".from_step"), fmt.Sprintf("thread %q has not started: it has no checkpoints to go back to", thread))
				}
			}
		}
		started[thread] = true
	}
}

// turnKind names the input a turn gives, or "" when it gives none.
func turnKind(t Turn) string {
	switch {
	case t.User != "":
		return "user"
	case t.Resume != nil:
		return "resume"
	case t.Decisions != nil:
		return "decisions"
	case t.UpdateState != nil:
		return "update_state"
	case t.Continue:
		return "continue"
	}
	return ""
}

// checkExpect checks the expectations' regular expressions and tool names.
func (r *reader) checkExpect(s *Scenario) {
	if f := s.Expect.Final; f != nil && f.Regex != "" {
		if _, err := regexp.Compile(f.Regex); err != nil {
			r.problem("expect.final.regex", r.posOf("expect.final.regex"), "invalid regular expression: "+err.Error())
		}
	}
	tr := s.Expect.Trajectory
	if tr == nil {
		return
	}
	if len(tr.Steps) > 0 && !tr.GroupParallel {
		r.problem("expect.trajectory.steps", r.keyPosOf("expect.trajectory.steps"), "steps needs group_parallel: true (list the calls in calls otherwise)")
	}
	// Middleware (TodoListMiddleware's write_todos) and structured output
	// (ToolStrategy's schema tool) add tools the file does not declare.
	if len(s.Agent.Middleware) > 0 || s.Agent.ResponseFormat != nil {
		return
	}
	var declared []string
	for _, t := range s.Tools {
		declared = append(declared, t.Name)
	}
	// A call the script makes on purpose to a tool that does not exist
	// (the ToolNode answers it with an error) may be expected too.
	scripted := scriptedToolNames(s.Script)
	checkName := func(path, name string, at Position) {
		if name == "" || slices.Contains(declared, name) || scripted[name] {
			return
		}
		msg := fmt.Sprintf("unknown tool %q", name)
		switch m := suggest(name, declared); {
		case m != "":
			msg += fmt.Sprintf(" (did you mean %q?)", m)
		case len(declared) == 0:
			msg += ": the scenario declares no tools"
		default:
			msg += ": declared tools are " + orList(declared, true)
		}
		r.problem(path, at, msg)
	}
	for i, c := range tr.Calls {
		p := joinIndex("expect.trajectory.calls", i) + ".name"
		checkName(p, c.Name, r.posOf(p))
	}
	for i, step := range tr.Steps {
		for j, c := range step {
			p := joinIndex(joinIndex("expect.trajectory.steps", i), j) + ".name"
			checkName(p, c.Name, r.posOf(p))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(tr.ToolArgs)) {
		p := joinKey("expect.trajectory.tool_args", name)
		checkName(p, name, r.keyPosOf(p))
	}
}

// scriptedToolNames returns the names of the tool calls a script's
// responses make.
func scriptedToolNames(script any) map[string]bool {
	names := map[string]bool{}
	obj, _ := script.(*engine.Object)
	var responses []any
	if v, ok := obj.Get("responses"); ok {
		responses, _ = v.([]any)
	}
	if then, ok := obj.Get("then"); ok {
		if t, ok := then.(*engine.Object); ok {
			if rep, ok := t.Get("repeat"); ok {
				responses = append(slices.Clip(responses), rep)
			}
		}
	}
	for _, resp := range responses {
		o, _ := resp.(*engine.Object)
		calls, _ := o.Get("tool_calls")
		list, _ := calls.([]any)
		for _, c := range list {
			co, _ := c.(*engine.Object)
			if n, ok := co.Get("name"); ok {
				if name, ok := n.(string); ok {
					names[name] = true
				}
			}
		}
	}
	return names
}

// modelMessage explains why agent.model is not a model name.
func modelMessage(got string) string {
	providers := []string{"openai", "anthropic", "openai-compatible"}
	provider, model, ok := strings.Cut(got, ":")
	switch {
	case !ok:
		msg := fmt.Sprintf(`unknown model %q: expected "scripted" or "<provider>:<model>" with provider %s`, got, orList(providers, true))
		if m := suggest(got, []string{"scripted"}); m != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", m)
		}
		return msg
	case !slices.Contains(providers, provider):
		msg := fmt.Sprintf("unknown provider %q in model %q: expected %s", provider, got, orList(providers, true))
		if m := suggest(provider, providers); m != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", m)
		}
		return msg
	case model == "":
		return fmt.Sprintf(`model %q names no model: expected "%s:<model>"`, got, provider)
	}
	return fmt.Sprintf("invalid model %q", got)
}

// unknownKeyMessage says a key is not allowed, suggesting the allowed key
// it is closest to or listing them all.
func unknownKeyMessage(key string, allowed []string) string {
	msg := fmt.Sprintf("unknown field %q", key)
	if m := suggest(key, allowed); m != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", m)
	}
	if len(allowed) > 0 {
		return msg + ": expected one of " + strings.Join(allowed, ", ")
	}
	return msg
}

// suggest returns the candidate that word is most likely a misspelling of:
// the same but for case, a prefix of one or the other, or within edit
// distance 2. It returns "" when none is close.
func suggest(word string, candidates []string) string {
	if word == "" {
		return ""
	}
	lw := strings.ToLower(word)
	best, bestDist := "", 3
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == lw {
			return c
		}
		d := levenshtein(lw, lc)
		if d < bestDist && 2*d <= len(lw) {
			best, bestDist = c, d
		}
	}
	if best != "" {
		return best
	}
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if len(lw) >= 3 && (strings.HasPrefix(lc, lw) || strings.HasPrefix(lw, lc)) {
			return c
		}
	}
	return ""
}

// levenshtein is the edit distance between a and b, in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// orList joins words as "a, b or c", quoting each when quote is set.
func orList(words []string, quote bool) string {
	return joinList(words, "or", quote)
}

// andList joins words as "a, b and c".
func andList(words []string) string {
	return joinList(words, "and", false)
}

// joinList joins words with commas and a final conjunction.
func joinList(words []string, conj string, quote bool) string {
	ws := make([]string, len(words))
	for i, w := range words {
		if quote {
			w = strconv.Quote(w)
		}
		ws[i] = w
	}
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " " + conj + " " + ws[len(ws)-1]
}
