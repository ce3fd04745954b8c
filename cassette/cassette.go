package cassette

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	vcr "github.com/dnaeon/go-vcr/v2/cassette"
	"gopkg.in/yaml.v3"
)

// Layout names the YAML layout of a cassette file.
type Layout string

// The layouts Load and Import recognise.
const (
	// LayoutUnknown is a file that is not a cassette.
	LayoutUnknown Layout = ""
	// LayoutGoVCR2 is go-vcr v2's layout (version 1), the one this package
	// reads and writes.
	LayoutGoVCR2 Layout = "go-vcr-v2"
	// LayoutGoVCR4 is go-vcr v3/v4's layout (version 2): interactions
	// carry an id and request/response proto fields.
	LayoutGoVCR4 Layout = "go-vcr-v4"
	// LayoutVcrpyHTTPX is vcrpy's httpx-stub layout: response.content and
	// response.status_code, request.uri.
	LayoutVcrpyHTTPX Layout = "vcrpy-httpx"
	// LayoutVcrpyRequests is vcrpy's requests/aiohttp layout:
	// response.body.string (possibly !!binary gzip) and
	// response.status.code, request.uri.
	LayoutVcrpyRequests Layout = "vcrpy-requests"
	// LayoutVcrpyParsed is pydantic-ai's vcrpy serializer: JSON bodies as
	// YAML maps under request.parsed_body and response.parsed_body.
	LayoutVcrpyParsed Layout = "vcrpy-parsed-body"
)

// describe says in words what a layout looks like, for error messages.
func (l Layout) describe() string {
	switch l {
	case LayoutGoVCR2:
		return "a go-vcr v2 cassette"
	case LayoutGoVCR4:
		return "a go-vcr v3/v4 cassette (version 2, interactions with id and proto fields)"
	case LayoutVcrpyHTTPX:
		return "a vcrpy cassette in the httpx layout (request.uri, response.content, response.status_code)"
	case LayoutVcrpyRequests:
		return "a vcrpy cassette in the requests layout (request.uri, response.body.string, response.status.code)"
	case LayoutVcrpyParsed:
		return "a vcrpy cassette in pydantic-ai's layout (request.parsed_body, response.parsed_body)"
	}
	return "not a cassette"
}

// Cassette is a list of recorded HTTP interactions in go-vcr v2's data
// model. Interactions are stored decoded (no gzip) and scrubbed.
type Cassette struct {
	// Path is the file the cassette was read from or will be written to.
	Path string
	// Interactions in recording order: the order their requests were
	// sent.
	Interactions []*vcr.Interaction
	// Lines holds the line of each interaction in Path (0 when unknown,
	// such as for interactions recorded in this run).
	Lines []int
}

// line returns the line of interaction i, or 0.
func (c *Cassette) line(i int) int {
	if i < len(c.Lines) {
		return c.Lines[i]
	}
	return 0
}

// file is the YAML document of a go-vcr v2 cassette.
type file struct {
	Version      int                `yaml:"version"`
	Interactions []*vcr.Interaction `yaml:"interactions"`
}

// Marshal returns the cassette as a go-vcr v2 YAML file (version 1), which
// go-vcr v2's own cassette.Load reads too. Header keys come out sorted, so
// the same interactions always give the same bytes.
func (c *Cassette) Marshal() ([]byte, error) {
	f := file{Version: 1, Interactions: c.Interactions}
	if f.Interactions == nil {
		f.Interactions = []*vcr.Interaction{}
	}
	// yaml.v3 writes a string that starts with a line break as a literal
	// block whose first empty line it does not read back (a body "\n0\n"
	// came back as "0\n"): such bodies go in as markers and come out of
	// the node tree double-quoted.
	held := map[string]string{}
	hold := func(body string) string {
		if !strings.HasPrefix(body, "\n") {
			return body
		}
		marker := fmt.Sprintf("\x00agenteval-body-%d", len(held))
		held[marker] = body
		return marker
	}
	f.Interactions = slices.Clone(f.Interactions)
	for i, in := range f.Interactions {
		if in == nil || !strings.HasPrefix(in.Request.Body, "\n") && !strings.HasPrefix(in.Response.Body, "\n") {
			continue
		}
		cp := *in
		cp.Request.Body, cp.Response.Body = hold(in.Request.Body), hold(in.Response.Body)
		f.Interactions[i] = &cp
	}
	var doc yaml.Node
	if err := doc.Encode(f); err != nil {
		return nil, fmt.Errorf("encode cassette %s: %w", c.Path, err)
	}
	restoreHeld(&doc, held)
	var buf bytes.Buffer
	buf.WriteString("---\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(4)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("encode cassette %s: %w", c.Path, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode cassette %s: %w", c.Path, err)
	}
	return buf.Bytes(), nil
}

// restoreHeld puts the held strings back, double-quoted.
func restoreHeld(n *yaml.Node, held map[string]string) {
	if n.Kind == yaml.ScalarNode {
		if v, ok := held[n.Value]; ok {
			n.Value, n.Style = v, yaml.DoubleQuotedStyle
		}
	}
	for _, c := range n.Content {
		restoreHeld(c, held)
	}
}

