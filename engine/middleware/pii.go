package middleware

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agenteval/agenteval/engine"
)

// The strategies PII accepts for what it finds (langchain's
// RedactionStrategy).
const (
	// PIIBlock fails the run with a PIIDetectionError.
	PIIBlock = "block"
	// PIIRedact replaces each match with [REDACTED_<TYPE>].
	PIIRedact = "redact"
	// PIIMask hides most of each match: ****-****-****-1234, *.*.*.42,
	// user@****.com, [MASKED_URL].
	PIIMask = "mask"
	// PIIHash replaces each match with <type_hash:xxxxxxxx>, the first 8
	// hex digits of the SHA-256 of the match.
	PIIHash = "hash"
)

// PIIMatch is one piece of PII found in a text (langchain's PIIMatch).
// Start and End are byte offsets into the text, End exclusive.
type PIIMatch struct {
	Type  string `json:"type"`
	Value string `json:"value"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// PIIDetector finds PII in a text.
type PIIDetector func(content string) []PIIMatch

// BuiltinPIITypes lists the PII types PII detects without a detector of
// its own, in langchain's order.
func BuiltinPIITypes() []string {
	return []string{"email", "credit_card", "ip", "mac_address", "url"}
}

// PIIOptions configures PII. The zero value checks nothing: start from
// DefaultPIIOptions, which checks the last human message as langchain
// does by default.
type PIIOptions struct {
	// PIIType is a built-in type (BuiltinPIITypes) or the name of a custom
	// type, which then needs Pattern or Detect.
	PIIType string `json:"pii_type"`
	// Strategy is PIIBlock, PIIRedact (also ""), PIIMask or PIIHash.
	Strategy string `json:"strategy,omitempty"`
	// Pattern is a regular expression that finds the PII instead of the
	// built-in detector (a string detector). It is matched like Python's
	// re: backtracking, leftmost-first, \b \d \s \w Unicode-aware; the
	// syntax is RE2's (no lookarounds or backreferences), and inside a
	// character class \W and \S stay ASCII.
	Pattern string `json:"detector,omitempty"`
	// Detect finds the PII instead (a callable detector); it wins over
	// Pattern. A match without a Type gets PIIType; one without a Value
	// gets the text between Start and End.
	Detect PIIDetector `json:"-"`
	// ApplyToInput checks the last human message before each model call.
	ApplyToInput bool `json:"apply_to_input"`
	// ApplyToOutput checks the last AI message after each model call.
	ApplyToOutput bool `json:"apply_to_output"`
	// ApplyToToolResults checks the tool messages after the last AI
	// message, before each model call.
	ApplyToToolResults bool `json:"apply_to_tool_results"`
}

// DefaultPIIOptions returns langchain's defaults for a PII type: redact,
// checking user input only.
func DefaultPIIOptions(piiType string) PIIOptions {
	return PIIOptions{PIIType: piiType, Strategy: PIIRedact, ApplyToInput: true}
}

// Validate reports options PII cannot use.
func (o PIIOptions) Validate() error {
	_, err := o.resolve()
	return err
}

func (o PIIOptions) resolve() (PIIDetector, error) {
	var errs []string
	switch o.Strategy {
	case "", PIIBlock, PIIRedact, PIIMask, PIIHash:
	default:
		errs = append(errs, fmt.Sprintf("strategy: %q is not a strategy: expected block, redact, mask or hash", o.Strategy))
	}
	var det PIIDetector
	switch {
	case o.PIIType == "":
		errs = append(errs, "pii_type: required")
	case o.Detect != nil:
		det = normalizePIIDetector(o.PIIType, o.Detect)
	case o.Pattern != "":
		re, err := compilePy(o.Pattern)
		if err != nil {
			errs = append(errs, fmt.Sprintf("detector: %v", err))
		} else {
			det = regexPIIDetector(o.PIIType, re)
		}
	default:
		det = builtinDetectors[o.PIIType]
		if det == nil {
			quoted := make([]string, 0, 5)
			for _, t := range BuiltinPIITypes() {
				quoted = append(quoted, "'"+t+"'")
			}
			errs = append(errs, fmt.Sprintf("pii_type: Unknown PII type: %s. Must be one of [%s] or provide a custom detector.", o.PIIType, strings.Join(quoted, ", ")))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return det, nil
}

// PII mirrors langchain's PIIMiddleware (agents/middleware/pii.py and
// _redaction.py, 1.1.3): it finds one type of personally identifiable
// information in the conversation and blocks, redacts, masks or hashes
// it. Its nodes are named "PIIMiddleware[<type>]".
//
// Options (PIIOptions): pii_type, strategy, detector (Pattern or Detect),
// apply_to_input, apply_to_output, apply_to_tool_results.
//
// Before each model call it checks the last human message
// (apply_to_input) and the tool messages after the last AI message
// (apply_to_tool_results); after each model call, the last AI message
// (apply_to_output). A changed message is rebuilt the way langchain
// rebuilds it — content, id and name (a tool message also its call ID and
// a success status; an AI message also its tool calls) — and the hook
// returns the whole message list. List content is checked as its Python
// repr and becomes that string once changed. With the block strategy the
// hook fails with PIIDetectionError: "Detected 1 instance(s) of email in
// text content".
type PII struct {
	opts   PIIOptions
	detect PIIDetector
}

// NewPII returns a PII middleware, or the problems with opts.
func NewPII(opts PIIOptions) (*PII, error) {
	det, err := opts.resolve()
	if err != nil {
		return nil, fmt.Errorf("PIIMiddleware: %w", err)
	}
	if opts.Strategy == "" {
		opts.Strategy = PIIRedact
	}
	return &PII{opts: opts, detect: det}, nil
}

// Name is "PIIMiddleware[<pii_type>]".
func (p *PII) Name() string { return "PIIMiddleware[" + p.opts.PIIType + "]" }

// Options returns the middleware's options.
func (p *PII) Options() PIIOptions { return p.opts }

// CanJumpTo lets before_model end the run, as langchain declares.
func (p *PII) CanJumpTo(hook string) []string {
	if hook == "before_model" {
		return []string{"end"}
	}
	return nil
}

// Detect returns the PII matches in content.
func (p *PII) Detect(content string) []PIIMatch { return p.detect(content) }

// Apply applies the middleware's strategy to content: the new text and
// the matches, or a *PIIDetectionError with the block strategy.
func (p *PII) Apply(content string) (string, []PIIMatch, error) {
	matches := p.detect(content)
	if len(matches) == 0 {
		return content, nil, nil
	}
	out, err := ApplyPIIStrategy(content, matches, p.opts.Strategy)
	return out, matches, err
}

// BeforeModel checks the last human message and the latest tool results.
func (p *PII) BeforeModel(_ context.Context, state engine.State) (any, error) {
	if !p.opts.ApplyToInput && !p.opts.ApplyToToolResults {
		return nil, nil
	}
	msgs, err := engine.MessagesFromValue(state["messages"])
	if err != nil {
		return nil, fmt.Errorf("%s.before_model: %w", p.Name(), err)
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	out := slices.Clone(msgs)
	modified := false
	if p.opts.ApplyToInput {
		for i := len(msgs) - 1; i >= 0; i-- {
			m := msgs[i]
			if m.Type != engine.TypeHuman {
				continue
			}
			if piiHasContent(m.Content) {
				text, matches, err := p.Apply(piiContentStr(m.Content))
				if err != nil {
					return nil, err
				}
				if len(matches) > 0 {
					out[i] = engine.Message{Type: engine.TypeHuman, Content: engine.Text(text), ID: m.ID, Name: m.Name}
					modified = true
				}
			}
			break
		}
	}
	if p.opts.ApplyToToolResults {
		lastAI := -1
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Type == engine.TypeAI {
				lastAI = i
				break
			}
		}
		for i := lastAI + 1; lastAI >= 0 && i < len(msgs); i++ {
			m := msgs[i]
			if m.Type != engine.TypeTool || !piiHasContent(m.Content) {
				continue
			}
			text, matches, err := p.Apply(piiContentStr(m.Content))
			if err != nil {
				return nil, err
			}
			if len(matches) == 0 {
				continue
			}
			out[i] = engine.Message{Type: engine.TypeTool, Content: engine.Text(text), ID: m.ID, Name: m.Name, ToolCallID: m.ToolCallID, Status: engine.StatusSuccess}
			modified = true
		}
	}
	if !modified {
		return nil, nil
	}
	return engine.State{"messages": out}, nil
}

// AfterModel checks the last AI message.
func (p *PII) AfterModel(_ context.Context, state engine.State) (any, error) {
	if !p.opts.ApplyToOutput {
		return nil, nil
	}
	msgs, err := engine.MessagesFromValue(state["messages"])
	if err != nil {
		return nil, fmt.Errorf("%s.after_model: %w", p.Name(), err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Type != engine.TypeAI {
			continue
		}
		if !piiHasContent(m.Content) {
			return nil, nil
		}
		text, matches, err := p.Apply(piiContentStr(m.Content))
		if err != nil || len(matches) == 0 {
			return nil, err
		}
		out := slices.Clone(msgs)
		out[i] = engine.Message{Type: engine.TypeAI, Content: engine.Text(text), ID: m.ID, Name: m.Name, ToolCalls: m.ToolCalls}
		return engine.State{"messages": out}, nil
	}
	return nil, nil
}

// piiHasContent is Python's truth value of message content.
func piiHasContent(c engine.Content) bool {
	if c.IsList() {
		return len(c.Blocks()) > 0
	}
	return c.String() != ""
}

// piiContentStr is Python's str() of message content: the text, or the list's
// repr.
func piiContentStr(c engine.Content) string {
	if c.IsList() {
		return engine.PyRepr(c.Blocks())
	}
	return c.String()
}

// PIIDetectionError is the error of the block strategy (langchain's
// PIIDetectionError); it unwraps to an *engine.Error of that kind.
type PIIDetectionError struct {
	// PIIType is the type of the first match.
	PIIType string
	// Matches are all the matches found.
	Matches []PIIMatch
	err     *engine.Error
}

func newPIIDetectionError(piiType string, matches []PIIMatch) *PIIDetectionError {
	msg := fmt.Sprintf("Detected %d instance(s) of %s in text content", len(matches), piiType)
	return &PIIDetectionError{PIIType: piiType, Matches: matches, err: engine.NewError("PIIDetectionError", msg)}
}

// Error returns "Detected <n> instance(s) of <type> in text content".
func (e *PIIDetectionError) Error() string { return e.err.Message }

// Unwrap returns the *engine.Error of kind PIIDetectionError.
func (e *PIIDetectionError) Unwrap() error { return e.err }

// PyRepr is the exception's Python repr.
func (e *PIIDetectionError) PyRepr() string { return e.err.PyRepr() }

// ApplyPIIStrategy applies a strategy to the matches found in content
// (langchain's apply_strategy): replacements go from the last match to
// the first, each on the text as the later ones left it. The block
// strategy returns a *PIIDetectionError naming the first match's type.
func ApplyPIIStrategy(content string, matches []PIIMatch, strategy string) (string, error) {
	if len(matches) == 0 {
		return content, nil
	}
	var repl func(m PIIMatch) string
	switch strategy {
	case PIIRedact, "":
		repl = func(m PIIMatch) string { return "[REDACTED_" + strings.ToUpper(m.Type) + "]" }
	case PIIMask:
		repl = piiMask
	case PIIHash:
		repl = func(m PIIMatch) string {
			sum := sha256.Sum256([]byte(m.Value))
			return "<" + m.Type + "_hash:" + hex.EncodeToString(sum[:])[:8] + ">"
		}
	case PIIBlock:
		return "", newPIIDetectionError(matches[0].Type, matches)
	default:
		return "", engine.NewError("ValueError", "Unknown redaction strategy: "+strategy)
	}
	// Python slices by code point with the offsets of the original text
	type span struct {
		start, end int
		m          PIIMatch
	}
	spans := make([]span, len(matches))
	for i, m := range matches {
		spans[i] = span{piiRuneIndex(content, m.Start), piiRuneIndex(content, m.End), m}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start > spans[j].start })
	result := []rune(content)
	for _, s := range spans {
		start, end := min(s.start, len(result)), min(s.end, len(result))
		next := slices.Clone(result[:start])
		next = append(next, []rune(repl(s.m))...)
		next = append(next, result[max(end, 0):]...)
		result = next
	}
	return string(result), nil
}

// piiRuneIndex turns a byte offset into a code point index, clamped to the
// text.
func piiRuneIndex(s string, off int) int {
	off = max(0, min(off, len(s)))
	return utf8.RuneCountInString(s[:off])
}

// piiMask is _apply_mask_strategy's replacement for one match.
func piiMask(m PIIMatch) string {
	v := m.Value
	switch m.Type {
	case "email":
		parts := strings.Split(v, "@")
		if len(parts) != 2 {
			return "****"
		}
		domain := strings.Split(parts[1], ".")
		if len(domain) > 1 {
			return parts[0] + "@****." + domain[len(domain)-1]
		}
		return parts[0] + "@****"
	case "credit_card":
		var digits []rune
		for _, r := range v {
			if _, ok := pyDigitValue(r); ok {
				digits = append(digits, r)
			}
		}
		last := string(digits[max(0, len(digits)-4):])
		sep := ""
		if strings.Contains(v, "-") {
			sep = "-"
		} else if strings.Contains(v, " ") {
			sep = " "
		}
		if sep == "" {
			return "************" + last
		}
		return "****" + sep + "****" + sep + "****" + sep + last
	case "ip":
		octets := strings.Split(v, ".")
		if len(octets) == 4 {
			return "*.*.*." + octets[3]
		}
		return "****"
	case "mac_address":
		sep := "-"
		if strings.Contains(v, ":") {
			sep = ":"
		}
		r := []rune(v)
		return strings.Repeat("**"+sep, 5) + string(r[max(0, len(r)-2):])
	case "url":
		return "[MASKED_URL]"
	}
	r := []rune(v)
	if len(r) > 4 {
		return "****" + string(r[len(r)-4:])
	}
	return "****"
}

// pyDigitValue is the value of a Unicode decimal digit (Python's int(c)).
func pyDigitValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	// decimal digits come in runs of ten, from zero to nine
	for _, rg := range unicode.Nd.R16 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) / int(rg.Stride) % 10, true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) / int(rg.Stride) % 10, true
		}
	}
	return 0, false
}

// normalizePIIDetector fills a custom detector's missing types and values.
func normalizePIIDetector(piiType string, d PIIDetector) PIIDetector {
	return func(content string) []PIIMatch {
		ms := d(content)
		for i := range ms {
			if ms[i].Type == "" {
				ms[i].Type = piiType
			}
			if ms[i].Value == "" {
				s, e := max(0, min(ms[i].Start, len(content))), max(0, min(ms[i].End, len(content)))
				if s < e {
					ms[i].Value = content[s:e]
				}
			}
		}
		return ms
	}
}

// piiText is a text as code points, with the byte offset of each.
type piiText struct {
	s     string
	runes []rune
	off   []int // off[i] is the byte offset of runes[i]; off[len] = len(s)
}

func newPIIText(s string) piiText {
	t := piiText{s: s, runes: make([]rune, 0, len(s)), off: make([]int, 0, len(s)+1)}
	for i, r := range s {
		t.runes = append(t.runes, r)
		t.off = append(t.off, i)
	}
	t.off = append(t.off, len(s))
	return t
}

func (t piiText) match(typ string, m [2]int) PIIMatch {
	start, end := t.off[m[0]], t.off[m[1]]
	return PIIMatch{Type: typ, Value: t.s[start:end], Start: start, End: end}
}

func regexPIIDetector(piiType string, re *pyRegexp) PIIDetector {
	return func(content string) []PIIMatch {
		t := newPIIText(content)
		var out []PIIMatch
		for _, m := range re.findAll(t.runes) {
			out = append(out, t.match(piiType, m))
		}
		return out
	}
}

// The built-in detectors, with the patterns of langchain 1.1.3's
// _redaction.py (Python syntax, translated by compilePy).
var (
	emailRE     = mustCompilePy(`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Z|a-z]{2,}\b`)
	cardRE      = mustCompilePy(`\b\d{4}[\s-]?\d{4}[\s-]?\d{4}[\s-]?\d{4}\b`)
	ipv4RE      = mustCompilePy(`\b(?:[0-9]{1,3}\.){3}[0-9]{1,3}\b`)
	macRE       = mustCompilePy(`\b([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}\b`)
	schemeURLRE = mustCompilePy(`https?://[^\s<>\"{}|\\^` + "`" + `\[\]]+`)
	bareURLRE   = mustCompilePy(`\b(?:www\.)?[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+(?:/[^\s]*)?`)
)

