// Package llm holds agenteval's implementations of engine.ChatModel.
//
// Today it has one: Scripted, a deterministic model that answers with
// responses listed in advance. Tests, conformance vectors and scenario
// files use it to stand in for a real provider, so a run of the engine is
// reproducible call for call. Models that talk to real providers
// (OpenAI-compatible Chat Completions, Anthropic Messages) will join it
// here, each taking an injected *http.Client so cassettes can sit
// underneath.
//
// # Scripts
//
// A Script lists Responses in order and, optionally, a Repeat response
// answered once they run out. Call n (1-based, counted per model) gets
// Responses[n-1]; after that every call gets Repeat, with each "{n}" in
// its message ID, content (string content, the text of text blocks and
// string blocks), tool call IDs and names, string argument values (at any
// depth) and raised error message replaced by n. A script without Repeat
// never cycles back: the call after the last response fails with an error
// that wraps ErrScriptExhausted. A response with Raise set fails the call
// with that *engine.Error instead of answering (a model that raises, such
// as a provider timeout).
//
// The JSON form, read by ParseScript, is the one conformance vectors and
// scenario files use:
//
//	{
//	  "responses": [
//	    {"id": "ai1", "content": "", "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}],
//	     "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}},
//	    {"raise": {"error": "ConnectionError", "message": "provider down"}},
//	    {"id": "ai3", "content": "It is sunny in Paris."}
//	  ],
//	  "then": {"repeat": {"id": "ai{n}", "content": "", "tool_calls": [{"name": "ping", "args": {}, "id": "call_{n}"}]}}
//	}
//
// A response is an AI message — "id" (string or null), "content" (a
// string, a list of content blocks, or null), "tool_calls" (each with a
// non-empty "name", an "args" object and an "id"; a LangChain "type":
// "tool_call" is accepted) and "usage" (input_tokens, output_tokens and
// optionally total_tokens, which defaults to their sum, plus
// input_token_details and output_token_details) — or {"raise": {"error":
// kind, "message": text}}. Every key is optional except where named;
// unknown keys are errors. ParseScript reports every problem it finds at
// once, each with its JSON path: responses[2].tool_calls[0]: missing
// "name".
//
// # Calls
//
// Scripted is safe for concurrent use: call numbers are handed out under a
// lock in the order calls arrive. Every call is recorded before it is
// answered, failing ones included, with a deep copy of its request, and
// Calls returns the record. A call whose context is already done returns
// the context's error without being recorded and without using up a
// response, as a request that never reached a provider would. Each answer
// is a fresh copy that the caller may keep and change.
package llm
