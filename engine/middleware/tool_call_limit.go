package middleware

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// State keys of ToolCallLimit: objects mapping a counter key (the limited
// tool's name, or AllToolsCountKey) to a count, shared by every
// ToolCallLimit of an agent. The thread counts are saved in checkpoints;
// the run counts are untracked and start empty in every run.
const (
	ThreadToolCallCountKey = "thread_tool_call_count"
	RunToolCallCountKey    = "run_tool_call_count"
	// AllToolsCountKey counts the calls of a ToolCallLimit without a tool
	// name.
	AllToolsCountKey = "__all__"
)

// ToolCallLimitOptions configures ToolCallLimit. The zero value has no
// limit and is invalid: set ThreadLimit, RunLimit or both.
type ToolCallLimitOptions struct {
	// ToolName limits the calls of one tool; "" limits all tool calls
	// together.
	ToolName string `json:"tool_name,omitempty"`
	// ThreadLimit is the most calls a thread may run over all its runs;
	// nil means no limit.
	ThreadLimit *int `json:"thread_limit,omitempty"`
	// RunLimit is the most calls one run may run; nil means no limit. It
	// may not exceed ThreadLimit.
	RunLimit *int `json:"run_limit,omitempty"`
	// ExitBehavior is ExitBehaviorContinue (the default, ""),
	// ExitBehaviorError or ExitBehaviorEnd.
	ExitBehavior string `json:"exit_behavior,omitempty"`
}

// Validate reports what is wrong with the options, naming the option.
func (o ToolCallLimitOptions) Validate() error {
	var errs []error
	if o.ThreadLimit == nil && o.RunLimit == nil {
		errs = append(errs, errors.New("thread_limit, run_limit: at least one limit must be specified"))
	}
	if o.ThreadLimit != nil && *o.ThreadLimit < 0 {
		errs = append(errs, fmt.Errorf("thread_limit: %d: expected a limit >= 0", *o.ThreadLimit))
	}
	if o.RunLimit != nil && *o.RunLimit < 0 {
		errs = append(errs, fmt.Errorf("run_limit: %d: expected a limit >= 0", *o.RunLimit))
	}
	if o.ThreadLimit != nil && o.RunLimit != nil && *o.RunLimit > *o.ThreadLimit {
		errs = append(errs, fmt.Errorf("run_limit: %d: cannot exceed thread_limit (%d)", *o.RunLimit, *o.ThreadLimit))
	}
	switch o.ExitBehavior {
	case "", ExitBehaviorContinue, ExitBehaviorError, ExitBehaviorEnd:
	default:
		errs = append(errs, fmt.Errorf("exit_behavior: %q: expected %q, %q or %q", o.ExitBehavior, ExitBehaviorContinue, ExitBehaviorError, ExitBehaviorEnd))
	}
	return errors.Join(errs...)
}

// ToolCallLimit mirrors langchain's ToolCallLimitMiddleware
// (langchain/agents/middleware/tool_call_limit.py): it counts tool calls,
// of all tools or of one, per thread and per run, and keeps calls over a
// limit from running.
//
// Options (ToolCallLimitOptions): tool_name, thread_limit, run_limit,
// exit_behavior ("continue", "error" or "end").
//
// Its after_model hook walks the new AI message's matching calls in order:
// a call runs if one more call stays within both limits, else it is
// blocked. Allowed calls count towards both counters, blocked calls only
// towards the run counter. Then:
//   - "continue" answers each blocked call with the error tool message
//     "Tool call limit exceeded. Do not call 'ping' again." (or "... Do not
//     make additional tool calls." without a tool name), written before
//     the allowed calls run, so it comes before their results;
//   - "end" does the same, adds the AI message "Tool call limit reached:
//     run limit exceeded (2/1 calls)." and ends the run: the allowed calls
//     of that message never run. With a tool name, calls to other tools in
//     the same message make it fail with NotImplementedError;
//   - "error" fails with a *ToolCallLimitExceededError.
//
// Its name carries the tool name ("ToolCallLimitMiddleware[ping]"), so one
// agent may limit several tools.
type ToolCallLimit struct {
	opts ToolCallLimitOptions
}

