package serve

import "net/http"

// Chat Completions answers, in the field order OpenAI sends them, with
// every field OpenAI's OpenAPI document requires (checked against it by
// TestAnswersMatchPublishedSpecs); optional fields serve has no value for
// are left out.

type oaFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type oaToolCall struct {
	Index    *int       `json:"index,omitempty"`
	ID       string     `json:"id,omitempty"`
	Type     string     `json:"type,omitempty"`
	Function oaFunction `json:"function"`
}

// oaMessage is a streamed delta. Content is absent (nil), a text
// (*string) or null ((*string)(nil)), as the first chunk of an answer
// that only calls tools has it.
type oaMessage struct {
	Role      string       `json:"role,omitempty"`
	Content   any          `json:"content,omitempty"`
	ToolCalls []oaToolCall `json:"tool_calls,omitempty"`
}

// oaFullMessage is a non-streamed message: content is always present
// (null when there is no text), refusal is null.
type oaFullMessage struct {
	Role      string       `json:"role"`
	Content   *string      `json:"content"`
	Refusal   *string      `json:"refusal"`
	ToolCalls []oaToolCall `json:"tool_calls,omitempty"`
}

// oaChoice is a chat.completion's choice: logprobs is null.
type oaChoice struct {
	Index        int            `json:"index"`
	Message      *oaFullMessage `json:"message"`
	Logprobs     *struct{}      `json:"logprobs"`
	FinishReason *string        `json:"finish_reason"`
}

// oaChunkChoice is a chat.completion.chunk's choice.
type oaChunkChoice struct {
	Index        int        `json:"index"`
	Delta        *oaMessage `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
}

type oaDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type oaUsage struct {
	PromptTokens        int        `json:"prompt_tokens"`
	CompletionTokens    int        `json:"completion_tokens"`
	TotalTokens         int        `json:"total_tokens"`
	PromptTokensDetails *oaDetails `json:"prompt_tokens_details,omitempty"`
}

type oaCompletion struct {
	ID      string     `json:"id"`
	Object  string     `json:"object"`
	Created int        `json:"created"`
	Model   string     `json:"model"`
	Choices []oaChoice `json:"choices"`
	Usage   *oaUsage   `json:"usage,omitempty"`
}

type oaChunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int             `json:"created"`
	Model   string          `json:"model"`
	Choices []oaChunkChoice `json:"choices"`
	Usage   *oaUsage        `json:"usage,omitempty"`
}

// answerChat writes t as a chat.completion, or as chat.completion.chunk
// events when the request asked for a stream, in the order OpenAI sends
// them: the role with content "" then the text in two pieces, or, for
// an answer that only calls tools, the role with content null and the
// first call; each tool call's index, id, type and name with arguments
// "", then its arguments in two pieces; the finish chunk (delta {}); the
// usage-only chunk (choices empty) when stream_options.include_usage
// asked for it; then "data: [DONE]".
func answerChat(w http.ResponseWriter, t Turn, model, id string, req *Request) {
	finish := "stop"
	if len(t.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	u := &oaUsage{PromptTokens: t.Usage.Input, CompletionTokens: t.Usage.Output, TotalTokens: t.Usage.Input + t.Usage.Output}
	if t.Usage.CacheRead > 0 {
		u.PromptTokensDetails = &oaDetails{CachedTokens: t.Usage.CacheRead}
	}
	if !req.Stream {
		msg := &oaFullMessage{Role: "assistant"}
		if t.Text != "" || len(t.ToolCalls) == 0 {
			msg.Content = &t.Text
		}
		for _, c := range t.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, oaToolCall{ID: c.ID, Type: "function", Function: oaFunction{Name: c.Name, Arguments: c.Args}})
		}
		writeJSON(w, http.StatusOK, oaCompletion{ID: id, Object: "chat.completion", Model: model,
			Choices: []oaChoice{{Message: msg, FinishReason: &finish}}, Usage: u})
		return
	}
	chunk := func(delta *oaMessage, finish *string) event {
		return event{data: oaChunk{ID: id, Object: "chat.completion.chunk", Model: model, Choices: []oaChunkChoice{{Delta: delta, FinishReason: finish}}}}
	}
	empty := ""
	var evs []event
	if t.Text != "" || len(t.ToolCalls) == 0 {
		evs = append(evs, chunk(&oaMessage{Role: "assistant", Content: &empty}, nil))
		for _, piece := range halves(t.Text) {
			if piece != "" {
				evs = append(evs, chunk(&oaMessage{Content: &piece}, nil))
			}
		}
	}
	for i, c := range t.ToolCalls {
		head := &oaMessage{ToolCalls: []oaToolCall{{Index: &i, ID: c.ID, Type: "function", Function: oaFunction{Name: c.Name}}}}
		if len(evs) == 0 {
			head.Role, head.Content = "assistant", (*string)(nil)
		}
		evs = append(evs, chunk(head, nil))
		for _, a := range halves(c.Args) {
			if a != "" {
				evs = append(evs, chunk(&oaMessage{ToolCalls: []oaToolCall{{Index: &i, Function: oaFunction{Arguments: a}}}}, nil))
			}
		}
	}
	evs = append(evs, chunk(&oaMessage{}, &finish))
	if req.IncludeUsage {
		evs = append(evs, event{data: oaChunk{ID: id, Object: "chat.completion.chunk", Model: model, Choices: []oaChunkChoice{}, Usage: u}})
	}
	evs = append(evs, event{data: "[DONE]"})
	writeEvents(w, evs)
}
