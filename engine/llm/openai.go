package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agenteval/agenteval/engine"
)

// DefaultOpenAIBaseURL is the OpenAI API's base URL.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// OpenAIConfig configures a Chat Completions model: OpenAI itself or any
// server that speaks its wire format (Ollama, vLLM, llama.cpp, Groq,
// Mistral, OpenRouter, Gemini's OpenAI endpoint) at BaseURL. Every field
// but Model has a usable zero value.
type OpenAIConfig struct {
	// Model is the model id sent to the server ("gpt-4.1-mini").
	Model string
	// Provider names the provider in the model's name: "openai" (the
	// default) or "openai-compatible".
	Provider string
	// APIKey is sent as a bearer token; empty sends none (enough for
	// replay and for local servers).
	APIKey string
	// BaseURL is the API root, up to and including the version segment;
	// empty means DefaultOpenAIBaseURL.
	BaseURL string
	// HTTPClient carries the requests; nil means http.DefaultClient. Put a
	// cassette under it to record or replay.
	HTTPClient *http.Client
	// MaxRetries is how often the SDK retries a failed request. The zero
	// value retries never, which is what replay needs: a recorded answer
	// does not change on a retry, and a retry would use up an interaction.
	MaxRetries int
	// Stream asks for server-sent events and assembles them into one
	// message; a request option "stream" overrides it per call.
	Stream bool
	// OnChunk receives the pieces of streamed answers.
	OnChunk ChunkFunc
	// MaxResponseBytes bounds an answer's body, whole or streamed: a
	// longer one fails the call naming the limit. 0 means
	// MaxResponseBodyBytes (64 MiB).
	MaxResponseBytes int64
}

// Validate reports what is wrong with the config.
func (c OpenAIConfig) Validate() error {
	var errs []error
	if c.Model == "" {
		errs = append(errs, errors.New("openai: Model is required"))
	}
	if c.Provider != "" && c.Provider != ProviderOpenAI && c.Provider != ProviderOpenAICompatible {
		errs = append(errs, fmt.Errorf("openai: Provider %q is not %q or %q", c.Provider, ProviderOpenAI, ProviderOpenAICompatible))
	}
	if c.MaxRetries < 0 {
		errs = append(errs, fmt.Errorf("openai: MaxRetries %d is negative", c.MaxRetries))
	}
	if c.MaxResponseBytes < 0 {
		errs = append(errs, fmt.Errorf("openai: MaxResponseBytes %d is negative", c.MaxResponseBytes))
	}
	return errors.Join(errs...)
}

// OpenAI is a chat model speaking the OpenAI Chat Completions API through
// the official Go SDK (openai-go). It is safe for concurrent use.
//
// Requests follow langchain-openai's message conversion: system, user,
// assistant (tool calls with their arguments as JSON text in Python's
// json.dumps layout, invalid tool calls with their raw text) and tool
// messages; tools as {"type": "function", "function": {...}}; tool_choice
// ("any" is sent as "required", a tool name as a named choice);
// parallel_tool_calls; response_format; any other request option as a
// top-level field. Answers become one AI message: content, tool calls
// with arguments parsed in key order (malformed ones become invalid tool
// calls), usage_metadata and response_metadata (id, model_name,
// model_provider, system_fingerprint, service_tier, finish_reason).
type OpenAI struct {
	cfg  OpenAIConfig
	name string
	svc  openai.ChatCompletionService
}

// NewOpenAI returns a Chat Completions model.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Provider == "" {
		cfg.Provider = ProviderOpenAI
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultOpenAIBaseURL
	}
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(client),
		option.WithMaxRetries(cfg.MaxRetries),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	// NewChatCompletionService, not openai.NewClient: the client would
	// read OPENAI_* variables from the process environment on its own.
	return &OpenAI{cfg: cfg, name: cfg.Provider + ":" + cfg.Model, svc: openai.NewChatCompletionService(opts...)}, nil
}

// Name returns "provider:model".
func (m *OpenAI) Name() string { return m.name }

// ModelName returns the model id sent to the server (ChatOpenAI's
// model_name): create_agent reads it to choose the structured-output
// strategy, and the "messages" stream mode reports it as ls_model_name.
func (m *OpenAI) ModelName() string { return m.cfg.Model }

