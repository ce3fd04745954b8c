package middleware

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// retryOptions collects the options ToolRetry and ModelRetry share.
type retryOptions struct {
	backoff   Backoff
	retryOn   RetryOn
	onFailure string
	format    func(err error) string
}

// read reads option k if it is a shared one, and reports whether it was.
func (r *retryOptions) read(k string, v any) (bool, error) {
	var err error
	switch k {
	case "max_retries":
		r.backoff.MaxRetries, err = intOption(k, v)
	case "backoff_factor":
		r.backoff.BackoffFactor, err = floatOption(k, v)
	case "initial_delay":
		r.backoff.InitialDelay, err = secondsOption(k, v)
	case "max_delay":
		r.backoff.MaxDelay, err = secondsOption(k, v)
	case "jitter":
		r.backoff.Jitter, err = boolOption(k, v)
	case "seed":
		var n int
		n, err = intOption(k, v)
		r.backoff.Seed = uint64(n)
	case "retry_on":
		r.retryOn.Kinds, err = stringsOption(k, v)
	case "on_failure":
		switch f := v.(type) {
		case string:
			r.onFailure = f
		case *engine.Object:
			tmpl, ok := f.Get("template")
			s, isStr := tmpl.(string)
			if !ok || !isStr || f.Len() != 1 {
				return true, fmt.Errorf("on_failure: expected \"continue\", \"error\" or {\"template\": \"... {type} ... {message}\"}, got %s", engine.PyRepr(v))
			}
			r.format = failureTemplate(s)
		default:
			return true, fmt.Errorf("on_failure: expected a string or {\"template\": ...}, got %s", engine.PyRepr(v))
		}
	default:
		return false, nil
	}
	return true, err
}

// failureTemplate stands for a Python on_failure callable that formats
// the exception: {type} is its class name, {message} its str().
func failureTemplate(tmpl string) func(err error) string {
	return func(err error) string {
		return strings.NewReplacer("{type}", engine.ErrorKind(err), "{message}", ExceptionStr(err)).Replace(tmpl)
	}
}

// buildToolRetry reads the shared retry options and tools (null: every
// tool).
//
// The deprecated on_failure values "raise" and "return_message" warn as
// langchain 1.1.3's ToolRetryMiddleware.__init__ does (tool_retry.py).
func buildToolRetry(opts *engine.Object, b BuildOptions) (engine.Middleware, error) {
	d := DefaultToolRetryOptions()
	r := retryOptions{backoff: d.Backoff, retryOn: d.RetryOn, onFailure: d.OnFailure}
	var tools []string
	err := readOptions(opts, func(k string, v any) (err error) {
		if known, err := r.read(k, v); known {
			return err
		}
		switch {
		case k != "tools":
			err = unknownOption(k, "max_retries", "tools", "retry_on", "on_failure", "backoff_factor", "initial_delay", "max_delay", "jitter", "seed")
		case v != nil:
			tools, err = stringsOption(k, v)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	switch r.onFailure {
	case "raise":
		b.deprecated("on_failure='raise' is deprecated and will be removed in a future version. Use on_failure='error' instead.")
	case "return_message":
		b.deprecated("on_failure='return_message' is deprecated and will be removed in a future version. Use on_failure='continue' instead.")
	}
	return NewToolRetry(ToolRetryOptions{Backoff: r.backoff, Tools: tools, RetryOn: r.retryOn, OnFailure: r.onFailure, FailureMessage: r.format})
}

// buildModelRetry reads the shared retry options.
func buildModelRetry(opts *engine.Object, _ BuildOptions) (engine.Middleware, error) {
	d := DefaultModelRetryOptions()
	r := retryOptions{backoff: d.Backoff, retryOn: d.RetryOn, onFailure: d.OnFailure}
	err := readOptions(opts, func(k string, v any) error {
		if known, err := r.read(k, v); known {
			return err
		}
		return unknownOption(k, "max_retries", "retry_on", "on_failure", "backoff_factor", "initial_delay", "max_delay", "jitter", "seed")
	})
	if err != nil {
		return nil, err
	}
	return NewModelRetry(ModelRetryOptions{Backoff: r.backoff, RetryOn: r.retryOn, OnFailure: r.onFailure, FailureMessage: r.format})
}

// buildModelFallback reads models: names of BuildOptions.Models.
func buildModelFallback(opts *engine.Object, b BuildOptions) (engine.Middleware, error) {
	var o ModelFallbackOptions
	err := readOptions(opts, func(k string, v any) error {
		if k != "models" {
			return unknownOption(k, "models")
		}
		names, err := stringsOption(k, v)
		errs := []error{err}
		for i, n := range names {
			m, err := modelOption(fmt.Sprintf("models[%d]", i), n, b.Models)
			errs = append(errs, err)
			o.Models = append(o.Models, m)
		}
		return errors.Join(errs...)
	})
	if err != nil {
		return nil, err
	}
	return NewModelFallback(o)
}
