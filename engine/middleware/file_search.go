package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/internal/hostenv"
)

// The names of the tools FileSearch adds.
const (
	GlobSearchToolName = "glob_search"
	GrepSearchToolName = "grep_search"
)

// GlobSearchDescription is the description of glob_search: the tool
// function's docstring, as langchain's @tool takes it (common indentation
// removed, as Python 3.13 stores docstrings).
const GlobSearchDescription = "Fast file pattern matching tool that works with any codebase size.\n" +
	"\n" +
	"Supports glob patterns like `**/*.js` or `src/**/*.ts`.\n" +
	"\n" +
	"Returns matching file paths sorted by modification time.\n" +
	"\n" +
	"Use this tool when you need to find files by name patterns.\n" +
	"\n" +
	"Args:\n" +
	"    pattern: The glob pattern to match files against.\n" +
	"    path: The directory to search in. If not specified, searches from root.\n" +
	"\n" +
	"Returns:\n" +
	"    Newline-separated list of matching file paths, sorted by modification\n" +
	"    time (most recently modified first). Returns `'No files found'` if no\n" +
	"    matches."

// GrepSearchDescription is the description of grep_search, taken the same
// way.
const GrepSearchDescription = "Fast content search tool that works with any codebase size.\n" +
	"\n" +
	"Searches file contents using regular expressions. Supports full regex\n" +
	"syntax and filters files by pattern with the include parameter.\n" +
	"\n" +
	"Args:\n" +
	"    pattern: The regular expression pattern to search for in file contents.\n" +
	"    path: The directory to search in. If not specified, searches from root.\n" +
	"    include: File pattern to filter (e.g., `'*.js'`, `'*.{ts,tsx}'`).\n" +
	"    output_mode: Output format:\n" +
	"\n" +
	"        - `'files_with_matches'`: Only file paths containing matches\n" +
	"        - `'content'`: Matching lines with `file:line:content` format\n" +
	"        - `'count'`: Count of matches per file\n" +
	"\n" +
	"Returns:\n" +
	"    Search results formatted according to `output_mode`.\n" +
	"        Returns `'No matches found'` if no results."

// The answers of the search tools when nothing matched.
const (
	NoFilesFound   = "No files found"
	NoMatchesFound = "No matches found"
)

// ripgrepTimeout bounds one ripgrep run, as langchain's subprocess.run
// timeout does; past it the Go search runs instead.
const ripgrepTimeout = 30 * time.Second

// FileSearchOptions configures FileSearch. RootPath is required; the
// other zero values are langchain's defaults (ripgrep when installed, 10
// MB files).
type FileSearchOptions struct {
	// RootPath is the directory the tools search; the model's paths are
	// "virtual": "/" is RootPath, and paths with ".." or "~" find
	// nothing.
	RootPath string `json:"root_path"`
	// NoRipgrep always uses the Go search (use_ripgrep=False). Otherwise
	// grep_search runs rg when it is on PATH and falls back to the Go
	// search when it is not or runs out of time.
	NoRipgrep bool `json:"no_ripgrep,omitempty"`
	// MaxFileSizeMB skips larger files in the Go search; 0 means 10.
	// ripgrep searches files of any size, as in langchain.
	MaxFileSizeMB int `json:"max_file_size_mb,omitempty"`
}

// Validate reports what is wrong with the options.
func (o FileSearchOptions) Validate() error {
	var errs []error
	if o.RootPath == "" {
		errs = append(errs, errors.New("root_path: required"))
	}
	if o.MaxFileSizeMB < 0 {
		errs = append(errs, fmt.Errorf("max_file_size_mb: must not be negative, got %d", o.MaxFileSizeMB))
	}
	return errors.Join(errs...)
}

