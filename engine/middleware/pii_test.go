package middleware_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
	"github.com/google/go-cmp/cmp"
)

func newPII(t testing.TB, o middleware.PIIOptions) *middleware.PII {
	t.Helper()
	p, err := middleware.NewPII(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// piiShow renders a hook's result as JSON for diffs.
func piiShow(t *testing.T, v any) string {
	t.Helper()
	b, err := engine.MarshalValue(engine.ValueForJSON(v))
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

// TestPIIDetect: the built-in detectors of langchain 1.1.3's
// _redaction.py. Every want was produced by that code under CPython.
func TestPIIDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reason  string
		piiType string
		content string
		want    []string
	}{
		{"email", "a plain address", "email", "Contact john.doe@example.com, card", []string{"john.doe@example.com"}},
		{"email before hangul", "Python's \\b is Unicode-aware: a Korean particle right after the address leaves no boundary, so 1.1.3 finds nothing", "email", "john@x.com으로 보내 주세요", nil},
		{"email spaced hangul", "with a space the boundary is there", "email", "메일 john@x.com 으로", []string{"john@x.com"}},
		{"email after han", "no boundary between 系 and a either", "email", "联系alice@example.com", nil},
		{"email short tld", "the TLD needs two letters; a trailing dot is left out by backtracking", "email", "a@b.c and a@b.com.", []string{"a@b.com"}},
		{"email pipe", "the TLD class [A-Z|a-z] includes a literal |", "email", "a@b.c|m", []string{"a@b.c|m"}},
		{"card spaces", "a Luhn-valid number with spaces", "credit_card", "4111 1111 1111 1111", []string{"4111 1111 1111 1111"}},
		{"card luhn", "a number failing the Luhn check is not a card", "credit_card", "4111-1111-1111-1112", nil},
		{"card plain", "no separators", "credit_card", "4111111111111111", []string{"4111111111111111"}},
		{"card arabic digits", "\\d and int() accept every Unicode decimal digit", "credit_card", "٤١١١١١١١١١١١١١١١", []string{"٤١١١١١١١١١١١١١١١"}},
		{"card too long", "a 17th digit leaves no boundary after the 16th", "credit_card", "card 4111 1111 1111 11112", nil},
		{"ip", "a private address", "ip", "192.168.1.42", []string{"192.168.1.42"}},
		{"ip invalid", "ipaddress rejects octets over 255 and leading zeros", "ip", "256.1.1.1 and 01.2.3.4", nil},
		{"ip five parts", "the first four parts end at a boundary before the dot", "ip", "1.2.3.4.5", []string{"1.2.3.4"}},
		{"ip after equals", "= is not a word character", "ip", "ip=10.0.0.7", []string{"10.0.0.7"}},
		{"mac colons", "mixed case hex", "mac_address", "00:1A:2b:3C:4d:5E", []string{"00:1A:2b:3C:4d:5E"}},
		{"mac dashes", "dash separators", "mac_address", "00-1a-2b-3c-4d-5e", []string{"00-1a-2b-3c-4d-5e"}},
		{"mac mixed", "the pattern accepts mixed separators", "mac_address", "00:1a-2b:3c-4d:5e", []string{"00:1a-2b:3c-4d:5e"}},
		{"url", "a scheme URL, then a bare www. one", "url", "see https://example.org/path?q=1 and www.test.com", []string{"https://example.org/path?q=1", "www.test.com"}},
		{"url bare", "a bare domain needs a path or www.", "url", "example.com but example.com/path", []string{"example.com/path"}},
		{"url no netloc", "urlparse finds no network location", "url", "http://?q http:///x", nil},
		{"url quote", "a double quote ends a scheme URL", "url", `https://a.b/c"d`, []string{"https://a.b/c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, m := range newPII(t, middleware.DefaultPIIOptions(tc.piiType)).Detect(tc.content) {
				if m.Type != tc.piiType || tc.content[m.Start:m.End] != m.Value {
					t.Errorf("match %+v: wrong type or offsets", m)
				}
				got = append(got, m.Value)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Detect(%q) (%s) mismatch (-want +got):\n%s", tc.content, tc.reason, d)
			}
		})
	}
}

