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

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/agenteval/agenteval/engine"
)

// DefaultAnthropicMaxTokens is the max_tokens sent when neither the
// config nor the request sets one (the Messages API requires it).
const DefaultAnthropicMaxTokens = 1024

// AnthropicConfig configures an Anthropic Messages model. Every field but
// Model has a usable zero value.
type AnthropicConfig struct {
	// Model is the model id ("claude-sonnet-4-5").
	Model string
	// APIKey is sent as x-api-key; empty sends none (enough for replay).
	APIKey string
	// BaseURL is the API root without /v1; empty means
	// https://api.anthropic.com.
	BaseURL string
	// HTTPClient carries the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// MaxRetries is how often the SDK retries; zero never retries (what
	// replay needs).
	MaxRetries int
	// MaxTokens is sent when a request has no "max_tokens" option; 0
	// means DefaultAnthropicMaxTokens.
	MaxTokens int
	// Stream asks for server-sent events; a request option "stream"
	// overrides it per call.
	Stream bool
	// OnChunk receives the pieces of streamed answers.
	OnChunk ChunkFunc
	// MaxResponseBytes bounds an answer's body, whole or streamed: a
	// longer one fails the call naming the limit. 0 means
	// MaxResponseBodyBytes (64 MiB).
	MaxResponseBytes int64
}

// Validate reports what is wrong with the config.
func (c AnthropicConfig) Validate() error {
	var errs []error
	if c.Model == "" {
		errs = append(errs, errors.New("anthropic: Model is required"))
	}
	if c.MaxRetries < 0 {
		errs = append(errs, fmt.Errorf("anthropic: MaxRetries %d is negative", c.MaxRetries))
	}
	if c.MaxTokens < 0 {
		errs = append(errs, fmt.Errorf("anthropic: MaxTokens %d is negative", c.MaxTokens))
	}
	if c.MaxResponseBytes < 0 {
		errs = append(errs, fmt.Errorf("anthropic: MaxResponseBytes %d is negative", c.MaxResponseBytes))
	}
	return errors.Join(errs...)
}

// Anthropic is a chat model speaking the Anthropic Messages API through
// the official Go SDK (anthropic-sdk-go). It is safe for concurrent use.
//
// Requests follow langchain-anthropic's _format_messages: leading system
// messages become "system" (a string, or text blocks); AI messages become
// assistant turns whose tool calls are tool_use blocks; tool messages
// become tool_result blocks in a user turn (is_error: true for a tool
// message with status "error"); consecutive turns of one role are merged,
// so parallel tool results travel in one user message. tool_choice "any"
// and "required" are {"type": "any"}, a tool name is {"type": "tool"},
// and ParallelToolCalls false sets disable_parallel_tool_use. Answers
// keep langchain-anthropic's content shape: a lone text block becomes
// string content, anything with tool_use stays a list of blocks, and
// tool_use blocks become tool calls. Usage adds the cache reads and
// writes to input_tokens, as LangChain does, and keeps them as details.
type Anthropic struct {
	cfg  AnthropicConfig
	name string
	svc  anthropic.MessageService
}

// NewAnthropic returns a Messages model.
func NewAnthropic(cfg AnthropicConfig) (*Anthropic, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultAnthropicMaxTokens
	}
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(client),
		option.WithMaxRetries(cfg.MaxRetries),
		option.WithEnvironmentProduction(),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	// NewMessageService, not anthropic.NewClient: the client would read
	// ANTHROPIC_* variables and profile files on its own.
	return &Anthropic{cfg: cfg, name: ProviderAnthropic + ":" + cfg.Model, svc: anthropic.NewMessageService(opts...)}, nil
}

// Name returns "anthropic:model".
func (m *Anthropic) Name() string { return m.name }

// ModelName returns the model id sent to the server (ChatAnthropic's
// model): create_agent reads it to choose the structured-output
// strategy, and the "messages" stream mode reports it as ls_model_name.
func (m *Anthropic) ModelName() string { return m.cfg.Model }

// ModelProvider returns "anthropic", ChatAnthropic's ls_provider.
func (m *Anthropic) ModelProvider() string { return "anthropic" }

// GenerateStream implements engine.StreamingChatModel: the request is
// streamed whatever the config says (as LangChain's models stream under a
// "messages" stream mode), each piece of text is a chunk as it arrives,
// and a last chunk carries the tool calls, usage and metadata.
func (m *Anthropic) GenerateStream(ctx context.Context, req engine.ModelRequest, onChunk func(engine.Message) error) (engine.Message, error) {
	return streamAnswer(ctx, req, onChunk, m.Generate)
}

