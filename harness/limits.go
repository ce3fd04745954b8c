package harness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/agenteval/agenteval/cassette"
)

// The default limits (see Limits). They are far above what a scenario
// written by hand needs, and low enough that a hostile file is refused in
// milliseconds and a few megabytes.
const (
	// DefaultFileBytes caps the size of a scenario file: 4 MiB.
	DefaultFileBytes = 4 << 20
	// DefaultDepth caps the nesting of values.
	DefaultDepth = 200
	// DefaultValues caps the values (scalars, lists and mappings) a file
	// holds once its aliases are expanded.
	DefaultValues = 1 << 18
	// DefaultValueBytes caps the bytes of the strings, numbers and keys a
	// file holds once its aliases are expanded: 16 MiB.
	DefaultValueBytes = 16 << 20
	// DefaultRecursionLimit caps agent.recursion_limit. A run costs time
	// and memory that grow with the square of its steps (every model call
	// sends the whole history), so 10,000 steps of a looping tool take
	// minutes and 2,000,000,000 would never end.
	DefaultRecursionLimit = 100_000
	// DefaultDatasetBytes caps the size of an eval's dataset file (CSV or
	// JSONL): 64 MiB.
	DefaultDatasetBytes = 64 << 20
	// DefaultDatasetRows caps the rows of one dataset file: every row is
	// a case, run as its own scenario in every variant and trial.
	DefaultDatasetRows = 10_000
)

// Limits bound what loading a scenario may cost, so that a hostile or
// broken file ends in a clear error (file:line:col: field: message)
// instead of exhausting the machine. A zero field means its default
// (DefaultFileBytes, ...); a negative one means no limit. The zero Limits
// is the defaults; Load, Parse and LoadDir use it.
//
// Depth and the bracket nesting of flow collections ([[[...]]]) are
// checked on the raw bytes before the YAML parser runs (its cost grows with
// the square of the nesting); Values and ValueBytes count aliases as many
// times as they are used ("billion laughs"), so a small file cannot
// expand into a large one.
//
// CassetteFileBytes and CassetteBodyBytes bound the cassettes a run
// reads (see Cassette and cassette.Limits); the other fields bound the
// scenario files, and eval files as eval reads them.
//
// On the command line: agenteval run, resume, eval, serve and cassette
// take --limit name=N, where name is file_bytes, depth, values,
// value_bytes, recursion_limit, cassette_file_bytes,
// cassette_body_bytes, dataset_bytes or dataset_rows (the last two bound
// an eval's dataset files). docs/limits.md lists every limit.
type Limits struct {
	// FileBytes caps a file's size.
	FileBytes int64 `json:"file_bytes,omitempty"`
	// Depth caps the nesting of values.
	Depth int `json:"depth,omitempty"`
	// Values caps the values a file expands to.
	Values int `json:"values,omitempty"`
	// ValueBytes caps the bytes of the scalars and keys a file expands to.
	ValueBytes int64 `json:"value_bytes,omitempty"`
	// RecursionLimit caps agent.recursion_limit.
	RecursionLimit int `json:"recursion_limit,omitempty"`
	// CassetteFileBytes caps a cassette file's size:
	// cassette.Limits.MaxFileBytes, whose default is
	// cassette.DefaultMaxFileBytes (256 MiB).
	CassetteFileBytes int64 `json:"cassette_file_bytes,omitempty"`
	// CassetteBodyBytes caps one body of a cassette as gzip or deflate
	// decoding produces it: cassette.Limits.MaxBodyBytes, whose default
	// is cassette.DefaultMaxBodyBytes (64 MiB).
	CassetteBodyBytes int64 `json:"cassette_body_bytes,omitempty"`
	// DatasetBytes caps an eval dataset file's size (DefaultDatasetBytes).
	DatasetBytes int64 `json:"dataset_bytes,omitempty"`
	// DatasetRows caps the rows of one eval dataset file
	// (DefaultDatasetRows).
	DatasetRows int `json:"dataset_rows,omitempty"`
}

// limitNames are the names Set takes, in the order help lists them.
var limitNames = []string{"file_bytes", "depth", "values", "value_bytes", "recursion_limit", "cassette_file_bytes", "cassette_body_bytes", "dataset_bytes", "dataset_rows"}

// LimitNames returns the names Set takes (and --limit), in the order help
// lists them.
func LimitNames() []string { return slices.Clone(limitNames) }

// Resolved returns l as loading applies it: each zero field set to its
// default and each negative one (no limit) to the largest value it can
// hold.
func (l Limits) Resolved() Limits { return l.withDefaults() }

// Cassette returns the limits on cassettes as package cassette takes
// them; -1 (no limit) becomes the largest size it can hold.
func (l Limits) Cassette() cassette.Limits {
	l = l.withDefaults()
	return cassette.Limits{MaxFileBytes: l.CassetteFileBytes, MaxBodyBytes: l.CassetteBodyBytes}
}

// withDefaults returns l with each zero field set to its default and each
// negative one to the largest value it can hold.
func (l Limits) withDefaults() Limits {
	pick := func(v, def int64) int64 {
		switch {
		case v == 0:
			return def
		case v < 0:
			return 1<<62 - 1
		}
		return v
	}
	return Limits{
		FileBytes:      pick(l.FileBytes, DefaultFileBytes),
		Depth:          int(pick(int64(l.Depth), DefaultDepth)),
		Values:         int(pick(int64(l.Values), DefaultValues)),
		ValueBytes:     pick(l.ValueBytes, DefaultValueBytes),
		RecursionLimit: int(pick(int64(l.RecursionLimit), DefaultRecursionLimit)),

		CassetteFileBytes: pick(l.CassetteFileBytes, cassette.DefaultMaxFileBytes),
		CassetteBodyBytes: pick(l.CassetteBodyBytes, cassette.DefaultMaxBodyBytes),

		DatasetBytes: pick(l.DatasetBytes, DefaultDatasetBytes),
		DatasetRows:  int(pick(int64(l.DatasetRows), DefaultDatasetRows)),
	}
}

