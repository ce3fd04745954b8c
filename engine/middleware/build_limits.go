package middleware

import (
	"fmt"

	"github.com/agenteval/agenteval/engine"
)

// buildModelCallLimit reads {thread_limit?, run_limit?, exit_behavior?}.
func buildModelCallLimit(opts *engine.Object, _ BuildOptions) (engine.Middleware, error) {
	var o ModelCallLimitOptions
	err := readOptions(opts, func(k string, v any) error {
		if known, err := readLimits(k, v, &o.ThreadLimit, &o.RunLimit, &o.ExitBehavior); known {
			return err
		}
		return unknownOption(k, "thread_limit", "run_limit", "exit_behavior")
	})
	if err != nil {
		return nil, err
	}
	return NewModelCallLimit(o)
}

// buildToolCallLimit reads {tool_name?, thread_limit?, run_limit?,
// exit_behavior?}.
func buildToolCallLimit(opts *engine.Object, _ BuildOptions) (engine.Middleware, error) {
	var o ToolCallLimitOptions
	err := readOptions(opts, func(k string, v any) (err error) {
		if known, err := readLimits(k, v, &o.ThreadLimit, &o.RunLimit, &o.ExitBehavior); known {
			return err
		}
		switch {
		case k != "tool_name":
			err = unknownOption(k, "tool_name", "thread_limit", "run_limit", "exit_behavior")
		case v != nil:
			o.ToolName, err = stringOption(k, v)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return NewToolCallLimit(o)
}

// readLimits reads option k if it is one that ModelCallLimit and
// ToolCallLimit share, and reports whether it was.
func readLimits(k string, v any, thread, run **int, exit *string) (bool, error) {
	var err error
	switch k {
	case "thread_limit":
		*thread, err = limitOption(k, v)
	case "run_limit":
		*run, err = limitOption(k, v)
	case "exit_behavior":
		*exit, err = stringOption(k, v)
	default:
		return false, nil
	}
	return true, err
}

// buildTodoList reads {system_prompt?, tool_description?}. Releases after
// langchain 1.1 reject parallel write_todos calls in an after_model hook.
func buildTodoList(opts *engine.Object, b BuildOptions) (engine.Middleware, error) {
	o := TodoListOptions{RejectParallelWrites: todoRejectsParallel(b.LangChain)}
	err := readOptions(opts, func(k string, v any) (err error) {
		switch k {
		case "system_prompt":
			o.SystemPrompt, err = stringOption(k, v)
		case "tool_description":
			o.ToolDescription, err = stringOption(k, v)
		default:
			err = unknownOption(k, "system_prompt", "tool_description")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return NewTodoList(o)
}

// todoRejectsParallel says whether a langchain release ("1.2.15 (commit
// ...)") has TodoListMiddleware's after_model guard: 1.2 and later.
func todoRejectsParallel(langchain string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(langchain, "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 1 || major == 1 && minor >= 2
}
