package grade

// Expect lists what the run must show. Every set field is one expectation.
type Expect struct {
	// Trajectory is matched against the tool calls the agent made.
	Trajectory *Trajectory `json:"trajectory,omitempty"`
	// Final is matched against the text of the last AI message.
	Final *TextMatch `json:"final,omitempty"`
	// StructuredResponse checks the structured_response key.
	StructuredResponse *StructuredExpect `json:"structured_response,omitempty"`
	// Interrupts are the interrupt values raised, in order, across turns;
	// each is matched as a subset ("interrupts: []" asserts none).
	Interrupts *[]any `json:"interrupts,omitempty"`
	// Limits on what the run may use. Model calls include those of
	// summarizers, selectors and tool emulators; tool calls are the calls
	// the tool node answered — run, emulated, or turned into an error
	// message (invalid arguments, unknown tool) — not those answered
	// elsewhere (a human's rejection) or retried attempts; steps are
	// supersteps; tokens are total tokens.
	MaxModelCalls *int     `json:"max_model_calls,omitempty"`
	MaxToolCalls  *int     `json:"max_tool_calls,omitempty"`
	MaxSteps      *int     `json:"max_steps,omitempty"`
	MaxTokens     *int     `json:"max_tokens,omitempty"`
	MaxCost       *float64 `json:"max_cost,omitempty"`
	// Error expects the run to fail with an error matching this; the
	// turns after the one that fails are not run.
	Error *ErrorExpect `json:"error,omitempty"`
	// Golden compares the run's transcript with golden/<scenario>.golden.
	Golden bool `json:"golden,omitempty"`
	// Graders score the run in [0,1], each against its threshold, in
	// order, after the other expectations.
	Graders []Grader `json:"graders,omitempty"`
	// Streamed are the messages the "messages" stream mode delivered, in
	// order (Observed.Streamed), one entry per message; "streamed: []"
	// asserts none.
	Streamed *[]StreamedExpect `json:"streamed,omitempty"`
}

// StreamedExpect is one expected message of the "messages" stream mode.
// Every set field must hold.
type StreamedExpect struct {
	// Node is the node that produced it (langgraph_node).
	Node string `json:"node,omitempty"`
	// Namespace is the subgraph it came from, as its node names
	// outermost first joined by "|" ("researcher"), without task ids;
	// "" is the top graph.
	Namespace *string `json:"namespace,omitempty"`
	// Type is the message's type ("ai", "tool").
	Type string `json:"type,omitempty"`
	// ID is the message's ID.
	ID string `json:"id,omitempty"`
	// Text matches the text of its chunks put together.
	Text *TextMatch `json:"text,omitempty"`
	// Chunks is how many chunks it came in.
	Chunks *int `json:"chunks,omitempty"`
	// Pieces are the texts of its chunks, in order: where the stream
	// broke the message.
	Pieces []string `json:"pieces,omitempty"`
	// ToolCalls are the names of the tool calls its chunks carried, in
	// order; an empty list asserts none.
	ToolCalls *[]string `json:"tool_calls,omitempty"`
}

// Trajectory expects the tool calls the agent made.
type Trajectory struct {
	// Mode is "strict" (default: same calls in the same order),
	// "unordered" (same calls, any order), "subset" (every call made is
	// expected) or "superset" (every expected call was made).
	Mode string `json:"mode,omitempty"`
	// Args is how arguments compare: "exact" (default), "ignore",
	// "subset" (the made call's arguments are among the expected ones)
	// or "superset" (the expected arguments are among the made ones).
	Args string `json:"args,omitempty"`
	// ToolArgs overrides Args per tool name.
	ToolArgs map[string]string `json:"tool_args,omitempty"`
	// GroupParallel compares the calls of one AI message as a set (strict
	// mode); Steps then lists one entry per AI message.
	GroupParallel bool `json:"group_parallel,omitempty"`
	// Calls are the expected calls: {"name": ..., "args": {...}}.
	Calls []Call `json:"calls,omitempty"`
	// Steps are the expected calls grouped by AI message (with
	// GroupParallel).
	Steps [][]Call `json:"steps,omitempty"`
}

// Call is one expected tool call.
type Call struct {
	Name string `json:"name"`
	Args any    `json:"args,omitempty"`
}

// TextMatch matches a text; every set field must hold.
type TextMatch struct {
	Equals      *string  `json:"equals,omitempty"`
	Contains    []string `json:"contains,omitempty"`
	Regex       string   `json:"regex,omitempty"`
	NotContains []string `json:"not_contains,omitempty"`
}

// StructuredExpect checks a structured response.
type StructuredExpect struct {
	// Schema is a JSON Schema the response must validate against.
	Schema any `json:"schema,omitempty"`
	// Values are expected as a subset of the response.
	Values any `json:"values,omitempty"`
}

// ErrorExpect expects the run to fail.
type ErrorExpect struct {
	// Type is the Python exception kind ("GraphRecursionError").
	Type string `json:"type,omitempty"`
	// Contains is a text the error message must contain.
	Contains string `json:"contains,omitempty"`
}