var builtinDetectors = map[string]PIIDetector{
	"email":       regexPIIDetector("email", emailRE),
	"credit_card": detectCreditCard,
	"ip":          detectIP,
	"mac_address": regexPIIDetector("mac_address", macRE),
	"url":         detectURL,
}

// detectCreditCard finds 16-digit card numbers that pass the Luhn check
// (detect_credit_card).
func detectCreditCard(content string) []PIIMatch {
	t := newPIIText(content)
	var out []PIIMatch
	for _, m := range cardRE.findAll(t.runes) {
		if passesLuhn(t.runes[m[0]:m[1]]) {
			out = append(out, t.match("credit_card", m))
		}
	}
	return out
}

// passesLuhn is _passes_luhn: 13 to 19 digits with a valid checksum.
func passesLuhn(rs []rune) bool {
	var digits []int
	for _, r := range rs {
		if d, ok := pyDigitValue(r); ok {
			digits = append(digits, d)
		}
	}
	if len(digits) < 13 || len(digits) > 19 {
		return false
	}
	sum := 0
	for i := range digits {
		d := digits[len(digits)-1-i]
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// detectIP finds IPv4 addresses that Python's ipaddress accepts: four
// octets of at most 255, without leading zeros (detect_ip).
func detectIP(content string) []PIIMatch {
	t := newPIIText(content)
	var out []PIIMatch
	for _, m := range ipv4RE.findAll(t.runes) {
		if validIPv4(string(t.runes[m[0]:m[1]])) {
			out = append(out, t.match("ip", m))
		}
	}
	return out
}

func validIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || (len(p) > 1 && p[0] == '0') {
			return false
		}
		n := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				return false
			}
			n = n*10 + int(c-'0')
		}
		if n > 255 {
			return false
		}
	}
	return true
}

