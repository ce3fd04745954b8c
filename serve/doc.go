// Package serve stands between an agent and its model provider, at the
// wire: an http.Handler that speaks OpenAI Chat Completions, OpenAI
// Responses, Anthropic Messages and Google's Gemini API
// (generateContent), JSON and server-sent events, and
// answers from a script, a cassette, or the real provider while it
// records. It is the inverse of engine/llm: an agent in any language,
// pointed at it by OPENAI_BASE_URL, ANTHROPIC_BASE_URL or
// GOOGLE_GEMINI_BASE_URL, gets the
// answers a scenario prescribes, and every exchange is kept so the
// client's behaviour can be checked. Go tests use it as their fake
// provider (it absorbed engine/llm/llmtest: one implementation).
//
//	srv, err := serve.New(serve.Options{Source: serve.NewScript(script)})
//	if err != nil { ... }
//	l, err := serve.Listen(ctx, "127.0.0.1:0", srv)   // or httptest.NewServer(srv)
//	defer l.Close()
//	// OPENAI_BASE_URL=l.URL+"/v1", ANTHROPIC_BASE_URL=l.URL
//	...
//	violations := serve.CheckClient(srv.Exchanges())
//
// # Protocols
//
// The protocol is told by the path's suffix, so a base URL may carry any
// prefix (/v1, /v1beta/openai): POST .../chat/completions, .../responses,
// .../messages and .../models/{model}:generateContent (Gemini); GET
// .../models and .../models/{id} list and look up
// Options.Models. Every answer carries no Date header and nothing that
// depends on the clock or on chance (created and created_at are 0, ids
// are numbered), so a recording of it is the same on every run. Every
// answer serve writes carries its request id, "req_<n>" for the n-th
// request the server received, in the provider's header: x-request-id
// (Chat Completions, Responses) or request-id (Messages, and any request
// with an Anthropic-Version header); Anthropic's error body repeats it
// as request_id. Gemini answers carry none, as Google's do not. A replayed or relayed answer keeps its recorded headers.
//
// Every body and event serve writes has each field the provider's
// published schema requires, a field serve has no value for sent as null
// where the schema allows null: TestAnswersMatchPublishedSpecs checks
// every protocol, streamed and not, every answer shape, error and
// refusal, against OpenAI's OpenAPI document (vendored in testdata/spec)
// and Anthropic's official TypeScript SDK's types (the npm package at the
// version testdata/spec/anthropic's lock file pins, installed by the test);
// testdata/spec/README.md names the sources and versions.
// TestGeminiSpec checks every Gemini body and event against Google's Go
// types generated from the generativelanguage v1beta protos (module
// cloud.google.com/go/ai v0.13.0), read strictly by protojson.
//
// Tool call ids. A scripted tool call without an id gets one, on every
// protocol, from the answer's number n (the 1-based request the source
// answered, as in the default response ids) and the call's 0-based place
// i in the answer: "call_<n>_<i>" on Chat Completions, Responses and
// Gemini, "toolu_<n>_<i>" on Messages. A Responses function_call item's id is
// "fc_" and the call id without its "call_" prefix. Only a Turn's call
// marked NoID goes out without an id (Chat Completions and Messages), as
// Ollama answers, off the specifications; on Gemini, as Gemini's older
// models answer (the id is optional there).
//
// Chat Completions. Faithful: messages (system, developer, user,
// assistant with tool_calls, tool), the answer as a chat.completion with
// the text (content null beside tool calls; refusal null), parallel tool
// calls with their ids and arguments as given, the choice's logprobs
// null, finish_reason "tool_calls" or "stop", usage with
// prompt_tokens_details.cached_tokens; a stream of
// chat.completion.chunk events in OpenAI's order — the role with content
// "" and the text, or, for an answer that only calls tools, the role
// with content null and the first call; each call's index, id, type and
// name with arguments "", then its arguments; the finish chunk (delta
// {}) — then a usage-only chunk (choices empty) when
// stream_options.include_usage asks for it, then "data: [DONE]". Not
// sent (optional in the schema): system_fingerprint, service_tier,
// annotations, a chunk's logprobs and refusal, obfuscation, and the
// "usage": null every chunk carries when include_usage is set.
//
// Responses (the default API of the OpenAI Agents SDK and of the Vercel
// AI SDK's OpenAI provider). Faithful: input as a string or items
// (messages with or without "type": "message", function_call,
// function_call_output), instructions, previous_response_id (a
// function_call_output may answer a call the server made in an earlier
// response); the answer as a response object whose output holds a
// message item (output_text) and function_call items (call_id, name,
// arguments), with usage; a stream of response.created,
// response.in_progress, output_item.added, content_part.added,
// output_text.delta, output_text.done, content_part.done (or
// function_call_arguments.delta and .done, with the call's name),
// output_item.done per item, then response.completed, each with its
// sequence_number. The response object always has output (an empty list
// for an answer with neither text nor calls), error, incomplete_details,
// instructions, metadata ({}), temperature and top_p (null), tools ([]),
// tool_choice, parallel_tool_calls and, once completed, usage with
// input_tokens_details (cached_tokens, cache_write_tokens) and
// output_tokens_details (reasoning_tokens); an output_text part has
// annotations and logprobs ([]). Not kept: stored responses
// (previous_response_id does not restore a history, the client's request
// is taken as it is), reasoning items, built-in tools, the echo of the
// request's tools and options in the response (temperature and top_p are
// null, not the request's), obfuscation.
//
// Messages. Faithful: system, user content as a string or blocks,
// tool_use and tool_result blocks (is_error), the answer as a message
// with a text block (citations null) then tool_use blocks (caller
// {"type": "direct"}), stop_reason "tool_use" or "end_turn",
// stop_sequence, stop_details and container null, usage with
// input_tokens, cache_read_input_tokens (null when there are none, as
// cache_creation_input_tokens always is: langchain-anthropic counts any
// number there, 0 too, into input_token_details), output_tokens, and
// cache_creation, output_tokens_details, server_tool_use, service_tier
// and inference_geo null; a stream in Anthropic's order: message_start,
// then per block content_block_start, content_block_delta (text_delta;
// input_json_delta "" and then the input), content_block_stop, with ping
// after the first block's start, then message_delta with the stop reason
// (stop_sequence, stop_details, container null) and the output tokens
// (the cumulative input counts null: message_start has them), and
// message_stop. Errors carry Anthropic's type for their status (the
// errors page: 402 billing_error, 413 request_too_large, 504
// timeout_error, other 4xx invalid_request_error, other 5xx api_error)
// and request_id. Not sent: thinking blocks, server tools, citations.
//
// Gemini (the Gemini Developer API, generativelanguage v1beta, as
// @google/genai and Google's ADK call it): POST
// .../models/{model}:generateContent and :streamGenerateContent, the
// model named by the path; the key in the x-goog-api-key header or the
// key query parameter (taken out of the query the server keeps and
// forwards). Faithful: systemInstruction, contents with roles user and
// model (a content without a role is the user's), text, functionCall and
// functionResponse parts (lowerCamelCase or the protos' snake_case
// names), the answer as a GenerateContentResponse whose one candidate
// holds the text then every functionCall (id, name, args as an object),
// finishReason "STOP" (Gemini's reason for an answer with function calls
// too), index 0, usageMetadata (promptTokenCount with cache reads
// counted in it, as Gemini counts them, candidatesTokenCount,
// totalTokenCount, cachedContentTokenCount), modelVersion and
// responseId ("response-n" unless the script gives an id); with alt=sse a
// stream of "data:" events, each a GenerateContentResponse chunk: the text
// in two chunks, then one chunk with every function call whole (Gemini
// does not stream arguments), the last chunk with the finish reason and
// the usage; without alt=sse the same chunks as one JSON array, as
// Google's REST stream sends them. Every function call carries an id (see
// Tool call ids), so the client can answer it by id. Tool results pair with calls
// by id when the functionResponse carries one; one without an id answers
// the first call of its name, not yet answered, in the model content
// before it (by name and order), and a call without an id is named
// "<name>#<content>.<part>" in the request's engine messages. A client
// that drops the ids the server sent is therefore seen answering other
// calls than the server made, and CheckClient reports the server's as
// unanswered. A functionResponse's response object that holds one string
// (ADK's {"result": ...}) is the tool message's text, {"error": ...} an
// error result; any other response is its JSON text. GET .../models and
// .../models/{id} answer, for a request with a Gemini key, Google's
// ListModelsResponse and Model. Not sent: safetyRatings, citationMetadata,
// avgLogprobs, promptFeedback, thoughts and thought signatures,
// grounding, candidatesTokensDetails and promptTokensDetails; not read:
// inline data, files, executable code, cached contents, generationConfig
// (responseSchema included). Not served: countTokens, embedContent, the
// Live API, Vertex AI's paths.
//
// Streams go out as a provider sends them: each event is written whole
// and flushed before the next, so it leaves in its own HTTP chunk
// (Transfer-Encoding: chunked, no Content-Length) and a client can act on
// it before the stream ends; each text and each arguments string comes
// in two pieces, as real servers send them in many. The orders above
// are those of the streams OpenAI and Anthropic recorded in the real
// cassettes the tests replay; TestStreamsArriveEventByEvent reads them
// off the connection chunk by chunk (testdata/stream-*.golden).
//
// # Sources
//
// A Source answers the requests that passed the server's checks.
//
// NewScript answers from an engine/llm Script — the scenario's script:
// form — through llm.Scripted, the model the reference engine calls, so
// one script drives the engine and an external agent alike: request n
// gets the script's call n, with "{n}" substituted in Repeat, and the
// request's conversation, read into engine messages, is what the model
// records. The message's ID becomes the response id (else "chatcmpl-n",
// "resp_n", "msg_n"); its text, tool calls (arguments in key order) and
// usage are the answer's. Usage follows LangChain: input_tokens includes
// cache reads, as OpenAI's prompt_tokens does, so for Messages the cache
// reads (input_token_details.cache_read) are subtracted. A "raise" is
// answered with the status its exception kind stands for (RateLimitError
// 429, AuthenticationError 401, ... others 500).
//
// NewTurns answers with Turns, the wire-exact form Go tests use: raw
// argument text (which need not parse), response ids, a model name, an
// error status, a Check of the request, a call without an id (NoID). The
// provider cassettes of the corpus (cassettes/providers) are recorded
// from it, and re-recording them gives the same bytes but the recorded
// durations.
//
// NewReplay replays a cassette by request content, and fails closed: a
// request gets the recorded interaction whose request matches it as the
// engine's cassettes match (cassette.Recorder in replay mode, see package
// cassette's Matching): the method; the path and query of the URL a
// Recorder would have forwarded it to (UpstreamURL with the base URL the
// cassette was recorded from, ReplayOptions.BaseURL), the scheme and
// host left out; and the canonical JSON body, whose only equivalences are
// cassette's (key order, whitespace, stream_options, "stream": false,
// "n": 1, null members, a content string as one text block, tool-call
// arguments as canonical JSON, numbers by value, credentials scrubbed)
// plus ReplayOptions.IgnoreFields. Nothing else is normalised: the
// requests of every example agent (examples/, six client libraries),
// recorded twice, were byte-identical, so no field varies between
// identical runs. Each interaction answers one request; identical
// requests (an agent asking the same thing twice) take the identical
// interactions in recorded order. Answers go out as NewReplayOrdered's
// do, byte for byte, streams in their recorded events. A request that
// matches no unused interaction is answered 400 (not a 5xx, which SDKs
// retry), and the server's problem names it, shows the closest recorded
// request (cassette.NearestTo's choice, "already replayed" when it is
// used), what differs and the body diff (-recorded +requested), and says
// how to record again (ReplayOptions.Rerecord).
//
// NewReplayOrdered replays a cassette by order: the n-th request of a
// protocol gets the n-th recorded interaction of that protocol, whatever
// its body, and the recorded status and body go out byte for byte; a
// recorded event stream goes out in its recorded events, each in its own
// flushed chunk: the event boundaries are the blank lines of the
// recorded body, the unit every SSE client reads by (the cassette format
// keeps no TCP segment boundaries, and no client may depend on them). It
// does not match bodies as cassette.Recorder does, and its name says so:
// it is for a cassette another client or tool recorded (vcrpy, go-vcr),
// whose requests a Go SDK replaying it would not send byte for byte. It
// passes a changed request; harness uses it only when a scenario opts in
// (agent.replay: by-order) and marks the report. The recorded headers go out without Content-Length,
// Content-Encoding and Transfer-Encoding (the body was decoded on
// import), with a Content-Type sniffed from the body where the recording
// has none or names JSON for an event stream.
//
// NewRecorder forwards each request to its provider's endpoint
// (RecorderOptions.Upstreams: a base URL per provider, as the provider's
// SDK takes one, the public endpoint by default; a provider left out of
// a non-nil map is refused with 400 and its request goes nowhere). The
// upstream URL is the base URL's path joined with the client's path from
// its endpoint on — "/chat/completions" and "/responses" for OpenAI,
// whose base URLs end in "/v1"; "/v1/messages" for Anthropic and
// "/v1beta/models/" for Gemini, whose do not — and the base URL's query
// parameters, then the client's that the
// base URL does not set, sorted (UpstreamURL): base URL
// "https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21"
// and a client's POST /v1/chat/completions make
// https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21.
// The key, when the Upstream gives one, replaces the client's in the
// provider's header (Authorization: Bearer, x-api-key, or Gemini's
// x-goog-api-key, never in the URL; Azure's api-key too when the client
// sent one). It goes through a recording
// cassette.Recorder, which scrubs credentials from what it stores, and
// answers with the provider's answer. A JSON answer goes out once it has
// arrived; a streamed one (Content-Type text/event-stream) is relayed
// event by event as the provider sends it, each event flushed as soon as
// it is whole, and stored whole when it ends, its events as they came,
// so a replay sends the recorded stream. The forwarded request outlives
// the client's — an SDK that hangs up once it has "data: [DONE]" does
// not cut the recording of the stream's tail — and ends when the
// Listener closes. A stream that breaks off is a problem of the
// request, fails the recording, and reaches the client cut off too (no
// last chunk), as the provider's did.
//
// # Checks and errors
//
// A request is checked in this order; the first check that fails is
// answered with the provider's status and error layout — OpenAI's
// {"error": {"message", "type", "param", "code"}}, Anthropic's {"type":
// "error", "error": {"type", "message"}}, Google's {"error": {"code",
// "message", "status"}} with status the google.rpc.Code of the HTTP
// status — and kept as a problem that
// Err reports, naming the request ("request 3 (POST
// /v1/chat/completions, model gpt-4.1-mini): ..."):
//
//   - the route: a path of no protocol, or not a POST, is 404;
//   - the key, when Options.Key is set: 401 (Gemini: 403
//     PERMISSION_DENIED without a key, 400 "API key not valid" for a
//     wrong one, as Google answers them);
//   - the body: not JSON, or not an object, is 400 (OpenAI's "We could
//     not parse the JSON body of your request", Anthropic's
//     invalid_request_error); no "model" string, no "messages" list
//     (Chat, Messages), no "contents" list (Gemini), no max_tokens
//     (Messages), a role the protocol does not have: 400 naming the
//     field;
//   - the model, when Options.Models is set: 404 (OpenAI's
//     model_not_found, Anthropic's not_found_error "model: <name>");
//   - tool results: one whose call id no earlier tool call in the request
//     carries (nor, for Responses, any call the server made) is 400, in
//     the provider's words; a Recorder leaves this to the provider;
//   - the source: a request after the script or the cassette ran out is
//     400 naming the request and what ran out. Not a 5xx, which every SDK
//     retries, stalling the agent for seconds before it fails.
//
// An answer the script prescribes as an error (Turn.Error, "raise") is
// an answer, not a problem.
//
// # The exchange log and the client's invariants
//
// Exchanges returns every request with its answer, in arrival order
// (logged as it is sent, so what a client has received is in the log):
// the request read into engine messages (the system prompt, human, AI
// messages with their tool calls, one tool message per tool result with
// its call id), the status, headers and body sent, the ids of the tool
// calls the answer made, and the problem, if any. CheckClient checks,
// per conversation (requests grouped by their first system and human
// messages), the invariants a tool-calling agent owes its model: every
// tool call answered exactly once before the conversation's next model
// call, every result paired with a call by id; a call of the last answer
// never answered is reported as dangling, which a run that ended on an
// interrupt may legitimately have.
package serve
