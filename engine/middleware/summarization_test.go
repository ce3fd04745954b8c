package middleware

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// fakeModel answers every call with answer (or fails with err) and records
// the requests.
type fakeModel struct {
	answer engine.Message
	err    error

	mu   sync.Mutex
	reqs []engine.ModelRequest
}

func (f *fakeModel) Generate(_ context.Context, req engine.ModelRequest) (engine.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	if f.err != nil {
		return engine.Message{}, f.err
	}
	return f.answer.Clone(), nil
}

func (f *fakeModel) prompts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.reqs {
		out = append(out, r.Messages.At(r.Messages.Len()-1).Text())
	}
	return out
}

// profiled is a model with a known input window.
type profiled struct {
	*fakeModel
	window int
}

func (p profiled) MaxInputTokens() int { return p.window }

func withIDs(msgs ...engine.Message) []engine.Message {
	for i := range msgs {
		if msgs[i].ID == "" {
			msgs[i].ID = "m" + string(rune('0'+i))
		}
	}
	return msgs
}

func stateOf(msgs []engine.Message) engine.State { return engine.State{"messages": msgs} }

// updateTexts renders a before_model update as type:content lines.
func updateTexts(t *testing.T, v any) []string {
	t.Helper()
	if v == nil {
		return nil
	}
	s, ok := v.(engine.State)
	if !ok {
		t.Fatalf("update is %T, want engine.State", v)
	}
	msgs, err := engine.MessagesFromValue(s["messages"])
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, m := range msgs {
		if m.Type == engine.TypeRemove {
			out = append(out, "remove:"+m.ID)
			continue
		}
		out = append(out, string(m.Type)+":"+m.Text())
	}
	return out
}

func TestSummarizationBeforeModel(t *testing.T) {
	t.Parallel()
	h1, h2 := engine.HumanMessage("weather Paris"), engine.HumanMessage("weather Rome")
	ai1 := engine.AIMessage("", weatherCall("c1", "Paris"), weatherCall("c2", "Rome"))
	t1 := engine.ToolMessage(engine.Text("sunny"), "get_weather", "c1")
	t2 := engine.ToolMessage(engine.Text("rainy"), "get_weather", "c2")
	a2 := engine.AIMessage("Sunny and rainy.")
	tests := []struct {
		name, reason string
		opts         SummarizationOptions
		msgs         []engine.Message
		want         []string
		wantCalls    int
	}{
		{
			name: "no trigger", reason: "without a trigger the middleware never summarizes",
			msgs: withIDs(h1, ai1, t1, t2, a2, h2),
		},
		{
			name: "below", reason: "5 messages do not reach ('messages', 6)",
			opts: SummarizationOptions{Trigger: []ContextSize{Messages(6)}, Keep: Messages(2)},
			msgs: withIDs(h1, ai1, t1, t2, a2),
		},
		{
			name: "keep messages", reason: "the two newest messages stay after the summary",
			opts: SummarizationOptions{Trigger: []ContextSize{Messages(6)}, Keep: Messages(2)},
			msgs: withIDs(h1, ai1, t1, t2, a2, h2),
			want: []string{"remove:__remove_all__", "human:" + SummaryPrefix + "SUMMARY", "ai:Sunny and rainy.", "human:weather Rome"}, wantCalls: 1,
		},
		{
			name: "tool pair", reason: "a cut on a tool message moves past the tool messages: the AI message and its results are summarized together",
			opts: SummarizationOptions{Trigger: []ContextSize{Messages(3)}, Keep: Messages(1)},
			msgs: withIDs(h1, ai1, t1, t2),
			want: []string{"remove:__remove_all__", "human:" + SummaryPrefix + "SUMMARY"}, wantCalls: 1,
		},
		{
			name: "tokens trigger", reason: "any trigger of the list is enough; one token per message here",
			opts: SummarizationOptions{Trigger: []ContextSize{Messages(100), Tokens(6)}, Keep: Messages(1), TokenCounter: msgCount},
			msgs: withIDs(h1, ai1, t1, t2, a2, h2),
			want: []string{"remove:__remove_all__", "human:" + SummaryPrefix + "SUMMARY", "human:weather Rome"}, wantCalls: 1,
		},
		{
			name: "keep tokens", reason: "the newest messages within 3 tokens stay, cut moved past the tool messages",
			opts: SummarizationOptions{Trigger: []ContextSize{Messages(2)}, Keep: Tokens(3), TokenCounter: msgCount},
			msgs: withIDs(h1, ai1, t1, t2, a2, h2),
			want: []string{"remove:__remove_all__", "human:" + SummaryPrefix + "SUMMARY", "ai:Sunny and rainy.", "human:weather Rome"}, wantCalls: 1,
		},
		{
			name: "keep tokens all fit", reason: "nothing is summarized when everything fits the keep budget",
			opts: SummarizationOptions{Trigger: []ContextSize{Messages(2)}, Keep: Tokens(10), TokenCounter: msgCount},
			msgs: withIDs(h1, ai1, t1, t2, a2, h2),
		},
		{
			name: "fraction", reason: "('fraction', 0.5) of a 10-token window is 5 tokens",
			opts: SummarizationOptions{Trigger: []ContextSize{Fraction(0.5)}, Keep: Fraction(0.2), TokenCounter: msgCount, MaxInputTokens: 10},
			msgs: withIDs(h1, ai1, t1, t2, a2, h2),
			want: []string{"remove:__remove_all__", "human:" + SummaryPrefix + "SUMMARY", "ai:Sunny and rainy.", "human:weather Rome"}, wantCalls: 1,
		},
		{
			name: "no human to summarize", reason: "the summarizer only sees messages from a human message on; with none it is not called",
			opts: SummarizationOptions{Trigger: []ContextSize{Messages(3)}, Keep: Messages(1)},
			msgs: withIDs(ai1, t1, t2, h2),
			want: []string{"remove:__remove_all__", "human:" + SummaryPrefix + "Previous conversation was too long to summarize.", "human:weather Rome"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := &fakeModel{answer: engine.AIMessage("  SUMMARY\n")}
			tt.opts.Model = model
			s, err := NewSummarization(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.BeforeModel(context.Background(), stateOf(tt.msgs))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, updateTexts(t, got)); d != "" {
				t.Errorf("BeforeModel(%s) mismatch (-want +got) — %s:\n%s", tt.name, tt.reason, d)
			}
			if n := len(model.prompts()); n != tt.wantCalls {
				t.Errorf("summarizer called %d times, want %d", n, tt.wantCalls)
			}
		})
	}
}

