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