// detectURL finds URLs with an http(s) scheme, then bare ones that start
// with www. or have a path, skipping those inside a match already found
// (detect_url).
func detectURL(content string) []PIIMatch {
	t := newPIIText(content)
	var spans [][2]int
	var out []PIIMatch
	for _, m := range schemeURLRE.findAll(t.runes) {
		url := string(t.runes[m[0]:m[1]])
		rest := url[strings.Index(url, "://")+3:]
		if urlNetloc(rest) != "" {
			spans = append(spans, m)
			out = append(out, t.match("url", m))
		}
	}
	for _, m := range bareURLRE.findAll(t.runes) {
		start, end := m[0], m[1]
		overlaps := false
		for _, s := range spans {
			if (s[0] <= start && start < s[1]) || (s[0] < end && end <= s[1]) {
				overlaps = true
				break
			}
		}
		if overlaps {
			continue
		}
		url := string(t.runes[start:end])
		if !strings.Contains(url, "/") && !strings.HasPrefix(url, "www.") {
			continue
		}
		if host := urlNetloc(url); host != "" && strings.Contains(host, ".") {
			spans = append(spans, m)
			out = append(out, t.match("url", m))
		}
	}
	return out
}

// urlNetloc is urlsplit's network location of what follows "//": up to the
// first '/', '?' or '#'.
func urlNetloc(rest string) string {
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		return rest[:i]
	}
	return rest
}

