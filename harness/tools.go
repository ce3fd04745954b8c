package harness

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"

	"github.com/agenteval/agenteval/engine"
)

// scriptedTool answers calls from a tool's Results: each call takes the
// first result whose When matches and that has uses left. Calls of one AI
// message run concurrently, so results with Times that several of them
// match are handed out in arrival order; give such calls distinct When
// values to keep a run reproducible.
type scriptedTool struct {
	index   int
	spec    *Tool
	regexps []map[string]*regexp.Regexp

	mu   sync.Mutex
	used []int
	// unmatched records calls no result matched, for the scenario's error.
	unmatched []string
}

func newScriptedTool(index int, spec *Tool) (*scriptedTool, error) {
	t := &scriptedTool{index: index, spec: spec, used: make([]int, len(spec.Results)), regexps: make([]map[string]*regexp.Regexp, len(spec.Results))}
	for i, r := range spec.Results {
		if r.Match != "regex" {
			continue
		}
		when, ok := r.When.(*engine.Object)
		if !ok {
			return nil, fmt.Errorf("tools[%d].results[%d].when: match regex needs a mapping of argument to pattern", index, i)
		}
		t.regexps[i] = map[string]*regexp.Regexp{}
		for _, k := range when.Keys() {
			v, _ := when.Get(k)
			pat, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("tools[%d].results[%d].when.%s: match regex needs a string pattern", index, i, k)
			}
			re, err := regexp.Compile(pat)
			if err != nil {
				return nil, fmt.Errorf("tools[%d].results[%d].when.%s: %w", index, i, k, err)
			}
			t.regexps[i][k] = re
		}
	}
	return t, nil
}

func (t *scriptedTool) call(_ context.Context, inv engine.ToolInvocation) (any, error) {
	args := inv.Args()
	t.mu.Lock()
	pick := -1
	for i, r := range t.spec.Results {
		if r.Times > 0 && t.used[i] >= r.Times {
			continue
		}
		if t.matches(i, r, args) {
			pick = i
			t.used[i]++
			break
		}
	}
	if pick < 0 {
		s := engine.PyRepr(argsValue(args))
		t.unmatched = append(t.unmatched, s)
		t.mu.Unlock()
		return nil, engine.ToolException(fmt.Sprintf("scripted tool %q has no result for arguments %s", t.spec.Name, s))
	}
	t.mu.Unlock()
	r := t.spec.Results[pick]
	if r.Error != "" {
		kind := r.ErrorType
		if kind == "" {
			kind = "ToolException"
		}
		return nil, engine.NewError(kind, r.Error)
	}
	if r.Return == nil {
		return "", nil
	}
	return engine.CloneValue(r.Return), nil
}

func argsValue(args *engine.Object) any {
	if args == nil {
		return engine.NewObject()
	}
	return args
}

func (t *scriptedTool) matches(i int, r Result, args *engine.Object) bool {
	if r.When == nil {
		return true
	}
	switch r.Match {
	case "subset":
		return subsetMatch(r.When, argsValue(args))
	case "regex":
		for k, re := range t.regexps[i] {
			v, ok := args.Get(k)
			if !ok {
				return false
			}
			s, isStr := v.(string)
			if !isStr {
				s = engine.PyRepr(v)
			}
			if !re.MatchString(s) {
				return false
			}
		}
		return true
	default:
		return engine.ValueEqual(r.When, argsValue(args))
	}
}

// subsetMatch says whether want is contained in got: objects key by key
// (recursively), lists element by element with equal lengths, anything
// else equal.
func subsetMatch(want, got any) bool {
	switch w := want.(type) {
	case *engine.Object:
		g, ok := got.(*engine.Object)
		if !ok {
			return false
		}
		for _, k := range w.Keys() {
			wv, _ := w.Get(k)
			gv, ok := g.Get(k)
			if !ok || !subsetMatch(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !subsetMatch(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return engine.ValueEqual(want, got)
}

// countingTool counts the calls of a tool.
type countingTool struct {
	engine.Tool
	calls *atomic.Int64
}

func (c countingTool) Invoke(ctx context.Context, inv engine.ToolInvocation) (any, error) {
	c.calls.Add(1)
	return c.Tool.Invoke(ctx, inv)
}