// TestPIIStrategies: redact, mask and hash texts, as langchain 1.1.3
// writes them (values from CPython).
func TestPIIStrategies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reason  string
		opts    middleware.PIIOptions
		content string
		want    [3]string // redact, mask, hash
	}{
		{
			name: "email", reason: "mask keeps the user and the TLD",
			opts:    middleware.PIIOptions{PIIType: "email"},
			content: "mail john.doe@example.com or a@b.io",
			want:    [3]string{"mail [REDACTED_EMAIL] or [REDACTED_EMAIL]", "mail john.doe@****.com or a@****.io", "mail <email_hash:836f82db> or <email_hash:0f3306f4>"},
		},
		{
			name: "credit card", reason: "mask keeps the separator and the last four digits",
			opts:    middleware.PIIOptions{PIIType: "credit_card"},
			content: "cards 4111 1111 1111 1111, 4111-1111-1111-1111, 4111111111111111",
			want: [3]string{
				"cards [REDACTED_CREDIT_CARD], [REDACTED_CREDIT_CARD], [REDACTED_CREDIT_CARD]",
				"cards **** **** **** 1111, ****-****-****-1111, ************1111",
				"cards <credit_card_hash:6a7e0e79>, <credit_card_hash:b3f846b2>, <credit_card_hash:9bbef194>",
			},
		},
		{
			name: "ip", reason: "mask keeps the last octet",
			opts:    middleware.PIIOptions{PIIType: "ip"},
			content: "from 192.168.1.42 to 10.0.0.7",
			want:    [3]string{"from [REDACTED_IP] to [REDACTED_IP]", "from *.*.*.42 to *.*.*.7", "from <ip_hash:84b48121> to <ip_hash:130e4dab>"},
		},
		{
			name: "mac", reason: "mask keeps the separator and the last byte",
			opts:    middleware.PIIOptions{PIIType: "mac_address"},
			content: "nic 00:1A:2b:3C:4d:5E and 00-1a-2b-3c-4d-5e",
			want: [3]string{
				"nic [REDACTED_MAC_ADDRESS] and [REDACTED_MAC_ADDRESS]",
				"nic **:**:**:**:**:5E and **-**-**-**-**-5e",
				"nic <mac_address_hash:e2dc8068> and <mac_address_hash:cb21f513>",
			},
		},
		{
			name: "url", reason: "mask hides the whole URL",
			opts:    middleware.PIIOptions{PIIType: "url"},
			content: "see https://example.org/path?q=1 and www.test.com",
			want:    [3]string{"see [REDACTED_URL] and [REDACTED_URL]", "see [MASKED_URL] and [MASKED_URL]", "see <url_hash:5085297b> and <url_hash:ee3133ec>"},
		},
		{
			name: "non-ascii around", reason: "offsets survive multi-byte text; é is not in the local-part class",
			opts:    middleware.PIIOptions{PIIType: "email"},
			content: "联系 é@x.com? no: ü a@b.de",
			want:    [3]string{"联系 é@x.com? no: ü [REDACTED_EMAIL]", "联系 é@x.com? no: ü a@****.de", "联系 é@x.com? no: ü <email_hash:363a175f>"},
		},
		{
			name: "custom pattern", reason: "a custom type masks to **** and its last four characters",
			opts:    middleware.PIIOptions{PIIType: "custom", Pattern: `sk-[a-zA-Z0-9]{4}`},
			content: "keys sk-abcd and sk-12345",
			want:    [3]string{"keys [REDACTED_CUSTOM] and [REDACTED_CUSTOM]5", "keys ****abcd and ****12345", "keys <custom_hash:070a8d15> and <custom_hash:88dc28d0>5"},
		},
		{
			name: "custom unicode digits", reason: "\\d in a custom pattern matches every decimal digit, as in Python",
			opts:    middleware.PIIOptions{PIIType: "custom", Pattern: `\d{3}-\d{2}-\d{4}`},
			content: "ssn 123-45-6789 or ١٢٣-٤٥-٦٧٨٩",
			want:    [3]string{"ssn [REDACTED_CUSTOM] or [REDACTED_CUSTOM]", "ssn ****6789 or ****٦٧٨٩", "ssn <custom_hash:01a54629> or <custom_hash:42679033>"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got [3]string
			for i, s := range []string{middleware.PIIRedact, middleware.PIIMask, middleware.PIIHash} {
				o := tc.opts
				o.Strategy = s
				out, _, err := newPII(t, o).Apply(tc.content)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = out
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("strategies (%s) mismatch (-want +got):\n%s", tc.reason, d)
			}
		})
	}
}

