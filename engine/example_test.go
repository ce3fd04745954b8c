package engine_test

import (
	"context"
	"fmt"
	"log"

	"github.com/agenteval/agenteval/engine"
)

// Example builds LangGraph's prebuilt ReAct agent with one tool and a
// scripted model (first a tool call, then an answer from the tool's
// result), runs it, and prints the conversation it produced.
func Example() {
	weather := engine.NewTool(engine.ToolDef{
		Name:        "get_weather",
		Description: "Get the weather in a city.",
		Parameters: engine.NewObject(
			"type", "object",
			"properties", engine.NewObject("city", engine.NewObject("type", "string")),
			"required", []any{"city"},
		),
	}, func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
		city, _ := inv.Args().Get("city")
		return fmt.Sprintf("sunny in %s, 21°C", city), nil
	})

	// The model answers from what it sees: a tool call until a tool has
	// answered, then the tool's answer in a sentence.
	model := engine.ChatModelFunc(func(ctx context.Context, req engine.ModelRequest) (engine.Message, error) {
		last := req.Messages.At(req.Messages.Len() - 1)
		if last.Type != engine.TypeTool {
			return engine.AIMessage("", engine.ToolCall{
				Name: "get_weather",
				Args: engine.NewObject("city", "Paris"),
				ID:   "call_1",
			}), nil
		}
		return engine.AIMessage("It is " + last.Text() + "."), nil
	})

	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{
		Model: model,
		Tools: []engine.Tool{weather},
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := agent.Invoke(context.Background(),
		engine.State{"messages": []engine.Message{engine.HumanMessage("What is the weather in Paris?")}},
		engine.Config{})
	if err != nil {
		log.Fatal(err)
	}
	msgs := res.Values.Messages("messages")
	for _, m := range msgs {
		fmt.Printf("%s: %s", m.Type, m.Text())
		for _, tc := range m.ToolCalls {
			args, _ := engine.MarshalValue(tc.Args)
			fmt.Printf("[%s %s]", tc.Name, args)
		}
		fmt.Println()
	}
	fmt.Println("final:", msgs[len(msgs)-1].Text())
	// Output:
	// human: What is the weather in Paris?
	// ai: [get_weather {"city":"Paris"}]
	// tool: sunny in Paris, 21°C
	// ai: It is sunny in Paris, 21°C.
	// final: It is sunny in Paris, 21°C.
}
