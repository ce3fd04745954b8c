package engine

import "strings"

// MessageRepr is Python's repr() of the langchain message m, as
// langchain-core 1.1 prints it: the class name and the fields that differ
// from their defaults, in field order —
//
//	HumanMessage(content='hi', additional_kwargs={}, response_metadata={}, id='...')
//	AIMessage(content='', additional_kwargs={}, response_metadata={}, id='ai1', tool_calls=[{'name': ..., 'type': 'tool_call'}])
//	ToolMessage(content='It is sunny.', name='get_weather', id='...', tool_call_id='c1')
//
// (a ToolMessage hides additional_kwargs and response_metadata).
func MessageRepr(m Message) string {
	var b strings.Builder
	class := map[MessageType]string{
		TypeHuman: "HumanMessage", TypeAI: "AIMessage", TypeTool: "ToolMessage",
		TypeSystem: "SystemMessage", TypeRemove: "RemoveMessage",
	}[m.Type]
	if class == "" {
		class = "ChatMessage"
	}
	b.WriteString(class)
	b.WriteByte('(')
	fields := []string{"content=" + PyRepr(m.Content.Value())}
	dict := func(o *Object) string {
		if o == nil {
			return "{}"
		}
		return PyRepr(o)
	}
	if m.Type != TypeTool {
		fields = append(fields, "additional_kwargs="+dict(m.AdditionalKwargs), "response_metadata="+dict(m.ResponseMetadata))
	}
	if m.Name != "" {
		fields = append(fields, "name="+PyStrRepr(m.Name))
	}
	if m.ID != "" {
		fields = append(fields, "id="+PyStrRepr(m.ID))
	}
	switch m.Type {
	case TypeAI:
		if len(m.ToolCalls) > 0 {
			fields = append(fields, "tool_calls="+ToolCallsRepr(m.ToolCalls))
		}
		if len(m.InvalidToolCalls) > 0 {
			list := make([]any, len(m.InvalidToolCalls))
			for i, tc := range m.InvalidToolCalls {
				o := tc.ToValue()
				o.Set("type", "invalid_tool_call")
				list[i] = o
			}
			fields = append(fields, "invalid_tool_calls="+PyRepr(list))
		}
		if m.UsageMetadata != nil {
			fields = append(fields, "usage_metadata="+PyRepr(m.UsageMetadata.ToValue()))
		}
	case TypeTool:
		fields = append(fields, "tool_call_id="+PyStrRepr(m.ToolCallID))
		if m.Artifact != nil {
			fields = append(fields, "artifact="+PyRepr(m.Artifact))
		}
		if m.Status == StatusError {
			fields = append(fields, "status='error'")
		}
	}
	b.WriteString(strings.Join(fields, ", "))
	b.WriteByte(')')
	return b.String()
}

// MessagesRepr is Python's repr() of a list of langchain messages.
func MessagesRepr(msgs []Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = MessageRepr(m)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// ToolCallsRepr is repr(message.tool_calls).
func ToolCallsRepr(calls []ToolCall) string {
	parts := make([]string, len(calls))
	for i, tc := range calls {
		parts[i] = tc.PyDictRepr()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