// Save writes the cassette to path after scrubbing a copy of every
// interaction and checking that no credential is left. Unless overwrite
// is set it refuses to replace an existing file (the error wraps
// ErrCassetteExists). The file appears atomically and durably: it is
// written to a temporary file that is flushed to disk, renamed into
// place, and the folder flushed, so a reader sees the old file or the
// whole new one, even after a crash.
func (c *Cassette) Save(path string, overwrite bool) error { return c.save(path, overwrite, nil) }

// save is Save with a project's additions to the credential table
// (Options.Scrubbing); nil adds nothing.
func (c *Cassette) save(path string, overwrite bool, extra *Scrubbing) error {
	out := &Cassette{Path: path, Interactions: make([]*vcr.Interaction, len(c.Interactions))}
	var problems []Problem
	for n, i := range c.Interactions {
		s := extra.Scrub(i)
		out.Interactions[n] = s
		problems = append(problems, scanInteraction(path, s, fmt.Sprintf("interactions[%d]", n), func(string) int { return 0 }, extra)...)
	}
	if len(problems) > 0 {
		return fmt.Errorf("save %s: refusing to write a credential: %w", path, &FormatError{Path: path, Layout: LayoutGoVCR2, Problems: problems})
	}
	data, err := out.Marshal()
	if err != nil {
		return err
	}
	return writeFile(path, data, overwrite, osSyncer{})
}

// writeFile writes data to path durably: into a temporary file in the
// same folder, flushed to disk (fsync), then linked into place (no
// clobbering) or renamed over the old file (overwrite), and the folder
// flushed so that the new name survives a crash too. A reader sees the
// old file or the whole new one, before and after a power cut.
func writeFile(path string, data []byte, overwrite bool, sync syncer) error {
	if !overwrite {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("save %s: %w (record mode never overwrites or appends; delete the file or allow overwriting)", path, ErrCassetteExists)
		}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	if err := writeSynced(tmp, data, sync); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	if overwrite {
		if err := os.Rename(tmpName, path); err != nil {
			return fmt.Errorf("save %s: %w", path, err)
		}
		return syncDir(path, dir, sync)
	}
	if err := os.Link(tmpName, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("save %s: %w (it appeared while recording)", path, ErrCassetteExists)
		}
		// No hard links here: fall back to an exclusive create.
		f, cerr := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if cerr != nil {
			if errors.Is(cerr, fs.ErrExist) {
				return fmt.Errorf("save %s: %w (it appeared while recording)", path, ErrCassetteExists)
			}
			return fmt.Errorf("save %s: %w", path, cerr)
		}
		if err := writeSynced(f, data, sync); err != nil {
			return fmt.Errorf("save %s: %w", path, err)
		}
	}
	return syncDir(path, dir, sync)
}

// writeSynced writes data to f, flushes it to disk and closes it.
func writeSynced(f *os.File, data []byte, sync syncer) error {
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := sync.file(f); err != nil {
		f.Close()
		return fmt.Errorf("fsync: %w", err)
	}
	return f.Close()
}

func syncDir(path, dir string, sync syncer) error {
	if err := sync.dir(dir); err != nil {
		return fmt.Errorf("save %s: fsync %s: %w", path, dir, err)
	}
	return nil
}

// syncer flushes a file or a folder to stable storage. writeFile takes it
// so that a test can watch the order of its steps; osSyncer is the real
// one.
type syncer interface {
	file(f *os.File) error
	dir(path string) error
}

// osSyncer flushes with fsync.
type osSyncer struct{}

func (osSyncer) file(f *os.File) error { return f.Sync() }

// dir flushes a folder's entries. Windows cannot open a folder for
// writing and some file systems refuse fsync on a folder: there, as the
// file itself is flushed, there is nothing more to do.
func (osSyncer) dir(path string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}

// Durations returns the recorded latency of every interaction, in order:
// what a live run waited for each response. Replay never sleeps; bench
// and reports read latency from here.
func (c *Cassette) Durations() []time.Duration {
	out := make([]time.Duration, len(c.Interactions))
	for i, in := range c.Interactions {
		out[i] = in.Response.Duration
	}
	return out
}

// checkScrubbing refuses a cassette that holds what a project added to
// the credential table (a secret value of its environment, a value under
// one of its credential headers), as Load refuses one that holds a
// credential of the table: the error wraps ErrCredential and names
// file:line: field. With nothing added it checks nothing, Load having
// checked the rest.
func (c *Cassette) checkScrubbing(extra *Scrubbing) error {
	if len(extra.Headers) == 0 && len(extra.Values) == 0 {
		return nil
	}
	var problems []Problem
	for n, i := range c.Interactions {
		line := 0
		if n < len(c.Lines) {
			line = c.Lines[n]
		}
		problems = append(problems, scanInteraction(c.Path, i, fmt.Sprintf("interactions[%d]", n), func(string) int { return line }, extra)...)
	}
	if len(problems) == 0 {
		return nil
	}
	return &FormatError{Path: c.Path, Layout: LayoutGoVCR2, Problems: problems}
}
