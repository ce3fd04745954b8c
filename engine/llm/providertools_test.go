package llm_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

// providerTool names a dict the way an agent binds it.
func providerTool(t *testing.T, js string) engine.ToolSchema {
	t.Helper()
	v, err := engine.DecodeJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.ProviderToolSchema(v.(*engine.Object))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestProviderToolsRequestBody: tools given as dicts reach the wire as
// each LangChain integration's bind_tools converts them: ChatOpenAI through
// convert_to_openai_tool (well-known types as they are, other dicts as
// functions), ChatAnthropic as they are for built-in tools and Anthropic
// tools, through convert_to_anthropic_tool for the rest.
func TestProviderToolsRequestBody(t *testing.T) {
	const (
		webSearch    = `{"type":"web_search_preview"}`
		oaiFunction  = `{"type":"function","function":{"name":"lookup","description":"Look up.","parameters":{"type":"object","properties":{}}}}`
		bareFunction = `{"name":"lookup","description":"Look up.","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}`
		titled       = `{"title":"lookup","description":"Look up.","type":"object","properties":{"q":{"type":"string"}}}`
		anthSearch   = `{"type":"web_search_20250305","name":"web_search","max_uses":2}`
		anthTool     = `{"name":"lookup","input_schema":{"type":"object","properties":{}},"cache_control":{"type":"ephemeral"}}`
	)
	hi := []engine.Message{engine.HumanMessage("hi")}
	openaiCases := []struct {
		reason, tool, want string
		strict             bool
	}{
		{"a well-known OpenAI tool type goes as it is", webSearch, webSearch, false},
		{"a {type: function} dict goes as it is, even with strict", oaiFunction, oaiFunction, true},
		{"an OpenAI function dict is wrapped as a function tool", bareFunction, `{"type":"function","function":` + bareFunction + `}`, false},
		{"a titled JSON Schema becomes a function named by its title", titled,
			`{"type":"function","function":{"name":"lookup","description":"Look up.","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}}`, false},
		{"an Anthropic tool becomes a function with its input_schema", anthTool,
			`{"type":"function","function":{"name":"lookup","parameters":{"type":"object","properties":{}}}}`, false},
	}
	for _, tc := range openaiCases {
		t.Run("openai/"+tc.reason, func(t *testing.T) {
			tr := &capture{answer: openaiAnswer}
			m, err := llm.NewOpenAI(llm.OpenAIConfig{Model: "gpt-test", HTTPClient: &http.Client{Transport: tr}})
			if err != nil {
				t.Fatal(err)
			}
			req := engine.ModelRequest{Messages: engine.NewMessageList(hi...), Tools: []engine.ToolSchema{providerTool(t, tc.tool)}}
			if tc.strict {
				req.Options = engine.NewObject("strict", true)
			}
			if _, err := m.Generate(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			sameJSON(t, `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"tools":[`+tc.want+`]}`, tr.body)
		})
	}
	anthropicCases := []struct{ reason, tool, want string }{
		{"a built-in tool goes as it is", anthSearch, anthSearch},
		{"so does any type with a built-in prefix, as _is_builtin_tool checks prefixes only", webSearch, webSearch},
		{"an Anthropic tool goes as it is", anthTool, anthTool},
		{"an OpenAI function becomes an Anthropic tool", oaiFunction, `{"name":"lookup","input_schema":{"type":"object","properties":{}},"description":"Look up."}`},
		{"a titled JSON Schema becomes an Anthropic tool", titled, `{"name":"lookup","input_schema":{"type":"object","properties":{"q":{"type":"string"}}},"description":"Look up."}`},
	}
	for _, tc := range anthropicCases {
		t.Run("anthropic/"+tc.reason, func(t *testing.T) {
			tr := &capture{answer: anthropicAnswer}
			m, err := llm.NewAnthropic(llm.AnthropicConfig{Model: "claude-test", MaxTokens: 1024, HTTPClient: &http.Client{Transport: tr}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Generate(context.Background(), engine.ModelRequest{Messages: engine.NewMessageList(hi...), Tools: []engine.ToolSchema{providerTool(t, tc.tool)}}); err != nil {
				t.Fatal(err)
			}
			sameJSON(t, `{"model":"claude-test","max_tokens":1024,"messages":[{"role":"user","content":"hi"}],"tools":[`+tc.want+`]}`, tr.body)
		})
	}
	t.Run("anthropic/an OpenAI built-in tool cannot be bound", func(t *testing.T) {
		m, err := llm.NewAnthropic(llm.AnthropicConfig{Model: "claude-test", MaxTokens: 1024, HTTPClient: &http.Client{Transport: &capture{answer: anthropicAnswer}}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Generate(context.Background(), engine.ModelRequest{Messages: engine.NewMessageList(hi...), Tools: []engine.ToolSchema{providerTool(t, `{"type":"code_interpreter","container":{"type":"auto"}}`)}})
		if err == nil || !strings.Contains(err.Error(), "KeyError('function')") {
			t.Errorf("Generate error = %v, want convert_to_anthropic_tool's KeyError('function')", err)
		}
	})
}
