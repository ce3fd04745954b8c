package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

// Gemini's generateContent and streamGenerateContent (the Gemini
// Developer API, generativelanguage v1beta), as the REST reference and
// the protos of google/ai/generativelanguage/v1beta define them: the
// JSON names are the protos' lowerCamelCase ones, and the server reads
// the protos' snake_case names too, as Google's JSON parser does.

// geminiMethod returns the method a Gemini path asks for — the part
// after the last colon of ".../models/{model}:generateContent" — and the
// model; ok is false for any other path.
func geminiMethod(path string) (method, model string, ok bool) {
	i := strings.LastIndexByte(path, ':')
	j := strings.LastIndex(path, "/models/")
	if i < 0 || j < 0 || i < j {
		return "", "", false
	}
	method, model = path[i+1:], path[j+len("/models/"):i]
	if model == "" || strings.Contains(model, "/") {
		return "", "", false
	}
	switch method {
	case "generateContent", "streamGenerateContent":
		return method, model, true
	}
	return "", "", false
}

// gmPart is a part of a Content, as far as the server reads or writes
// it. FunctionCall2 and FunctionResponse2 are the snake_case spellings a
// request may use.
type gmPart struct {
	Text              *string             `json:"text,omitempty"`
	FunctionCall      *gmFunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse  *gmFunctionResponse `json:"functionResponse,omitempty"`
	FunctionCall2     *gmFunctionCall     `json:"function_call,omitempty"`
	FunctionResponse2 *gmFunctionResponse `json:"function_response,omitempty"`
}

// gmFunctionCall is a FunctionCall part: the proto's field order (id,
// name, args).
type gmFunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type gmFunctionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type gmContent struct {
	Role  string   `json:"role,omitempty"`
	Parts []gmPart `json:"parts"`
}

// gmRequest is a GenerateContentRequest, as far as the server reads it.
type gmRequest struct {
	Contents           []json.RawMessage `json:"contents"`
	SystemInstruction  *gmContent        `json:"systemInstruction"`
	SystemInstruction2 *gmContent        `json:"system_instruction"`
}

type gmCandidate struct {
	Content      gmContent `json:"content"`
	FinishReason string    `json:"finishReason,omitempty"`
	Index        int       `json:"index"`
}

type gmUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount,omitempty"`
	TotalTokenCount         int `json:"totalTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount,omitempty"`
}

// gmResponse is a GenerateContentResponse, or one chunk of a stream.
type gmResponse struct {
	Candidates    []gmCandidate `json:"candidates"`
	UsageMetadata *gmUsage      `json:"usageMetadata,omitempty"`
	ModelVersion  string        `json:"modelVersion"`
	ResponseID    string        `json:"responseId"`
}

// parseGemini reads a generateContent request: the model from the path,
// the stream from the method (and alt=sse), the conversation from
// systemInstruction and contents.
//
// Tool results are paired with calls by id when the functionResponse
// carries one; a functionResponse without an id answers the first call
// of the same name, not yet answered, in the model content before it (by
// name and order, as Gemini's older models without call ids expect).
// A call without an id is named "<name>#<k>" after its content index k,
// so that its answer, paired by name and order, carries the same id.
func (r *Request) parseGemini() *APIError {
	method, model, _ := geminiMethod(r.Path)
	r.Model = model
	r.Stream = method == "streamGenerateContent"
	if r.Stream {
		q, _ := url.ParseQuery(r.Query)
		r.SSE = q.Get("alt") == "sse"
	}
	var body gmRequest
	d := json.NewDecoder(bytes.NewReader(r.Body))
	if err := d.Decode(&body); err != nil || len(bytes.TrimSpace(r.Body)) == 0 || bytes.TrimSpace(r.Body)[0] != '{' {
		if err == nil {
			err = fmt.Errorf("the body is not a JSON object")
		}
		if !isTypeError(err) {
			return geminiError(400, "Invalid JSON payload received. "+err.Error(), err)
		}
		return geminiError(400, "Invalid JSON payload received. Expected an object.", err)
	}
	if body.Contents == nil {
		return geminiError(400, "* GenerateContentRequest.contents: contents is not specified\n", nil)
	}
	c := &conversation{}
	sys := body.SystemInstruction
	if sys == nil {
		sys = body.SystemInstruction2
	}
	if sys != nil {
		text := ""
		for _, p := range sys.Parts {
			if p.Text != nil {
				text += *p.Text
			}
		}
		c.add(engine.SystemMessage(text), "system_instruction")
	}
	// open are the calls of the last model content not yet answered, in
	// order, for the functionResponses without an id
	var open []engine.ToolCall
	for i, raw := range body.Contents {
		at := fmt.Sprintf("contents[%d]", i)
		var content gmContent
		if err := json.Unmarshal(raw, &content); err != nil || raw[0] != '{' {
			return geminiError(400, fmt.Sprintf("Invalid JSON payload received. Unknown name or wrong type at %q: expected a Content object.", at), nil)
		}
		switch content.Role {
		case "", "user", "function":
			var text []string
			for j, p := range content.Parts {
				fr := p.FunctionResponse
				if fr == nil {
					fr = p.FunctionResponse2
				}
				if fr == nil {
					if p.Text != nil {
						text = append(text, *p.Text)
					}
					continue
				}
				id := fr.ID
				if id == "" {
					id = fmt.Sprintf("%s#unpaired%d.%d", fr.Name, i, j)
					for k, call := range open {
						if call.Name == fr.Name {
							id = call.ID
							open = append(open[:k:k], open[k+1:]...)
							break
						}
					}
				}
				content, status := geminiResult(fr.Response)
				c.add(engine.Message{Type: engine.TypeTool, Name: fr.Name, Content: content, ToolCallID: id, Status: status}, fmt.Sprintf("%s.parts[%d]", at, j))
			}
			if len(text) > 0 {
				c.add(engine.HumanMessage(strings.Join(text, "")), at)
			}
		case "model":
			ai := engine.Message{Type: engine.TypeAI}
			text := ""
			open = open[:0]
			for j, p := range content.Parts {
				fc := p.FunctionCall
				if fc == nil {
					fc = p.FunctionCall2
				}
				if fc == nil {
					if p.Text != nil {
						text += *p.Text
					}
					continue
				}
				id := fc.ID
				if id == "" {
					id = fmt.Sprintf("%s#%d.%d", fc.Name, i, j)
				}
				call := toolCall(id, fc.Name, fc.Args)
				ai.ToolCalls = append(ai.ToolCalls, call)
				if fc.ID == "" {
					open = append(open, call)
				}
			}
			ai.Content = engine.Text(text)
			c.add(ai, at)
		default:
			return geminiError(400, "Please use a valid role: user, model.", nil)
		}
	}
	r.Messages, r.at = c.msgs, c.at
	return nil
}