// TestPIIBlock: the block strategy's error, as the engine reports it.
func TestPIIBlock(t *testing.T) {
	t.Parallel()
	p := newPII(t, middleware.PIIOptions{PIIType: "ip", Strategy: middleware.PIIBlock})
	_, matches, err := p.Apply("a 1.2.3.4 b 5.6.7.8")
	var pe *middleware.PIIDetectionError
	if !errors.As(err, &pe) || len(pe.Matches) != 2 || len(matches) != 2 {
		t.Fatalf("Apply = %v, want a PIIDetectionError with 2 matches", err)
	}
	got := []string{engine.ErrorKind(err), engine.ErrorMessage(err), engine.ErrorRepr(err)}
	want := []string{"PIIDetectionError", "Detected 2 instance(s) of ip in text content", "PIIDetectionError('Detected 2 instance(s) of ip in text content')"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("error mismatch (-want +got):\n%s", d)
	}
	if _, err := middleware.ApplyPIIStrategy("x", []middleware.PIIMatch{{Type: "t", Value: "x", End: 1}}, "shred"); engine.ErrorMessage(err) != "Unknown redaction strategy: shred" {
		t.Errorf("unknown strategy error = %v", err)
	}
}

// TestPIIHooks: which messages before_model and after_model look at, and
// how they rebuild the ones they change (pii.py).
func TestPIIHooks(t *testing.T) {
	t.Parallel()
	human := func(id, text string) engine.Message {
		m := engine.HumanMessage(text)
		m.ID = id
		return m
	}
	ai := func(id, text string, calls ...engine.ToolCall) engine.Message {
		m := engine.AIMessage(text, calls...)
		m.ID = id
		return m
	}
	tool := func(id, text, status string) engine.Message {
		m := engine.ToolMessage(engine.Text(text), "lookup", "c1")
		m.ID, m.Status = id, status
		return m
	}
	tests := []struct {
		name   string
		reason string
		opts   middleware.PIIOptions
		hook   string
		msgs   []engine.Message
		want   string // JSON of the update; "null" for none
	}{
		{
			name:   "last human only",
			reason: "only the last human message is checked",
			opts:   middleware.DefaultPIIOptions("email"),
			hook:   "before",
			msgs:   []engine.Message{human("h1", "old a@b.com"), ai("a1", "hi"), human("h2", "new c@d.com")},
			want:   `{"messages":[{"type":"human","content":"old a@b.com","id":"h1"},{"type":"ai","content":"hi","id":"a1","tool_calls":[]},{"type":"human","content":"new [REDACTED_EMAIL]","id":"h2"}]}`,
		},
		{
			name:   "nothing found",
			reason: "no change, no update",
			opts:   middleware.DefaultPIIOptions("email"),
			hook:   "before",
			msgs:   []engine.Message{human("h1", "hello")},
			want:   `null`,
		},
		{
			name:   "input off",
			reason: "with apply_to_input and apply_to_tool_results off before_model does nothing",
			opts:   middleware.PIIOptions{PIIType: "email", ApplyToOutput: true},
			hook:   "before",
			msgs:   []engine.Message{human("h1", "a@b.com")},
			want:   `null`,
		},
		{
			name:   "human name kept, kwargs dropped",
			reason: "langchain rebuilds HumanMessage(content, id, name)",
			opts:   middleware.PIIOptions{PIIType: "ip", Strategy: middleware.PIIMask, ApplyToInput: true},
			hook:   "before",
			msgs: []engine.Message{func() engine.Message {
				m := human("h1", "at 1.2.3.4")
				m.Name, m.AdditionalKwargs = "ann", engine.NewObject("k", "v")
				return m
			}()},
			want: `{"messages":[{"type":"human","content":"at *.*.*.4","name":"ann","id":"h1"}]}`,
		},
		{
			name:   "list content",
			reason: "list content is checked as str(list) and replaced by the redacted repr",
			opts:   middleware.DefaultPIIOptions("email"),
			hook:   "before",
			msgs:   []engine.Message{{Type: engine.TypeHuman, ID: "h1", Content: engine.Blocks(engine.NewObject("type", "text", "text", "mail a@b.com"))}},
			want:   `{"messages":[{"type":"human","content":"[{'type': 'text', 'text': 'mail [REDACTED_EMAIL]'}]","id":"h1"}]}`,
		},
		{
			name:   "tool results after last ai",
			reason: "only tool messages after the last AI message; a changed one comes back with status success",
			opts:   middleware.PIIOptions{PIIType: "email", ApplyToToolResults: true},
			hook:   "before",
			msgs: []engine.Message{
				human("h1", "x@y.com"), ai("a0", "", engine.ToolCall{Name: "lookup", ID: "c0"}), tool("t0", "old e@f.com", "success"),
				ai("a1", "", engine.ToolCall{Name: "lookup", ID: "c1"}), tool("t1", "owner g@h.io", "error"), tool("t2", "clean", "success"),
			},
			want: `{"messages":[{"type":"human","content":"x@y.com","id":"h1"},{"type":"ai","content":"","id":"a0","tool_calls":[{"name":"lookup","args":{},"id":"c0"}]},{"type":"tool","content":"old e@f.com","name":"lookup","id":"t0","tool_call_id":"c1","status":"success"},{"type":"ai","content":"","id":"a1","tool_calls":[{"name":"lookup","args":{},"id":"c1"}]},{"type":"tool","content":"owner [REDACTED_EMAIL]","name":"lookup","id":"t1","tool_call_id":"c1","status":"success"},{"type":"tool","content":"clean","name":"lookup","id":"t2","tool_call_id":"c1","status":"success"}]}`,
		},
		{
			name:   "output",
			reason: "after_model rebuilds the last AI message with its content, id, name and tool calls",
			opts:   middleware.PIIOptions{PIIType: "email", ApplyToOutput: true},
			hook:   "after",
			msgs: []engine.Message{human("h1", "hi"), func() engine.Message {
				m := ai("a1", "write a@b.com", engine.ToolCall{Name: "send", ID: "c9"})
				m.Name, m.UsageMetadata = "agent", &engine.Usage{InputTokens: 1, OutputTokens: 2, TotalTokens: 3}
				return m
			}()},
			want: `{"messages":[{"type":"human","content":"hi","id":"h1"},{"type":"ai","content":"write [REDACTED_EMAIL]","name":"agent","id":"a1","tool_calls":[{"name":"send","args":{},"id":"c9"}]}]}`,
		},
		{
			name:   "output off",
			reason: "apply_to_output is off by default",
			opts:   middleware.DefaultPIIOptions("email"),
			hook:   "after",
			msgs:   []engine.Message{ai("a1", "a@b.com")},
			want:   `null`,
		},
		{
			name:   "empty output",
			reason: "an AI message without content is skipped",
			opts:   middleware.PIIOptions{PIIType: "email", ApplyToOutput: true},
			hook:   "after",
			msgs:   []engine.Message{ai("a1", "a@b.com"), ai("a2", "")},
			want:   `null`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newPII(t, tc.opts)
			state := engine.State{"messages": tc.msgs}
			var res any
			var err error
			if tc.hook == "before" {
				res, err = p.BeforeModel(context.Background(), state)
			} else {
				res, err = p.AfterModel(context.Background(), state)
			}
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := res.(engine.State); ok {
				res = map[string]any{"messages": engine.MessagesToValue(s.Messages("messages"))}
			}
			if d := cmp.Diff(tc.want, piiShow(t, res)); d != "" {
				t.Errorf("%s hook (%s) mismatch (-want +got):\n%s", tc.hook, tc.reason, d)
			}
		})
	}
}

