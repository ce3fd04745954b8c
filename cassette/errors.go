package cassette

import (
	"errors"
	"fmt"
	"strings"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
)

// Sentinels callers branch on. ErrInteractionNotFound and
// ErrCassetteNotFound are go-vcr v2's own values, so errors.Is works with
// errors from either package.
var (
	// ErrInteractionNotFound is wrapped by the *MissError a replaying
	// Recorder returns when no unused interaction matches a request.
	ErrInteractionNotFound = vcr.ErrInteractionNotFound
	// ErrCassetteNotFound is wrapped when replay mode is asked to open a
	// cassette file that does not exist.
	ErrCassetteNotFound = vcr.ErrCassetteNotFound
	// ErrCassetteExists is wrapped when record mode is asked to write a
	// cassette that already exists and Options.Overwrite is not set.
	ErrCassetteExists = errors.New("cassette already exists")
	// ErrCredential is wrapped by the *FormatError of a cassette that holds
	// a credential (an API key, an auth header, a cookie).
	ErrCredential = errors.New("cassette contains a credential")
	// ErrCassetteEmpty is wrapped by the *FormatError of a cassette with no
	// interactions: what a failed or empty recording leaves behind. Replay
	// cannot answer anything from it, so Load refuses it.
	ErrCassetteEmpty = errors.New("cassette has no interactions")
	// ErrRecordingFailed is wrapped by Stop when a request of the recording
	// failed (a refused connection, a broken response body) or nothing was
	// recorded: the cassette is not written and an earlier file stays as
	// it was.
	ErrRecordingFailed = errors.New("recording failed: cassette not written")
)

// Problem is one thing wrong with a cassette file: where it is and what it
// is. Line is 0 when the position is unknown.
type Problem struct {
	Path    string
	Line    int
	Field   string
	Message string
	// Secret marks a credential finding (as opposed to a format problem).
	Secret bool
	// Empty marks the finding that the cassette has no interactions.
	Empty bool
}

// String renders the problem as file:line: field: message.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Path)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// FormatError is returned by Load and Parse for a file that is not a valid
// go-vcr v2 cassette or that holds a credential. It lists every problem
// found, not only the first.
type FormatError struct {
	Path string
	// Layout is what the file looks like; LayoutUnknown when it is not a
	// cassette at all.
	Layout   Layout
	Problems []Problem
}

// Error lists the problems, one per line.
func (e *FormatError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns ErrCredential when one of the problems is a credential,
// and ErrCassetteEmpty when the cassette has no interactions.
func (e *FormatError) Unwrap() []error {
	var out []error
	secret, empty := false, false
	for _, p := range e.Problems {
		secret = secret || p.Secret
		empty = empty || p.Empty
	}
	if secret {
		out = append(out, ErrCredential)
	}
	if empty {
		out = append(out, ErrCassetteEmpty)
	}
	return out
}

// MissError is the error of a replayed request that matched no unused
// interaction. It names the scenario and the cassette, and shows the
// closest recorded request and how its body differs.
type MissError struct {
	Scenario string
	Path     string
	// Method and URL of the request that missed.
	Method, URL string
	// Closest is the nearest recorded request; nil when the cassette is
	// empty.
	Closest *Nearest
}

// Nearest describes the recorded request closest to a missed one.
type Nearest struct {
	// Index is the interaction's 0-based index in the cassette and Line
	// its line in the file (0 when unknown).
	Index, Line int
	Method, URL string
	// Used reports that the interaction was already replayed in this run:
	// each interaction answers one request only.
	Used bool
	// Differences summarises what differs: method, path, query, body.
	Differences []string
	// Diff is a line diff of the canonical bodies, recorded lines marked
	// "-" and requested lines "+"; empty when the bodies are equal.
	Diff string
}

// Error names the scenario, the cassette and the request, then shows the
// closest recorded request and the body diff.
func (e *MissError) Error() string {
	var b strings.Builder
	b.WriteString("cassette")
	if e.Scenario != "" {
		fmt.Fprintf(&b, ": scenario %q", e.Scenario)
	}
	fmt.Fprintf(&b, ": %s: %s %s: %v", e.Path, e.Method, e.URL, ErrInteractionNotFound)
	if e.Closest == nil {
		b.WriteString("\nthe cassette has no interactions")
		return b.String()
	}
	b.WriteString("\n")
	b.WriteString(e.Closest.Describe(e.Path))
	return b.String()
}

// Describe shows the nearest request of the cassette at path as a
// MissError does: "closest recorded request: interaction N at
// path:line: METHOD URL", whether it was already replayed, what differs
// and the body diff (-recorded +requested), one item a line.
func (c *Nearest) Describe(path string) string {
	var b strings.Builder
	loc := path
	if c.Line > 0 {
		loc = fmt.Sprintf("%s:%d", path, c.Line)
	}
	fmt.Fprintf(&b, "closest recorded request: interaction %d at %s: %s %s", c.Index, loc, c.Method, c.URL)
	if c.Used {
		b.WriteString(" (already replayed: each interaction answers one request)")
	}
	if len(c.Differences) > 0 {
		fmt.Fprintf(&b, "\ndiffers in: %s", strings.Join(c.Differences, ", "))
	}
	if c.Diff != "" {
		b.WriteString("\nbody (-recorded +requested):\n")
		b.WriteString(c.Diff)
	}
	return b.String()
}

// Unwrap returns ErrInteractionNotFound.
func (e *MissError) Unwrap() error { return ErrInteractionNotFound }
