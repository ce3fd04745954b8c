package middleware

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/value"
)

// DefaultToolPlaceholder replaces cleared tool results.
const DefaultToolPlaceholder = "[cleared]"

// Token counting methods of ContextEditing.
const (
	// CountApproximate uses CountTokensApproximately on the messages.
	CountApproximate = "approximate"
	// CountModel asks the model (TokenCountingModel), with the system
	// message and the bound tools.
	CountModel = "model"
)

// ContextEdit is one editing strategy (langchain's ContextEdit protocol):
// Apply changes msgs in place — replacing elements, never the slice's
// length — counting tokens with count.
type ContextEdit interface {
	Apply(msgs []engine.Message, count TokenCounter)
}

// TokenCountingModel is implemented by chat models that count the tokens
// of a request exactly (langchain's get_num_tokens_from_messages).
type TokenCountingModel interface {
	CountTokens(ctx context.Context, msgs []engine.Message, tools []engine.ToolSchema) (int, error)
}

// ClearToolUses is langchain's ClearToolUsesEdit, after Anthropic's
// clear_tool_uses_20250919: once the request is over its trigger, older
// tool results (all but the Keep newest) are replaced by Placeholder,
// marked in response_metadata {"context_editing": {"cleared": true,
// "strategy": "clear_tool_uses"}}; with ClearToolInputs the arguments of
// the calls that asked for them are emptied too and their IDs listed in
// the AI message's response_metadata {"context_editing":
// {"cleared_tool_inputs": [...]}}. Results of ExcludeTools stay.
//
// The zero value is langchain's default edit: trigger above 100000
// tokens, keep 3 results, placeholder "[cleared]".
type ClearToolUses struct {
	// Trigger is the token count the request must exceed (langchain's
	// integer trigger); 0 means 100000. Ignored when Conditions is set.
	Trigger int `json:"trigger,omitempty"`
	// Conditions is langchain's ContextCondition trigger: the edit runs
	// when any group has all its sizes reached (("messages", n): at least
	// n messages; ("tokens", n): at least n tokens; ("fraction", f)).
	Conditions [][]ContextSize `json:"conditions,omitempty"`
	// ClearAtLeast stops clearing once this many tokens were reclaimed; 0
	// clears every candidate.
	ClearAtLeast int `json:"clear_at_least,omitempty"`
	// Keep is how many of the newest tool results stay: ("messages", n),
	// or as many as fit in ("tokens", n) characters of content (langchain
	// measures this budget in characters) or a fraction of the window.
	// The zero value means ("messages", 3).
	Keep ContextSize `json:"keep"`
	// ClearToolInputs also empties the arguments of the cleared calls.
	ClearToolInputs bool `json:"clear_tool_inputs,omitempty"`
	// ExcludeTools names tools whose results are never cleared.
	ExcludeTools []string `json:"exclude_tools,omitempty"`
	// Placeholder replaces cleared results; "" means DefaultToolPlaceholder.
	Placeholder string `json:"placeholder,omitempty"`
	// MaxInputTokens is the model's input window, needed by fractional
	// sizes.
	MaxInputTokens int `json:"max_input_tokens,omitempty"`
}

// Validate reports an edit ClearToolUses cannot apply.
func (e ClearToolUses) Validate() error {
	var errs []error
	if e.Trigger < 0 {
		errs = append(errs, fmt.Errorf("trigger: expected a token count above 0, got %d", e.Trigger))
	}
	needWindow := false
	for i, group := range e.Conditions {
		if len(group) == 0 {
			errs = append(errs, fmt.Errorf("conditions[%d]: empty AND groups are not allowed in trigger conditions", i))
		}
		for j, c := range group {
			if err := c.validate(fmt.Sprintf("conditions[%d][%d]", i, j), false); err != nil {
				errs = append(errs, err)
			}
			needWindow = needWindow || c.Kind == SizeFraction
		}
	}
	if e.Keep.Kind != "" {
		if err := e.Keep.validate("keep", true); err != nil {
			errs = append(errs, err)
		}
		needWindow = needWindow || e.Keep.Kind == SizeFraction
	}
	if e.ClearAtLeast < 0 {
		errs = append(errs, fmt.Errorf("clear_at_least: expected 0 or more tokens, got %d", e.ClearAtLeast))
	}
	if needWindow && e.MaxInputTokens <= 0 {
		errs = append(errs, errors.New("fractional sizes need MaxInputTokens, the model's input window: set it or use absolute token counts"))
	}
	return errors.Join(errs...)
}

