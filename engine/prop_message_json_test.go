package engine

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// drawMessage draws a message of any type with any of its fields set:
// every key ToValue may write, strings that need escaping, argument and
// metadata values the JSON writer refuses.
func drawMessage(t *rapid.T) Message {
	text := rapid.SampledFrom([]string{"", "q", "héllo \"world\"\n", "a\\b", "\u2028", "\x00", "ok"})
	val := func(label string) any {
		switch rapid.IntRange(0, 5).Draw(t, label) {
		case 0:
			return nil
		case 1:
			return rapid.IntRange(-3, 300).Draw(t, label+" int")
		case 2:
			return text.Draw(t, label+" text")
		case 3:
			return NewObject("k", text.Draw(t, label+" text"), "n", 1.5)
		case 4:
			return []any{true, json.Number("12")}
		default:
			return json.Number("1e") // the writer refuses it
		}
	}
	obj := func(label string) *Object {
		if !rapid.Bool().Draw(t, label) {
			return nil
		}
		o := &Object{}
		for range rapid.IntRange(0, 2).Draw(t, label+" keys") {
			o.Set(text.Draw(t, label+" key"), val(label+" value"))
		}
		return o
	}
	m := Message{
		Type: rapid.SampledFrom([]MessageType{TypeHuman, TypeAI, TypeTool, TypeSystem, TypeRemove, "custom"}).Draw(t, "type"),
		Name: text.Draw(t, "name"),
		ID:   text.Draw(t, "id"),
	}
	if rapid.Bool().Draw(t, "list content") {
		var blocks []any
		for range rapid.IntRange(0, 2).Draw(t, "blocks") {
			blocks = append(blocks, NewObject("type", "text", "text", text.Draw(t, "block text")))
		}
		m.Content = Content{blocks: blocks, isList: true}
	} else {
		m.Content = Text(text.Draw(t, "content"))
	}
	if rapid.Bool().Draw(t, "has calls") {
		m.ToolCalls = []ToolCall{}
		for range rapid.IntRange(0, 3).Draw(t, "calls") {
			m.ToolCalls = append(m.ToolCalls, ToolCall{Name: text.Draw(t, "call name"), Args: obj("args"), ID: text.Draw(t, "call id")})
		}
	}
	for range rapid.IntRange(0, 2).Draw(t, "invalid calls") {
		m.InvalidToolCalls = append(m.InvalidToolCalls, InvalidToolCall{Name: text.Draw(t, "inv name"), Args: text.Draw(t, "inv args"), ID: text.Draw(t, "inv id"), Error: text.Draw(t, "inv error")})
	}
	m.ToolCallID = text.Draw(t, "tool call id")
	m.Status = rapid.SampledFrom([]string{"", StatusSuccess, StatusError}).Draw(t, "status")
	if rapid.Bool().Draw(t, "artifact") {
		m.Artifact = val("artifact")
	}
	if rapid.Bool().Draw(t, "usage") {
		m.UsageMetadata = &Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7, InputTokenDetails: obj("input details")}
	}
	m.AdditionalKwargs = obj("additional kwargs")
	m.ResponseMetadata = obj("response metadata")
	return m
}

// TestPropMessageWriteJSONMatchesToValue: the message writer that run
// seeds and made-up message IDs hash writes, for any message, the bytes
// MarshalValue writes for its dict (ToValue), and fails where it fails;
// otherwise every seed and ID would change.
func TestPropMessageWriteJSONMatchesToValue(t *testing.T) {
	rapid.Check(t, propMessageWriteJSONMatchesToValue)
}

func FuzzMessageWriteJSONMatchesToValue(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propMessageWriteJSONMatchesToValue))
}

func propMessageWriteJSONMatchesToValue(t *rapid.T) {
	m := drawMessage(t)
	want, werr := MarshalValue(m.ToValue())
	var got bytes.Buffer
	gerr := m.writeJSON(&got)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("writeJSON error %v, MarshalValue(ToValue()) error %v", gerr, werr)
	}
	if werr == nil && got.String() != string(want) {
		t.Fatalf("writeJSON:\n%s\nMarshalValue(ToValue()):\n%s", got.String(), want)
	}
}