// StructuredOutputMethod returns "json_schema", ChatOpenAI's default
// method for with_structured_output, except for the models
// langchain-openai knows lack structured outputs (gpt-3*, gpt-4-*,
// gpt-4), which fall back to "function_calling".
func (m *OpenAI) StructuredOutputMethod() string {
	id := m.cfg.Model
	if strings.HasPrefix(id, "gpt-3") || strings.HasPrefix(id, "gpt-4-") || id == "gpt-4" {
		return "function_calling"
	}
	return "json_schema"
}

// ModelProvider returns "openai", ChatOpenAI's ls_provider, for OpenAI
// and compatible servers alike.
func (m *OpenAI) ModelProvider() string { return ProviderOpenAI }

// GenerateStream implements engine.StreamingChatModel: the request is
// streamed whatever the config says (as LangChain's models stream under a
// "messages" stream mode), each piece of text is a chunk as it arrives,
// and a last chunk carries the tool calls, usage and metadata.
func (m *OpenAI) GenerateStream(ctx context.Context, req engine.ModelRequest, onChunk func(engine.Message) error) (engine.Message, error) {
	return streamAnswer(ctx, req, onChunk, m.Generate)
}

// Generate sends the request and returns the answer as one AI message.
func (m *OpenAI) Generate(ctx context.Context, req engine.ModelRequest) (engine.Message, error) {
	params, opts, stream, err := m.request(req)
	if err != nil {
		return engine.Message{}, fmt.Errorf("model %q: %w", m.name, err)
	}
	var raw *http.Response
	opts = append(opts, option.WithResponseBodyInto(&raw))
	if stream {
		params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)}
		opts = append(opts, option.WithJSONSet("stream", true))
	}
	if _, err := m.svc.New(ctx, params, opts...); err != nil {
		return engine.Message{}, m.transportError(err)
	}
	defer raw.Body.Close()
	if stream {
		msg, err := parseOpenAIStream(limitBody(raw.Body, responseLimit(m.cfg.MaxResponseBytes), "the stream"), m.cfg.Provider, newEmitter(ctx, m.name, m.cfg.OnChunk))
		if err != nil {
			return engine.Message{}, fmt.Errorf("model %q: %w", m.name, err)
		}
		return msg, nil
	}
	body, err := io.ReadAll(limitBody(raw.Body, responseLimit(m.cfg.MaxResponseBytes), "the response"))
	if err != nil {
		return engine.Message{}, fmt.Errorf("model %q: read response: %w", m.name, err)
	}
	msg, err := ParseOpenAIResponse(body, m.cfg.Provider)
	if err != nil {
		return engine.Message{}, fmt.Errorf("model %q: %w", m.name, err)
	}
	return msg, nil
}

// transportError turns an SDK error into an *APIError for error statuses
// and wraps anything else with the model's name.
func (m *OpenAI) transportError(err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return newAPIError(m.cfg.Provider, m.name, apiErr.Response)
	}
	return fmt.Errorf("model %q: %w", m.name, err)
}

