package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The engine holds two layers in one package: the graph runtime
// (LangGraph's StateGraph and Pregel loop) and the prebuilt agents built
// on it (langgraph.prebuilt and langchain's create_agent). The runtime
// must not know the agents: it runs any graph, and an agent is one graph
// among others. These lists say which file is which; the shared files
// hold what both use (messages, tools and models as data, errors, the
// value model).
var (
	runtimeFiles = []string{
		"channel.go", "checkpoint.go", "checkpoint_conflict.go", "debug.go", "fanout.go", "graph.go", "ids.go", "interrupt.go", "messages.go",
		"msgchannel.go", "pregel.go", "reducer.go", "retry.go", "snapshot.go", "state.go", "stateapi.go", "subgraph.go", "versions.go",
	}
	prebuiltFiles = []string{
		"agent.go", "humaninterrupt.go", "react.go", "toolnode.go", "validationnode.go",
	}
	sharedFiles = []string{
		"doc.go", "errors.go", "message.go", "messagelist.go", "model.go", "repr.go", "schema.go", "tool.go", "typedtool.go", "value.go",
	}
)

// TestRuntimeNamesNoPrebuiltType checks that no runtime or shared file
// names a type, function, variable or constant declared in a prebuilt
// file.
func TestRuntimeNamesNoPrebuiltType(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	parse := func(name string) *ast.File {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		return f
	}
	declared := map[string]string{} // name -> prebuilt file declaring it
	for _, name := range prebuiltFiles {
		for _, d := range parse(name).Decls {
			for _, id := range topLevelNames(d) {
				declared[id] = name
			}
		}
	}
	for _, name := range slices.Concat(runtimeFiles, sharedFiles) {
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				// a field or method name after a dot is not a
				// package-level name; only the left side can be one
				ast.Inspect(x.X, visit)
				return false
			case *ast.Field:
				// the same for the names of struct fields, parameters
				// and results: only their types count
				ast.Inspect(x.Type, visit)
				return false
			case *ast.KeyValueExpr:
				if _, isField := x.Key.(*ast.Ident); isField {
					ast.Inspect(x.Value, visit)
					return false
				}
			case *ast.Ident:
				if from, ok := declared[x.Name]; ok {
					t.Errorf("%s names %s, declared in prebuilt %s", fset.Position(x.Pos()), x.Name, from)
				}
			}
			return true
		}
		ast.Inspect(parse(name), visit)
	}
}

// TestBoundaryListsCoverEveryFile makes a new file take a side: every
// non-test Go file of the package is in exactly one list.
func TestBoundaryListsCoverEveryFile(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, p := range paths {
		if !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
	}
	listed := slices.Concat(runtimeFiles, prebuiltFiles, sharedFiles)
	sort.Strings(listed)
	if dup := slices.Compact(slices.Clone(listed)); len(dup) != len(listed) {
		t.Errorf("a file is in more than one list: %v", listed)
	}
	for _, f := range files {
		if !slices.Contains(listed, f) {
			t.Errorf("%s is in none of runtimeFiles, prebuiltFiles, sharedFiles: put it in one", f)
		}
	}
	for _, f := range listed {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("listed file %s: %v", f, err)
		}
	}
}

// topLevelNames returns the package-level names a declaration declares:
// types, functions (not methods), variables and constants.
func topLevelNames(d ast.Decl) []string {
	var out []string
	switch x := d.(type) {
	case *ast.FuncDecl:
		if x.Recv == nil {
			out = append(out, x.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range x.Specs {
			switch sp := s.(type) {
			case *ast.TypeSpec:
				out = append(out, sp.Name.Name)
			case *ast.ValueSpec:
				for _, n := range sp.Names {
					if n.Name != "_" {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}
