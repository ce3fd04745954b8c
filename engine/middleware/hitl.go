package middleware

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// The decisions a reviewer may give for an interrupted tool call
// (langchain's DecisionType).
const (
	// DecisionApprove runs the call as the model made it.
	DecisionApprove = "approve"
	// DecisionEdit runs the call with another name and arguments, under
	// the same call ID.
	DecisionEdit = "edit"
	// DecisionReject answers the call with an error tool message instead
	// of running it.
	DecisionReject = "reject"
)

// DefaultDescriptionPrefix starts the description of an action request
// when neither HumanInTheLoopOptions.DescriptionPrefix nor the tool's
// InterruptOn.Description says otherwise.
const DefaultDescriptionPrefix = "Tool execution requires approval"

// AllDecisions returns approve, edit and reject: what interrupt_on=True
// allows.
func AllDecisions() []string { return []string{DecisionApprove, DecisionEdit, DecisionReject} }

// InterruptOn is the review policy of one tool, langchain's
// InterruptOnConfig. A policy without AllowedDecisions reviews nothing:
// the tool runs without asking (interrupt_on=False).
type InterruptOn struct {
	// AllowedDecisions lists the decisions a reviewer may give, in the
	// order the review config shows them: approve, edit, reject.
	AllowedDecisions []string `json:"allowed_decisions"`
	// Description replaces the default description of the tool's action
	// requests ("<prefix>\n\nTool: <name>\nArgs: <args repr>"); ""
	// keeps the default (langchain would show an explicit "" as is).
	Description string `json:"description,omitempty"`
	// Describe, when set, computes the description from the call and the
	// state instead (langchain's callable description; the runtime is
	// engine.RuntimeFrom(ctx)). It wins over Description and is not
	// serialized.
	Describe func(ctx context.Context, call engine.ToolCall, state engine.State) (string, error) `json:"-"`
	// ArgsSchema is accepted for compatibility with langchain's
	// InterruptOnConfig. langchain 1.1.3 does not put it in the review
	// config, and neither does this middleware.
	ArgsSchema *engine.Object `json:"args_schema,omitempty"`
}

// HumanInTheLoopOptions configures HumanInTheLoop. The zero value reviews
// no tool.
type HumanInTheLoopOptions struct {
	// InterruptOn maps tool names to review policies. Tools that are not
	// listed, or whose policy allows no decision, are auto-approved.
	InterruptOn map[string]InterruptOn `json:"interrupt_on"`
	// DescriptionPrefix starts default descriptions; "" means
	// DefaultDescriptionPrefix.
	DescriptionPrefix string `json:"description_prefix,omitempty"`
}

// Validate reports options HumanInTheLoop cannot use: an empty tool name
// or a decision other than approve, edit and reject.
func (o HumanInTheLoopOptions) Validate() error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(o.InterruptOn)) {
		if name == "" {
			errs = append(errs, errors.New("interrupt_on: a tool name is empty"))
		}
		for _, d := range o.InterruptOn[name].AllowedDecisions {
			switch d {
			case DecisionApprove, DecisionEdit, DecisionReject:
			default:
				errs = append(errs, fmt.Errorf("interrupt_on[%q].allowed_decisions: %q is not a decision: expected approve, edit or reject", name, d))
			}
		}
	}
	return errors.Join(errs...)
}

