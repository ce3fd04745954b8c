package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agenteval/agenteval/serve"
)

// The providers' published schemas (testdata/spec; its README names the
// sources, their versions and how they are read): OpenAI's OpenAPI
// document, vendored, and Anthropic's official TypeScript SDK, installed
// from the npm registry at the version testdata/spec/anthropic's
// package-lock.json pins; compiled once for every test that checks an
// answer against them.

const (
	openaiSpecURL    = "https://agenteval.test/spec/openai/openapi.json"
	anthropicSpecURL = "https://agenteval.test/spec/anthropic/sdk-types.json"
)

// specs holds the compiled schemas: OpenAI's by their name under
// components/schemas, Anthropic's by their TypeScript type name.
type specs struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	// responsesEvents and anthropicEvents map an event's "type" to the
	// schema of that event: the member of OpenAI's ResponseStreamEvent and
	// of Anthropic's RawMessageStreamEvent whose type is that constant.
	responsesEvents map[string]string
	anthropicEvents map[string]string
}

// anthropicRoots are the SDK types serve's Messages answers are checked
// against: the message, the stream events, the error and the model.
var anthropicRoots = []string{"Message", "RawMessageStreamEvent", "ErrorResponse", "ModelInfo"}

// anthropicSDKDir holds the package.json and package-lock.json that pin
// @anthropic-ai/sdk; npm ci installs it into its node_modules.
var anthropicSDKDir = filepath.Join("testdata", "spec", "anthropic")

// installAnthropicSDK installs the pinned SDK from the lock file (npm ci,
// no install scripts) when anthropicSDKDir/node_modules is missing, once
// for every test; it returns why the tests must skip: npm is missing or
// the install failed (offline, say), or "" when the SDK is there.
var installAnthropicSDK = sync.OnceValue(func() string {
	modules := filepath.Join(anthropicSDKDir, "node_modules")
	if _, err := os.Stat(modules); err == nil {
		return ""
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Sprintf("npm is not installed: %s is missing and npm ci installs the Anthropic SDK whose types the spec check reads (Debian: apt-get install npm)", modules)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
	cmd.Dir = anthropicSDKDir
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		os.RemoveAll(modules)
		return fmt.Sprintf("npm ci in %s failed (offline, without the npm registry?): %v\n%s", anthropicSDKDir, err, log.String())
	}
	return ""
})

// mustSpecs returns the compiled schemas, skipping the test when the
// Anthropic SDK cannot be installed and failing it when they do not load.
func mustSpecs(t *testing.T) *specs {
	t.Helper()
	if why := installAnthropicSDK(); why != "" {
		t.Skip(why)
	}
	sp, err := loadSpecs()
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// anthropicSDKSources reads the SDK's type files from node_modules after
// checking that the installed package is the version package.json pins
// (a node_modules left from an older pin would check against old types).
func anthropicSDKSources() ([]string, error) {
	var pin struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	pkgJSON := filepath.Join(anthropicSDKDir, "package.json")
	b, err := os.ReadFile(pkgJSON)
	if err == nil {
		err = json.Unmarshal(b, &pin)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pkgJSON, err)
	}
	want := pin.Dependencies["@anthropic-ai/sdk"]
	if want == "" || strings.Trim(want, "0123456789.") != "" {
		return nil, fmt.Errorf("%s: dependencies.@anthropic-ai/sdk is %q, want an exact version such as 0.120.0", pkgJSON, want)
	}
	sdk := filepath.Join(anthropicSDKDir, "node_modules", "@anthropic-ai", "sdk")
	var got struct {
		Version string `json:"version"`
	}
	b, err = os.ReadFile(filepath.Join(sdk, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &got)
	}
	if err != nil {
		return nil, fmt.Errorf("the installed Anthropic SDK: %w", err)
	}
	if got.Version != want {
		return nil, fmt.Errorf("%s holds @anthropic-ai/sdk %s but %s pins %s: delete %s/node_modules and run the test again (npm ci reinstalls it)", sdk, got.Version, pkgJSON, want, anthropicSDKDir)
	}
	var sources []string
	for _, f := range []string{"messages/messages.ts", "shared.ts", "models.ts"} {
		b, err := os.ReadFile(filepath.Join(sdk, "src", "resources", filepath.FromSlash(f)))
		if err != nil {
			return nil, fmt.Errorf("the Anthropic SDK %s: %w", want, err)
		}
		sources = append(sources, string(b))
	}
	return sources, nil
}

