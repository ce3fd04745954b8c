package harness

import (
	"slices"

	"github.com/agenteval/agenteval/emulator"
	"github.com/agenteval/agenteval/grade"
)

// Scenario is one scenario file, decoded. Fields that hold free-form JSON
// (tool parameters, arguments, middleware options, values) hold engine
// values: *engine.Object (key order kept), []any, json.Number, string, bool
// or nil. The zero value of every optional field means the documented
// default; Load fills nothing in, so a Scenario prints back as written.
type Scenario struct {
	// Name identifies the scenario in reports; it defaults to the file's
	// path below the scenario root, without ".yaml" ("react/weather").
	Name string `json:"name,omitempty"`
	// Description says what the scenario checks, for reports.
	Description string `json:"description,omitempty"`
	// Tags select scenarios (--tag) and group them in reports.
	Tags []string `json:"tags,omitempty"`
	// Skip, when set, skips the scenario and gives the reason.
	Skip string `json:"skip,omitempty"`
	// Placeholders are the {{name}} placeholders in the file's string
	// values, in file order (Parse finds them; not a field of the file).
	// A scenario that has any is a template, which an eval's dataset
	// fills (package eval): run skips it, saying where its first
	// placeholder is.
	Placeholders []Placeholder `json:"-"`
	// Timeout is how long the scenario may run, a Go duration ("30s");
	// "" means Options.Timeout.
	Timeout string `json:"timeout,omitempty"`
	// Agent says what runs.
	Agent Agent `json:"agent"`
	// Script is what a "scripted" model answers, in engine/llm's script
	// form ({"responses": [...], "then": {"repeat": ...}}).
	Script any `json:"script,omitempty"`
	// Models are named scripted models (scripts) that middleware options
	// refer to by name ("model": "summarizer"). A middleware option may
	// name a provider model instead ("model": "openai:gpt-4.1-mini"),
	// answered from the scenario's cassette.
	Models map[string]any `json:"models,omitempty"`
	// Tools are the tools the agent has, with how each behaves.
	Tools []Tool `json:"tools,omitempty"`
	// Workspace is the directory of files the run works in, copied
	// afresh for each run; relative paths in middleware options resolve
	// against the copy.
	Workspace *Workspace `json:"workspace,omitempty"`
	// Turns are the inputs, run in order.
	Turns []Turn `json:"turns"`
	// Expect is what the run must show.
	Expect grade.Expect `json:"expect,omitempty"`

	// File is the scenario's path as given to Load; Rel is its path below
	// the scenario root, with forward slashes and no extension. Neither is
	// read from the file.
	File string `json:"-"`
	Rel  string `json:"-"`
	// pos locates fields in the file for errors found after loading, and
	// keyPos their keys, for failures found when running.
	pos    positions
	keyPos positions
}

