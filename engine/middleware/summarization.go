package middleware

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// DefaultSummaryPrompt is langchain's DEFAULT_SUMMARY_PROMPT; {messages}
// is replaced by the Python repr of the messages to summarize.
const DefaultSummaryPrompt = `<role>
Context Extraction Assistant
</role>

<primary_objective>
Your sole objective in this task is to extract the highest quality/most relevant context from the conversation history below.
</primary_objective>

<objective_information>
You're nearing the total number of input tokens you can accept, so you must extract the highest quality/most relevant pieces of information from your conversation history.
This context will then overwrite the conversation history presented below. Because of this, ensure the context you extract is only the most important information to your overall goal.
</objective_information>

<instructions>
The conversation history below will be replaced with the context you extract in this step. Because of this, you must do your very best to extract and record all of the most important context from the conversation history.
You want to ensure that you don't repeat any actions you've already completed, so the context you extract from the conversation history should be focused on the most important information to your overall goal.
</instructions>

The user will message you with the full message history you'll be extracting context from, to then replace. Carefully read over it all, and think deeply about what information is most important to your overall goal that should be saved:

With all of this in mind, please carefully read over the entire conversation history, and extract the most important and relevant context to replace it so that you can free up space in the conversation history.
Respond ONLY with the extracted context. Do not include any additional information, or text before or after the extracted context.

<messages>
Messages to summarize:
{messages}
</messages>`

// SummaryPrefix starts the human message that replaces the summarized
// messages; the summary follows it.
const SummaryPrefix = "Here is a summary of the conversation to date:\n\n"

const (
	defaultMessagesToKeep        = 20
	defaultTrimTokensToSummarize = 4000
	fallbackMessageCount         = 15
)

// SummarizationOptions configures Summarization. Model is required; the
// zero value of every other field is langchain's default.
type SummarizationOptions struct {
	// Model writes the summaries.
	Model engine.ChatModel `json:"-"`
	// Trigger lists the conditions that start a summary, any one being
	// enough: ("messages", n) when there are at least n messages,
	// ("tokens", n) when the messages count at least n tokens,
	// ("fraction", f) at f of the model's input window. Empty: never.
	Trigger []ContextSize `json:"trigger"`
	// Keep is how much recent history survives a summary: the last n
	// messages, the newest messages within n tokens or within a fraction
	// of the window. The zero value means ("messages", 20).
	Keep ContextSize `json:"keep"`
	// TokenCounter counts tokens for triggers, keep and trimming; nil
	// means CountTokensApproximately.
	TokenCounter TokenCounter `json:"-"`
	// SummaryPrompt is the summarizer's prompt, with a {messages}
	// placeholder ({{ and }} for literal braces, as in Python's
	// str.format); "" means DefaultSummaryPrompt.
	SummaryPrompt string `json:"summary_prompt,omitempty"`
	// TrimTokensToSummarize caps the tokens of the messages the summarizer
	// sees (the newest are kept, starting on a human message); 0 means
	// 4000, a negative value sends them all.
	TrimTokensToSummarize int `json:"trim_tokens_to_summarize,omitempty"`
	// MaxInputTokens is the model's input window for fractional sizes; 0
	// asks the model (ModelProfile).
	MaxInputTokens int `json:"max_input_tokens,omitempty"`
}

