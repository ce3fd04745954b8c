package harness_test

import (
	"context"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/harness"
)

// TestParallelInterruptsInCallOrder: two tool calls of one AI message that
// both interrupt finish in any order, but the report lists their
// interrupts in call order, every time.
func TestParallelInterruptsInCallOrder(t *testing.T) {
	const file = `
script:
  responses:
    - tool_calls: [{name: ask, args: {q: first}, id: c1}, {name: ask, args: {q: second}, id: c2}]
tools:
  - {name: ask, go: true}
turns:
  - user: go
expect:
  interrupts: [{q: first}, {q: second}]
`
	s, err := harness.Parse("interrupts.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	s.Name, s.Rel = "interrupts", "interrupts"
	ask := engine.NewTool(engine.ToolDef{Name: "ask", Parameters: engine.NewObject("type", "object",
		"properties", engine.NewObject("q", engine.NewObject("type", "string")))},
		func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
			q, _ := inv.Args().Get("q")
			return engine.Interrupt(ctx, engine.NewObject("q", q))
		})
	for i := range 20 {
		res := harness.RunScenario(context.Background(), s, harness.Options{Tools: map[string]engine.Tool{"ask": ask}})
		got, _ := engine.PyJSON(res.Interrupts)
		if res.Status != "pass" || got != `[{"q": "first"}, {"q": "second"}]` {
			t.Fatalf("run %d: status %s (%s), interrupts %s; want pass with first, second", i, res.Status, res.Message, got)
		}
	}
}
