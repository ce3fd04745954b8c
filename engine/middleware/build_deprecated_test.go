package middleware_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/google/go-cmp/cmp"
)

// TestBuildDeprecatedOptions: the deprecated options build as langchain
// 1.1.3 takes them and warn with its DeprecationWarning texts, in the
// order its constructor checks them; summary_prefix, swallowed by
// SummarizationMiddleware's **deprecated_kwargs, builds without a word.
func TestBuildDeprecatedOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reason, class, opts string
		want                      []string
	}{
		{
			name: "summary prefix", reason: "summary_prefix is accepted and ignored without a warning", class: "SummarizationMiddleware",
			opts: `{"model": "summarizer", "trigger": ["messages", 3], "summary_prefix": "## Summary:"}`,
		},
		{
			name: "summary prefix any value", reason: "**deprecated_kwargs take a value of any type", class: "SummarizationMiddleware",
			opts: `{"model": "summarizer", "summary_prefix": 7}`,
		},
		{
			name: "legacy summarization", reason: "both warn, max_tokens_before_summary first whatever the option order", class: "SummarizationMiddleware",
			opts: `{"model": "summarizer", "messages_to_keep": 2, "max_tokens_before_summary": 100}`,
			want: []string{
				"DeprecationWarning: max_tokens_before_summary is deprecated. Use trigger=('tokens', value) instead.",
				"DeprecationWarning: messages_to_keep is deprecated. Use keep=('messages', value) instead.",
			},
		},
		{
			name: "legacy null tokens", reason: "max_tokens_before_summary=None still warns (the key is present)", class: "SummarizationMiddleware",
			opts: `{"model": "summarizer", "max_tokens_before_summary": null}`,
			want: []string{"DeprecationWarning: max_tokens_before_summary is deprecated. Use trigger=('tokens', value) instead."},
		},
		{
			name: "tool retry raise", reason: "on_failure='raise' is 'error', with a warning", class: "ToolRetryMiddleware",
			opts: `{"on_failure": "raise"}`,
			want: []string{"DeprecationWarning: on_failure='raise' is deprecated and will be removed in a future version. Use on_failure='error' instead."},
		},
		{
			name: "tool retry return_message", reason: "on_failure='return_message' is 'continue', with a warning", class: "ToolRetryMiddleware",
			opts: `{"on_failure": "return_message"}`,
			want: []string{"DeprecationWarning: on_failure='return_message' is deprecated and will be removed in a future version. Use on_failure='continue' instead."},
		},
		{
			name: "current options", reason: "current options warn nothing", class: "ToolRetryMiddleware",
			opts: `{"on_failure": "continue", "max_retries": 1}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			b := middleware.BuildOptions{Models: buildModels(), Warn: func(w middleware.Warning) { got = append(got, w.String()) }}
			if _, err := middleware.Build(tt.class, buildJSON(t, tt.opts), b); err != nil {
				t.Fatalf("Build(%s, %s): %v", tt.class, tt.opts, err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Build(%s) warnings mismatch (-want +got) — %s:\n%s", tt.name, tt.reason, d)
			}
		})
	}
}

// TestSummaryPrefixIgnored: with summary_prefix set, the summary message
// still starts with langchain's fixed text (_build_new_messages).
func TestSummaryPrefixIgnored(t *testing.T) {
	t.Parallel()
	mw, err := middleware.Build("SummarizationMiddleware", buildJSON(t, `{"model": "summarizer", "trigger": ["messages", 3], "keep": ["messages", 1], "summary_prefix": "## Summary:"}`), middleware.BuildOptions{Models: buildModels()})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []engine.Message{engine.HumanMessage("a"), engine.AIMessage("b"), engine.HumanMessage("c")}
	for i := range msgs {
		msgs[i].ID = string(rune('1' + i))
	}
	out, err := mw.(engine.BeforeModelHook).BeforeModel(context.Background(), engine.State{"messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	update := out.(engine.State).Messages("messages")
	if len(update) < 2 || update[1].Text() != middleware.SummaryPrefix+"summary" || strings.Contains(update[1].Text(), "## Summary:") {
		t.Fatalf("summary update = %v, want the fixed prefix and the summary", update)
	}
}
