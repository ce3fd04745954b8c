package middleware

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/agenteval/agenteval/engine"
)

// ModelFallbackOptions configures ModelFallback. The zero value is not
// valid: at least one fallback model is required.
type ModelFallbackOptions struct {
	// Models are tried in order after the agent's model fails
	// (langchain's first_model, *additional_models).
	Models []engine.ChatModel
}

// MarshalJSON writes {"models": [...]}, each model by its name when it
// has one (engine.ModelInfo), else by its Go type.
func (o ModelFallbackOptions) MarshalJSON() ([]byte, error) {
	names := make([]string, len(o.Models))
	for i, m := range o.Models {
		if mi, ok := m.(engine.ModelInfo); ok {
			names[i] = mi.ModelName()
		} else {
			names[i] = fmt.Sprintf("%T", m)
		}
	}
	return json.Marshal(map[string]any{"models": names})
}

// Validate reports a missing or nil model.
func (o ModelFallbackOptions) Validate() error {
	if len(o.Models) == 0 {
		return errors.New("models: at least one fallback model is required")
	}
	var errs []error
	for i, m := range o.Models {
		if m == nil {
			errs = append(errs, fmt.Errorf("models[%d]: nil model", i))
		}
	}
	return errors.Join(errs...)
}

// ModelFallback mirrors langchain's ModelFallbackMiddleware
// (agents/middleware/model_fallback.py, 1.1.3): every model call tries the
// agent's model first, then each fallback model in order, until one
// answers. A fallback is called with no extra model settings. When all
// fail, the last error is returned.
//
// Options (ModelFallbackOptions): models.
//
// Interrupts and the run's cancellation pass through at once (langchain
// would catch an interrupt and move on to the next model).
type ModelFallback struct {
	models []engine.ChatModel
}

// NewModelFallback returns a ModelFallback, or the problems with opts.
func NewModelFallback(opts ModelFallbackOptions) (*ModelFallback, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("ModelFallbackMiddleware: %w", err)
	}
	return &ModelFallback{models: slices.Clone(opts.Models)}, nil
}

// Name is "ModelFallbackMiddleware".
func (*ModelFallback) Name() string { return "ModelFallbackMiddleware" }

// Options returns the middleware's options.
func (f *ModelFallback) Options() ModelFallbackOptions {
	return ModelFallbackOptions{Models: slices.Clone(f.models)}
}

// WrapModelCall calls the primary model, then the fallbacks
// (wrap_model_call).
func (f *ModelFallback) WrapModelCall(ctx context.Context, req engine.AgentModelRequest, next engine.ModelCallHandler) (*engine.AgentModelResponse, error) {
	res, err := next(ctx, req)
	for _, m := range f.models {
		if err == nil || retryBubblesUp(ctx, err) {
			break
		}
		req.Model = m
		req.ModelSettings = nil
		res, err = next(ctx, req)
	}
	return res, err
}