// FileSearch mirrors langchain's FilesystemFileSearchMiddleware
// (agents/middleware/file_search.py): it gives the agent glob_search and
// grep_search over the files below a root directory.
//
// glob_search(pattern, path="/") answers the matching files as virtual
// paths ("/src/app.py"), one a line, or "No files found"; a path outside
// the root, or one that is not a directory, finds nothing. grep_search
// (pattern, path="/", include=None, output_mode="files_with_matches")
// answers the files with a matching line, "file:line:text" per matching
// line (content) or "file:count" (count), files sorted, or "No matches
// found"; a pattern that does not compile answers "Invalid regex
// pattern: <error>" and a bad include "Invalid include pattern". include
// matches file names with fnmatch and braces ("*.{ts,tsx}").
type FileSearch struct {
	opts  FileSearchOptions
	root  string // RootPath, absolute with symlinks resolved
	tools []engine.Tool
}

// NewFileSearch returns the FileSearch middleware, or the problems with
// opts.
func NewFileSearch(opts FileSearchOptions) (*FileSearch, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("FilesystemFileSearchMiddleware: %w", err)
	}
	if opts.MaxFileSizeMB == 0 {
		opts.MaxFileSizeMB = 10
	}
	root, err := filepath.Abs(opts.RootPath)
	if err != nil {
		return nil, fmt.Errorf("FilesystemFileSearchMiddleware: root_path: %w", err)
	}
	m := &FileSearch{opts: opts, root: resolvePath(root)}
	m.tools = []engine.Tool{
		engine.NewTool(engine.ToolDef{Name: GlobSearchToolName, Description: GlobSearchDescription, Parameters: globSearchSchema()}, m.globSearch),
		engine.NewTool(engine.ToolDef{Name: GrepSearchToolName, Description: GrepSearchDescription, Parameters: grepSearchSchema()}, m.grepSearch),
	}
	return m, nil
}

// globSearchSchema is the schema @tool derives from glob_search(pattern:
// str, path: str = "/").
func globSearchSchema() *engine.Object {
	return engine.NewObject(
		"properties", engine.NewObject(
			"pattern", engine.NewObject("type", "string"),
			"path", engine.NewObject("default", "/", "type", "string"),
		),
		"required", []any{"pattern"},
		"type", "object",
	)
}

// grepSearchSchema is the schema @tool derives from grep_search.
func grepSearchSchema() *engine.Object {
	return engine.NewObject(
		"properties", engine.NewObject(
			"pattern", engine.NewObject("type", "string"),
			"path", engine.NewObject("default", "/", "type", "string"),
			"include", engine.NewObject("anyOf", []any{engine.NewObject("type", "string"), engine.NewObject("type", "null")}, "default", nil),
			"output_mode", engine.NewObject("default", "files_with_matches", "enum", []any{"files_with_matches", "content", "count"}, "type", "string"),
		),
		"required", []any{"pattern"},
		"type", "object",
	)
}

// Name is the middleware's node prefix.
func (m *FileSearch) Name() string { return "FilesystemFileSearchMiddleware" }

// Options returns the options the middleware was built with, defaults
// filled in.
func (m *FileSearch) Options() FileSearchOptions { return m.opts }

// Tools adds glob_search and grep_search.
func (m *FileSearch) Tools() []engine.Tool { return m.tools }

// resolvePath is Path.resolve(strict=False) for an absolute path:
// symlinks resolved as far as the path exists.
func resolvePath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == p || dir == "" {
		return p
	}
	return filepath.Join(resolvePath(strings.TrimSuffix(dir, string(filepath.Separator))), base)
}

// errPathRefused is _validate_and_resolve_path's ValueError.
var errPathRefused = errors.New("path refused")

// resolve turns a virtual path into a path below the root
// (_validate_and_resolve_path).
func (m *FileSearch) resolve(path string) (string, error) {
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	if strings.Contains(path, "..") || strings.Contains(path, "~") {
		return "", errPathRefused
	}
	full := resolvePath(filepath.Join(m.root, strings.TrimLeft(path, "/")))
	if !within(m.root, full) {
		return "", errPathRefused
	}
	return full, nil
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// virtual is a file's path as the model sees it: "/" and its path below
// the root.
func (m *FileSearch) virtual(p string) string {
	rel, err := filepath.Rel(m.root, p)
	if err != nil {
		return "/" + p
	}
	return "/" + filepath.ToSlash(rel)
}

func stringArg(args *engine.Object, key, def string) string {
	if v, ok := args.Get(key); ok {
		if s, ok := v.(string); ok {
			return s
		}
	}
	return def
}

// globSearch is glob_search.
func (m *FileSearch) globSearch(_ context.Context, inv engine.ToolInvocation) (any, error) {
	args := inv.Args()
	pattern := stringArg(args, "pattern", "")
	base, err := m.resolve(stringArg(args, "path", "/"))
	if err != nil {
		return NoFilesFound, nil
	}
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		return NoFilesFound, nil
	}
	found, err := pathGlob(base, pattern)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range found {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, m.virtual(p))
		}
	}
	if len(out) == 0 {
		return NoFilesFound, nil
	}
	return strings.Join(out, "\n"), nil
}

