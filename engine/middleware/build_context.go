package middleware

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agenteval/agenteval/engine"
)

// contextSize reads a ContextSize tuple: ["messages", 4].
func contextSize(key string, v any) (ContextSize, error) {
	l, ok := v.([]any)
	if !ok || len(l) != 2 {
		return ContextSize{}, fmt.Errorf("%s: expected a [kind, value] pair, got %s", key, engine.PyRepr(v))
	}
	kind, ok := l[0].(string)
	if !ok {
		return ContextSize{}, fmt.Errorf("%s: the kind must be a string, got %s", key, engine.PyRepr(l[0]))
	}
	n, ok := l[1].(json.Number)
	if !ok {
		return ContextSize{}, fmt.Errorf("%s: the value must be a number, got %s", key, engine.PyRepr(l[1]))
	}
	f, err := n.Float64()
	if err != nil {
		return ContextSize{}, fmt.Errorf("%s: %w", key, err)
	}
	return ContextSize{Kind: kind, Value: f}, nil
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

// buildSummarization reads model, trigger (a pair or a list of pairs),
// keep, summary_prompt, trim_tokens_to_summarize (null: no trimming) and
// the deprecated max_tokens_before_summary, messages_to_keep and
// summary_prefix.
//
// langchain 1.1.3 takes the deprecated ones through **deprecated_kwargs
// (summarization.py SummarizationMiddleware.__init__): the first two warn
// with a DeprecationWarning (the texts say "value" literally) and map onto
// trigger and keep; summary_prefix is accepted and used nowhere, without a
// warning: the summary message always starts with SummaryPrefix ("Here is
// a summary of the conversation to date:"), whatever the option says.
func buildSummarization(opts *engine.Object, b BuildOptions) (engine.Middleware, error) {
	var o SummarizationOptions
	var legacyTokens, legacyKeep *int
	var warnTokens, warnKeep bool
	err := readOptions(opts, func(k string, v any) (err error) {
		switch k {
		case "model":
			o.Model, err = modelOption(k, v, b.Models)
		case "trigger":
			if v != nil {
				o.Trigger, err = contextSizeList(k, v)
			}
		case "keep":
			o.Keep, err = contextSize(k, v)
		case "summary_prompt":
			o.SummaryPrompt, err = stringOption(k, v)
		case "trim_tokens_to_summarize":
			if v == nil {
				o.TrimTokensToSummarize = -1
				break
			}
			o.TrimTokensToSummarize, err = intOption(k, v)
			if err == nil && o.TrimTokensToSummarize <= 0 {
				err = fmt.Errorf("trim_tokens_to_summarize: expected a positive token count or null, got %d", o.TrimTokensToSummarize)
			}
		case "summary_prefix":
			// accepted, whatever its value, and ignored, as langchain's
			// **deprecated_kwargs swallow it
		case "max_tokens_before_summary":
			warnTokens = true
			if v != nil {
				var n int
				n, err = intOption(k, v)
				legacyTokens = &n
			}
		case "messages_to_keep":
			warnKeep = true
			var n int
			n, err = intOption(k, v)
			legacyKeep = &n
		default:
			err = unknownOption(k, "model", "trigger", "keep", "summary_prompt", "trim_tokens_to_summarize", "summary_prefix", "max_tokens_before_summary", "messages_to_keep")
		}
		return err
	})
	// langchain warns in this order, whatever the order of the options
	if warnTokens {
		b.deprecated("max_tokens_before_summary is deprecated. Use trigger=('tokens', value) instead.")
	}
	if warnKeep {
		b.deprecated("messages_to_keep is deprecated. Use keep=('messages', value) instead.")
	}
	// langchain maps the deprecated options onto trigger and keep when
	// those are not given
	if legacyTokens != nil && o.Trigger == nil {
		o.Trigger = []ContextSize{Tokens(*legacyTokens)}
	}
	if legacyKeep != nil && (o.Keep.Kind == "" || o.Keep == Messages(20)) {
		o.Keep = Messages(*legacyKeep)
	}
	if !opts.Has("model") {
		err = errors.Join(err, errors.New("model: required"))
	}
	if err != nil {
		return nil, err
	}
	return NewSummarization(o)
}

// buildContextEditing reads edits (ClearToolUsesEdit options: trigger,
// keep, clear_at_least, clear_tool_inputs, exclude_tools, placeholder) and
// token_count_method.
func buildContextEditing(opts *engine.Object, _ BuildOptions) (engine.Middleware, error) {
	var o ContextEditingOptions
	err := readOptions(opts, func(k string, v any) (err error) {
		switch k {
		case "edits":
			o.Edits, err = contextEdits(k, v)
		case "token_count_method":
			o.TokenCountMethod, err = stringOption(k, v)
		default:
			err = unknownOption(k, "edits", "token_count_method")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return NewContextEditing(o)
}

// contextEdits reads a list of ClearToolUsesEdit options.
func contextEdits(key string, v any) ([]ContextEdit, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected a list of ClearToolUsesEdit options, got %s", key, engine.PyRepr(v))
	}
	out := []ContextEdit{}
	var errs []error
	for i, e := range l {
		edit, err := clearToolUses(fmt.Sprintf("%s[%d]", key, i), e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, edit)
	}
	return out, errors.Join(errs...)
}

// clearToolUses reads one ClearToolUsesEdit's options; path names it.
func clearToolUses(path string, raw any) (ClearToolUses, error) {
	var e ClearToolUses
	spec, ok := raw.(*engine.Object)
	if !ok {
		return e, fmt.Errorf("%s: expected an object, got %s", path, engine.PyRepr(raw))
	}
	err := readOptions(spec, func(k string, v any) (err error) {
		key := path + "." + k
		switch k {
		case "trigger":
			l, isList := v.([]any)
			switch {
			case isTuple(v):
				var c ContextSize
				c, err = contextSize(key, v)
				e.Conditions = [][]ContextSize{{c}}
			case isList:
				var errs []error
				for i, item := range l {
					group, err := contextSizeList(fmt.Sprintf("%s[%d]", key, i), item)
					errs = append(errs, err)
					e.Conditions = append(e.Conditions, group)
				}
				err = errors.Join(errs...)
			default:
				e.Trigger, err = intOption(key, v)
			}
		case "keep":
			if isTuple(v) {
				e.Keep, err = contextSize(key, v)
				break
			}
			var n int
			n, err = intOption(key, v)
			e.Keep = Messages(n)
		case "clear_at_least":
			e.ClearAtLeast, err = intOption(key, v)
		case "clear_tool_inputs":
			e.ClearToolInputs, err = boolOption(key, v)
		case "exclude_tools":
			e.ExcludeTools, err = stringsOption(key, v)
		case "placeholder":
			e.Placeholder, err = stringOption(key, v)
		default:
			err = unknownOption(key, "trigger", "keep", "clear_at_least", "clear_tool_inputs", "exclude_tools", "placeholder")
		}
		return err
	})
	return e, err
}

// contextSizeList reads a [kind, value] pair or a list of them: a
// Summarization trigger (any one holds) or one OR-ed ClearToolUses
// condition (all must hold).
func contextSizeList(key string, v any) ([]ContextSize, error) {
	if isTuple(v) {
		c, err := contextSize(key, v)
		return []ContextSize{c}, err
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected a [kind, value] pair or a list of them, got %s", key, engine.PyRepr(v))
	}
	var out []ContextSize
	var errs []error
	for i, e := range l {
		c, err := contextSize(fmt.Sprintf("%s[%d]", key, i), e)
		errs = append(errs, err)
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}
