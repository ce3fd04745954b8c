package middleware

import (
	"fmt"

	"github.com/agenteval/agenteval/engine"
)

// buildToolSelector reads model (default: the agent's), system_prompt,
// max_tools and always_include.
func buildToolSelector(opts *engine.Object, b BuildOptions) (engine.Middleware, error) {
	var o LLMToolSelectorOptions
	err := readOptions(opts, func(k string, v any) (err error) {
		switch k {
		case "model":
			if v != nil {
				o.Model, err = modelOption(k, v, b.Models)
			}
		case "system_prompt":
			o.SystemPrompt, err = stringOption(k, v)
		case "max_tools":
			if v != nil {
				o.MaxTools, err = intOption(k, v)
				if err == nil && o.MaxTools <= 0 {
					err = fmt.Errorf("max_tools: expected a positive number, got %d", o.MaxTools)
				}
			}
		case "always_include":
			if v != nil {
				o.AlwaysInclude, err = stringsOption(k, v)
			}
		default:
			err = unknownOption(k, "model", "system_prompt", "max_tools", "always_include")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return NewLLMToolSelector(o)
}

// buildToolEmulator reads tools (null: all) and model (default: the
// agent's model, BuildOptions.Models["model"], where langchain would
// default to Claude).
func buildToolEmulator(opts *engine.Object, b BuildOptions) (engine.Middleware, error) {
	o := LLMToolEmulatorOptions{Model: b.Models["model"]}
	err := readOptions(opts, func(k string, v any) (err error) {
		switch k {
		case "model":
			if v != nil {
				o.Model, err = modelOption(k, v, b.Models)
			}
		case "tools":
			if v != nil {
				o.Tools, err = stringsOption(k, v)
			}
		default:
			err = unknownOption(k, "tools", "model")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return NewLLMToolEmulator(o)
}