// HumanInTheLoop is langchain's HumanInTheLoopMiddleware
// (langchain/agents/middleware/human_in_the_loop.py). After every model
// call it looks at the last AI message: when some of its tool calls name
// tools under review, it interrupts once for all of them, in call order,
// with
//
//	{"action_requests": [{"name", "args", "description"}, ...],
//	 "review_configs": [{"action_name", "allowed_decisions"}, ...]}
//
// and expects to be resumed with {"decisions": [...]}, one decision per
// interrupted call in the same order (auto-approved calls get none):
//
//	{"type": "approve"}
//	{"type": "edit", "edited_action": {"name": ..., "args": {...}}}
//	{"type": "reject", "message": "..."}   (message optional)
//
// It then rewrites the AI message (same ID) with every call in its
// original order — edited calls keep their IDs, rejected calls stay — and
// adds an error tool message for each rejected call right after it; the
// agent's routing sends only the unanswered calls to the tools, or goes
// back to the model when every call was rejected. A wrong number of
// decisions or a decision the tool's policy does not allow fails the run
// with langchain's ValueError texts, leaving the interrupt pending. Like
// langchain 1.1.3's, its after_model declares no can_jump_to and never
// sets jump_to: the edges out of its node are the agent's own routing
// after the model (to tools, back to the model, or to the end).
//
// Options (HumanInTheLoopOptions): interrupt_on (per tool: all decisions,
// auto-approve, or InterruptOn{allowed_decisions, description}) and
// description_prefix. The agent needs a checkpointer to be resumed.
type HumanInTheLoop struct {
	opts     HumanInTheLoopOptions
	policies map[string]InterruptOn
	prefix   string
}

// NewHumanInTheLoop returns the middleware for opts, or the problems
// Validate finds.
func NewHumanInTheLoop(opts HumanInTheLoopOptions) (*HumanInTheLoop, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("HumanInTheLoopMiddleware: %w", err)
	}
	opts.InterruptOn = maps.Clone(opts.InterruptOn)
	h := &HumanInTheLoop{opts: opts, policies: map[string]InterruptOn{}, prefix: opts.DescriptionPrefix}
	if h.prefix == "" {
		h.prefix = DefaultDescriptionPrefix
	}
	for name, p := range opts.InterruptOn {
		if len(p.AllowedDecisions) > 0 {
			p.AllowedDecisions = append([]string(nil), p.AllowedDecisions...)
			h.policies[name] = p
		}
	}
	return h, nil
}

// Name returns "HumanInTheLoopMiddleware", which names its graph node.
func (h *HumanInTheLoop) Name() string { return "HumanInTheLoopMiddleware" }

// Options returns (a copy of) the options the middleware was built with.
func (h *HumanInTheLoop) Options() HumanInTheLoopOptions {
	o := h.opts
	o.InterruptOn = maps.Clone(o.InterruptOn)
	return o
}

// AfterModel interrupts for the last AI message's reviewed tool calls and
// applies the decisions it is resumed with (after_model).
func (h *HumanInTheLoop) AfterModel(ctx context.Context, state engine.State) (any, error) {
	msgs, err := engine.MessagesFromValue(state["messages"])
	if err != nil {
		return nil, fmt.Errorf("HumanInTheLoopMiddleware: %w", err)
	}
	var ai *engine.Message
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Type == engine.TypeAI {
			ai = &msgs[i]
			break
		}
	}
	if ai == nil || len(ai.ToolCalls) == 0 {
		return nil, nil
	}
	request, err := h.Request(ctx, ai.ToolCalls, state)
	if err != nil {
		return nil, err
	}
	if request == nil {
		return nil, nil
	}
	resume, err := engine.Interrupt(ctx, request)
	if err != nil {
		return nil, err
	}
	out, err := h.Apply(*ai, resume)
	if err != nil {
		return nil, err
	}
	return engine.State{"messages": out}, nil
}

// Request returns the interrupt value for the calls that need review,
// {"action_requests": [...], "review_configs": [...]} in call order, or nil
// when none does.
func (h *HumanInTheLoop) Request(ctx context.Context, calls []engine.ToolCall, state engine.State) (*engine.Object, error) {
	var actions, reviews []any
	for _, tc := range calls {
		p, ok := h.policies[tc.Name]
		if !ok {
			continue
		}
		args := tc.Args
		if args == nil {
			args = &engine.Object{}
		}
		var desc string
		switch {
		case p.Describe != nil:
			d, err := p.Describe(ctx, tc, state)
			if err != nil {
				return nil, fmt.Errorf("HumanInTheLoopMiddleware: describe %s call %s: %w", tc.Name, tc.ID, err)
			}
			desc = d
		case p.Description != "":
			desc = p.Description
		default:
			// f"{prefix}\n\nTool: {tool_name}\nArgs: {tool_args}"
			desc = h.prefix + "\n\nTool: " + tc.Name + "\nArgs: " + engine.PyRepr(args)
		}
		allowed := make([]any, len(p.AllowedDecisions))
		for i, d := range p.AllowedDecisions {
			allowed[i] = d
		}
		actions = append(actions, engine.NewObject("name", tc.Name, "args", args.Clone(), "description", desc))
		reviews = append(reviews, engine.NewObject("action_name", tc.Name, "allowed_decisions", allowed))
	}
	if len(actions) == 0 {
		return nil, nil
	}
	return engine.NewObject("action_requests", actions, "review_configs", reviews), nil
}

