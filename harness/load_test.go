package harness

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agenteval/agenteval/emulator"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/grade"
)

// problemStrings returns the problems of a *LoadError as strings, or the
// error's text when it is some other error.
func problemStrings(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var le *LoadError
	if !errors.As(err, &le) {
		return []string{"not a *LoadError: " + err.Error()}
	}
	var out []string
	for _, p := range le.Problems {
		out = append(out, p.String())
	}
	return out
}

func TestLoadBrokenFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file   string
		reason string
		want   []string
	}{{
		file:   "unknown_keys.yaml",
		reason: "misspelt keys at every level get a suggestion; a key like no allowed one lists them all",
		want: []string{
			`testdata/load/unknown_keys.yaml:1:1: descripton: unknown field "descripton" (did you mean "description"?)`,
			`testdata/load/unknown_keys.yaml:3:3: agent.knd: unknown field "knd" (did you mean "kind"?)`,
			`testdata/load/unknown_keys.yaml:4:3: agent.flavour: unknown field "flavour": expected one of kind, model, base_url, prompt, recursion_limit, version, name, response_format, middleware, checkpointer, interrupt_before, interrupt_after, handle_tool_errors, max_concurrency, command, env, pass_env, timeout, dir, replay, nodes`,
			`testdata/load/unknown_keys.yaml:11:9: tools[0].results[0].retrun: unknown field "retrun" (did you mean "return"?)`,
			`testdata/load/unknown_keys.yaml:15:11: expect.final.contain: unknown field "contain" (did you mean "contains"?)`,
		},
	}, {
		file:   "wrong_types.yaml",
		reason: "a value of the wrong type says what was expected, at the value",
		want: []string{
			`testdata/load/wrong_types.yaml:1:7: tags: expected a list, got a string`,
			`testdata/load/wrong_types.yaml:3:20: agent.recursion_limit: expected an integer, got a string`,
			`testdata/load/wrong_types.yaml:4:23: agent.handle_tool_errors: expected a boolean or a string, got a list`,
			`testdata/load/wrong_types.yaml:5:17: agent.checkpointer: expected a boolean, got a string`,
			`testdata/load/wrong_types.yaml:9:8: tools: expected a list, got a mapping`,
			`testdata/load/wrong_types.yaml:11:11: turns[0].user: expected a string, got a list`,
			`testdata/load/wrong_types.yaml:13:13: expect.max_cost: expected a number, got a string`,
			`testdata/load/wrong_types.yaml:14:11: expect.golden: expected a boolean, got a number`,
		},
	}, {
		file:   "middleware_options.yaml",
		reason: "middleware options are checked by building the middleware, at the options' place",
		want: []string{
			`testdata/load/middleware_options.yaml:5:16: agent.middleware[0].options: run_limit: expected an integer or null, got 'many'`,
		},
	}, {
		file:   "aux_models.yaml",
		reason: "a provider model named in middleware options is checked like agent.model, at its place; an openai-compatible one needs agent.base_url",
		want: []string{
			`testdata/load/aux_models.yaml:5:24: agent.middleware[0].options.model: unknown provider "openia" in model "openia:gpt-4.1-mini": expected "openai", "anthropic" or "openai-compatible" (did you mean "openai"?)`,
			`testdata/load/aux_models.yaml:7:56: agent.middleware[1].options.models[1]: missing agent.base_url: an "openai-compatible" model answers from the agent's server`,
			`testdata/load/aux_models.yaml:9:24: agent.middleware[2].options.model: model "openai:" names no model: expected "openai:<model>"`,
		},
	}, {
		file:   "enums.yaml",
		reason: "a value outside an enum lists the allowed values, with a suggestion when one is close",
		want: []string{
			`testdata/load/enums.yaml:2:9: agent.kind: unknown kind "reakt": expected "react", "agent", "graph", "go" or "command" (did you mean "react"?)`,
			`testdata/load/enums.yaml:3:12: agent.version: unknown version "v3": expected "v1" or "v2" (did you mean "v1"?)`,
			`testdata/load/enums.yaml:6:15: agent.response_format.strategy: unknown strategy "json": expected "auto", "tool" or "provider"`,
			`testdata/load/enums.yaml:14:16: tools[0].results[0].match: unknown match "glob": expected "exact", "subset" or "regex"`,
			`testdata/load/enums.yaml:20:11: expect.trajectory.mode: unknown mode "strikt": expected "strict", "unordered", "subset" or "superset" (did you mean "strict"?)`,
			`testdata/load/enums.yaml:21:11: expect.trajectory.args: unknown args "fuzzy": expected "exact", "ignore", "subset" or "superset"`,
			`testdata/load/enums.yaml:22:30: expect.trajectory.tool_args.get_weather: unknown value "partial": expected "exact", "ignore", "subset" or "superset"`,
		},
	}, {
		file:   "tools.yaml",
		reason: "tool rules: regexes compile, return xor error, error_type needs error, unique names, exactly one behaviour (one message, not one per alternative)",
		want: []string{
			"testdata/load/tools.yaml:7:22: tools[0].results[0].when.city: invalid regular expression: error parsing regexp: missing closing ): `Par(is`",
			`testdata/load/tools.yaml:11:9: tools[0].results[1].error: a result either returns or raises: set return or error, not both`,
			`testdata/load/tools.yaml:12:9: tools[0].results[2].error_type: only allowed together with error`,
			`testdata/load/tools.yaml:13:11: tools[1].name: duplicate tool "get_weather" (also tools[0])`,
			`testdata/load/tools.yaml:15:5: tools[2]: needs exactly one of go, results or emulate, got none`,
			`testdata/load/tools.yaml:16:5: tools[3]: needs exactly one of go, results or emulate, got go and emulate`,
		},
	}, {
		file:   "turns.yaml",
		reason: "turn rules: one kind per turn, as_node with update_state, a new thread cannot resume, from_step ≥ -1",
		want: []string{
			`testdata/load/turns.yaml:5:5: turns[0].resume: thread "main" has not started: its first turn cannot be resume`,
			`testdata/load/turns.yaml:6:5: turns[1]: needs exactly one of user, resume, decisions, update_state or continue, got user and continue`,
			`testdata/load/turns.yaml:8:5: turns[2]: needs exactly one of user, resume, decisions, update_state or continue, got none`,
			`testdata/load/turns.yaml:9:5: turns[2].as_node: only allowed together with update_state`,
			`testdata/load/turns.yaml:11:16: turns[3].from_step: must be at least -1, got -2`,
			`testdata/load/turns.yaml:13:5: turns[4].decisions: thread "other" has not started: its first turn cannot be decisions`,
		},
	}, {
		file:   "script.yaml",
		reason: "engine/llm's script problems are placed at their JSON paths below script and models",
		want: []string{
			`testdata/load/script.yaml:4:20: script.responses[0].tool_calls[0]: missing "name"`,
			`testdata/load/script.yaml:5:7: script.responses[1]: unknown key "colour" (expected id, content, tool_calls, usage or raise)`,
			`testdata/load/script.yaml:9:16: models.summarizer.responses: expected an array of responses, got number 3`,
		},
	}, {
		file:   "no_script.yaml",
		reason: "the default scripted model needs a script; with no agent.model the problem points at the document",
		want: []string{
			`testdata/load/no_script.yaml:1:1: script: missing: the "scripted" model (the default agent.model) answers from script`,
		},
	}, {
		file:   "model.yaml",
		reason: "model providers, middleware classes and options, and middleware with the react kind",
		want: []string{
			`testdata/load/model.yaml:2:10: agent.model: unknown provider "opnai" in model "opnai:gpt-4.1-mini": expected "openai", "anthropic" or "openai-compatible" (did you mean "openai"?)`,
			`testdata/load/model.yaml:4:5: agent.middleware: middleware needs agent.kind "agent" (create_agent), not "react"`,
			`testdata/load/model.yaml:4:13: agent.middleware[0].type: unknown type "TodoListMiddlewar": expected "HumanInTheLoopMiddleware", "ModelCallLimitMiddleware", "ToolCallLimitMiddleware", "ToolRetryMiddleware", "ModelRetryMiddleware", "ModelFallbackMiddleware", "PIIMiddleware", "SummarizationMiddleware", "ContextEditingMiddleware", "LLMToolSelectorMiddleware", "ShellToolMiddleware", "FilesystemFileSearchMiddleware", "TodoListMiddleware" or "LLMToolEmulator" (did you mean "TodoListMiddleware"?)`,
			`testdata/load/model.yaml:6:16: agent.middleware[1].options: expected a mapping, got a list`,
		},
	}, {
		file:   "workspace.yaml",
		reason: "workspace files stay inside, dir must exist next to the scenario, contents are strings; middleware options are checked",
		want: []string{
			`testdata/load/workspace.yaml:5:16: agent.middleware[0].options: max_file_size_mb: expected a positive number of megabytes, got 0`,
			`testdata/load/workspace.yaml:8:8: workspace.dir: "no_such_fixture" is not a directory next to the scenario (looked for testdata/load/no_such_fixture)`,
			`testdata/load/workspace.yaml:10:5: workspace.files["../escape.txt"]: "../escape.txt" leaves the workspace`,
			`testdata/load/workspace.yaml:11:5: workspace.files["/etc/passwd"]: "/etc/passwd" is absolute: give a path inside the workspace`,
			`testdata/load/workspace.yaml:13:13: workspace.files.colour: expected a string, got a number`,
		},
	}, {
		file:   "provider.yaml",
		reason: "an openai-compatible model needs a base URL; a provider model needs no script",
		want: []string{
			`testdata/load/provider.yaml:2:10: agent.base_url: missing: an "openai-compatible" model needs the server's base_url`,
		},
	}, {
		file:   "gemini_react.yaml",
		reason: "a gemini model is served to command agents only: the engine has no Gemini client",
		want: []string{
			`testdata/load/gemini_react.yaml:2:10: agent.model: a "gemini" model is served to command agents only (agenteval serve speaks Gemini's API; the engine has no Gemini client): set agent.kind "command", not "react"`,
		},
	}, {
		file:   "expect.yaml",
		reason: "expected tool names must be declared, steps need group_parallel, regexes compile, limits are not negative",
		want: []string{
			`testdata/load/expect.yaml:11:20: expect.trajectory.calls[0].name: unknown tool "get_wether" (did you mean "get_weather"?)`,
			`testdata/load/expect.yaml:11:40: expect.trajectory.calls[1].name: unknown tool "book_flight": declared tools are "get_weather"`,
			`testdata/load/expect.yaml:12:5: expect.trajectory.steps: steps needs group_parallel: true (list the calls in calls otherwise)`,
			`testdata/load/expect.yaml:13:17: expect.trajectory.tool_args.get_time: unknown tool "get_time": declared tools are "get_weather"`,
			"testdata/load/expect.yaml:14:18: expect.final.regex: invalid regular expression: error parsing regexp: missing closing ): `sunny(`",
			`testdata/load/expect.yaml:15:19: expect.max_tool_calls: must be at least 0, got -1`,
		},
	}, {
		file:   "checkpointer.yaml",
		reason: "without a checkpointer a thread cannot have a second turn, resume or time travel",
		want: []string{
			`testdata/load/checkpointer.yaml:8:5: turns[1]: needs a checkpointer: a second turn on thread "main", but agent.checkpointer is false, so every turn starts a fresh thread`,
			`testdata/load/checkpointer.yaml:11:5: turns[2].from_step: needs a checkpointer: agent.checkpointer is false, so there are no checkpoints`,
			`testdata/load/checkpointer.yaml:12:5: turns[3].resume: needs a checkpointer: agent.checkpointer is false, so every turn starts a fresh thread`,
		},
	}, {
		file:   "no_turns.yaml",
		reason: "a scenario runs at least one turn",
		want: []string{
			`testdata/load/no_turns.yaml:4:8: turns: needs at least 1 entry`,
		},
	}, {
		file:   "syntax.yaml",
		reason: "a YAML syntax error is reported with goccy's line and column",
		want: []string{
			`testdata/load/syntax.yaml:3:1: invalid YAML: ',' or ']' must be specified`,
		},
	}, {
		file:   "duplicate_key.yaml",
		reason: "a key given twice is an error at the second, naming the first",
		want: []string{
			`testdata/load/duplicate_key.yaml:6:1: turns: duplicate key "turns" (first at line 4)`,
		},
	}, {
		file:   "empty.yaml",
		reason: "an empty file is one problem, not one per missing key",
		want: []string{
			`testdata/load/empty.yaml:1:1: the file is empty: a scenario is a mapping with at least turns`,
		},
	}, {
		file:   "graders.yaml",
		reason: "every grader's problems at their places: the schema's bounds and keys, then grade's own rules (one kind, a judge's rubric, reference and script, a regex, a timeout), each field once",
		want: []string{
			`testdata/load/graders.yaml:8:7: expect.graders[0]: needs exactly one of judge, trajectory_score, order, args, answer, go or command, got order and go`,
			`testdata/load/graders.yaml:11:14: expect.graders[1].judge.reference: missing: the correctness rubric compares with a reference answer`,
			`testdata/load/graders.yaml:11:14: expect.graders[1].judge.script: missing: a "scripted" judge (the default judge.model) answers from script`,
			`testdata/load/graders.yaml:11:50: expect.graders[1].judge.choices[1]: must be at most 1, got 1.5`,
			`testdata/load/graders.yaml:15:9: expect.graders[2].judge.script: judge.model openai:gpt-4.1-mini answers from the scenario's cassette: a script is for a scripted judge`,
			`testdata/load/graders.yaml:16:18: expect.graders[3].threshold: must be at most 1, got 2`,
			`testdata/load/graders.yaml:20:28: expect.graders[3].args.fields.amount.approx.tol: missing required field`,
			"testdata/load/graders.yaml:21:18: expect.graders[3].args.fields.from.regex: invalid regular expression: error parsing regexp: missing closing ]: `[A-Z`",
			`testdata/load/graders.yaml:22:11: expect.graders[3].args.fields.to: sets no condition: set regex, approx, one_of, text, schema or similar`,
			`testdata/load/graders.yaml:23:34: expect.graders[4].trajectory_score.method: unknown method "jaccard": expected "lcs", "edit", "f1", "precision" or "recall"`,
			`testdata/load/graders.yaml:24:34: expect.graders[5].command.timeout: want a duration such as "10s": time: invalid duration "soon"`,
			`testdata/load/graders.yaml:25:49: expect.graders[6].answer.similar.min: must be at most 1, got 3`,
		},
	}, {
		file:   "stream.yaml",
		reason: "stream modes are LangGraph's (with a suggestion), an update_state turn streams nothing, expect.streamed needs a turn that streams messages and entries that agree with themselves",
		want: []string{
			`testdata/load/stream.yaml:5:18: turns[0].stream_mode: unknown stream mode "mesages": expected "values", "updates" or "messages", or a list of them (did you mean "messages"?)`,
			`testdata/load/stream.yaml:7:5: turns[1].stream_mode: an update_state turn runs no graph, so it streams nothing`,
			`testdata/load/stream.yaml:9:27: turns[2].stream_mode[1]: unknown value "tokens": expected "values", "updates" or "messages"`,
			`testdata/load/stream.yaml:12:3: expect.streamed: no turn streams messages: give the turns to watch stream_mode: messages`,
			`testdata/load/stream.yaml:13:27: expect.streamed[0].pieces: 1 piece, but chunks is 2: each chunk is one piece`,
			"testdata/load/stream.yaml:14:22: expect.streamed[1].text.regex: invalid regular expression: error parsing regexp: missing closing ): `(`",
			`testdata/load/stream.yaml:14:34: expect.streamed[1].type: unknown type "chunk": expected "ai", "tool", "human" or "system"`,
		},
	}, {
		file:   "graph.yaml",
		reason: "a graph's nodes: names unique and free of LangGraph's reserved forms, models and tools that exist (with suggestions), middleware and react-only fields on the right kind, middleware options built; agent fields that belong to a node; a checkpointer; provider models in a node's middleware options",
		want: []string{
			`testdata/load/graph.yaml:1:1: script: missing: the "scripted" model (the default agent.model) answers from script`,
			`testdata/load/graph.yaml:3:3: agent.prompt: not for a "graph" agent: set it on the node whose agent it configures (agent.nodes[i].prompt)`,
			`testdata/load/graph.yaml:4:17: agent.checkpointer: a "graph" agent needs its checkpointer: what its subgraphs did is read from their checkpoints`,
			`testdata/load/graph.yaml:6:13: agent.nodes[0].name: "__start__" is LangGraph's own: a node's name may not start with "__"`,
			`testdata/load/graph.yaml:8:14: agent.nodes[1].model: no model "reseacher" in models: a node's model is the scenario's (leave it out) or a scripted model of models (did you mean "researcher"?)`,
			`testdata/load/graph.yaml:9:15: agent.nodes[1].tools[0]: unknown tool "get_wether" (did you mean "get_weather"?)`,
			`testdata/load/graph.yaml:10:19: agent.nodes[1].middleware: middleware needs kind "agent" (create_agent), not "react"`,
			`testdata/load/graph.yaml:11:13: agent.nodes[2].name: duplicate node "researcher" (also agent.nodes[1])`,
			`testdata/load/graph.yaml:13:7: agent.nodes[2].version: only for kind "react" (create_react_agent), not "agent"`,
			`testdata/load/graph.yaml:14:62: agent.nodes[2].middleware[0].options: run_limit: expected an integer or null, got 'many'`,
			`testdata/load/graph.yaml:15:14: agent.nodes[3].name: "a:b": a node's name may not hold ":" or "|", which checkpoint namespaces use`,
			`testdata/load/graph.yaml:18:69: agent.nodes[4].middleware[0].options.model: unknown provider "opnai" in model "opnai:gpt-4.1-mini": expected "openai", "anthropic" or "openai-compatible" (did you mean "openai"?)`,
		},
	}, {
		file:   "nodes.yaml",
		reason: "nodes belong to a graph agent",
		want: []string{
			`testdata/load/nodes.yaml:2:3: agent.nodes: only for agent.kind "graph", not "react"`,
		},
	}, {
		file:   "two_docs.yaml",
		reason: "a file holds one scenario",
		want: []string{
			`testdata/load/two_docs.yaml:4:1: a scenario file holds one YAML document, found another`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			path := "testdata/load/" + tt.file
			s, err := Load(path)
			if s != nil {
				t.Errorf("Load(%s) returned a scenario with problems", path)
			}
			if diff := cmp.Diff(tt.want, problemStrings(t, err)); diff != "" {
				t.Errorf("Load(%s) mismatch (-want +got):\n%s\n%s", path, diff, tt.reason)
			}
		})
	}
}

