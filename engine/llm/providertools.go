package llm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// wellKnownOpenAITools are the tool types langchain-core's
// convert_to_openai_tool passes through unchanged
// (utils/function_calling.py _WellKnownOpenAITools), besides any
// "web_search_preview..." type.
var wellKnownOpenAITools = []string{"function", "file_search", "computer_use_preview", "code_interpreter", "mcp", "image_generation", "web_search_preview", "web_search"}

// openaiProviderTool converts a tool given as a dict the way ChatOpenAI's
// bind_tools does (convert_to_openai_tool): a well-known tool type goes as
// it is; anything else is read as a function (an OpenAI function, an
// Anthropic tool or a JSON Schema with a title, convert_to_openai_function)
// and sent as {"type": "function", "function": ...}, strict added when
// bind_tools was given strict.
func openaiProviderTool(d *engine.Object, strict *bool) (*engine.Object, error) {
	if t := str(d, "type"); slices.Contains(wellKnownOpenAITools, t) || strings.HasPrefix(t, "web_search_preview") {
		return d, nil
	}
	fn, err := openaiFunction(d, strict)
	if err != nil {
		return nil, err
	}
	return engine.NewObject("type", "function", "function", fn), nil
}

// anthropicBuiltinPrefixes are the type prefixes of Anthropic's
// server-side tools, which ChatAnthropic's bind_tools passes through
// unchanged (chat_models.py _is_builtin_tool, langchain-anthropic 1.0).
var anthropicBuiltinPrefixes = []string{"text_editor_", "computer_", "bash_", "web_search_", "web_fetch_", "code_execution_", "memory_"}

// anthropicProviderTool converts a tool given as a dict the way
// ChatAnthropic's bind_tools does: a built-in tool goes as it is, so does
// a dict with "name" and "input_schema" (already an Anthropic tool);
// anything else becomes {"name", "input_schema", "description"?} from its
// OpenAI function form (convert_to_anthropic_tool).
func anthropicProviderTool(d *engine.Object) (*engine.Object, error) {
	t := str(d, "type")
	for _, p := range anthropicBuiltinPrefixes {
		if strings.HasPrefix(t, p) {
			return d, nil
		}
	}
	if d.Has("name") && d.Has("input_schema") {
		return d, nil
	}
	oai, err := openaiProviderTool(d, nil)
	if err != nil {
		return nil, err
	}
	fnv, _ := oai.Get("function")
	fn, ok := fnv.(*engine.Object)
	if !ok {
		// convert_to_openai_tool(tool)["function"] raises KeyError
		return nil, fmt.Errorf("tool %s is an OpenAI built-in tool, which Anthropic cannot bind: KeyError('function')", engine.PyRepr(d))
	}
	params, ok := fn.Get("parameters")
	if !ok {
		return nil, fmt.Errorf("tool %s has no parameters: KeyError('parameters')", engine.PyRepr(d))
	}
	out := engine.NewObject("name", str(fn, "name"), "input_schema", params)
	if v, ok := fn.Get("description"); ok {
		out.Set("description", v)
	}
	return out, nil
}
