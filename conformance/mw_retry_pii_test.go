package conformance

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/google/go-cmp/cmp"
)

// TestBuildRetryPII: vector options become middleware options, and bad
// options are reported by name, all at once.
func TestBuildRetryPII(t *testing.T) {
	t.Parallel()
	fb := engine.ChatModelFunc(func(context.Context, engine.ModelRequest) (engine.Message, error) { return engine.AIMessage(""), nil })
	models := map[string]engine.ChatModel{"fb1": fb}
	tests := []struct {
		name   string
		reason string
		typ    string
		opts   string
		want   string // the error, or "" for none
	}{
		{name: "tool retry", reason: "every ToolRetryMiddleware option", typ: "ToolRetryMiddleware",
			opts: `{"max_retries": 3, "tools": ["a"], "retry_on": ["ValueError"], "on_failure": "error", "backoff_factor": 1.5, "initial_delay": 0.5, "max_delay": 10, "jitter": false, "seed": 3}`},
		{name: "tool retry none", reason: "tools=None applies to every tool", typ: "ToolRetryMiddleware", opts: `{"tools": null}`},
		{name: "template", reason: "on_failure may be a template standing for a callable", typ: "ModelRetryMiddleware", opts: `{"on_failure": {"template": "{type}: {message}"}}`},
		{
			name: "bad values", reason: "each bad value is named with what was expected", typ: "ToolRetryMiddleware",
			opts: `{"max_retries": "2", "jitter": 1, "retry_on": "ValueError", "on_failure": {"format": "x"}, "colour": 1}`,
			want: "max_retries: expected an integer, got '2'\njitter: expected true or false, got 1\nretry_on: expected a list of strings, got 'ValueError'\non_failure: expected \"continue\", \"error\" or {\"template\": \"... {type} ... {message}\"}, got {'format': 'x'}\ncolour: unknown option: expected max_retries, tools, retry_on, on_failure, backoff_factor, initial_delay, max_delay, jitter or seed",
		},
		{
			name: "negative delay", reason: "the middleware's own validation speaks for ranges", typ: "ModelRetryMiddleware",
			opts: `{"initial_delay": -1}`, want: "ModelRetryMiddleware: initial_delay must be >= 0",
		},
		{name: "fallback", reason: "models name the vector's models", typ: "ModelFallbackMiddleware", opts: `{"models": ["fb1"]}`},
		{name: "fallback unknown", reason: "a name that is not a vector model", typ: "ModelFallbackMiddleware", opts: `{"models": ["fb2"]}`, want: `models: "fb2" is not one of the vector's models`},
		{name: "pii", reason: "every PIIMiddleware option", typ: "PIIMiddleware", opts: `{"pii_type": "api_key", "strategy": "block", "detector": "sk-\\w+", "apply_to_input": false, "apply_to_output": true, "apply_to_tool_results": true}`},
		{name: "pii unknown type", reason: "langchain's own error for a type without a detector", typ: "PIIMiddleware", opts: `{"pii_type": "ssn"}`,
			want: "PIIMiddleware: pii_type: Unknown PII type: ssn. Must be one of ['email', 'credit_card', 'ip', 'mac_address', 'url'] or provide a custom detector."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := engine.DecodeJSON([]byte(tc.opts))
			if err != nil {
				t.Fatal(err)
			}
			_, err = builders("")[tc.typ](v.(*engine.Object), models)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("build %s (%s) mismatch (-want +got):\n%s", tc.typ, tc.reason, d)
			}
		})
	}
}

// TestFailureTemplate: {type} and {message} are the class name and str().
func TestFailureTemplate(t *testing.T) {
	t.Parallel()
	got := failureTemplate("CUSTOM {type}: {message} ({type})")(engine.NewError("KeyError", "k"))
	if want := "CUSTOM KeyError: 'k' (KeyError)"; got != want {
		t.Errorf("template = %q, want %q", got, want)
	}
	m, err := buildToolRetry(engine.NewObject("max_retries", json.Number("4"), "initial_delay", json.Number("0.25")), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := m.(*middleware.ToolRetry).Options()
	if o.MaxRetries != 4 || o.InitialDelay.Seconds() != 0.25 || !o.Jitter || o.BackoffFactor != 2 {
		t.Errorf("options = %+v, want max_retries 4, initial_delay 0.25s and langchain's other defaults", o)
	}
}

// TestUnknownMiddlewareClass: a vector naming a class this build does not
// know fails (it is not skipped), and the error lists the known classes.
func TestUnknownMiddlewareClass(t *testing.T) {
	spec, err := engine.DecodeJSON([]byte(`[{"type": "ShellToolMiddleware", "options": {}}]`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = buildMiddleware(spec, nil, "")
	want := `middleware[0]: unknown middleware class "ShellToolMiddleware"; known: ContextEditingMiddleware, HumanInTheLoopMiddleware, LLMToolEmulator, LLMToolSelectorMiddleware, ModelCallLimitMiddleware, ModelFallbackMiddleware, ModelRetryMiddleware, PIIMiddleware, SummarizationMiddleware, TodoListMiddleware, ToolCallLimitMiddleware, ToolRetryMiddleware`
	if err == nil || err.Error() != want {
		t.Fatalf("buildMiddleware error = %v, want %s", err, want)
	}
}
