package conformance

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
)

// optionModel resolves a model option: a name in the vector's models.
func optionModel(key string, v any, models map[string]engine.ChatModel) (engine.ChatModel, error) {
	name, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("%s: expected the name of a model in \"models\", got %s", key, engine.PyRepr(v))
	}
	m, ok := models[name]
	if !ok {
		return nil, fmt.Errorf("%s: no model %q in the vector's models", key, name)
	}
	return m, nil
}

// contextSize reads a ContextSize tuple: ["messages", 4].
func contextSize(key string, v any) (middleware.ContextSize, error) {
	l, ok := v.([]any)
	if !ok || len(l) != 2 {
		return middleware.ContextSize{}, fmt.Errorf("%s: expected a [kind, value] pair, got %s", key, engine.PyRepr(v))
	}
	kind, ok := l[0].(string)
	if !ok {
		return middleware.ContextSize{}, fmt.Errorf("%s: the kind must be a string, got %s", key, engine.PyRepr(l[0]))
	}
	n, ok := l[1].(json.Number)
	if !ok {
		return middleware.ContextSize{}, fmt.Errorf("%s: the value must be a number, got %s", key, engine.PyRepr(l[1]))
	}
	f, err := n.Float64()
	if err != nil {
		return middleware.ContextSize{}, fmt.Errorf("%s: %w", key, err)
	}
	return middleware.ContextSize{Kind: kind, Value: f}, nil
}

// isTuple reports whether v is one [kind, value] pair rather than a list
// of them.
func isTuple(v any) bool {
	l, ok := v.([]any)
	if !ok || len(l) != 2 {
		return false
	}
	_, ok = l[0].(string)
	return ok
}

func intOption(key string, v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s: expected an integer, got %s", key, engine.PyRepr(v))
	}
	i, err := n.Int64()
	if err != nil {
		return 0, fmt.Errorf("%s: expected an integer, got %s", key, n)
	}
	return int(i), nil
}

func stringsOption(key string, v any) ([]string, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected a list of strings, got %s", key, engine.PyRepr(v))
	}
	out := []string{}
	for i, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: expected a string, got %s", key, i, engine.PyRepr(e))
		}
		out = append(out, s)
	}
	return out, nil
}

