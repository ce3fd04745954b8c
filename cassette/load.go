package cassette

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
	"gopkg.in/yaml.v3"
)

// Load reads and validates a go-vcr v2 cassette file. Unlike go-vcr v2's
// cassette.Load, which reads any YAML (a vcrpy cassette loads silently as
// interactions with an empty URL, code 0 and an empty body), it fails with
// a *FormatError that names the file, what the file looks like, and every
// problem with its line and field: unknown keys, missing methods or URLs,
// status codes out of range, unparseable durations, bodies that decode
// past the limit, and any credential left in a header, URL or body. Gzip-
// or deflate-encoded bodies are decoded and their Content-Encoding header
// dropped. A missing file wraps ErrCassetteNotFound. Load applies the
// default Limits: a file over 256 MiB, or a body that decodes to more
// than 64 MiB, is refused; Limits.Load takes others.
func Load(path string) (*Cassette, error) { return Limits{}.Load(path) }

// Load is the package's Load with the limits l.
func (l Limits) Load(path string) (*Cassette, error) {
	data, err := l.readFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("load %s: %w", path, ErrCassetteNotFound)
		}
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return l.Parse(path, data)
}

// Parse is Load for data already read; path names the file in errors.
func Parse(path string, data []byte) (*Cassette, error) { return Limits{}.Parse(path, data) }

// Parse is the package's Parse with the limits l.
func (l Limits) Parse(path string, data []byte) (*Cassette, error) {
	if err := l.checkSize(data); err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	c, problems := l.parse(path, data)
	if len(problems) > 0 {
		layout := LayoutGoVCR2
		if c == nil {
			layout = problems[0].layout
		}
		ps := make([]Problem, len(problems))
		for i, p := range problems {
			ps[i] = p.Problem
		}
		return nil, &FormatError{Path: path, Layout: layout, Problems: ps}
	}
	return c, nil
}

// Check returns every problem Load would report for the file at path
// (format problems and credentials), or an error when the file cannot be
// read at all (or is larger than the default limit).
func Check(path string) ([]Problem, error) { return Limits{}.Check(path) }

// Check is the package's Check with the limits l.
func (l Limits) Check(path string) ([]Problem, error) {
	data, err := l.readFile(path)
	if errors.Is(err, errFileTooLarge) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return nil, err
	}
	_, problems := l.parse(path, data)
	out := make([]Problem, len(problems))
	for i, p := range problems {
		out[i] = p.Problem
	}
	return out, nil
}

