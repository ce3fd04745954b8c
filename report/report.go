package report

// Schema is the version of the JSON report's layout.
const Schema = "agenteval.report/v1"

// Status is a scenario's verdict.
type Status string

// The verdicts: pass, fail (an expectation or invariant did not hold), error
// (the scenario could not be checked: bad file, cassette miss, harness
// failure) and skip.
const (
	StatusPass  Status = "pass"
	StatusFail  Status = "fail"
	StatusError Status = "error"
	StatusSkip  Status = "skip"
)

// Report is one run of a scenario set. Everything but Timing fields is
// byte-identical for the same scenarios and cassettes at any parallelism.
type Report struct {
	// Schema is always report.Schema.
	Schema  string `json:"schema"`
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Errored int    `json:"errored"`
	Skipped int    `json:"skipped"`
	// Shard is "k/n" when the run was one shard of a split suite; a
	// merged report lists its shards.
	Shards []string `json:"shards,omitempty"`
	// Scenarios are sorted by Name.
	Scenarios []Scenario `json:"scenarios"`
	// Timing is wall-clock data, kept apart so that reports compare.
	Timing *RunTiming `json:"timing,omitempty"`
}

// RunTiming is the wall-clock side of a run.
type RunTiming struct {
	// Started is RFC 3339.
	Started   string  `json:"started"`
	WallMS    float64 `json:"wall_ms"`
	Parallel  int     `json:"parallel"`
	PerSecond float64 `json:"scenarios_per_s"`
}

