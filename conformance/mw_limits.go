package conformance

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
)

// buildModelCallLimit reads {thread_limit?, run_limit?, exit_behavior?}.
func buildModelCallLimit(opts *engine.Object) (engine.Middleware, error) {
	var o middleware.ModelCallLimitOptions
	var errs []error
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		var err error
		switch k {
		case "thread_limit":
			o.ThreadLimit, err = limitsIntOption(k, v)
		case "run_limit":
			o.RunLimit, err = limitsIntOption(k, v)
		case "exit_behavior":
			o.ExitBehavior, err = limitsStringOption(k, v)
		default:
			err = fmt.Errorf("%s: unknown option: expected thread_limit, run_limit or exit_behavior", k)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return middleware.NewModelCallLimit(o)
}

// buildToolCallLimit reads {tool_name?, thread_limit?, run_limit?,
// exit_behavior?}.
func buildToolCallLimit(opts *engine.Object) (engine.Middleware, error) {
	var o middleware.ToolCallLimitOptions
	var errs []error
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		var err error
		switch k {
		case "tool_name":
			if v != nil {
				o.ToolName, err = limitsStringOption(k, v)
			}
		case "thread_limit":
			o.ThreadLimit, err = limitsIntOption(k, v)
		case "run_limit":
			o.RunLimit, err = limitsIntOption(k, v)
		case "exit_behavior":
			o.ExitBehavior, err = limitsStringOption(k, v)
		default:
			err = fmt.Errorf("%s: unknown option: expected tool_name, thread_limit, run_limit or exit_behavior", k)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return middleware.NewToolCallLimit(o)
}

// buildTodoList reads {system_prompt?, tool_description?}. langchain is
// the oracle's langchain release ("" for the profile's 1.1.3): releases
// after 1.1 reject parallel write_todos calls in an after_model hook.
func buildTodoList(opts *engine.Object, langchain string) (engine.Middleware, error) {
	o := middleware.TodoListOptions{RejectParallelWrites: todoRejectsParallel(langchain)}
	var errs []error
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		var err error
		switch k {
		case "system_prompt":
			o.SystemPrompt, err = limitsStringOption(k, v)
		case "tool_description":
			o.ToolDescription, err = limitsStringOption(k, v)
		default:
			err = fmt.Errorf("%s: unknown option: expected system_prompt or tool_description", k)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return middleware.NewTodoList(o)
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

// limitsIntOption reads an optional limit: an integer or null.
func limitsIntOption(name string, v any) (*int, error) {
	if v == nil {
		return nil, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%s: expected an integer or null, got %s", name, engine.PyRepr(v))
	}
	i, err := n.Int64()
	if err != nil {
		return nil, fmt.Errorf("%s: expected an integer or null, got %s", name, n)
	}
	return middleware.CallLimit(int(i)), nil
}

func limitsStringOption(name string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: expected a string, got %s", name, engine.PyRepr(v))
	}
	return s, nil
}
