package engine

import (
	"context"
	"fmt"
)

// Tool is something a model can call. The ToolNode validates the model's
// arguments against Definition().Parameters before calling Invoke, so
// Invoke sees arguments that satisfy the schema.
//
// Invoke returns the tool's result: a string, any JSON value (sent to the
// model as Python's json.dumps would write it), Content (blocks kept as
// they are), a Message of type tool, or a *Command that updates the graph
// state (and must carry a tool message answering the call). An error
// becomes an error tool message or fails the run, as the ToolNode's error
// handling says.
type Tool interface {
	Definition() ToolDef
	Invoke(ctx context.Context, inv ToolInvocation) (any, error)
}

// ToolDef describes a tool.
type ToolDef struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments the model provides.
	// Injected arguments are not part of it. Nil means no arguments.
	Parameters *Object
	// ReturnDirect ends the agent's run after this tool ran, with the tool
	// message as the last message.
	ReturnDirect bool
	// Inject lists arguments the engine fills in (state, store,
	// tool_call_id); the model never sees them.
	Inject []Injection
	// HandleToolError turns a ToolException raised by this tool into an
	// error tool message (LangChain's BaseTool.handle_tool_error); the zero
	// value lets it propagate to the ToolNode.
	HandleToolError ErrorHandler
	// HandleValidationError does the same for invalid arguments
	// (BaseTool.handle_validation_error).
	HandleValidationError ErrorHandler
}

// InjectKind says what an injected argument receives.
type InjectKind string

// Injection kinds, after LangGraph's InjectedState, InjectedStore and
// InjectedToolCallId.
const (
	// InjectState passes the graph state (all keys) or, with Field set,
	// one key of it.
	InjectState InjectKind = "state"
	// InjectStore passes the graph's Store.
	InjectStore InjectKind = "store"
	// InjectToolCallID passes the id of the tool call being answered.
	InjectToolCallID InjectKind = "tool_call_id"
	// InjectRuntime passes the run's *Runtime (context, store, stream
	// writer), as langchain's ToolRuntime.
	InjectRuntime InjectKind = "runtime"
)

// Injection is one injected argument.
type Injection struct {
	Arg   string
	Kind  InjectKind
	Field string // for InjectState: one state key; empty for the whole state
}

// ToolInvocation is one call of a tool.
type ToolInvocation struct {
	// Call is the model's tool call, with arguments validated (and coerced
	// as pydantic would) against the tool's schema.
	Call ToolCall
	// Injected holds the injected arguments by name: a State or a state
	// value, the Store, the tool call id, the *Runtime.
	Injected map[string]any
	// Runtime is the run's runtime (context, store, stream writer).
	Runtime *Runtime
}

// Args returns the validated arguments (never nil).
func (inv ToolInvocation) Args() *Object {
	if inv.Call.Args == nil {
		return &Object{}
	}
	return inv.Call.Args
}

// ToolFunc is the function behind a tool built with NewTool.
type ToolFunc func(ctx context.Context, inv ToolInvocation) (any, error)

// NewTool returns a Tool from a definition and a function.
func NewTool(def ToolDef, fn ToolFunc) Tool { return &funcTool{def: def, fn: fn} }

type funcTool struct {
	def ToolDef
	fn  ToolFunc
}

func (t *funcTool) Definition() ToolDef { return t.def }
func (t *funcTool) Invoke(ctx context.Context, inv ToolInvocation) (any, error) {
	if t.fn == nil {
		return nil, fmt.Errorf("tool %q has no function", t.def.Name)
	}
	return t.fn(ctx, inv)
}

// Schema returns the tool as the model sees it.
func (d ToolDef) Schema() ToolSchema {
	params := d.Parameters
	if params == nil {
		params = NewObject("properties", &Object{}, "type", "object")
	}
	return ToolSchema{Name: d.Name, Description: d.Description, Parameters: params}
}

// ErrorHandler says how an error becomes a tool message instead of failing
// the run. The zero value handles nothing.
type ErrorHandler struct {
	// Enabled turns handling on; with no Message or Format the tool
	// message carries the error's own text.
	Enabled bool
	// Message is a fixed text for the tool message.
	Message string
	// Format builds the text from the error.
	Format func(err error) string
}

func (h ErrorHandler) content(err error) string {
	switch {
	case h.Format != nil:
		return h.Format(err)
	case h.Message != "":
		return h.Message
	default:
		msg := ErrorMessage(err)
		if msg == "" {
			return "Tool execution error"
		}
		return msg
	}
}