// TestLoadBrokenFilesCovered keeps every file in testdata/load in
// TestLoadBrokenFiles's table.
func TestLoadBrokenFilesCovered(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/load/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in testdata/load: %v", err)
	}
	src, err := os.ReadFile("load_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.Contains(string(src), `file:   "`+filepath.Base(f)+`"`) {
			t.Errorf("%s has no case in TestLoadBrokenFiles", f)
		}
	}
}

// fullScenario uses every field of the format.
const fullScenario = `# yaml-language-server: $schema=../../harness/scenario.schema.json
name: full/everything
description: Every field.
tags: [agent, hitl]
skip: not yet
agent:
  kind: agent
  model: scripted
  base_url: http://localhost:1/v1
  prompt: Be brief.
  recursion_limit: 12
  version: v1
  name: helper
  response_format:
    schema: {title: Answer, type: object}
    strategy: tool
    validate: true
  middleware:
    - type: HumanInTheLoopMiddleware
      options: {interrupt_on: {send_email: true}}
    - type: TodoListMiddleware
  checkpointer: true
  interrupt_before: [tools]
  interrupt_after: [model]
  handle_tool_errors: Try again.
  max_concurrency: 2
script:
  responses:
    - content: ""
      tool_calls: [{name: send_email, args: {to: bob}, id: call_1}]
    - content: Done.
models:
  summarizer:
    responses: [{content: Summary.}]
tools:
  - name: send_email
    description: Send an e-mail.
    parameters: {type: object, properties: {to: {type: string}}}
    return_direct: true
    results:
      - when: {to: "b.*"}
        match: regex
        times: 1
        return: {status: sent, id: 1.50}
      - error: mailbox full
        error_type: ValueError
  - name: search
    go: true
  - name: guess
    emulate: {model: agent, seed: 3}
    latency: {dist: fixed, ms: 20}
turns:
  - user: Mail Bob.
  - decisions: [{type: approve}]
  - thread: main
    update_state: {messages: []}
    as_node: agent
  - continue: true
    from_step: -1
  - resume: {answer: 42}
expect:
  trajectory:
    mode: superset
    args: subset
    tool_args: {send_email: ignore}
    group_parallel: true
    calls: [{name: send_email, args: {to: bob}}]
    steps: [[{name: send_email}]]
  final: {equals: Done., contains: [Do], regex: "^D", not_contains: [error]}
  structured_response: {schema: {type: object}, values: {ok: true}}
  interrupts: []
  max_model_calls: 2
  max_tool_calls: 1
  max_steps: 10
  max_tokens: 0
  max_cost: 0.25
  error: {type: GraphRecursionError, contains: limit}
  golden: true
`