// Set sets the limit named by a "name=N" string (as --limit takes it):
// N is an integer, optionally with a KiB, MiB or GiB suffix, or -1 for no
// limit.
func (l *Limits) Set(s string) error {
	name, val, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("limit %q: expected name=N with name one of %s", s, strings.Join(limitNames, ", "))
	}
	n, err := parseSize(val)
	if err != nil {
		return fmt.Errorf("limit %s: %w", name, err)
	}
	switch name {
	case "file_bytes":
		l.FileBytes = n
	case "value_bytes":
		l.ValueBytes = n
	case "cassette_file_bytes":
		l.CassetteFileBytes = n
	case "cassette_body_bytes":
		l.CassetteBodyBytes = n
	case "dataset_bytes":
		l.DatasetBytes = n
	case "depth", "values", "recursion_limit", "dataset_rows":
		if n > 1<<31-1 {
			return fmt.Errorf("limit %s: %d is too large", name, n)
		}
		switch name {
		case "depth":
			l.Depth = int(n)
		case "values":
			l.Values = int(n)
		case "dataset_rows":
			l.DatasetRows = int(n)
		default:
			l.RecursionLimit = int(n)
		}
	default:
		msg := fmt.Sprintf("unknown limit %q: expected one of %s", name, strings.Join(limitNames, ", "))
		if m := suggest(name, limitNames); m != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", m)
		}
		return errors.New(msg)
	}
	return nil
}

// parseSize reads an integer with an optional KiB, MiB or GiB suffix.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if t, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = t, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < -1 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q: expected an integer >= -1 (-1: no limit), optionally with KiB, MiB or GiB", s)
	}
	if n == -1 {
		return -1, nil
	}
	return n * mult, nil
}

// Load reads and parses the scenario file at path within the limits. A
// file larger than FileBytes is refused before it is read whole.
func (l Limits) Load(path string) (*Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load scenario: %w", err)
	}
	defer f.Close()
	max := l.withDefaults().FileBytes
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("load scenario: %w", err)
	}
	if int64(len(data)) > max {
		return nil, &LoadError{Problems: []Problem{{File: path, Line: 1, Col: 1,
			Message: fmt.Sprintf("the file is larger than the limit of %s (--limit file_bytes=N, Limits.FileBytes)", sizeString(max))}}}
	}
	return l.Parse(path, data)
}

// CheckYAML makes the checks Parse makes before the YAML parser reads
// data: its size against FileBytes, that it is UTF-8, and the nesting of
// its flow collections and compact sequences against Depth (the parser's
// time and memory grow with the square of that nesting). It returns where
// the first problem is and what it is, or ok. Package eval checks eval
// files with it.
func (l Limits) CheckYAML(data []byte) (at Position, message string, ok bool) {
	l = l.withDefaults()
	if int64(len(data)) > l.FileBytes {
		return Position{Line: 1, Col: 1}, fmt.Sprintf("the file is larger than the limit of %s (--limit file_bytes=N, Limits.FileBytes)", sizeString(l.FileBytes)), false
	}
	if at, msg, ok := checkUTF8(data); !ok {
		return at, msg, false
	}
	if at, deep := scanNesting(data, l.Depth); deep {
		return at, l.DepthMessage(), false
	}
	return Position{}, "", true
}

// DepthMessage says that values nest deeper than Depth, and how to raise
// it.
func (l Limits) DepthMessage() string {
	return fmt.Sprintf("values are nested deeper than %d levels (--limit depth=N, Limits.Depth)", l.withDefaults().Depth)
}

// ValuesMessage says that a file expands to more values than Values, and
// how to raise it.
func (l Limits) ValuesMessage() string {
	return fmt.Sprintf("the file expands to too many values: more than %d, aliases counted each time they are used (--limit values=N, Limits.Values)", l.withDefaults().Values)
}

// ValueBytesMessage says that a file expands to more text than
// ValueBytes, and how to raise it.
func (l Limits) ValueBytesMessage() string {
	return fmt.Sprintf("the file expands to too much text: more than %s of strings and keys, aliases counted each time they are used (--limit value_bytes=N, Limits.ValueBytes)", sizeString(l.withDefaults().ValueBytes))
}

// DatasetBytesMessage says that a dataset file is larger than
// DatasetBytes, and how to raise it.
func (l Limits) DatasetBytesMessage() string {
	return fmt.Sprintf("the dataset is larger than the limit of %s (--limit dataset_bytes=N, Limits.DatasetBytes)", sizeString(l.withDefaults().DatasetBytes))
}

// DatasetRowsMessage says that a dataset file has more rows than
// DatasetRows, and how to raise it.
func (l Limits) DatasetRowsMessage() string {
	return fmt.Sprintf("the dataset has more than %d rows, the limit (--limit dataset_rows=N, Limits.DatasetRows)", l.withDefaults().DatasetRows)
}

// sizeString writes a byte count the way --limit reads it.
func sizeString(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
