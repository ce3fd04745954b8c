package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/serve"
)

// TestProvidersStreamMessages runs a one-call graph in the "messages"
// stream mode over each provider against serve's fake server: the request
// is streamed (LangChain's models stream when a StreamMessagesHandler
// listens), the text arrives in the pieces the server sent (serve splits
// every text in two), and a last chunk carries the tool calls; the chunks
// add up to the message the node wrote.
func TestProvidersStreamMessages(t *testing.T) {
	t.Parallel()
	turn := serve.Turn{Model: "m-2026", Text: "Let me look.", ToolCalls: []serve.ToolCall{{ID: "call_1", Name: "lookup", Args: `{"who":"Ada"}`}}, Usage: serve.Usage{Input: 10, Output: 5}}
	cases := []struct {
		name  string
		model func(f *fakeServer) (engine.ChatModel, error)
		key   string
	}{
		{"openai", func(f *fakeServer) (engine.ChatModel, error) {
			return llm.NewOpenAI(llm.OpenAIConfig{Model: "gpt-test", APIKey: testKey, BaseURL: f.URL + "/v1", HTTPClient: f.Client()})
		}, testKey},
		{"anthropic", func(f *fakeServer) (engine.ChatModel, error) {
			return llm.NewAnthropic(llm.AnthropicConfig{Model: "claude-test", APIKey: testAnthropicKey, BaseURL: f.URL, HTTPClient: f.Client()})
		}, testAnthropicKey},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFake(t, tc.key, turn)
			model, err := tc.model(f)
			if err != nil {
				t.Fatal(err)
			}
			g := engine.NewStateGraph(engine.MessagesField("messages"))
			g.AddNode("model", func(ctx context.Context, s engine.State) (any, error) {
				msg, err := engine.Generate(ctx, model, engine.ModelRequest{Messages: engine.NewMessageList(s.Messages("messages")...)})
				return engine.State{"messages": []engine.Message{msg}}, err
			})
			g.AddEdge(engine.Start, "model")
			g.AddEdge("model", engine.End)
			compiled, err := g.Compile(engine.CompileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			var calls []engine.ToolCall
			ids := map[string]bool{}
			for part, err := range compiled.Stream(context.Background(), engine.State{"messages": []engine.Message{engine.HumanMessage("who?")}}, engine.Config{}, engine.StreamMessages) {
				if err != nil {
					t.Fatal(err)
				}
				c := part.Data.(engine.MessageChunk)
				ids[c.Message.ID] = true
				if s := c.Message.Text(); s != "" {
					texts = append(texts, s)
				}
				calls = append(calls, c.Message.ToolCalls...)
				if p, _ := c.Metadata.Get("ls_provider"); p != tc.name {
					t.Errorf("ls_provider = %v, want %s", p, tc.name)
				}
			}
			if len(texts) < 2 || strings.Join(texts, "") != "Let me look." {
				t.Errorf("text chunks = %q, want the text in the server's pieces", texts)
			}
			if len(calls) != 1 || calls[0].Name != "lookup" || calls[0].ID != "call_1" {
				t.Errorf("tool calls streamed = %v, want the one call on the last chunk", calls)
			}
			if len(ids) != 1 || ids[""] {
				t.Errorf("chunk ids = %v, want one id for the whole answer", ids)
			}
			body, err := f.srv.Exchanges()[0].Request.JSON()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(true, body["stream"]); d != "" {
				t.Errorf("request stream flag (-want +got):\n%s", d)
			}
		})
	}
}