// request builds the SDK parameters for req.
func (m *OpenAI) request(req engine.ModelRequest) (openai.ChatCompletionNewParams, []option.RequestOption, bool, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(m.cfg.Model)}
	stream := m.cfg.Stream
	msgs, err := openaiMessages(req.Messages.Slice())
	if err != nil {
		return p, nil, false, err
	}
	p.Messages = msgs
	strict, err := bindStrict(req.Options)
	if err != nil {
		return p, nil, false, err
	}
	var opts []option.RequestOption
	for _, t := range req.Tools {
		if t.Provider != nil {
			tool, err := openaiProviderTool(t.Provider, strict)
			if err != nil {
				return p, nil, false, fmt.Errorf("tool %q: %w", t.Name, err)
			}
			raw, err := engine.MarshalValue(tool)
			if err != nil {
				return p, nil, false, fmt.Errorf("tool %q: %w", t.Name, err)
			}
			p.Tools = append(p.Tools, param.Override[openai.ChatCompletionToolUnionParam](json.RawMessage(raw)))
			continue
		}
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: functionParameters(t)}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		if strict != nil {
			// bind_tools(strict=...): convert_to_openai_tool(tool, strict)
			sf, err := openaiFunction(t.ToValue(), strict)
			if err != nil {
				return p, nil, false, fmt.Errorf("tool %q: %w", t.Name, err)
			}
			params, _ := sf.Get("parameters")
			fn.Parameters = objectMap(params)
			fn.Strict = param.NewOpt(*strict)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionToolUnionParam{OfFunction: &openai.ChatCompletionFunctionToolParam{Function: fn}})
	}
	if req.Tools != nil && len(req.Tools) == 0 {
		// a bound empty list is sent, as bind_tools([]) sends it
		// (create_agent's ProviderStrategy without tools does)
		opts = append(opts, option.WithJSONSet("tools", []any{}))
	}
	switch req.ToolChoice {
	case "":
	case "auto", "none", "required":
		p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: param.NewOpt(req.ToolChoice)}
	case "any":
		p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: param.NewOpt("required")}
	default:
		p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfFunctionToolChoice: &openai.ChatCompletionNamedToolChoiceParam{
			Function: openai.ChatCompletionNamedToolChoiceFunctionParam{Name: req.ToolChoice},
		}}
	}
	if req.ParallelToolCalls != nil {
		p.ParallelToolCalls = param.NewOpt(*req.ParallelToolCalls)
	}
	if req.ResponseFormat != nil {
		rf, err := openaiResponseFormat(req.ResponseFormat)
		if err != nil {
			return p, nil, false, err
		}
		raw, err := engine.MarshalValue(rf)
		if err != nil {
			return p, nil, false, fmt.Errorf("response_format: %w", err)
		}
		p.ResponseFormat = param.Override[openai.ChatCompletionNewParamsResponseFormatUnion](json.RawMessage(raw))
	}
	fields, stream, err := requestFields(withoutKey(req.Options, "strict"), stream, "messages", "model", "tools", "tool_choice", "parallel_tool_calls", "response_format", "stream_options")
	if err != nil {
		return p, nil, false, err
	}
	for _, f := range fields {
		opts = append(opts, option.WithJSONSet(f.key, f.raw))
	}
	return p, opts, stream, nil
}

// jsonField is a top-level request field set from an option.
type jsonField struct {
	key string
	raw json.RawMessage
}

// requestFields turns ModelRequest.Options into top-level JSON fields, in
// order. "stream" (a boolean) chooses streaming instead; the reserved
// keys are the ones the provider sets itself.
func requestFields(o *engine.Object, stream bool, reserved ...string) ([]jsonField, bool, error) {
	var out []jsonField
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		if k == "stream" {
			b, ok := v.(bool)
			if !ok {
				return nil, false, fmt.Errorf("option stream must be a boolean, got %v", v)
			}
			stream = b
			continue
		}
		for _, r := range reserved {
			if k == r {
				return nil, false, fmt.Errorf("option %q is set from the request itself; set it there", k)
			}
		}
		if k == "" || strings.ContainsAny(k, ".*?|#@\\") {
			return nil, false, fmt.Errorf("option name %q is not a plain JSON field name", k)
		}
		raw, err := engine.MarshalValue(v)
		if err != nil {
			return nil, false, fmt.Errorf("option %q: %w", k, err)
		}
		out = append(out, jsonField{k, raw})
	}
	return out, stream, nil
}

// withoutKey returns o without key (o itself when it has none).
func withoutKey(o *engine.Object, key string) *engine.Object {
	if !o.Has(key) {
		return o
	}
	c := &engine.Object{}
	for _, k := range o.Keys() {
		if k != key {
			v, _ := o.Get(k)
			c.Set(k, v)
		}
	}
	return c
}

// objectMap is a JSON object value as the SDK's parameters map; nested
// values keep their key order.
func objectMap(v any) shared.FunctionParameters {
	out := shared.FunctionParameters{}
	o, _ := v.(*engine.Object)
	for _, k := range o.Keys() {
		x, _ := o.Get(k)
		out[k] = x
	}
	return out
}

// functionParameters is the tool's JSON Schema as the SDK's map. Nested
// values keep their key order (they marshal themselves); the top-level
// keys come out sorted.
func functionParameters(t engine.ToolSchema) shared.FunctionParameters {
	params := t.ToValue()
	schema, _ := params.Get("parameters")
	o, _ := schema.(*engine.Object)
	out := shared.FunctionParameters{}
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		out[k] = v
	}
	return out
}