// NewToolCallLimit returns a ToolCallLimit, or the options' errors.
func NewToolCallLimit(opts ToolCallLimitOptions) (*ToolCallLimit, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("ToolCallLimitMiddleware: %w", err)
	}
	if opts.ExitBehavior == "" {
		opts.ExitBehavior = ExitBehaviorContinue
	}
	return &ToolCallLimit{opts: opts}, nil
}

// Name is "ToolCallLimitMiddleware", with "[tool]" for a per-tool limit.
func (m *ToolCallLimit) Name() string {
	if m.opts.ToolName != "" {
		return "ToolCallLimitMiddleware[" + m.opts.ToolName + "]"
	}
	return "ToolCallLimitMiddleware"
}

// Options returns the options the middleware was built with, defaults
// filled in.
func (m *ToolCallLimit) Options() ToolCallLimitOptions { return m.opts }

// StateFields adds the two counters, kept out of the input only, as
// ModelCallLimit's (see ModelCallLimit.StateFields).
func (m *ToolCallLimit) StateFields() []engine.Field {
	return []engine.Field{
		{Name: ThreadToolCallCountKey, OmitFromInput: true},
		{Name: RunToolCallCountKey, OmitFromInput: true, Untracked: true},
	}
}

// CanJumpTo lets after_model end the run.
func (m *ToolCallLimit) CanJumpTo(hook string) []string {
	if hook == "after_model" {
		return []string{"end"}
	}
	return nil
}

func (m *ToolCallLimit) countKey() string {
	if m.opts.ToolName != "" {
		return m.opts.ToolName
	}
	return AllToolsCountKey
}

func (m *ToolCallLimit) matches(tc engine.ToolCall) bool {
	return m.opts.ToolName == "" || tc.Name == m.opts.ToolName
}

// AfterModel counts the new AI message's calls and blocks those over a
// limit (ToolCallLimitMiddleware.after_model).
func (m *ToolCallLimit) AfterModel(_ context.Context, state engine.State) (any, error) {
	msgs, err := engine.MessagesFromValue(state["messages"])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	var last *engine.Message
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Type == engine.TypeAI {
			last = &msgs[i]
			break
		}
	}
	if last == nil || len(last.ToolCalls) == 0 {
		return nil, nil
	}
	key := m.countKey()
	threadCounts, err := limitCounts(state[ThreadToolCallCountKey])
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", m.Name(), ThreadToolCallCountKey, err)
	}
	runCounts, err := limitCounts(state[RunToolCallCountKey])
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", m.Name(), RunToolCallCountKey, err)
	}
	thread, err := limitCount(limitLookup(threadCounts, key))
	if err != nil {
		return nil, fmt.Errorf("%s: %s[%q]: %w", m.Name(), ThreadToolCallCountKey, key, err)
	}
	run, err := limitCount(limitLookup(runCounts, key))
	if err != nil {
		return nil, fmt.Errorf("%s: %s[%q]: %w", m.Name(), RunToolCallCountKey, key, err)
	}

	// _separate_tool_calls: allowed calls raise both counts, blocked
	// calls only the run count
	var allowed, blocked []engine.ToolCall
	for _, tc := range last.ToolCalls {
		if !m.matches(tc) {
			continue
		}
		if limitWouldExceed(thread, m.opts.ThreadLimit) || limitWouldExceed(run, m.opts.RunLimit) {
			blocked = append(blocked, tc)
			continue
		}
		allowed = append(allowed, tc)
		thread++
		run++
	}
	run += len(blocked)
	threadCounts.Set(key, thread)
	runCounts.Set(key, run)

	if len(blocked) == 0 {
		if len(allowed) == 0 {
			return nil, nil
		}
		return engine.State{ThreadToolCallCountKey: threadCounts, RunToolCallCountKey: runCounts}, nil
	}
	// the thread count a blocked call would have reached shows which
	// limit it went over
	exceeded := &ToolCallLimitExceededError{
		ThreadCount: thread + len(blocked), RunCount: run,
		ThreadLimit: m.opts.ThreadLimit, RunLimit: m.opts.RunLimit, ToolName: m.opts.ToolName,
	}
	if m.opts.ExitBehavior == ExitBehaviorError {
		return nil, exceeded
	}
	out := make([]engine.Message, 0, len(blocked)+1)
	for _, tc := range blocked {
		out = append(out, engine.Message{Type: engine.TypeTool, Content: engine.Text(m.blockedText()), Name: tc.Name, ToolCallID: tc.ID, Status: engine.StatusError})
	}
	update := engine.State{ThreadToolCallCountKey: threadCounts, RunToolCallCountKey: runCounts}
	if m.opts.ExitBehavior == ExitBehaviorEnd {
		if m.opts.ToolName != "" {
			var others []string
			for _, tc := range last.ToolCalls {
				if tc.Name != m.opts.ToolName && !limitHasString(others, tc.Name) {
					others = append(others, tc.Name)
				}
			}
			if len(others) > 0 {
				return nil, engine.NewError("NotImplementedError", fmt.Sprintf("Cannot end execution with other tool calls pending. Found calls to: %s. Use 'continue' or 'error' behavior instead.", strings.Join(others, ", ")))
			}
		}
		out = append(out, engine.AIMessage(exceeded.Error()))
		update["jump_to"] = "end"
	}
	update["messages"] = out
	return update, nil
}