// Generate sends the request and returns the answer as one AI message.
func (m *Anthropic) Generate(ctx context.Context, req engine.ModelRequest) (engine.Message, error) {
	params, opts, stream, err := m.request(req)
	if err != nil {
		return engine.Message{}, fmt.Errorf("model %q: %w", m.name, err)
	}
	var raw *http.Response
	if stream {
		s := m.svc.NewStreaming(ctx, params, append(opts, option.WithResponseInto(&raw))...)
		if err := s.Err(); err != nil {
			return engine.Message{}, m.transportError(err)
		}
		defer raw.Body.Close()
		msg, err := parseAnthropicStream(limitBody(raw.Body, responseLimit(m.cfg.MaxResponseBytes), "the stream"), newEmitter(ctx, m.name, m.cfg.OnChunk))
		if err != nil {
			return engine.Message{}, fmt.Errorf("model %q: %w", m.name, err)
		}
		return msg, nil
	}
	if _, err := m.svc.New(ctx, params, append(opts, option.WithResponseBodyInto(&raw))...); err != nil {
		return engine.Message{}, m.transportError(err)
	}
	defer raw.Body.Close()
	body, err := io.ReadAll(limitBody(raw.Body, responseLimit(m.cfg.MaxResponseBytes), "the response"))
	if err != nil {
		return engine.Message{}, fmt.Errorf("model %q: read response: %w", m.name, err)
	}
	msg, err := ParseAnthropicResponse(body)
	if err != nil {
		return engine.Message{}, fmt.Errorf("model %q: %w", m.name, err)
	}
	return msg, nil
}

func (m *Anthropic) transportError(err error) error {
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		return newAPIError(ProviderAnthropic, m.name, apiErr.Response)
	}
	return fmt.Errorf("model %q: %w", m.name, err)
}

// request builds the SDK parameters for req.
func (m *Anthropic) request(req engine.ModelRequest) (anthropic.MessageNewParams, []option.RequestOption, bool, error) {
	p := anthropic.MessageNewParams{Model: anthropic.Model(m.cfg.Model), MaxTokens: int64(m.cfg.MaxTokens)}
	if req.ResponseFormat != nil {
		return p, nil, false, errors.New("response_format is not supported by the Anthropic Messages API; use a structured-output tool")
	}
	system, msgs, err := anthropicMessages(req.Messages.Slice())
	if err != nil {
		return p, nil, false, err
	}
	p.Messages = msgs
	for _, t := range req.Tools {
		if t.Provider != nil {
			tool, err := anthropicProviderTool(t.Provider)
			if err != nil {
				return p, nil, false, fmt.Errorf("tool %q: %w", t.Name, err)
			}
			raw, err := engine.MarshalValue(tool)
			if err != nil {
				return p, nil, false, fmt.Errorf("tool %q: %w", t.Name, err)
			}
			p.Tools = append(p.Tools, param.Override[anthropic.ToolUnionParam](json.RawMessage(raw)))
			continue
		}
		schema, _ := t.ToValue().Get("parameters")
		raw, err := engine.MarshalValue(schema)
		if err != nil {
			return p, nil, false, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		tp := &anthropic.ToolParam{Name: t.Name, InputSchema: param.Override[anthropic.ToolInputSchemaParam](json.RawMessage(raw))}
		if t.Description != "" {
			tp.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: tp})
	}
	disableParallel := param.Opt[bool]{}
	if req.ParallelToolCalls != nil && !*req.ParallelToolCalls {
		disableParallel = param.NewOpt(true)
	}
	switch req.ToolChoice {
	case "":
		if disableParallel.Valid() {
			p.ToolChoice = anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: disableParallel}}
		}
	case "auto":
		p.ToolChoice = anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: disableParallel}}
	case "any", "required":
		p.ToolChoice = anthropic.ToolChoiceUnionParam{OfAny: &anthropic.ToolChoiceAnyParam{DisableParallelToolUse: disableParallel}}
	case "none":
		p.ToolChoice = anthropic.ToolChoiceUnionParam{OfNone: &anthropic.ToolChoiceNoneParam{}}
	default:
		p.ToolChoice = anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{Name: req.ToolChoice, DisableParallelToolUse: disableParallel}}
	}
	options := req.Options
	if v, ok := options.Get("max_tokens"); ok {
		n, ok := v.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil || i <= 0 {
			return p, nil, false, fmt.Errorf("option max_tokens must be a positive integer, got %v", v)
		}
		p.MaxTokens = i
		options = options.Clone()
		options.Delete("max_tokens")
	}
	fields, stream, err := requestFields(options, m.cfg.Stream, "messages", "model", "tools", "tool_choice", "system")
	if err != nil {
		return p, nil, false, err
	}
	var opts []option.RequestOption
	if system != nil {
		opts = append(opts, option.WithJSONSet("system", json.RawMessage(mustMarshal(system))))
	}
	for _, f := range fields {
		opts = append(opts, option.WithJSONSet(f.key, f.raw))
	}
	return p, opts, stream, nil
}

