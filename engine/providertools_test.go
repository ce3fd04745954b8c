package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/google/go-cmp/cmp"
)

func dictTool(t *testing.T, js string) *engine.Object {
	t.Helper()
	v, err := engine.DecodeJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return v.(*engine.Object)
}

// TestProviderToolSchema: a dict tool is named by what names it in the
// formats bind_tools converts.
func TestProviderToolSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reason, dict string
		want               string
		wantErr            bool
	}{
		{name: "builtin", reason: "a built-in tool is named by its type", dict: `{"type": "web_search_preview"}`, want: "web_search_preview"},
		{name: "builtin named", reason: "Anthropic's built-in tools carry a name, which wins", dict: `{"type": "web_search_20250305", "name": "web_search"}`, want: "web_search"},
		{name: "function tool", reason: "{type: function} is named by its function", dict: `{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}`, want: "lookup"},
		{name: "openai function", reason: "an OpenAI function dict names itself", dict: `{"name": "lookup", "parameters": {"type": "object"}}`, want: "lookup"},
		{name: "json schema", reason: "a JSON Schema is named by its title", dict: `{"title": "Lookup", "type": "object", "properties": {}}`, want: "Lookup"},
		{name: "nameless", reason: "a dict that names nothing cannot be called", dict: `{"description": "what?"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := engine.ProviderToolSchema(dictTool(t, tt.dict))
			if tt.wantErr {
				if err == nil {
					t.Errorf("ProviderToolSchema(%s) = %+v, want an error (%s)", tt.dict, s, tt.reason)
				}
				return
			}
			if err != nil || s.Name != tt.want || s.Provider == nil {
				t.Errorf("ProviderToolSchema(%s) = %q, %v, want %q with the dict kept (%s)", tt.dict, s.Name, err, tt.want, tt.reason)
			}
		})
	}
}

// dictToolModel calls the dict tool and the real tool at once, then
// answers.
func dictToolModel() *llm.Scripted {
	return llm.NewScripted("m", llm.Script{Responses: []llm.Response{
		{Message: engine.Message{Type: engine.TypeAI, ID: "ai1", Content: engine.Text(""), ToolCalls: []engine.ToolCall{
			{Name: "web_lookup", Args: engine.NewObject("q", "rain"), ID: "call_1"},
			{Name: "weather", Args: engine.NewObject("i", 1), ID: "call_2"},
		}}},
		{Message: engine.Message{Type: engine.TypeAI, ID: "ai2", Content: engine.Text("done")}},
	}})
}

const webLookup = `{"type": "function", "function": {"name": "web_lookup", "description": "Search the web.", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}`

// TestProviderToolsReact: create_react_agent binds dict tools after its
// ToolNode's tools (bind_tools(tool_classes + llm_builtin_tools)) and
// leaves them out of the ToolNode, so a call to one is answered as an
// unknown tool; with dict tools only there is no tools node and the run
// ends with the calling message, which the next turn's
// _validate_chat_history refuses (chat_agent_executor.py).
func TestProviderToolsReact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	weather := cityTool("weather", func(context.Context, engine.ToolInvocation) (any, error) { return "sunny", nil })
	for _, version := range []string{"v1", "v2"} {
		model := dictToolModel()
		g, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{weather}, ProviderTools: []*engine.Object{dictTool(t, webLookup)}, Version: version})
		if err != nil {
			t.Fatal(err)
		}
		res, err := g.Invoke(ctx, engine.State{"messages": []engine.Message{engine.HumanMessage("rain?")}}, engine.Config{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range res.Values.Messages("messages") {
			if m.Type == engine.TypeTool {
				got = append(got, m.Name+"|"+string(m.Status)+"|"+m.Text())
			}
		}
		want := []string{"web_lookup|error|Error: web_lookup is not a valid tool, try one of [weather].", "weather|success|sunny"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: tool messages (-want +got):\n%s", version, d)
		}
		bound := model.Calls()[0].Request.Tools
		if len(bound) != 2 || bound[0].Name != "weather" || bound[1].Name != "web_lookup" || bound[1].Provider == nil {
			t.Errorf("%s: bound tools = %+v, want weather then the web_lookup dict", version, bound)
		}
	}

	model := dictToolModel()
	saver := checkpoint.NewMemory()
	g, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, ProviderTools: []*engine.Object{dictTool(t, webLookup)}, Checkpointer: saver})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"__end__", "__start__", "agent"}, g.Nodes()); d != "" {
		t.Errorf("nodes of an agent with dict tools only (-want +got):\n%s", d)
	}
	cfg := engine.Config{ThreadID: "t1"}
	res, err := g.Invoke(ctx, engine.State{"messages": []engine.Message{engine.HumanMessage("rain?")}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	msgs := res.Values.Messages("messages")
	if last := msgs[len(msgs)-1]; last.ID != "ai1" || len(last.ToolCalls) != 2 {
		t.Errorf("last message = %+v, want the calling AI message ai1", last)
	}
	_, err = g.Invoke(ctx, engine.State{"messages": []engine.Message{engine.HumanMessage("and now?")}}, cfg)
	if !errors.Is(err, engine.ErrInvalidChatHistory) {
		t.Errorf("next turn error = %v, want INVALID_CHAT_HISTORY for the unanswered calls", err)
	}
}

// TestProviderToolsAgent: create_agent binds default_tools = the
// ToolNode's tools + built_in_tools, routes a call to a dict tool to the
// ToolNode (answered as unknown), and builds no tools node when the dicts
// are all it has (factory.py create_agent).
func TestProviderToolsAgent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	weather := cityTool("weather", func(context.Context, engine.ToolInvocation) (any, error) { return "sunny", nil })
	model := dictToolModel()
	g, err := engine.CreateAgent(engine.AgentConfig{Model: model, Tools: []engine.Tool{weather}, ProviderTools: []*engine.Object{dictTool(t, webLookup)}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Invoke(ctx, engine.State{"messages": []engine.Message{engine.HumanMessage("rain?")}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := res.Values.Messages("messages")
	if len(msgs) != 5 || !strings.HasPrefix(msgs[2].Text(), "Error: web_lookup is not a valid tool") || msgs[4].Text() != "done" {
		t.Errorf("messages = %v, want the unknown-tool answer, the weather and done", msgs)
	}
	if bound := model.Calls()[0].Request.Tools; len(bound) != 2 || bound[1].Provider == nil {
		t.Errorf("bound tools = %+v, want weather then the dict", bound)
	}

	only, err := engine.CreateAgent(engine.AgentConfig{Model: dictToolModel(), ProviderTools: []*engine.Object{dictTool(t, webLookup)}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"__end__", "__start__", "model"}, only.Nodes()); d != "" {
		t.Errorf("nodes of an agent with dict tools only (-want +got):\n%s", d)
	}
	res, err = only.Invoke(ctx, engine.State{"messages": []engine.Message{engine.HumanMessage("rain?")}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if msgs := res.Values.Messages("messages"); len(msgs) != 2 || msgs[1].ID != "ai1" {
		t.Errorf("messages = %v, want the run to end with the calling message", msgs)
	}
	if _, err := engine.CreateAgent(engine.AgentConfig{Model: dictToolModel(), ProviderTools: []*engine.Object{dictTool(t, `{"description": "nameless"}`)}}); err == nil {
		t.Error("CreateAgent with a dict that names no tool succeeded, want an error")
	}
}
