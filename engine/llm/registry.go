package llm

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// Provider names, the part of a model name before the colon.
const (
	ProviderOpenAI           = "openai"
	ProviderOpenAICompatible = "openai-compatible"
	ProviderAnthropic        = "anthropic"
)

// Options configures New. The zero value makes a live model that reads
// its key and base URL from the process environment.
type Options struct {
	// HTTPClient carries the requests; a cassette's client in tests and
	// scenario runs. Nil means http.DefaultClient.
	HTTPClient *http.Client
	// Replay says the requests will be answered from a cassette: no API
	// key is needed (none is sent) and the SDK never retries.
	Replay bool
	// MaxRetries is the SDK's retry count for live and recording runs;
	// nil means 2 (the SDKs' default). Replay always uses 0.
	MaxRetries *int
	// APIKey and BaseURL override the environment.
	APIKey, BaseURL string
	// LookupEnv reads environment variables (OPENAI_API_KEY,
	// OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL); nil means
	// os.LookupEnv. Tests pass a map's lookup.
	LookupEnv func(string) (string, bool)
	// Stream asks for streamed answers (assembled into one message).
	Stream bool
	// OnChunk receives the pieces of streamed answers.
	OnChunk ChunkFunc
	// MaxTokens is Anthropic's required max_tokens when a request does not
	// set it; 0 means DefaultAnthropicMaxTokens.
	MaxTokens int
}

// ErrUnknownProvider is wrapped by New's error for a name whose provider
// it does not know.
var ErrUnknownProvider = errors.New("unknown model provider")

// ErrMissingKey is wrapped by New's error when a live or recording model
// has no API key.
var ErrMissingKey = errors.New("missing API key")

// New returns the model a name stands for:
//
//	openai:gpt-4.1-mini            OpenAI Chat Completions (OPENAI_API_KEY, OPENAI_BASE_URL)
//	anthropic:claude-sonnet-4-5    Anthropic Messages (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)
//	openai-compatible:qwen3:0.6b   any Chat Completions server at Options.BaseURL or
//	                               OPENAI_BASE_URL (key optional: OPENAI_API_KEY)
//
// Everything after the first colon is the model id sent to the server.
// A live or recording model without a key is an error wrapping
// ErrMissingKey; a replaying one needs no key.
func New(name string, opts Options) (engine.ChatModel, error) {
	provider, model, ok := strings.Cut(name, ":")
	if !ok || provider == "" || model == "" {
		return nil, fmt.Errorf("model name %q: want provider:model, such as openai:gpt-4.1-mini or anthropic:claude-sonnet-4-5", name)
	}
	env := opts.LookupEnv
	if env == nil {
		env = os.LookupEnv
	}
	get := func(k string) string {
		v, _ := env(k)
		return strings.TrimSpace(v)
	}
	retries := 2
	if opts.MaxRetries != nil {
		retries = *opts.MaxRetries
	}
	if opts.Replay {
		retries = 0
	}
	key := func(envName string, required bool) (string, error) {
		if opts.Replay {
			return "", nil
		}
		k := opts.APIKey
		if k == "" {
			k = get(envName)
		}
		if k == "" && required {
			return "", fmt.Errorf("model %q: %w: set %s (or replay from a cassette)", name, ErrMissingKey, envName)
		}
		return k, nil
	}
	baseURL := func(envName string) string {
		if opts.BaseURL != "" {
			return opts.BaseURL
		}
		return get(envName)
	}
	switch provider {
	case ProviderOpenAI, ProviderOpenAICompatible:
		compatible := provider == ProviderOpenAICompatible
		k, err := key("OPENAI_API_KEY", !compatible)
		if err != nil {
			return nil, err
		}
		base := baseURL("OPENAI_BASE_URL")
		if compatible && base == "" {
			return nil, fmt.Errorf("model %q: an openai-compatible model needs a base URL: set OPENAI_BASE_URL or Options.BaseURL", name)
		}
		return NewOpenAI(OpenAIConfig{Model: model, Provider: provider, APIKey: k, BaseURL: base, HTTPClient: opts.HTTPClient, MaxRetries: retries, Stream: opts.Stream, OnChunk: opts.OnChunk})
	case ProviderAnthropic:
		k, err := key("ANTHROPIC_API_KEY", true)
		if err != nil {
			return nil, err
		}
		return NewAnthropic(AnthropicConfig{Model: model, APIKey: k, BaseURL: baseURL("ANTHROPIC_BASE_URL"), HTTPClient: opts.HTTPClient, MaxRetries: retries, Stream: opts.Stream, OnChunk: opts.OnChunk, MaxTokens: opts.MaxTokens})
	}
	return nil, fmt.Errorf("model name %q: %w %q: expected %s, %s or %s", name, ErrUnknownProvider, provider, ProviderOpenAI, ProviderAnthropic, ProviderOpenAICompatible)
}