var loadSpecs = sync.OnceValues(func() (*specs, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)

	raw, err := os.ReadFile(filepath.Join("testdata", "spec", "openai", "openapi.json"))
	if err != nil {
		return nil, err
	}
	oa, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	nullableToJSONSchema(oa)
	schemas := oa.(map[string]any)["components"].(map[string]any)["schemas"].(map[string]any)
	recursiveToRef(schemas)
	if err := c.AddResource(openaiSpecURL, oa); err != nil {
		return nil, err
	}

	sources, err := anthropicSDKSources()
	if err != nil {
		return nil, err
	}
	ts, err := newTSSchemas(sources...)
	if err != nil {
		return nil, fmt.Errorf("anthropic SDK types: %w", err)
	}
	an, err := ts.Doc(anthropicRoots...)
	if err != nil {
		return nil, fmt.Errorf("anthropic SDK types: %w", err)
	}
	// the errors page's 413 request_too_large (see anthropicErrorTypes)
	defs := an["$defs"].(map[string]any)
	errObj := defs["ErrorObject"].(map[string]any)
	errObj["anyOf"] = append(errObj["anyOf"].([]any), map[string]any{
		"type": "object", "required": []any{"message", "type"},
		"properties": map[string]any{"message": map[string]any{"type": "string"}, "type": map[string]any{"const": "request_too_large"}},
	})
	// round-trip through JSON: the compiler wants the values
	// UnmarshalJSON makes (json.Number, []any, map[string]any)
	b, err := json.Marshal(an)
	if err != nil {
		return nil, err
	}
	anDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if err := c.AddResource(anthropicSpecURL, anDoc); err != nil {
		return nil, err
	}

	s := &specs{compiler: c, compiled: map[string]*jsonschema.Schema{},
		responsesEvents: map[string]string{}, anthropicEvents: map[string]string{}}
	for _, m := range schemas["ResponseStreamEvent"].(map[string]any)["anyOf"].([]any) {
		name := strings.TrimPrefix(m.(map[string]any)["$ref"].(string), "#/components/schemas/")
		if typ, ok := constOf(schemas[name]); ok {
			s.responsesEvents[typ] = name
		}
	}
	for _, m := range defs["RawMessageStreamEvent"].(map[string]any)["anyOf"].([]any) {
		name := strings.TrimPrefix(m.(map[string]any)["$ref"].(string), "#/$defs/")
		if typ, ok := constOf(defs[name]); ok {
			s.anthropicEvents[typ] = name
		}
	}
	return s, nil
})

// constOf reads the one value an object schema's "type" property allows
// (an enum of one, or a const).
func constOf(schema any) (string, bool) {
	m, _ := schema.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	typ, _ := props["type"].(map[string]any)
	if enum, ok := typ["enum"].([]any); ok && len(enum) == 1 {
		s, ok := enum[0].(string)
		return s, ok
	}
	s, ok := typ["const"].(string)
	return s, ok
}

// nullableToJSONSchema rewrites OpenAPI 3.0's "nullable: true", which
// OpenAI's 3.1 document still carries in places (110 of them: the Chat
// Completions stream chunk's finish_reason, logprobs and usage among
// them) and which JSON Schema does not know, into what it means: a
// schema {..., "nullable": true} becomes {"anyOf": [{...}, {"type":
// "null"}]}. Nothing else in the document is changed.
func nullableToJSONSchema(v any) {
	switch v := v.(type) {
	case map[string]any:
		for _, child := range v {
			nullableToJSONSchema(child)
		}
		if v["nullable"] == true {
			inner := map[string]any{}
			for k, child := range v {
				if k != "nullable" {
					inner[k] = child
				}
				delete(v, k)
			}
			v["anyOf"] = []any{inner, map[string]any{"type": "null"}}
		}
	case []any:
		for _, child := range v {
			nullableToJSONSchema(child)
		}
	}
}