// pathGlob is Path.glob(pattern) of Python 3.13 below dir: "**" matches
// any number of directories (without following symlinks to them) and, at
// the end, everything below; other segments match entry names with
// fnmatch, hidden ones included. The paths come sorted.
func pathGlob(dir, pattern string) ([]string, error) {
	if pattern == "" {
		return nil, engine.NewError("ValueError", "Unacceptable pattern: ''")
	}
	if strings.HasPrefix(pattern, "/") {
		return nil, engine.NewError("NotImplementedError", "Non-relative patterns are unsupported")
	}
	if strings.HasSuffix(pattern, "/") {
		// directories only: no file matches
		return nil, nil
	}
	var segs []string
	for _, s := range strings.Split(pattern, "/") {
		if s == "" || s == "." || (s == "**" && len(segs) > 0 && segs[len(segs)-1] == "**") {
			continue
		}
		segs = append(segs, s)
	}
	matchers := make([]*regexp.Regexp, len(segs))
	for i, s := range segs {
		if s != "**" {
			re, err := regexp.Compile(fnmatchRegexp(s))
			if err != nil {
				return nil, engine.NewError("ValueError", fmt.Sprintf("Unacceptable pattern: %s", engine.PyStrRepr(pattern)))
			}
			matchers[i] = re
		}
	}
	seen := map[string]bool{}
	var out []string
	emit := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	var walk func(dir string, i int)
	walk = func(dir string, i int) {
		if i == len(segs) {
			emit(dir)
			return
		}
		if segs[i] == "**" {
			last := i == len(segs)-1
			walk(dir, i+1)
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				p := filepath.Join(dir, e.Name())
				switch {
				case e.IsDir():
					walk(p, i)
				case last:
					emit(p)
				}
			}
			return
		}
		if segs[i] == ".." {
			walk(filepath.Join(dir, ".."), i+1)
			return
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !matchers[i].MatchString(e.Name()) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if i+1 < len(segs) {
				if st, err := os.Stat(p); err != nil || !st.IsDir() {
					continue
				}
			}
			walk(p, i+1)
		}
	}
	walk(dir, 0)
	slices.Sort(out)
	return out, nil
}