func TestSummarizationPrompt(t *testing.T) {
	t.Parallel()
	h := engine.HumanMessage("hi")
	h.ID = "h1"
	a := engine.AIMessage("hello")
	a.ID = "a1"
	msgs := []engine.Message{h, a, engine.HumanMessage("again")}
	msgs[2].ID = "h2"
	tests := []struct {
		name, reason string
		opts         SummarizationOptions
		want         string
	}{
		{"default", "the default prompt embeds the Python repr of the messages", SummarizationOptions{},
			strings.Replace(DefaultSummaryPrompt, "{messages}", "[HumanMessage(content='hi', additional_kwargs={}, response_metadata={}, id='h1'), AIMessage(content='hello', additional_kwargs={}, response_metadata={}, id='a1')]", 1)},
		{"custom", "str.format: doubled braces are literal", SummarizationOptions{SummaryPrompt: "{{json}} {messages}"},
			"{json} [HumanMessage(content='hi', additional_kwargs={}, response_metadata={}, id='h1'), AIMessage(content='hello', additional_kwargs={}, response_metadata={}, id='a1')]"},
		{"trimmed", "a 1-token trim budget keeps only the AI message, which start_on='human' drops: no summary call", SummarizationOptions{TrimTokensToSummarize: 1, TokenCounter: msgCount, Keep: Messages(1)},
			""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := &fakeModel{answer: engine.AIMessage("S")}
			tt.opts.Model = model
			tt.opts.Trigger = []ContextSize{Messages(1)}
			if tt.opts.Keep.Kind == "" {
				tt.opts.Keep = Messages(1)
			}
			s, err := NewSummarization(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.BeforeModel(context.Background(), stateOf(msgs)); err != nil {
				t.Fatal(err)
			}
			prompts := model.prompts()
			if tt.want == "" {
				if len(prompts) != 0 {
					t.Errorf("summarizer called with %q, want no call (%s)", prompts, tt.reason)
				}
				return
			}
			if len(prompts) != 1 {
				t.Fatalf("summarizer called %d times, want 1", len(prompts))
			}
			if d := cmp.Diff(tt.want, prompts[0]); d != "" {
				t.Errorf("prompt (%s) mismatch (-want +got) — %s:\n%s", tt.name, tt.reason, d)
			}
		})
	}
}