// TestPIIPattern: custom patterns match as Python's re does (values from
// CPython's re.finditer).
func TestPIIPattern(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reason  string
		pattern string
		content string
		want    [][2]int // code point spans
	}{
		{"empty matches", "finditer allows an empty match right after a non-empty one", `a*`, "baa", [][2]int{{0, 0}, {1, 3}, {3, 3}}},
		{"lazy", "a lazy star takes as little as it can", `x*?y`, "xxyy", [][2]int{{0, 3}, {3, 4}}},
		{"alternation order", "leftmost-first: the first alternative that lets the rest match wins", `(a|ab)(c|bcd)`, "abcd", [][2]int{{0, 4}}},
		{"dollar", "$ also matches before a final newline", `\w+$`, "ab\n", [][2]int{{0, 2}}},
		{"unicode word", "\\w and \\b see letters of every script", `\b\w+\b`, "é으 ab", [][2]int{{0, 2}, {3, 5}}},
		{"unicode space", "\\s includes the no-break and ideographic spaces", `\s+`, "a\u00a0b\u3000c", [][2]int{{1, 2}, {3, 4}}},
		{"fold", "(?i) folds case", `(?i)abc`, "ABC aBc", [][2]int{{0, 3}, {4, 7}}},
		{"non-boundary", "\\B between two word characters", `\B.`, "ab c", [][2]int{{1, 2}}},
		{"end of text", "\\Z is the very end", `c\Z`, "cc", [][2]int{{1, 2}}},
		{"empty text", "\\B never matches in an empty string", `\B`, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newPII(t, middleware.PIIOptions{PIIType: "custom", Pattern: tc.pattern})
			var got [][2]int
			for _, m := range p.Detect(tc.content) {
				got = append(got, [2]int{utf8.RuneCountInString(tc.content[:m.Start]), utf8.RuneCountInString(tc.content[:m.End])})
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Detect(%q, %q) (%s) mismatch (-want +got):\n%s", tc.pattern, tc.content, tc.reason, d)
			}
		})
	}
}