// Apply applies a resume value ({"decisions": [...]}) to the AI message
// whose calls were reviewed. It returns the rewritten AI message (same ID,
// every call in its original order: approved as they were, edited with the
// new name and arguments under the old ID, rejected as they were) followed
// by one error tool message per rejected call, in call order. Errors carry
// langchain's texts (ValueError for a wrong count or a decision the policy
// does not allow, KeyError for a missing field).
func (h *HumanInTheLoop) Apply(ai engine.Message, resume any) ([]engine.Message, error) {
	decisions, err := hitlDecisionList(resume)
	if err != nil {
		return nil, err
	}
	var reviewed int
	for _, tc := range ai.ToolCalls {
		if _, ok := h.policies[tc.Name]; ok {
			reviewed++
		}
	}
	if len(decisions) != reviewed {
		return nil, engine.Errorf("ValueError", "Number of human decisions (%d) does not match number of hanging tool calls (%d).", len(decisions), reviewed)
	}
	out := ai.Clone()
	var rejections []engine.Message
	next := 0
	for i, tc := range ai.ToolCalls {
		p, ok := h.policies[tc.Name]
		if !ok {
			continue
		}
		d := decisions[next]
		next++
		revised, rejection, err := hitlDecide(d, tc, p)
		if err != nil {
			return nil, err
		}
		out.ToolCalls[i] = revised
		if rejection != nil {
			rejections = append(rejections, *rejection)
		}
	}
	return append([]engine.Message{out}, rejections...), nil
}

// hitlDecisionList reads resume["decisions"], failing as Python's
// subscript does for a value that is not a dict or has no such key.
func hitlDecisionList(resume any) ([]any, error) {
	v := engine.ValueForJSON(resume)
	o, ok := v.(*engine.Object)
	if !ok {
		return nil, hitlNotSubscriptable(v)
	}
	raw, ok := o.Get("decisions")
	if !ok {
		return nil, engine.NewError("KeyError", "decisions")
	}
	list, ok := raw.([]any)
	if !ok {
		// Python would take len() of a dict or str and then fail on
		// indexing; a plain message is kinder.
		return nil, engine.Errorf("TypeError", "decisions must be a list of decisions, got %s", hitlTypeName(raw))
	}
	return list, nil
}