// geminiResult reads a functionResponse's response object into a tool
// message's content: a response holding one string (ADK's {"result":
// ...}, LangChain's {"output": ...}) is that string, any other its JSON
// text; a response whose one key is "error" is an error result.
func geminiResult(raw json.RawMessage) (engine.Content, string) {
	var one map[string]json.RawMessage
	if json.Unmarshal(raw, &one) == nil && len(one) == 1 {
		for k, v := range one {
			var s string
			if json.Unmarshal(v, &s) == nil {
				if k == "error" {
					return engine.Text(s), engine.StatusError
				}
				return engine.Text(s), engine.StatusSuccess
			}
		}
	}
	return engine.Text(string(raw)), engine.StatusSuccess
}

// answerGemini writes t as a GenerateContentResponse, or, for
// streamGenerateContent, as its chunks: with alt=sse each a "data:"
// event, else one JSON array. The chunks are Gemini's: the text in two
// pieces, each a chunk of its own, then one chunk with every function
// call whole (Gemini does not stream arguments), the last chunk with
// finishReason STOP (Gemini's reason for function calls too) and the
// usage. Every chunk carries modelVersion and responseId.
func answerGemini(w http.ResponseWriter, t Turn, model, id string, n int, req *Request) {
	usage := &gmUsage{PromptTokenCount: t.Usage.Input, CandidatesTokenCount: t.Usage.Output,
		TotalTokenCount: t.Usage.Input + t.Usage.Output, CachedContentTokenCount: t.Usage.CacheRead}
	var calls []gmPart
	for _, c := range t.ToolCalls {
		// the server gave every call an id (withCallIDs), but a Turn's
		// call marked NoID, sent without one as older Gemini models do
		calls = append(calls, gmPart{FunctionCall: &gmFunctionCall{ID: c.ID, Name: c.Name, Args: input(c.Args)}})
	}
	chunk := func(parts []gmPart, last bool) gmResponse {
		cand := gmCandidate{Content: gmContent{Role: "model", Parts: parts}}
		r := gmResponse{Candidates: []gmCandidate{cand}, ModelVersion: model, ResponseID: id}
		if last {
			r.Candidates[0].FinishReason = "STOP"
			r.UsageMetadata = usage
		}
		return r
	}
	if !req.Stream {
		var parts []gmPart
		if t.Text != "" || len(calls) == 0 {
			text := t.Text
			parts = append(parts, gmPart{Text: &text})
		}
		writeJSON(w, http.StatusOK, chunk(append(parts, calls...), true))
		return
	}
	var chunks []gmResponse
	if t.Text != "" || len(calls) == 0 {
		pieces := halves(t.Text)
		for i, p := range pieces {
			chunks = append(chunks, chunk([]gmPart{{Text: &p}}, i == len(pieces)-1 && len(calls) == 0))
		}
	}
	if len(calls) > 0 {
		chunks = append(chunks, chunk(calls, true))
	}
	if !req.SSE {
		writeJSON(w, http.StatusOK, chunks)
		return
	}
	evs := make([]event, len(chunks))
	for i, c := range chunks {
		evs[i] = event{data: c}
	}
	writeEvents(w, evs)
}

// Google's error layout: {"error": {"code", "message", "status"}}, the
// status the name of the google.rpc.Code its HTTP status stands for
// (google/rpc/code.proto gives each code's HTTP mapping).

type gmError struct {
	Error gmErrorBody `json:"error"`
}

type gmErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

