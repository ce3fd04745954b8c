package cassette

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"

	"github.com/agenteval/agenteval/engine/value"
)

// Redacted replaces every credential the scrubber removes.
const Redacted = "REDACTED"

// Credentials.
//
// One table, credentialPatterns, says what a credential is. The scrubber
// (Scrub, ScrubHeaders, ScrubURL, ScrubBody, and the canonical body the
// matcher compares) removes what it describes, and Load, Check and Save
// refuse a file that still holds any of it: both read the same table
// through the same code (scrubber), so a value is scrubbed on save exactly
// when it is refused on load.
//
// A credential is found two ways. By its shape, anywhere: an API key with
// a known prefix, a JWT, a PEM private key, a bearer token. By its name,
// only where a name says "credential" and nothing else: an auth header or
// a header named *-key, *-token or *-secret, a URL query parameter or a
// form field (a form-encoded body, the form: field) named like one, and
// the few top-level members of a JSON body that provider and OAuth APIs
// use for credentials (api_key, client_secret, access_token, ...). A name
// deeper in a JSON body is model content — tool arguments such as
// {"key": "abc"}, Anthropic tool_use inputs, thinking-block signatures —
// and is kept, so a replay sends and matches what the recording did.

// scope is the part of an interaction a credential pattern reads.
type scope int

const (
	// inText finds a credential by its shape in any text: URLs, header
	// values, form values, bodies, every string of a JSON body.
	inText scope = iota
	// inHeader finds a header whose name says its value is a credential.
	inHeader
	// inParam finds a URL query parameter or a form field (of a
	// form-encoded body or the form: field) by its name.
	inParam
	// inJSONTop finds a top-level member of a JSON body by its name.
	inJSONTop
	// inOAuthJSON finds a top-level member of a JSON body that has a
	// grant_type member (an OAuth token request) by its name.
	inOAuthJSON
)

// credentialPattern is one kind of credential.
type credentialPattern struct {
	// kind names the credential in findings ("holds a JWT (eyJ...)").
	kind  string
	scope scope
	// value matches the credential's text, for inText; every match holds
	// one of literals (ignoring ASCII case when value does), so that text
	// without any is not run through the regular expression, whose \b
	// runs Go's slower engine (about 5 MB/s: a single literal "g" for
	// GitHub tokens made 2 KB of prose cost 400 µs).
	value    *regexp.Regexp
	literals []string
	// names and suffixes match a name, for the other scopes, compared in
	// lower case with '-' read as '_'; except lists names that match a
	// suffix but are not credentials.
	names, suffixes, except []string
}