// TestPIIDetectFunc: a callable detector's matches get the type and value
// they leave out.
func TestPIIDetectFunc(t *testing.T) {
	t.Parallel()
	p := newPII(t, middleware.PIIOptions{PIIType: "code", Strategy: middleware.PIIMask, Detect: func(s string) []middleware.PIIMatch {
		i := strings.Index(s, "XY-")
		if i < 0 {
			return nil
		}
		return []middleware.PIIMatch{{Start: i, End: i + 7}}
	}})
	out, matches, err := p.Apply("id XY-12345!")
	if err != nil {
		t.Fatal(err)
	}
	want := []middleware.PIIMatch{{Type: "code", Value: "XY-1234", Start: 3, End: 10}}
	if d := cmp.Diff(want, matches); d != "" {
		t.Errorf("matches mismatch (-want +got):\n%s", d)
	}
	if out != "id ****12345!" {
		t.Errorf("Apply = %q, want %q", out, "id ****12345!")
	}
}

// TestPIIOptionsValidate: constructor errors name the option.
func TestPIIOptionsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
		opts   middleware.PIIOptions
		want   string
	}{
		{name: "builtin", reason: "a built-in type needs nothing else", opts: middleware.DefaultPIIOptions("url")},
		{name: "custom", reason: "a custom type with a pattern", opts: middleware.PIIOptions{PIIType: "api_key", Pattern: `sk-\w+`}},
		{
			name: "unknown type", reason: "langchain's text for a custom type without a detector",
			opts: middleware.PIIOptions{PIIType: "ssn"},
			want: "PIIMiddleware: pii_type: Unknown PII type: ssn. Must be one of ['email', 'credit_card', 'ip', 'mac_address', 'url'] or provide a custom detector.",
		},
		{name: "no type", reason: "pii_type is required", opts: middleware.PIIOptions{}, want: "PIIMiddleware: pii_type: required"},
		{
			name: "bad strategy", reason: "strategies are checked when the middleware is built",
			opts: middleware.PIIOptions{PIIType: "email", Strategy: "erase"},
			want: `PIIMiddleware: strategy: "erase" is not a strategy: expected block, redact, mask or hash`,
		},
		{
			name: "bad pattern", reason: "a pattern RE2 cannot parse is reported with the option",
			opts: middleware.PIIOptions{PIIType: "x", Pattern: `(?<=a)b`},
			want: "PIIMiddleware: detector: invalid pattern \"(?<=a)b\": error parsing regexp: invalid named capture: `(?<=a)b`",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := ""
			if _, err := middleware.NewPII(tc.opts); err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("NewPII (%s) mismatch (-want +got):\n%s", tc.reason, d)
			}
		})
	}
}

