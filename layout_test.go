package agenteval_test

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The import rules of ARCHITECTURE.md, checked against the source: imports
// flow one way, the shared layers below import nothing above them, and no
// product package links testing or goldie (only the *test helper packages
// do). The test reads import lists with go/build, so it needs no
// toolchain subprocess.

const module = "github.com/agenteval/agenteval"

// forbidden lists, per package (a path prefix under the module), the
// packages of ours it must not import, directly or through others.
var forbidden = []struct {
	pkg    string
	reason string
	not    []string // path prefixes; "*" is every package of ours but allowed
	allow  []string
}{
	{"engine/value", "the value model is a leaf", []string{"*"}, nil},
	{"engine/schema", "the validator needs only the value model", []string{"*"}, []string{"engine/value"}},
	{"engine", "engine imports none of ours but its leaves", []string{"*"}, []string{"engine/value", "engine/schema"}},
	{"cassette", "cassettes need only the value model", []string{"*"}, []string{"engine/value", "textdiff"}},
	{"atomicfile", "atomic writes are shared by every package that writes files", []string{"*"}, nil},
	{"stats", "statistics are shared below eval, bench and harness", []string{"*"}, nil},
	{"report", "the record is shared below eval, bench and harness", []string{"*"}, []string{"atomicfile"}},
	{"grade", "graders check what a run observed, without the runner", []string{"harness", "cassette", "eval", "serve", "bench", "cmd"}, nil},
	{"harness", "harness runs one scenario; eval builds on it", []string{"eval", "bench", "cmd"}, nil},
	{"bench", "eval's statistics live in stats, not bench", []string{"eval", "cmd"}, nil},
	{"eval", "eval must not reach into bench", []string{"bench", "cmd"}, nil},
	{"watch", "watch reruns scenarios through harness; only the CLI uses it", []string{"eval", "bench", "cmd"}, nil},
	{"serve", "serve sits below harness", []string{"harness", "eval", "bench", "cmd"}, nil},
	{"store", "the results store is shared below eval, harness and view: it keeps reports", []string{"*"}, []string{"report", "report/evalreport", "cassette", "engine/value", "textdiff", "atomicfile"}},
	{"view", "the view reads the store and report files; only the CLI wires it", []string{"bench", "cmd"}, nil},
}

// testOnly are packages that may import testing (they are test helpers).
var testOnly = []string{"engine/checkpoint/checkpointtest", "harness/harnesstest"}

func TestImportRules(t *testing.T) {
	pkgs := ourPackages(t)
	deps := map[string][]string{}
	for _, p := range pkgs {
		deps[p] = importsOf(t, p)
	}
	// closure collects the full import paths p reaches through packages
	// of ours
	var closure func(p string, seen map[string]bool)
	closure = func(p string, seen map[string]bool) {
		for _, d := range deps[p] {
			if !seen[d] {
				seen[d] = true
				if rel, ok := strings.CutPrefix(d, module+"/"); ok {
					closure(rel, seen)
				}
			}
		}
	}
	for _, p := range pkgs {
		for _, rule := range forbidden {
			if p != rule.pkg && !(strings.HasPrefix(p, rule.pkg+"/") && rule.pkg != "engine") {
				continue
			}
			seen := map[string]bool{}
			closure(p, seen)
			for d := range seen {
				if !strings.HasPrefix(d, module+"/") {
					continue
				}
				rel := strings.TrimPrefix(d, module+"/")
				// a package may import its own tree and, below a rule's
				// package (report/evalreport), that package's: both
				// are the same layer
				inLayer := rel == rule.pkg || strings.HasPrefix(rel, rule.pkg+"/")
				if rel == p || strings.HasPrefix(rel, p+"/") || inLayer || slices.ContainsFunc(rule.allow, func(a string) bool { return rel == a }) {
					continue
				}
				for _, n := range rule.not {
					if n == "*" || rel == n || strings.HasPrefix(rel, n+"/") {
						t.Errorf("%s imports %s: %s", p, rel, rule.reason)
					}
				}
			}
		}
	}
	for _, p := range pkgs {
		for _, d := range deps[p] {
			if strings.HasPrefix(d, module+"/cmd") {
				t.Errorf("%s imports %s: nothing imports cmd/", p, d)
			}
		}
	}
	// the binary links neither testing nor goldie
	seen := map[string]bool{}
	closure("cmd/agenteval", seen)
	for d := range seen {
		if d == "testing" || strings.HasPrefix(d, "github.com/sebdah/goldie") {
			t.Errorf("cmd/agenteval links %s (through a product package; test helpers belong in *test packages)", d)
		}
	}
	for _, p := range pkgs {
		if slices.Contains(testOnly, p) {
			continue
		}
		if slices.Contains(deps[p], "testing") {
			t.Errorf("%s imports testing: only %v may", p, testOnly)
		}
	}
}

// ourPackages lists the module's package directories (relative, slash
// separated), leaving out testdata, nested modules and hidden folders.
func ourPackages(t *testing.T) []string {
	var out []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules") {
			return filepath.SkipDir
		}
		if path != "." {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module (bench/peers)
			}
		}
		if pkg, err := build.ImportDir(path, 0); err == nil && len(pkg.GoFiles) > 0 {
			out = append(out, filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// importsOf returns the import paths of a package of ours (test files
// left out).
func importsOf(t *testing.T, rel string) []string {
	pkg, err := build.ImportDir(rel, 0)
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return pkg.Imports
}
