package middleware

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agenteval/agenteval/engine"
)

// TokenCounter counts the tokens of a list of messages. It must be
// deterministic and safe for concurrent use.
type TokenCounter func(msgs []engine.Message) int

// CountTokensApproximately is langchain_core's count_tokens_approximately
// with its defaults: per message, the characters of the content (the
// Python repr of the block list for list content), of the tool calls' repr
// (AI messages with string content), of the tool call ID (tool messages),
// of the OpenAI role and of the name, divided by 4 and rounded up, plus 3.
// Characters are Unicode code points, as Python's len counts them.
func CountTokensApproximately(msgs []engine.Message) int {
	return countApprox(msgs, 4, 3, true)
}

// ApproximateTokenCounter returns count_tokens_approximately with other
// parameters: charsPerToken (langchain uses 3.3 for Anthropic models),
// extraPerMessage tokens added per message, and whether names count.
// charsPerToken must be positive.
func ApproximateTokenCounter(charsPerToken, extraPerMessage float64, countName bool) (TokenCounter, error) {
	if !(charsPerToken > 0) {
		return nil, fmt.Errorf("chars per token: expected a positive number, got %v", charsPerToken)
	}
	return func(msgs []engine.Message) int {
		return countApprox(msgs, charsPerToken, extraPerMessage, countName)
	}, nil
}

func countApprox(msgs []engine.Message, charsPerToken, extra float64, countName bool) int {
	total := 0.0
	for _, m := range msgs {
		chars := 0
		if m.Content.IsList() {
			chars += utf8.RuneCountInString(engine.PyRepr(m.Content.Value()))
		} else {
			chars += utf8.RuneCountInString(m.Text())
		}
		if m.Type == engine.TypeAI && !m.Content.IsList() && len(m.ToolCalls) > 0 {
			chars += utf8.RuneCountInString(toolCallsRepr(m.ToolCalls))
		}
		if m.Type == engine.TypeTool {
			chars += utf8.RuneCountInString(m.ToolCallID)
		}
		chars += utf8.RuneCountInString(openAIRole(m))
		if m.Name != "" && countName {
			chars += utf8.RuneCountInString(m.Name)
		}
		// rounded up per message, so that the counts of single messages
		// add up to the count of the list
		total += math.Ceil(float64(chars) / charsPerToken)
		total += extra
	}
	return int(math.Ceil(total))
}

// openAIRole is langchain_core's _get_message_openai_role.
func openAIRole(m engine.Message) string {
	switch m.Type {
	case engine.TypeAI:
		return "assistant"
	case engine.TypeHuman:
		return "user"
	case engine.TypeTool:
		return "tool"
	case engine.TypeSystem:
		if m.AdditionalKwargs != nil {
			if r, ok := m.AdditionalKwargs.Get("__openai_role__"); ok {
				if s, ok := r.(string); ok {
					return s
				}
			}
		}
		return "system"
	}
	return string(m.Type)
}

// ContextSize kinds (langchain's ContextFraction, ContextTokens,
// ContextMessages).
const (
	// SizeFraction is a fraction of the model's maximum input tokens.
	SizeFraction = "fraction"
	// SizeTokens is an absolute number of tokens.
	SizeTokens = "tokens"
	// SizeMessages is an absolute number of messages.
	SizeMessages = "messages"
)

// ContextSize is langchain's ContextSize tuple: ("fraction", 0.8),
// ("tokens", 3000) or ("messages", 50). The zero value (Kind "") means
// "not set"; each option that takes one says what that stands for.
type ContextSize struct {
	Kind  string  `json:"kind"`
	Value float64 `json:"value"`
}

// Fraction returns ("fraction", f).
func Fraction(f float64) ContextSize { return ContextSize{Kind: SizeFraction, Value: f} }

// Tokens returns ("tokens", n).
func Tokens(n int) ContextSize { return ContextSize{Kind: SizeTokens, Value: float64(n)} }

// Messages returns ("messages", n).
func Messages(n int) ContextSize { return ContextSize{Kind: SizeMessages, Value: float64(n)} }

// String renders the size as the Python tuple.
func (c ContextSize) String() string {
	v := engine.PyRepr(c.Value)
	if c.Kind != SizeFraction && c.Value == math.Trunc(c.Value) {
		v = fmt.Sprint(int64(c.Value))
	}
	return fmt.Sprintf("(%s, %s)", engine.PyStrRepr(c.Kind), v)
}

