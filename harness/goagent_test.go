package harness_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
)

// goAgentScenario runs the Go agent named in it: one tool call, then an
// answer, over two turns.
const goAgentScenario = `agent:
  kind: go
  name: %s
  prompt: You are terse.
script:
  responses:
    - content: ""
      tool_calls: [{name: get_weather, args: {city: Paris}, id: call_1}]
    - content: It is sunny.
    - content: Goodbye.
tools:
  - name: get_weather
    results: [{return: sunny}]
turns:
  - user: Weather in Paris?
  - user: Thanks.
expect:
  trajectory: {calls: [{name: get_weather, args: {city: Paris}}]}
  final: {equals: Goodbye.}
  max_model_calls: 3
  max_tool_calls: 1
`

// shout is a middleware of a team's own: it upper-cases tool results.
type shout struct{}

func (shout) Name() string { return "Shout" }

func (shout) WrapToolCall(ctx context.Context, req engine.ToolCallRequest, next engine.ToolCallExecutor) (any, error) {
	out, err := next(ctx, req)
	if m, ok := out.(engine.Message); ok && err == nil {
		m.Content = engine.Text(strings.ToUpper(m.Text()))
		return m, nil
	}
	return out, err
}

// loopTurn is a turn of a hand-written agent loop, as another Go
// framework would run it: call the model, run its tool calls, until it
// answers.
func loopTurn(ctx context.Context, env harness.GoAgentEnv, msgs []engine.Message) ([]engine.Message, error) {
	tools := map[string]engine.Tool{}
	for _, t := range env.Tools {
		tools[t.Definition().Name] = t
	}
	var added []engine.Message
	for range 5 {
		ai, err := env.Model.Generate(ctx, engine.ModelRequest{Messages: engine.NewMessageList(append(append([]engine.Message{engine.SystemMessage(env.Prompt)}, msgs...), added...)...)})
		if err != nil {
			return nil, err
		}
		added = append(added, ai)
		if len(ai.ToolCalls) == 0 {
			return added, nil
		}
		for _, c := range ai.ToolCalls {
			out, err := tools[c.Name].Invoke(ctx, engine.ToolInvocation{Call: c})
			if err != nil {
				return nil, err
			}
			added = append(added, engine.ToolMessage(engine.Text(fmt.Sprint(out)), c.Name, c.ID))
		}
	}
	return added, fmt.Errorf("too many steps")
}