// openaiMessages converts messages as langchain-openai's
// _convert_message_to_dict does.
func openaiMessages(msgs []engine.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for i, m := range msgs {
		u, err := openaiMessage(m)
		if err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		out = append(out, u)
	}
	return out, nil
}

func openaiMessage(m engine.Message) (openai.ChatCompletionMessageParamUnion, error) {
	name := param.Opt[string]{}
	if m.Name != "" {
		name = param.NewOpt(m.Name)
	}
	switch m.Type {
	case engine.TypeSystem:
		if m.Content.IsList() {
			return rawMessage("system", m.Name, m.Content.Blocks(), nil)
		}
		return openai.ChatCompletionMessageParamUnion{OfSystem: &openai.ChatCompletionSystemMessageParam{
			Content: openai.ChatCompletionSystemMessageParamContentUnion{OfString: param.NewOpt(m.Content.String())}, Name: name,
		}}, nil
	case engine.TypeHuman:
		if m.Content.IsList() {
			return rawMessage("user", m.Name, m.Content.Blocks(), nil)
		}
		return openai.ChatCompletionMessageParamUnion{OfUser: &openai.ChatCompletionUserMessageParam{
			Content: openai.ChatCompletionUserMessageParamContentUnion{OfString: param.NewOpt(m.Content.String())}, Name: name,
		}}, nil
	case engine.TypeTool:
		content := openai.ChatCompletionToolMessageParamContentUnion{OfString: param.NewOpt(m.Content.String())}
		if m.Content.IsList() {
			raw, err := engine.MarshalValue(m.Content.Blocks())
			if err != nil {
				return openai.ChatCompletionMessageParamUnion{}, err
			}
			content = param.Override[openai.ChatCompletionToolMessageParamContentUnion](json.RawMessage(raw))
		}
		return openai.ChatCompletionMessageParamUnion{OfTool: &openai.ChatCompletionToolMessageParam{Content: content, ToolCallID: m.ToolCallID}}, nil
	case engine.TypeAI:
		var calls []openai.ChatCompletionMessageToolCallUnionParam
		for _, tc := range m.ToolCalls {
			args, err := engine.PyJSON(argsOrEmpty(tc.Args))
			if err != nil {
				return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("tool call %q: %w", tc.ID, err)
			}
			calls = append(calls, functionCall(tc.ID, tc.Name, args))
		}
		for _, tc := range m.InvalidToolCalls {
			calls = append(calls, functionCall(tc.ID, tc.Name, tc.Args))
		}
		a := &openai.ChatCompletionAssistantMessageParam{ToolCalls: calls, Name: name}
		if m.Content.IsList() {
			var blocks []any
			for _, b := range m.Content.Blocks() {
				if o, ok := b.(*engine.Object); ok {
					if t := str(o, "type"); t == "tool_use" || t == "tool_call" {
						continue
					}
				}
				blocks = append(blocks, b)
			}
			if len(blocks) > 0 {
				raw, err := engine.MarshalValue(blocks)
				if err != nil {
					return openai.ChatCompletionMessageParamUnion{}, err
				}
				a.Content = param.Override[openai.ChatCompletionAssistantMessageParamContentUnion](json.RawMessage(raw))
			}
		} else if s := m.Content.String(); s != "" {
			a.Content = openai.ChatCompletionAssistantMessageParamContentUnion{OfString: param.NewOpt(s)}
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: a}, nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("a %q message cannot be sent to a model", m.Type)
}

func functionCall(id, name, args string) openai.ChatCompletionMessageToolCallUnionParam {
	return openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
		ID:       id,
		Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: name, Arguments: args},
	}}
}

func argsOrEmpty(o *engine.Object) *engine.Object {
	if o == nil {
		return &engine.Object{}
	}
	return o
}