// Apply clears old tool results in msgs (ClearToolUsesEdit.apply).
func (e ClearToolUses) Apply(msgs []engine.Message, count TokenCounter) {
	tokens := count(msgs)
	if !e.shouldTrigger(msgs, tokens) {
		return
	}
	var candidates []int
	for i, m := range msgs {
		if m.Type == engine.TypeTool {
			candidates = append(candidates, i)
		}
	}
	keep := e.keepCount(msgs)
	if keep >= len(candidates) {
		candidates = nil
	} else if keep > 0 {
		candidates = candidates[:len(candidates)-keep]
	}
	placeholder := e.Placeholder
	if placeholder == "" {
		placeholder = DefaultToolPlaceholder
	}
	for _, idx := range candidates {
		tm := msgs[idx]
		if alreadyCleared(tm) {
			continue
		}
		ai := -1
		for j := idx - 1; j >= 0; j-- {
			if msgs[j].Type == engine.TypeAI {
				ai = j
				break
			}
		}
		if ai < 0 {
			continue
		}
		call := slices.IndexFunc(msgs[ai].ToolCalls, func(tc engine.ToolCall) bool { return tc.ID == tm.ToolCallID })
		if call < 0 {
			continue
		}
		name := tm.Name
		if name == "" {
			name = msgs[ai].ToolCalls[call].Name
		}
		if slices.Contains(e.ExcludeTools, name) {
			continue
		}
		cleared := tm.Clone()
		cleared.Artifact = nil
		cleared.Content = engine.Text(placeholder)
		cleared.ResponseMetadata = withEntry(tm.ResponseMetadata, engine.NewObject("cleared", true, "strategy", "clear_tool_uses"))
		msgs[idx] = cleared
		if e.ClearToolInputs {
			msgs[ai] = clearToolInput(msgs[ai], tm.ToolCallID)
		}
		if e.ClearAtLeast > 0 && max(0, tokens-count(msgs)) >= e.ClearAtLeast {
			break
		}
	}
}

func alreadyCleared(m engine.Message) bool {
	if m.ResponseMetadata == nil {
		return false
	}
	v, _ := m.ResponseMetadata.Get("context_editing")
	o, _ := v.(*engine.Object)
	if o == nil {
		return false
	}
	c, _ := o.Get("cleared")
	return value.Truthy(c)
}

// withEntry returns a copy of meta with "context_editing" set to entry.
func withEntry(meta, entry *engine.Object) *engine.Object {
	out := meta.Clone()
	if out == nil {
		out = &engine.Object{}
	}
	out.Set("context_editing", entry)
	return out
}

