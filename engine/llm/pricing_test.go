package llm_test

import (
	"math"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

func TestPriceLookup(t *testing.T) {
	tests := []struct{ model, entry string }{
		{"gpt-4o", "gpt-4o"},
		{"gpt-4o-2024-08-06", "gpt-4o"},
		{"gpt-4o-mini-2024-07-18", "gpt-4o-mini"},
		{"claude-sonnet-4-20250514", "claude-sonnet-4"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"claude-haiku-4-5-20251001", "claude-haiku-4-5"},
		{"gpt-4o2", ""},
		{"unknown", ""},
	}
	for _, tc := range tests {
		_, entry, ok := llm.DefaultPrices.Lookup(tc.model)
		if entry != tc.entry || ok != (tc.entry != "") {
			t.Errorf("Lookup(%q) = %q, %v; want %q", tc.model, entry, ok, tc.entry)
		}
	}
}

func TestCost(t *testing.T) {
	// #2's first turn: 3 plain input tokens, 1276 written to the cache, 58 out.
	u := &engine.Usage{InputTokens: 1279, OutputTokens: 58, TotalTokens: 1337,
		InputTokenDetails: engine.NewObject("cache_read", n(0), "cache_creation", n(1276))}
	got, ok := llm.DefaultPrices.Cost("claude-sonnet-4-20250514", u)
	want := (3*3.00 + 1276*3.75 + 58*15.00) / 1e6
	if !ok || math.Abs(got-want) > 1e-12 {
		t.Errorf("Cost = %v, %v; want %v", got, ok, want)
	}
	if _, ok := llm.DefaultPrices.Cost("nobody-knows", u); ok {
		t.Error("Cost of an unknown model reports a price")
	}
	override, err := llm.LoadPrices(strings.NewReader(`{"claude-sonnet-4": {"input": 1, "output": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ = llm.DefaultPrices.Merge(override).Cost("claude-sonnet-4-20250514", u)
	if want := 1337.0 / 1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("Cost with override = %v, want %v (cache prices default to the input price)", got, want)
	}
	for _, bad := range []string{`{"m": {"input": -1}}`, `{"m": {"inputs": 1}}`, `[]`} {
		if _, err := llm.LoadPrices(strings.NewReader(bad)); err == nil {
			t.Errorf("LoadPrices(%s) accepted", bad)
		}
	}
}

func TestParseRecordedResponse(t *testing.T) {
	m, err := llm.ParseRecordedResponse("/v1/messages", []byte(anthropicAnswer))
	if err != nil || m.Text() != "ok" {
		t.Errorf("anthropic JSON: %v, %v", m.Text(), err)
	}
	m, err = llm.ParseRecordedResponse("/v1/chat/completions", []byte("data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}\n\ndata: [DONE]\n"))
	if err != nil || m.Text() != "ok" || m.UsageMetadata.TotalTokens != 3 {
		t.Errorf("openai stream: %v, %+v, %v", m.Text(), m.UsageMetadata, err)
	}
	if _, err := llm.ParseRecordedResponse("/v1/chat/completions", nil); err == nil {
		t.Error("empty body accepted")
	}
}