// piiASCIIPatterns are the built-in patterns whose Python and Go RE2
// meanings agree on printable ASCII text.
var piiASCIIPatterns = map[string]string{
	"email":       `\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Z|a-z]{2,}\b`,
	"mac_address": `\b([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}\b`,
}

// FuzzPIIDetect: matches lie inside the text on character boundaries, in
// order, with their values; on printable ASCII the backtracking matcher
// finds what Go's regexp finds for the same pattern.
func FuzzPIIDetect(f *testing.F) {
	for _, s := range []string{
		"Contact john.doe@example.com, card 4111 1111 1111 1111, server 192.168.1.42, see https://example.org/path?q=1 and www.test.com",
		"john@x.com으로", "a@b.c|m a@b.com.", "00:1a-2b:3c-4d:5e", "1.2.3.4.5 01.2.3.4", "٤١١١١١١١١١١١١١١١", "http://?q www.a.b/c",
		"\xff\xfe@x.com", "", "000.000/\xff",
	} {
		f.Add(s)
	}
	detectors := map[string]*middleware.PII{}
	for _, typ := range middleware.BuiltinPIITypes() {
		detectors[typ] = newPII(f, middleware.DefaultPIIOptions(typ))
	}
	f.Fuzz(func(t *testing.T, s string) {
		ascii := true
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] > 0x7e {
				ascii = false
			}
		}
		for _, typ := range middleware.BuiltinPIITypes() {
			ms := detectors[typ].Detect(s)
			prevEnd := 0
			for _, m := range ms {
				if m.Start < 0 || m.End > len(s) || m.Start > m.End || s[m.Start:m.End] != m.Value || m.Type != typ {
					t.Fatalf("%s: bad match %+v in %q", typ, m, s)
				}
				if typ != "url" && m.Start < prevEnd {
					t.Fatalf("%s: match %+v overlaps the previous one in %q", typ, m, s)
				}
				if !utf8.RuneStart(s[m.Start]) && m.Start < len(s) {
					t.Fatalf("%s: match %+v starts inside a character", typ, m)
				}
				prevEnd = m.End
			}
			if _, _, err := detectors[typ].Apply(s); err != nil {
				t.Fatalf("%s: Apply: %v", typ, err)
			}
			if pat, ok := piiASCIIPatterns[typ]; ok && ascii {
				want := regexp.MustCompile(pat).FindAllStringIndex(s, -1)
				var got [][]int
				for _, m := range ms {
					got = append(got, []int{m.Start, m.End})
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("%s on %q disagrees with Go's regexp (-regexp +pii):\n%s", typ, s, d)
				}
			}
		}
	})
}
