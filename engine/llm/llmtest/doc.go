// Package llmtest provides fake model provider servers for tests, in the
// spirit of net/http/httptest: an OpenAI Chat Completions server
// (NewOpenAI) and an Anthropic Messages server (NewAnthropic) that answer
// a scripted sequence of turns.
//
// A Server is an http.Handler. Serve it with httptest.NewServer for a
// random port, or with Listen on a fixed address when the URL is written
// down somewhere (a scenario's base_url, a recorded cassette):
//
//	srv := llmtest.NewOpenAI("sk-test-key",
//		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "get_weather", Args: `{"city": "Paris"}`}},
//			Usage: llmtest.Usage{Input: 50, Output: 20}},
//		llmtest.Turn{Text: "It is sunny in Paris.", Usage: llmtest.Usage{Input: 90, Output: 9}},
//	)
//	ts := httptest.NewServer(srv)
//	defer ts.Close()
//	model, _ := llm.New("openai:gpt-4.1-mini", llm.Options{APIKey: "sk-test-key", BaseURL: ts.URL + "/v1"})
//
// # What a server does with a request
//
// Request n (1-based, counted in the order requests arrive) is answered
// with Turn n of the script, after these checks, in order; the first that
// fails is answered with the provider's error layout and status, and the
// request does not use up a turn:
//
//   - the path: OpenAI serves any path ending in /chat/completions (so the
//     base URL may carry a prefix such as /v1), Anthropic serves
//     /v1/messages; anything else is 404;
//   - the key, unless the server's key is empty: OpenAI wants
//     "Authorization: Bearer <key>", Anthropic "X-Api-Key: <key>" and an
//     "Anthropic-Version" header; a wrong or missing key is 401;
//   - the body must be a JSON object with a "model" string and a
//     "messages" list (400 otherwise);
//   - the script must have a turn left (500 otherwise);
//   - the turn's Check, if any, must accept the request (400 otherwise).
//
// Every request that reached the body check is kept, failing ones too, and
// Requests returns them; every failed check is also kept as a problem that
// Err reports, so a test can assert that the client behaved
// (Err() == nil) and that the script was used up (Remaining() == 0).
//
// # Answers
//
// A request whose body has "stream": true is answered with server-sent
// events, otherwise with one JSON body; the same Turn serves both, so a
// test can compare streamed and unstreamed runs. Streams split text and
// tool arguments into two pieces, as real servers split them into many.
//
// OpenAI answers are chat.completion objects: the text as the message's
// content (null when the turn has tool calls and no text), the tool calls
// with their arguments as the JSON text given, finish_reason "tool_calls"
// or "stop", and usage (prompt_tokens, completion_tokens, total_tokens,
// prompt_tokens_details.cached_tokens). A stream sends the role and
// content or tool-call deltas, the finish chunk, a usage-only chunk with
// no choices, then "data: [DONE]".
//
// Anthropic answers are message objects: a text block when the turn has
// text, then one tool_use block per tool call (its input is the arguments
// JSON, which must be an object), stop_reason "tool_use" or "end_turn",
// and usage (input_tokens, cache_read_input_tokens, output_tokens). A
// stream sends message_start, a ping, content_block_start/delta/stop per
// block (text_delta, input_json_delta), message_delta with the output
// tokens, then message_stop.
//
// An answer names the model the turn gives (Turn.Model), or else the
// model the request asked for; its id is Turn.ID, or else "chatcmpl-<n>"
// (OpenAI) or "msg_<n>" (Anthropic) for turn n (1-based). Answers carry
// no Date header and nothing in them depends on the clock or on chance,
// so a recorded exchange is the same on every run.
package llmtest
