package cassette

import "strings"

// ScrubText returns s with every credential-shaped substring (the shapes
// of the credential table: API keys, tokens, JWTs, PEM private keys,
// bearer tokens) replaced by REDACTED, "Bearer REDACTED" for a bearer
// token; s itself when it holds none. Reports, golden transcripts and
// logs are written through it, so the table that keeps credentials out of
// cassettes keeps them out of everything else agenteval writes.
func ScrubText(s string) string { return (&scrubber{}).text("", s) }

// FindCredential returns the kind of the first credential-shaped
// substring of s ("an OpenAI-style API key (sk-...)") and its byte
// offset; ok is false when s holds none. Readers of files agenteval
// writes (golden transcripts, reports) refuse one that holds a
// credential with it, as Load refuses a cassette.
func FindCredential(s string) (kind string, at int, ok bool) {
	at = -1
	for i := range credentialPatterns {
		p := &credentialPatterns[i]
		if p.scope != inText || !p.mayMatch(s) {
			continue
		}
		if loc := p.value.FindStringIndex(s); loc != nil && (at < 0 || loc[0] < at) {
			kind, at = p.kind, loc[0]
		}
	}
	return kind, at, at >= 0
}

// CredentialVariable reports whether the name of an environment variable
// says it holds a credential, by the table's rules for header and
// parameter names: OPENAI_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
// DB_PASSWORD, TOKEN. Its value is then a secret that nothing agenteval
// writes may show.
func CredentialVariable(name string) bool {
	n := strings.ToLower(name)
	return credentialName(inHeader, n) != "" || credentialName(inParam, n) != ""
}