// clearToolInput is _build_cleared_tool_input_message.
func clearToolInput(ai engine.Message, callID string) engine.Message {
	out := ai.Clone()
	cleared := false
	for i := range out.ToolCalls {
		if out.ToolCalls[i].ID == callID {
			out.ToolCalls[i].Args = &engine.Object{}
			cleared = true
		}
	}
	if !cleared {
		return out
	}
	entry := &engine.Object{}
	if out.ResponseMetadata != nil {
		if v, ok := out.ResponseMetadata.Get("context_editing"); ok {
			if o, ok := v.(*engine.Object); ok {
				entry = o.Clone()
			}
		}
	}
	ids := map[string]bool{callID: true}
	if v, ok := entry.Get("cleared_tool_inputs"); ok {
		if l, ok := v.([]any); ok {
			for _, x := range l {
				if s, ok := x.(string); ok {
					ids[s] = true
				}
			}
		}
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	list := make([]any, len(sorted))
	for i, id := range sorted {
		list[i] = id
	}
	entry.Set("cleared_tool_inputs", list)
	out.ResponseMetadata = withEntry(out.ResponseMetadata, entry)
	return out
}

func (e ClearToolUses) shouldTrigger(msgs []engine.Message, tokens int) bool {
	if len(e.Conditions) == 0 {
		trigger := e.Trigger
		if trigger == 0 {
			trigger = 100_000
		}
		return tokens > trigger
	}
	for _, group := range e.Conditions {
		all := true
		for _, c := range group {
			if !e.reached(c, msgs, tokens) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

func (e ClearToolUses) reached(c ContextSize, msgs []engine.Message, tokens int) bool {
	switch c.Kind {
	case SizeMessages:
		return float64(len(msgs)) >= c.Value
	case SizeTokens:
		return float64(tokens) >= c.Value
	case SizeFraction:
		return e.MaxInputTokens > 0 && tokens >= fractionTokens(e.MaxInputTokens, c.Value)
	}
	return false
}

// keepCount is _determine_keep_count.
func (e ClearToolUses) keepCount(msgs []engine.Message) int {
	keep := e.Keep
	if keep.Kind == "" {
		keep = Messages(3)
	}
	var budget int
	switch keep.Kind {
	case SizeMessages:
		return int(keep.Value)
	case SizeTokens:
		budget = max(1, int(keep.Value))
	case SizeFraction:
		if e.MaxInputTokens <= 0 {
			return 0
		}
		budget = max(1, int(float64(e.MaxInputTokens)*keep.Value))
	default:
		return 0
	}
	// _count_tool_messages_within_budget: newest first, by characters
	n, used := 0, 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Type != engine.TypeTool {
			continue
		}
		size := utf8.RuneCountInString(pyStr(msgs[i].Content))
		if used+size > budget && n > 0 {
			break
		}
		used += size
		n++
	}
	return n
}

// pyStr is Python's str() of message content.
func pyStr(c engine.Content) string {
	if c.IsList() {
		return engine.PyRepr(c.Value())
	}
	return c.String()
}

// ContextEditingOptions configures ContextEditing. The zero value applies
// one default ClearToolUses edit with approximate token counts.
type ContextEditingOptions struct {
	// Edits run in order on every model request; nil means
	// []ContextEdit{ClearToolUses{}}.
	Edits []ContextEdit `json:"edits"`
	// TokenCountMethod is "approximate" ("" too) or "model".
	TokenCountMethod string `json:"token_count_method,omitempty"`
}

// Validate reports options ContextEditing cannot use.
func (o ContextEditingOptions) Validate() error {
	var errs []error
	switch o.TokenCountMethod {
	case "", CountApproximate, CountModel:
	default:
		errs = append(errs, fmt.Errorf("token_count_method: %q: expected approximate or model", o.TokenCountMethod))
	}
	for i, e := range o.Edits {
		if e == nil {
			errs = append(errs, fmt.Errorf("edits[%d]: nil", i))
			continue
		}
		if v, ok := e.(interface{ Validate() error }); ok {
			if err := v.Validate(); err != nil {
				errs = append(errs, fmt.Errorf("edits[%d]: %w", i, err))
			}
		}
	}
	return errors.Join(errs...)
}

// ContextEditing is langchain's ContextEditingMiddleware
// (langchain/agents/middleware/context_editing.py). It wraps every model
// call and applies its edits to a copy of the request's messages: the
// model sees the edited conversation, the agent's state keeps the
// original one.
//
// Options (ContextEditingOptions): edits (ClearToolUses: trigger,
// conditions, keep, clear_at_least, clear_tool_inputs, exclude_tools,
// placeholder) and token_count_method ("approximate" counts the messages
// without the system message; "model" asks a TokenCountingModel and
// includes the system message and tools).
type ContextEditing struct {
	edits  []ContextEdit
	method string
}

// NewContextEditing returns the middleware for opts, or every problem with
// them.
func NewContextEditing(opts ContextEditingOptions) (*ContextEditing, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("context editing middleware: %w", err)
	}
	c := &ContextEditing{edits: slices.Clone(opts.Edits), method: opts.TokenCountMethod}
	if c.edits == nil {
		c.edits = []ContextEdit{ClearToolUses{}}
	}
	if c.method == "" {
		c.method = CountApproximate
	}
	return c, nil
}

// Name is "ContextEditingMiddleware".
func (c *ContextEditing) Name() string { return "ContextEditingMiddleware" }

// WrapModelCall edits the request's messages before the model sees them.
func (c *ContextEditing) WrapModelCall(ctx context.Context, req engine.AgentModelRequest, next engine.ModelCallHandler) (*engine.AgentModelResponse, error) {
	if len(req.Messages) == 0 {
		return next(ctx, req)
	}
	count := TokenCounter(CountTokensApproximately)
	var countErr error
	if c.method == CountModel {
		tm, ok := req.Model.(TokenCountingModel)
		if !ok {
			return nil, fmt.Errorf("context editing: token_count_method %q: the model %T does not count tokens (it must implement middleware.TokenCountingModel)", CountModel, req.Model)
		}
		var system []engine.Message
		if req.SystemMessage != nil {
			system = []engine.Message{*req.SystemMessage}
		}
		count = func(msgs []engine.Message) int {
			n, err := tm.CountTokens(ctx, append(slices.Clone(system), msgs...), req.Tools)
			if err != nil && countErr == nil {
				countErr = err
			}
			return n
		}
	}
	msgs := slices.Clone(req.Messages)
	for _, e := range c.edits {
		e.Apply(msgs, count)
	}
	if countErr != nil {
		return nil, fmt.Errorf("context editing: count tokens: %w", countErr)
	}
	req.Messages = msgs
	return next(ctx, req)
}