// Scenario is one scenario's result.
type Scenario struct {
	Name        string   `json:"name"`
	File        string   `json:"file"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Status      Status   `json:"status"`
	// Message is the first thing that failed (or the error, or the skip
	// reason); empty for a pass.
	Message string `json:"message,omitempty"`
	// Diff is Message's full (-want +got) diff, when it has one.
	Diff string `json:"diff,omitempty"`
	// Line is the line in File of what Message concerns: the first
	// failed expectation's key, or the turn that could not run; 0 when
	// the scenario passed or the message concerns no line.
	Line int `json:"line,omitempty"`
	// Agent describes what ran: kind, model, middleware classes.
	Agent Agent `json:"agent"`
	// Expectations are every expectation and invariant checked, in the
	// order they were checked.
	Expectations []Expectation `json:"expectations,omitempty"`
	// Trajectory is what the agent did, step by step.
	Trajectory []Step `json:"trajectory,omitempty"`
	// Exchanges are the agent/model/tools messages of a sequence diagram.
	Exchanges []Exchange `json:"exchanges,omitempty"`
	// Final is the text of the last AI message.
	Final string `json:"final,omitempty"`
	// Interrupts are the interrupt values raised, in order.
	Interrupts []any `json:"interrupts,omitempty"`
	Usage      Usage `json:"usage"`
	// Golden is the golden file compared ("golden/react/weather.golden")
	// and GoldenStatus "same", "changed", "written" or "missing".
	Golden       string `json:"golden,omitempty"`
	GoldenStatus string `json:"golden_status,omitempty"`
	// Cassette is the cassette file used, if any.
	Cassette string `json:"cassette,omitempty"`
	// Replay is "by-order" when the cassette was replayed by order (a
	// command agent's agent.replay: by-order, for a cassette another
	// tool recorded): the n-th request got the n-th recorded answer
	// whatever it said, so a changed request did not fail it. Empty
	// when requests were matched by content, the default.
	Replay string `json:"replay,omitempty"`
	// Timing is wall-clock data, kept apart so that reports compare.
	Timing *ScenarioTiming `json:"timing,omitempty"`
	// Transcript is the run in the golden transcripts' format, for the
	// writers that show it (JUnit's <system-out>); it is not part of the
	// JSON report, so a report read back has none.
	Transcript string `json:"-"`
}

// ScenarioTiming is the wall-clock side of one scenario.
type ScenarioTiming struct {
	WallMS float64 `json:"wall_ms"`
}

// Agent describes the agent under test.
type Agent struct {
	Kind       string   `json:"kind"`
	Model      string   `json:"model"`
	Middleware []string `json:"middleware,omitempty"`
	Tools      []string `json:"tools,omitempty"`
}

// Expectation is one checked expectation or invariant.
type Expectation struct {
	// Name is the expectation's field ("trajectory", "final",
	// "max_tool_calls", "invariant: tool calls answered", ...).
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	// Message says what was wrong; Diff is a (-want +got) diff.
	Message string `json:"message,omitempty"`
	Diff    string `json:"diff,omitempty"`
	// Grader is the kind of grader ("judge", "trajectory_score", ...);
	// only graders' entries have it, and their Score in [0,1], the
	// Threshold it had to reach and the Reason for it (a judge's
	// reasoning). Pass/fail expectations leave all four out.
	Grader    string   `json:"grader,omitempty"`
	Score     *float64 `json:"score,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	// File and Line locate a failed expectation in its scenario file:
	// the line of its key ("trajectory:" under expect) or, for an
	// invariant or a failed turn, of the turn concerned. They are set
	// only on failed expectations, so that a passing report does not
	// change when a scenario file gains a line.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Step is one superstep of the run.
type Step struct {
	// Turn is the 0-based turn; Step the superstep's number in the thread
	// (in the subgraph, for a step inside one).
	Turn   int    `json:"turn"`
	Thread string `json:"thread"`
	Step   int    `json:"step"`
	// Namespace is "" for a step of the agent's own graph and the
	// subgraph task's checkpoint namespace ("researcher:<task id>") for a
	// step inside a subgraph; Pending marks such a step whose parent task
	// paused inside the subgraph and has not finished.
	Namespace string `json:"namespace,omitempty"`
	Pending   bool   `json:"pending,omitempty"`
	// Nodes are the nodes that ran, sorted, repeated per task.
	Nodes []string `json:"nodes"`
	// Messages are the messages the step added or replaced, in state
	// order.
	Messages []Message `json:"messages,omitempty"`
	// Removed are the IDs of the messages the step removed, in the order
	// they had.
	Removed []string `json:"removed,omitempty"`
	// Keys are the state keys the step wrote, sorted.
	Keys []string `json:"keys,omitempty"`
}

// Message is a message in a report.
type Message struct {
	Type       string     `json:"type"`
	ID         string     `json:"id,omitempty"`
	Name       string     `json:"name,omitempty"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Status     string     `json:"status,omitempty"`
}

// ToolCall is a tool call in a report; Args is its JSON.
type ToolCall struct {
	Name string `json:"name"`
	ID   string `json:"id"`
	Args string `json:"args"`
}

// Exchange is one arrow of a sequence diagram: From and To are "user",
// "agent", "model", "tools" or a tool's name; Label is a short text.
type Exchange struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label"`
	// Kind is "input", "request", "response", "call", "result",
	// "interrupt", "resume" or "error"; Emulated marks model calls made
	// by a tool emulator.
	Kind     string `json:"kind"`
	Emulated bool   `json:"emulated,omitempty"`
}

// Usage is what a scenario used.
type Usage struct {
	// ModelCalls counts every model call, EmulatedModelCalls those made
	// by tool emulators among them and JudgeModelCalls those made by the
	// judges of expect.graders; tokens and cost include the judges' too.
	ModelCalls         int `json:"model_calls"`
	EmulatedModelCalls int `json:"emulated_model_calls,omitempty"`
	JudgeModelCalls    int `json:"judge_model_calls,omitempty"`
	ToolCalls          int `json:"tool_calls"`
	// ToolRuns counts the runs of tool functions: retries count again,
	// calls answered by an emulator model count none.
	ToolRuns     int     `json:"tool_runs,omitempty"`
	Steps        int     `json:"steps"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	TotalTokens  int     `json:"total_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	// CostKnown is false when a model's price is not in the price table.
	CostKnown bool `json:"cost_known"`
}
