package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ChatModel is a chat model: it answers a request with one AI message.
// Implementations live in engine/llm (scripted, OpenAI-compatible,
// Anthropic). A model must be safe for concurrent use.
type ChatModel interface {
	Generate(ctx context.Context, req ModelRequest) (Message, error)
}

// ModelInfo is implemented by models that know their name; create_agent
// uses it to pick the structured-output strategy, and the messages stream
// mode names the model in its metadata (ls_model_name).
type ModelInfo interface {
	ModelName() string
}

// StructuredOutputModel is implemented by models whose LangChain
// integration answers with_structured_output in a way other than a forced
// tool call. StructuredOutputMethod returns "json_schema" (ChatOpenAI's
// default: the provider's JSON-schema mode, asked for with
// ModelRequest.ResponseFormat, and the answer's text parsed as JSON) or
// "function_calling" (the schema bound as the only tool).
type StructuredOutputModel interface {
	StructuredOutputMethod() string
}

// StreamingChatModel is a ChatModel that can also answer in chunks, as
// LangChain's models do under stream_mode="messages": GenerateStream
// calls onChunk with each chunk (an AI message holding a piece of the
// content and of the tool calls, all chunks with the final message's ID)
// and returns the whole message, as Generate would. An error from onChunk
// ends the call with that error.
type StreamingChatModel interface {
	ChatModel
	GenerateStream(ctx context.Context, req ModelRequest, onChunk func(chunk Message) error) (Message, error)
}

// ChatModelFunc adapts a function to ChatModel.
type ChatModelFunc func(ctx context.Context, req ModelRequest) (Message, error)

// Generate calls f.
func (f ChatModelFunc) Generate(ctx context.Context, req ModelRequest) (Message, error) {
	return f(ctx, req)
}

// ModelRequest is one call to a chat model: the messages it sees and what
// is bound to it (LangChain's bind_tools and invoke kwargs).
type ModelRequest struct {
	// Messages are the messages the model sees, oldest first. In a run
	// they are the thread's list itself (a MessageList shares its
	// messages with the thread's checkpoints), so a call costs nothing in
	// proportion to the thread's length until the model reads them: use
	// All or Backward to walk them, Slice for one slice.
	Messages MessageList
	// Tools are the tool schemas bound to the model, in binding order.
	Tools []ToolSchema
	// ToolChoice is "" (unset), "auto", "any", "required", "none" or the
	// name of one tool.
	ToolChoice string
	// ParallelToolCalls is nil when unset.
	ParallelToolCalls *bool
	// ResponseFormat is a provider-native structured-output request; nil
	// when unset. The agents send create_agent's form, {"type":
	// "json_schema", "json_schema": {"name", "schema", "strict"?}}, which
	// a provider converts as its LangChain integration's bind_tools does
	// (langchain-openai: the schema becomes an OpenAI function whose
	// parameters are the "schema", strict false unless set); other forms
	// go out as given.
	ResponseFormat *Object
	// Options holds any other keyword arguments, in order.
	Options *Object
}

// ToolSchema is a tool as a model sees it: name, description and the JSON
// Schema of its arguments (injected arguments left out).
type ToolSchema struct {
	Name        string
	Description string
	Parameters  *Object
	// Provider is set for a tool given as a plain dict (LangChain's dict
	// tools, see ProviderToolSchema): a provider's built-in tool such as
	// {"type": "web_search_preview"}, or a function schema in a
	// provider's format. A model binds it as its LangChain integration's
	// bind_tools converts the dict; Name, Description and Parameters are
	// read from it. No ToolNode runs it.
	Provider *Object
}

// ProviderToolSchema is a tool given as a plain dict, as create_react_agent
// and create_agent take dicts among their tools: bound to the model, never
// run (chat_agent_executor.py llm_builtin_tools, factory.py
// built_in_tools). It is named by what names it in the formats
// bind_tools converts: "name" (an OpenAI function or an Anthropic tool),
// "function"."name" ({"type": "function", "function": {...}}), "title" (a
// JSON Schema), else "type" (a built-in tool such as {"type":
// "web_search_preview"} or {"type": "web_search_20250305", "name":
// "web_search"}, whose "name" wins). A dict with none of them is an error.
func ProviderToolSchema(dict *Object) (ToolSchema, error) {
	if dict == nil {
		return ToolSchema{}, errors.New("provider tool: nil dict")
	}
	str := func(o *Object, k string) string {
		v, _ := o.Get(k)
		s, _ := v.(string)
		return s
	}
	obj := func(o *Object, k string) *Object {
		v, _ := o.Get(k)
		x, _ := v.(*Object)
		return x
	}
	s := ToolSchema{Provider: dict}
	src := dict
	if fn := obj(dict, "function"); fn != nil && str(dict, "type") == "function" {
		src = fn
	}
	s.Name, s.Description = str(src, "name"), str(src, "description")
	s.Parameters = obj(src, "parameters")
	if s.Parameters == nil {
		s.Parameters = obj(src, "input_schema")
	}
	if s.Name == "" {
		if s.Name = str(dict, "title"); s.Name != "" && dict.Has("properties") {
			s.Parameters = dict
		}
	}
	if s.Name == "" {
		s.Name = str(dict, "type")
	}
	if s.Name == "" {
		return ToolSchema{}, fmt.Errorf("provider tool %s: a dict tool needs a \"type\" (a provider's built-in tool), a \"name\" (a function schema) or a \"title\" (a JSON Schema)", PyRepr(dict))
	}
	return s, nil
}

// providerToolSchemas names every dict of an agent's ProviderTools.
func providerToolSchemas(dicts []*Object) ([]ToolSchema, error) {
	var out []ToolSchema
	var errs []error
	for i, d := range dicts {
		s, err := ProviderToolSchema(d)
		if err != nil {
			errs = append(errs, fmt.Errorf("provider_tools[%d]: %w", i, err))
			continue
		}
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}

// ToValue returns {"name", "description", "parameters"}, or a provider
// tool's dict as given.
func (s ToolSchema) ToValue() *Object {
	if s.Provider != nil {
		return s.Provider
	}
	params := s.Parameters
	if params == nil {
		params = NewObject("type", "object", "properties", &Object{})
	}
	return NewObject("name", s.Name, "description", s.Description, "parameters", params)
}

// ModelSelector chooses the model for one call from the state and the
// run's runtime (LangGraph's dynamic model: a callable of state and
// runtime).
type ModelSelector func(ctx context.Context, state State, rt *Runtime) (ChatModel, error)

// Clock is the engine's source of time: checkpoint timestamps, retry
// backoff and emulated latency all go through it, so tests run instantly
// and reproducibly with a fake clock.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep sleeps for d or until ctx is done.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