// recursiveToRef rewrites JSON Schema 2019-09's recursion keywords, which
// two schemas of OpenAI's document use (CompoundFilter and its beta
// twin: a filter made of filters) and which 2020-12, the dialect of
// OpenAPI 3.1, replaced: in a schema under components/schemas that
// carries "$recursiveAnchor": true, the anchor is dropped and each
// {"$recursiveRef": "#"} becomes {"$ref": "#/components/schemas/<that
// schema>"}, the recursion it means.
func recursiveToRef(schemas map[string]any) {
	var rewrite func(v any, self string)
	rewrite = func(v any, self string) {
		switch v := v.(type) {
		case map[string]any:
			if v["$recursiveRef"] == "#" {
				delete(v, "$recursiveRef")
				v["$ref"] = "#/components/schemas/" + self
			}
			for _, child := range v {
				rewrite(child, self)
			}
		case []any:
			for _, child := range v {
				rewrite(child, self)
			}
		}
	}
	for name, s := range schemas {
		if m, ok := s.(map[string]any); ok && m["$recursiveAnchor"] == true {
			delete(m, "$recursiveAnchor")
			rewrite(m, name)
		}
	}
}

// openai and anthropic return the compiled schema of a name.
func (s *specs) openai(name string) (*jsonschema.Schema, error) {
	return s.compile(openaiSpecURL + "#/components/schemas/" + name)
}

func (s *specs) anthropic(name string) (*jsonschema.Schema, error) {
	return s.compile(anthropicSpecURL + "#/$defs/" + name)
}

func (s *specs) compile(loc string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[loc]; ok {
		return sch, nil
	}
	sch, err := s.compiler.Compile(loc)
	if err != nil {
		return nil, err
	}
	s.compiled[loc] = sch
	return sch, nil
}

// validate checks a JSON text against a schema.
func validate(sch *jsonschema.Schema, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(v)
}

// sseEvent is one server-sent event as the test reads the format: its
// "event:" name (or "") and its "data:" lines joined.
type sseEvent struct {
	name, data string
}

func readEvents(body []byte) ([]sseEvent, error) {
	var out []sseEvent
	text := string(body)
	if !strings.HasSuffix(text, "\n\n") {
		return nil, fmt.Errorf("the stream does not end with a blank line")
	}
	for _, block := range strings.Split(strings.TrimSuffix(text, "\n\n"), "\n\n") {
		var ev sseEvent
		var data []string
		for _, line := range strings.Split(block, "\n") {
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				ev.name = value
			case "data":
				data = append(data, value)
			default:
				return nil, fmt.Errorf("line %q is not an event or data field", line)
			}
		}
		ev.data = strings.Join(data, "\n")
		out = append(out, ev)
	}
	return out, nil
}

// specAnswer is one answer to check: what protocol it speaks, whether it
// is a model listing, and what was sent.
type specAnswer struct {
	protocol serve.Protocol
	models   bool // GET .../models or .../models/{id}
	list     bool // the listing (not one model)
	status   int
	header   http.Header
	body     []byte
}

// anthropicErrorTypes is the error type Anthropic's errors page
// (https://docs.anthropic.com/en/api/errors) gives each status; any
// other 4xx is invalid_request_error ("We may also use this error type
// for other 4XX status codes not listed below"), any other 5xx
// api_error. request_too_large is on that page but not among the SDK's
// error objects (Cloudflare answers it before the API does): loadSpecs
// adds it to ErrorObject, and this table allows it for 413 alone.
var anthropicErrorTypes = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
	403: "permission_error", 404: "not_found_error", 413: "request_too_large",
	429: "rate_limit_error", 500: "api_error", 504: "timeout_error", 529: "overloaded_error",
}