// hitlDecide is _process_decision: one decision for one reviewed call.
// The policy is checked before the decision's fields are read, as
// langchain does.
func hitlDecide(raw any, tc engine.ToolCall, p InterruptOn) (engine.ToolCall, *engine.Message, error) {
	d, ok := raw.(*engine.Object)
	if !ok {
		return tc, nil, hitlNotSubscriptable(raw)
	}
	typ, ok := d.Get("type")
	if !ok {
		return tc, nil, engine.NewError("KeyError", "type")
	}
	t, _ := typ.(string)
	if !slices.Contains(p.AllowedDecisions, t) {
		allowed := make([]any, len(p.AllowedDecisions))
		for i, a := range p.AllowedDecisions {
			allowed[i] = a
		}
		return tc, nil, engine.Errorf("ValueError",
			"Unexpected human decision: %s. Decision type '%s' is not allowed for tool '%s'. Expected one of %s based on the tool's configuration.",
			engine.PyRepr(d), hitlPyStr(typ), tc.Name, engine.PyRepr(allowed))
	}
	switch t {
	case DecisionApprove:
		return tc, nil, nil
	case DecisionEdit:
		ea, ok := d.Get("edited_action")
		if !ok {
			return tc, nil, engine.NewError("KeyError", "edited_action")
		}
		action, ok := ea.(*engine.Object)
		if !ok {
			return tc, nil, hitlNotSubscriptable(ea)
		}
		name, ok := action.Get("name")
		if !ok {
			return tc, nil, engine.NewError("KeyError", "name")
		}
		args, ok := action.Get("args")
		if !ok {
			return tc, nil, engine.NewError("KeyError", "args")
		}
		// langchain would store any name and args and fail later, in
		// the tool node or the next model call; fail here instead.
		n, ok := name.(string)
		if !ok {
			return tc, nil, engine.Errorf("TypeError", "edited_action.name must be a string, got %s", hitlTypeName(name))
		}
		a, ok := args.(*engine.Object)
		if !ok {
			return tc, nil, engine.Errorf("TypeError", "edited_action.args must be a dict, got %s", hitlTypeName(args))
		}
		return engine.ToolCall{Name: n, Args: a.Clone(), ID: tc.ID}, nil, nil
	default: // DecisionReject
		msg, _ := d.Get("message")
		content, ok := msg.(string)
		if msg != nil && !ok {
			return tc, nil, engine.Errorf("TypeError", "reject message must be a string, got %s", hitlTypeName(msg))
		}
		if content == "" {
			content = fmt.Sprintf("User rejected the tool call for `%s` with id %s", tc.Name, tc.ID)
		}
		return tc, &engine.Message{Type: engine.TypeTool, Content: engine.Text(content), Name: tc.Name, ToolCallID: tc.ID, Status: engine.StatusError}, nil
	}
}

// Decision is one reviewer decision, for building resume values in Go.
type Decision struct {
	// Type is DecisionApprove, DecisionEdit or DecisionReject.
	Type string
	// Name and Args are the edited action of an edit.
	Name string
	Args *engine.Object
	// Message is a rejection's explanation ("" for langchain's default).
	Message string
}

// Approve returns an approve decision.
func Approve() Decision { return Decision{Type: DecisionApprove} }

// Edit returns an edit decision that runs name with args instead.
func Edit(name string, args *engine.Object) Decision {
	return Decision{Type: DecisionEdit, Name: name, Args: args}
}

// Reject returns a reject decision; message may be "".
func Reject(message string) Decision { return Decision{Type: DecisionReject, Message: message} }

// ToValue returns the decision as langchain's Decision dict.
func (d Decision) ToValue() *engine.Object {
	o := engine.NewObject("type", d.Type)
	switch d.Type {
	case DecisionEdit:
		args := d.Args
		if args == nil {
			args = &engine.Object{}
		}
		o.Set("edited_action", engine.NewObject("name", d.Name, "args", args))
	case DecisionReject:
		if d.Message != "" {
			o.Set("message", d.Message)
		}
	}
	return o
}

// MarshalJSON writes the decision dict.
func (d Decision) MarshalJSON() ([]byte, error) { return engine.MarshalValue(d.ToValue()) }

// Resume returns the command that resumes a HumanInTheLoop interrupt with
// the decisions: Command{Resume: {"decisions": [...]}}.
func Resume(decisions ...Decision) engine.Command {
	list := make([]any, len(decisions))
	for i, d := range decisions {
		list[i] = d.ToValue()
	}
	return engine.Command{Resume: engine.NewObject("decisions", list)}
}

// hitlNotSubscriptable is the TypeError Python raises for v["key"] when v
// is not a dict.
func hitlNotSubscriptable(v any) error {
	switch v.(type) {
	case []any:
		return engine.NewError("TypeError", "list indices must be integers or slices, not str")
	case string:
		return engine.NewError("TypeError", "string indices must be integers, not 'str'")
	}
	return engine.Errorf("TypeError", "'%s' object is not subscriptable", hitlTypeName(v))
}

// hitlTypeName names the Python type of a JSON value.
func hitlTypeName(v any) string {
	switch t := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(t), ".eE") {
			return "float"
		}
		return "int"
	case string:
		return "str"
	case []any:
		return "list"
	case *engine.Object:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// hitlPyStr is Python's str() of a JSON value.
func hitlPyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return engine.PyRepr(v)
}
