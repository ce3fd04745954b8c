package checkpointtest

import (
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
)

// Equal returns the options that compare stored values strictly: dynamic
// Go types must match, unexported fields (message content) are compared,
// *engine.Object values compare by their keys in order and their values,
// json.Number by its literal, and nil differs from empty.
func Equal() cmp.Options {
	return cmp.Options{
		cmp.Exporter(func(reflect.Type) bool { return true }),
		cmp.Transformer("Object", viewObject),
		cmp.Transformer("MessageList", viewMessageList),
	}
}

// messageListView is an engine.MessageList as cmp can compare it: its
// messages, whatever nodes hold them.
type messageListView struct {
	Msgs []engine.Message
}

func viewMessageList(l engine.MessageList) messageListView {
	return messageListView{Msgs: append([]engine.Message{}, l.Slice()...)}
}

// objectPair is one key of an object in objectView.
type objectPair struct {
	Key   string
	Value any
}

// objectView is an *engine.Object as cmp can compare it: nil, or its
// pairs in order.
type objectView struct {
	Nil   bool
	Pairs []objectPair
}

func viewObject(o *engine.Object) objectView {
	if o == nil {
		return objectView{Nil: true}
	}
	v := objectView{Pairs: []objectPair{}}
	for _, k := range o.Keys() {
		e, _ := o.Get(k)
		v.Pairs = append(v.Pairs, objectPair{k, e})
	}
	return v
}

// SampleMessages returns n messages of a ReAct thread: a human question,
// then AI messages with tool calls and their tool messages, with IDs.
// Message i is the same for every n, so a longer list extends a shorter
// one.
func SampleMessages(n int) []engine.Message {
	out := make([]engine.Message, 0, n)
	for i := range n {
		out = append(out, SampleMessage(i))
	}
	return out
}

// SampleMessage returns message i of SampleMessages.
func SampleMessage(i int) engine.Message {
	id := "msg-" + itoa(i)
	switch {
	case i == 0:
		m := engine.HumanMessage("What is the weather in Paris and in Rome?")
		m.ID = id
		return m
	case i%3 == 1:
		m := engine.AIMessage("Let me check.", engine.ToolCall{Name: "get_weather", Args: engine.NewObject("city", "Paris", "days", json.Number(itoa(i))), ID: "call-" + itoa(i)})
		m.ID = id
		m.Name = "agent"
		m.UsageMetadata = &engine.Usage{InputTokens: 100 + i, OutputTokens: 20, TotalTokens: 120 + i}
		return m
	case i%3 == 2:
		m := engine.ToolMessage(engine.Text("It is sunny in Paris, 21°C."), "get_weather", "call-"+itoa(i-1))
		m.ID = id
		return m
	default:
		m := engine.AIMessage("Paris is sunny.")
		m.ID = id
		m.Name = "agent"
		return m
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// SampleValues returns named values of every kind the engine writes to
// channels and pending writes, including the awkward ones: key order,
// number literals, nil versus empty, typed nils, invalid UTF-8. A
// checkpointer must return each of them equal under Equal.
func SampleValues() map[string]any {
	rich := engine.AIMessage("", engine.ToolCall{Name: "lookup", Args: engine.NewObject("z", json.Number("2.50"), "a", []any{json.Number("1e400"), nil, true}), ID: "c1"},
		engine.ToolCall{Name: "nil_args", ID: ""})
	rich.ID = "ai-1"
	rich.Name = "agent"
	rich.InvalidToolCalls = []engine.InvalidToolCall{{Name: "bad", Args: "{not json", ID: "c2", Error: "parse error"}}
	rich.UsageMetadata = &engine.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7, InputTokenDetails: engine.NewObject("cache_read", json.Number("1"))}
	rich.AdditionalKwargs = engine.NewObject("refusal", nil)
	rich.ResponseMetadata = engine.NewObject("model_name", "gpt", "finish_reason", "tool_calls")
	blocks := engine.Message{Type: engine.TypeHuman, Content: engine.Blocks(engine.NewObject("type", "text", "text", "look"), engine.NewObject("type", "image_url", "image_url", engine.NewObject("url", "data:..."))), ID: "h-2"}
	toolErr := engine.Message{Type: engine.TypeTool, Content: engine.Text("Error: boom"), Name: "lookup", ToolCallID: "c1", Status: engine.StatusError, Artifact: engine.NewObject("raw", []any{json.Number("1")})}
	noStatus := engine.Message{Type: engine.TypeTool, Content: engine.Text("ok"), ToolCallID: "c3"}
	noCalls := engine.Message{Type: engine.TypeAI, Content: engine.Text("final"), ToolCalls: []engine.ToolCall{}}
	odd := engine.Message{Type: engine.TypeHuman, Content: engine.Text("bad \xff utf-8 \u2028"), ToolCalls: []engine.ToolCall{{Name: "x"}}, Artifact: 7}
	msgs := []engine.Message{engine.SystemMessage("be brief"), blocks, rich, toolErr, noStatus, noCalls, odd, engine.RemoveMessage("gone")}
	state := engine.State{"messages": msgs, "remaining_steps": 23, "note": engine.NewObject("k", "v")}
	call := engine.ToolCall{Name: "lookup", Args: engine.NewObject("q", "x"), ID: "c1"}
	return map[string]any{
		"nil":             nil,
		"bool":            true,
		"int":             42,
		"int64":           int64(-7),
		"float64":         2.5,
		"string":          "héllo \u2028 \"quoted\"",
		"invalid_utf8":    "a\xffb",
		"number":          json.Number("-0.10"),
		"big_number":      json.Number("123456789012345678901234567890"),
		"object":          engine.NewObject("z", json.Number("1"), "a", engine.NewObject(), "m", []any{}, "n", nil, "bad\xffkey", "bad\xfevalue"),
		"empty_object":    engine.NewObject(),
		"nil_object":      (*engine.Object)(nil),
		"list":            []any{"a", json.Number("1.0"), nil, []any{}, engine.NewObject("k", false)},
		"nil_list":        []any(nil),
		"mixed_list":      []any{"x", 3, engine.HumanMessage("in a list"), []any(nil)},
		"messages":        msgs,
		"nil_messages":    []engine.Message(nil),
		"empty_messages":  []engine.Message{},
		"message":         rich,
		"message_pointer": &rich,
		"send":            engine.Send{Node: "tools", Arg: engine.ToolCallWithContext{Call: call, State: state}},
		"send_nil_arg":    engine.Send{Node: "agent"},
		"tasks":           []any{engine.Send{Node: "tools", Arg: engine.ToolCallWithContext{Call: call, State: state}}, engine.Send{Node: "tools", Arg: engine.ToolCallWithContext{Call: call}}},
		"tool_call":       call,
		"tool_calls":      []engine.ToolCall{call, {Name: "x"}},
		"state":           state,
		"empty_state":     engine.State{},
		"nil_state":       engine.State(nil),
		"input":           engine.State{"messages": []any{"hi", engine.NewObject("role", "user", "content", "there")}},
		"map":             map[string]any{"b": 1, "a": []string{"x"}},
		"interrupts":      []engine.InterruptValue{{Value: "approve?", ID: "0123456789abcdef0123456789abcdef"}, {Value: engine.NewObject("action", "edit")}, {}},
		"interrupt":       engine.InterruptValue{Value: 5, ID: "i"},
		"strings":         []string{"a", "", "b"},
		"nil_strings":     []string(nil),
		"empty_strings":   []string{},
	}
}
