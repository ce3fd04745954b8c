package cassette

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
	"gopkg.in/yaml.v3"

	"github.com/agenteval/agenteval/engine/value"
)

// Import reads a cassette in any layout this package recognises and
// converts it into a go-vcr v2 cassette held in memory (save it with
// Cassette.Save). It reads go-vcr v2 and v3/v4 files, vcrpy's httpx and
// requests layouts and pydantic-ai's parsed-body layout, also
// gzip-compressed (.yaml.gz). The conversion
//
//   - canonicalises header names (content-type becomes Content-Type);
//   - decodes !!binary bodies and gzip/deflate Content-Encoding, and drops
//     a Content-Encoding header that describes a body that is not encoded;
//   - re-encodes parsed_body maps as JSON (in the YAML's key order, which
//     may not be the order the client sent);
//   - builds the status line from vcrpy's code and message;
//   - adds a Content-Type to responses that have none, from the body:
//     text/event-stream for server-sent events, application/json for JSON
//     (go-vcr v4 cassettes written with all headers stripped need this);
//   - scrubs credentials (auth headers, cookies, key-shaped strings), so
//     the result holds none.
//
// The returned Layout says what the file was. Import applies the
// default Limits (a file over 256 MiB, compressed or not, or a body that
// decodes to more than 64 MiB is refused); Limits.Import takes others.
func Import(path string) (*Cassette, Layout, error) { return Limits{}.Import(path) }

// Import is the package's Import with the limits l.
func (l Limits) Import(path string) (*Cassette, Layout, error) {
	data, err := l.readFile(path)
	if err != nil {
		return nil, LayoutUnknown, fmt.Errorf("import %s: %w", path, err)
	}
	return l.ImportBytes(path, data)
}

// ImportBytes is Import for data already read; path names the file in
// errors.
func ImportBytes(path string, data []byte) (*Cassette, Layout, error) {
	return Limits{}.ImportBytes(path, data)
}

// ImportBytes is the package's ImportBytes with the limits l.
func (l Limits) ImportBytes(path string, data []byte) (*Cassette, Layout, error) {
	if err := l.checkSize(data); err != nil {
		return nil, LayoutUnknown, fmt.Errorf("import %s: %w", path, err)
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		out, err := decompress("gzip", string(data), l.maxFile(), raiseFile)
		if err != nil {
			return nil, LayoutUnknown, fmt.Errorf("import %s: %w", path, err)
		}
		data = []byte(out)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, LayoutUnknown, fmt.Errorf("import %s: not valid YAML: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, LayoutUnknown, fmt.Errorf("import %s: empty file, not a cassette", path)
	}
	root := doc.Content[0]
	layout, why := detect(root)
	if layout == LayoutUnknown {
		return nil, layout, fmt.Errorf("import %s:%d: not a cassette: %s", path, root.Line, why)
	}
	inters := mapGet(root, "interactions")
	c := &Cassette{Path: path}
	var problems []string
	for n, in := range inters.Content {
		i, err := importInteraction(layout, in, l.maxBody())
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: interactions[%d]: %v", path, in.Line, n, err))
			continue
		}
		c.Interactions = append(c.Interactions, Scrub(i))
		c.Lines = append(c.Lines, in.Line)
	}
	if len(problems) > 0 {
		return nil, layout, fmt.Errorf("import %s (%s):\n%s", path, layout, strings.Join(problems, "\n"))
	}
	return c, layout, nil
}