func mustMarshal(v any) []byte {
	b, err := engine.MarshalValue(v)
	if err != nil {
		panic(err) // values built here are always encodable
	}
	return b
}

// anthropicTurn is one message of the Messages API under construction.
type anthropicTurn struct {
	role    string
	content any // string or []any of blocks
}

// anthropicMessages converts messages as langchain-anthropic's
// _format_messages does, returning the system prompt (nil, a string or a
// list of blocks) and the turns.
func anthropicMessages(msgs []engine.Message) (any, []anthropic.MessageParam, error) {
	var system any
	var turns []anthropicTurn
	add := func(role string, content any) {
		if n := len(turns); n > 0 && turns[n-1].role == role {
			turns[n-1].content = append(asBlocks(turns[n-1].content), asBlocks(content)...)
			return
		}
		turns = append(turns, anthropicTurn{role: role, content: content})
	}
	for i, m := range msgs {
		switch m.Type {
		case engine.TypeSystem:
			if len(turns) > 0 {
				return nil, nil, fmt.Errorf("messages[%d]: a system message after the conversation started: Anthropic takes the system prompt only at the start", i)
			}
			if system == nil && !m.Content.IsList() {
				system = m.Content.String()
			} else {
				system = append(asBlocks(system), asBlocks(m.Content.Value())...)
			}
		case engine.TypeHuman:
			add("user", m.Content.Value())
		case engine.TypeTool:
			block := engine.NewObject("type", "tool_result", "content", m.Content.Value(), "tool_use_id", m.ToolCallID)
			if m.Status == engine.StatusError {
				block.Set("is_error", true)
			}
			add("user", []any{block})
		case engine.TypeAI:
			add("assistant", assistantContent(m))
		default:
			return nil, nil, fmt.Errorf("messages[%d]: a %q message cannot be sent to a model", i, m.Type)
		}
	}
	out := make([]anthropic.MessageParam, len(turns))
	for i, t := range turns {
		raw, err := engine.MarshalValue(engine.NewObject("role", t.role, "content", t.content))
		if err != nil {
			return nil, nil, fmt.Errorf("messages: %w", err)
		}
		out[i] = param.Override[anthropic.MessageParam](json.RawMessage(raw))
	}
	return system, out, nil
}

// assistantContent is an AI message's content for the Messages API: a
// string when it has no tool calls, else its blocks (empty text and old
// tool_use blocks dropped) followed by one tool_use block per tool call.
// Invalid tool calls are left out: tool_use needs an input object.
func assistantContent(m engine.Message) any {
	if len(m.ToolCalls) == 0 && !m.Content.IsList() {
		return m.Content.String()
	}
	var blocks []any
	if m.Content.IsList() {
		for _, b := range m.Content.Blocks() {
			if o, ok := b.(*engine.Object); ok {
				switch str(o, "type") {
				case "tool_use", "tool_call":
					continue
				case "text":
					if str(o, "text") == "" {
						continue
					}
				}
			}
			if s, ok := b.(string); ok {
				if s == "" {
					continue
				}
				b = engine.NewObject("type", "text", "text", s)
			}
			blocks = append(blocks, b)
		}
	} else if s := m.Content.String(); s != "" {
		blocks = append(blocks, engine.NewObject("type", "text", "text", s))
	}
	for _, tc := range m.ToolCalls {
		blocks = append(blocks, engine.NewObject("type", "tool_use", "id", tc.ID, "name", tc.Name, "input", argsOrEmpty(tc.Args)))
	}
	if blocks == nil {
		blocks = []any{}
	}
	return blocks
}

// asBlocks turns content (nil, a string or a list) into a list of blocks.
func asBlocks(c any) []any {
	switch t := c.(type) {
	case nil:
		return nil
	case string:
		if t == "" {
			return nil
		}
		return []any{engine.NewObject("type", "text", "text", t)}
	case []any:
		return append([]any(nil), t...)
	}
	return []any{c}
}