type layoutProblem struct {
	Problem
	layout Layout
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// parse returns the cassette, or nil and the problems that make the file
// unusable; with a cassette, the problems are its credentials.
func (l Limits) parse(path string, data []byte) (*Cassette, []layoutProblem) {
	root, problems := parseDocument(path, data)
	if problems != nil {
		return nil, problems
	}
	v := &validator{path: path}
	v.mapping(root, "", "version", "interactions")
	if ver := mapGet(root, "version"); ver == nil {
		v.add(root.Line, "version", "missing (a go-vcr v2 cassette has version: 1)")
	} else if ver.Value != "1" {
		v.add(ver.Line, "version", fmt.Sprintf("is %s, want 1", ver.Value))
	}
	inters := mapGet(root, "interactions")
	c := &Cassette{Path: path}
	for n, in := range inters.Content {
		field := fmt.Sprintf("interactions[%d]", n)
		req, resp, ok := v.interaction(in, field)
		if !ok {
			continue
		}
		i, ok := l.decodeInteraction(v, in, req, resp, field)
		if !ok {
			continue
		}
		c.Interactions = append(c.Interactions, i)
		c.Lines = append(c.Lines, in.Line)
		sub := map[string]*yaml.Node{"request": req, "response": resp}
		v.problems = append(v.problems, scanInteraction(path, i, field, func(s string) int {
			return subLine(sub, s, in.Line)
		}, nil)...)
	}
	if len(inters.Content) == 0 {
		v.problems = append(v.problems, Problem{Path: path, Line: inters.Line, Field: "interactions", Empty: true,
			Message: "empty: the cassette has no interactions, so replay can answer nothing (a recording that failed or made no request; delete the file and record again)"})
	}
	if len(v.problems) == 0 {
		return c, nil
	}
	out := make([]layoutProblem, len(v.problems))
	for i, p := range v.problems {
		out[i] = layoutProblem{p, LayoutGoVCR2}
	}
	return nil, out
}

// parseDocument reads the YAML and returns its root when it is laid out
// as a go-vcr v2 cassette, or the one problem that makes it something
// else.
func parseDocument(path string, data []byte) (*yaml.Node, []layoutProblem) {
	fail := func(layout Layout, line int, field, msg string) (*yaml.Node, []layoutProblem) {
		return nil, []layoutProblem{{Problem{Path: path, Line: line, Field: field, Message: msg}, layout}}
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return fail(LayoutUnknown, 0, "", "a gzip-compressed file, not a go-vcr v2 cassette; convert it with agenteval cassette import")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = yamlLine.ReplaceAllString(msg, "")
		msg = strings.TrimPrefix(strings.TrimSpace(msg), ": ")
		return fail(LayoutUnknown, line, "", "not valid YAML: "+msg)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return fail(LayoutUnknown, 0, "", "empty file, not a cassette")
	}
	root := doc.Content[0]
	layout, why := detect(root)
	switch layout {
	case LayoutGoVCR2:
		return root, nil
	case LayoutUnknown:
		return fail(layout, root.Line, "", "not a cassette: "+why)
	default:
		return fail(layout, root.Line, "", layout.describe()+", not a go-vcr v2 cassette (go-vcr v2 would load it silently wrong); convert it with agenteval cassette import")
	}
}

// interaction checks the shape of one interaction (keys, method, URL,
// headers, status code, duration) and returns its request and response
// nodes; ok is false when it has a problem.
func (v *validator) interaction(in *yaml.Node, field string) (req, resp *yaml.Node, ok bool) {
	if !v.mapping(in, field, "request", "response") {
		return nil, nil, false
	}
	req, resp = mapGet(in, "request"), mapGet(in, "response")
	if req == nil {
		v.add(in.Line, field+".request", "missing")
	}
	if resp == nil {
		v.add(in.Line, field+".response", "missing")
	}
	if req == nil || resp == nil {
		return nil, nil, false
	}
	okReq := v.mapping(req, field+".request", "body", "form", "headers", "url", "method")
	okResp := v.mapping(resp, field+".response", "body", "headers", "status", "code", "duration")
	if !okReq || !okResp {
		return nil, nil, false
	}
	before := len(v.problems)
	method := v.str(req, field+".request", "method", true)
	if method != "" && strings.ToUpper(method) != method {
		v.add(mapGet(req, "method").Line, field+".request.method", fmt.Sprintf("%q is not an upper-case HTTP method", method))
	}
	if raw := v.str(req, field+".request", "url", true); raw != "" {
		if u, err := url.Parse(raw); err != nil || u.Scheme == "" || u.Host == "" {
			v.add(mapGet(req, "url").Line, field+".request.url", fmt.Sprintf("%q is not an absolute URL", raw))
		}
	}
	v.str(req, field+".request", "body", false)
	v.str(resp, field+".response", "body", false)
	v.str(resp, field+".response", "status", false)
	v.headers(req, field+".request")
	v.headers(resp, field+".response")
	if f := mapGet(req, "form"); f != nil && f.Kind != yaml.MappingNode && f.ShortTag() != "!!null" {
		v.add(f.Line, field+".request.form", "must be a mapping of lists")
	}
	if code := mapGet(resp, "code"); code == nil {
		v.add(resp.Line, field+".response.code", "missing")
	} else if n, err := strconv.Atoi(code.Value); err != nil || n < 100 || n > 599 {
		v.add(code.Line, field+".response.code", fmt.Sprintf("%q is not an HTTP status code (100-599)", code.Value))
	}
	if d := mapGet(resp, "duration"); d != nil && d.ShortTag() != "!!int" {
		if _, err := time.ParseDuration(d.Value); err != nil {
			v.add(d.Line, field+".response.duration", fmt.Sprintf("%q is not a duration such as 1.5s", d.Value))
		}
	}
	return req, resp, len(v.problems) == before
}

// decodeInteraction decodes a well-shaped interaction and its bodies
// (gzip and deflate, within the body limit); ok is false when it has a
// problem, which v records at the body's line.
func (l Limits) decodeInteraction(v *validator, in, req, resp *yaml.Node, field string) (*vcr.Interaction, bool) {
	var i vcr.Interaction
	if err := in.Decode(&i); err != nil {
		v.add(in.Line, field, err.Error())
		return nil, false
	}
	if err := decodeBodies(&i, l.maxBody()); err != nil {
		var be *bodyError
		if !errors.As(err, &be) {
			v.add(in.Line, field, err.Error())
			return nil, false
		}
		node := resp
		if be.part == "request" {
			node = req
		}
		line := in.Line
		if b := mapGet(node, "body"); b != nil {
			line = b.Line
		}
		v.add(line, field+"."+be.part+".body", be.err.Error())
		return nil, false
	}
	return &i, true
}

// subLine finds the line of "request.headers.X" or "response.body" under
// the interaction's request/response nodes.
func subLine(sub map[string]*yaml.Node, s string, def int) int {
	parts := strings.SplitN(s, ".", 3)
	n := sub[parts[0]]
	if n == nil {
		return def
	}
	line := n.Line
	if len(parts) > 1 {
		if k := mapKey(n, parts[1]); k != nil {
			line = k.Line
			if len(parts) > 2 {
				if hk := mapKey(mapGet(n, parts[1]), parts[2]); hk != nil {
					line = hk.Line
				}
			}
		}
	}
	return line
}

// detect names the layout of a YAML document, or says why it is not a
// cassette.
func detect(root *yaml.Node) (Layout, string) {
	if root.Kind != yaml.MappingNode {
		return LayoutUnknown, "the top level is " + kindName(root) + ", not a mapping with interactions"
	}
	inters := mapGet(root, "interactions")
	if inters == nil {
		keys := mapKeys(root)
		if len(keys) > 8 {
			keys = append(keys[:8], "...")
		}
		return LayoutUnknown, "no interactions key (top-level keys: " + strings.Join(keys, ", ") + ")"
	}
	if inters.Kind != yaml.SequenceNode {
		if inters.ShortTag() == "!!null" {
			inters.Kind, inters.Tag, inters.Value = yaml.SequenceNode, "!!seq", ""
		} else {
			return LayoutUnknown, "interactions is " + kindName(inters) + ", not a list"
		}
	}
	version := ""
	if v := mapGet(root, "version"); v != nil {
		version = v.Value
	}
	if len(inters.Content) == 0 {
		if version == "2" {
			return LayoutGoVCR4, ""
		}
		return LayoutGoVCR2, ""
	}
	first := inters.Content[0]
	req, resp := mapGet(first, "request"), mapGet(first, "response")
	if mapGet(req, "uri") != nil || mapGet(resp, "status_code") != nil || mapGet(req, "parsed_body") != nil || mapGet(resp, "parsed_body") != nil {
		switch {
		case mapGet(req, "parsed_body") != nil || mapGet(resp, "parsed_body") != nil:
			return LayoutVcrpyParsed, ""
		case mapGet(resp, "status_code") != nil || mapGet(resp, "content") != nil:
			return LayoutVcrpyHTTPX, ""
		default:
			return LayoutVcrpyRequests, ""
		}
	}
	if version == "2" || mapGet(first, "id") != nil || mapGet(req, "proto") != nil || mapGet(resp, "proto") != nil {
		return LayoutGoVCR4, ""
	}
	return LayoutGoVCR2, ""
}

// validator collects problems with their positions.
type validator struct {
	path     string
	problems []Problem
}

func (v *validator) add(line int, field, msg string) {
	v.problems = append(v.problems, Problem{Path: v.path, Line: line, Field: field, Message: msg})
}

// mapping checks that n is a mapping with only the allowed keys.
func (v *validator) mapping(n *yaml.Node, field string, allowed ...string) bool {
	if n.Kind != yaml.MappingNode {
		v.add(n.Line, field, "must be a mapping, got "+kindName(n))
		return false
	}
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		known := false
		for _, a := range allowed {
			if k.Value == a {
				known = true
				break
			}
		}
		if !known {
			name := k.Value
			if field != "" {
				name = field + "." + k.Value
			}
			v.add(k.Line, name, "unknown field (expected one of "+strings.Join(allowed, ", ")+")")
			ok = false
		}
	}
	return ok
}

