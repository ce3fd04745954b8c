package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
)

// echoModel is a stateless model for concurrent runs: after a human
// message it calls tool "t" with the message's number, after a tool result
// it answers with that result.
type echoModel struct{}

func (echoModel) Generate(_ context.Context, req engine.ModelRequest) (engine.Message, error) {
	last := req.Messages.At(req.Messages.Len() - 1)
	if last.Type == engine.TypeTool {
		return engine.AIMessage("done " + last.Content.String()), nil
	}
	var n int
	fmt.Sscanf(last.Content.String(), "q%d", &n)
	return engine.AIMessage("", engine.ToolCall{Name: "t", Args: engine.NewObject("i", n), ID: fmt.Sprintf("call_q%d", n)}), nil
}

// render lists a thread's messages as type:content.
func render(msgs []engine.Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = string(m.Type) + ":" + m.Content.String()
	}
	return strings.Join(parts, " ")
}

// TestThreadListsSharedSafely: runs share a thread's message array (a run
// appends in place past every length handed out, and the next run from
// the newest checkpoint goes on appending there). Eight runs forking the
// same checkpoint at once, and a thread continued turn by turn, must each
// see exactly their own messages, and no result may change afterwards.
// Under -race this also checks that the array's claim orders the writes.
func TestThreadListsSharedSafely(t *testing.T) {
	ctx := context.Background()
	tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) {
		return fmt.Sprintf("r%d", argI(inv)), nil
	})
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: echoModel{}, Tools: []engine.Tool{tool}, Checkpointer: checkpoint.NewMemory()})
	if err != nil {
		t.Fatal(err)
	}
	var base []engine.Message
	for i := range 50 {
		base = append(base, engine.HumanMessage(fmt.Sprintf("old %d", i)), engine.AIMessage(fmt.Sprintf("answer %d", i)))
	}
	prefilled, err := agent.UpdateState(ctx, engine.Config{ThreadID: "t"}, engine.State{"messages": base}, "agent")
	if err != nil {
		t.Fatal(err)
	}
	turn := func(n int) string {
		return fmt.Sprintf("human:q%d ai: tool:r%d ai:done r%d", n, n, n)
	}
	type result struct {
		msgs []engine.Message
		want string
	}
	var mu sync.Mutex
	var results []result
	keep := func(msgs []engine.Message, want string) {
		mu.Lock()
		defer mu.Unlock()
		results = append(results, result{msgs, want})
	}

	// eight forks of the prefilled checkpoint at once
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			res, err := agent.Invoke(ctx, engine.State{"messages": []any{fmt.Sprintf("q%d", i)}}, engine.Config{ThreadID: "t", CheckpointID: prefilled.CheckpointID})
			if err != nil {
				t.Error(err)
				return
			}
			keep(res.Values.Messages("messages"), render(base)+" "+turn(i))
		})
	}
	wg.Wait()

	// a thread continued turn by turn from its newest checkpoint
	if _, err := agent.UpdateState(ctx, engine.Config{ThreadID: "u"}, engine.State{"messages": base}, "agent"); err != nil {
		t.Fatal(err)
	}
	want := render(base)
	for n := 10; n < 16; n++ {
		res, err := agent.Invoke(ctx, engine.State{"messages": []any{fmt.Sprintf("q%d", n)}}, engine.Config{ThreadID: "u"})
		if err != nil {
			t.Fatal(err)
		}
		want += " " + turn(n)
		keep(res.Values.Messages("messages"), want)
	}

	for i, r := range results {
		if got := render(r.msgs); got != r.want {
			t.Errorf("result %d, read after every run ended:\n got %s\nwant %s", i, got, r.want)
		}
	}
	snap, err := agent.GetState(ctx, engine.Config{ThreadID: "t", CheckpointID: prefilled.CheckpointID})
	if err != nil {
		t.Fatal(err)
	}
	if got := render(snap.Values.Messages("messages")); got != render(base) {
		t.Errorf("the prefilled checkpoint changed:\n got %s\nwant %s", got, render(base))
	}
}