// pyRegexp is a regular expression matched the way Python's re module
// matches a str pattern: by backtracking, leftmost-first, with \b, \d, \s
// and \w over Unicode. Go's regexp agrees on which match wins but its
// \b, \d, \s and \w are ASCII-only, and langchain's detectors depend on
// Python's \b: "john@x.com으로" holds no email for Python, since 으 is a
// word character.
type pyRegexp struct {
	expr string
	re   *syntax.Regexp
}

func mustCompilePy(expr string) *pyRegexp {
	re, err := compilePy(expr)
	if err != nil {
		panic(fmt.Sprintf("compile %q: %v", expr, err))
	}
	return re
}

// compilePy parses a pattern in RE2 syntax after turning Python's \d, \s,
// \w (and their negations outside classes) and \Z into their Unicode RE2
// equivalents.
func compilePy(expr string) (*pyRegexp, error) {
	re, err := syntax.Parse(pyToRE2(expr), syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("invalid pattern %q: %w", expr, err)
	}
	return &pyRegexp{expr: expr, re: re}, nil
}

const (
	pyWordClass  = `\p{L}\p{N}_`
	pySpaceClass = `\t\n\v\f\r\x1c-\x1f\x85\p{Z}`
)

// pyToRE2 rewrites Python's Unicode character class escapes.
func pyToRE2(p string) string {
	var b strings.Builder
	rs := []rune(p)
	inClass := false
	classStart := -1 // index just after '[' or "[^"
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if c == '\\' && i+1 < len(rs) {
			i++
			n := rs[i]
			switch {
			case n == 'd':
				b.WriteString(`\p{Nd}`)
			case n == 'D':
				b.WriteString(`\P{Nd}`)
			case n == 'w' && inClass:
				b.WriteString(pyWordClass)
			case n == 'w':
				b.WriteString("[" + pyWordClass + "]")
			case n == 'W' && !inClass:
				b.WriteString("[^" + pyWordClass + "]")
			case n == 's' && inClass:
				b.WriteString(pySpaceClass)
			case n == 's':
				b.WriteString("[" + pySpaceClass + "]")
			case n == 'S' && !inClass:
				b.WriteString("[^" + pySpaceClass + "]")
			case n == 'Z' && !inClass:
				b.WriteString(`\z`)
			default:
				b.WriteRune('\\')
				b.WriteRune(n)
			}
			continue
		}
		switch {
		case !inClass && c == '[':
			inClass = true
			classStart = i + 1
			if i+1 < len(rs) && rs[i+1] == '^' {
				b.WriteRune(c)
				i++
				c = '^'
				classStart = i + 1
			}
		case inClass && c == ']' && i != classStart:
			inClass = false
		}
		b.WriteRune(c)
	}
	return b.String()
}