// rawMessage builds a message whose content is a list of blocks, passed
// through as they are.
func rawMessage(role, name string, blocks []any, extra *engine.Object) (openai.ChatCompletionMessageParamUnion, error) {
	o := engine.NewObject("role", role, "content", blocks)
	if name != "" {
		o.Set("name", name)
	}
	raw, err := engine.MarshalValue(o)
	if err != nil {
		return openai.ChatCompletionMessageParamUnion{}, err
	}
	return param.Override[openai.ChatCompletionMessageParamUnion](json.RawMessage(raw)), nil
}

// ParseOpenAIResponse reads a (non-streamed) Chat Completions response
// body into an AI message. provider goes into response_metadata.
func ParseOpenAIResponse(body []byte, provider string) (engine.Message, error) {
	v, err := engine.DecodeJSON(body)
	if err != nil {
		return engine.Message{}, fmt.Errorf("response is not JSON: %w", err)
	}
	o, ok := v.(*engine.Object)
	if !ok {
		return engine.Message{}, errors.New("response is not a JSON object")
	}
	if e := obj(o, "error"); e != nil {
		return engine.Message{}, fmt.Errorf("response holds an error: %s", str(e, "message"))
	}
	choices := list(o, "choices")
	if len(choices) == 0 {
		return engine.Message{}, errors.New("response has no choices")
	}
	ch, _ := choices[0].(*engine.Object)
	msg := obj(ch, "message")
	if msg == nil {
		return engine.Message{}, errors.New("choices[0] has no message")
	}
	out := engine.Message{Type: engine.TypeAI, Content: engine.Text("")}
	switch c, _ := msg.Get("content"); t := c.(type) {
	case string:
		out.Content = engine.Text(t)
	case []any:
		out.Content = engine.Blocks(t...)
	}
	var wires []wireCall
	for _, x := range list(msg, "tool_calls") {
		tc, _ := x.(*engine.Object)
		fn := obj(tc, "function")
		wires = append(wires, wireCall{ID: str(tc, "id"), Name: str(fn, "name"), Args: argumentsText(fn)})
	}
	id := str(o, "id")
	out.ToolCalls, out.InvalidToolCalls = finishCalls(id, wires)
	kw := &engine.Object{}
	for _, k := range []string{"reasoning_content", "reasoning"} {
		if s := str(msg, k); s != "" {
			kw.Set(k, s)
		}
	}
	if s := str(msg, "refusal"); s != "" {
		kw.Set("refusal", s)
	}
	if kw.Len() > 0 {
		out.AdditionalKwargs = kw
	}
	if u := obj(o, "usage"); u != nil {
		out.UsageMetadata = openaiUsage(u)
	}
	out.ResponseMetadata = openaiMetadata(provider, o, str(ch, "finish_reason"))
	return out, nil
}

// argumentsText returns function.arguments as text; some servers send an
// object instead of a string.
func argumentsText(fn *engine.Object) string {
	v, _ := fn.Get("arguments")
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	default:
		b, _ := engine.MarshalValue(t)
		return string(b)
	}
}

// openaiMetadata builds response_metadata in langchain-openai's key
// order.
func openaiMetadata(provider string, o *engine.Object, finish string) *engine.Object {
	md := engine.NewObject("model_provider", provider)
	if s := str(o, "model"); s != "" {
		md.Set("model_name", s)
	}
	if s := str(o, "system_fingerprint"); s != "" {
		md.Set("system_fingerprint", s)
	}
	if s := str(o, "id"); s != "" {
		md.Set("id", s)
	}
	if s := str(o, "service_tier"); s != "" {
		md.Set("service_tier", s)
	}
	if finish != "" {
		md.Set("finish_reason", finish)
	}
	return md
}

// openaiUsage maps a usage object as langchain-openai's
// _create_usage_metadata does: total_tokens as reported (Gemini's counts
// thinking tokens the other two leave out), details only where given.
func openaiUsage(u *engine.Object) *engine.Usage {
	in, _ := num(u, "prompt_tokens")
	outT, _ := num(u, "completion_tokens")
	total, ok := num(u, "total_tokens")
	if !ok {
		total = in + outT
	}
	usage := &engine.Usage{InputTokens: in, OutputTokens: outT, TotalTokens: total}
	details := func(src *engine.Object, pairs ...string) *engine.Object {
		d := &engine.Object{}
		for i := 0; i+1 < len(pairs); i += 2 {
			if v, ok := src.Get(pairs[i+1]); ok && v != nil {
				d.Set(pairs[i], v)
			}
		}
		if d.Len() == 0 {
			return nil
		}
		return d
	}
	usage.InputTokenDetails = details(obj(u, "prompt_tokens_details"), "audio", "audio_tokens", "cache_read", "cached_tokens")
	usage.OutputTokenDetails = details(obj(u, "completion_tokens_details"), "audio", "audio_tokens", "reasoning", "reasoning_tokens")
	return usage
}

