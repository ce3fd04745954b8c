package serve

import (
	"fmt"
	"net/http"
	"strings"
)

// OpenAI Responses answers: a response object with one message item
// (when the turn has text) and one function_call item per tool call,
// with every field OpenAI's OpenAPI document requires (checked against
// it by TestAnswersMatchPublishedSpecs).

// rsText is an output_text content part; annotations and logprobs are
// empty lists.
type rsText struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
	Logprobs    []any  `json:"logprobs"`
}

// rsItem is an output item: a message or a function call.
type rsItem struct {
	Type      string    `json:"type"`
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	Role      string    `json:"role,omitempty"`
	Content   *[]rsText `json:"content,omitempty"`
	CallID    string    `json:"call_id,omitempty"`
	Name      string    `json:"name,omitempty"`
	Arguments *string   `json:"arguments,omitempty"`
}

type rsUsage struct {
	InputTokens         int             `json:"input_tokens"`
	InputTokensDetails  rsInputDetails  `json:"input_tokens_details"`
	OutputTokens        int             `json:"output_tokens"`
	OutputTokensDetails rsOutputDetails `json:"output_tokens_details"`
	TotalTokens         int             `json:"total_tokens"`
}

type rsInputDetails struct {
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
}

type rsOutputDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// rsResponse is a response object. Metadata is {}, temperature and
// top_p null: the request's options are not echoed. Usage is left out
// of a response still in progress (response.created, .in_progress).
type rsResponse struct {
	ID                 string         `json:"id"`
	Object             string         `json:"object"`
	CreatedAt          int            `json:"created_at"`
	Status             string         `json:"status"`
	Error              any            `json:"error"`
	IncompleteDetails  any            `json:"incomplete_details"`
	Instructions       any            `json:"instructions"`
	Metadata           map[string]any `json:"metadata"`
	Model              string         `json:"model"`
	Output             []rsItem       `json:"output"`
	ParallelToolCalls  bool           `json:"parallel_tool_calls"`
	PreviousResponseID *string        `json:"previous_response_id"`
	Temperature        *float64       `json:"temperature"`
	ToolChoice         string         `json:"tool_choice"`
	Tools              []any          `json:"tools"`
	TopP               *float64       `json:"top_p"`
	Usage              *rsUsage       `json:"usage,omitempty"`
}

// rsEvent is one streamed event; which fields are set depends on Type.
type rsEvent struct {
	Type           string      `json:"type"`
	SequenceNumber int         `json:"sequence_number"`
	Response       *rsResponse `json:"response,omitempty"`
	OutputIndex    *int        `json:"output_index,omitempty"`
	ItemID         string      `json:"item_id,omitempty"`
	ContentIndex   *int        `json:"content_index,omitempty"`
	Item           *rsItem     `json:"item,omitempty"`
	Part           *rsText     `json:"part,omitempty"`
	Delta          *string     `json:"delta,omitempty"`
	Text           *string     `json:"text,omitempty"`
	Name           string      `json:"name,omitempty"`
	Arguments      *string     `json:"arguments,omitempty"`
	Logprobs       *[]any      `json:"logprobs,omitempty"`
}

// responseItems returns the output items of t under response number n:
// the message item "msg_<n>" and function_call items "fc_<call id>" (the
// calls have their ids: see withCallIDs). An answer with neither text
// nor calls has no items: an empty list, never null.
func responseItems(t Turn, n int) []rsItem {
	items := []rsItem{}
	if t.Text != "" {
		content := []rsText{{Type: "output_text", Text: t.Text, Annotations: []any{}, Logprobs: []any{}}}
		items = append(items, rsItem{Type: "message", ID: fmt.Sprintf("msg_%d", n), Status: "completed", Role: "assistant", Content: &content})
	}
	for _, c := range t.ToolCalls {
		id := c.ID
		args := c.Args
		items = append(items, rsItem{Type: "function_call", ID: "fc_" + strings.TrimPrefix(id, "call_"), Status: "completed", CallID: id, Name: c.Name, Arguments: &args})
	}
	return items
}

// answerResponses writes t as a response object, or as the Responses
// event stream: response.created, response.in_progress, then per item
// output_item.added, (content_part.added, output_text.delta ×2,
// output_text.done, content_part.done | function_call_arguments.delta
// ×2, function_call_arguments.done), output_item.done, and
// response.completed with the whole response.
func answerResponses(w http.ResponseWriter, t Turn, model, id string, n int, req *Request) {
	items := responseItems(t, n)
	var prev *string
	if req.PreviousResponseID != "" {
		prev = &req.PreviousResponseID
	}
	full := &rsResponse{ID: id, Object: "response", Status: "completed", Metadata: map[string]any{}, Model: model, Output: items,
		ParallelToolCalls: true, PreviousResponseID: prev, ToolChoice: "auto", Tools: []any{},
		Usage: &rsUsage{InputTokens: t.Usage.Input, InputTokensDetails: rsInputDetails{CachedTokens: t.Usage.CacheRead},
			OutputTokens: t.Usage.Output,
			TotalTokens:  t.Usage.Input + t.Usage.Output}}
	if req.Instructions != "" {
		full.Instructions = req.Instructions
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, full)
		return
	}
	var evs []event
	seq := 0
	emit := func(e rsEvent) {
		e.SequenceNumber = seq
		seq++
		evs = append(evs, event{e.Type, e})
	}
	pending := *full
	pending.Status, pending.Output, pending.Usage = "in_progress", []rsItem{}, nil
	emit(rsEvent{Type: "response.created", Response: &pending})
	emit(rsEvent{Type: "response.in_progress", Response: &pending})
	zero := 0
	for i, it := range items {
		oi := i
		added := it
		added.Status = "in_progress"
		switch it.Type {
		case "message":
			none := []rsText{}
			added.Content = &none
			emit(rsEvent{Type: "response.output_item.added", OutputIndex: &oi, Item: &added})
			emit(rsEvent{Type: "response.content_part.added", ItemID: it.ID, OutputIndex: &oi, ContentIndex: &zero, Part: &rsText{Type: "output_text", Text: "", Annotations: []any{}, Logprobs: []any{}}})
			for _, p := range halves(t.Text) {
				emit(rsEvent{Type: "response.output_text.delta", ItemID: it.ID, OutputIndex: &oi, ContentIndex: &zero, Delta: &p, Logprobs: &[]any{}})
			}
			emit(rsEvent{Type: "response.output_text.done", ItemID: it.ID, OutputIndex: &oi, ContentIndex: &zero, Text: &t.Text, Logprobs: &[]any{}})
			part := (*it.Content)[0]
			emit(rsEvent{Type: "response.content_part.done", ItemID: it.ID, OutputIndex: &oi, ContentIndex: &zero, Part: &part})
		case "function_call":
			empty := ""
			added.Arguments = &empty
			emit(rsEvent{Type: "response.output_item.added", OutputIndex: &oi, Item: &added})
			for _, p := range halves(*it.Arguments) {
				emit(rsEvent{Type: "response.function_call_arguments.delta", ItemID: it.ID, OutputIndex: &oi, Delta: &p})
			}
			emit(rsEvent{Type: "response.function_call_arguments.done", ItemID: it.ID, OutputIndex: &oi, Name: it.Name, Arguments: it.Arguments})
		}
		done := it
		emit(rsEvent{Type: "response.output_item.done", OutputIndex: &oi, Item: &done})
	}
	emit(rsEvent{Type: "response.completed", Response: full})
	writeEvents(w, evs)
}
