package cassette

import (
	"cmp"
	"slices"
	"strings"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
)

// MinSecretBytes is the shortest secret value (Scrubbing.Values) that is
// redacted wherever it appears: shorter values ("true", "1", a port) are
// too likely to be ordinary text.
const MinSecretBytes = 8

// Scrubbing is what a project adds to the credential table: the headers
// its own services read credentials from, and the secret values it knows
// of, whatever their shape. Options.Scrubbing applies it to a cassette as
// the table is applied: scrubbed when recorded and saved, refused when a
// file that still holds one is opened. The zero value adds nothing.
type Scrubbing struct {
	// Headers names more credential headers ("X-Custom-Auth"), compared
	// as the table's header names are: in lower case, '-' read as '_'.
	// Their values are redacted whatever they hold.
	Headers []string `json:"headers,omitempty"`
	// Values are secrets redacted wherever they appear (URLs, headers,
	// bodies, free text), each as SecretValues keeps it: the values of
	// the environment's credential variables (EnvSecretValues) and the
	// provider keys a run reads. They are never written anywhere, so the
	// field has no JSON name.
	Values []string `json:"-"`
}

// header reports whether sc names the header name; the nil *Scrubbing
// names none.
func (sc *Scrubbing) header(name string) bool {
	if sc == nil {
		return false
	}
	n := strings.ReplaceAll(strings.ToLower(name), "-", "_")
	for _, h := range sc.Headers {
		if strings.ReplaceAll(strings.ToLower(h), "-", "_") == n {
			return true
		}
	}
	return false
}

// Text returns s with the secret values of sc and every credential
// shape of the table replaced by REDACTED: ScrubText with sc's values.
// Reports, golden transcripts and logs are written through it, and
// cassettes are scrubbed with the same values, so a credential of the
// environment is kept out of every file agenteval writes by one
// implementation. The nil *Scrubbing applies the shapes only.
func (sc *Scrubbing) Text(s string) string {
	if len(s) < MinSecretBytes {
		return s // shorter than any secret or credential shape
	}
	return (&scrubber{extra: sc}).text("", s)
}

// values returns s with the secret values of sc replaced by REDACTED
// (and nothing else): how the matcher reads a live request, whose
// recording holds them redacted.
func (sc *Scrubbing) values(s string) string {
	for _, v := range sc.Values {
		if len(v) >= MinSecretBytes && strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	return s
}

// Scrub returns a scrubbed deep copy of i, as the package's Scrub does,
// with sc's headers and values redacted too.
func (sc *Scrubbing) Scrub(i *vcr.Interaction) *vcr.Interaction {
	return (&scrubber{extra: sc}).interaction(i)
}

// SecretValues returns vals as Scrubbing.Values keeps them: without the
// values shorter than MinSecretBytes or repeated, longest first, so that
// a secret holding another is redacted whole.
func SecretValues(vals ...string) []string {
	var out []string
	for _, v := range vals {
		if len(v) >= MinSecretBytes && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return out
}

// EnvSecretValues returns the values of the credential variables of
// environ (KEY=value entries, as os.Environ returns them; the names
// CredentialVariable tells: OPENAI_API_KEY, GITHUB_TOKEN,
// AWS_SECRET_ACCESS_KEY, ...), as SecretValues keeps them.
func EnvSecretValues(environ []string) []string {
	var vals []string
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && CredentialVariable(k) {
			vals = append(vals, v)
		}
	}
	return SecretValues(vals...)
}