// findAll returns the [start, end) code point spans of successive
// non-overlapping matches, as re.finditer finds them: after an empty
// match the next one may start at the same place only if it is not empty.
func (p *pyRegexp) findAll(in []rune) [][2]int {
	var out [][2]int
	m := pyMatcher{in: in}
	mustAdvance := false
	for pos := 0; pos <= len(in); {
		end := -1
		ok := m.match(p.re, pos, func(e int) bool {
			if mustAdvance && e == pos {
				return false
			}
			end = e
			return true
		})
		if !ok {
			pos++
			mustAdvance = false
			continue
		}
		out = append(out, [2]int{pos, end})
		mustAdvance = end == pos
		pos = end
	}
	return out
}

// pyMatcher is a backtracking matcher over a parsed expression: match
// calls k with each end position the expression can reach from i, in
// Python's order of preference, until k accepts one.
type pyMatcher struct{ in []rune }

func (m pyMatcher) match(re *syntax.Regexp, i int, k func(int) bool) bool {
	in := m.in
	switch re.Op {
	case syntax.OpEmptyMatch:
		return k(i)
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		for _, r := range re.Rune {
			if i >= len(in) || !pyRuneEqual(in[i], r, fold) {
				return false
			}
			i++
		}
		return k(i)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return i < len(in) && pySingle(re, in[i]) && k(i+1)
	case syntax.OpBeginLine:
		return (i == 0 || in[i-1] == '\n') && k(i)
	case syntax.OpEndLine:
		return (i == len(in) || in[i] == '\n') && k(i)
	case syntax.OpBeginText:
		return i == 0 && k(i)
	case syntax.OpEndText:
		// Python's $ also matches before a final newline
		dollar := re.Flags&syntax.WasDollar != 0 && i == len(in)-1 && in[i] == '\n'
		return (i == len(in) || dollar) && k(i)
	case syntax.OpWordBoundary:
		return m.boundary(i) && k(i)
	case syntax.OpNoWordBoundary:
		// like \b, \B never matches in an empty string (sre's at())
		return len(in) > 0 && !m.boundary(i) && k(i)
	case syntax.OpCapture:
		return m.match(re.Sub[0], i, k)
	case syntax.OpConcat:
		return m.seq(re.Sub, i, k)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if m.match(sub, i, k) {
				return true
			}
		}
		return false
	case syntax.OpStar:
		return m.repeat(re, 0, -1, i, k)
	case syntax.OpPlus:
		return m.repeat(re, 1, -1, i, k)
	case syntax.OpQuest:
		return m.repeat(re, 0, 1, i, k)
	case syntax.OpRepeat:
		return m.repeat(re, re.Min, re.Max, i, k)
	}
	return false // OpNoMatch
}