// validate checks the size the way langchain's _validate_context_size
// does: a fraction in (0, 1], a count above zero (or at least zero when
// zeroOK, as ClearToolUsesEdit's keep allows). param names the option.
func (c ContextSize) validate(param string, zeroOK bool) error {
	switch c.Kind {
	case SizeFraction:
		if !(c.Value > 0 && c.Value <= 1) {
			return fmt.Errorf("%s: fractional values must be between 0 and 1, got %v", param, c.Value)
		}
	case SizeTokens, SizeMessages:
		if c.Value != math.Trunc(c.Value) {
			return fmt.Errorf("%s: a %s count must be a whole number, got %v", param, c.Kind, c.Value)
		}
		if zeroOK && c.Value < 0 {
			return fmt.Errorf("%s: values must be non-negative, got %v", param, c.Value)
		}
		if !zeroOK && c.Value <= 0 {
			return fmt.Errorf("%s: thresholds must be greater than 0, got %v", param, c.Value)
		}
	default:
		return fmt.Errorf("%s: unsupported context size type %q: expected fraction, tokens or messages", param, c.Kind)
	}
	return nil
}

// fractionTokens is int(maxInput * fraction), at least 1: langchain's
// threshold for a fractional size.
func fractionTokens(maxInput int, f float64) int {
	n := int(float64(maxInput) * f)
	if n <= 0 {
		n = 1
	}
	return n
}

// ModelProfile is implemented by chat models that know their context
// window (langchain's model.profile["max_input_tokens"]). Fractional
// context sizes need it, or an explicit MaxInputTokens option.
type ModelProfile interface {
	MaxInputTokens() int
}

// maxInputTokens returns the explicit limit, else the model's profile.
func maxInputTokens(explicit int, m engine.ChatModel) (int, bool) {
	if explicit > 0 {
		return explicit, true
	}
	if p, ok := m.(ModelProfile); ok && p.MaxInputTokens() > 0 {
		return p.MaxInputTokens(), true
	}
	return 0, false
}

// Trim strategies.
const (
	TrimLast  = "last"
	TrimFirst = "first"
)

// TrimOptions configures TrimMessages (langchain_core's trim_messages).
// MaxTokens is required; the zero value of everything else is the
// default: strategy "last", the approximate token counter, no partial
// messages, splitting partial text on newlines.
type TrimOptions struct {
	MaxTokens int
	// TokenCounter counts a list of messages; nil means
	// CountTokensApproximately.
	TokenCounter TokenCounter
	// Strategy is "last" (keep the newest messages; "" means "last") or
	// "first" (keep the oldest).
	Strategy string
	// AllowPartial lets the first message that does not fit in whole be
	// cut: its content blocks, else its text split by TextSplitter.
	AllowPartial bool
	// StartOn (strategy last) drops messages from the start of the result
	// until one of these types begins it.
	StartOn []engine.MessageType
	// EndOn drops messages from the end until one of these types ends it.
	EndOn []engine.MessageType
	// IncludeSystem (strategy last) keeps a leading system message.
	IncludeSystem bool
	// TextSplitter splits text for partial messages; the pieces must join
	// back into the text. Nil splits after each newline.
	TextSplitter func(string) []string
}

// TrimMessages returns the messages that fit in opts.MaxTokens, the way
// langchain_core's trim_messages does (binary search over whole messages,
// then an optional partial message). Messages are values: partial ones are
// copies and msgs is not changed.
func TrimMessages(msgs []engine.Message, opts TrimOptions) ([]engine.Message, error) {
	strategy := opts.Strategy
	if strategy == "" {
		strategy = TrimLast
	}
	if strategy == TrimFirst && len(opts.StartOn) > 0 {
		return nil, errors.New("start_on parameter is only valid with strategy='last'")
	}
	if strategy == TrimFirst && opts.IncludeSystem {
		return nil, errors.New("include_system parameter is only valid with strategy='last'")
	}
	count := opts.TokenCounter
	if count == nil {
		count = CountTokensApproximately
	}
	split := opts.TextSplitter
	if split == nil {
		split = splitLines
	}
	t := trimmer{count: count, split: split}
	switch strategy {
	case TrimFirst:
		partial := ""
		if opts.AllowPartial {
			partial = TrimFirst
		}
		return t.first(msgs, opts.MaxTokens, partial, opts.EndOn), nil
	case TrimLast:
		return t.last(msgs, opts), nil
	}
	return nil, fmt.Errorf("Unrecognized strategy=%s. Supported strategies are 'last' and 'first'.", engine.PyStrRepr(strategy))
}

// splitLines is langchain_core's _default_text_splitter: split after each
// newline, keeping it.
func splitLines(text string) []string {
	parts := strings.Split(text, "\n")
	for i := range len(parts) - 1 {
		parts[i] += "\n"
	}
	return parts
}

type trimmer struct {
	count TokenCounter
	split func(string) []string
}

func isType(m engine.Message, types []engine.MessageType) bool {
	return slices.Contains(types, m.Type)
}