func TestSummarizationModelError(t *testing.T) {
	t.Parallel()
	model := &fakeModel{err: engine.NewError("RuntimeError", "rate limited")}
	s, err := NewSummarization(SummarizationOptions{Model: model, Trigger: []ContextSize{Messages(2)}, Keep: Messages(1)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.BeforeModel(context.Background(), stateOf(withIDs(engine.HumanMessage("a"), engine.AIMessage("b"))))
	if err != nil {
		t.Fatalf("a failing summary call must not fail the run, got %v", err)
	}
	want := []string{"remove:__remove_all__", "human:" + SummaryPrefix + "Error generating summary: rate limited", "ai:b"}
	if d := cmp.Diff(want, updateTexts(t, got)); d != "" {
		t.Errorf("BeforeModel mismatch (-want +got):\n%s", d)
	}
}

func TestNewSummarizationErrors(t *testing.T) {
	t.Parallel()
	model := &fakeModel{}
	tests := []struct {
		name, reason string
		opts         SummarizationOptions
		want         []string
	}{
		{"model", "a summary model is required", SummarizationOptions{}, []string{"model: required"}},
		{"fraction", "fractions need the model's window", SummarizationOptions{Model: model, Trigger: []ContextSize{Fraction(0.8)}}, []string{"maximum input tokens are unknown"}},
		{"trigger", "trigger thresholds must be positive", SummarizationOptions{Model: model, Trigger: []ContextSize{Tokens(0)}}, []string{"trigger[0]: thresholds must be greater than 0"}},
		{"keep", "keep must be positive", SummarizationOptions{Model: model, Keep: Messages(0)}, []string{"keep: thresholds must be greater than 0"}},
		{"prompt", "a prompt field other than {messages} could never be filled", SummarizationOptions{Model: model, SummaryPrompt: "{history}"}, []string{"summary_prompt: unknown field {history}"}},
		{"all", "every problem is reported at once", SummarizationOptions{Trigger: []ContextSize{{Kind: "turns", Value: 1}}, SummaryPrompt: "}"}, []string{"model: required", "unsupported context size type", "single '}'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewSummarization(tt.opts)
			if err == nil {
				t.Fatalf("NewSummarization(%s) succeeded, want an error (%s)", tt.name, tt.reason)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("NewSummarization(%s) error %q does not say %q (%s)", tt.name, err, w, tt.reason)
				}
			}
		})
	}
	if _, err := NewSummarization(SummarizationOptions{Model: profiled{model, 1000}, Trigger: []ContextSize{Fraction(0.8)}}); err != nil {
		t.Errorf("a model with a profile makes fractions usable: %v", err)
	}
}

// drawConversation draws a well-formed conversation: human turns, plain
// AI answers, and AI messages with calls followed by their tool results.
func drawConversation(t *rapid.T) []engine.Message {
	msgs := []engine.Message{engine.HumanMessage("start")}
	call := 0
	for range rapid.IntRange(0, 10).Draw(t, "turns") {
		switch rapid.IntRange(0, 2).Draw(t, "turn") {
		case 0:
			msgs = append(msgs, engine.HumanMessage("more"))
		case 1:
			msgs = append(msgs, engine.AIMessage("answer"))
		default:
			var calls []engine.ToolCall
			for range rapid.IntRange(1, 3).Draw(t, "calls") {
				call++
				calls = append(calls, weatherCall(fmt.Sprintf("c%d", call), "Paris"))
			}
			msgs = append(msgs, engine.AIMessage("", calls...))
			for _, c := range calls {
				msgs = append(msgs, engine.ToolMessage(engine.Text("sunny"), "get_weather", c.ID))
			}
		}
	}
	for i := range msgs {
		msgs[i].ID = fmt.Sprintf("m%d", i)
	}
	return msgs
}

// TestPropSummaryKeepsToolPairs: whatever the keep size, the messages kept
// after a summary are a suffix of the conversation, at most keep long,
// and every tool result kept has the AI message that asked for it.
func TestPropSummaryKeepsToolPairs(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propSummaryKeepsToolPairs)
}

func FuzzSummaryKeepsToolPairs(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propSummaryKeepsToolPairs))
}

func propSummaryKeepsToolPairs(t *rapid.T) {
	msgs := drawConversation(t)
	keep := Messages(rapid.IntRange(1, 8).Draw(t, "keep"))
	if rapid.Bool().Draw(t, "keep_tokens") {
		keep = Tokens(rapid.IntRange(1, 60).Draw(t, "keep_tokens_n"))
	}
	s, err := NewSummarization(SummarizationOptions{Model: &fakeModel{answer: engine.AIMessage("S")}, Trigger: []ContextSize{Messages(1)}, Keep: keep})
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.BeforeModel(context.Background(), stateOf(msgs))
	if err != nil {
		t.Fatal(err)
	}
	if out == nil {
		return
	}
	update, err := engine.MessagesFromValue(out.(engine.State)["messages"])
	if err != nil {
		t.Fatal(err)
	}
	if len(update) < 2 || update[0].Type != engine.TypeRemove || update[0].ID != engine.RemoveAllMessages || !strings.HasPrefix(update[1].Text(), SummaryPrefix) {
		t.Fatalf("the update must be remove-all and the summary, got %v", texts(update))
	}
	kept := update[2:]
	if len(kept) >= len(msgs) {
		t.Fatalf("kept %d of %d messages: nothing was summarized", len(kept), len(msgs))
	}
	if keep.Kind == SizeMessages && len(kept) > int(keep.Value) {
		t.Fatalf("kept %d messages, more than keep %v", len(kept), keep)
	}
	suffix := msgs[len(msgs)-len(kept):]
	asked := map[string]bool{}
	for i, m := range kept {
		if m.ID != suffix[i].ID {
			t.Fatalf("kept messages are not a suffix: %s at %d, want %s", m.ID, i, suffix[i].ID)
		}
		for _, tc := range m.ToolCalls {
			asked[tc.ID] = true
		}
		if m.Type == engine.TypeTool && !asked[m.ToolCallID] {
			t.Fatalf("tool result %s was kept without its AI message", m.ToolCallID)
		}
	}
}
