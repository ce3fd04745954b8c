package harness

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// Load reads and parses the scenario file at path within the default
// Limits. See Parse.
func Load(path string) (*Scenario, error) {
	return Limits{}.Load(path)
}

// Parse parses a scenario file's contents; path names the file in problems
// and becomes Scenario.File. It checks the file against the schema
// (SchemaJSON) and then the rules the schema cannot state, and returns a
// *LoadError listing every problem, or the scenario with the positions of
// its fields (Scenario.Pos). Name and Rel are left as written; LoadDir fills
// them in. The file must be UTF-8 and within the default Limits.
func Parse(path string, data []byte) (*Scenario, error) {
	return Limits{}.Parse(path, data)
}

// Parse is the package's Parse within the limits l.
func (l Limits) Parse(path string, data []byte) (*Scenario, error) {
	l = l.withDefaults()
	r := &reader{file: path, pos: positions{}, keyPos: positions{}, anchors: map[string]any{}, limits: l, budget: l.Values, bytes: l.ValueBytes}
	if at, msg, ok := l.CheckYAML(data); !ok {
		r.problem("", at, msg)
		return nil, r.err()
	}
	doc, ok := r.parseYAML(data)
	if !ok {
		return nil, r.err()
	}
	if doc == nil {
		r.problem("", Position{Line: 1, Col: 1}, "the file is empty: a scenario is a mapping with at least turns")
		return nil, r.err()
	}
	r.validateSchema(doc)
	s := &Scenario{File: path, pos: r.pos, keyPos: r.keyPos}
	if _, ok := doc.(*engine.Object); ok {
		r.decode(doc, reflect.ValueOf(s).Elem(), "")
		r.check(s)
		s.Placeholders = r.placeholders(doc, "")
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	return s, nil
}

// LoadDir loads the scenario files named by paths (the root itself when
// there are none). A path is a file, or a directory searched recursively for
// *.yaml and *.yml files, skipping files and directories whose names start
// with "." or "_". Files load in path order. Each scenario's Rel is its path
// relative to root, without extension and with forward slashes; for a path
// not under root it is relative to that path's own directory (a file's base
// name, or the file's path below the directory given). Name defaults to
// Rel. Every file is loaded: the error joins every file's *LoadError, and
// names used twice, and the scenarios that did load are returned with it.
// Every file must be within the default Limits.
func LoadDir(root string, paths ...string) ([]*Scenario, error) {
	return Limits{}.LoadDir(root, paths...)
}

// LoadDir is the package's LoadDir within the limits l.
func (l Limits) LoadDir(root string, paths ...string) ([]*Scenario, error) {
	if len(paths) == 0 {
		paths = []string{root}
	}
	type file struct{ path, base string }
	var files []file
	var errs []error
	seen := map[string]bool{}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("load scenarios: %w", err))
			continue
		}
		base := root
		if !under(root, p) {
			base = p
			if !info.IsDir() {
				base = filepath.Dir(p)
			}
		}
		if !info.IsDir() {
			if !seen[filepath.Clean(p)] {
				seen[filepath.Clean(p)] = true
				files = append(files, file{p, base})
			}
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if path != p && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			if ext := filepath.Ext(name); ext != ".yaml" && ext != ".yml" {
				return nil
			}
			if !seen[filepath.Clean(path)] {
				seen[filepath.Clean(path)] = true
				files = append(files, file{path, base})
			}
			return nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("load scenarios: %w", err))
		}
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Compare(a.path, b.path) })

	var out []*Scenario
	names := map[string]*Scenario{}
	for _, f := range files {
		s, err := l.Load(f.path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.Rel = relName(f.base, f.path)
		if s.Name == "" {
			s.Name = s.Rel
		}
		if first, ok := names[s.Name]; ok {
			pos := s.Pos("name")
			if pos == (Position{}) {
				pos = Position{Line: 1, Col: 1}
			}
			errs = append(errs, &LoadError{Problems: []Problem{{
				File: s.File, Line: pos.Line, Col: pos.Col, Field: "name",
				Message: fmt.Sprintf("duplicate scenario name %q (also %s)", s.Name, first.File),
			}}})
			continue
		}
		names[s.Name] = s
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}

// under reports whether path lies in or below root.
func under(root, path string) bool {
	ar, err1 := filepath.Abs(root)
	ap, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(ar, ap)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// relName is path relative to base, without extension, with forward
// slashes.
func relName(base, path string) string {
	rel := filepath.Base(path)
	if ab, err := filepath.Abs(base); err == nil {
		if ap, err := filepath.Abs(path); err == nil {
			if r, err := filepath.Rel(ab, ap); err == nil && r != "." {
				rel = r
			}
		}
	}
	return filepath.ToSlash(strings.TrimSuffix(rel, filepath.Ext(rel)))
}
