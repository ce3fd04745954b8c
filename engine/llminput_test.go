package engine_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/google/go-cmp/cmp"
)

// TestLLMInputMessagesIsState: a pre-model hook's llm_input_messages is a
// channel of create_react_agent's state (the "agent" node's
// CallModelInputSchema in chat_agent_executor.py becomes a channel through
// StateGraph._add_schema). Streams and GetState show it (stream_channels),
// Invoke's output does not (output_channels is the state schema), the
// model sees it, "messages" never gets it, and it persists in checkpoints
// until the hook writes it again.
func TestLLMInputMessagesIsState(t *testing.T) {
	ctx := context.Background()
	sqlite, err := checkpoint.OpenSQLite(ctx, filepath.Join(t.TempDir(), "cp.db"), checkpoint.SQLiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sqlite.Close()
	for _, tc := range []struct {
		name  string
		saver engine.Checkpointer
	}{
		{"memory", checkpoint.NewMemory()},
		{"sqlite", sqlite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen [][]string
			model := llm.NewScripted("m", llm.Script{Responses: []llm.Response{
				{Message: engine.AIMessage("one")}, {Message: engine.AIMessage("two")},
			}})
			rec := engine.ChatModelFunc(func(ctx context.Context, req engine.ModelRequest) (engine.Message, error) {
				var texts []string
				for _, m := range req.Messages.All() {
					texts = append(texts, m.Text())
				}
				seen = append(seen, texts)
				return model.Generate(ctx, req)
			})
			agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{
				Model: rec,
				PreModelHook: func(_ context.Context, s engine.State) (any, error) {
					msgs := s.Messages("messages")
					return engine.State{"llm_input_messages": msgs[len(msgs)-1:]}, nil
				},
				Checkpointer: tc.saver,
			})
			if err != nil {
				t.Fatal(err)
			}
			cfg := engine.Config{ThreadID: "t-" + tc.name}
			res, err := agent.Invoke(ctx, engine.State{"messages": []any{"a", "b"}}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := res.Values["llm_input_messages"]; ok {
				t.Errorf("Invoke output has llm_input_messages; LangGraph's invoke reads output_channels only: %v", res.Values)
			}
			snap, err := agent.GetState(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(snap.Values.Messages("llm_input_messages")); !cmp.Equal(got, []string{"b"}) {
				t.Errorf("GetState llm_input_messages = %q, want [b]", got)
			}
			if got := texts(snap.Values.Messages("messages")); !cmp.Equal(got, []string{"a", "b", "one"}) {
				t.Errorf("GetState messages = %q, want [a b one]", got)
			}
			var last engine.State
			var hookUpdate any
			for part, err := range agent.Stream(ctx, engine.State{"messages": []any{"c"}}, cfg, engine.StreamValues, engine.StreamUpdates) {
				if err != nil {
					t.Fatal(err)
				}
				switch d := part.Data.(type) {
				case engine.State:
					last = d
				case map[string]any:
					if u, ok := d["pre_model_hook"]; ok {
						hookUpdate = u
					}
				}
			}
			if got := texts(last.Messages("llm_input_messages")); !cmp.Equal(got, []string{"c"}) {
				t.Errorf("stream values llm_input_messages = %q, want [c]", got)
			}
			if u, _ := hookUpdate.(engine.State); u == nil || u["llm_input_messages"] == nil {
				t.Errorf("pre_model_hook update chunk = %v, want llm_input_messages", hookUpdate)
			}
			want := [][]string{{"b"}, {"c"}}
			if d := cmp.Diff(want, seen); d != "" {
				t.Errorf("model inputs mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func texts(msgs []engine.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Text())
	}
	return out
}