// credentialPatterns is the one table of credentials (see above). Order
// matters among the shapes: the first that matches names the finding, so
// a longer prefix comes before a shorter one.
var credentialPatterns = []credentialPattern{
	{kind: "a PEM private key", scope: inText, literals: []string{"PRIVATE KEY"}, value: regexp.MustCompile(
		`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[A-Za-z0-9+/=\s]|\\[nr])*(?:-----END [A-Z0-9 ]*PRIVATE KEY-----)?`)},
	{kind: "an Anthropic API key (sk-ant-...)", scope: inText, literals: []string{"sk-ant-"}, value: regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_\-]{20,}`)},
	{kind: "an OpenAI-style API key (sk-...)", scope: inText, literals: []string{"sk-"}, value: regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{20,}`)},
	{kind: "a Stripe secret key (sk_live_...)", scope: inText, literals: []string{"k_live_", "k_test_"}, value: regexp.MustCompile(`\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}`)},
	{kind: "a Google API key (AIza...)", scope: inText, literals: []string{"AIza"}, value: regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}`)},
	{kind: "a Groq API key (gsk_...)", scope: inText, literals: []string{"gsk_"}, value: regexp.MustCompile(`\bgsk_[A-Za-z0-9]{20,}`)},
	{kind: "an xAI API key (xai-...)", scope: inText, literals: []string{"xai-"}, value: regexp.MustCompile(`\bxai-[A-Za-z0-9]{20,}`)},
	{kind: "a Hugging Face token (hf_...)", scope: inText, literals: []string{"hf_"}, value: regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`)},
	{kind: "a GitHub token", scope: inText, literals: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, value: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`)},
	{kind: "an AWS access key id (AKIA...)", scope: inText, literals: []string{"AKIA"}, value: regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`)},
	{kind: "a Slack token (xox.-...)", scope: inText, literals: []string{"xox"}, value: regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9\-]{10,}`)},
	{kind: "a JWT (eyJ...)", scope: inText, literals: []string{"eyJ"}, value: regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*`)},
	{kind: "an OpenAI organization id (org-...)", scope: inText, literals: []string{"org-"}, value: regexp.MustCompile(`\borg-[A-Za-z0-9]{24}\b`)},
	{kind: "a bearer token", scope: inText, literals: []string{"bearer"}, value: regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{16,}`)},

	{kind: "an auth header", scope: inHeader, names: []string{
		"authorization", "proxy_authorization", "cookie", "set_cookie", "apikey", "x_auth",
		"openai_organization", "openai_project", "anthropic_organization_id",
	}},
	{kind: "a *-key, *-token or *-secret header", scope: inHeader,
		suffixes: []string{"_key", "_token", "_secret", "_password", "_signature", "_auth", "_credential", "_credentials"},
		except:   []string{"idempotency_key", "sec_websocket_key"}},

	{kind: "a credential parameter", scope: inParam, names: []string{
		"key", "apikey", "token", "auth", "authorization", "secret", "password", "passwd",
		"sig", "signature", "code", "code_verifier", "assertion", "client_assertion",
	}, suffixes: []string{"_key", "_token", "_secret", "_password"},
		except: []string{"idempotency_key", "page_token", "next_page_token"}},

	{kind: "a credential field", scope: inJSONTop, names: []string{
		"api_key", "apikey", "x_api_key", "client_secret", "access_token", "refresh_token", "id_token",
		"password", "private_key", "client_assertion", "code_verifier", "token",
	}},
	{kind: "an OAuth grant field", scope: inOAuthJSON, names: []string{
		"code", "assertion", "subject_token", "actor_token", "device_code",
	}},
}

// mayMatch reports whether v holds one of p's literals, which every
// match of p.value holds.
func (p *credentialPattern) mayMatch(v string) bool {
	fold := strings.HasPrefix(p.value.String(), "(?i)")
	for _, l := range p.literals {
		if fold && containsFold(v, l) || !fold && strings.Contains(v, l) {
			return true
		}
	}
	return false
}

// matchesName reports whether p, a name pattern, matches name.
func (p *credentialPattern) matchesName(name string) bool {
	n := strings.ReplaceAll(strings.ToLower(name), "-", "_")
	for _, e := range p.except {
		if n == e {
			return false
		}
	}
	for _, e := range p.names {
		if n == e {
			return true
		}
	}
	for _, s := range p.suffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// credentialName returns the kind of the first pattern of scope sc that
// matches name, or "".
func credentialName(sc scope, name string) string {
	for i := range credentialPatterns {
		if p := &credentialPatterns[i]; p.scope == sc && p.matchesName(name) {
			return p.kind
		}
	}
	return ""
}

// finding is one credential the scrubber removed: where it was (an
// interaction field such as "request.headers.Authorization") and what.
type finding struct{ field, message string }

// scrubber removes credentials and, when record is set, notes each one
// it removed. Scrubbing and checking are the same walk, so they agree.
type scrubber struct {
	record bool
	found  []finding
	// extra is what a project adds to the table; nil adds nothing.
	extra *Scrubbing
}

func (s *scrubber) note(field, message string) {
	if !s.record {
		return
	}
	for _, f := range s.found {
		if f == (finding{field, message}) {
			return
		}
	}
	s.found = append(s.found, finding{field, message})
}

// text replaces every secret value of s.extra and every
// credential-shaped substring of v.
func (s *scrubber) text(field, v string) string {
	if s.extra != nil {
		for _, secret := range s.extra.Values {
			if len(secret) >= MinSecretBytes && strings.Contains(v, secret) {
				s.note(field, "holds the value of a credential variable of the environment")
				v = strings.ReplaceAll(v, secret, Redacted)
			}
		}
	}
	for i := range credentialPatterns {
		p := &credentialPatterns[i]
		if p.scope != inText || !p.mayMatch(v) || !p.value.MatchString(v) {
			continue
		}
		s.note(field, "holds "+p.kind)
		v = p.value.ReplaceAllStringFunc(v, func(m string) string {
			if len(m) > 6 && strings.EqualFold(m[:6], "bearer") {
				return m[:6] + " " + Redacted
			}
			return Redacted
		})
	}
	return v
}

// containsFold reports whether s contains sub, ignoring ASCII case: a
// prefilter cheaper than the regular expressions, which run on Go's
// slower engine because they begin with \b.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	first := sub[0] | 0x20
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i]|0x20 == first && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// secretValue reports whether a value found under a credential name
// still needs redacting.
func secretValue(v string) bool { return v != "" && v != Redacted }

// headers returns a scrubbed copy of h; prefix is "request.headers".
func (s *scrubber) headers(prefix string, h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vs := h[k]
		named := credentialName(inHeader, k) != "" || s.extra.header(k)
		cp := make([]string, len(vs))
		for i, v := range vs {
			switch {
			case named && secretValue(v):
				s.note(prefix+"."+k, "credential header "+http.CanonicalHeaderKey(k)+" is not redacted")
				cp[i] = Redacted
			case named:
				cp[i] = v
			default:
				cp[i] = s.text(prefix+"."+k, v)
			}
		}
		out[k] = cp
	}
	return out
}

// url returns raw with credential query parameters redacted, a password
// in the user info redacted and credential-shaped text scrubbed. Text
// that does not parse as a URL is scrubbed as text.
func (s *scrubber) url(field, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return s.text(field, raw)
	}
	// A URL is rewritten only when a part of it is redacted: u.String()
	// does not give back every URL byte for byte (" " becomes "%20").
	rewrite := false
	if u.User != nil {
		if p, ok := u.User.Password(); ok && p != Redacted {
			s.note(field, "holds a password")
			u.User = url.UserPassword(u.User.Username(), Redacted)
			rewrite = true
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		changed := false
		for _, k := range keys {
			vs := q[k]
			for i, v := range vs {
				nv := v
				if credentialName(inParam, k) != "" {
					if secretValue(v) {
						s.note(field, "query parameter "+k+" holds a credential")
						nv = Redacted
					}
				} else {
					nv = s.text(field, v)
				}
				if nv != v {
					vs[i] = nv
					changed = true
				}
			}
		}
		if changed {
			u.RawQuery = q.Encode()
			rewrite = true
		}
	}
	if !rewrite {
		return s.text(field, raw)
	}
	return s.text(field, u.String())
}

// form returns a scrubbed copy of form values; prefix is "request.form".
func (s *scrubber) form(prefix string, f url.Values) url.Values {
	if f == nil {
		return nil
	}
	out := make(url.Values, len(f))
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		named := credentialName(inParam, k) != ""
		cp := make([]string, len(f[k]))
		for i, v := range f[k] {
			switch {
			case named && secretValue(v):
				s.note(prefix+"."+k, "form field "+k+" holds a credential")
				cp[i] = Redacted
			case named:
				cp[i] = v
			default:
				cp[i] = s.text(prefix+"."+k, v)
			}
		}
		out[k] = cp
	}
	return out
}

// body returns body with its credentials removed: in a JSON body the
// credential fields at the top level and credential-shaped strings; in a
// form-encoded body the credential fields and credential-shaped values;
// in any other body credential-shaped text. A body without credentials
// comes back unchanged, byte for byte.
func (s *scrubber) body(field, body string) string {
	trimmed := strings.TrimSpace(body)
	if trimmed == "" {
		return body
	}
	if v := decodeJSONBody(trimmed); v != nil {
		if s.jsonTop(field, v) {
			if b, err := value.MarshalValue(v); err == nil {
				return s.text(field, string(b))
			}
		}
		return s.text(field, body)
	}
	if out, ok := s.formBody(field, trimmed); ok {
		if out == trimmed {
			return body
		}
		return out
	}
	return s.text(field, body)
}

// maxJSONDepth bounds the nesting of a body read as JSON, as
// encoding/json bounds it: the decoder and every walk over the value are
// recursive, and a body nested a million levels deep would exhaust the
// stack. A deeper body is read as text.
const maxJSONDepth = value.MaxJSONDepth

// decodeJSONBody decodes a body that looks like a JSON object or array
// and is not nested too deeply; nil otherwise.
func decodeJSONBody(trimmed string) any {
	if !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "[") {
		return nil
	}
	if jsonDepth(trimmed) > maxJSONDepth {
		return nil
	}
	v, err := value.DecodeJSON([]byte(trimmed))
	if err != nil {
		return nil
	}
	return v
}

// jsonDepth returns the deepest nesting of brackets and braces outside
// strings in s.
func jsonDepth(s string) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// jsonTop scrubs a decoded JSON body in place: the credential fields at
// its top level and every credential-shaped string. It reports whether it
// changed anything.
func (s *scrubber) jsonTop(field string, v any) bool {
	o, ok := v.(*value.Object)
	if !ok {
		return s.jsonValue(field, v)
	}
	_, grant := o.Get("grant_type")
	changed := false
	for _, k := range o.Keys() {
		e, _ := o.Get(k)
		kind := credentialName(inJSONTop, k)
		if kind == "" && grant {
			kind = credentialName(inOAuthJSON, k)
		}
		if kind != "" && secretScalar(e) {
			s.note(field, "credential field "+k+" is not redacted")
			o.Set(k, Redacted)
			changed = true
			continue
		}
		if str, ok := e.(string); ok {
			if out := s.text(field, str); out != str {
				o.Set(k, out)
				changed = true
			}
			continue
		}
		if s.jsonValue(field, e) {
			changed = true
		}
	}
	return changed
}

// secretScalar reports whether a value under a credential field still
// needs redacting: a string other than "" and Redacted, or a number (a
// numeric password or PIN).
func secretScalar(v any) bool {
	switch t := v.(type) {
	case string:
		return secretValue(t)
	case json.Number:
		return true
	}
	return false
}

// jsonValue scrubs the credential-shaped strings of v in place and
// reports whether it changed anything. Names below the top level are
// model content and are kept.
func (s *scrubber) jsonValue(field string, v any) bool {
	changed := false
	switch t := v.(type) {
	case *value.Object:
		for _, k := range t.Keys() {
			e, _ := t.Get(k)
			if str, ok := e.(string); ok {
				if out := s.text(field, str); out != str {
					t.Set(k, out)
					changed = true
				}
				continue
			}
			if s.jsonValue(field, e) {
				changed = true
			}
		}
	case []any:
		for i, e := range t {
			if str, ok := e.(string); ok {
				if out := s.text(field, str); out != str {
					t[i] = out
					changed = true
				}
				continue
			}
			if s.jsonValue(field, e) {
				changed = true
			}
		}
	}
	return changed
}

// formName is what a field name of a form-encoded body looks like.
var formName = regexp.MustCompile(`^[A-Za-z0-9_.\-\[\]]+$`)

// formBody scrubs a body that is form-encoded (a=1&b=2, no white space,
// every name a plain word), keeping every byte it does not redact. ok is
// false when body is not form-encoded.
func (s *scrubber) formBody(field, body string) (out string, ok bool) {
	if !strings.Contains(body, "=") || strings.ContainsAny(body, " \t\r\n") {
		return "", false
	}
	pairs := strings.Split(body, "&")
	for _, pair := range pairs {
		k, _, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil || !formName.MatchString(name) {
			return "", false
		}
	}
	changed := false
	for i, pair := range pairs {
		k, v, _ := strings.Cut(pair, "=")
		name, _ := url.QueryUnescape(k)
		val, err := url.QueryUnescape(v)
		if err != nil {
			val = v
		}
		nv := val
		if credentialName(inParam, name) != "" {
			if secretValue(val) {
				s.note(field, "form field "+name+" holds a credential")
				nv = Redacted
			}
		} else {
			nv = s.text(field, val)
		}
		if nv != val {
			pairs[i] = k + "=" + url.QueryEscape(nv)
			changed = true
		}
	}
	if !changed {
		return body, true
	}
	return strings.Join(pairs, "&"), true
}

// ScrubHeaders returns a copy of h with credential headers redacted and
// credential-shaped values scrubbed. h itself is never changed: go-vcr v2
// hands its filters the live request's header map, which is why this
// package scrubs copies only.
func ScrubHeaders(h http.Header) http.Header {
	return (&scrubber{}).headers("headers", h)
}

// ScrubURL returns raw with credential query parameters (key, api_key,
// access_token, code, ...) and a user-info password redacted and
// credential-shaped text scrubbed. Text that does not parse as a URL is
// scrubbed as text.
func ScrubURL(raw string) string {
	return (&scrubber{}).url("url", raw)
}

// ScrubBody returns body with its credentials removed: in a JSON body
// the provider and OAuth credential fields at the top level (api_key,
// client_secret, access_token, password, ...) and credential-shaped
// strings anywhere; in a form-encoded body the credential fields and
// credential-shaped values; in any other body credential-shaped text.
// Names deeper in a JSON body (tool arguments, signatures) are model
// content and are kept. A body without credentials is returned
// unchanged, byte for byte.
func ScrubBody(body string) string {
	return (&scrubber{}).body("body", body)
}

// Scrub returns a scrubbed deep copy of i: credential headers, query
// parameters, form fields and body fields redacted, cookies dropped to
// Redacted. i is not changed.
func Scrub(i *vcr.Interaction) *vcr.Interaction {
	return (&scrubber{}).interaction(i)
}

// interaction returns a scrubbed deep copy of i.
func (s *scrubber) interaction(i *vcr.Interaction) *vcr.Interaction {
	c := &vcr.Interaction{}
	c.Request.Body = s.body("request.body", i.Request.Body)
	c.Request.Form = s.form("request.form", i.Request.Form)
	c.Request.Headers = s.headers("request.headers", i.Request.Headers)
	c.Request.URL = s.url("request.url", i.Request.URL)
	c.Request.Method = i.Request.Method
	c.Response.Body = s.body("response.body", i.Response.Body)
	c.Response.Headers = s.headers("response.headers", i.Response.Headers)
	c.Response.Status = i.Response.Status
	c.Response.Code = i.Response.Code
	c.Response.Duration = i.Response.Duration
	return c
}

// scanInteraction reports every credential left in i: what the scrubber
// would remove, with extra added to the table (nil adds nothing). field
// is the interaction's path prefix ("interactions[3]"); line gives the
// line of a sub-field when known.
func scanInteraction(path string, i *vcr.Interaction, field string, line func(sub string) int, extra *Scrubbing) []Problem {
	s := &scrubber{record: true, extra: extra}
	s.interaction(i)
	out := make([]Problem, len(s.found))
	for n, f := range s.found {
		out[n] = Problem{Path: path, Line: line(f.field), Field: field + "." + f.field, Message: f.message, Secret: true}
	}
	return out
}