// geminiStatus names the google.rpc.Code for an HTTP status.
func geminiStatus(status int) string {
	switch status {
	case 400, 413, 422:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 409:
		return "ABORTED"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case 501:
		return "UNIMPLEMENTED"
	case 503, 529:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	case 500:
		return "INTERNAL"
	}
	return "UNKNOWN"
}

func geminiError(status int, message string, cause error) *APIError {
	return &APIError{Status: status, Message: message, cause: cause}
}

// writeGeminiError answers with e in Google's layout; e.Type, when set,
// is the status name.
func writeGeminiError(w http.ResponseWriter, e *APIError) {
	status := e.Type
	if status == "" {
		status = geminiStatus(e.Status)
	}
	writeJSON(w, e.Status, gmError{Error: gmErrorBody{Code: e.Status, Message: e.Message, Status: status}})
}

// The errors a server answers bad Gemini input with, worded as the
// Gemini API words them.

func geminiErrUnknownModel(model string) *APIError {
	return geminiError(404, fmt.Sprintf("models/%s is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.", model), nil)
}

func geminiErrUnknownCall(at, id string) *APIError {
	return geminiError(400, fmt.Sprintf("%s: the function response %q answers no function call of the model content before it. Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.", at, id), nil)
}

// geminiErrUnauthorized: no key is 403, a wrong one 400, as Google
// answers them.
func geminiErrUnauthorized(h http.Header, query string) *APIError {
	if geminiKey(h, query) == "" {
		return geminiError(403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.", nil)
	}
	return geminiError(400, "API key not valid. Please pass a valid API key.", nil)
}

// geminiKey is the API key a Gemini request carries: the x-goog-api-key
// header, else the key query parameter.
func geminiKey(h http.Header, query string) string {
	if k := h.Get("X-Goog-Api-Key"); k != "" {
		return k
	}
	q, _ := url.ParseQuery(query)
	return q.Get("key")
}

// geminiCallIDs reads the function call ids of a Gemini answer (a
// response, a JSON array of chunks, or an SSE stream of them); a call
// without an id is named as parseGemini names it in a later request
// ("<name>#..." cannot be known here, so it has none).
func geminiCallIDs(body []byte) []string {
	var ids []string
	for _, r := range geminiChunks(body) {
		for _, c := range r.Candidates {
			for _, p := range c.Content.Parts {
				if p.FunctionCall != nil && p.FunctionCall.ID != "" {
					ids = append(ids, p.FunctionCall.ID)
				}
			}
		}
	}
	return ids
}

// geminiChunks reads a Gemini answer into its responses: one for a
// GenerateContentResponse, one per chunk for a stream.
func geminiChunks(body []byte) []gmResponse {
	body = bytes.TrimSpace(body)
	if llm.IsEventStream(body) {
		var out []gmResponse
		for _, line := range bytes.Split(body, []byte("\n")) {
			data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
			if !ok {
				continue
			}
			var r gmResponse
			if json.Unmarshal(bytes.TrimSpace(data), &r) == nil {
				out = append(out, r)
			}
		}
		return out
	}
	if len(body) > 0 && body[0] == '[' {
		var out []gmResponse
		json.Unmarshal(body, &out)
		return out
	}
	var r gmResponse
	if json.Unmarshal(body, &r) != nil {
		return nil
	}
	return []gmResponse{r}
}

// parseGeminiAnswer reads a Gemini answer into the AI message an SDK
// would assemble: the text and function calls of every chunk's first
// candidate, in order, the last usage, the response id and model.
func parseGeminiAnswer(body []byte) (engine.Message, error) {
	chunks := geminiChunks(body)
	if len(chunks) == 0 {
		return engine.Message{}, fmt.Errorf("gemini answer: no GenerateContentResponse in the body")
	}
	m := engine.Message{Type: engine.TypeAI}
	text := ""
	model := ""
	for _, r := range chunks {
		if m.ID == "" {
			m.ID = r.ResponseID
		}
		if r.ModelVersion != "" {
			model = r.ModelVersion
		}
		if u := r.UsageMetadata; u != nil {
			m.UsageMetadata = &engine.Usage{InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount, TotalTokens: u.TotalTokenCount}
		}
		if len(r.Candidates) == 0 {
			continue
		}
		for _, p := range r.Candidates[0].Content.Parts {
			switch {
			case p.FunctionCall != nil:
				fc := p.FunctionCall
				args := string(fc.Args)
				if args == "" || args == "null" {
					args = "{}"
				}
				parsed, err := llm.ParseToolArgs(fc.Name, args)
				if err != nil {
					m.InvalidToolCalls = append(m.InvalidToolCalls, engine.InvalidToolCall{ID: fc.ID, Name: fc.Name, Args: args, Error: err.Error()})
					continue
				}
				m.ToolCalls = append(m.ToolCalls, engine.ToolCall{ID: fc.ID, Name: fc.Name, Args: parsed})
			case p.Text != nil:
				text += *p.Text
			}
		}
	}
	m.Content = engine.Text(text)
	if model != "" {
		m.ResponseMetadata = engine.NewObject("model_name", model)
	}
	return m, nil
}