// fnmatchRegexp is fnmatch.translate in Go's syntax: * and ? match any
// characters, [seq] and [!seq] sets, everything else literally, the whole
// name.
func fnmatchRegexp(pat string) string {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch c {
		case '*':
			for i+1 < len(rs) && rs[i+1] == '*' {
				i++
			}
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := i + 1
			if j < len(rs) && rs[j] == '!' {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				b.WriteString(`\[`)
				continue
			}
			stuff := string(rs[i+1 : j])
			i = j
			stuff = strings.ReplaceAll(stuff, `\`, `\\`)
			switch {
			case stuff == "":
				b.WriteString(`[^\x00-\x{10FFFF}]`) // matches nothing
				continue
			case stuff == "!":
				b.WriteString(".")
				continue
			case stuff[0] == '!':
				stuff = "^" + stuff[1:]
			case stuff[0] == '^' || stuff[0] == '[':
				stuff = `\` + stuff
			}
			b.WriteString("[" + strings.ReplaceAll(stuff, "[", `\[`) + "]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return b.String()
}

// expandBraces expands "*.{py,pyi}" into its patterns
// (_expand_include_patterns); ok is false for unbalanced or empty braces.
func expandBraces(pattern string) ([]string, bool) {
	if strings.Contains(pattern, "}") && !strings.Contains(pattern, "{") {
		return nil, false
	}
	var out []string
	var expand func(cur string) bool
	expand = func(cur string) bool {
		start := strings.Index(cur, "{")
		if start < 0 {
			out = append(out, cur)
			return true
		}
		end := strings.Index(cur[start:], "}")
		if end < 0 {
			return false
		}
		end += start
		inner := cur[start+1 : end]
		if inner == "" {
			return false
		}
		for _, opt := range strings.Split(inner, ",") {
			if !expand(cur[:start] + opt + cur[end+1:]) {
				return false
			}
		}
		return true
	}
	if !expand(pattern) {
		return nil, false
	}
	return out, true
}

// includeMatcher compiles an include pattern (_is_valid_include_pattern);
// nil means the pattern is invalid.
func includeMatcher(pattern string) []*regexp.Regexp {
	if pattern == "" || strings.ContainsAny(pattern, "\x00\n\r") {
		return nil
	}
	pats, ok := expandBraces(pattern)
	if !ok {
		return nil
	}
	res := make([]*regexp.Regexp, 0, len(pats))
	for _, p := range pats {
		re, err := regexp.Compile(fnmatchRegexp(p))
		if err != nil {
			return nil
		}
		res = append(res, re)
	}
	return res
}

// grepLine is one matching line.
type grepLine struct {
	num  int
	text string
}

// lineMatcher tells whether a line matches a pattern as Python's
// re.search would: by RE2 with Python's Unicode \d, \s and \w, or by the
// backtracking matcher when the pattern has \b or \B, whose Unicode
// meaning RE2 lacks.
type lineMatcher struct {
	re *regexp.Regexp
	py *pyRegexp
}

func compileLineMatcher(pattern string) (*lineMatcher, error) {
	expr := pyToRE2(pattern)
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	lm := &lineMatcher{re: re}
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err == nil && hasWordBoundary(parsed) {
		lm.py = &pyRegexp{expr: pattern, re: parsed}
	}
	return lm, nil
}

func hasWordBoundary(re *syntax.Regexp) bool {
	if re.Op == syntax.OpWordBoundary || re.Op == syntax.OpNoWordBoundary {
		return true
	}
	return slices.ContainsFunc(re.Sub, hasWordBoundary)
}

func (lm *lineMatcher) match(line string) bool {
	if lm.py != nil {
		return len(lm.py.findAll([]rune(line))) > 0
	}
	return lm.re.MatchString(line)
}

// grepSearch is grep_search.
func (m *FileSearch) grepSearch(ctx context.Context, inv engine.ToolInvocation) (any, error) {
	args := inv.Args()
	pattern := stringArg(args, "pattern", "")
	path := stringArg(args, "path", "/")
	include := stringArg(args, "include", "")
	mode := stringArg(args, "output_mode", "files_with_matches")
	lm, err := compileLineMatcher(pattern)
	if err != nil {
		return "Invalid regex pattern: " + pyRegexErrorText(err), nil
	}
	var inc []*regexp.Regexp
	if include != "" {
		if inc = includeMatcher(include); inc == nil {
			return "Invalid include pattern", nil
		}
	}
	var results map[string][]grepLine
	if !m.opts.NoRipgrep {
		results, err = m.ripgrep(ctx, pattern, path, include)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if results == nil {
		results, err = m.goSearch(ctx, lm, path, inc)
		if err != nil {
			return nil, err
		}
	}
	if len(results) == 0 {
		return NoMatchesFound, nil
	}
	return formatGrep(results, mode), nil
}

// pyRegexErrorText is the text of a pattern's compile error: Go's, without
// its "error parsing regexp: " prefix.
func pyRegexErrorText(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// ripgrep runs rg --json (_ripgrep_search). A nil result with a nil error
// means rg could not answer (not installed, out of time): the Go search
// runs instead.
func (m *FileSearch) ripgrep(ctx context.Context, pattern, path, include string) (map[string][]grepLine, error) {
	base, err := m.resolve(path)
	if err != nil {
		return map[string][]grepLine{}, nil
	}
	if _, err := os.Stat(base); err != nil {
		return map[string][]grepLine{}, nil
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		return nil, nil
	}
	argv := []string{"--json"}
	if include != "" {
		argv = append(argv, "--glob", include)
	}
	argv = append(argv, "--", pattern, base)
	rctx, cancel := context.WithTimeout(ctx, ripgrepTimeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, rg, argv...)
	// the harmless part of agenteval's environment, never a credential
	// (package hostenv); nor RIPGREP_CONFIG_PATH, whose flags would
	// change what a search finds
	cmd.Env = hostenv.Clean(os.Environ())
	cmd.WaitDelay = time.Second
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || rctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	results := map[string][]grepLine{}
	for _, line := range strings.Split(stdout.String(), "\n") {
		var msg struct {
			Type string `json:"type"`
			Data struct {
				Path struct {
					Text *string `json:"text"`
				} `json:"path"`
				LineNumber *int `json:"line_number"`
				Lines      struct {
					Text *string `json:"text"`
				} `json:"lines"`
			} `json:"data"`
		}
		if json.Unmarshal([]byte(line), &msg) != nil || msg.Type != "match" {
			continue
		}
		d := msg.Data
		if d.Path.Text == nil || d.LineNumber == nil || d.Lines.Text == nil {
			continue
		}
		v := m.virtual(*d.Path.Text)
		results[v] = append(results[v], grepLine{num: *d.LineNumber, text: strings.TrimRight(*d.Lines.Text, "\n")})
	}
	return results, nil
}

// goSearch searches every regular file below path (_python_search): files
// above the size limit, not UTF-8 or unreadable are skipped, and lines
// are split as Python's text mode and str.splitlines split them.
func (m *FileSearch) goSearch(ctx context.Context, lm *lineMatcher, path string, inc []*regexp.Regexp) (map[string][]grepLine, error) {
	results := map[string][]grepLine{}
	base, err := m.resolve(path)
	if err != nil {
		return results, nil
	}
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		return results, nil
	}
	limit := int64(m.opts.MaxFileSizeMB) * 1024 * 1024
	err = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			// an unreadable directory is skipped, as os.scandir's errors are
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if d.IsDir() {
			return nil
		}
		st, err := os.Stat(p) // is_file() follows symlinks
		if err != nil || !st.Mode().IsRegular() {
			return nil
		}
		if inc != nil && !slices.ContainsFunc(inc, func(re *regexp.Regexp) bool { return re.MatchString(d.Name()) }) {
			return nil
		}
		if st.Size() > limit {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || !utf8.Valid(data) {
			return nil
		}
		for i, line := range pySplitLines(pyUniversalNewlines(string(data))) {
			if lm.match(line) {
				v := m.virtual(p)
				results[v] = append(results[v], grepLine{num: i + 1, text: line})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// pyUniversalNewlines turns "\r\n" and "\r" into "\n", as reading a file
// in Python's text mode does.
func pyUniversalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// pySplitLines is Python's str.splitlines(): lines without their breaks,
// which are \n, \r, \r\n, \v, \f, \x1c, \x1d, \x1e, \x85, \u2028 and
// \u2029; a final break adds no empty line.
func pySplitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, s[start:i])
			if r == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				n++
			}
			start = i + n
		}
		i += n
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// formatGrep writes the results in an output mode, files sorted
// (_format_grep_results); an unknown mode lists the files.
func formatGrep(results map[string][]grepLine, mode string) string {
	files := make([]string, 0, len(results))
	for f := range results {
		files = append(files, f)
	}
	slices.Sort(files)
	var lines []string
	switch mode {
	case "content":
		for _, f := range files {
			for _, l := range results[f] {
				lines = append(lines, f+":"+strconv.Itoa(l.num)+":"+l.text)
			}
		}
	case "count":
		for _, f := range files {
			lines = append(lines, f+":"+strconv.Itoa(len(results[f])))
		}
	default:
		lines = files
	}
	return strings.Join(lines, "\n")
}
