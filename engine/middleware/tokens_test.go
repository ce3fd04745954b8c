package middleware

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func weatherCall(id, city string) engine.ToolCall {
	return engine.ToolCall{Name: "get_weather", Args: engine.NewObject("city", city), ID: id}
}

func textBlock(s string) *engine.Object { return engine.NewObject("type", "text", "text", s) }

func TestCountTokensApproximately(t *testing.T) {
	t.Parallel()
	developer := engine.SystemMessage("be brief")
	developer.AdditionalKwargs = engine.NewObject("__openai_role__", "developer")
	named := engine.AIMessage("", weatherCall("c1", "Paris"))
	named.Name = "agent"
	tests := []struct {
		name   string
		reason string
		msgs   []engine.Message
		want   int
	}{
		{"human", "2 chars + 'user' = 6 chars: ceil(6/4) + 3", []engine.Message{engine.HumanMessage("hi")}, 5},
		{"runes", "Python counts code points, not bytes: 11 + 4 = 15 chars", []engine.Message{engine.HumanMessage("héllo wörld")}, 7},
		{"tool calls", "an AI message with string content adds repr(tool_calls) (85 chars) and 'assistant'", []engine.Message{engine.AIMessage("", weatherCall("c1", "Paris"))}, 27},
		{"name", "names count: 99 chars", []engine.Message{named}, 28},
		{"blocks", "list content counts its repr (35 chars)", []engine.Message{{Type: engine.TypeHuman, Content: engine.Blocks(textBlock("héllo"))}}, 13},
		{"tool", "content, tool_call_id, 'tool' and the name: 29 chars", []engine.Message{engine.ToolMessage(engine.Text("It is sunny."), "get_weather", "c1")}, 11},
		{"system", "a system message's role is 'system'", []engine.Message{engine.SystemMessage("be brief")}, 7},
		{"developer role", "__openai_role__ replaces the system role", []engine.Message{developer}, 8},
		{"sum", "per-message counts add up", []engine.Message{engine.HumanMessage("hi"), engine.SystemMessage("be brief")}, 12},
		{"empty", "no messages, no tokens", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := CountTokensApproximately(tt.msgs); got != tt.want {
				t.Errorf("CountTokensApproximately(%s) = %d, want %d (%s)", tt.name, got, tt.want, tt.reason)
			}
		})
	}
}

func TestApproximateTokenCounter(t *testing.T) {
	t.Parallel()
	c, err := ApproximateTokenCounter(3.3, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	m := engine.ToolMessage(engine.Text("ok"), "long_tool_name", "c1")
	// 2 + 2 + 4 = 8 chars without the name: ceil(8/3.3) = 3, no overhead
	if got := c([]engine.Message{m}); got != 3 {
		t.Errorf("count = %d, want 3", got)
	}
	if _, err := ApproximateTokenCounter(0, 3, true); err == nil {
		t.Error("ApproximateTokenCounter(0, ...) should fail: chars per token must be positive")
	}
}

// msgCount counts every message as one token, as trim_messages does with
// token_counter=len.
func msgCount(msgs []engine.Message) int { return len(msgs) }

// charCount counts the runes of the text, or 3 per content block.
func charCount(msgs []engine.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Content.IsList() {
			n += 3 * len(m.Content.Blocks())
		} else {
			n += utf8.RuneCountInString(m.Text())
		}
	}
	return n
}

func texts(msgs []engine.Message) []string {
	out := []string{}
	for _, m := range msgs {
		s := string(m.Type) + ":"
		if m.Content.IsList() {
			s += engine.PyRepr(m.Content.Value())
		} else {
			s += m.Text()
		}
		out = append(out, s)
	}
	return out
}