func TestParseFullScenario(t *testing.T) {
	t.Parallel()
	intp := func(i int) *int { return &i }
	yes := true
	floatp := func(f float64) *float64 { return &f }
	equals := "Done."
	n := func(s string) json.Number { return json.Number(s) }
	want := &Scenario{
		Name:        "full/everything",
		Description: "Every field.",
		Tags:        []string{"agent", "hitl"},
		Skip:        "not yet",
		Agent: Agent{
			Kind: "agent", Model: "scripted", BaseURL: "http://localhost:1/v1", Prompt: "Be brief.",
			RecursionLimit: 12, Version: "v1", Name: "helper",
			ResponseFormat: &ResponseFormat{Schema: engine.NewObject("title", "Answer", "type", "object"), Strategy: "tool", Validate: true},
			Middleware: []Middleware{
				{Type: "HumanInTheLoopMiddleware", Options: engine.NewObject("interrupt_on", engine.NewObject("send_email", true))},
				{Type: "TodoListMiddleware"},
			},
			Checkpointer:     &yes,
			InterruptBefore:  []string{"tools"},
			InterruptAfter:   []string{"model"},
			HandleToolErrors: "Try again.",
			MaxConcurrency:   2,
		},
		Script: engine.NewObject("responses", []any{
			engine.NewObject("content", "", "tool_calls", []any{engine.NewObject("name", "send_email", "args", engine.NewObject("to", "bob"), "id", "call_1")}),
			engine.NewObject("content", "Done."),
		}),
		Models: map[string]any{"summarizer": engine.NewObject("responses", []any{engine.NewObject("content", "Summary.")})},
		Tools: []Tool{{
			Name: "send_email", Description: "Send an e-mail.",
			Parameters:   engine.NewObject("type", "object", "properties", engine.NewObject("to", engine.NewObject("type", "string"))),
			ReturnDirect: true,
			Results: []Result{
				{When: engine.NewObject("to", "b.*"), Match: "regex", Times: 1, Return: engine.NewObject("status", "sent", "id", n("1.50"))},
				{Error: "mailbox full", ErrorType: "ValueError"},
			},
		}, {
			Name: "search", Go: true,
		}, {
			Name: "guess", Emulate: &Emulate{Model: "agent", Seed: 3}, Latency: &emulator.Latency{Dist: "fixed", MS: 20},
		}},
		Turns: []Turn{
			{User: "Mail Bob."},
			{Decisions: []any{engine.NewObject("type", "approve")}},
			{Thread: "main", UpdateState: engine.NewObject("messages", []any{}), AsNode: "agent"},
			{Continue: true, FromStep: intp(-1)},
			{Resume: engine.NewObject("answer", n("42"))},
		},
		Expect: grade.Expect{
			Trajectory: &grade.Trajectory{
				Mode: "superset", Args: "subset", ToolArgs: map[string]string{"send_email": "ignore"}, GroupParallel: true,
				Calls: []grade.Call{{Name: "send_email", Args: engine.NewObject("to", "bob")}},
				Steps: [][]grade.Call{{{Name: "send_email"}}},
			},
			Final:              &grade.TextMatch{Equals: &equals, Contains: []string{"Do"}, Regex: "^D", NotContains: []string{"error"}},
			StructuredResponse: &grade.StructuredExpect{Schema: engine.NewObject("type", "object"), Values: engine.NewObject("ok", true)},
			Interrupts:         &[]any{},
			MaxModelCalls:      intp(2),
			MaxToolCalls:       intp(1),
			MaxSteps:           intp(10),
			MaxTokens:          intp(0),
			MaxCost:            floatp(0.25),
			Error:              &grade.ErrorExpect{Type: "GraphRecursionError", Contains: "limit"},
			Golden:             true,
		},
		File: "full.yaml",
	}
	got, err := Parse("full.yaml", []byte(fullScenario))
	if err != nil {
		t.Fatalf("Parse(full.yaml): %v", err)
	}
	opts := cmp.Options{
		cmpopts.IgnoreUnexported(Scenario{}),
		cmp.Comparer(func(a, b *engine.Object) bool { return engine.ValueEqual(a, b) }),
	}
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("Parse(full.yaml) mismatch (-want +got):\n%s", diff)
	}
	// Mappings keep the file's key order.
	if keys := got.Script.(*engine.Object).Keys(); !slices.Equal(keys, []string{"responses"}) {
		t.Errorf("script keys = %v", keys)
	}
	ret := got.Tools[0].Results[0].Return.(*engine.Object)
	if keys := ret.Keys(); !slices.Equal(keys, []string{"status", "id"}) {
		t.Errorf("return keys = %v, want [status id]", keys)
	}
}

