package serve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"cloud.google.com/go/ai/generativelanguage/apiv1beta/generativelanguagepb"
	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/serve"
)

// Google's published schema of the Gemini API is the protos of
// google/ai/generativelanguage/v1beta (github.com/googleapis/googleapis),
// whose JSON mapping is the REST API's. The test validates against
// Google's own Go code generated from them, module
// cloud.google.com/go/ai v0.13.0 (package generativelanguagepb, generated
// by protoc-gen-go v1.35.2 from those protos): protojson reads a body
// strictly — a field the schema does not have, a value of the wrong
// type, an enum name it does not list are errors — so every field the
// server writes must be one of Google's, with Google's type.
//
// Google's error layout, {"error": {"code", "message", "status"}}, is
// checked against google/rpc/code.proto (module
// google.golang.org/genproto/googleapis/rpc): status is a Code's name,
// and code the HTTP status code.proto maps that Code to.

// geminiHTTP is the HTTP mapping of each google.rpc.Code, as the comment
// of each value in google/rpc/code.proto states it ("HTTP Mapping: 400
// Bad Request").
var geminiHTTP = map[code.Code]int{
	code.Code_CANCELLED: 499, code.Code_UNKNOWN: 500, code.Code_INVALID_ARGUMENT: 400,
	code.Code_DEADLINE_EXCEEDED: 504, code.Code_NOT_FOUND: 404, code.Code_ALREADY_EXISTS: 409,
	code.Code_PERMISSION_DENIED: 403, code.Code_UNAUTHENTICATED: 401, code.Code_RESOURCE_EXHAUSTED: 429,
	code.Code_FAILED_PRECONDITION: 400, code.Code_ABORTED: 409, code.Code_OUT_OF_RANGE: 400,
	code.Code_UNIMPLEMENTED: 501, code.Code_INTERNAL: 500, code.Code_UNAVAILABLE: 503, code.Code_DATA_LOSS: 500,
}

// validateGemini checks one JSON document the server wrote against the
// schema of what it answers: a GenerateContentResponse, a Model, a
// ListModelsResponse, or an error.
func validateGemini(kind string, doc []byte) error {
	if kind == "error" {
		var e struct {
			Error *struct {
				Code    *int    `json:"code"`
				Message *string `json:"message"`
				Status  *string `json:"status"`
			} `json:"error"`
		}
		d := json.NewDecoder(bytes.NewReader(doc))
		d.DisallowUnknownFields()
		if err := d.Decode(&e); err != nil {
			return fmt.Errorf("error body: %w", err)
		}
		if e.Error == nil || e.Error.Code == nil || e.Error.Message == nil || e.Error.Status == nil {
			return fmt.Errorf("error body: want error.code, error.message and error.status")
		}
		c, ok := code.Code_value[*e.Error.Status]
		if !ok {
			return fmt.Errorf("error body: status %q is no google.rpc.Code", *e.Error.Status)
		}
		// 413 and 422 have no Code of their own: Google answers them
		// INVALID_ARGUMENT, and the server keeps the status it was given
		if want := geminiHTTP[code.Code(c)]; want != *e.Error.Code && !(c == int32(code.Code_INVALID_ARGUMENT) && (*e.Error.Code == 413 || *e.Error.Code == 422)) &&
			!(c == int32(code.Code_UNAVAILABLE) && *e.Error.Code == 529) {
			return fmt.Errorf("error body: status %s is HTTP %d in code.proto, not %d", *e.Error.Status, want, *e.Error.Code)
		}
		return nil
	}
	var m proto.Message
	switch kind {
	case "response":
		m = &generativelanguagepb.GenerateContentResponse{}
	case "model":
		m = &generativelanguagepb.Model{}
	case "models":
		m = &generativelanguagepb.ListModelsResponse{}
	default:
		return fmt.Errorf("no schema for %q", kind)
	}
	if err := (protojson.UnmarshalOptions{}).Unmarshal(doc, m); err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	return nil
}

// geminiDocs splits a body the server sent into the JSON documents a
// client reads: the body, each element of a JSON array stream, or each
// event's data of an SSE stream.
func geminiDocs(status int, ct string, body []byte) (kind string, docs [][]byte) {
	kind = "response"
	if status != 200 {
		kind = "error"
	}
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		for _, ev := range bytes.Split(body, []byte("\n\n")) {
			if data, ok := bytes.CutPrefix(ev, []byte("data: ")); ok {
				docs = append(docs, data)
			}
		}
	case bytes.HasPrefix(body, []byte("[")):
		var list []json.RawMessage
		json.Unmarshal(body, &list)
		for _, d := range list {
			docs = append(docs, d)
		}
	default:
		docs = [][]byte{body}
	}
	return kind, docs
}