func TestTrimMessages(t *testing.T) {
	t.Parallel()
	h1, a1, h2, a2 := engine.HumanMessage("h1"), engine.AIMessage("a1"), engine.HumanMessage("h2"), engine.AIMessage("a2")
	sys := engine.SystemMessage("s")
	blocks := engine.Message{Type: engine.TypeHuman, Content: engine.Blocks(textBlock("b1"), textBlock("b2"), textBlock("b3"))}
	human := []engine.MessageType{engine.TypeHuman}
	tests := []struct {
		name   string
		reason string
		msgs   []engine.Message
		opts   TrimOptions
		want   []string
	}{
		{"last", "the newest messages that fit", []engine.Message{h1, a1, h2, a2}, TrimOptions{MaxTokens: 2, TokenCounter: msgCount}, []string{"human:h2", "ai:a2"}},
		{"start on", "start_on drops the leading AI message", []engine.Message{h1, a1, h2, a2}, TrimOptions{MaxTokens: 3, TokenCounter: msgCount, StartOn: human}, []string{"human:h2", "ai:a2"}},
		{"start on when all fit", "start_on applies even when nothing is cut", []engine.Message{a1, h1, a2}, TrimOptions{MaxTokens: 10, TokenCounter: msgCount, StartOn: human}, []string{"human:h1", "ai:a2"}},
		{"no human", "start_on with no human message leaves nothing", []engine.Message{a1, a2}, TrimOptions{MaxTokens: 10, TokenCounter: msgCount, StartOn: human}, []string{}},
		{"include system", "the system message is kept and its tokens reserved", []engine.Message{sys, h1, a1, h2}, TrimOptions{MaxTokens: 2, TokenCounter: msgCount, IncludeSystem: true}, []string{"system:s", "human:h2"}},
		{"end on", "end_on drops trailing messages of other types", []engine.Message{h1, a1, h2, a2}, TrimOptions{MaxTokens: 10, TokenCounter: msgCount, EndOn: human}, []string{"human:h1", "ai:a1", "human:h2"}},
		{"first", "strategy first keeps the oldest", []engine.Message{h1, a1, h2, a2}, TrimOptions{MaxTokens: 2, TokenCounter: msgCount, Strategy: TrimFirst}, []string{"human:h1", "ai:a1"}},
		{"first end on", "end_on cuts back to a human message", []engine.Message{h1, a1, h2, a2}, TrimOptions{MaxTokens: 2, TokenCounter: msgCount, Strategy: TrimFirst, EndOn: human}, []string{"human:h1"}},
		{"partial text last", "the end of the text is kept, whole lines", []engine.Message{engine.HumanMessage("line1\nline2\nline3"), engine.AIMessage("xy")}, TrimOptions{MaxTokens: 10, TokenCounter: charCount, AllowPartial: true}, []string{"human:line3", "ai:xy"}},
		{"partial text first", "the start of the text is kept", []engine.Message{engine.HumanMessage("line1\nline2\nline3")}, TrimOptions{MaxTokens: 12, TokenCounter: charCount, AllowPartial: true, Strategy: TrimFirst}, []string{"human:line1\nline2\n"}},
		{"partial blocks last", "the last blocks are kept, in order", []engine.Message{blocks, engine.AIMessage("xy")}, TrimOptions{MaxTokens: 8, TokenCounter: charCount, AllowPartial: true}, []string{"human:[{'type': 'text', 'text': 'b2'}, {'type': 'text', 'text': 'b3'}]", "ai:xy"}},
		{"partial blocks first", "the first blocks are kept", []engine.Message{blocks, engine.AIMessage("xy")}, TrimOptions{MaxTokens: 7, TokenCounter: charCount, AllowPartial: true, Strategy: TrimFirst}, []string{"human:[{'type': 'text', 'text': 'b1'}, {'type': 'text', 'text': 'b2'}]"}},
		{"partial too small", "no line fits: the message is left out", []engine.Message{engine.HumanMessage("abcdef")}, TrimOptions{MaxTokens: 3, TokenCounter: charCount, AllowPartial: true}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := texts(tt.msgs)
			got, err := TrimMessages(tt.msgs, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, texts(got)); d != "" {
				t.Errorf("TrimMessages(%s) mismatch (-want +got) — %s:\n%s", tt.name, tt.reason, d)
			}
			if d := cmp.Diff(before, texts(tt.msgs)); d != "" {
				t.Errorf("TrimMessages changed its input (-before +after):\n%s", d)
			}
		})
	}
}

func TestTrimMessagesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reason string
		opts         TrimOptions
		want         string
	}{
		{"start on first", "start_on needs strategy last", TrimOptions{Strategy: TrimFirst, StartOn: []engine.MessageType{engine.TypeHuman}}, "start_on parameter is only valid with strategy='last'"},
		{"system first", "include_system needs strategy last", TrimOptions{Strategy: TrimFirst, IncludeSystem: true}, "include_system parameter is only valid with strategy='last'"},
		{"strategy", "unknown strategies are refused with langchain's text", TrimOptions{Strategy: "middle"}, "Unrecognized strategy='middle'. Supported strategies are 'last' and 'first'."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := TrimMessages([]engine.Message{engine.HumanMessage("x")}, tt.opts)
			if err == nil || err.Error() != tt.want {
				t.Errorf("TrimMessages(%s) error = %v, want %q (%s)", tt.name, err, tt.want, tt.reason)
			}
		})
	}
}

func TestMessageRepr(t *testing.T) {
	t.Parallel()
	human := engine.HumanMessage("weather Paris")
	human.ID = "h1"
	ai := engine.AIMessage("", weatherCall("c1", "Paris"))
	ai.ID = "ai1"
	tool := engine.ToolMessage(engine.Text("It is sunny in Paris."), "get_weather", "c1")
	tool.ID = "t1"
	failed := engine.ToolMessage(engine.Text("Error: boom"), "get_weather", "c2")
	failed.Status = engine.StatusError
	failed.Artifact = engine.NewObject("raw", true)
	named := engine.AIMessage("it's done")
	named.Name = "agent"
	named.UsageMetadata = &engine.Usage{InputTokens: 1, OutputTokens: 2, TotalTokens: 3}
	named.ResponseMetadata = engine.NewObject("model", "m")
	tests := []struct {
		name, reason string
		msg          engine.Message
		want         string
	}{
		{"human", "the repr langchain puts in summary prompts", human, "HumanMessage(content='weather Paris', additional_kwargs={}, response_metadata={}, id='h1')"},
		{"ai", "tool calls print as dicts with type tool_call", ai, "AIMessage(content='', additional_kwargs={}, response_metadata={}, id='ai1', tool_calls=[{'name': 'get_weather', 'args': {'city': 'Paris'}, 'id': 'c1', 'type': 'tool_call'}])"},
		{"tool", "a ToolMessage hides additional_kwargs and response_metadata", tool, "ToolMessage(content='It is sunny in Paris.', name='get_weather', id='t1', tool_call_id='c1')"},
		{"tool error", "artifact and a non-default status are shown", failed, "ToolMessage(content='Error: boom', name='get_weather', tool_call_id='c2', artifact={'raw': True}, status='error')"},
		{"ai extras", "name, metadata and usage; double quotes around a single quote", named, `AIMessage(content="it's done", additional_kwargs={}, response_metadata={'model': 'm'}, name='agent', usage_metadata={'input_tokens': 1, 'output_tokens': 2, 'total_tokens': 3})`},
		{"system", "no id, no extras", engine.SystemMessage("be brief"), "SystemMessage(content='be brief', additional_kwargs={}, response_metadata={})"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tt.want, MessageRepr(tt.msg)); d != "" {
				t.Errorf("MessageRepr(%s) mismatch (-want +got) — %s:\n%s", tt.name, tt.reason, d)
			}
		})
	}
	if got, want := MessagesRepr([]engine.Message{human, tool}), "["+MessageRepr(human)+", "+MessageRepr(tool)+"]"; got != want {
		t.Errorf("MessagesRepr = %q, want %q", got, want)
	}
}

func TestContextSizeValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reason string
		size         ContextSize
		zeroOK       bool
		wantErr      bool
	}{
		{"fraction", "fractions in (0, 1] are fine", Fraction(1), false, false},
		{"fraction zero", "a zero fraction never means anything", Fraction(0), false, true},
		{"fraction big", "a fraction above 1 is refused", Fraction(1.5), false, true},
		{"tokens zero", "a trigger threshold must be positive", Tokens(0), false, true},
		{"keep zero", "keep may be zero where allowed", Messages(0), true, false},
		{"keep negative", "never negative", Messages(-1), true, true},
		{"whole", "counts are whole numbers", ContextSize{Kind: SizeMessages, Value: 2.5}, false, true},
		{"kind", "unknown kinds are refused", ContextSize{Kind: "turns", Value: 2}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.size.validate("trigger", tt.zeroOK)
			if (err != nil) != tt.wantErr {
				t.Errorf("%v.validate() = %v, want error %v (%s)", tt.size, err, tt.wantErr, tt.reason)
			}
		})
	}
	if got := Messages(4).String(); got != "('messages', 4)" {
		t.Errorf("String() = %q", got)
	}
}

// drawMessages draws a list of messages of every type with multi-line
// text.
func drawMessages(t *rapid.T) []engine.Message {
	n := rapid.IntRange(0, 12).Draw(t, "n")
	msgs := make([]engine.Message, n)
	for i := range msgs {
		text := rapid.StringMatching(`[a-zé \n]{0,40}`).Draw(t, "text")
		switch rapid.IntRange(0, 3).Draw(t, "type") {
		case 0:
			msgs[i] = engine.HumanMessage(text)
		case 1:
			msgs[i] = engine.AIMessage(text)
		case 2:
			msgs[i] = engine.ToolMessage(engine.Text(text), "t", "c")
		default:
			msgs[i] = engine.SystemMessage(text)
		}
	}
	return msgs
}

// TestPropTrimLastKeepsLongestSuffix: trimming with strategy last keeps
// the longest suffix of whole messages that fits, plus, with
// allow_partial, at most one cut message before it; the result fits.
func TestPropTrimLastKeepsLongestSuffix(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propTrimLastKeepsLongestSuffix)
}

func FuzzTrimLastKeepsLongestSuffix(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propTrimLastKeepsLongestSuffix))
}

func propTrimLastKeepsLongestSuffix(t *rapid.T) {
	msgs := drawMessages(t)
	maxTokens := rapid.IntRange(0, 80).Draw(t, "max_tokens")
	partial := rapid.Bool().Draw(t, "allow_partial")
	got, err := TrimMessages(msgs, TrimOptions{MaxTokens: maxTokens, AllowPartial: partial})
	if err != nil {
		t.Fatal(err)
	}
	if n := CountTokensApproximately(got); n > maxTokens {
		t.Fatalf("the result counts %d tokens, more than %d", n, maxTokens)
	}
	whole := 0
	for whole < len(msgs) && CountTokensApproximately(msgs[len(msgs)-whole-1:]) <= maxTokens {
		whole++
	}
	extra := len(got) - whole
	if extra < 0 || extra > 1 || (extra == 1 && !partial) {
		t.Fatalf("kept %d messages, the longest fitting suffix has %d (allow_partial %v)", len(got), whole, partial)
	}
	if d := cmp.Diff(texts(msgs[len(msgs)-whole:]), texts(got[extra:])); d != "" {
		t.Fatalf("the whole messages kept are not the suffix (-want +got):\n%s", d)
	}
	if extra == 1 {
		src := msgs[len(msgs)-whole-1]
		// the kept pieces may join to "" (text "\n" splits into "\n" and
		// ""), as in langchain_core's trim_messages
		if got[0].Type != src.Type || !strings.HasSuffix(src.Text(), got[0].Text()) {
			t.Fatalf("the partial message %q is not a tail of %q", got[0].Text(), src.Text())
		}
	}
}
