package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// Vector is one conformance vector: a scenario run through the real Python
// LangGraph/LangChain, with everything it produced. Values are kept in the
// engine's JSON value model (*engine.Object keeps key order).
type Vector struct {
	Name  string
	About string
	Area  string
	// API is "create_react_agent", "create_agent" or "tool_node".
	API         string
	Path        string
	Config      *engine.Object
	Tools       []any
	Model       any
	Models      *engine.Object
	Steps       []any
	Expected    []any
	ToolSchemas []any
	Graph       *engine.Object
	FinalStore  []any
	HasStore    bool
	// LangChain is the langchain release that produced the vector
	// (oracle_versions.langchain, e.g. "1.1.3 (release commit aa0f4fb92)").
	LangChain string
	// NondeterministicSteps are steps whose recorded texts embed IDs the
	// Python run generated at random (e.g. message reprs in a summary
	// prompt); UUIDs inside their strings match any UUID.
	NondeterministicSteps map[int]bool
}

// APIs are the values of a vector's "api".
const (
	APICreateReactAgent = "create_react_agent"
	APICreateAgent      = "create_agent"
	APIToolNode         = "tool_node"
)

// LoadDir reads every vector (*.json but INDEX.json) in dir, sorted by
// name.
func LoadDir(dir string) ([]*Vector, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	var out []*Vector
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || e.Name() == "INDEX.json" {
			continue
		}
		v, err := LoadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, v)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// LoadFile reads one vector.
func LoadFile(path string) (*Vector, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read vector: %w", err)
	}
	v, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	v.Path = path
	return v, nil
}

// Parse reads a vector from JSON.
func Parse(data []byte) (*Vector, error) {
	raw, err := engine.DecodeJSON(data)
	if err != nil {
		return nil, err
	}
	o, ok := raw.(*engine.Object)
	if !ok {
		return nil, errors.New("a vector must be a JSON object")
	}
	v := &Vector{}
	str := func(k string) string {
		x, _ := o.Get(k)
		s, _ := x.(string)
		return s
	}
	list := func(k string) ([]any, error) {
		x, ok := o.Get(k)
		if !ok || x == nil {
			return nil, nil
		}
		l, ok := x.([]any)
		if !ok {
			return nil, fmt.Errorf("%q must be a list", k)
		}
		return l, nil
	}
	v.Name, v.About, v.Area, v.API = str("name"), str("about"), str("area"), str("api")
	if v.Name == "" {
		return nil, errors.New(`missing "name"`)
	}
	switch v.API {
	case APICreateReactAgent, APICreateAgent, APIToolNode:
	default:
		return nil, fmt.Errorf("%s: unknown api %q: expected create_react_agent, create_agent or tool_node", v.Name, v.API)
	}
	if c, ok := o.Get("config"); ok && c != nil {
		if v.Config, ok = c.(*engine.Object); !ok {
			return nil, fmt.Errorf("%s: \"config\" must be an object", v.Name)
		}
	}
	if v.Config == nil {
		v.Config = &engine.Object{}
	}
	if v.Tools, err = list("tools"); err != nil {
		return nil, fmt.Errorf("%s: %w", v.Name, err)
	}
	if v.Steps, err = list("steps"); err != nil {
		return nil, fmt.Errorf("%s: %w", v.Name, err)
	}
	if v.Expected, err = list("expected"); err != nil {
		return nil, fmt.Errorf("%s: %w", v.Name, err)
	}
	if len(v.Steps) != len(v.Expected) {
		return nil, fmt.Errorf("%s: %d steps but %d expected entries", v.Name, len(v.Steps), len(v.Expected))
	}
	if v.ToolSchemas, err = list("tool_schemas"); err != nil {
		return nil, fmt.Errorf("%s: %w", v.Name, err)
	}
	v.Model, _ = o.Get("model")
	if m, ok := o.Get("models"); ok {
		v.Models, _ = m.(*engine.Object)
	}
	if g, ok := o.Get("graph"); ok {
		v.Graph, _ = g.(*engine.Object)
	}
	if nd, _ := o.Get("nondeterministic"); nd == true {
		v.NondeterministicSteps = map[int]bool{}
		steps, _ := o.Get("nondeterministic_steps")
		list, _ := steps.([]any)
		for _, e := range list {
			if n, ok := e.(json.Number); ok {
				if i, err := n.Int64(); err == nil {
					v.NondeterministicSteps[int(i)] = true
				}
			}
		}
	}
	if ov, ok := o.Get("oracle_versions"); ok {
		if ovo, ok := ov.(*engine.Object); ok {
			lc, _ := ovo.Get("langchain")
			v.LangChain, _ = lc.(string)
		}
	}
	if fs, ok := o.Get("final_store"); ok {
		v.HasStore = true
		v.FinalStore, _ = fs.([]any)
	}
	return v, nil
}