// TestGoAgents runs a registered engine graph (CreateAgent with a
// middleware of its own) and a registered turn function on one scenario
// each, with the scenario's script, tools and expectations.
func TestGoAgents(t *testing.T) {
	agents := map[string]harness.GoAgent{
		"support-bot": {Graph: func(env harness.GoAgentEnv) (*engine.Graph, error) {
			return engine.CreateAgent(engine.AgentConfig{Model: env.Model, Tools: env.Tools, SystemPrompt: env.Prompt,
				Middleware: []engine.Middleware{shout{}}, Checkpointer: env.Checkpointer, Clock: env.Clock})
		}},
		"loop-bot": {Turn: loopTurn},
	}
	tests := []struct {
		name, reason string
		// wantTool is the tool result the thread shows.
		wantTool string
	}{
		{"support-bot", "an engine graph with the team's middleware, which upper-cases tool results", "SUNNY"},
		{"loop-bot", "a turn function of another framework, wrapped in the runner's graph", "sunny"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := harness.Parse("go.yaml", []byte(fmt.Sprintf(goAgentScenario, tc.name)))
			if err != nil {
				t.Fatal(err)
			}
			s.Name = tc.name
			res, obs := harness.RunScenarioObserved(context.Background(), s, harness.Options{Agents: agents})
			if res.Status != report.StatusPass {
				t.Fatalf("%s\nstatus %s: %s\n%s", tc.reason, res.Status, res.Message, res.Diff)
			}
			var tools []string
			for _, m := range obs.Messages {
				if m.Type == engine.TypeTool {
					tools = append(tools, m.Text())
				}
			}
			if diff := cmp.Diff([]string{tc.wantTool}, tools); diff != "" {
				t.Errorf("%s\ntool results mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestGoAgentErrors checks the errors of a Go agent that is not
// registered, or registered wrongly.
func TestGoAgentErrors(t *testing.T) {
	s, err := harness.Parse("go.yaml", []byte(fmt.Sprintf(goAgentScenario, "nobody")))
	if err != nil {
		t.Fatal(err)
	}
	res := harness.RunScenario(context.Background(), s, harness.Options{})
	if want := `go.yaml: build agent: agent.name: no Go agent named "nobody" is registered (Options.Agents)`; res.Status != report.StatusError || res.Message != want {
		t.Errorf("an unregistered agent: status %s, message %q; want error %q", res.Status, res.Message, want)
	}
	res = harness.RunScenario(context.Background(), s, harness.Options{Agents: map[string]harness.GoAgent{"nobody": {}}})
	if want := `invalid options: Agents["nobody"]: sets neither Graph nor Turn`; res.Status != report.StatusError || res.Message != want {
		t.Errorf("an empty registration: status %s, message %q; want error %q", res.Status, res.Message, want)
	}
}

// twoCallsScenario makes two tool calls in one turn, under a tool-call
// limit of %d.
const twoCallsScenario = `agent:
  kind: go
  name: %s
script:
  responses:
    - content: ""
      tool_calls: [{name: get_weather, args: {city: Paris}, id: call_1}, {name: get_weather, args: {city: Rome}, id: call_2}]
    - content: Sunny in both.
tools:
  - name: get_weather
    results: [{return: sunny}]
turns:
  - user: Weather in Paris and Rome?
expect:
  max_tool_calls: %d
`

// TestGoAgentLimits checks that the limits counted from the observed run
// hold for a Go agent as for the engine's own: a Turn agent's tool calls
// are the tool messages its one node ("agent") added, not only those of a
// node named "tools".
func TestGoAgentLimits(t *testing.T) {
	agents := map[string]harness.GoAgent{
		"support-bot": {Graph: func(env harness.GoAgentEnv) (*engine.Graph, error) {
			return engine.CreateAgent(engine.AgentConfig{Model: env.Model, Tools: env.Tools, Checkpointer: env.Checkpointer, Clock: env.Clock})
		}},
		"loop-bot": {Turn: loopTurn},
	}
	tests := []struct {
		agent  string
		limit  int
		want   report.Status
		reason string
	}{
		{"loop-bot", 1, report.StatusFail, "a Turn agent's two calls break a limit of 1: they were counted as 0 (\"0 tool calls (2 tool runs)\") and passed"},
		{"loop-bot", 2, report.StatusPass, "a Turn agent's two calls meet a limit of 2"},
		{"support-bot", 1, report.StatusFail, "a Graph agent's tool node answers two calls: a limit of 1 fails, as for an engine agent"},
		{"support-bot", 2, report.StatusPass, "a Graph agent's two calls meet a limit of 2"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%d", tc.agent, tc.limit), func(t *testing.T) {
			t.Parallel()
			s, err := harness.Parse("go.yaml", []byte(fmt.Sprintf(twoCallsScenario, tc.agent, tc.limit)))
			if err != nil {
				t.Fatal(err)
			}
			res, obs := harness.RunScenarioObserved(context.Background(), s, harness.Options{Agents: agents})
			if res.Status != tc.want {
				t.Fatalf("%s\nstatus %s, want %s: %s", tc.reason, res.Status, tc.want, res.Message)
			}
			if obs.Usage.ToolCalls != 2 || obs.Usage.ToolRuns != 2 {
				t.Errorf("%s\nusage: %d tool calls (%d tool runs), want 2 (2)", tc.reason, obs.Usage.ToolCalls, obs.Usage.ToolRuns)
			}
		})
	}
}