func (m pyMatcher) seq(subs []*syntax.Regexp, i int, k func(int) bool) bool {
	if len(subs) == 0 {
		return k(i)
	}
	return m.match(subs[0], i, func(j int) bool { return m.seq(subs[1:], j, k) })
}

// repeat matches re.Sub[0] between lo and hi times (hi < 0: no limit),
// greedily unless re is non-greedy. An iteration that matches nothing
// ends the repetition.
func (m pyMatcher) repeat(re *syntax.Regexp, lo, hi, i int, k func(int) bool) bool {
	sub := re.Sub[0]
	greedy := re.Flags&syntax.NonGreedy == 0
	if pyIsSingle(sub) {
		n := 0
		for (hi < 0 || n < hi) && i+n < len(m.in) && pySingle(sub, m.in[i+n]) {
			n++
		}
		if n < lo {
			return false
		}
		if greedy {
			for c := n; c >= lo; c-- {
				if k(i + c) {
					return true
				}
			}
			return false
		}
		for c := lo; c <= n; c++ {
			if k(i + c) {
				return true
			}
		}
		return false
	}
	var rep func(count, i int) bool
	rep = func(count, i int) bool {
		if count < lo {
			return m.match(sub, i, func(j int) bool { return rep(count+1, j) })
		}
		if hi >= 0 && count >= hi {
			return k(i)
		}
		more := func() bool {
			return m.match(sub, i, func(j int) bool { return j != i && rep(count+1, j) })
		}
		if greedy {
			return more() || k(i)
		}
		return k(i) || more()
	}
	return rep(0, i)
}

func pyIsSingle(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) == 1
	}
	return false
}

// pySingle reports whether r matches a one-character expression.
func pySingle(re *syntax.Regexp, r rune) bool {
	switch re.Op {
	case syntax.OpAnyChar:
		return true
	case syntax.OpAnyCharNotNL:
		return r != '\n'
	case syntax.OpLiteral:
		return pyRuneEqual(r, re.Rune[0], re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		for j := 0; j+1 < len(re.Rune); j += 2 {
			if re.Rune[j] <= r && r <= re.Rune[j+1] {
				return true
			}
		}
	}
	return false
}

func pyRuneEqual(a, b rune, fold bool) bool {
	if a == b {
		return true
	}
	if !fold {
		return false
	}
	for f := unicode.SimpleFold(b); f != b; f = unicode.SimpleFold(f) {
		if f == a {
			return true
		}
	}
	return false
}

// boundary is Python's \b: a word character on one side only, where word
// characters are Unicode letters and numbers and the underscore.
func (m pyMatcher) boundary(i int) bool {
	word := func(j int) bool {
		if j < 0 || j >= len(m.in) {
			return false
		}
		r := m.in[j]
		return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
	}
	return word(i-1) != word(i)
}