func TestParsePositions(t *testing.T) {
	t.Parallel()
	s, err := Parse("full.yaml", []byte(fullScenario))
	if err != nil {
		t.Fatalf("Parse(full.yaml): %v", err)
	}
	tests := []struct {
		path   string
		reason string
		want   Position
	}{
		{"", "the document starts at its first key", Position{2, 1}},
		{"agent", "a block mapping starts at its first key", Position{7, 3}},
		{"agent.kind", "a scalar starts at its value", Position{7, 9}},
		{"agent.middleware[1].type", "list entries are indexed", Position{21, 13}},
		{"tools[0].results[0].when", "a flow mapping starts at its brace", Position{41, 15}},
		{"tools[0].results[0].when.to", "free-form values have positions too", Position{41, 20}},
		{"turns[3].from_step", "negative numbers", Position{59, 16}},
		{"expect.trajectory", "nested mappings", Position{63, 5}},
		{"expect.interrupts", "an empty flow list starts at its bracket", Position{71, 15}},
		{"expect.nothing", "a field not in the file has no position", Position{}},
	}
	for _, tt := range tests {
		if got := s.Pos(tt.path); got != tt.want {
			t.Errorf("Pos(%q) = %v, want %v (%s)", tt.path, got, tt.want, tt.reason)
		}
	}
}

func TestParseValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		yaml   string
		want   any // tools[0].results[0].return
	}{
		{"float literal", "numbers keep their literal", "1.50", json.Number("1.50")},
		{"hex", "YAML integers JSON cannot write are converted", "0x1F", json.Number("31")},
		{"str tag", "!!str keeps the text of a scalar", "!!str 123", "123"},
		{"null", "null is nil", "null", nil},
		{"block", "block scalars are strings", "|\n          two\n          lines", "two\nlines\n"},
		{"alias", "aliases expand to a copy of the anchored value", "*v", engine.NewObject("k", "v")},
		{"list", "lists are []any", "[1, a, true]", []any{json.Number("1"), "a", true}},
		{"merge", "merge keys add the keys a mapping does not set itself", "{<<: *v, n: 1}", engine.NewObject("n", json.Number("1"), "k", "v")},
		{"merge override", "a mapping's own keys win over merged ones, wherever they are", "{k: w, <<: *v}", engine.NewObject("k", "w")},
	}
	for _, tt := range tests {
		doc := "script: {responses: []}\n" +
			"turns: [{user: hi}]\n" +
			"tools:\n  - name: t\n    parameters: &v {k: v}\n    results:\n      - return: " + tt.yaml + "\n"
		s, err := Parse("values.yaml", []byte(doc))
		if err != nil {
			t.Errorf("%s: Parse: %v", tt.name, err)
			continue
		}
		got := s.Tools[0].Results[0].Return
		if !engine.ValueEqual(got, tt.want) {
			t.Errorf("%s: return = %#v, want %#v (%s)", tt.name, got, tt.want, tt.reason)
		}
	}
}