func importInteraction(layout Layout, in *yaml.Node, limit int64) (*vcr.Interaction, error) {
	if in.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("must be a mapping, got %s", kindName(in))
	}
	req, resp := mapGet(in, "request"), mapGet(in, "response")
	if req == nil || req.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("request: missing or not a mapping")
	}
	if resp == nil || resp.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("response: missing or not a mapping")
	}
	i := &vcr.Interaction{}
	var err error
	if i.Request.Method, err = scalar(req, "method"); err != nil {
		return nil, fmt.Errorf("request.%w", err)
	}
	urlKey := "url"
	if layout == LayoutVcrpyHTTPX || layout == LayoutVcrpyRequests || layout == LayoutVcrpyParsed {
		urlKey = "uri"
	}
	if i.Request.URL, err = scalar(req, urlKey); err != nil {
		return nil, fmt.Errorf("request.%w", err)
	}
	if i.Request.Headers, err = headersOf(mapGet(req, "headers")); err != nil {
		return nil, fmt.Errorf("request.headers: %w", err)
	}
	if i.Response.Headers, err = headersOf(mapGet(resp, "headers")); err != nil {
		return nil, fmt.Errorf("response.headers: %w", err)
	}
	if pb := mapGet(req, "parsed_body"); pb != nil {
		if i.Request.Body, err = jsonOf(pb, limit); err != nil {
			return nil, fmt.Errorf("request.parsed_body: %w", err)
		}
	} else if i.Request.Body, err = bodyOf(mapGet(req, "body")); err != nil {
		return nil, fmt.Errorf("request.body: %w", err)
	}

	if err := importResponse(layout, in, resp, i, limit); err != nil {
		return nil, err
	}
	if i.Response.Code < 100 || i.Response.Code > 599 {
		return nil, fmt.Errorf("response: status code %d is not an HTTP status", i.Response.Code)
	}
	if err := decodeBodies(i, limit); err != nil {
		return nil, err
	}
	if mapGet(resp, "parsed_body") != nil {
		i.Response.Headers = dropEncoding(i.Response.Headers)
	}
	if headerGet(i.Response.Headers, "Content-Type") == "" {
		if ct := sniffContentType(i.Response.Body); ct != "" {
			if i.Response.Headers == nil {
				i.Response.Headers = http.Header{}
			}
			i.Response.Headers.Set("Content-Type", ct)
		}
	}
	return i, nil
}

// importResponse reads the response's body, status and duration as the
// layout writes them into i.
func importResponse(layout Layout, in, resp *yaml.Node, i *vcr.Interaction, limit int64) error {
	var err error
	switch layout {
	case LayoutGoVCR2, LayoutGoVCR4:
		var g struct {
			Response struct {
				Status string `yaml:"status"`
				Code   int    `yaml:"code"`
			} `yaml:"response"`
		}
		if err := in.Decode(&g); err != nil {
			return err
		}
		if i.Response.Body, err = bodyOf(mapGet(resp, "body")); err != nil {
			return fmt.Errorf("response.body: %w", err)
		}
		i.Response.Status, i.Response.Code = g.Response.Status, g.Response.Code
		if d := mapGet(resp, "duration"); d != nil {
			var dd vcr.Response
			if err := resp.Decode(&dd); err != nil {
				return fmt.Errorf("response.duration: %w", err)
			}
			i.Response.Duration = dd.Duration
		}
	case LayoutVcrpyHTTPX:
		if i.Response.Body, err = bodyOf(mapGet(resp, "content")); err != nil {
			return fmt.Errorf("response.content: %w", err)
		}
		code, err := intOf(mapGet(resp, "status_code"))
		if err != nil {
			return fmt.Errorf("response.status_code: %w", err)
		}
		i.Response.Code = code
		i.Response.Status = statusLine(code, "")
	default: // vcrpy requests and parsed-body layouts
		if pb := mapGet(resp, "parsed_body"); pb != nil {
			if i.Response.Body, err = jsonOf(pb, limit); err != nil {
				return fmt.Errorf("response.parsed_body: %w", err)
			}
		} else if i.Response.Body, err = bodyOf(mapGet(resp, "body")); err != nil {
			return fmt.Errorf("response.body: %w", err)
		}
		st := mapGet(resp, "status")
		code, err := intOf(mapGet(st, "code"))
		if err != nil {
			return fmt.Errorf("response.status.code: %w", err)
		}
		msg, _ := scalar(st, "message")
		i.Response.Code = code
		i.Response.Status = statusLine(code, msg)
	}
	return nil
}

// sniffContentType guesses a response's type from its body: server-sent
// events or JSON; "" otherwise.
func sniffContentType(body string) string {
	t := strings.TrimLeft(body, " \t\r\n")
	switch {
	case strings.HasPrefix(t, "data:") || strings.HasPrefix(t, "event:") || strings.HasPrefix(t, ": "):
		return "text/event-stream"
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "["):
		return "application/json"
	}
	return ""
}

func statusLine(code int, msg string) string {
	if msg == "" {
		msg = http.StatusText(code)
	}
	if msg == "" {
		return strconv.Itoa(code)
	}
	return strconv.Itoa(code) + " " + msg
}