// check returns every way the answer departs from the provider's
// specification: its headers, then its body (each event of a stream)
// against the schema of what it is.
func (s *specs) check(a specAnswer) []string {
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	anth := a.protocol == serve.Messages
	// OpenAI's API reference ("Debugging requests") and Anthropic's
	// errors page ("Request id"): every answer carries its request id.
	idHeader := "X-Request-Id"
	if anth {
		idHeader = "Request-Id"
	}
	if a.header.Get(idHeader) == "" {
		fail("no %s header", idHeader)
	}
	ct := a.header.Get("Content-Type")
	stream := strings.HasPrefix(ct, "text/event-stream")
	if !stream && !strings.HasPrefix(ct, "application/json") {
		fail("Content-Type %q, want application/json or text/event-stream", ct)
		return bad
	}
	if stream && a.status != 200 {
		fail("status %d with an event stream", a.status)
	}
	schema := func(name string) *jsonschema.Schema {
		var sch *jsonschema.Schema
		var err error
		if anth {
			sch, err = s.anthropic(name)
		} else {
			sch, err = s.openai(name)
		}
		if err != nil {
			fail("compile %s: %v", name, err)
		}
		return sch
	}
	body := func(name string, data []byte) {
		if sch := schema(name); sch != nil {
			if err := validate(sch, data); err != nil {
				fail("%s: %v\n%s", name, err, data)
			}
		}
	}
	if a.status >= 400 {
		name := "ErrorResponse"
		body(name, a.body)
		if anth {
			var e struct {
				Error struct{ Type string } `json:"error"`
			}
			json.Unmarshal(a.body, &e)
			want, ok := anthropicErrorTypes[a.status]
			switch {
			case ok:
			case a.status < 500:
				want = "invalid_request_error"
			default:
				want = "api_error"
			}
			if e.Error.Type != want {
				fail("status %d: error type %q, want Anthropic's %q", a.status, e.Error.Type, want)
			}
		}
		return bad
	}
	if a.models {
		switch {
		case anth:
			if !a.list {
				body("ModelInfo", a.body)
				break
			}
			var page struct {
				Data    []json.RawMessage `json:"data"`
				HasMore *bool             `json:"has_more"`
				FirstID json.RawMessage   `json:"first_id"`
				LastID  json.RawMessage   `json:"last_id"`
			}
			if err := json.Unmarshal(a.body, &page); err != nil || page.Data == nil || page.HasMore == nil || page.FirstID == nil || page.LastID == nil {
				fail("model page %s: want data, has_more, first_id and last_id (the SDK's PageResponse)", a.body)
			}
			for _, m := range page.Data {
				body("ModelInfo", m)
			}
		case a.list:
			body("ListModelsResponse", a.body)
		default:
			body("Model", a.body)
		}
		return bad
	}
	if !stream {
		switch a.protocol {
		case serve.OpenAIChat:
			body("CreateChatCompletionResponse", a.body)
		case serve.OpenAIResponses:
			body("Response", a.body)
		case serve.Messages:
			body("Message", a.body)
		}
		return bad
	}
	evs, err := readEvents(a.body)
	if err != nil {
		fail("event stream: %v", err)
		return bad
	}
	for i, ev := range evs {
		where := fmt.Sprintf("event %d", i+1)
		if a.protocol == serve.OpenAIChat {
			if ev.name != "" {
				fail("%s: Chat Completions events have no name, got %q", where, ev.name)
			}
			if i == len(evs)-1 {
				if ev.data != "[DONE]" {
					fail("%s: the stream ends with %q, want data: [DONE]", where, ev.data)
				}
				continue
			}
			body("CreateChatCompletionStreamResponse", []byte(ev.data))
			continue
		}
		var typed struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(ev.data), &typed); err != nil {
			fail("%s: data %q: %v", where, ev.data, err)
			continue
		}
		if ev.name != typed.Type {
			fail("%s: event name %q, data type %q", where, ev.name, typed.Type)
		}
		events := s.responsesEvents
		if anth {
			events = s.anthropicEvents
			if typed.Type == "ping" {
				// the SDKs skip pings (streaming.ts: sse.event === 'ping');
				// Anthropic's streaming page shows them as {"type": "ping"}
				if ev.data != `{"type":"ping"}` {
					fail("%s: ping %s", where, ev.data)
				}
				continue
			}
		}
		name, ok := events[typed.Type]
		if !ok {
			fail("%s: event type %q is none of the spec's stream events", where, typed.Type)
			continue
		}
		body(name, []byte(ev.data))
	}
	return bad
}

// sortedKeys is for stable failure output.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