// parseOpenAIStream assembles a Chat Completions event stream into one
// AI message, reporting chunks as they come. It copes with what real
// servers send: a usage-only final chunk with no choices, usage on the
// chunk that carries finish_reason (Mistral), tool-call deltas without
// "type" (Mistral), a tool-call delta repeated with the same id and name
// (Kimi, whose stream may also end without finish_reason "tool_calls"),
// and extra fields such as "obfuscation".
func parseOpenAIStream(r io.Reader, provider string, emit emitter) (engine.Message, error) {
	var (
		content   strings.Builder
		reasoning strings.Builder
		calls     = map[int]*wireCall{}
		top       = &engine.Object{}
		finish    string
		usage     *engine.Object
	)
	err := readSSE(r, func(ev sseEvent) error {
		data := strings.TrimSpace(ev.Data)
		if data == "" || data == "[DONE]" {
			return nil
		}
		v, err := engine.DecodeJSON([]byte(data))
		if err != nil {
			return fmt.Errorf("stream event is not JSON: %w", err)
		}
		o, ok := v.(*engine.Object)
		if !ok {
			return nil
		}
		if e := obj(o, "error"); e != nil {
			return fmt.Errorf("stream error: %s", str(e, "message"))
		}
		for _, k := range []string{"id", "model", "system_fingerprint", "service_tier"} {
			if s := str(o, k); s != "" && !top.Has(k) {
				top.Set(k, s)
			}
		}
		if u := obj(o, "usage"); u != nil {
			usage = u
		}
		for _, x := range list(o, "choices") {
			ch, _ := x.(*engine.Object)
			if idx, ok := num(ch, "index"); ok && idx != 0 {
				continue // only the first choice is assembled
			}
			if f := str(ch, "finish_reason"); f != "" {
				finish = f
			}
			delta := obj(ch, "delta")
			if s := str(delta, "content"); s != "" {
				content.WriteString(s)
				emit.text(s)
			}
			for _, k := range []string{"reasoning_content", "reasoning"} {
				reasoning.WriteString(str(delta, k))
			}
			for pos, y := range list(delta, "tool_calls") {
				tc, _ := y.(*engine.Object)
				idx, ok := num(tc, "index")
				if !ok {
					idx = pos
				}
				slot := calls[idx]
				if slot == nil {
					slot = &wireCall{}
					calls[idx] = slot
				}
				piece := ToolCallChunk{Index: idx}
				if id := str(tc, "id"); id != "" && slot.ID == "" {
					slot.ID, piece.ID = id, id
				}
				fn := obj(tc, "function")
				if name := str(fn, "name"); name != "" && name != slot.Name {
					slot.Name += name
					piece.Name = name
				}
				if args := argumentsText(fn); args != "" {
					slot.Args += args
					piece.Args = args
				}
				if piece.ID != "" || piece.Name != "" || piece.Args != "" {
					emit.toolCall(piece)
				}
			}
		}
		return nil
	})
	if err != nil {
		return engine.Message{}, err
	}
	out := engine.Message{Type: engine.TypeAI, Content: engine.Text(content.String())}
	idxs := make([]int, 0, len(calls))
	for i := range calls {
		idxs = append(idxs, i)
	}
	sort.Ints(idxs)
	wires := make([]wireCall, len(idxs))
	for i, idx := range idxs {
		wires[i] = *calls[idx]
	}
	out.ToolCalls, out.InvalidToolCalls = finishCalls(str(top, "id"), wires)
	if reasoning.Len() > 0 {
		out.AdditionalKwargs = engine.NewObject("reasoning_content", reasoning.String())
	}
	if usage != nil {
		out.UsageMetadata = openaiUsage(usage)
	}
	out.ResponseMetadata = openaiMetadata(provider, top, finish)
	return out, nil
}