func TestParseAliasBomb(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 12; i++ {
		b.WriteString("a" + strconv.Itoa(i) + ": &a" + strconv.Itoa(i) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + strconv.Itoa(i-1))
		}
		b.WriteString("]\n")
	}
	_, err := Parse("bomb.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "too many values") {
		t.Errorf("Parse(bomb.yaml) = %v, want an error about too many values", err)
	}
}

func TestProblemString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p      Problem
		reason string
		want   string
	}{
		{Problem{File: "a.yaml", Line: 3, Col: 9, Field: "agent.kind", Message: "bad"}, "the full form", "a.yaml:3:9: agent.kind: bad"},
		{Problem{File: "a.yaml", Line: 1, Col: 1, Message: "empty"}, "a problem of the whole document has no field", "a.yaml:1:1: empty"},
		{Problem{File: "a.yaml", Field: "name", Message: "taken"}, "a problem with no place has no line", "a.yaml: name: taken"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q (%s)", tt.p, got, tt.want, tt.reason)
		}
	}
	err := &LoadError{Problems: []Problem{tests[0].p, tests[1].p}}
	if got, want := err.Error(), "a.yaml:3:9: agent.kind: bad\na.yaml:1:1: empty"; got != want {
		t.Errorf("LoadError.Error() = %q, want %q", got, want)
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	keys := []string{"kind", "model", "base_url", "prompt", "go", "results", "emulate"}
	tests := []struct {
		word   string
		reason string
		want   string
	}{
		{"knd", "one deletion", "kind"},
		{"modle", "a transposition is distance 2", "model"},
		{"MODEL", "case differs", "model"},
		{"base", "a prefix", "base_url"},
		{"resultsx", "the known key is a prefix", "results"},
		{"xyz", "nothing close", ""},
		{"foo", "distance 2 from a two-letter key is too far", ""},
		{"", "no word", ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.word, keys); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q (%s)", tt.word, got, tt.want, tt.reason)
		}
	}
}

func TestLoadDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	valid := "script: {responses: [{content: hi}]}\nturns: [{user: hi}]\n"
	files := map[string]string{
		"root/react/weather.yaml":  valid,
		"root/react/time.yml":      "name: clock\n" + valid,
		"root/_shared/base.yaml":   "not: a scenario\n",
		"root/.hidden/x.yaml":      "not: a scenario\n",
		"root/react/_draft.yaml":   "not: a scenario\n",
		"root/react/notes.txt":     "not yaml",
		"root/broken/bad.yaml":     "turns: []\nscript: {responses: []}\n",
		"root/broken/worse.yaml":   "agent: {knd: react}\nscript: {responses: []}\nturns: [{user: hi}]\n",
		"root/dup/one.yaml":        "name: react/weather\n" + valid,
		"elsewhere/sub/outer.yaml": valid,
		"elsewhere/single.yaml":    valid,
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Join(dir, "root")
	got, err := LoadDir(root)
	type loaded struct{ Name, Rel string }
	var gotNames []loaded
	for _, s := range got {
		gotNames = append(gotNames, loaded{s.Name, s.Rel})
	}
	// dup/one.yaml sorts first, so react/weather.yaml repeats its name.
	want := []loaded{{"react/weather", "dup/one"}, {"clock", "react/time"}}
	if diff := cmp.Diff(want, gotNames); diff != "" {
		t.Errorf("LoadDir(root) mismatch (-want +got):\n%s", diff)
	}
	wantErr := []string{
		filepath.Join(root, "broken/bad.yaml") + ":1:8: turns: needs at least 1 entry",
		filepath.Join(root, "broken/worse.yaml") + `:1:9: agent.knd: unknown field "knd" (did you mean "kind"?)`,
		filepath.Join(root, "react/weather.yaml") + `:1:1: name: duplicate scenario name "react/weather" (also ` + filepath.Join(root, "dup/one.yaml") + ")",
	}
	if err == nil {
		t.Fatalf("LoadDir(root) = nil error, want the broken files' problems")
	}
	if diff := cmp.Diff(wantErr, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("LoadDir(root) error mismatch (-want +got):\n%s", diff)
	}

	// Paths outside the root are named from their own directory.
	got, err = LoadDir(root, filepath.Join(dir, "elsewhere", "single.yaml"), filepath.Join(dir, "elsewhere", "sub"), filepath.Join(root, "react", "weather.yaml"))
	if err != nil {
		t.Fatalf("LoadDir(root, paths...): %v", err)
	}
	gotNames = nil
	for _, s := range got {
		gotNames = append(gotNames, loaded{s.Name, s.Rel})
	}
	want = []loaded{{"single", "single"}, {"outer", "outer"}, {"react/weather", "react/weather"}}
	if diff := cmp.Diff(want, gotNames); diff != "" {
		t.Errorf("LoadDir(root, paths...) mismatch (-want +got):\n%s", diff)
	}

	if _, err := LoadDir(root, filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("LoadDir(missing) = %v, want a not-found error", err)
	}
}

