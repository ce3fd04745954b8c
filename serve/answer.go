package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

// Answer reads the answer the exchange sent back into the AI message a
// provider SDK would have returned: its text, tool calls (arguments
// parsed; arguments that do not parse become invalid tool calls, as in
// engine/llm), usage and id, in any protocol, JSON or stream. It is how
// a run of an agent outside the engine is rebuilt from its traffic: the
// AI messages come from the answers, the tool results from the next
// request. An exchange that was refused, or answered with an error
// status, has no answer.
func (x Exchange) Answer() (engine.Message, error) {
	if x.Request == nil || x.Problem != "" {
		return engine.Message{}, fmt.Errorf("exchange %d was refused: %s", x.N, x.Problem)
	}
	if x.Status != 200 {
		return engine.Message{}, fmt.Errorf("exchange %d was answered with status %d", x.N, x.Status)
	}
	switch x.Request.Protocol {
	case OpenAIResponses:
		return parseResponsesAnswer(x.Response)
	case Gemini:
		return parseGeminiAnswer(x.Response)
	}
	m, err := llm.ParseRecordedResponse(x.Request.Path, x.Response)
	if err != nil {
		return engine.Message{}, fmt.Errorf("exchange %d: %w", x.N, err)
	}
	if m.ID == "" {
		m.ID = answerID(x.Response)
	}
	return m, nil
}

// answerID reads the response id of a Chat Completions or Messages
// answer: the object's "id", or in a stream the first chunk's "id"
// (Chat) or message_start's message.id (Messages).
func answerID(body []byte) string {
	type ids struct {
		ID      string `json:"id"`
		Message struct {
			ID string `json:"id"`
		} `json:"message"`
	}
	if !llm.IsEventStream(body) {
		var v ids
		json.Unmarshal(body, &v)
		return v.ID
	}
	for _, line := range bytes.Split(body, []byte("\n")) {
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		var v ids
		if json.Unmarshal(bytes.TrimSpace(data), &v) != nil {
			continue
		}
		if v.ID != "" {
			return v.ID
		}
		if v.Message.ID != "" {
			return v.Message.ID
		}
	}
	return ""
}

// parseResponsesAnswer reads a Responses answer, a response object or a
// stream whose response.completed event carries one.
func parseResponsesAnswer(body []byte) (engine.Message, error) {
	var r rsResponse
	if !llm.IsEventStream(body) {
		if err := json.Unmarshal(body, &r); err != nil {
			return engine.Message{}, fmt.Errorf("responses answer: %w", err)
		}
		return responsesMessage(r), nil
	}
	for _, line := range bytes.Split(body, []byte("\n")) {
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		var ev rsEvent
		if json.Unmarshal(bytes.TrimSpace(data), &ev) == nil && ev.Type == "response.completed" && ev.Response != nil {
			return responsesMessage(*ev.Response), nil
		}
	}
	return engine.Message{}, errors.New("responses stream: no response.completed event")
}

// responsesMessage turns a response object into an AI message.
func responsesMessage(r rsResponse) engine.Message {
	m := engine.Message{Type: engine.TypeAI, ID: r.ID, Content: engine.Text("")}
	text := ""
	for _, it := range r.Output {
		switch it.Type {
		case "message":
			if it.Content != nil {
				for _, c := range *it.Content {
					if c.Type == "output_text" {
						text += c.Text
					}
				}
			}
		case "function_call":
			args := ""
			if it.Arguments != nil {
				args = *it.Arguments
			}
			if args == "" {
				args = "{}"
			}
			parsed, err := llm.ParseToolArgs(it.Name, args)
			if err != nil {
				m.InvalidToolCalls = append(m.InvalidToolCalls, engine.InvalidToolCall{ID: it.CallID, Name: it.Name, Args: args, Error: err.Error()})
				continue
			}
			m.ToolCalls = append(m.ToolCalls, engine.ToolCall{ID: it.CallID, Name: it.Name, Args: parsed})
		}
	}
	m.Content = engine.Text(text)
	if u := r.Usage; u != nil {
		m.UsageMetadata = &engine.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
	}
	if r.Model != "" {
		m.ResponseMetadata = engine.NewObject("model_name", r.Model)
	}
	return m
}
