// Package cassette records and replays the HTTP traffic of model
// providers, so an agent scenario runs offline, call for call, in CI.
//
// It wraps go-vcr v2 (github.com/dnaeon/go-vcr/v2): the files are go-vcr
// v2 cassettes and the in-memory model is go-vcr's cassette.Interaction,
// so go-vcr's own cassette.Load reads every file this package writes. The
// replay and record logic is ours, because go-vcr v2's recorder gets
// several things wrong for this use:
//
//   - its default matcher compares method and URL only, so every call to
//     /v1/chat/completions looks the same and a replay can answer with the
//     response to a different question; here the body is compared too;
//   - it sleeps for the recorded latency unless SkipRequestLatency is set;
//     here replay never sleeps, and the latency stays readable
//     (Call.Duration, Cassette.Durations) for benchmarks;
//   - its filters receive the live request's header map, so scrubbing
//     there deletes the caller's Authorization header; here scrubbing
//     works on copies;
//   - it loads any YAML without complaint (a vcrpy cassette becomes
//     interactions with an empty URL and status 0) and overwrites files;
//     here Load validates and record mode never overwrites;
//   - on a miss it says only "requested interaction not found"; here the
//     error names the scenario and the cassette and shows the closest
//     recorded request with a diff of the two bodies.
//
// # Modes
//
// ModeReplay (the zero value) answers from the cassette and never opens a
// connection: its transport fails every request. ModeRecord sends every
// request on and writes a fresh cassette on Stop, refusing to start over
// an existing file unless Options.Overwrite is set. ModeReplayOrRecord
// replays what matches and records the rest. ModeLive passes everything
// through and records nothing.
//
// A streamed response (Content-Type text/event-stream) is recorded as it
// passes: the client reads each event when the provider sends it, and
// the exchange is stored, its body the whole stream with its events as
// they came, when the stream ends. A client that closes the body early
// (an SDK stops reading at "data: [DONE]") has the rest read for it; a
// stream that breaks off fails the recording, and so does one still
// open at Stop (close every response body first). Exchanges are stored
// in the order their requests were sent, whenever each ended: a stream
// the client left at "data: [DONE]" may end after the next request's
// answer, and the replay must still give the answers in turn.
//
// A recording is written only when it holds what the run did: Stop
// writes it atomically and durably (a temporary file in the same folder,
// fsynced, renamed into place, then the folder fsynced, so the file is
// whole after a crash too), and writes nothing when a request failed (a refused or dropped
// connection, a body cut short) or when record mode saw no request at
// all; Finish(runErr) and Discard drop the recording of a run that
// failed. Either way an earlier cassette stays byte for byte as it was
// and the error wraps ErrRecordingFailed. A cassette with no interactions
// can never answer a replay, so Load refuses it (ErrCassetteEmpty) and
// `agenteval cassette check` reports it; replay-or-record takes such a
// file as missing and records over it.
//
//	rec, err := cassette.Open("cassettes/weather.yaml", cassette.Options{Scenario: "weather"})
//	if err != nil { ... }
//	defer rec.Stop()
//	model, err := llm.New("openai:gpt-4.1-mini", llm.Options{HTTPClient: rec.Client(), Replay: rec.Mode() == cassette.ModeReplay})
//
// # Matching
//
// A request is answered by the first unused interaction, in recording
// order, with the same method, URL path, query and canonical body; each
// interaction answers one request. Scheme, host and port are not compared
// and headers never are. The canonical body ignores key order and
// whitespace and applies a short, documented list of equivalences (see
// CanonicalBody and the comment at the top of match.go): stream_options,
// "stream": false and "n": 1 are dropped, null members are dropped, a
// string "content" equals one text block, tool-call "arguments" strings
// compare as JSON, numbers compare by value, credentials are scrubbed
// before comparing, and Options.IgnoreFields names anything else to
// ignore. A request that matches nothing in replay mode fails with a
// *MissError wrapping ErrInteractionNotFound.
//
// The same matching replays a command agent's cassette (serve.NewReplay,
// which harness uses for kind "command"), with no equivalence added:
// every example agent under examples/, recorded twice, sent
// byte-identical requests, so nothing else varies between identical runs
// and anything else that differs is a changed request.
//
// # File format
//
// A cassette is go-vcr v2's YAML:
//
//	---
//	version: 1
//	interactions:
//	    - request:
//	        body: '{"model":"gpt-4.1-mini","messages":[...]}'
//	        form: {}
//	        headers:
//	            Authorization:
//	                - REDACTED
//	        url: https://api.openai.com/v1/chat/completions
//	        method: POST
//	      response:
//	        body: '{"id":"chatcmpl-1",...}'
//	        headers:
//	            Content-Type:
//	                - application/json
//	        status: 200 OK
//	        code: 200
//	        duration: 812ms
//
// Load accepts exactly these keys and reports every problem at once as
// file:line: field: message. It recognises the other layouts real
// projects commit — go-vcr v3/v4 (version 2), vcrpy's httpx and requests
// layouts, pydantic-ai's parsed_body layout — and says which one a file
// is, instead of loading it silently wrong; Import converts them.
// Gzip- and deflate-encoded bodies are decoded on load and on import.
//
// # Limits
//
// A cassette is outside input: it may be broken or hostile, and reading it
// must end in an error that names the problem, never in running out of
// memory. Limits bounds what reading one allocates; the zero value means
// the defaults, which Load, Parse, Check, Import and ImportBytes use, and
// Options.Limits or the Limits methods of the same names set others. The
// agenteval commands that read cassettes (run, resume, eval, serve and
// cassette) raise them with --limit cassette_file_bytes=N and --limit
// cassette_body_bytes=N; docs/limits.md lists every limit of agenteval.
//
//	MaxFileBytes  256 MiB  the cassette file Load, Check and Import read,
//	                       refused from its size before it is read; for a
//	                       gzip-compressed file Import reads, its
//	                       decompressed size too
//	MaxBodyBytes  64 MiB   one body as gzip or deflate decoding produces it
//	                       (on load, on import, when recording), and a
//	                       pydantic-ai parsed_body as its YAML aliases
//	                       expand (its text and 64 bytes per value)
//
// Decoding a body measures it first and keeps nothing: a 2.3 MB gzip bomb
// that would decode to gigabytes is refused in a fraction of a second,
// as file:line: interactions[0].response.body: Content-Encoding gzip:
// gzip decoding gives more than 64 MiB, the limit (raise it to read the
// file: --limit cassette_body_bytes=N, Limits.MaxBodyBytes). JSON bodies
// nested more than 10000 levels deep are read as text (matched and
// scrubbed as text).
//
// # Credentials
//
// Scrubbing targets credentials, not model content, and never touches the
// live exchange: the request the client sent goes out as it is, and in a
// recording run the client receives the server's response byte for byte.
// Only the copy that is saved is scrubbed: every credential in it becomes
// REDACTED. One table says what a credential is; the scrubber removes
// what it describes, the matcher scrubs both sides with it before
// comparing bodies, and Save, Load and `agenteval cassette check` refuse
// a file that still holds any of it (the error wraps ErrCredential and
// names file:line: field). The table, by where it looks:
//
//	shape, anywhere (URL, header values, form values, bodies, every
//	string of a JSON body):
//	  a PEM private key                    -----BEGIN ... PRIVATE KEY----- to its END line
//	  an Anthropic API key (sk-ant-...)    sk-ant- and 20 or more key characters
//	  an OpenAI-style API key (sk-...)     sk- and 20 or more
//	  a Google API key (AIza...)           AIza and 35
//	  a Groq API key (gsk_...)             gsk_ and 20 or more
//	  an xAI API key (xai-...)             xai- and 20 or more
//	  a Hugging Face token (hf_...)        hf_ and 30 or more
//	  a GitHub token                       ghp_, gho_, ghu_, ghs_, ghr_, github_pat_
//	  an AWS access key id (AKIA...)       AKIA and 16
//	  a Slack token (xox.-...)             xoxa-, xoxb-, xoxp-, xoxr-, xoxs-
//	  a JWT (eyJ...)                       eyJ<header>.eyJ<payload>.<signature>
//	  an OpenAI organization id (org-...)  org- and 24
//	  a bearer token                       "Bearer " and 16 or more token characters
//	name, compared in lower case with '-' read as '_':
//	  an auth header                       Authorization, Proxy-Authorization, Cookie,
//	                                       Set-Cookie, Apikey, X-Auth, OpenAI-Organization,
//	                                       OpenAI-Project, Anthropic-Organization-Id
//	  a *-key, *-token or *-secret header  any header ending in -key, -token, -secret,
//	                                       -password, -signature (Anthropic-Api-Key,
//	                                       X-Custom-Token, x_api_key), except
//	                                       Idempotency-Key and Sec-WebSocket-Key
//	  a credential parameter               a URL query parameter or a form field (of a
//	                                       form-encoded body or the form: field) named key,
//	                                       apikey, token, auth, authorization, secret,
//	                                       password, passwd, sig, signature, code (OAuth),
//	                                       code_verifier, assertion, client_assertion, or
//	                                       ending in _key, _token, _secret, _password,
//	                                       except idempotency_key, page_token, next_page_token
//	  a credential field                   a top-level member of a JSON body named api_key,
//	                                       apikey, x_api_key, client_secret, access_token,
//	                                       refresh_token, id_token, password, private_key,
//	                                       client_assertion, code_verifier or token
//	  an OAuth grant field                 code, assertion, subject_token, actor_token or
//	                                       device_code at the top level of a JSON body that
//	                                       has grant_type
//
// A value under a credential name is redacted whatever it holds, numbers
// included (a numeric password). A name deeper in a JSON body is model
// content — tool arguments such as {"key": "abc"}, Anthropic tool_use
// inputs, thinking-block signatures — and is kept, so that a recorded
// scenario replays: the replayed request carries the same arguments as
// the recording. A body without credentials is saved byte for byte.
//
// The same table keeps credentials out of what the rest of agenteval
// writes: ScrubText scrubs free text by the shapes above (reports, golden
// transcripts and logs go through it), FindCredential finds one in a file
// read back (a golden transcript, a report), and CredentialVariable tells
// which environment variables hold secrets by the names above, so that
// their values are scrubbed too.
package cassette
