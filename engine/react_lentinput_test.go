package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
)

// loopModel calls tool "t" until k results follow the human message,
// then answers "done".
type loopModel struct{ k int }

func (m loopModel) Generate(_ context.Context, req engine.ModelRequest) (engine.Message, error) {
	done := 0
	for _, m := range req.Messages.Backward() {
		if m.Type == engine.TypeHuman {
			break
		}
		if m.Type == engine.TypeTool {
			done++
		}
	}
	if done >= m.k {
		return engine.AIMessage("done"), nil
	}
	return engine.AIMessage("", engine.ToolCall{Name: "t", Args: engine.NewObject("i", done), ID: fmt.Sprintf("c%d", done)}), nil
}

// TestReactModelInputStaysAsGiven: the agent's router reads the state
// fresh (with the model's answer), and without a model selector or a
// prompt function it fills the map the model node was given with it
// (nothing else holds that map). A model selector holds it: the state it
// was given must keep the messages it had, call after call, while the
// tools still get the fresh state, with the answer that called them.
// Lending the map whatever the configuration fails the first case.
func TestReactModelInputStaysAsGiven(t *testing.T) {
	for _, tc := range []struct {
		name     string
		selector bool
		reason   string
	}{
		{"model selector", true, "the selector may keep the state: its map is not lent"},
		{"plain model", false, "the map is lent to the router: the tools' state is still the fresh one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type held struct {
				state engine.State
				n     int
			}
			var given []held
			var injected []int
			tool := engine.NewTool(engine.ToolDef{Name: "t", Description: "counts", Parameters: engine.NewObject("type", "object"),
				Inject: []engine.Injection{{Arg: "state", Kind: engine.InjectState}}},
				func(_ context.Context, inv engine.ToolInvocation) (any, error) {
					st, _ := inv.Injected["state"].(engine.State)
					injected = append(injected, len(st.Messages("messages")))
					return "ok", nil
				})
			cfg := engine.ReactAgentConfig{Model: loopModel{k: 3}, Tools: []engine.Tool{tool}}
			if tc.selector {
				cfg.Model = nil
				cfg.ModelSelector = func(_ context.Context, s engine.State, _ *engine.Runtime) (engine.ChatModel, error) {
					given = append(given, held{s, len(s.Messages("messages"))})
					return loopModel{k: 3}, nil
				}
			}
			agent, err := engine.CreateReactAgent(cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := agent.Invoke(context.Background(), engine.State{"messages": []any{"go"}}, engine.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(res.Values.Messages("messages")); n != 8 {
				t.Fatalf("%s: run ended with %d messages, want 8", tc.reason, n)
			}
			for i, h := range given {
				if n := len(h.state.Messages("messages")); n != h.n {
					t.Errorf("%s: the state of model call %d had %d messages, has %d now", tc.reason, i, h.n, n)
				}
			}
			// the human message, then per cycle the call and its answer:
			// each tool sees its own call, not its answer
			if diff := cmp.Diff([]int{2, 4, 6}, injected); diff != "" {
				t.Errorf("%s: messages in the injected state (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestReactRouterReusesModelInput: the point of lending the model node's
// map, held: an agent without a model selector allocates at least two
// fewer times per cycle (a map of two keys) than one whose selector
// returns the same model.
func TestReactRouterReusesModelInput(t *testing.T) {
	const k = 5
	allocs := func(cfg engine.ReactAgentConfig) float64 {
		cfg.Tools = []engine.Tool{engine.NewTool(engine.ToolDef{Name: "t", Description: "ok", Parameters: engine.NewObject("type", "object")},
			func(context.Context, engine.ToolInvocation) (any, error) { return "ok", nil })}
		agent, err := engine.CreateReactAgent(cfg)
		if err != nil {
			t.Fatal(err)
		}
		input := engine.State{"messages": []any{"go"}}
		return testing.AllocsPerRun(20, func() {
			if _, err := agent.Invoke(context.Background(), input, engine.Config{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	plain := allocs(engine.ReactAgentConfig{Model: loopModel{k: k}})
	selected := allocs(engine.ReactAgentConfig{ModelSelector: func(context.Context, engine.State, *engine.Runtime) (engine.ChatModel, error) {
		return loopModel{k: k}, nil
	}})
	if selected-plain < 2*k {
		t.Errorf("allocations per run: %v without a selector, %v with one; want at least %d fewer without", plain, selected, 2*k)
	}
}