// str checks that n[key] is a string scalar (or !!binary, or null) and
// returns it.
func (v *validator) str(n *yaml.Node, field, key string, required bool) string {
	val := mapGet(n, key)
	if val == nil || val.ShortTag() == "!!null" {
		if required {
			v.add(n.Line, field+"."+key, "missing")
		}
		return ""
	}
	if val.Kind != yaml.ScalarNode {
		v.add(val.Line, field+"."+key, "must be a string, got "+kindName(val))
		return ""
	}
	if required && val.Value == "" {
		v.add(val.Line, field+"."+key, "is empty")
	}
	return val.Value
}

// headers checks that n.headers is a mapping of lists of strings.
func (v *validator) headers(n *yaml.Node, field string) {
	h := mapGet(n, "headers")
	if h == nil || h.ShortTag() == "!!null" {
		return
	}
	if h.Kind != yaml.MappingNode {
		v.add(h.Line, field+".headers", "must be a mapping of header lists, got "+kindName(h))
		return
	}
	for i := 0; i+1 < len(h.Content); i += 2 {
		k, val := h.Content[i], h.Content[i+1]
		if val.Kind != yaml.SequenceNode {
			v.add(k.Line, field+".headers."+k.Value, "must be a list of values, got "+kindName(val))
			continue
		}
		for _, e := range val.Content {
			if e.Kind != yaml.ScalarNode {
				v.add(e.Line, field+".headers."+k.Value, "values must be strings")
			}
		}
	}
}

