package llm

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	// Input is the price of input tokens that were not cache reads or
	// writes; Output of output tokens.
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
	// CacheRead and CacheWrite price the input tokens read from and
	// written to a prompt cache (input_token_details cache_read and
	// cache_creation); zero means the Input price.
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// PriceTable maps model names to prices. A model is looked up by its
// exact name, then by the longest entry that is a prefix of it followed
// by "-" (so "gpt-4o-2024-08-06" finds "gpt-4o" and "claude-haiku-4-5-20251001"
// finds "claude-haiku-4-5").
type PriceTable map[string]Price

// PricesAsOf dates DefaultPrices.
const PricesAsOf = "2025-09-01"

// DefaultPrices holds list prices, as the providers published them around
// PricesAsOf, for the models in agenteval's own cassettes. Prices change:
// pass your own table (LoadPrices, Merge) before trusting a cost report.
var DefaultPrices = PriceTable{
	"gpt-4o":            {Input: 2.50, Output: 10.00, CacheRead: 1.25},
	"gpt-4o-mini":       {Input: 0.15, Output: 0.60, CacheRead: 0.075},
	"gpt-4.1":           {Input: 2.00, Output: 8.00, CacheRead: 0.50},
	"gpt-4.1-mini":      {Input: 0.40, Output: 1.60, CacheRead: 0.10},
	"gpt-4.1-nano":      {Input: 0.10, Output: 0.40, CacheRead: 0.025},
	"gpt-3.5-turbo":     {Input: 0.50, Output: 1.50},
	"claude-3-opus":     {Input: 15.00, Output: 75.00, CacheRead: 1.50, CacheWrite: 18.75},
	"claude-sonnet-4":   {Input: 3.00, Output: 15.00, CacheRead: 0.30, CacheWrite: 3.75},
	"claude-sonnet-4-5": {Input: 3.00, Output: 15.00, CacheRead: 0.30, CacheWrite: 3.75},
	"claude-haiku-4-5":  {Input: 1.00, Output: 5.00, CacheRead: 0.10, CacheWrite: 1.25},
	"mistral-small":     {Input: 0.10, Output: 0.30},
	"gemini-2.5-pro":    {Input: 1.25, Output: 10.00, CacheRead: 0.31},
	"meta-llama/llama-4-scout-17b-16e-instruct": {Input: 0.11, Output: 0.34},
	"qwen3:0.6b": {}, // local (Ollama): free
}

// Lookup returns the price of a model and the table entry that priced it.
func (t PriceTable) Lookup(model string) (Price, string, bool) {
	if p, ok := t[model]; ok {
		return p, model, true
	}
	best := ""
	for k := range t {
		if len(k) > len(best) && strings.HasPrefix(model, k+"-") {
			best = k
		}
	}
	if best == "" {
		return Price{}, "", false
	}
	return t[best], best, true
}

// Cost returns what usage cost on model, in US dollars, and whether the
// model has a price. Input tokens are split into cache reads, cache
// writes and the rest by input_token_details; tokens that total_tokens
// counts beyond input and output (Gemini's thinking tokens) are billed as
// output.
func (t PriceTable) Cost(model string, u *engine.Usage) (float64, bool) {
	p, _, ok := t.Lookup(model)
	if !ok || u == nil {
		return 0, ok
	}
	detail := func(k string) int {
		v, _ := u.InputTokenDetails.Get(k)
		n, _ := v.(json.Number)
		i, _ := n.Int64()
		return int(i)
	}
	read, write := detail("cache_read"), detail("cache_creation")
	plain := u.InputTokens - read - write
	if plain < 0 {
		plain = 0
	}
	cr, cw := p.CacheRead, p.CacheWrite
	if cr == 0 {
		cr = p.Input
	}
	if cw == 0 {
		cw = p.Input
	}
	out := u.OutputTokens
	if hidden := u.TotalTokens - u.InputTokens - u.OutputTokens; hidden > 0 {
		out += hidden // thinking tokens some APIs count only in the total (Gemini); billed as output
	}
	return (float64(plain)*p.Input + float64(read)*cr + float64(write)*cw + float64(out)*p.Output) / 1e6, true
}

// Merge returns a table with t's entries, replaced or extended by
// override's.
func (t PriceTable) Merge(override PriceTable) PriceTable {
	out := make(PriceTable, len(t)+len(override))
	for k, v := range t {
		out[k] = v
	}
	for k, v := range override {
		out[k] = v
	}
	return out
}

// Models returns the table's model names, sorted.
func (t PriceTable) Models() []string {
	out := make([]string, 0, len(t))
	for k := range t {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// LoadPrices reads a price table from JSON:
//
//	{"gpt-4o": {"input": 2.5, "output": 10, "cache_read": 1.25}}
//
// Unknown fields and negative prices are errors.
func LoadPrices(r io.Reader) (PriceTable, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var t PriceTable
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("price table: %w", err)
	}
	for _, m := range t.Models() {
		p := t[m]
		if p.Input < 0 || p.Output < 0 || p.CacheRead < 0 || p.CacheWrite < 0 {
			return nil, fmt.Errorf("price table: %s: prices must not be negative", m)
		}
	}
	return t, nil
}