// Validate reports options Summarization cannot use.
func (o SummarizationOptions) Validate() error {
	var errs []error
	if o.Model == nil {
		errs = append(errs, errors.New("model: required: the chat model that writes the summaries"))
	}
	needWindow := false
	for i, c := range o.Trigger {
		if err := c.validate(fmt.Sprintf("trigger[%d]", i), false); err != nil {
			errs = append(errs, err)
		}
		needWindow = needWindow || c.Kind == SizeFraction
	}
	if o.Keep.Kind != "" {
		if err := o.Keep.validate("keep", false); err != nil {
			errs = append(errs, err)
		}
		needWindow = needWindow || o.Keep.Kind == SizeFraction
	}
	if needWindow && o.Model != nil {
		if _, ok := maxInputTokens(o.MaxInputTokens, o.Model); !ok {
			errs = append(errs, errors.New("fractional trigger or keep: the model's maximum input tokens are unknown: set MaxInputTokens or use a model that implements middleware.ModelProfile, or use absolute token counts"))
		}
	}
	if o.SummaryPrompt != "" {
		if _, err := formatMessagesPrompt(o.SummaryPrompt, ""); err != nil {
			errs = append(errs, fmt.Errorf("summary_prompt: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Summarization is langchain's SummarizationMiddleware
// (langchain/agents/middleware/summarization.py). Before every model call
// it counts the conversation; when a trigger fires it picks a cut point
// that keeps the Keep newest messages — moved forward past tool messages
// so that an AI message is never separated from its tool results — asks
// the summary model (with DefaultSummaryPrompt and the Python repr of the
// older messages, trimmed to TrimTokensToSummarize) for a summary, and
// replaces the whole history with
//
//	RemoveMessage(REMOVE_ALL_MESSAGES), HumanMessage(SummaryPrefix + summary), kept messages...
//
// A failing summary call does not fail the run: the summary becomes
// "Error generating summary: <error>", as in langchain.
//
// Options (SummarizationOptions): model, trigger (one or more ContextSize,
// OR), keep, token_counter, summary_prompt, trim_tokens_to_summarize and
// the model's input window for fractions.
//
// Differences from langchain 1.1.3: the default token counter does not
// switch to 3.3 characters per token for Anthropic models (pass
// ApproximateTokenCounter(3.3, 3, true) as TokenCounter for that); a
// summary prompt with a field other than {messages} is refused when the
// middleware is built instead of producing an error summary; the summary
// is the text of the answer (its text blocks for list content) where
// langchain calls .strip() on the content; a cancelled context fails the
// run instead of becoming an error summary.
type Summarization struct {
	opts   SummarizationOptions
	count  TokenCounter
	keep   ContextSize
	prompt string
	trim   int
	window int
}

// NewSummarization returns the middleware for opts, or every problem with
// them.
func NewSummarization(opts SummarizationOptions) (*Summarization, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("summarization middleware: %w", err)
	}
	s := &Summarization{opts: opts, count: opts.TokenCounter, keep: opts.Keep, prompt: opts.SummaryPrompt, trim: opts.TrimTokensToSummarize}
	if s.count == nil {
		s.count = CountTokensApproximately
	}
	if s.keep.Kind == "" {
		s.keep = Messages(defaultMessagesToKeep)
	}
	if s.prompt == "" {
		s.prompt = DefaultSummaryPrompt
	}
	if s.trim == 0 {
		s.trim = defaultTrimTokensToSummarize
	}
	s.window, _ = maxInputTokens(opts.MaxInputTokens, opts.Model)
	return s, nil
}

// Name is "SummarizationMiddleware".
func (s *Summarization) Name() string { return "SummarizationMiddleware" }

// BeforeModel summarizes the history when a trigger fires.
func (s *Summarization) BeforeModel(ctx context.Context, state engine.State) (any, error) {
	msgs, err := engine.MessagesFromValue(state["messages"])
	if err != nil {
		return nil, fmt.Errorf("summarization: %w", err)
	}
	if !s.shouldSummarize(msgs, s.count(msgs)) {
		return nil, nil
	}
	cut := s.cutoff(msgs)
	if cut <= 0 {
		return nil, nil
	}
	summary, err := s.summarize(ctx, msgs[:cut])
	if err != nil {
		return nil, err
	}
	update := make([]engine.Message, 0, len(msgs)-cut+2)
	update = append(update, engine.RemoveMessage(engine.RemoveAllMessages), engine.HumanMessage(SummaryPrefix+summary))
	update = append(update, msgs[cut:]...)
	return engine.State{"messages": update}, nil
}

// shouldSummarize is _should_summarize: any trigger condition.
func (s *Summarization) shouldSummarize(msgs []engine.Message, tokens int) bool {
	for _, c := range s.opts.Trigger {
		switch c.Kind {
		case SizeMessages:
			if float64(len(msgs)) >= c.Value {
				return true
			}
		case SizeTokens:
			if float64(tokens) >= c.Value {
				return true
			}
		case SizeFraction:
			if s.window > 0 && tokens >= fractionTokens(s.window, c.Value) {
				return true
			}
		}
	}
	return false
}

// cutoff is _determine_cutoff_index: the index of the first kept message.
func (s *Summarization) cutoff(msgs []engine.Message) int {
	switch s.keep.Kind {
	case SizeTokens, SizeFraction:
		target := int(s.keep.Value)
		if s.keep.Kind == SizeFraction {
			if s.window == 0 {
				return safeCutoff(msgs, defaultMessagesToKeep)
			}
			target = int(float64(s.window) * s.keep.Value)
		}
		return s.tokenCutoff(msgs, target)
	}
	return safeCutoff(msgs, int(s.keep.Value))
}

// tokenCutoff is _find_token_based_cutoff: the earliest index whose
// suffix fits in target tokens, by binary search, then moved past tool
// messages.
func (s *Summarization) tokenCutoff(msgs []engine.Message, target int) int {
	if len(msgs) == 0 {
		return 0
	}
	if target <= 0 {
		target = 1
	}
	if s.count(msgs) <= target {
		return 0
	}
	left, right := 0, len(msgs)
	cut := len(msgs)
	for range bits.Len(uint(len(msgs))) + 1 {
		if left >= right {
			break
		}
		mid := (left + right) / 2
		if s.count(msgs[mid:]) <= target {
			cut, right = mid, mid
		} else {
			left = mid + 1
		}
	}
	if cut == len(msgs) {
		cut = left
	}
	if cut >= len(msgs) {
		if len(msgs) == 1 {
			return 0
		}
		cut = len(msgs) - 1
	}
	return safeCutoffPoint(msgs, cut)
}

// safeCutoff is _find_safe_cutoff: keep the last keep messages.
func safeCutoff(msgs []engine.Message, keep int) int {
	if len(msgs) <= keep {
		return 0
	}
	return safeCutoffPoint(msgs, len(msgs)-keep)
}

// safeCutoffPoint is langchain 1.1.3's _find_safe_cutoff_point: a cut on
// a tool message moves forward past all the tool messages there, so the
// tool results go into the summary with the AI message that asked for
// them (summarizing more rather than splitting the pair).
func safeCutoffPoint(msgs []engine.Message, cut int) int {
	for cut < len(msgs) && msgs[cut].Type == engine.TypeTool {
		cut++
	}
	return cut
}

// summarize is _create_summary.
func (s *Summarization) summarize(ctx context.Context, msgs []engine.Message) (string, error) {
	if len(msgs) == 0 {
		return "No previous conversation history.", nil
	}
	trimmed := msgs
	if s.trim > 0 {
		t, err := TrimMessages(msgs, TrimOptions{
			MaxTokens:     s.trim,
			TokenCounter:  s.count,
			StartOn:       []engine.MessageType{engine.TypeHuman},
			AllowPartial:  true,
			IncludeSystem: true,
		})
		if err != nil {
			t = msgs[max(0, len(msgs)-fallbackMessageCount):]
		}
		trimmed = t
	}
	if len(trimmed) == 0 {
		return "Previous conversation was too long to summarize.", nil
	}
	prompt, err := formatMessagesPrompt(s.prompt, MessagesRepr(trimmed))
	if err != nil {
		return "Error generating summary: " + err.Error(), nil
	}
	resp, err := engine.Generate(ctx, s.opts.Model, engine.ModelRequest{Messages: engine.NewMessageList(engine.HumanMessage(prompt))})
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("summarization: %w", err)
		}
		return "Error generating summary: " + engine.ErrorMessage(err), nil
	}
	return strings.TrimSpace(resp.Text()), nil
}

// formatMessagesPrompt is Python's template.format(messages=value) for
// templates whose only field is {messages}.
func formatMessagesPrompt(tmpl, value string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		switch {
		case c == '{' && i+1 < len(tmpl) && tmpl[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(tmpl) && tmpl[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(tmpl[i:], '}')
			if end < 0 {
				return "", errors.New("single '{' encountered in format string")
			}
			field := tmpl[i+1 : i+end]
			if field != "messages" {
				return "", fmt.Errorf("unknown field {%s}: the only field is {messages}", field)
			}
			b.WriteString(value)
			i += end
		case c == '}':
			return "", errors.New("single '}' encountered in format string")
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
