package emulator

import (
	"context"
	"fmt"
	"regexp"
	"sync"

	"github.com/agenteval/agenteval/engine"
)

// Rule is one scripted result of a tool.
type Rule struct {
	// When matches the call's arguments; nil matches any call.
	When any `json:"when,omitempty"`
	// Match is how When matches: "exact" (the default: equal arguments),
	// "subset" (When's keys have equal values in the arguments,
	// recursively) or "regex" (When's values are RE2 patterns matched
	// against the arguments' values; non-string values are matched in
	// their Python repr).
	Match string `json:"match,omitempty"`
	// Times is how many calls the rule answers; 0 means any number.
	Times int `json:"times,omitempty"`
	// Return is the tool's output (a string, or any JSON value).
	Return any `json:"return,omitempty"`
	// Error makes the call raise an error with this text instead.
	Error string `json:"error,omitempty"`
	// ErrorType names the raised exception (default "ToolException").
	ErrorType string `json:"error_type,omitempty"`
}

// Scripted answers a tool's calls from its rules: each call takes the
// first rule whose When matches and that has uses left. It is safe for
// concurrent use; calls of one AI message run concurrently, so rules with
// Times that several of them match are handed out in arrival order — give
// such calls distinct When values to keep a run reproducible.
type Scripted struct {
	tool    string
	rules   []Rule
	regexps []map[string]*regexp.Regexp

	mu        sync.Mutex
	used      []int
	unmatched []string
}

// NewScripted returns the scripted behaviour of the named tool, or an
// error naming the rule whose patterns do not compile.
func NewScripted(tool string, rules []Rule) (*Scripted, error) {
	s := &Scripted{tool: tool, rules: rules, used: make([]int, len(rules)), regexps: make([]map[string]*regexp.Regexp, len(rules))}
	for i, r := range rules {
		if r.Match != "regex" {
			continue
		}
		when, ok := r.When.(*engine.Object)
		if !ok {
			return nil, fmt.Errorf("rule %d: when: match regex needs a mapping of argument to pattern", i)
		}
		s.regexps[i] = map[string]*regexp.Regexp{}
		for _, k := range when.Keys() {
			v, _ := when.Get(k)
			pat, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("rule %d: when.%s: match regex needs a string pattern", i, k)
			}
			re, err := regexp.Compile(pat)
			if err != nil {
				return nil, fmt.Errorf("rule %d: when.%s: %w", i, k, err)
			}
			s.regexps[i][k] = re
		}
	}
	return s, nil
}

// Call is the tool's function (an engine.ToolFunc). A call no rule
// matches raises a ToolException and is remembered (Unmatched).
func (s *Scripted) Call(_ context.Context, inv engine.ToolInvocation) (any, error) {
	args := argsValue(inv.Args())
	s.mu.Lock()
	pick := -1
	for i, r := range s.rules {
		if r.Times > 0 && s.used[i] >= r.Times {
			continue
		}
		if s.matches(i, r, args) {
			pick = i
			s.used[i]++
			break
		}
	}
	if pick < 0 {
		repr := engine.PyRepr(args)
		s.unmatched = append(s.unmatched, repr)
		s.mu.Unlock()
		return nil, engine.ToolException(fmt.Sprintf("scripted tool %q has no result for arguments %s", s.tool, repr))
	}
	s.mu.Unlock()
	r := s.rules[pick]
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

// Unmatched lists the arguments (as Python reprs) of the calls no rule
// matched, in arrival order.
func (s *Scripted) Unmatched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unmatched...)
}

func argsValue(args *engine.Object) *engine.Object {
	if args == nil {
		return engine.NewObject()
	}
	return args
}

func (s *Scripted) matches(i int, r Rule, args *engine.Object) bool {
	if r.When == nil {
		return true
	}
	switch r.Match {
	case "subset":
		return SubsetMatch(r.When, args)
	case "regex":
		for k, re := range s.regexps[i] {
			v, ok := args.Get(k)
			if !ok {
				return false
			}
			str, isStr := v.(string)
			if !isStr {
				str = engine.PyRepr(v)
			}
			if !re.MatchString(str) {
				return false
			}
		}
		return true
	default:
		return engine.ValueEqual(r.When, args)
	}
}

// SubsetMatch says whether want is contained in got: objects key by key
// (recursively), lists element by element with equal lengths, anything
// else equal (engine.ValueEqual).
func SubsetMatch(want, got any) bool {
	switch w := want.(type) {
	case *engine.Object:
		g, ok := got.(*engine.Object)
		if !ok {
			return false
		}
		for _, k := range w.Keys() {
			wv, _ := w.Get(k)
			gv, ok := g.Get(k)
			if !ok || !SubsetMatch(wv, gv) {
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
			if !SubsetMatch(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return engine.ValueEqual(want, got)
}
