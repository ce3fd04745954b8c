package serve

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/agenteval/agenteval/engine"
)

// Turn is one scripted answer, rendered in the protocol of the request
// it answers. The zero Turn answers with empty text and zero usage.
type Turn struct {
	// Text is the answer's text; "" for none.
	Text string
	// ToolCalls are the tool calls the answer makes, in order.
	ToolCalls []ToolCall
	// Usage is the token count the answer reports.
	Usage Usage
	// Model is the model name the answer reports; "" reports the model
	// the request named.
	Model string
	// ID is the response id; "" means "chatcmpl-<n>" (Chat Completions),
	// "resp_<n>" (Responses) or "msg_<n>" (Messages) for turn n
	// (1-based).
	ID string
	// Error, when set, answers with an error status instead of a message.
	Error *APIError
	// Check, when set, inspects the request before the turn answers it.
	// An error it returns is answered with status 400 and kept as a
	// problem (see Server.Err); the turn is not used up.
	Check func(*Request) error
}

// ToolCall is one tool call of an answer.
type ToolCall struct {
	// ID is the call's id ("call_1", "toolu_1"); "" gives the call a
	// deterministic one, "call_<n>_<i>" or "toolu_<n>_<i>" (see the
	// package doc), since every protocol requires one.
	ID string
	// NoID sends a call whose ID is "" without any id on Chat
	// Completions and Messages, as some OpenAI-compatible servers
	// (Ollama) do: off the providers' specifications, for testing how a
	// client copes. Responses, whose clients cannot do without a call_id,
	// still gets one.
	NoID bool
	// Name is the tool's name.
	Name string
	// Args is the arguments as JSON text, sent as given: the arguments
	// string of Chat Completions and Responses (which need not parse, to
	// test invalid calls) or Anthropic's input object ("" means {}).
	Args string
}

// Usage is the token count of an answer.
type Usage struct {
	// Input and Output count the prompt and completion tokens.
	Input, Output int
	// CacheRead counts prompt tokens read from a cache: OpenAI reports
	// them among Input (prompt_tokens_details.cached_tokens), Anthropic
	// besides it (cache_read_input_tokens). Zero sends no such field.
	CacheRead int
}

// turnFromResponse converts a scripted response of engine/llm (the
// scenario's script: form) into the Turn that answers call n. The
// message's ID, when set, becomes the response id; its text content,
// tool calls (arguments in their key order) and usage become the
// answer's. LangChain's input_tokens count cache reads, as OpenAI's
// prompt_tokens do; Anthropic's input_tokens do not, so for the Messages
// protocol the cache reads are subtracted, and one script gives the same
// usage_metadata through every protocol.
func turnFromMessage(m engine.Message, p Protocol) (Turn, error) {
	t := Turn{ID: m.ID, Text: m.Text()}
	for _, c := range m.ToolCalls {
		args := []byte("{}")
		if c.Args != nil {
			b, err := engine.MarshalValue(c.Args)
			if err != nil {
				return Turn{}, fmt.Errorf("tool call %q: arguments: %w", c.ID, err)
			}
			args = b
		}
		t.ToolCalls = append(t.ToolCalls, ToolCall{ID: c.ID, Name: c.Name, Args: string(args)})
	}
	if u := m.UsageMetadata; u != nil {
		t.Usage = Usage{Input: u.InputTokens, Output: u.OutputTokens}
		if d := u.InputTokenDetails; d != nil {
			if v, ok := d.Get("cache_read"); ok {
				if n, ok := v.(json.Number); ok {
					i, _ := strconv.Atoi(string(n))
					t.Usage.CacheRead = i
				}
			}
		}
		if p == Messages {
			t.Usage.Input = max(0, t.Usage.Input-t.Usage.CacheRead)
		}
	}
	return t, nil
}

// errorForKind answers a scripted "raise" with the status the Python
// SDKs map to the exception named kind (engine/llm's pyErrorKind read
// backwards); a kind without a status (ConnectionError, ValueError, ...)
// is a 500.
func errorForKind(kind, message string) *APIError {
	status := map[string]int{
		"BadRequestError":          400,
		"AuthenticationError":      401,
		"PermissionDeniedError":    403,
		"NotFoundError":            404,
		"ConflictError":            409,
		"UnprocessableEntityError": 422,
		"RateLimitError":           429,
		"InternalServerError":      500,
		"OverloadedError":          529,
	}[kind]
	if status == 0 {
		status = 500
	}
	if message == "" {
		message = kind
	}
	return &APIError{Status: status, Message: message}
}