// first is langchain_core's _first_max_tokens.
func (t trimmer) first(in []engine.Message, maxTokens int, partial string, endOn []engine.MessageType) []engine.Message {
	msgs := slices.Clone(in)
	if len(msgs) == 0 {
		return msgs
	}
	if t.count(msgs) <= maxTokens {
		if len(endOn) > 0 {
			for range len(msgs) {
				if !isType(msgs[len(msgs)-1], endOn) {
					msgs = msgs[:len(msgs)-1]
				} else {
					break
				}
			}
		}
		return msgs
	}
	// binary search for the most whole messages that fit
	left, right := 0, len(msgs)
	for range bits.Len(uint(len(msgs))) {
		if left >= right {
			break
		}
		mid := (left + right + 1) / 2
		if t.count(msgs[:mid]) <= maxTokens {
			left = mid
		} else {
			right = mid - 1
		}
	}
	idx := left
	if partial != "" && idx < len(msgs) {
		msgs, idx = t.partial(msgs, idx, maxTokens, partial)
	}
	if len(endOn) > 0 {
		for range idx {
			if idx > 0 && !isType(msgs[idx-1], endOn) {
				idx--
			} else {
				break
			}
		}
	}
	return msgs[:idx]
}

// partial tries to add a cut copy of msgs[idx]: fewer content blocks
// first, then a prefix (or, for "last", a suffix) of its text.
func (t trimmer) partial(msgs []engine.Message, idx, maxTokens int, strategy string) ([]engine.Message, int) {
	withExcluded := func(m engine.Message) []engine.Message {
		return append(slices.Clone(msgs[:idx]), m)
	}
	excluded := msgs[idx].Clone()
	if excluded.Content.IsList() {
		blocks := slices.Clone(excluded.Content.Blocks())
		if strategy == TrimLast {
			slices.Reverse(blocks)
		}
		for range max(0, len(blocks)-1) {
			blocks = blocks[:len(blocks)-1]
			excluded.Content = engine.Blocks(blocks...)
			if t.count(withExcluded(excluded)) <= maxTokens {
				if strategy == TrimLast {
					kept := slices.Clone(blocks)
					slices.Reverse(kept)
					excluded.Content = engine.Blocks(kept...)
				}
				return withExcluded(excluded), idx + 1
			}
		}
		excluded.Content = engine.Blocks(blocks...)
	}
	text := ""
	if excluded.Content.IsList() {
		for _, b := range excluded.Content.Blocks() {
			if s, ok := b.(string); ok {
				text = s
				break
			}
			if o, ok := b.(*engine.Object); ok {
				if typ, _ := o.Get("type"); typ == "text" {
					v, _ := o.Get("text")
					text, _ = v.(string)
					break
				}
			}
		}
	} else {
		text = excluded.Text()
	}
	if text == "" {
		return msgs, idx
	}
	splits := t.split(text)
	base := t.count(msgs[:idx])
	if strategy == TrimLast {
		slices.Reverse(splits)
	}
	left, right := 0, len(splits)
	for range bits.Len(uint(len(splits))) {
		if left >= right {
			break
		}
		mid := (left + right + 1) / 2
		excluded.Content = engine.Text(strings.Join(splits[:mid], ""))
		if base+t.count([]engine.Message{excluded}) <= maxTokens {
			left = mid
		} else {
			right = mid - 1
		}
	}
	if left == 0 {
		return msgs, idx
	}
	kept := slices.Clone(splits[:left])
	if strategy == TrimLast {
		slices.Reverse(kept)
	}
	excluded.Content = engine.Text(strings.Join(kept, ""))
	return withExcluded(excluded), idx + 1
}

// last is langchain_core's _last_max_tokens: first over the reversed
// list, keeping a leading system message aside.
func (t trimmer) last(in []engine.Message, opts TrimOptions) []engine.Message {
	msgs := slices.Clone(in)
	if len(msgs) == 0 {
		return []engine.Message{}
	}
	if len(opts.EndOn) > 0 {
		for range len(msgs) {
			if !isType(msgs[len(msgs)-1], opts.EndOn) {
				msgs = msgs[:len(msgs)-1]
			} else {
				break
			}
		}
	}
	var system *engine.Message
	if opts.IncludeSystem && len(msgs) > 0 && msgs[0].Type == engine.TypeSystem {
		system = &msgs[0]
		msgs = msgs[1:]
	}
	reversed := slices.Clone(msgs)
	slices.Reverse(reversed)
	remaining := opts.MaxTokens
	if system != nil {
		remaining = max(0, opts.MaxTokens-t.count([]engine.Message{*system}))
	}
	partial := ""
	if opts.AllowPartial {
		partial = TrimLast
	}
	out := t.first(reversed, remaining, partial, opts.StartOn)
	slices.Reverse(out)
	if system != nil {
		out = append([]engine.Message{*system}, out...)
	}
	return out
}

// MessageRepr is Python's repr() of the langchain message m
// (engine.MessageRepr).
func MessageRepr(m engine.Message) string { return engine.MessageRepr(m) }

// MessagesRepr is Python's repr() of a list of langchain messages
// (engine.MessagesRepr).
func MessagesRepr(msgs []engine.Message) string { return engine.MessagesRepr(msgs) }

// toolCallsRepr is repr(message.tool_calls).
func toolCallsRepr(calls []engine.ToolCall) string { return engine.ToolCallsRepr(calls) }
