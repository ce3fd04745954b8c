package llm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine/llm"
)

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestNewNamesModels(t *testing.T) {
	tests := []struct {
		reason   string
		name     string
		opts     llm.Options
		wantName string
		wantErr  string
		wantIs   error
	}{
		{"openai with a key from the environment", "openai:gpt-4.1-mini", llm.Options{LookupEnv: env("OPENAI_API_KEY", "k")}, "openai:gpt-4.1-mini", "", nil},
		{"anthropic with a key from the environment", "anthropic:claude-sonnet-4-5", llm.Options{LookupEnv: env("ANTHROPIC_API_KEY", "k")}, "anthropic:claude-sonnet-4-5", "", nil},
		{"openai-compatible needs no key; the model id may hold colons", "openai-compatible:qwen3:0.6b", llm.Options{LookupEnv: env("OPENAI_BASE_URL", "http://localhost:11434/v1")}, "openai-compatible:qwen3:0.6b", "", nil},
		{"replay needs no key", "anthropic:claude-sonnet-4-5", llm.Options{Replay: true, LookupEnv: env()}, "anthropic:claude-sonnet-4-5", "", nil},
		{"an explicit key beats the environment", "openai:gpt-4o", llm.Options{APIKey: "k", LookupEnv: env()}, "openai:gpt-4o", "", nil},
		{"a live openai model without a key", "openai:gpt-4o", llm.Options{LookupEnv: env()}, "", `model "openai:gpt-4o": missing API key: set OPENAI_API_KEY (or replay from a cassette)`, llm.ErrMissingKey},
		{"a live anthropic model without a key", "anthropic:claude-sonnet-4-5", llm.Options{LookupEnv: env("OPENAI_API_KEY", "k")}, "", "set ANTHROPIC_API_KEY", llm.ErrMissingKey},
		{"openai-compatible without a base URL", "openai-compatible:llama3", llm.Options{Replay: true, LookupEnv: env()}, "", "needs a base URL: set OPENAI_BASE_URL", nil},
		{"an unknown provider", "gemini:gemini-2.5-pro", llm.Options{LookupEnv: env()}, "", `model name "gemini:gemini-2.5-pro": unknown model provider "gemini": expected openai, anthropic or openai-compatible`, llm.ErrUnknownProvider},
		{"no provider", "gpt-4o", llm.Options{LookupEnv: env()}, "", `model name "gpt-4o": want provider:model`, nil},
		{"negative retries", "openai:gpt-4o", llm.Options{APIKey: "k", MaxRetries: ptr(-1), LookupEnv: env()}, "", "MaxRetries -1 is negative", nil},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			m, err := llm.New(tc.name, tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("New(%q) = %v, want an error containing %q", tc.name, err, tc.wantErr)
				}
				if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
					t.Errorf("New(%q) error does not wrap %v", tc.name, tc.wantIs)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%q): %v", tc.name, err)
			}
			if got := m.(interface{ Name() string }).Name(); got != tc.wantName {
				t.Errorf("Name() = %q, want %q", got, tc.wantName)
			}
		})
	}
}