// geminiCorpus produces every kind of body the Gemini writer sends:
// every script shape (parallel calls with ids, a call without one, text
// beside a call, text with a cache read, an empty answer, a raised
// error) as JSON, as SSE and as a JSON array stream; every error of the
// checks; the model list and lookup.
func geminiCorpus(t *testing.T) (out []struct {
	what, kind string
	doc        []byte
}) {
	t.Helper()
	add := func(what string, resp *http.Response) {
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		kind, docs := geminiDocs(resp.StatusCode, resp.Header.Get("Content-Type"), b)
		if strings.Contains(what, "GET") && kind == "response" {
			kind = "model"
			if strings.HasSuffix(what, "/models") {
				kind = "models"
			}
		}
		if len(docs) == 0 {
			t.Fatalf("%s: no document in %q", what, b)
		}
		for i, d := range docs {
			out = append(out, struct {
				what, kind string
				doc        []byte
			}{fmt.Sprintf("%s [%d]", what, i), kind, d})
		}
	}
	for _, method := range []string{":generateContent", ":streamGenerateContent?alt=sse", ":streamGenerateContent"} {
		script := geminiScript(t)
		_, ts := start(t, serve.Options{Source: serve.NewScript(script)}, false)
		for n := range len(script.Responses) {
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1beta/models/gemini-2.5-flash"+method, strings.NewReader(geminiHello))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			add(fmt.Sprintf("%s answer %d", method, n+1), resp)
		}
	}
	_, ts := start(t, serve.Options{Source: serve.NewScript(llm.Script{}), Key: testKey, Models: []string{"gemini-2.5-flash"}}, true)
	for _, r := range []struct{ what, method, path, key, body string }{
		{"no route", "POST", "/v1beta/models/gemini-2.5-flash:countTokens", testKey, geminiHello},
		{"no key", "POST", "/v1beta/models/gemini-2.5-flash:generateContent", "", geminiHello},
		{"wrong key", "POST", "/v1beta/models/gemini-2.5-flash:generateContent", "nope", geminiHello},
		{"not JSON", "POST", "/v1beta/models/gemini-2.5-flash:generateContent", testKey, "{"},
		{"no contents", "POST", "/v1beta/models/gemini-2.5-flash:generateContent", testKey, "{}"},
		{"unknown model", "POST", "/v1beta/models/other:generateContent", testKey, geminiHello},
		{"script ran out", "POST", "/v1beta/models/gemini-2.5-flash:generateContent", testKey, geminiHello},
		{"GET /v1beta/models", "GET", "/v1beta/models", testKey, ""},
		{"GET /v1beta/models/gemini-2.5-flash", "GET", "/v1beta/models/gemini-2.5-flash", testKey, ""},
		{"GET unknown model", "GET", "/v1beta/models/other", testKey, ""},
	} {
		req, _ := http.NewRequest(r.method, ts.URL+r.path, strings.NewReader(r.body))
		if r.key != "" {
			req.Header.Set("X-Goog-Api-Key", r.key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		add(r.what, resp)
	}
	return out
}

// TestGeminiSpec validates every body and event the Gemini writer
// produces against Google's schema (0 violations), and shows that the
// validation catches a fault planted in a produced body.
func TestGeminiSpec(t *testing.T) {
	t.Parallel()
	corpus := geminiCorpus(t)
	kinds := map[string]int{}
	for _, c := range corpus {
		kinds[c.kind]++
		if err := validateGemini(c.kind, c.doc); err != nil {
			t.Errorf("%s: %v\n%s", c.what, err, c.doc)
		}
	}
	t.Logf("%d documents valid: %v", len(corpus), kinds)
	for _, k := range []string{"response", "error", "model", "models"} {
		if kinds[k] == 0 {
			t.Errorf("the corpus has no %s document", k)
		}
	}

	// faults planted in produced bodies, each of a kind a writer could
	// make, must fail the validation
	faults := []struct{ reason, kind, old, new string }{
		{"a finish reason Gemini does not have", "response", `"finishReason":"STOP"`, `"finishReason":"TOOL_CALLS"`},
		{"a field name of another provider", "response", `"functionCall"`, `"tool_call"`},
		{"a count as a string", "response", `"totalTokenCount":110`, `"totalTokenCount":"a lot"`},
		{"arguments as JSON text, not an object", "response", `"args":{"city":"Paris"}`, `"args":"{\"city\":\"Paris\"}"`},
		{"a role that is an object", "response", `"role":"model"`, `"role":{"name":"model"}`},
		{"a status that is no google.rpc.Code", "error", `"status":"NOT_FOUND"`, `"status":"not_found_error"`},
		{"a code that does not match the status", "error", `"code":404`, `"code":400`},
		{"OpenAI's error layout", "error", `"status":"NOT_FOUND"`, `"type":"invalid_request_error"`},
		{"a model list under OpenAI's key", "models", `{"models":`, `{"data":`},
	}
	for _, f := range faults {
		planted := false
		for _, c := range corpus {
			if c.kind != f.kind || !bytes.Contains(c.doc, []byte(f.old)) {
				continue
			}
			planted = true
			bad := bytes.Replace(c.doc, []byte(f.old), []byte(f.new), 1)
			if err := validateGemini(c.kind, bad); err == nil {
				t.Errorf("%s (%s): the validation passes a body with the fault:\n%s", f.reason, c.what, bad)
			}
			break
		}
		if !planted {
			t.Errorf("%s: no %s document holds %s to plant the fault in", f.reason, f.kind, f.old)
		}
	}
}