// buildSummarization reads model, trigger (a pair or a list of pairs),
// keep, summary_prompt, trim_tokens_to_summarize (null: no trimming) and
// the deprecated max_tokens_before_summary and messages_to_keep.
func buildSummarization(opts *engine.Object, models map[string]engine.ChatModel) (engine.Middleware, error) {
	var o middleware.SummarizationOptions
	var errs []error
	var legacyTokens, legacyKeep *int
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		var err error
		switch k {
		case "model":
			o.Model, err = optionModel(k, v, models)
		case "trigger":
			switch {
			case v == nil:
			case isTuple(v):
				var c middleware.ContextSize
				c, err = contextSize(k, v)
				o.Trigger = []middleware.ContextSize{c}
			default:
				l, ok := v.([]any)
				if !ok {
					err = fmt.Errorf("trigger: expected a [kind, value] pair or a list of them, got %s", engine.PyRepr(v))
					break
				}
				for i, e := range l {
					c, cerr := contextSize(fmt.Sprintf("trigger[%d]", i), e)
					if cerr != nil {
						errs = append(errs, cerr)
					}
					o.Trigger = append(o.Trigger, c)
				}
			}
		case "keep":
			o.Keep, err = contextSize(k, v)
		case "summary_prompt":
			s, ok := v.(string)
			if !ok {
				err = fmt.Errorf("summary_prompt: expected a string, got %s", engine.PyRepr(v))
			}
			o.SummaryPrompt = s
		case "trim_tokens_to_summarize":
			if v == nil {
				o.TrimTokensToSummarize = -1
				break
			}
			o.TrimTokensToSummarize, err = intOption(k, v)
			if err == nil && o.TrimTokensToSummarize <= 0 {
				err = fmt.Errorf("trim_tokens_to_summarize: expected a positive token count or null, got %d", o.TrimTokensToSummarize)
			}
		case "max_tokens_before_summary":
			if v != nil {
				n, nerr := intOption(k, v)
				err, legacyTokens = nerr, &n
			}
		case "messages_to_keep":
			n, nerr := intOption(k, v)
			err, legacyKeep = nerr, &n
		default:
			err = fmt.Errorf("%s: unknown option: expected model, trigger, keep, summary_prompt or trim_tokens_to_summarize", k)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	// langchain maps the deprecated options onto trigger and keep when
	// those are not given
	if legacyTokens != nil && o.Trigger == nil {
		o.Trigger = []middleware.ContextSize{middleware.Tokens(*legacyTokens)}
	}
	if legacyKeep != nil && (o.Keep.Kind == "" || o.Keep == middleware.Messages(20)) {
		o.Keep = middleware.Messages(*legacyKeep)
	}
	if !opts.Has("model") {
		errs = append(errs, errors.New("model: required"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return middleware.NewSummarization(o)
}

// buildContextEditing reads edits (ClearToolUsesEdit options: trigger,
// keep, clear_at_least, clear_tool_inputs, exclude_tools, placeholder) and
// token_count_method.
func buildContextEditing(opts *engine.Object, _ map[string]engine.ChatModel) (engine.Middleware, error) {
	var o middleware.ContextEditingOptions
	var errs []error
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		switch k {
		case "edits":
			l, ok := v.([]any)
			if !ok {
				errs = append(errs, fmt.Errorf("edits: expected a list of ClearToolUsesEdit options, got %s", engine.PyRepr(v)))
				continue
			}
			o.Edits = []middleware.ContextEdit{}
			for i, e := range l {
				edit, err := clearToolUses(fmt.Sprintf("edits[%d]", i), e)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				o.Edits = append(o.Edits, edit)
			}
		case "token_count_method":
			s, ok := v.(string)
			if !ok {
				errs = append(errs, fmt.Errorf("token_count_method: expected a string, got %s", engine.PyRepr(v)))
			}
			o.TokenCountMethod = s
		default:
			errs = append(errs, fmt.Errorf("%s: unknown option: expected edits or token_count_method", k))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return middleware.NewContextEditing(o)
}

func clearToolUses(path string, raw any) (middleware.ClearToolUses, error) {
	var e middleware.ClearToolUses
	spec, ok := raw.(*engine.Object)
	if !ok {
		return e, fmt.Errorf("%s: expected an object, got %s", path, engine.PyRepr(raw))
	}
	var errs []error
	for _, k := range spec.Keys() {
		v, _ := spec.Get(k)
		key := path + "." + k
		var err error
		switch k {
		case "trigger":
			switch {
			case isTuple(v):
				var c middleware.ContextSize
				c, err = contextSize(key, v)
				e.Conditions = [][]middleware.ContextSize{{c}}
			default:
				if l, ok := v.([]any); ok {
					for i, item := range l {
						group, gerr := conditionGroup(fmt.Sprintf("%s[%d]", key, i), item)
						if gerr != nil {
							errs = append(errs, gerr)
						}
						e.Conditions = append(e.Conditions, group)
					}
					break
				}
				e.Trigger, err = intOption(key, v)
			}
		case "keep":
			if isTuple(v) {
				e.Keep, err = contextSize(key, v)
				break
			}
			var n int
			n, err = intOption(key, v)
			e.Keep = middleware.Messages(n)
		case "clear_at_least":
			e.ClearAtLeast, err = intOption(key, v)
		case "clear_tool_inputs":
			b, ok := v.(bool)
			if !ok {
				err = fmt.Errorf("%s: expected true or false, got %s", key, engine.PyRepr(v))
			}
			e.ClearToolInputs = b
		case "exclude_tools":
			e.ExcludeTools, err = stringsOption(key, v)
		case "placeholder":
			s, ok := v.(string)
			if !ok {
				err = fmt.Errorf("%s: expected a string, got %s", key, engine.PyRepr(v))
			}
			e.Placeholder = s
		default:
			err = fmt.Errorf("%s: unknown option: expected trigger, keep, clear_at_least, clear_tool_inputs, exclude_tools or placeholder", key)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return e, errors.Join(errs...)
}

// conditionGroup reads one OR-ed trigger condition: a pair, or a list of
// pairs that must all hold.
func conditionGroup(key string, v any) ([]middleware.ContextSize, error) {
	if isTuple(v) {
		c, err := contextSize(key, v)
		return []middleware.ContextSize{c}, err
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected a [kind, value] pair or a list of them, got %s", key, engine.PyRepr(v))
	}
	var out []middleware.ContextSize
	var errs []error
	for i, e := range l {
		c, err := contextSize(fmt.Sprintf("%s[%d]", key, i), e)
		if err != nil {
			errs = append(errs, err)
		}
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}

// buildToolSelector reads model (default: the agent's), system_prompt,
// max_tools and always_include.
func buildToolSelector(opts *engine.Object, models map[string]engine.ChatModel) (engine.Middleware, error) {
	var o middleware.LLMToolSelectorOptions
	var errs []error
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		var err error
		switch k {
		case "model":
			if v != nil {
				o.Model, err = optionModel(k, v, models)
			}
		case "system_prompt":
			s, ok := v.(string)
			if !ok {
				err = fmt.Errorf("system_prompt: expected a string, got %s", engine.PyRepr(v))
			}
			o.SystemPrompt = s
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
			err = fmt.Errorf("%s: unknown option: expected model, system_prompt, max_tools or always_include", k)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return middleware.NewLLMToolSelector(o)
}

// buildToolEmulator reads tools (null: all) and model (default: the
// agent's model, where langchain would default to Claude).
func buildToolEmulator(opts *engine.Object, models map[string]engine.ChatModel) (engine.Middleware, error) {
	o := middleware.LLMToolEmulatorOptions{Model: models["model"]}
	var errs []error
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		var err error
		switch k {
		case "model":
			if v != nil {
				o.Model, err = optionModel(k, v, models)
			}
		case "tools":
			if v != nil {
				o.Tools, err = stringsOption(k, v)
			}
		default:
			err = fmt.Errorf("%s: unknown option: expected tools or model", k)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return middleware.NewLLMToolEmulator(o)
}