// decodeBodies undoes gzip and deflate Content-Encoding on both bodies,
// dropping the header (and Content-Length, which described the encoded
// bytes). A Content-Encoding header on a body that is not encoded (seen in
// real cassettes whose recorder had already decoded it) is dropped too.
// A body that decodes to more than limit bytes is an error. Errors are
// *bodyError, naming the body.
func decodeBodies(i *vcr.Interaction, limit int64) error {
	var err error
	if i.Request.Body, i.Request.Headers, err = decodeBody(i.Request.Body, i.Request.Headers, limit); err != nil {
		return &bodyError{part: "request", err: err}
	}
	if i.Response.Body, i.Response.Headers, err = decodeBody(i.Response.Body, i.Response.Headers, limit); err != nil {
		return &bodyError{part: "response", err: err}
	}
	return nil
}

// bodyError is a body that could not be decoded; part is "request" or
// "response".
type bodyError struct {
	part string
	err  error
}

func (e *bodyError) Error() string { return e.part + ".body: " + e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

func decodeBody(body string, h http.Header, limit int64) (string, http.Header, error) {
	enc := strings.ToLower(strings.TrimSpace(headerGet(h, "Content-Encoding")))
	if enc == "" || enc == "identity" {
		return body, h, nil
	}
	switch {
	case enc == "gzip" || enc == "x-gzip":
		if !strings.HasPrefix(body, "\x1f\x8b") {
			return body, dropEncoding(h), nil
		}
		enc = "gzip"
	case enc == "deflate":
		if len(body) < 2 || body[0]&0x0f != 8 {
			return body, dropEncoding(h), nil
		}
	default:
		return "", h, fmt.Errorf("Content-Encoding %q cannot be decoded (gzip and deflate can)", enc)
	}
	out, err := decompress(enc, body, limit, raiseBody)
	if err != nil {
		return "", h, fmt.Errorf("Content-Encoding %s: %w", enc, err)
	}
	return out, dropEncoding(h), nil
}

// headerGet is http.Header.Get for maps whose keys may not be canonical.
func headerGet(h http.Header, key string) string {
	if v := h.Get(key); v != "" {
		return v
	}
	for k, vs := range h {
		if strings.EqualFold(k, key) && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}

// dropEncoding returns a copy of h without Content-Encoding and
// Content-Length.
func dropEncoding(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		if strings.EqualFold(k, "Content-Encoding") || strings.EqualFold(k, "Content-Length") {
			continue
		}
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// YAML node helpers.

func mapGet(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func mapKey(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

func mapKeys(n *yaml.Node) []string {
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	sort.Strings(keys)
	return keys
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!int", "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		}
		return "a string"
	}
	return "nothing"
}
