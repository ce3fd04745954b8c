package serve

import (
	"encoding/json"
	"net/http"
)

// Anthropic Messages answers, with every field Anthropic's official SDK
// types require (checked against them by TestAnswersMatchPublishedSpecs):
// the fields serve has no value for (container, stop_details, the cache
// creation and server tool counts, service tier) are null.

// anBlock is a content block: a text block (citations null: a pointer
// to a nil list, new([]any)) or a tool_use block (caller "direct", the
// model itself).
type anBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Citations *[]any          `json:"citations,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	Caller    *anCaller       `json:"caller,omitempty"`
}

type anCaller struct {
	Type string `json:"type"`
}

// anUsage is a message's usage. The cache counts are null when there
// are none: langchain-anthropic reads a number there, 0 included, into
// input_token_details.
type anUsage struct {
	InputTokens              int  `json:"input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreation            *any `json:"cache_creation"`
	OutputTokens             int  `json:"output_tokens"`
	OutputTokensDetails      *any `json:"output_tokens_details"`
	ServerToolUse            *any `json:"server_tool_use"`
	ServiceTier              *any `json:"service_tier"`
	InferenceGeo             *any `json:"inference_geo"`
}

type anMessage struct {
	ID           string    `json:"id"`
	Type         string    `json:"type"`
	Role         string    `json:"role"`
	Model        string    `json:"model"`
	Content      []anBlock `json:"content"`
	StopReason   *string   `json:"stop_reason"`
	StopSequence *string   `json:"stop_sequence"`
	StopDetails  *any      `json:"stop_details"`
	Usage        anUsage   `json:"usage"`
	Container    *any      `json:"container"`
}

// anDelta is a content block's delta (text_delta, input_json_delta).
type anDelta struct {
	Type        string  `json:"type"`
	Text        *string `json:"text,omitempty"`
	PartialJSON *string `json:"partial_json,omitempty"`
}

// anMessageDelta is message_delta's delta: the stop reason, the rest
// null.
type anMessageDelta struct {
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	StopDetails  *any    `json:"stop_details"`
	Container    *any    `json:"container"`
}

type anEvent struct {
	Type         string     `json:"type"`
	Message      *anMessage `json:"message,omitempty"`
	Index        *int       `json:"index,omitempty"`
	ContentBlock *anBlock   `json:"content_block,omitempty"`
	Delta        any        `json:"delta,omitempty"`
	Usage        any        `json:"usage,omitempty"`
}

// anDeltaUsage is message_delta's usage: the final output tokens; the
// cumulative input counts, already in message_start, are null.
type anDeltaUsage struct {
	InputTokens              *int `json:"input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	OutputTokens             int  `json:"output_tokens"`
	OutputTokensDetails      *any `json:"output_tokens_details"`
	ServerToolUse            *any `json:"server_tool_use"`
}

// input is a tool call's arguments as an input object: "" is {}, text
// that is not JSON is sent as a JSON string (which a client must reject).
func input(args string) json.RawMessage {
	if args == "" {
		return json.RawMessage(`{}`)
	}
	if !json.Valid([]byte(args)) {
		b, _ := json.Marshal(args)
		return b
	}
	return json.RawMessage(args)
}

// answerMessages writes t as a message object, or as the Messages event
// stream when the request asked for one, in the order Anthropic sends
// it: message_start; per block content_block_start, content_block_delta
// (text_delta in two pieces; input_json_delta "" then the input in two
// pieces), content_block_stop, with a ping after the first block's
// start; message_delta with the stop reason and output tokens;
// message_stop.
func answerMessages(w http.ResponseWriter, t Turn, model, id string, req *Request) {
	stop := "end_turn"
	if len(t.ToolCalls) > 0 {
		stop = "tool_use"
	}
	usage := anUsage{InputTokens: t.Usage.Input, OutputTokens: t.Usage.Output}
	if t.Usage.CacheRead > 0 {
		usage.CacheReadInputTokens = &t.Usage.CacheRead
	}
	if !req.Stream {
		msg := anMessage{ID: id, Type: "message", Role: "assistant", Model: model, Content: []anBlock{}, StopReason: &stop, Usage: usage}
		if t.Text != "" {
			text := t.Text
			msg.Content = append(msg.Content, anBlock{Type: "text", Text: &text, Citations: new([]any)})
		}
		for _, c := range t.ToolCalls {
			msg.Content = append(msg.Content, anBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input(c.Args), Caller: &anCaller{Type: "direct"}})
		}
		writeJSON(w, http.StatusOK, msg)
		return
	}
	startUsage := usage
	startUsage.OutputTokens = 1
	start := anMessage{ID: id, Type: "message", Role: "assistant", Model: model, Content: []anBlock{}, Usage: startUsage}
	ping := event{"ping", anEvent{Type: "ping"}}
	evs := []event{{"message_start", anEvent{Type: "message_start", Message: &start}}}
	index := 0
	block := func(b anBlock, deltas []anDelta) {
		i := index
		evs = append(evs, event{"content_block_start", anEvent{Type: "content_block_start", Index: &i, ContentBlock: &b}})
		if i == 0 {
			evs = append(evs, ping)
		}
		for _, d := range deltas {
			evs = append(evs, event{"content_block_delta", anEvent{Type: "content_block_delta", Index: &i, Delta: &d}})
		}
		evs = append(evs, event{"content_block_stop", anEvent{Type: "content_block_stop", Index: &i}})
		index++
	}
	if t.Text != "" {
		empty := ""
		var ds []anDelta
		for _, p := range halves(t.Text) {
			ds = append(ds, anDelta{Type: "text_delta", Text: &p})
		}
		block(anBlock{Type: "text", Text: &empty, Citations: new([]any)}, ds)
	}
	for _, c := range t.ToolCalls {
		none := ""
		ds := []anDelta{{Type: "input_json_delta", PartialJSON: &none}}
		args := c.Args
		if args == "" {
			args = "{}"
		}
		for _, p := range halves(args) {
			ds = append(ds, anDelta{Type: "input_json_delta", PartialJSON: &p})
		}
		block(anBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: json.RawMessage(`{}`), Caller: &anCaller{Type: "direct"}}, ds)
	}
	if index == 0 {
		evs = append(evs, ping)
	}
	evs = append(evs,
		event{"message_delta", anEvent{Type: "message_delta", Delta: &anMessageDelta{StopReason: stop}, Usage: &anDeltaUsage{OutputTokens: usage.OutputTokens}}},
		event{"message_stop", anEvent{Type: "message_stop"}})
	writeEvents(w, evs)
}
