package serve

import (
	"fmt"
	"net/http"
)

// APIError is an error answer in a provider's own layout. Chat
// Completions and Responses write it as OpenAI does,
//
//	{"error": {"message": ..., "type": ..., "param": ..., "code": ...}}
//
// and Messages as Anthropic does,
//
//	{"type": "error", "error": {"type": ..., "message": ...}}
//
// with Status as the HTTP status. An empty Type is filled in from the
// status with the type the provider uses for it.
type APIError struct {
	// Status is the HTTP status (400, 401, 404, 429, 500, 529, ...).
	Status int
	// Type is the error's type ("invalid_request_error",
	// "rate_limit_error", "overloaded_error"); "" derives it from Status.
	Type string
	// Code is OpenAI's error code ("rate_limit_exceeded",
	// "model_not_found"); Anthropic has none.
	Code string
	// Param is OpenAI's param, the request field at fault ("messages",
	// "input"); "" sends null.
	Param string
	// Message is the error's message.
	Message string

	// cause, when set, is what the server's problem log says instead of
	// Message (the provider's wording hides the parser's diagnosis).
	cause error
}

// Error returns "status type: message".
func (e *APIError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.typeFor(OpenAIChat), e.Message)
}

// typeFor returns the error type, derived from the status for p when
// none is set. The types are those of the API references: OpenAI's
// error codes guide and Anthropic's errors page (and the types their
// SDKs' error classes name).
func (e *APIError) typeFor(p Protocol) string {
	if e.Type != "" {
		return e.Type
	}
	if p == Messages {
		switch e.Status {
		case 400:
			return "invalid_request_error"
		case 401:
			return "authentication_error"
		case 402:
			return "billing_error"
		case 403:
			return "permission_error"
		case 404:
			return "not_found_error"
		case 413:
			return "request_too_large"
		case 429:
			return "rate_limit_error"
		case 504:
			return "timeout_error"
		case 529:
			return "overloaded_error"
		}
		if e.Status < 500 {
			// "We may also use this error type for other 4XX status
			// codes" (the errors page)
			return "invalid_request_error"
		}
		return "api_error"
	}
	switch {
	case e.Status == 401:
		return "invalid_request_error"
	case e.Status == 429:
		return "requests"
	case e.Status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// oaError and anError are the two layouts; their field order is the
// providers'.
type oaError struct {
	Error oaErrorBody `json:"error"`
}

type oaErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

type anError struct {
	Type      string      `json:"type"`
	Error     anErrorBody `json:"error"`
	RequestID *string     `json:"request_id"`
}

type anErrorBody struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// writeError answers with e in the layout of protocol p. Anthropic's
// carries the answer's request id (the Request-Id header) in its
// request_id.
func writeError(w http.ResponseWriter, p Protocol, e *APIError) {
	if p == Gemini {
		writeGeminiError(w, e)
		return
	}
	if p == Messages {
		var id *string
		if v := w.Header().Get(anthropicRequestID); v != "" {
			id = &v
		}
		writeJSON(w, e.Status, anError{Type: "error", Error: anErrorBody{Type: e.typeFor(p), Message: e.Message}, RequestID: id})
		return
	}
	body := oaErrorBody{Message: e.Message, Type: e.typeFor(p)}
	if e.Param != "" {
		body.Param = &e.Param
	}
	if e.Code != "" {
		body.Code = &e.Code
	}
	writeJSON(w, e.Status, oaError{Error: body})
}

// The errors a server answers bad client input with, worded as the
// providers word them.

// errMalformed is a body that is not JSON. OpenAI answers 400 with "We
// could not parse the JSON body of your request."; Anthropic answers 400
// invalid_request_error.
func errMalformed(p Protocol, err error) *APIError {
	if p == Messages {
		return &APIError{Status: 400, Message: "There was an error parsing the body: " + err.Error(), cause: err}
	}
	return &APIError{Status: 400, cause: err, Message: "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"}
}

// errMissing is a required field that is absent or of the wrong type.
func errMissing(p Protocol, field, what string) *APIError {
	if p == Gemini {
		return geminiError(400, fmt.Sprintf("* GenerateContentRequest.%s: %s is not specified\n", field, field), nil)
	}
	if p == Messages {
		return &APIError{Status: 400, Message: field + ": Field required"}
	}
	return &APIError{Status: 400, Param: field, Message: fmt.Sprintf("Missing required parameter: '%s'. %s", field, what)}
}

// errUnknownModel is a model the server does not serve: OpenAI's 404
// model_not_found, Anthropic's 404 not_found_error "model: <name>".
func errUnknownModel(p Protocol, model string) *APIError {
	if p == Gemini {
		return geminiErrUnknownModel(model)
	}
	if p == Messages {
		return &APIError{Status: 404, Message: "model: " + model}
	}
	return &APIError{Status: 404, Code: "model_not_found", Message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model)}
}

// errUnknownCall is a tool result whose call id no tool call carries.
func errUnknownCall(p Protocol, at, id string) *APIError {
	switch p {
	case Gemini:
		return geminiErrUnknownCall(at, id)
	case Messages:
		return &APIError{Status: 400, Message: fmt.Sprintf("%s: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", at, id)}
	case OpenAIResponses:
		return &APIError{Status: 400, Param: "input", Message: fmt.Sprintf("No tool call found for function call output with call_id %s.", id)}
	}
	return &APIError{Status: 400, Param: at, Message: fmt.Sprintf("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (tool_call_id %s)", id)}
}

// errUnauthorized is a missing or wrong key.
func errUnauthorized(p Protocol) *APIError {
	if p == Messages {
		return &APIError{Status: 401, Message: "invalid x-api-key"}
	}
	return &APIError{Status: 401, Code: "invalid_api_key", Message: "Incorrect API key provided."}
}

// errNoRoute is a path the server does not serve.
func errNoRoute(p Protocol, method, path string) *APIError {
	if p == Gemini {
		return geminiError(404, "Method not found.", nil)
	}
	if p == Messages {
		return &APIError{Status: 404, Message: "Not Found"}
	}
	return &APIError{Status: 404, Message: fmt.Sprintf("Invalid URL (%s %s)", method, path)}
}