func scalar(n *yaml.Node, key string) (string, error) {
	v := mapGet(n, key)
	if v == nil || v.ShortTag() == "!!null" {
		return "", fmt.Errorf("%s: missing", key)
	}
	if v.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("%s: must be a string, got %s", key, kindName(v))
	}
	return v.Value, nil
}

func intOf(n *yaml.Node) (int, error) {
	if n == nil {
		return 0, fmt.Errorf("missing")
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil || n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("%q is not a number", n.Value)
	}
	return v, nil
}

// bodyOf reads a body: a string, a !!binary string, null, or vcrpy's
// {string: ...} mapping.
func bodyOf(n *yaml.Node) (string, error) {
	if n == nil {
		return "", nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "", nil
		case "!!binary":
			b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
			if err != nil {
				return "", fmt.Errorf("!!binary: %w", err)
			}
			return string(b), nil
		}
		return n.Value, nil
	case yaml.MappingNode:
		if s := mapGet(n, "string"); s != nil {
			return bodyOf(s)
		}
		return "", fmt.Errorf("a mapping without a string key")
	}
	return "", fmt.Errorf("must be a string, got %s", kindName(n))
}

// headersOf reads a header mapping whose values are lists or single
// strings, canonicalising the names.
func headersOf(n *yaml.Node) (http.Header, error) {
	h := http.Header{}
	if n == nil || n.ShortTag() == "!!null" {
		return h, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("must be a mapping, got %s", kindName(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := http.CanonicalHeaderKey(n.Content[i].Value), n.Content[i+1]
		switch v.Kind {
		case yaml.ScalarNode:
			h[k] = append(h[k], v.Value)
		case yaml.SequenceNode:
			for _, e := range v.Content {
				if e.Kind != yaml.ScalarNode {
					return nil, fmt.Errorf("%s: values must be strings", k)
				}
				h[k] = append(h[k], e.Value)
			}
		default:
			return nil, fmt.Errorf("%s: must be a string or a list", k)
		}
	}
	return h, nil
}

// jsonOf re-encodes a YAML value as compact JSON, keeping key order. The
// value may not expand, through its YAML aliases, past limit bytes,
// counting its text and valueCost bytes per value (a "billion laughs"
// document is a few lines long).
func jsonOf(n *yaml.Node, limit int64) (string, error) {
	budget := limit
	v, err := yamlValue(n, 0, &budget)
	if errors.Is(err, errExpands) {
		return "", fmt.Errorf("expands to more than %s, the limit (raise it to read the file: %s)", sizeString(limit), raiseBody)
	}
	if err != nil {
		return "", err
	}
	b, err := value.MarshalValue(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// errExpands is yamlValue's error for a value past its budget.
var errExpands = errors.New("expands past the limit")

// valueCost is what one value of a parsed_body is charged on top of its
// text: about what it takes in memory as an interface, a slice element
// or an object member.
const valueCost = 64

// yamlValue converts n into the engine's value model, charging what it
// produces (each value's text and valueCost) to budget.
func yamlValue(n *yaml.Node, depth int, budget *int64) (any, error) {
	if depth > 200 {
		return nil, fmt.Errorf("nested too deeply")
	}
	*budget -= int64(len(n.Value)) + valueCost
	if *budget < 0 {
		return nil, errExpands
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlValue(n.Content[0], depth+1, budget)
	case yaml.AliasNode:
		return yamlValue(n.Alias, depth+1, budget)
	case yaml.MappingNode:
		o := &value.Object{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			*budget -= int64(len(n.Content[i].Value))
			v, err := yamlValue(n.Content[i+1], depth+1, budget)
			if err != nil {
				return nil, err
			}
			o.Set(n.Content[i].Value, v)
		}
		return o, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := yamlValue(e, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, err
			}
			return b, nil
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return json.Number(n.Value), nil
			}
			return json.Number(strconv.FormatInt(i, 10)), nil
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, err
			}
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("line %d: %s has no JSON form", n.Line, n.Value)
			}
			if json.Valid([]byte(n.Value)) {
				return json.Number(n.Value), nil
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
		case "!!binary":
			return bodyOf(n)
		}
		return n.Value, nil
	}
	return nil, fmt.Errorf("unexpected YAML node")
}