// blockedText is the tool message sent to the model for a blocked call
// (_build_tool_message_content): it names no thread or run limit, which
// the model has no notion of.
func (m *ToolCallLimit) blockedText() string {
	if m.opts.ToolName != "" {
		return fmt.Sprintf("Tool call limit exceeded. Do not call '%s' again.", m.opts.ToolName)
	}
	return "Tool call limit exceeded. Do not make additional tool calls."
}

// ToolCallLimitExceededError is langchain's ToolCallLimitExceededError: a
// tool call went over a limit. ThreadCount is the count the thread would
// have reached had the blocked calls run. It unwraps to an *engine.Error
// of that kind.
type ToolCallLimitExceededError struct {
	ThreadCount, RunCount int
	ThreadLimit, RunLimit *int
	// ToolName is the limited tool, "" for all tools.
	ToolName string
}

// Error is langchain's text (_build_final_ai_message_content): "Tool call
// limit reached: run limit exceeded (2/1 calls)." or "'ping' tool call
// limit reached: thread limit exceeded (3/2 calls) and run limit exceeded
// (3/1 calls)."
func (e *ToolCallLimitExceededError) Error() string {
	desc := "Tool"
	if e.ToolName != "" {
		desc = fmt.Sprintf("'%s' tool", e.ToolName)
	}
	var parts []string
	if e.ThreadLimit != nil && e.ThreadCount > *e.ThreadLimit {
		parts = append(parts, fmt.Sprintf("thread limit exceeded (%d/%d calls)", e.ThreadCount, *e.ThreadLimit))
	}
	if e.RunLimit != nil && e.RunCount > *e.RunLimit {
		parts = append(parts, fmt.Sprintf("run limit exceeded (%d/%d calls)", e.RunCount, *e.RunLimit))
	}
	return fmt.Sprintf("%s call limit reached: %s.", desc, strings.Join(parts, " and "))
}

// Unwrap returns the error as the Python exception it stands for.
func (e *ToolCallLimitExceededError) Unwrap() error {
	return engine.NewError("ToolCallLimitExceededError", e.Error())
}

// limitWouldExceed is _would_exceed_limit for one limit: one more call
// would go over it.
func limitWouldExceed(count int, limit *int) bool { return limit != nil && count+1 > *limit }

// limitCounts copies a counter object from the state (absent is empty).
func limitCounts(v any) (*engine.Object, error) {
	switch t := v.(type) {
	case nil:
		return &engine.Object{}, nil
	case *engine.Object:
		if t == nil {
			return &engine.Object{}, nil
		}
		return t.Clone(), nil
	case map[string]any:
		o := &engine.Object{}
		for _, k := range limitSortedKeys(t) {
			o.Set(k, t[k])
		}
		return o, nil
	case map[string]int:
		o := &engine.Object{}
		for _, k := range limitSortedKeys(t) {
			o.Set(k, t[k])
		}
		return o, nil
	}
	return nil, fmt.Errorf("expected an object of counts, got %s", engine.PyRepr(v))
}

func limitLookup(o *engine.Object, key string) any {
	v, _ := o.Get(key)
	return v
}

func limitHasString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func limitSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