// ParseAnthropicResponse reads a (non-streamed) Messages response body
// into an AI message.
func ParseAnthropicResponse(body []byte) (engine.Message, error) {
	v, err := engine.DecodeJSON(body)
	if err != nil {
		return engine.Message{}, fmt.Errorf("response is not JSON: %w", err)
	}
	o, ok := v.(*engine.Object)
	if !ok {
		return engine.Message{}, errors.New("response is not a JSON object")
	}
	if str(o, "type") == "error" {
		e := obj(o, "error")
		return engine.Message{}, fmt.Errorf("response holds an error: %s: %s", str(e, "type"), str(e, "message"))
	}
	var blocks []*engine.Object
	for _, b := range list(o, "content") {
		if bo, ok := b.(*engine.Object); ok {
			blocks = append(blocks, bo)
		}
	}
	return anthropicMessage(o, blocks, nil), nil
}

// anthropicMessage builds the AI message from the response object (id,
// model, stop_reason, usage) and its content blocks. badInput holds, by
// block, tool inputs that did not parse (streams only).
func anthropicMessage(o *engine.Object, blocks []*engine.Object, badInput map[*engine.Object]string) engine.Message {
	out := engine.Message{Type: engine.TypeAI}
	var wires []wireCall
	content := make([]any, 0, len(blocks))
	hasToolUse := false
	for _, b := range blocks {
		if c, ok := b.Get("citations"); ok && c == nil {
			b = b.Clone()
			b.Delete("citations")
		}
		content = append(content, b)
		if str(b, "type") != "tool_use" {
			continue
		}
		hasToolUse = true
		if raw, bad := badInput[b]; bad {
			wires = append(wires, wireCall{ID: str(b, "id"), Name: str(b, "name"), Args: raw})
			continue
		}
		in, _ := b.Get("input")
		args := "{}"
		if in != nil {
			args = string(mustMarshal(in))
		}
		wires = append(wires, wireCall{ID: str(b, "id"), Name: str(b, "name"), Args: args})
	}
	switch {
	case len(content) == 1 && str(content[0].(*engine.Object), "type") == "text" && !content[0].(*engine.Object).Has("citations"):
		out.Content = engine.Text(str(content[0].(*engine.Object), "text"))
	case len(content) == 0:
		out.Content = engine.Text("")
	default:
		out.Content = engine.Blocks(content...)
	}
	if hasToolUse {
		out.ToolCalls, out.InvalidToolCalls = finishCalls(str(o, "id"), wires)
	}
	if u := obj(o, "usage"); u != nil {
		out.UsageMetadata = anthropicUsage(u)
	}
	md := engine.NewObject("model_provider", ProviderAnthropic)
	if s := str(o, "id"); s != "" {
		md.Set("id", s)
	}
	if s := str(o, "model"); s != "" {
		md.Set("model_name", s)
	}
	if s := str(o, "stop_reason"); s != "" {
		md.Set("stop_reason", s)
	}
	if s := str(o, "stop_sequence"); s != "" {
		md.Set("stop_sequence", s)
	}
	out.ResponseMetadata = md
	return out
}

// anthropicUsage maps usage as langchain-anthropic's
// _create_usage_metadata does: input_tokens counts the cache reads and
// writes too (Anthropic's own input_tokens leaves them out), and the
// details keep cache_read, cache_creation and the cache TTL split.
func anthropicUsage(u *engine.Object) *engine.Usage {
	in, _ := num(u, "input_tokens")
	outT, _ := num(u, "output_tokens")
	details := &engine.Object{}
	for _, k := range [][2]string{{"cache_read", "cache_read_input_tokens"}, {"cache_creation", "cache_creation_input_tokens"}} {
		if n, ok := num(u, k[1]); ok {
			details.Set(k[0], engineInt(n))
			in += n
		}
	}
	if cc := obj(u, "cache_creation"); cc != nil {
		for _, k := range []string{"ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"} {
			if n, ok := num(cc, k); ok {
				details.Set(k, engineInt(n))
			}
		}
	}
	usage := &engine.Usage{InputTokens: in, OutputTokens: outT, TotalTokens: in + outT}
	if details.Len() > 0 {
		usage.InputTokenDetails = details
	}
	return usage
}

func engineInt(n int) json.Number { return json.Number(fmt.Sprint(n)) }