// Agent configures the agent under test.
type Agent struct {
	// Kind is "react" (create_react_agent, the default), "agent"
	// (langchain's create_agent), "graph" (a graph whose nodes are
	// agents, each run as a subgraph: see Nodes), "go" (a Go agent the
	// program registers in Options.Agents under Name) or "command" (a
	// program in any language, run as Command against a model server;
	// see the package doc).
	Kind string `json:"kind,omitempty"`
	// Model is "scripted" (the default: answers come from Script) or a
	// provider model, "openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5",
	// "openai-compatible:<model>", answered from the scenario's cassette.
	Model string `json:"model,omitempty"`
	// BaseURL is the provider's base URL (needed for openai-compatible);
	// it must match the recorded requests.
	BaseURL string `json:"base_url,omitempty"`
	// Prompt is the system prompt (react: prompt; agent: system_prompt).
	Prompt string `json:"prompt,omitempty"`
	// RecursionLimit caps supersteps per turn; 0 means the agent kind's
	// default (25 for react, 10,000 for agent).
	RecursionLimit int `json:"recursion_limit,omitempty"`
	// Version is create_react_agent's "v1" or "v2" (default).
	Version string `json:"version,omitempty"`
	// Name names the agent (set on its AI messages).
	Name string `json:"name,omitempty"`
	// ResponseFormat asks for a structured response.
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
	// Middleware are create_agent middleware, by LangChain class name with
	// LangChain's keyword options.
	Middleware []Middleware `json:"middleware,omitempty"`
	// Checkpointer is true (the default) for an in-memory checkpointer, or
	// false to run without one (then every turn starts a fresh thread).
	Checkpointer *bool `json:"checkpointer,omitempty"`
	// InterruptBefore and InterruptAfter name nodes to pause at.
	InterruptBefore []string `json:"interrupt_before,omitempty"`
	InterruptAfter  []string `json:"interrupt_after,omitempty"`
	// HandleToolErrors is ToolNode's handle_tool_errors for react agents:
	// true (the default), false, or a message string.
	HandleToolErrors any `json:"handle_tool_errors,omitempty"`
	// MaxConcurrency caps the tool calls run at once (0: no cap).
	MaxConcurrency int `json:"max_concurrency,omitempty"`
	// Command is the program a "command" agent runs and its arguments,
	// started in Dir.
	Command []string `json:"command,omitempty"`
	// Env are environment variables for a "command" agent, set after
	// the ones agenteval sets.
	Env map[string]string `json:"env,omitempty"`
	// Timeout bounds a "command" agent's whole run, as a Go duration
	// ("90s"); "" means 60s.
	Timeout string `json:"timeout,omitempty"`
	// Dir is a "command" agent's working directory, relative to the
	// scenario file's directory; "" is that directory.
	Dir string `json:"dir,omitempty"`
	// Replay is how a "command" agent with a provider model replays its
	// cassette: "" (the default) matches each request by content, and a
	// changed request fails; ReplayByOrder answers the n-th request with
	// the n-th recorded answer whatever it says, for cassettes another
	// tool recorded (vcrpy, go-vcr), and the report marks the scenario.
	Replay string `json:"replay,omitempty"`
	// Nodes are a "graph" agent's nodes, run in order: each an agent
	// compiled on its own and added to a MessagesState graph as a node
	// under its name (LangGraph's add_node(name, compiled_agent)).
	Nodes []Node `json:"nodes,omitempty"`
}

// ReplayByOrder is Agent.Replay's one value: a "command" agent's
// cassette replayed by order, not matched by content.
const ReplayByOrder = "by-order"

// Node is one node of a "graph" agent: an agent of its own, run as a
// subgraph in the checkpoint namespace "<name>:<task id>". The zero
// values mean what they mean for Agent.
type Node struct {
	// Name names the node in the graph and the agent (set on its AI
	// messages, as create_react_agent's and create_agent's name is).
	Name string `json:"name"`
	// Kind is "react" (the default) or "agent".
	Kind string `json:"kind,omitempty"`
	// Model is "" (the scenario's model: agent.model, answered from
	// script or the cassette) or the name of a scripted model in the
	// scenario's models.
	Model string `json:"model,omitempty"`
	// Tools names the scenario's tools the node's agent has; nil (the
	// key left out) is all of them, an empty list none.
	Tools *[]string `json:"tools,omitempty"`
	// Prompt, Version, ResponseFormat, Middleware, InterruptBefore,
	// InterruptAfter and HandleToolErrors configure the node's agent as
	// the Agent fields of the same names do.
	Prompt           string          `json:"prompt,omitempty"`
	Version          string          `json:"version,omitempty"`
	ResponseFormat   *ResponseFormat `json:"response_format,omitempty"`
	Middleware       []Middleware    `json:"middleware,omitempty"`
	InterruptBefore  []string        `json:"interrupt_before,omitempty"`
	InterruptAfter   []string        `json:"interrupt_after,omitempty"`
	HandleToolErrors any             `json:"handle_tool_errors,omitempty"`
}

// ResponseFormat is a structured-response request.
type ResponseFormat struct {
	// Schema is a JSON Schema with a "title".
	Schema any `json:"schema"`
	// Strategy is create_agent's "auto" (default), "tool" or "provider".
	Strategy string `json:"strategy,omitempty"`
	// Validate coerces answers as a pydantic model would.
	Validate bool `json:"validate,omitempty"`
}

// Middleware is one create_agent middleware.
type Middleware struct {
	// Type is the LangChain class: HumanInTheLoopMiddleware,
	// ModelCallLimitMiddleware, ToolCallLimitMiddleware, ToolRetryMiddleware,
	// ModelRetryMiddleware, ModelFallbackMiddleware, PIIMiddleware,
	// SummarizationMiddleware, ContextEditingMiddleware,
	// LLMToolSelectorMiddleware, TodoListMiddleware, LLMToolEmulator,
	// ShellToolMiddleware, FilesystemFileSearchMiddleware.
	Type string `json:"type"`
	// Options are the class's keyword arguments, as in Python.
	Options any `json:"options,omitempty"`
}

