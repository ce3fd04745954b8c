package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

// BenchmarkAgentCycle measures one ReAct cycle: model -> one tool call ->
// model, with a scripted model and no checkpointer.
func BenchmarkAgentCycle(b *testing.B) {
	tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) { return "ok", nil })
	tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	script := llm.Script{Responses: []llm.Response{
		{Message: engine.AIMessage("", engine.ToolCall{Name: "t", Args: engine.NewObject("i", 1), ID: "c1"})},
		{Message: engine.AIMessage("done")},
	}}
	input := engine.State{"messages": []any{"go"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: llm.NewScripted("m", script), ToolNode: tn})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := agent.Invoke(ctx, input, engine.Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolNode measures a ToolNode running N calls of a trivial tool
// (argument validation included).
func BenchmarkToolNode(b *testing.B) {
	for _, n := range []int{1, 8, 64, 256} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) { return "ok", nil })
			tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{})
			if err != nil {
				b.Fatal(err)
			}
			input := engine.State{"messages": []engine.Message{engine.AIMessage("", callsOf("t", n)...)}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tn.Invoke(ctx, input); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
		})
	}
}

// BenchmarkToolGraph measures the ToolNode inside a compiled graph,
// START → tools → END over a messages key, invoked with one AI message of
// N calls (bench/peers' agenteval/graph contender).
func BenchmarkToolGraph(b *testing.B) {
	for _, n := range []int{1, 256} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) { return "ok", nil })
			tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{})
			if err != nil {
				b.Fatal(err)
			}
			g, err := engine.NewStateGraph(engine.MessagesField("messages")).
				AddNode("tools", tn.Node()).
				AddEdge(engine.Start, "tools").
				AddEdge("tools", engine.End).
				Compile(engine.CompileOptions{})
			if err != nil {
				b.Fatal(err)
			}
			input := engine.State{"messages": []engine.Message{engine.AIMessage("", callsOf("t", n)...)}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Invoke(ctx, input, engine.Config{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
		})
	}
}