// parseAnthropicStream assembles a Messages event stream (message_start,
// content_block_start/delta/stop, message_delta, message_stop, ping,
// error) into one AI message, reporting chunks as they come.
func parseAnthropicStream(r io.Reader, emit emitter) (engine.Message, error) {
	msg := &engine.Object{}
	usage := &engine.Object{}
	blocks := map[int]*engine.Object{}
	partial := map[int]*strings.Builder{}
	badInput := map[*engine.Object]string{}
	err := readSSE(r, func(ev sseEvent) error {
		data := strings.TrimSpace(ev.Data)
		if data == "" {
			return nil
		}
		v, err := engine.DecodeJSON([]byte(data))
		if err != nil {
			return fmt.Errorf("stream event %q is not JSON: %w", ev.Type, err)
		}
		o, ok := v.(*engine.Object)
		if !ok {
			return nil
		}
		typ := str(o, "type")
		if typ == "" {
			typ = ev.Type
		}
		idx, _ := num(o, "index")
		switch typ {
		case "error":
			e := obj(o, "error")
			return fmt.Errorf("stream error: %s: %s", str(e, "type"), str(e, "message"))
		case "message_start":
			m := obj(o, "message")
			for _, k := range []string{"id", "model"} {
				if s := str(m, k); s != "" {
					msg.Set(k, s)
				}
			}
			mergeInto(usage, obj(m, "usage"))
		case "content_block_start":
			b := obj(o, "content_block").Clone()
			if b == nil {
				b = &engine.Object{}
			}
			blocks[idx] = b
			if str(b, "type") == "tool_use" {
				partial[idx] = &strings.Builder{}
				emit.toolCall(ToolCallChunk{Index: idx, ID: str(b, "id"), Name: str(b, "name")})
			} else if s := str(b, "text"); s != "" {
				emit.text(s)
			}
		case "content_block_delta":
			b := blocks[idx]
			if b == nil {
				return fmt.Errorf("stream: content_block_delta for block %d before its content_block_start", idx)
			}
			d := obj(o, "delta")
			switch str(d, "type") {
			case "text_delta":
				b.Set("text", str(b, "text")+str(d, "text"))
				emit.text(str(d, "text"))
			case "input_json_delta":
				if pb := partial[idx]; pb != nil {
					pb.WriteString(str(d, "partial_json"))
				}
				if s := str(d, "partial_json"); s != "" {
					emit.toolCall(ToolCallChunk{Index: idx, Args: s})
				}
			case "thinking_delta":
				b.Set("thinking", str(b, "thinking")+str(d, "thinking"))
			case "signature_delta":
				b.Set("signature", str(b, "signature")+str(d, "signature"))
			}
		case "content_block_stop":
			b, pb := blocks[idx], partial[idx]
			if b != nil && pb != nil {
				raw := pb.String()
				if strings.TrimSpace(raw) != "" {
					args, err := ParseToolArgs(str(b, "name"), raw)
					if err != nil {
						badInput[b] = raw
					} else {
						b.Set("input", args)
					}
				}
				delete(partial, idx)
			}
		case "message_delta":
			d := obj(o, "delta")
			for _, k := range []string{"stop_reason", "stop_sequence"} {
				if s := str(d, k); s != "" {
					msg.Set(k, s)
				}
			}
			mergeInto(usage, obj(o, "usage"))
		}
		return nil
	})
	if err != nil {
		return engine.Message{}, err
	}
	// A block still open at the end of the stream keeps what arrived.
	for idx, pb := range partial {
		if b := blocks[idx]; b != nil && strings.TrimSpace(pb.String()) != "" {
			if args, err := ParseToolArgs(str(b, "name"), pb.String()); err == nil {
				b.Set("input", args)
			} else {
				badInput[b] = pb.String()
			}
		}
	}
	idxs := make([]int, 0, len(blocks))
	for i := range blocks {
		idxs = append(idxs, i)
	}
	sort.Ints(idxs)
	ordered := make([]*engine.Object, len(idxs))
	for i, idx := range idxs {
		ordered[i] = blocks[idx]
	}
	if usage.Len() > 0 {
		msg.Set("usage", usage)
	}
	return anthropicMessage(msg, ordered, badInput), nil
}

// mergeInto copies src's members into dst, later values winning.
func mergeInto(dst, src *engine.Object) {
	for _, k := range src.Keys() {
		v, _ := src.Get(k)
		if v != nil {
			dst.Set(k, v)
		}
	}
}