// Tool is a tool the agent can call and how it behaves in the run.
// Exactly one behaviour is set: Go, Results or Emulate.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments; default: an object
	// with no properties.
	Parameters any `json:"parameters,omitempty"`
	// ReturnDirect ends the run with the tool's result.
	ReturnDirect bool `json:"return_direct,omitempty"`
	// Go says the tool is a real Go function registered with
	// Options.Tools by the program or test that runs the scenario.
	Go bool `json:"go,omitempty"`
	// Results are scripted results: each call takes the first result
	// whose When matches and that has uses left.
	Results []Result `json:"results,omitempty"`
	// Emulate answers calls by emulation (see the emulator package).
	Emulate *Emulate `json:"emulate,omitempty"`
	// Latency delays every call of the tool, whatever answers it, by a
	// duration drawn from this distribution on the scenario's virtual
	// clock (so it costs no wall time).
	Latency *emulator.Latency `json:"latency,omitempty"`
	// Timeout is how long one call may take, a Go duration ("2s"); past
	// it the call raises TimeoutError. "" is no timeout.
	Timeout string `json:"timeout,omitempty"`
}

// Result is one scripted tool result (see emulator.Rule): when, match
// ("exact", "subset" or "regex"), times, return, error and error_type.
type Result = emulator.Rule

// Emulate says how an emulated tool answers. With Output set, calls are
// answered with a value generated from that JSON Schema; otherwise a model
// answers them as LangChain's LLMToolEmulator does.
type Emulate struct {
	// Model is the emulating model: "" or "agent" for the agent's own
	// model, a name from the scenario's models, or a provider model
	// ("openai:gpt-4.1-mini") answered from the scenario's cassette.
	Model string `json:"model,omitempty"`
	// Output is the JSON Schema of the tool's output; each call gets a
	// value generated from it, Seed and the call's arguments (the same
	// arguments give the same value).
	Output any `json:"output,omitempty"`
	// Seed seeds generated values and drawn latencies.
	Seed int `json:"seed,omitempty"`
}

// Turn is one input to the agent. Exactly one of User, Resume, Decisions,
// UpdateState and Continue is set.
type Turn struct {
	// Thread names the thread this turn runs on; default "main". A new
	// name starts a new thread.
	Thread string `json:"thread,omitempty"`
	// User is a user message.
	User string `json:"user,omitempty"`
	// Resume resumes an interrupted run with this value
	// (Command(resume=...)).
	Resume any `json:"resume,omitempty"`
	// Decisions resumes a HumanInTheLoopMiddleware interrupt:
	// [{"type": "approve"}, {"type": "edit", "edited_action": {"name": ...,
	// "args": {...}}}, {"type": "reject", "message": "..."}].
	Decisions []any `json:"decisions,omitempty"`
	// UpdateState writes values to the thread (update_state) as AsNode.
	UpdateState any    `json:"update_state,omitempty"`
	AsNode      string `json:"as_node,omitempty"`
	// Continue runs the thread on from where it stopped (invoke with
	// None), e.g. after interrupt_before.
	Continue bool `json:"continue,omitempty"`
	// FromStep runs (or updates) from the thread's checkpoint of that
	// step instead of its newest: time travel.
	FromStep *int `json:"from_step,omitempty"`
	// StreamMode is the stream modes the turn runs with, LangGraph's
	// stream_mode: any of "values", "updates" and "messages", given as
	// one ("messages") or a list (["updates", "messages"]). With
	// "messages" the chunks of the models' answers are observed
	// (Observed.Streamed); updates and values are what the steps show
	// anyway. Empty is the runner's own observation only.
	StreamMode StreamModes `json:"stream_mode,omitempty"`
	// Subgraphs runs the turn with subgraphs=True: the messages stream
	// shows the chunks of the agents inside a "graph" agent's nodes as
	// they come, under their namespaces.
	Subgraphs bool `json:"subgraphs,omitempty"`
}

// StreamModes is a turn's stream_mode: a list of modes, which a file may
// also give as one string ("messages").
type StreamModes []string

// Has says whether the modes include mode.
func (m StreamModes) Has(mode string) bool { return slices.Contains(m, mode) }

// Position is a place in a scenario file, 1-based.
type Position struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

// positions maps a field path ("tools[0].results[1].when") to where the
// field's value starts in the file.
type positions map[string]Position

// Pos returns where the field at path starts in the file, or the zero
// Position when the path was not in the file.
func (s *Scenario) Pos(path string) Position { return s.pos[path] }
