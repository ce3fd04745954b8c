package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ValidationNodeOptions configures a ValidationNode. The zero value is
// LangGraph's default: named "validation", default error text.
type ValidationNodeOptions struct {
	// Name is the node's name; "" means "validation".
	Name string
	// FormatError builds the error tool message text; nil means
	// "<repr of the error>\n\nRespond after fixing all validation errors."
	FormatError func(err error, call ToolCall, schema ToolSchema) string
	// Checks add validation beyond the JSON Schema, by tool name, like
	// pydantic field validators: a returned error is reported as a
	// value_error of the call.
	Checks map[string]func(args *Object) error
	// Tags are the node's tags (ValidationNode's tags). As in
	// langgraph-prebuilt they are kept on the node (ValidationNode.Tags)
	// and change nothing in a run: the node is a RunnableCallable built
	// with trace=False (tool_validator.py), which never uses them.
	Tags []string
}

// ValidationNode validates the tool calls of the last AI message against
// their schemas without running anything (LangGraph's ValidationNode). Each
// call is answered by a tool message holding the validated arguments as
// compact JSON, or the validation error with additional_kwargs
// {"is_error": true}, so a router can send the model back to fix its call.
type ValidationNode struct {
	opts    ValidationNodeOptions
	schemas map[string]ToolSchema
	compile map[string]*Schema
}

// NewValidationNode returns a ValidationNode for the given schemas (tool
// schemas, or structured-output schemas via StructuredOutputTool).
func NewValidationNode(schemas []ToolSchema, opts ValidationNodeOptions) (*ValidationNode, error) {
	if opts.Name == "" {
		opts.Name = "validation"
	}
	n := &ValidationNode{opts: opts, schemas: map[string]ToolSchema{}, compile: map[string]*Schema{}}
	var errs []error
	for i, s := range schemas {
		if s.Name == "" {
			errs = append(errs, fmt.Errorf("schema %d has no name", i))
			continue
		}
		if _, dup := n.schemas[s.Name]; dup {
			errs = append(errs, fmt.Errorf("duplicate schema name %q", s.Name))
			continue
		}
		params := s.Parameters
		if params == nil {
			params = NewObject("type", "object", "properties", &Object{})
		}
		c, err := CompileSchema(s.Name, params)
		if err != nil {
			errs = append(errs, fmt.Errorf("schema %q: %w", s.Name, err))
			continue
		}
		n.schemas[s.Name] = s
		n.compile[s.Name] = c
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("validation node: %w", errors.Join(errs...))
	}
	return n, nil
}

// Name returns the node name.
func (n *ValidationNode) Name() string { return n.opts.Name }

// Tags returns the node's tags (ValidationNodeOptions.Tags), a copy.
func (n *ValidationNode) Tags() []string { return slices.Clone(n.opts.Tags) }

// Node returns the ValidationNode as a graph node over a "messages" state.
func (n *ValidationNode) Node() NodeFunc {
	return func(ctx context.Context, state State) (any, error) { return n.Invoke(ctx, state) }
}

// Invoke validates the calls of the last message, which must be an AI
// message. input is a State with "messages" or a []Message; the result is
// a State with the tool messages, or a []Message for list input.
func (n *ValidationNode) Invoke(ctx context.Context, input any) (any, error) {
	var msgs []Message
	list := false
	switch t := input.(type) {
	case []Message:
		msgs, list = t, true
	case MessageList:
		msgs, list = t.Slice(), true
	case State:
		m, err := MessagesFromValue(t["messages"])
		if err != nil {
			return nil, err
		}
		msgs = m
	case map[string]any:
		return n.Invoke(ctx, State(t))
	}
	if len(msgs) == 0 {
		return nil, NewError("ValueError", "No message found in input")
	}
	last := msgs[len(msgs)-1]
	if last.Type != TypeAI {
		return nil, NewError("ValueError", "Last message is not an AIMessage")
	}
	out := make([]Message, len(last.ToolCalls))
	errs := make([]error, len(last.ToolCalls))
	var wg sync.WaitGroup
	for i, call := range last.ToolCalls {
		wg.Add(1)
		go func(i int, call ToolCall) {
			defer wg.Done()
			out[i], errs[i] = n.validateOne(call)
		}(i, call)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if list {
		return out, nil
	}
	return State{"messages": out}, nil
}

func (n *ValidationNode) validateOne(call ToolCall) (Message, error) {
	schema, ok := n.schemas[call.Name]
	if !ok {
		return Message{}, NewError("KeyError", call.Name)
	}
	args := call.Args
	if args == nil {
		args = &Object{}
	}
	v, err := n.compile[call.Name].Validate(args)
	if err == nil {
		if check := n.opts.Checks[call.Name]; check != nil {
			if cerr := check(v.(*Object)); cerr != nil {
				err = &ValidationError{Title: call.Name, Errors: []FieldError{{Loc: nil, Type: "value_error", Msg: "Value error, " + cerr.Error(), Input: args}}}
			}
		}
	}
	if err != nil {
		var text string
		if n.opts.FormatError != nil {
			text = n.opts.FormatError(err, call, schema)
		} else {
			text = ErrorRepr(err) + "\n\nRespond after fixing all validation errors."
		}
		return Message{Type: TypeTool, Content: Text(text), Name: call.Name, ToolCallID: call.ID, Status: StatusSuccess, AdditionalKwargs: NewObject("is_error", true)}, nil
	}
	dumped := modelDump(v.(*Object), schema.Parameters)
	b, err := MarshalValue(dumped)
	if err != nil {
		return Message{}, err
	}
	return Message{Type: TypeTool, Content: Text(string(b)), Name: call.Name, ToolCallID: call.ID, Status: StatusSuccess}, nil
}

// modelDump fills in what pydantic's model_dump adds: declared fields not
// given take their default, or null when optional.
func modelDump(v *Object, schema *Object) *Object {
	props, _ := schema.Get("properties")
	po, ok := props.(*Object)
	if !ok {
		return v
	}
	out := &Object{}
	for _, k := range po.Keys() {
		if x, ok := v.Get(k); ok {
			out.Set(k, x)
			continue
		}
		ps, _ := po.Get(k)
		if pso, ok := ps.(*Object); ok {
			if d, ok := pso.Get("default"); ok {
				out.Set(k, d)
				continue
			}
		}
		out.Set(k, nil)
	}
	return out
}
