package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agenteval/agenteval/harness"
)

// A scenario file, parsed: fields hold what the file says, and every field
// has a position for later messages.
func ExampleParse() {
	const file = `
description: The agent looks up the weather and answers.
tags: [react, tools]
agent:
  kind: react
script:
  responses:
    - content: ""
      tool_calls: [{name: get_weather, args: {city: Paris}, id: call_1}]
    - content: It is sunny in Paris.
tools:
  - name: get_weather
    results:
      - when: {city: Paris}
        return: sunny
turns:
  - user: What's the weather in Paris?
expect:
  trajectory: {calls: [{name: get_weather, args: {city: Paris}}]}
  final: {contains: [sunny]}
  max_model_calls: 2
`
	s, err := harness.Parse("weather.yaml", []byte(file))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Agent.Kind, s.Tools[0].Name, s.Turns[0].User)
	fmt.Println("max model calls:", *s.Expect.MaxModelCalls)
	fmt.Println("trajectory at", s.Pos("expect.trajectory"))
	when, _ := json.Marshal(s.Tools[0].Results[0].When)
	fmt.Println("when:", string(when))
	// Output:
	// react get_weather What's the weather in Paris?
	// max model calls: 2
	// trajectory at {19 15}
	// when: {"city":"Paris"}
}

// Every problem in a file is reported at once, each with its place, field
// and what was expected.
func ExampleParse_problems() {
	const file = `agent:
  kind: reakt
  modle: scripted
script:
  responses: [{content: hi}]
tools:
  - name: get_weather
    results: [{return: sunny}]
    emulate: {}
turns:
  - resume: yes
`
	_, err := harness.Parse("broken.yaml", []byte(file))
	var le *harness.LoadError
	if errors.As(err, &le) {
		for _, p := range le.Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// broken.yaml:2:9: agent.kind: unknown kind "reakt": expected "react", "agent", "graph", "go" or "command" (did you mean "react"?)
	// broken.yaml:3:3: agent.modle: unknown field "modle" (did you mean "model"?)
	// broken.yaml:7:5: tools[0]: needs exactly one of go, results or emulate, got results and emulate
	// broken.yaml:11:5: turns[0].resume: thread "main" has not started: its first turn cannot be resume
}

// The JSON Schema of scenario files, for editors and "agenteval schema".
func ExampleSchemaJSON() {
	var schema struct {
		ID    string `json:"$id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal(harness.SchemaJSON(), &schema); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(schema.ID)
	fmt.Println(schema.Title)
	// Output:
	// https://agenteval.dev/schema/scenario/v1.json
	// agenteval scenario
}

// Graders score a run from 0 to 1 with a reason, each against its
// threshold: here a scripted judge and a trajectory score that gives
// partial credit for a needless call.
func ExampleRunScenario_graders() {
	const file = `
script:
  responses:
    - content: ""
      tool_calls: [{name: search, args: {q: weather}, id: call_1}]
    - content: ""
      tool_calls: [{name: get_weather, args: {city: Paris}, id: call_2}]
    - content: It is sunny in Paris.
tools:
  - name: search
    results: [{return: nothing found}]
  - name: get_weather
    results: [{return: sunny}]
turns:
  - user: What's the weather in Paris?
expect:
  graders:
    - name: correct
      judge:
        builtin: correctness
        reference: Sunny.
        script:
          responses:
            - content: '{"reasoning": "Same facts as the reference.", "score": 1}'
    - name: calls
      threshold: 0.6
      trajectory_score:
        calls: [{name: get_weather, args: {city: Paris}}]
`
	s, err := harness.Parse("weather.yaml", []byte(file))
	if err != nil {
		fmt.Println(err)
		return
	}
	res := harness.RunScenario(context.Background(), s, harness.Options{})
	fmt.Println(res.Status)
	for _, e := range res.Expectations {
		if e.Grader != "" {
			fmt.Printf("%s (%s): %.3g of %.3g: %s\n", e.Name, e.Grader, *e.Score, *e.Threshold, e.Reason)
		}
	}
	// Output:
	// pass
	// correct (judge): 1 of 1: Same facts as the reference.
	// calls (trajectory_score): 0.667 of 0.6: 1 call in common, in order, of 1 expected and 2 made; unexpected search {"q": "weather"}
}

// Two agents as the nodes of one graph, the turn streaming messages from
// inside them (subgraphs: true): each streamed message comes with the
// node that made it and its subgraph, in chunks of the script's
// chunk_size.
func ExampleRunScenarioObserved_streamedSubgraphs() {
	const file = `
agent:
  kind: graph
  nodes:
    - {name: researcher, model: researcher}
    - {name: writer, model: writer, tools: []}
models:
  researcher:
    chunk_size: 10
    responses: [{id: r1, content: Paris is sunny.}]
  writer:
    chunk_size: 10
    responses: [{id: w1, content: "Dear Ana, it is sunny."}]
turns:
  - user: Tell Ana about Paris.
    stream_mode: messages
    subgraphs: true
expect:
  streamed:
    - {namespace: researcher, node: agent, pieces: [Paris is s, unny.]}
    - {namespace: writer, node: agent, chunks: 3}
`
	s, err := harness.Parse("pipeline.yaml", []byte(file))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, obs := harness.RunScenarioObserved(context.Background(), s, harness.Options{})
	fmt.Println(res.Status)
	for _, m := range obs.Streamed {
		fmt.Printf("%s › %s: %q\n", m.Path(), m.Node, m.Pieces())
	}
	// Output:
	// pass
	// researcher › agent: ["Paris is s" "unny."]
	// writer › agent: ["Dear Ana, " "it is sunn" "y."]
}
