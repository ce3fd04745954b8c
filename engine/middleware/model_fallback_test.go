package middleware_test

import (
	"context"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/google/go-cmp/cmp"
)

// TestModelFallback: the primary first, then the fallbacks in order, each
// without the primary's model settings; the last error when all fail.
func TestModelFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		fail   map[string]error // by model name; others answer
		want   string           // answering model, or "error: <kind>: <text>"
		tried  []string
	}{
		{
			name:   "primary answers",
			reason: "the fallbacks are not touched when the primary answers",
			want:   "primary", tried: []string{"primary"},
		},
		{
			name:   "first fallback",
			reason: "a failing primary moves on to the first fallback",
			fail:   map[string]error{"primary": engine.NewError("ConnectionError", "down")},
			want:   "fb1", tried: []string{"primary", "fb1"},
		},
		{
			name:   "second fallback",
			reason: "fallbacks are tried in order",
			fail:   map[string]error{"primary": engine.NewError("ConnectionError", "down"), "fb1": engine.NewError("TimeoutError", "slow")},
			want:   "fb2", tried: []string{"primary", "fb1", "fb2"},
		},
		{
			name:   "all fail",
			reason: "the last model's error is returned",
			fail: map[string]error{
				"primary": engine.NewError("ConnectionError", "down"),
				"fb1":     engine.NewError("TimeoutError", "slow"),
				"fb2":     engine.NewError("ValueError", "bad"),
			},
			want: "error: ValueError: bad", tried: []string{"primary", "fb1", "fb2"},
		},
		{
			name:   "interrupt",
			reason: "an interrupt is not a model failure",
			fail:   map[string]error{"primary": &engine.InterruptError{}},
			want:   "error: Exception: graph interrupted", tried: []string{"primary"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			named := func(name string) engine.ChatModel {
				return engine.ChatModelFunc(func(context.Context, engine.ModelRequest) (engine.Message, error) {
					if err := tc.fail[name]; err != nil {
						return engine.Message{}, err
					}
					return engine.AIMessage(name), nil
				})
			}
			primary, fb1, fb2 := named("primary"), named("fb1"), named("fb2")
			f, err := middleware.NewModelFallback(middleware.ModelFallbackOptions{Models: []engine.ChatModel{fb1, fb2}})
			if err != nil {
				t.Fatal(err)
			}
			var tried []string
			settings := engine.NewObject("temperature", 0)
			next := func(ctx context.Context, req engine.AgentModelRequest) (*engine.AgentModelResponse, error) {
				out, err := req.Model.Generate(ctx, engine.ModelRequest{})
				name := out.Text()
				if err != nil {
					name = map[error]string{tc.fail["primary"]: "primary", tc.fail["fb1"]: "fb1", tc.fail["fb2"]: "fb2"}[err]
				}
				tried = append(tried, name)
				if (name == "primary") != (req.ModelSettings == settings) {
					t.Errorf("%s called with model settings %v", name, req.ModelSettings)
				}
				if err != nil {
					return nil, err
				}
				return &engine.AgentModelResponse{Result: []engine.Message{out}}, nil
			}
			res, err := f.WrapModelCall(context.Background(), engine.AgentModelRequest{Model: primary, ModelSettings: settings}, next)
			got := ""
			if err != nil {
				got = "error: " + engine.ErrorKind(err) + ": " + engine.ErrorMessage(err)
			} else {
				got = res.Result[0].Text()
			}
			if got != tc.want {
				t.Errorf("WrapModelCall = %q, want %q (%s)", got, tc.want, tc.reason)
			}
			if d := cmp.Diff(tc.tried, tried); d != "" {
				t.Errorf("models tried (%s) mismatch (-want +got):\n%s", tc.reason, d)
			}
		})
	}
}

// TestModelFallbackOptionsValidate: at least one model, none nil.
func TestModelFallbackOptionsValidate(t *testing.T) {
	t.Parallel()
	ok := engine.ChatModelFunc(func(context.Context, engine.ModelRequest) (engine.Message, error) { return engine.AIMessage(""), nil })
	tests := []struct {
		name   string
		reason string
		opts   middleware.ModelFallbackOptions
		want   string
	}{
		{name: "one", reason: "one fallback is enough", opts: middleware.ModelFallbackOptions{Models: []engine.ChatModel{ok}}},
		{name: "none", reason: "first_model is required", want: "ModelFallbackMiddleware: models: at least one fallback model is required"},
		{name: "nil", reason: "a nil model cannot be called", opts: middleware.ModelFallbackOptions{Models: []engine.ChatModel{ok, nil}}, want: "ModelFallbackMiddleware: models[1]: nil model"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := ""
			if _, err := middleware.NewModelFallback(tc.opts); err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("NewModelFallback (%s) mismatch (-want +got):\n%s", tc.reason, d)
			}
		})
	}
}