func TestSchemaCompiles(t *testing.T) {
	t.Parallel()
	if _, err := loadSchema(); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(SchemaJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     SchemaID,
		"title":   "agenteval scenario",
	} {
		if doc[key] != want {
			t.Errorf("schema %s = %v, want %q", key, doc[key], want)
		}
	}
}

// TestSchemaDescribesEveryProperty keeps a description on every property,
// for editors to show.
func TestSchemaDescribesEveryProperty(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(SchemaJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok && !strings.Contains(path, "oneOf") {
				for name, p := range props {
					if pm, _ := p.(map[string]any); pm["description"] == nil {
						t.Errorf("schema %s/properties/%s has no description", path, name)
					}
				}
			}
			for k, e := range v {
				walk(path+"/"+k, e)
			}
		case []any:
			for i, e := range v {
				walk(path+"/"+strconv.Itoa(i), e)
			}
		}
	}
	walk("#", doc)
}

// TestSchemaMatchesTypes walks the Scenario types and the schema together:
// every json-tagged field is a schema property and every schema property is
// a field, so the two never drift apart.
func TestSchemaMatchesTypes(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(SchemaJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	defs, _ := doc["$defs"].(map[string]any)
	resolve := func(s map[string]any) map[string]any {
		for {
			ref, ok := s["$ref"].(string)
			if !ok {
				return s
			}
			s, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
	}
	seen := map[reflect.Type]bool{}
	var walk func(path string, typ reflect.Type, s map[string]any)
	walk = func(path string, typ reflect.Type, s map[string]any) {
		s = resolve(s)
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		switch typ.Kind() {
		case reflect.Slice:
			items, _ := s["items"].(map[string]any)
			if items == nil {
				if typ.Elem().Kind() != reflect.Interface {
					t.Errorf("%s: schema has no items for %s", path, typ)
				}
				return
			}
			walk(path+"[]", typ.Elem(), items)
		case reflect.Map:
			add, _ := s["additionalProperties"].(map[string]any)
			if add == nil {
				t.Errorf("%s: schema has no additionalProperties schema for %s", path, typ)
				return
			}
			walk(path+".*", typ.Elem(), add)
		case reflect.Struct:
			if seen[typ] {
				return
			}
			seen[typ] = true
			props, _ := s["properties"].(map[string]any)
			if s["additionalProperties"] != false {
				t.Errorf("%s: schema of %s allows unknown keys", path, typ)
			}
			var fields []string
			for i := range typ.NumField() {
				f := typ.Field(i)
				name := jsonName(f)
				if name == "" {
					continue
				}
				fields = append(fields, name)
				p, ok := props[name].(map[string]any)
				if !ok {
					t.Errorf("%s: field %s.%s (%q) is not in the schema", path, typ.Name(), f.Name, name)
					continue
				}
				walk(path+"."+name, f.Type, p)
			}
			for name := range props {
				if !slices.Contains(fields, name) {
					t.Errorf("%s: schema property %q is not a field of %s", path, name, typ)
				}
			}
		}
	}
	walk("scenario", reflect.TypeFor[Scenario](), doc)
}

// TestValidScenariosLoad loads the repository's scenarios when they are
// there: the loader must accept every one.
func TestValidScenariosLoad(t *testing.T) {
	t.Parallel()
	const dir = "../scenarios"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no %s", dir)
	}
	if _, err := LoadDir(dir); err != nil {
		t.Errorf("LoadDir(%s): %v", dir, err)
	}
}

func TestParseDeepNesting(t *testing.T) {
	t.Parallel()
	doc := "turns: " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n"
	_, err := Parse("deep.yaml", []byte(doc))
	want := []string{"deep.yaml:1:208: values are nested deeper than 200 levels (--limit depth=N, Limits.Depth)"}
	if diff := cmp.Diff(want, problemStrings(t, err)); diff != "" {
		t.Errorf("Parse(deep.yaml) mismatch (-want +got):\n%s", diff)
	}
}

// TestParseStreamMode: stream_mode takes one mode or a list, as
// LangGraph's stream_mode does; both load as a list.
func TestParseStreamMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		yaml   string
		reason string
		want   StreamModes
	}{
		{"messages", "one mode is a list of one", StreamModes{"messages"}},
		{"[updates, messages]", "a list keeps its order", StreamModes{"updates", "messages"}},
	}
	for _, tt := range tests {
		doc := "script: {responses: []}\nturns:\n  - user: hi\n    stream_mode: " + tt.yaml + "\n    subgraphs: true\n"
		s, err := Parse("stream.yaml", []byte(doc))
		if err != nil {
			t.Fatalf("Parse(stream_mode: %s): %v", tt.yaml, err)
		}
		if d := cmp.Diff(tt.want, s.Turns[0].StreamMode); d != "" || !s.Turns[0].Subgraphs {
			t.Errorf("Parse(stream_mode: %s) mismatch (-want +got):\n%s\nsubgraphs %v (%s)", tt.yaml, d, s.Turns[0].Subgraphs, tt.reason)
		}
	}
}
