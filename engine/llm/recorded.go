package llm

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// ParseOpenAIStream assembles a recorded Chat Completions event stream
// into the AI message Generate would have returned. provider goes into
// response_metadata.
func ParseOpenAIStream(r io.Reader, provider string) (engine.Message, error) {
	return parseOpenAIStream(r, provider, emitter{})
}

// ParseAnthropicStream assembles a recorded Messages event stream into
// the AI message Generate would have returned.
func ParseAnthropicStream(r io.Reader) (engine.Message, error) {
	return parseAnthropicStream(r, emitter{})
}

// IsEventStream reports whether a response body is server-sent events
// rather than JSON.
func IsEventStream(body []byte) bool {
	t := bytes.TrimLeft(body, " \t\r\n")
	return bytes.HasPrefix(t, []byte("data:")) || bytes.HasPrefix(t, []byte("event:")) || bytes.HasPrefix(t, []byte(":"))
}

// ParseRecordedResponse reads a recorded response of either API into the
// AI message a provider would have returned, for usage accounting and
// reports over cassettes. The API is chosen by the request path (ending
// in /messages: Anthropic; anything else: Chat Completions) and the body
// decides between a stream and a single JSON answer.
func ParseRecordedResponse(path string, body []byte) (engine.Message, error) {
	anth := strings.HasSuffix(strings.TrimSuffix(path, "/"), "/messages")
	switch {
	case len(bytes.TrimSpace(body)) == 0:
		return engine.Message{}, errors.New("empty response body")
	case anth && IsEventStream(body):
		return ParseAnthropicStream(bytes.NewReader(body))
	case anth:
		return ParseAnthropicResponse(body)
	case IsEventStream(body):
		return ParseOpenAIStream(bytes.NewReader(body), ProviderOpenAI)
	}
	return ParseOpenAIResponse(body, ProviderOpenAI)
}
