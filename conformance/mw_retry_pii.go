package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
)

// retryOptions collects the options ToolRetry and ModelRetry share.
type retryOptions struct {
	backoff   middleware.Backoff
	retryOn   middleware.RetryOn
	onFailure string
	format    func(err error) string
}

// read reads option k if it is a shared one, and reports whether it was.
func (r *retryOptions) read(k string, v any) (bool, error) {
	var err error
	switch k {
	case "max_retries":
		r.backoff.MaxRetries, err = rpInt(k, v)
	case "backoff_factor":
		r.backoff.BackoffFactor, err = rpFloat(k, v)
	case "initial_delay":
		r.backoff.InitialDelay, err = rpSeconds(k, v)
	case "max_delay":
		r.backoff.MaxDelay, err = rpSeconds(k, v)
	case "jitter":
		r.backoff.Jitter, err = rpBool(k, v)
	case "seed":
		var n int
		n, err = rpInt(k, v)
		r.backoff.Seed = uint64(n)
	case "retry_on":
		r.retryOn.Kinds, err = rpStrings(k, v)
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
		return strings.NewReplacer("{type}", engine.ErrorKind(err), "{message}", middleware.ExceptionStr(err)).Replace(tmpl)
	}
}

func buildToolRetry(opts *engine.Object, _ map[string]engine.ChatModel) (engine.Middleware, error) {
	d := middleware.DefaultToolRetryOptions()
	r := retryOptions{backoff: d.Backoff, retryOn: d.RetryOn, onFailure: d.OnFailure}
	var tools []string
	var errs []error
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		if known, err := r.read(k, v); known {
			errs = append(errs, err)
			continue
		}
		if k != "tools" {
			errs = append(errs, fmt.Errorf("%s: unknown option: expected max_retries, tools, retry_on, on_failure, backoff_factor, initial_delay, max_delay, jitter or seed", k))
			continue
		}
		if v != nil {
			t, err := rpStrings(k, v)
			errs = append(errs, err)
			if t == nil {
				t = []string{}
			}
			tools = t
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return middleware.NewToolRetry(middleware.ToolRetryOptions{Backoff: r.backoff, Tools: tools, RetryOn: r.retryOn, OnFailure: r.onFailure, FailureMessage: r.format})
}

func buildModelRetry(opts *engine.Object, _ map[string]engine.ChatModel) (engine.Middleware, error) {
	d := middleware.DefaultModelRetryOptions()
	r := retryOptions{backoff: d.Backoff, retryOn: d.RetryOn, onFailure: d.OnFailure}
	var errs []error
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		if known, err := r.read(k, v); known {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, fmt.Errorf("%s: unknown option: expected max_retries, retry_on, on_failure, backoff_factor, initial_delay, max_delay, jitter or seed", k))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return middleware.NewModelRetry(middleware.ModelRetryOptions{Backoff: r.backoff, RetryOn: r.retryOn, OnFailure: r.onFailure, FailureMessage: r.format})
}

func buildModelFallback(opts *engine.Object, models map[string]engine.ChatModel) (engine.Middleware, error) {
	var o middleware.ModelFallbackOptions
	var errs []error
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		if k != "models" {
			errs = append(errs, fmt.Errorf("%s: unknown option: expected models", k))
			continue
		}
		names, err := rpStrings(k, v)
		if err != nil {
			errs = append(errs, err)
		}
		for _, n := range names {
			m, ok := models[n]
			if !ok {
				errs = append(errs, fmt.Errorf("models: %q is not one of the vector's models", n))
				continue
			}
			o.Models = append(o.Models, m)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return middleware.NewModelFallback(o)
}

func buildPII(opts *engine.Object, _ map[string]engine.ChatModel) (engine.Middleware, error) {
	o := middleware.DefaultPIIOptions("")
	var errs []error
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		var err error
		switch k {
		case "pii_type":
			o.PIIType, err = rpString(k, v)
		case "strategy":
			o.Strategy, err = rpString(k, v)
		case "detector":
			if v != nil {
				o.Pattern, err = rpString(k, v)
			}
		case "apply_to_input":
			o.ApplyToInput, err = rpBool(k, v)
		case "apply_to_output":
			o.ApplyToOutput, err = rpBool(k, v)
		case "apply_to_tool_results":
			o.ApplyToToolResults, err = rpBool(k, v)
		default:
			err = fmt.Errorf("%s: unknown option: expected pii_type, strategy, detector, apply_to_input, apply_to_output or apply_to_tool_results", k)
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return middleware.NewPII(o)
}

// The rp* helpers read one option value of the expected JSON type.

func rpString(k string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: expected a string, got %s", k, engine.PyRepr(v))
	}
	return s, nil
}

func rpBool(k string, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s: expected true or false, got %s", k, engine.PyRepr(v))
	}
	return b, nil
}

func rpFloat(k string, v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s: expected a number, got %s", k, engine.PyRepr(v))
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s: expected a number, got %s", k, n)
	}
	return f, nil
}

func rpInt(k string, v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s: expected an integer, got %s", k, engine.PyRepr(v))
	}
	i, err := n.Int64()
	if err != nil {
		return 0, fmt.Errorf("%s: expected an integer, got %s", k, n)
	}
	return int(i), nil
}

// rpSeconds reads a number of seconds.
func rpSeconds(k string, v any) (time.Duration, error) {
	f, err := rpFloat(k, v)
	if err != nil {
		return 0, err
	}
	if f > float64(math.MaxInt64)/float64(time.Second) {
		return time.Duration(math.MaxInt64), nil
	}
	return time.Duration(f * float64(time.Second)), nil
}

func rpStrings(k string, v any) ([]string, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected a list of strings, got %s", k, engine.PyRepr(v))
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%s: expected a list of strings, got %s", k, engine.PyRepr(v))
		}
		out = append(out, s)
	}
	return out, nil
}
