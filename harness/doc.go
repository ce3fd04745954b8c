// Package harness loads scenario files, runs them against the engine with
// their cassettes, checks their expectations and writes reports.
//
// This doc is the specification of the scenario format. The JSON Schema
// that SchemaJSON returns (and "agenteval schema" prints) states the same
// rules for editors; a test keeps the two and the Go types in step.
//
// # Scenario files
//
// A scenario is one YAML file: one agent, the model answers it gets, the
// tools it has, the turns to run, and what the run must show. LoadDir loads
// every *.yaml and *.yml file below a directory, skipping files and
// directories whose names start with "." or "_" (put shared fragments
// there). A file is one YAML document holding a mapping; its keys are the
// json tags of Scenario and the types it contains. Values that hold
// free-form JSON (tool parameters, arguments, results, options) may use
// any YAML: mappings keep their key order, and numbers keep their literal
// ("1.50" stays 1.50). Anchors, aliases and merge keys ("<<: *base") work;
// tags other than the standard ones (!!str, !!int, ...) do not, nor do
// .inf and .nan, which JSON cannot hold.
//
// An editor that speaks the YAML language server completes and checks the
// file when its first line names the schema, a file path relative to the
// scenario's own. The schema is committed as harness/scenario.schema.json
// (a test keeps it equal to SchemaJSON), so a scenario of this repository
// two folders down names it
//
//	# yaml-language-server: $schema=../../harness/scenario.schema.json
//
// and a project of its own writes it once, "agenteval schema >
// scenario.schema.json", and names that file. (SchemaID, the schema's $id,
// identifies it; nothing is served there.) Comments do not count as
// content: lines in problems are the file's own lines, modeline included.
//
// A complete file:
//
//	description: The agent looks up the weather and answers.
//	tags: [react, tools]
//	agent:
//	  kind: react
//	  prompt: You are a helpful assistant.
//	script:
//	  responses:
//	    - content: ""
//	      tool_calls: [{name: get_weather, args: {city: Paris}, id: call_1}]
//	    - content: It is sunny in Paris.
//	tools:
//	  - name: get_weather
//	    description: Get the weather for a city.
//	    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
//	    results:
//	      - when: {city: Paris}
//	        return: sunny
//	turns:
//	  - user: What's the weather in Paris?
//	expect:
//	  trajectory: {calls: [{name: get_weather, args: {city: Paris}}]}
//	  final: {contains: [sunny]}
//	  max_model_calls: 2
//	  golden: true
//
// Only turns is required. Every other key may be left out, and leaving it
// out means the default written below; Load fills nothing in, so a loaded
// Scenario holds what the file says.
//
// # Top level
//
//   - name (string): identifies the scenario in reports.
//     Default: the file's path below the scenario root without its
//     extension, with forward slashes ("react/weather"). Two scenarios
//     loaded together may not share a name.
//   - description (string): what the scenario checks, for reports.
//   - tags (list of strings): select scenarios (--tag) and group reports.
//   - skip (string): skip the scenario, giving this reason. A scenario
//     with a {{name}} placeholder (letters, digits and underscores,
//     spaces around it allowed) in any string value is a template
//     (Scenario.Placeholders): an eval's dataset fills it case by case
//     (package eval), and run skips it, naming its first placeholder and
//     where it is, rather than run it with the placeholder as text.
//   - timeout (duration, "30s", "2m"): how long the scenario may run; default
//     Options.Timeout (agenteval run --timeout), none unless set. Past it
//     the run is canceled and the scenario is an error that names the
//     turn that was cut and what its thread had committed.
//   - agent (mapping): the agent under test; see Agent below.
//   - script (mapping): the answers of the "scripted" model, in engine/llm's
//     script form (see package github.com/agenteval/agenteval/engine/llm):
//     {responses: [...], then: {repeat: ...}, chunk_size: N}, where each
//     response is an AI message (id, content, tool_calls, usage) or
//     {raise: {error, message}}, and chunk_size is how many characters
//     each chunk of an answer's text carries when a turn streams messages
//     (0, the default: the whole text in one chunk; the tool calls and
//     usage come on the last chunk). Required when agent.model is
//     "scripted", its default.
//   - models (mapping of name to script): more scripted models, which
//     middleware options name ("model: summarizer").
//   - tools (list): the agent's tools; see Tools below.
//   - workspace (mapping): files the run works in; see Workspace below.
//   - turns (list, at least one): the inputs, run in order; see Turns.
//   - expect (mapping): what the run must show; see Expectations.
//
// # Agent
//
//   - kind: "react" (LangGraph's create_react_agent; the default),
//     "agent" (LangChain's create_agent), "graph" (agents as the nodes of
//     a graph, each a subgraph; see Graphs of agents), "go" (a Go agent
//     the program registers) or "command" (a program in any language);
//     the last two are described under Agents outside the engine.
//   - model: "scripted" (the default; answers come from script), or a
//     provider model answered from the scenario's cassette:
//     "openai:<model>", "anthropic:<model>" or "openai-compatible:<model>",
//     and, for a command agent only, "gemini:<model>".
//   - base_url (string): the provider's base URL; required for
//     openai-compatible, and it must match the recorded requests. For a
//     "command" agent, the endpoint a record run forwards to (below).
//   - prompt (string): the system prompt (react's prompt, create_agent's
//     system_prompt).
//   - recursion_limit (integer ≥ 0): supersteps allowed per turn; 0 means
//     the kind's default, 25 for react and 10,000 for agent.
//   - version: create_react_agent's "v1" or "v2" (the default).
//   - name (string): the agent's name, set on its AI messages.
//   - response_format (mapping): ask for a structured response. schema
//     (required) is a JSON Schema with a title; strategy is "auto" (the
//     default), "tool" or "provider"; validate (bool) coerces answers as a
//     pydantic model would.
//   - middleware (list, kind "agent" only): create_agent middleware in
//     order, each {type, options}. type is the LangChain class:
//     HumanInTheLoopMiddleware, ModelCallLimitMiddleware,
//     ToolCallLimitMiddleware, ToolRetryMiddleware, ModelRetryMiddleware,
//     ModelFallbackMiddleware, PIIMiddleware, SummarizationMiddleware,
//     ContextEditingMiddleware, LLMToolSelectorMiddleware,
//     TodoListMiddleware, LLMToolEmulator, ShellToolMiddleware or
//     FilesystemFileSearchMiddleware. options (mapping) are the
//     class's keyword arguments as in Python; a model option (model, or
//     ModelFallbackMiddleware's models) names a key of models, "model"
//     for the agent's own, or a provider model as LangChain's model
//     strings do ("openai:gpt-4.1-mini", "anthropic:<model>",
//     "openai-compatible:<model>" at agent.base_url), answered from the
//     scenario's cassette like the agent's model: summarizers, tool
//     selectors, emulators and fallbacks replay like everything else.
//   - checkpointer (bool): true (the default) runs with an in-memory
//     checkpointer; false runs without one, so every turn starts a fresh
//     thread. Then no thread may have two turns, and resume, decisions,
//     update_state, continue and from_step are errors.
//   - interrupt_before, interrupt_after (lists of node names): pause there.
//   - handle_tool_errors: ToolNode's handle_tool_errors for react agents:
//     true (the default), false, or the message to answer failed calls
//     with.
//   - max_concurrency (integer ≥ 0): tool calls run at once; 0, the
//     default, is no cap.
//   - replay: "by-order" (kind "command" with a provider model only)
//     replays the cassette by order instead of by request content, for
//     a cassette another tool recorded; below.
//   - command (list of strings), env (mapping of strings), timeout
//     (duration), dir (string): kind "command" only, below.
//   - nodes (list): kind "graph" only, below.
//
// # Graphs of agents
//
// kind "graph" builds what a LangGraph user writes to make agents work
// together: a StateGraph over MessagesState whose nodes are compiled
// agents (add_node(name, create_react_agent(..., name=name))), run in
// the order listed, from START to END. Each node is an agent of its own:
//
//   - name (string, required): the node's name and the agent's, set on
//     its AI messages; unique, without ":" or "|" and not starting with
//     "__".
//   - kind: "react" (the default) or "agent".
//   - model: left out, the scenario's model (agent.model, answered from
//     script or the cassette; nodes that share it get its answers in the
//     order they call it); or the name of a scripted model in models.
//   - tools (list of names): the scenario's tools the agent has; left
//     out, all of them; [] none.
//   - prompt, version, response_format, middleware (kind "agent"),
//     interrupt_before, interrupt_after, handle_tool_errors (kind
//     "react"): as for the top-level agent.
//
// The graph takes the top-level agent's model, base_url,
// recursion_limit (the graph's, which its subgraphs inherit),
// interrupt_before and interrupt_after (node names of the graph) and
// max_concurrency; the other agent fields belong to a node and are
// errors on the graph, and so is checkpointer: false (the runner reads
// what the subgraphs did from their checkpoints). The state is MessagesState, plus
// structured_response (the last one written) when a node sets
// response_format.
//
// Each node's agent runs as a subgraph, as LangGraph runs it: in the
// checkpoint namespace "<name>:<task id>" of the graph's checkpointer,
// with the graph's thread. An interrupt inside it (HumanInTheLoopMiddleware,
// a node's interrupt_before) pauses the whole graph, expect.interrupts
// sees it, and the next turn (decisions, resume, continue) resumes the
// subgraph from its own checkpoint. The turns' subgraphs: true streams
// from inside the subgraphs (below). Steps are read from the subgraphs'
// own checkpoints too, so transcripts and reports show what each agent
// did, expect.trajectory sees every agent's calls, and max_tool_calls
// counts the calls their tool nodes answered; max_steps counts the
// graph's own supersteps.
//
//	agent:
//	  kind: graph
//	  nodes:
//	    - {name: researcher, model: researcher, tools: [search]}
//	    - name: writer
//	      kind: agent
//	      model: writer
//	      tools: [send_email]
//	      middleware: [{type: HumanInTheLoopMiddleware, options: {interrupt_on: {send_email: true}}}]
//	models:
//	  researcher: {responses: [...]}
//	  writer: {responses: [...]}
//
// A graph of any other shape (branches, a supervisor with handoff
// tools) is a Go agent (kind "go") built with engine.AddSubgraph; its
// subgraphs' steps and streams are observed the same way.
//
// # Agents outside the engine
//
// kind "go" runs an agent a Go program registers in Options.Agents under
// agent.name: either a graph built with package engine (custom nodes, a
// CreateAgent with the team's own middleware), given the scenario's
// model, tools, checkpointer and clock, or a function that runs one turn
// of another Go framework with that model and returns the messages it
// added. The scenario is otherwise unchanged: script or cassette, tools,
// turns, expectations and golden transcripts work as for "react".
//
// kind "command" runs a program in any language against a model server
// (package serve) that agenteval starts for the scenario on 127.0.0.1:
//
//	agent:
//	  kind: command
//	  command: [node, ../agent.mjs]   # run in dir, default the scenario file's directory
//	  env: {AGENT_STREAM: "1"}        # set after the variables below
//	  timeout: 60s                    # the whole run; the default
//	  model: openai-compatible:qwen3  # optional: a provider model, answered from the cassette
//	  base_url: http://127.0.0.1:8000/v1  # optional: the endpoint a record run forwards to
//
// The server answers from script, in order (model "scripted", the
// default), or, for a provider model ("openai:gpt-4.1-mini"), from the
// scenario's cassette, replayed by request content (serve.NewReplay);
// record modes forward to the provider and record it. Replay fails
// closed: each request must match a recorded one by method, path and
// query (where the recording forwarded it: base_url's prefix and query
// included, the host left out) and canonical JSON body, with cassette's
// equivalences only (key order and whitespace, stream_options,
// "stream": false and "n": 1, null members, a content string as one
// text block, tool-call arguments as canonical JSON, numbers by value,
// credentials scrubbed). Nothing else is normalised, because nothing
// else varies: each example agent's requests, recorded twice
// (examples' TestRecordExampleCassettes), are byte-identical. Identical
// requests take the identical recordings in recorded order. A changed
// request — an edited prompt, tool list or tool result — is refused
// (400, so the program fails at once) and fails the scenario's
// "invariant: requests accepted" with the closest recorded request, what
// differs and the body diff (-recorded +requested), and the command that
// records again: agenteval run --mode record --overwrite FILE
// (--mode replay-or-record replays a cassette that exists). For a
// cassette another tool recorded (vcrpy, go-vcr), whose requests the
// program would not send byte for byte, agent.replay: by-order answers
// the n-th request of each protocol with the n-th recorded answer
// whatever it says (serve.NewReplayOrdered): a changed request then
// passes, so the report marks the scenario (report.Scenario.Replay
// "by-order", shown in every format). A record run forwards to the
// endpoint agent.base_url names, and only there: base_url is the
// provider's base URL as its SDK takes it (OpenAI's with its /v1,
// "http://127.0.0.1:8000/v1" for a local vLLM, Ollama or LiteLLM;
// Anthropic's and Gemini's without a version; an Azure deployment
// "https://NAME.openai.azure.com/openai/deployments/D?api-version=2024-10-21"),
// and a request is sent to base_url's path joined with the client's path
// from its endpoint on ("/chat/completions", "/responses",
// "/v1/messages", "/v1beta/models/"), with base_url's query parameters, then the client's
// that base_url does not set (serve.UpstreamURL). A request of another
// provider than the model's (openai-compatible speaks OpenAI's
// protocols) is refused and sent nowhere. Without base_url, a record run
// forwards each provider's requests to its public endpoint; an
// "openai-compatible" model needs base_url. The real key is the
// provider's variable in agenteval's environment (OPENAI_API_KEY,
// ANTHROPIC_API_KEY, GEMINI_API_KEY), which replaces the program's dummy key on the way
// out and is scrubbed from the cassette. base_url is an error on a
// scripted command agent (it has nothing to record). With a provider model the server
// serves that model only: a request naming another gets the provider's
// "model not found" answer and fails the "requests accepted" invariant.
//
// The program's environment is clean: of agenteval's own variables it
// gets only an allow list of harmless ones (package internal/hostenv:
// PATH, HOME, USER, SHELL, TMPDIR, TZ, TERM, LANG and LC_*, XDG_*
// directories, certificate paths, the Go, Python and Node toolchains'
// paths), and the ones the scenario names in pass_env:
//
//	pass_env: [GITHUB_TOKEN]        # agenteval's variables, as they are
//
// The rule is an allow list rather than a list of credential names
// because a name cannot be trusted to say what a value is: the audit of
// issue 37 found command agents holding the keys of every provider but
// the two then filtered (GEMINI_API_KEY, AZURE_OPENAI_API_KEY,
// MISTRAL_API_KEY, AWS_SECRET_ACCESS_KEY, HF_TOKEN), and the next
// provider's name would pass any deny list, as would DATABASE_URL or a
// proxy URL with a password in it. An allow list fails closed: a
// variable it does not know never reaches the program, and the scenario
// says so at the one place a reviewer reads. Command graders, the
// file-search middleware's ripgrep and the shell middleware's Docker CLI
// get the same allow list (the shell itself, and the Codex CLI, get only
// the middleware's env option). pass_env may not name what agenteval sets (the keys,
// base URLs and AGENTEVAL_* variables below): that is a load error, not
// a silent replacement. A passed credential's value is still redacted
// from reports and golden files if the program prints it.
//
// After those the program gets OPENAI_BASE_URL (the server's URL with
// /v1), ANTHROPIC_BASE_URL and GOOGLE_GEMINI_BASE_URL (without),
// OPENAI_API_KEY, ANTHROPIC_API_KEY and GEMINI_API_KEY (a dummy key,
// DummyAPIKey),
// AGENTEVAL_SCENARIO (the scenario's name), AGENTEVAL_MODEL (the model
// name to ask the server for: "gpt-4.1-mini" for "openai:gpt-4.1-mini",
// "scripted" for the scripted model, which answers to any name) and
// AGENTEVAL_VARIANT (the eval variant the run is a trial of,
// Options.Variant; set and empty in a plain run), then env. In an eval
// (package eval) a variant's model and env reach the program this way:
// its env is merged over the scenario's, key by key.
// Google's SDKs read GEMINI_API_KEY when GOOGLE_API_KEY is unset (which
// spares the warning they print when both are set); @google/genai (and so
// ADK) reads GOOGLE_GEMINI_BASE_URL, while an agent on Google's Python
// SDK passes it itself (http_options=HttpOptions(base_url=...)). A
// "gemini:<model>" model is for command agents only (the engine has no
// Gemini client); it records through the Gemini API with the key of
// GEMINI_API_KEY, sent as x-goog-api-key.
//
// Turns are fed on standard input, one JSON object per line, and the
// program answers each on standard output with one JSON object per line,
// in lockstep: agenteval writes a turn, waits for its answer line, then
// writes the next. Turns: {"user": "text"} for a user turn,
// {"resume": value} and {"decisions": [...]} for the resume and decisions
// turns. Answers: {"output": "text"}, the turn's final answer;
// {"interrupt": value}, the turn paused for a human (the next turn is
// expected to resume it); {"error": "message"}, the turn failed, which
// ends the run with that error (an AgentError). Any other line on stdout
// is ignored; stderr is kept, and its end is shown when the program
// fails. After the last answer agenteval closes stdin and the program
// must exit, with status 0. A program that exits before answering a turn,
// or with another status, fails the run (the turn's error); one that
// runs out of its timeout, whether it hangs on a turn or after the last,
// is killed with its process group and the scenario is an error that
// says where it hung. A program is one conversation: turns cannot name
// threads, go back (from_step), update_state or continue, and the
// engine's settings (prompt, middleware, tools, ...) are errors, since
// the program builds its agent itself.
//
// The run is rebuilt from the traffic as if the engine had run it on one
// thread "main": per turn, an "input" step with the user's message; per
// model request, a "tools" step with the tool results the request
// carries for calls of earlier answers (each once, named after its call)
// and a "model" step with the answer as an AI message (its id the
// response's). The final text is the last turn's output; interrupts are
// the program's interrupt answers. So expect.trajectory, final,
// interrupts, error, max_model_calls, max_tool_calls, max_tokens,
// max_cost and golden apply as they do to the engine, and a transcript
// shows what the program did. The requests of concurrent conversations
// (sub-agents) are rebuilt as one.
//
// Graders apply as to the engine, judges included. A provider judge
// ("openai:gpt-4.1-mini") calls through the scenario's cassette: its
// calls are recorded after the agent's, each request marked with the
// header "X-Agenteval-Grader: judge" (GraderHeader; it is written into
// the cassette, never sent to the provider), and in replay the agent's
// requests get the unmarked interactions (matched by content, or by
// order with agent.replay: by-order), while the judge's get the marked
// ones, matched by body as the engine's are. With a
// scripted agent the cassette holds the judge's calls alone.
//
// Two more invariants check the client on the wire: "invariant: client
// answers tool calls" (serve.CheckClient: every tool call answered
// exactly once before the conversation's next model call, results paired
// with calls by id, no call of the last answer left dangling unless the
// run ended on an interrupt or failed) and "invariant: requests
// accepted" (no request the provider would have refused: a malformed
// body, a result for an unknown call id, a request after the script ran
// out, a request the cassette does not record). Such a request is
// answered at once with the provider's error status and layout (400), so
// the program fails instead of waiting; for a cassette miss, the
// invariant's detail shows the recorded request closest to it and the
// body diff (-recorded +requested), as a replay miss of the engine does.
//
// # Tools
//
// Each tool has a name, unique in the file, and exactly one behaviour:
//
//   - name (string, required), description (string).
//   - parameters (mapping): the arguments' JSON Schema; default an object
//     with no properties.
//   - return_direct (bool): the tool's result ends the run.
//   - go: true: a Go function that the program or test running the
//     scenario registers under the tool's name (Options.Tools).
//   - results (list): scripted results. A call takes the first result
//     whose when matches its arguments and that has uses left.
//   - emulate (mapping): calls are answered by emulation instead of a
//     tool (see the emulator package). With output (a JSON Schema), each
//     call gets a value generated from it, seed (integer, default 0) and
//     the call's arguments: the same arguments give the same value, with
//     realistic strings for formats and enums. Otherwise a model answers,
//     as LangChain's LLMToolEmulator does: model is "agent" (the default,
//     the agent's own model), a name from models, or a provider model
//     ("openai:gpt-4.1-mini") whose calls go into the scenario's
//     cassette, whether the agent's model is a provider's or scripted. "emulate: {}" emulates with the agent's model. Emulated
//     calls are marked in transcripts and reports. A scripted model
//     answers in the order calls reach it, and parallel calls reach it in
//     any order: when one AI message makes several calls that the same
//     scripted model emulates, their answers may pair with the calls
//     differently from run to run. Give each such tool its own named
//     model, or emulate with a provider model, which replays by request.
//   - timeout (duration, "500ms", "2s"): how long one call may take. Past it
//     the call raises TimeoutError, which handle_tool_errors answers like
//     any tool error. A Go tool's context is canceled (its cause a
//     *TimeoutError); an emulated latency longer than the timeout waits the
//     timeout on the virtual clock and then times out.
//   - latency (mapping): every call of the tool, whatever answers it, waits
//     a duration drawn from {dist: fixed, ms}, {dist: uniform, min_ms,
//     max_ms} or {dist: lognormal, median_ms, sigma, max_ms (optional
//     cap)} on the scenario's virtual clock, which costs no wall time.
//
// A result has:
//
//   - when (any): the arguments it answers; absent or null matches every
//     call.
//   - match: how when matches: "exact" (the default: equal arguments),
//     "subset" (when's keys have equal values in the arguments) or "regex"
//     (when's string values are regular expressions, in Go's RE2 syntax,
//     matched against the arguments' values; they must compile).
//   - times (integer ≥ 0): how many calls it answers; 0, the default, is
//     any number.
//   - return (any): the tool's output, a string or any JSON value.
//   - error (string): raise a ToolException with this text instead;
//     error_type (string, only with error) names the exception. A result
//     sets return or error, not both.
//
// # Workspace
//
// A scenario whose middleware touch files (ShellToolMiddleware,
// FilesystemFileSearchMiddleware) names the files they see:
//
//   - dir (string): a directory, relative to the scenario file, copied in
//     (symbolic links are skipped).
//   - files (mapping of path to content): files written in, over dir's;
//     paths are relative, with forward slashes, and stay inside.
//
// Each run (each eval trial, each resume) works in a fresh copy in a
// temporary directory, removed when the run ends, so a run never changes
// the scenario's files nor sees another run's changes. Relative paths in
// middleware options resolve against the copy: "." is the workspace.
//
//	workspace:
//	  files:
//	    src/app.py: "async def main(): ...\n"
//	agent:
//	  kind: agent
//	  middleware:
//	    - type: FilesystemFileSearchMiddleware
//	      options: {root_path: ".", use_ripgrep: false}
//	    - type: ShellToolMiddleware
//	      options: {workspace_root: "."}
//
// The copy's absolute path changes from run to run: a golden transcript
// stays stable when commands print relative paths (the file search tools
// always do), not pwd. The shell's session stops when a turn ends, so
// variables and the working directory do not carry over to the next turn;
// the files do.
//
// # Turns
//
// Each turn is exactly one of:
//
//   - user (string): send a user message.
//   - resume (any but null): resume an interrupted run, Command(resume=...).
//   - decisions (list): resume a HumanInTheLoopMiddleware interrupt, one
//     decision per action request: {type: approve}, {type: edit,
//     edited_action: {name, args}} or {type: reject, message}.
//   - update_state (mapping): write these values to the thread's state as
//     as_node (a string, only with update_state).
//   - continue: true: run the thread on from where it stopped (invoke with
//     None), as after interrupt_before.
//
// and may also have:
//
//   - thread (string): the thread it runs on, default "main". A name not
//     used before starts a new thread, whose first turn cannot be resume,
//     decisions or continue (there is nothing to go on from) nor have
//     from_step.
//   - from_step (integer ≥ -1): run (or update) from the thread's
//     checkpoint of that step instead of its newest: time travel. -1 is
//     the input checkpoint.
//   - stream_mode: the stream modes the turn runs with, LangGraph's
//     stream_mode: "values", "updates" or "messages", or a list of them
//     ([updates, messages], as the human-in-the-loop guide streams). With
//     "messages" the runner collects what the messages mode delivers, the
//     chunks of the models' answers as they stream and the messages nodes
//     write (tool messages) when they end, each with LangGraph's metadata
//     (Observed.Streamed); expect.streamed checks them and the transcript
//     lists them. Models stream as LangChain's do under that mode: a
//     scripted model in chunks of its script's chunk_size, a provider
//     model over SSE ("stream": true in the request, so its cassette must
//     be recorded streaming; the cassette keeps the event stream, and a
//     replay streams the recorded chunks). "updates" and "values" add
//     nothing the steps do not show. Not for update_state turns or
//     command agents.
//   - subgraphs (bool): stream with subgraphs=True: the messages mode
//     then streams from inside subgraphs (the nodes of a "graph" agent)
//     as their models run, each chunk with its namespace; without it a
//     subgraph's messages come whole, under its node, when the node ends.
//
// # Expectations
//
// Every key set under expect is one expectation; a run passes when all
// hold.
//
//   - trajectory: the tool calls made. mode is "strict" (the default: the
//     same calls in the same order), "unordered" (the same calls in any
//     order), "subset" (every call made was expected) or "superset" (every
//     expected call was made). args is how arguments compare: "exact" (the
//     default), "ignore", "subset" (the made call's arguments are among the
//     expected ones) or "superset" (the expected arguments are among the
//     made ones); tool_args maps a tool name to its own args mode. calls
//     lists the expected calls, each {name, args}. With group_parallel:
//     true, steps lists them instead, one list per AI message, and the
//     calls of one message compare as a set; steps is an error without
//     group_parallel. Unless the agent has middleware or a response_format
//     (which add tools of their own), each name must be a declared tool or
//     one the script calls.
//   - final: the text of the last AI message: equals (string), contains
//     and not_contains (lists of strings), regex (RE2, must compile).
//     Every key set must hold.
//   - structured_response: schema (a JSON Schema the structured response
//     validates against) and values (expected as a subset of it).
//   - interrupts (list): the interrupt values raised across turns, in
//     order, each matched as a subset; "interrupts: []" asserts none.
//   - max_model_calls, max_tool_calls, max_steps, max_tokens (integers
//     ≥ 0) and max_cost (number ≥ 0, US dollars): limits on the run.
//     Model calls include those of summarizers, selectors and tool
//     emulators; tool calls are those the tool node answered (run,
//     emulated, or turned into an error message), not retried runs
//     (for a kind: go agent, whose graph is its own, the tool messages
//     any of its nodes added: a Turn agent's are its node "agent"'s);
//     steps are supersteps; tokens are total tokens; cost uses
//     Options.Prices.
//   - error: the run must fail: type (the Python exception kind,
//     "GraphRecursionError") and contains (text in the message). A turn
//     that fails ends the run: the turns after it are not run.
//   - golden (bool): compare the run's transcript with
//     golden/<scenario>.golden; go test -update rewrites it.
//   - graders (list): graders that score the run; see Graders.
//   - streamed (list): the messages the "messages" stream mode delivered,
//     in order, across the turns that stream it; one entry per message,
//     whose chunks (those with its ID, from one task) are put together.
//     An entry's keys are conditions, each checked when set: node (the
//     langgraph_node that produced it), namespace (the subgraph it came
//     from as node names joined by "|", "researcher", without task ids;
//     "" the top graph), type ("ai", "tool", ...), id, text (a matcher
//     like final's, on the text of its chunks put together), chunks (how
//     many), pieces (the text of each chunk: where the stream broke it)
//     and tool_calls (the names of the calls its chunks carried; []
//     asserts none). "streamed: []" asserts nothing was streamed. The
//     messages are in the order of the tasks that produced them (their
//     superstep, then their place among the step's tasks, level by level
//     into subgraphs), each task's in the order it streamed them, so the
//     parallel tasks of a step, which stream as they happen to finish,
//     do not reorder them; without a checkpointer, a subgraph's tasks are
//     placed by when their first chunk came.
//
// # Graders
//
// Each entry of expect.graders scores the run from 0 to 1, with a reason a
// person can read, and passes when the score reaches its threshold. The
// eval statistics aggregate the scores; run keeps pass/fail. Reports
// give every grader's grader kind, score, threshold and reason (the
// HTML page shows a judge's reasoning after the transcript); the other
// expectations stay pass/fail and their report entries are unchanged.
// An entry has name (for reports; default "graders[i] (kind)"),
// threshold (0 to 1, default 1: full marks) and exactly one kind:
//
//   - judge: a model grades the run (LLM-as-judge). rubric is free text,
//     or builtin names one of ours: "correctness" (needs reference, a
//     reference answer), "helpfulness", or "trajectory_accuracy" (against
//     reference_trajectory, a list of {name, args}, when given). sees
//     lists what the judge is shown besides the user's input: "final",
//     "transcript", "tool_calls" (default transcript for
//     trajectory_accuracy, final otherwise). choices restricts the scores
//     it may give ([0, 0.5, 1]); without them any number from 0 to 1.
//     examples are graded few-shot examples, each {input, output, score,
//     reasoning}. model is "scripted" (the default: the judge answers from
//     its own script, in the form of the top-level script) or a provider
//     model ("openai:gpt-4.1-mini", with base_url as for the agent), whose
//     calls go through the scenario's cassette like the agent's, so a
//     replay needs no network. The judges' calls, tokens and cost count
//     in the report's usage (judge_model_calls among model_calls), and so
//     in an eval trial's cost and --max-cost; the transcript, written
//     before the graders run, shows the agent's alone. The judge must
//     answer with a JSON object,
//     {"reasoning": "...", "score": <number or true/false>}; an answer
//     that is not one, or whose score is outside [0,1] or the choices,
//     makes the scenario an error naming the scenario and the grader,
//     never a score of 0.
//   - trajectory_score: partial credit for the tool calls made. method
//     "lcs" (the default: 2·L/(expected+made), L the longest common
//     subsequence) and "edit" (1 − edit distance/the longer) align the
//     calls in order, the calls of one AI message (and of one entry of
//     steps) counted as a set; "precision", "recall" and "f1" compare them
//     as multisets. calls or steps, args and tool_args as in trajectory.
//   - order: before lists tools whose first calls come in that order; the
//     score is the share of neighbouring pairs that do.
//   - args: matchers for the arguments of tool's calls (every call, or
//     the 1-based call): fields maps a dotted path ("location.city",
//     "items.0") to a matcher; schema is a JSON Schema the arguments must
//     validate against. The score is the mean over calls and conditions;
//     a tool never called scores 0.
//   - answer: matchers for the final text (of: final, the default) or the
//     structured response (of: structured_response): a matcher's keys
//     apply to the whole answer, fields to its parts (a final text read as
//     JSON).
//   - go: the name of a Go grader the program registers in
//     Options.Graders, a grade.Func from the observed run to a score and
//     reason.
//   - command: an external program, run (a list: program and arguments,
//     a program path with a slash relative to the scenario file's
//     directory, where it runs) with timeout (a Go duration, default 30s).
//     It reads the run on stdin, as the JSON report shows the scenario
//     (without its expectations and status, not known yet), and writes
//     {"score": <0 to 1>, "reason": "..."} on stdout. A program that exits
//     with another status than 0, runs out of time or writes anything
//     else makes the scenario an error.
//
// A matcher sets one or more of: regex (RE2, searched in the value's
// text), approx ({value, tol}: a number, or a text's first number, within
// tol of value), one_of (a list of allowed values), text (equal ignoring
// case and runs of white space), schema (a JSON Schema), similar ({to,
// min}: the normalized Levenshtein similarity to the text to, 0 below
// min). Each condition scores 1 or 0, but similar, which scores the
// similarity; a matcher scores the lowest of its conditions.
//
//	expect:
//	  graders:
//	    - name: correct
//	      threshold: 0.5
//	      judge:
//	        builtin: correctness
//	        reference: Sunny, 21 °C.
//	        choices: [0, 0.5, 1]
//	        script:
//	          responses:
//	            - content: '{"reasoning": "Same facts as the reference.", "score": 1}'
//	    - threshold: 0.8
//	      trajectory_score:
//	        method: f1
//	        calls: [{name: get_weather, args: {city: Lyon}}, {name: get_weather, args: {city: Nice}}]
//	    - order: {before: [search, get_weather]}
//	    - args:
//	        tool: convert
//	        fields:
//	          amount: {approx: {value: 3.2, tol: 0.01}}
//	          to: {one_of: [USD, EUR], regex: "^[A-Z]{3}$"}
//	    - answer: {similar: {to: It is sunny in Paris., min: 0.5}}
//	    - go: brevity
//	    - command: {run: [sh, _scripts/mentions_sun.sh], timeout: 10s}
//
// The scenarios under scenarios/graders use each kind.
//
// # Errors
//
// Load and Parse report every problem of a file at once, as a *LoadError
// whose Problems each print as "file:line:col: field: message", the field
// being the dotted path of the value ("tools[0].results[1].when"):
//
//	weather.yaml:3:9: agent.kind: unknown kind "reakt": expected "react", "agent", "graph", "go" or "command" (did you mean "react"?)
//	weather.yaml:12:9: tools[0].results[0].retrun: unknown field "retrun" (did you mean "return"?)
//
// Scenario.Pos gives the place of any field of a loaded scenario, so
// problems found later (a script that runs out, an expectation that
// fails) can point into the file too.
//
// # Limits
//
// A file must be UTF-8 (a byte that is not is a problem at its line and
// column, never replaced), and within Limits, so that a hostile or broken
// file ends in milliseconds with a problem instead of exhausting the
// machine. Load, Parse and LoadDir use the defaults; the methods of Limits
// of the same names take others, and "agenteval run --limit name=N" (and
// resume, eval and serve) sets one (-1 lifts it):
//
//	name                 default     what it bounds
//	file_bytes           4 MiB       the size of a file
//	depth                200         the nesting of values; flow brackets and "- - -" are counted before parsing
//	values               262,144     values, once aliases are expanded (each use counts)
//	value_bytes          16 MiB      bytes of strings, numbers and keys, once aliases are expanded
//	recursion_limit      100,000     agent.recursion_limit
//	cassette_file_bytes  256 MiB     the size of a cassette (Options.CassetteLimits)
//	cassette_body_bytes  64 MiB      one cassette body as gzip or deflate decoding produces it
//	dataset_bytes        64 MiB      the size of an eval's dataset file (CSV, JSONL)
//	dataset_rows         10,000      the rows of one dataset file
//
// Eval files are read within the same limits (package eval). Every limit
// of agenteval, these and the fixed ones, is listed in docs/limits.md with
// what happens when it is passed.
//
// Schema-shaped emulated results have limits of their own, which no
// scenario needs to raise: emulator.MaxValues values and
// emulator.MaxStringBytes bytes of strings per generated value, so that
// "minItems: 100000000" is a problem at load, not an out-of-memory crash.
//
// # Running
//
// Run runs scenarios in parallel (Options.Parallel) and returns a
// report.Report whose content, timings aside, is the same at any
// parallelism; RunScenario runs one, and RunScenarioObserved also returns
// what the run observed. Package harness/harnesstest runs a folder as Go
// subtests (RunT). A scenario's provider model is answered from
// <Options.CassetteDir>/<scenario path>.yaml in Options.Mode (replay by
// default: no network).
//
// The runner observes the run (a grade.Observed: steps, messages, tool
// calls, interrupts, usage, error) and hands it to package grade, which
// checks the expectations (grade.Check) and, with golden: true, compares
// the transcript with its file (grade.CheckGolden). Every scenario also
// checks three invariants: every tool call is answered exactly once
// before the next model call, message IDs are unique, and no run exceeds
// its recursion limit. Its transcript (Transcript) lists, per superstep
// read from the thread's checkpoints, the nodes that ran and the messages
// added, replaced and removed; a step that ran a subgraph is followed by
// the subgraph's own steps ("researcher › step 2 · tools"), read from
// its namespace, and a subgraph paused inside by what it ran so far
// ("paused in writer"); a turn that streams messages ends with one line
// per streamed message: where it came from, its chunk count and the text
// of each chunk.
//
// A scenario's timeout, a tool's timeout and an interrupt all cancel the
// context that Go tools get; a Go tool still running Options.ToolGrace
// (DefaultToolGrace, 2 s) after that is abandoned (its goroutine cannot be
// stopped) and the scenario's error says so. An interrupted or timed-out
// scenario's error gives the original cause ("interrupted by terminated",
// "scenario timed out after 30s"), the turn that was cut and the steps
// its thread committed before; scenarios that had not started yet are
// errors that say "not run".
//
// Scenarios run on a virtual clock, so retry backoff and tool latency
// cost no wall time. With Options.StateDir each scenario's threads live
// in a SQLite database that outlives the run; Resume (agenteval resume)
// runs one more turn on them — a human's decisions on a pending
// interrupt, say — in another process.
package harness
