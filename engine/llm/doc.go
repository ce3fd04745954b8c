// Package llm holds agenteval's implementations of engine.ChatModel.
//
// Scripted is a deterministic model that answers with responses listed in
// advance. Tests, conformance vectors and scenario files use it to stand
// in for a real provider, so a run of the engine is reproducible call for
// call. OpenAI and Anthropic talk to real providers (see Providers below),
// each over an injected *http.Client so a cassette can sit underneath.
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
// kind, "message": text}}. "chunk_size" (a whole number, default 0) sets
// Script.ChunkSize: under the "messages" stream mode each answer's text
// streams in chunks of that many characters (0: one chunk), its tool
// calls and usage on the last. Every key is optional except where named;
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
//
// # Providers
//
// OpenAI speaks the Chat Completions API through the official openai-go
// SDK, to OpenAI or to any compatible server by base URL; Anthropic speaks
// the Messages API through anthropic-sdk-go. New maps a name to one:
// "openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5",
// "openai-compatible:<model>" with a base URL, reading OPENAI_API_KEY,
// OPENAI_BASE_URL, ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL through
// Options.LookupEnv. A live model without a key is an error; a replaying
// one (Options.Replay) sends no key and never retries, since a retry
// would spend a recorded interaction.
//
// Messages are converted as langchain-openai and langchain-anthropic
// convert them, and answers come back as the AI message LangChain builds:
// content, tool calls with their arguments parsed in key order (arguments
// that do not parse become invalid tool calls, with LangChain's error
// layout), usage_metadata with LangChain's token details, and
// response_metadata (model_provider, model_name, id, finish_reason or
// stop_reason). Streams (Config.Stream, or the request option
// "stream": true) are assembled into the same message; their pieces go to
// Config.OnChunk and to a ChunkFunc put in the context with
// WithChunkFunc. OpenAI and Anthropic are engine.StreamingChatModels: under
// the engine's "messages" stream mode (engine.Generate) they stream the
// request whatever the config says, as LangChain's models do when a
// StreamMessagesHandler listens, and hand each piece of text on as a chunk
// when it arrives; the tool calls, usage and metadata come on a last chunk
// once the stream is complete (LangChain streams tool_call_chunks as they
// arrive; the engine's messages carry no partial tool calls). A cassette
// keeps the whole event stream, so a replayed stream gives the recorded
// chunks. Error statuses become an *APIError that unwraps to an
// *engine.Error named like the Python SDK's exception
// (AuthenticationError, RateLimitError, ...).
//
// Quirks of real servers are absorbed: a tool call without an id gets a
// deterministic invented one ("call_" + 24 hex digits of a hash of the
// response), a repeated id within one message is replaced on the later
// calls, a streamed tool-call delta repeated with the same id and name
// (Kimi) is not appended twice, deltas without "type" (Mistral), usage on
// the finish chunk or in a usage-only chunk, and unknown fields
// ("obfuscation", "x_groq", "extra_content") are all read.
//
// Deliberate differences from LangChain: the provider's response id goes
// to response_metadata["id"], not to the message ID (the engine assigns
// message IDs, and some servers reuse response ids); a streamed answer
// has the same shape as an unstreamed one (no "index" or "partial_json"
// in Anthropic blocks); arguments that are valid JSON but not an object
// are invalid tool calls; Anthropic's invalid tool calls are not sent
// back (tool_use needs an input object). Not supported yet: n > 1 (only
// the first choice is read), the OpenAI Responses API, audio and the
// legacy function_call field, Anthropic's server tools and citations
// beyond passing their blocks through, and response_format on Anthropic
// (the engine uses a structured-output tool instead).
//
// # Tools given as dicts
//
// A tool given as a plain dict (engine.ToolSchema.Provider, an agent's
// ProviderTools) goes out as the integration's bind_tools converts it.
// OpenAI: a well-known type ("function", "file_search",
// "computer_use_preview", "code_interpreter", "mcp", "image_generation",
// "web_search_preview...", "web_search") as it is, anything else read as
// a function (an OpenAI function, an Anthropic tool or a titled JSON
// Schema) and sent as {"type": "function", "function": ...}, made strict
// by the "strict" option. Anthropic: a type with a built-in prefix
// ("text_editor_", "computer_", "bash_", "web_search_", "web_fetch_",
// "code_execution_", "memory_") or a dict with "name" and "input_schema"
// as it is, anything else as {"name", "input_schema", "description"}
// from its function form; an OpenAI built-in fails as
// convert_to_anthropic_tool does (KeyError('function')). ChatOpenAI
// switches to the Responses API when a built-in tool other than a
// function is bound; llm.OpenAI speaks Chat Completions only and sends it
// there as it is.
//
// # Structured output
//
// A request's ResponseFormat in create_agent's form ({"type":
// "json_schema", "json_schema": {"name", "schema", "strict"?}}) is
// converted as langchain-openai's bind_tools converts it: the schema
// becomes an OpenAI function (a JSON Schema's title names it and its
// description describes it; an OpenAI function is taken as it is) whose
// parameters are sent as "schema", with "strict" false unless given. The
// request option "strict" is bind_tools' strict: it marks every bound
// tool strict and closes its object schemas (additionalProperties false
// where "required" is set), and is not sent as a field. A bound empty
// tool list is sent as "tools": [] (create_agent's ProviderStrategy binds
// one). OpenAI implements engine.StructuredOutputModel with ChatOpenAI's
// default method, "json_schema", and engine.ModelInfo, so create_agent's
// "auto" picks the provider strategy for the models langchain lists
// (gpt-4o, gpt-4.1, gpt-5, ...).
//
// PriceTable and DefaultPrices turn usage into cost, and
// ParseRecordedResponse reads a recorded response body of either API, so
// a replay can report what a live run would have cost.
package llm
