package serve

import "strings"

// Protocol is one of the wire protocols a Server speaks.
type Protocol int

// The protocols, told apart by the request path's suffix, so a base URL
// may carry any prefix ("/v1", "/v1beta/openai", "/openai/v1").
const (
	// NoProtocol is a path the server does not serve.
	NoProtocol Protocol = iota
	// OpenAIChat is OpenAI Chat Completions: POST .../chat/completions.
	OpenAIChat
	// OpenAIResponses is OpenAI Responses: POST .../responses.
	OpenAIResponses
	// Messages is Anthropic Messages: POST .../messages.
	Messages
	// Gemini is Google's Gemini API: POST
	// .../models/{model}:generateContent and :streamGenerateContent.
	Gemini
)

// String names the protocol as docs and errors do.
func (p Protocol) String() string {
	switch p {
	case OpenAIChat:
		return "chat-completions"
	case OpenAIResponses:
		return "responses"
	case Messages:
		return "messages"
	case Gemini:
		return "gemini"
	}
	return "none"
}

// ProtocolOf returns the protocol a request path asks for: the path,
// without a trailing slash, ends in /chat/completions, /responses or
// /messages, or in /models/{model}:generateContent or
// :streamGenerateContent (Gemini); anything else is NoProtocol.
func ProtocolOf(path string) Protocol {
	path = strings.TrimSuffix(path, "/")
	if _, _, ok := geminiMethod(path); ok {
		return Gemini
	}
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return OpenAIChat
	case strings.HasSuffix(path, "/responses"):
		return OpenAIResponses
	case strings.HasSuffix(path, "/messages"):
		return Messages
	}
	return NoProtocol
}

// guessProtocol picks the error layout for a path the server does not
// serve: Anthropic's when the client sent Anthropic's headers, Google's
// when it sent a Gemini key (x-goog-api-key, or key= in the query).
func guessProtocol(anthropicHeaders, geminiKey bool) Protocol {
	switch {
	case anthropicHeaders:
		return Messages
	case geminiKey:
		return Gemini
	}
	return OpenAIChat
}
