package middleware

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/agenteval/agenteval/engine"
)

// ErrUnknownClass is the error Build wraps when it does not know a class.
var ErrUnknownClass = errors.New("unknown middleware class")

// BuildOptions is what Build needs beyond a class's options. The zero
// value builds with no named models, following langchain 1.1.3.
type BuildOptions struct {
	// Models are named chat models that options refer to
	// ("model": "summarizer", "models": ["fallback"]). The one named
	// "model", if any, is the agent's: LLMToolEmulator uses it when its
	// options name no model (where langchain would default to Claude).
	Models map[string]engine.ChatModel `json:"-"`
	// LangChain is the langchain release whose behaviour to follow where
	// releases differ ("1.2.15", or "1.2.15 (commit ...)"); "" means
	// 1.1.3. Only TodoListMiddleware differs: 1.2 and later reject
	// parallel write_todos calls (TodoListOptions.RejectParallelWrites).
	LangChain string `json:"langchain,omitempty"`
	// Dir is the directory relative paths in options resolve against
	// (ShellToolMiddleware's workspace_root, FilesystemFileSearchMiddleware's
	// root_path); "" means the process's working directory, as in Python.
	Dir string `json:"dir,omitempty"`
	// Warn receives the warnings langchain's constructor would issue for
	// the options, with Python's category and text (the deprecated
	// options' DeprecationWarning); nil drops them. Build calls it before
	// it returns, from the calling goroutine.
	Warn func(Warning) `json:"-"`
}

// Warning is a Python warning a middleware constructor issues.
type Warning struct {
	// Category is the warning's class, "DeprecationWarning".
	Category string
	// Message is the warning's text, as langchain writes it.
	Message string
}

// String is the warning as Python's warnings module shows it, without
// the file and line: "DeprecationWarning: <message>".
func (w Warning) String() string { return w.Category + ": " + w.Message }

// deprecated reports a DeprecationWarning through b.Warn.
func (b BuildOptions) deprecated(msg string) {
	if b.Warn != nil {
		b.Warn(Warning{Category: "DeprecationWarning", Message: msg})
	}
}

// builder builds one class from its options.
type builder func(opts *engine.Object, b BuildOptions) (engine.Middleware, error)

// builders maps every class Build knows to its builder.
func builders() map[string]builder {
	return map[string]builder{
		"HumanInTheLoopMiddleware":       buildHITL,
		"TodoListMiddleware":             buildTodoList,
		"ModelCallLimitMiddleware":       buildModelCallLimit,
		"ToolCallLimitMiddleware":        buildToolCallLimit,
		"ToolRetryMiddleware":            buildToolRetry,
		"ModelRetryMiddleware":           buildModelRetry,
		"ModelFallbackMiddleware":        buildModelFallback,
		"PIIMiddleware":                  buildPII,
		"SummarizationMiddleware":        buildSummarization,
		"ContextEditingMiddleware":       buildContextEditing,
		"LLMToolSelectorMiddleware":      buildToolSelector,
		"LLMToolEmulator":                buildToolEmulator,
		"ShellToolMiddleware":            buildShellTool,
		"FilesystemFileSearchMiddleware": buildFileSearch,
	}
}

// Classes returns the LangChain class names Build knows, sorted.
func Classes() []string {
	return slices.Sorted(maps.Keys(builders()))
}

// Build builds one middleware from its LangChain class name and keyword
// options, as written in Python: Build("ToolRetryMiddleware",
// {"max_retries": 3, "on_failure": "error"}, opts) is
// ToolRetryMiddleware(max_retries=3, on_failure="error"). Option values
// are decoded JSON (engine.DecodeJSON): strings, json.Number, bools, nil,
// []any and *engine.Object; a tuple such as ("messages", 4) is a
// two-element list. nil options are none.
//
// Python callables have stand-ins: a chat model is the name of one of
// opts.Models, and a callable on_failure is {"template": "{type}:
// {message}"}.
//
// An unknown class fails with an error wrapping ErrUnknownClass that lists
// the known ones. Otherwise every bad option is reported at once, each
// naming the option (a path such as "edits[0].keep") and what was
// expected; the class is not named, so callers add where it was written.
func Build(class string, options *engine.Object, opts BuildOptions) (engine.Middleware, error) {
	b, ok := builders()[class]
	if !ok {
		return nil, fmt.Errorf("%w %q; known: %s", ErrUnknownClass, class, strings.Join(Classes(), ", "))
	}
	if options == nil {
		options = &engine.Object{}
	}
	return b(options, opts)
}

// readOptions calls read with each option in the order written and joins
// what it reports, so that every bad option is reported at once.
func readOptions(opts *engine.Object, read func(key string, v any) error) error {
	var errs []error
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		errs = append(errs, read(k, v))
	}
	return errors.Join(errs...)
}

// unknownOption is the error for an option a class does not take.
func unknownOption(key string, known ...string) error {
	expected := known[len(known)-1]
	if len(known) > 1 {
		expected = strings.Join(known[:len(known)-1], ", ") + " or " + expected
	}
	return fmt.Errorf("%s: unknown option: expected %s", key, expected)
}

// The *Option readers read one option value of the expected JSON type;
// key names the option in errors.

func stringOption(key string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: expected a string, got %s", key, engine.PyRepr(v))
	}
	return s, nil
}

func boolOption(key string, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s: expected true or false, got %s", key, engine.PyRepr(v))
	}
	return b, nil
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

// limitOption reads an optional limit: an integer or null.
func limitOption(key string, v any) (*int, error) {
	if v == nil {
		return nil, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%s: expected an integer or null, got %s", key, engine.PyRepr(v))
	}
	i, err := n.Int64()
	if err != nil {
		return nil, fmt.Errorf("%s: expected an integer or null, got %s", key, n)
	}
	return CallLimit(int(i)), nil
}

func floatOption(key string, v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s: expected a number, got %s", key, engine.PyRepr(v))
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s: expected a number, got %s", key, n)
	}
	return f, nil
}

// secondsOption reads a number of seconds.
func secondsOption(key string, v any) (time.Duration, error) {
	f, err := floatOption(key, v)
	if err != nil {
		return 0, err
	}
	if f > float64(math.MaxInt64)/float64(time.Second) {
		return time.Duration(math.MaxInt64), nil
	}
	return time.Duration(f * float64(time.Second)), nil
}

// stringsOption reads a list of strings; an empty list is non-nil.
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

// modelOption resolves a model option: the name of one of models.
func modelOption(key string, v any, models map[string]engine.ChatModel) (engine.ChatModel, error) {
	name, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("%s: expected the name of a model, got %s", key, engine.PyRepr(v))
	}
	m, ok := models[name]
	if !ok {
		return nil, fmt.Errorf("%s: no model %q; known: %s", key, name, knownModels(models))
	}
	return m, nil
}

// knownModels lists the model names, sorted, or says there are none.
func knownModels(models map[string]engine.ChatModel) string {
	if len(models) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(models)), ", ")
}
