package checkpoint

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint/checkpointtest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// Generators of the values the engine stores, awkward ones included.

func genString() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom([]string{"", "hello", "héllo \u2028\u2029", "<&>", "a\x00b", "bad \xff utf-8", "\xc3", `"quoted" \ back`}),
		rapid.String(),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 8), func(b []byte) string { return string(b) }),
	)
}

func genNumber() *rapid.Generator[json.Number] {
	return rapid.SampledFrom([]json.Number{"0", "-0", "1", "-12", "2.50", "1e400", "-1.5E-7", "123456789012345678901234567890", "0.1", "+1", "01", ".5", "NaN", "1e", ""})
}

func genJSON(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		kinds := 5
		if depth > 0 {
			kinds = 7
		}
		switch rapid.IntRange(0, kinds-1).Draw(t, "json_kind") {
		case 0:
			return nil
		case 1:
			return rapid.Bool().Draw(t, "bool")
		case 2:
			return genNumber().Draw(t, "number")
		case 3, 4:
			return genString().Draw(t, "string")
		case 5:
			if rapid.IntRange(0, 5).Draw(t, "nil_list") == 0 {
				return []any(nil)
			}
			return rapid.SliceOfN(genJSON(depth-1), 0, 4).Draw(t, "list")
		default:
			return genObject(depth-1, genJSON(depth-1)).Draw(t, "object")
		}
	})
}

func genObject(depth int, values *rapid.Generator[any]) *rapid.Generator[*engine.Object] {
	return rapid.Custom(func(t *rapid.T) *engine.Object {
		if rapid.IntRange(0, 7).Draw(t, "nil_object") == 0 {
			return nil
		}
		o := engine.NewObject()
		for range rapid.IntRange(0, 4).Draw(t, "keys") {
			o.Set(genString().Draw(t, "key"), values.Draw(t, "value"))
		}
		return o
	})
}

func genToolCall(depth int) *rapid.Generator[engine.ToolCall] {
	return rapid.Custom(func(t *rapid.T) engine.ToolCall {
		return engine.ToolCall{Name: genString().Draw(t, "name"), Args: genObject(depth, genJSON(depth)).Draw(t, "args"), ID: genString().Draw(t, "id")}
	})
}

func genMessage(depth int) *rapid.Generator[engine.Message] {
	return rapid.Custom(func(t *rapid.T) engine.Message {
		m := engine.Message{
			Type:       engine.MessageType(rapid.SampledFrom([]string{"human", "ai", "tool", "system", "remove", "odd\xff"}).Draw(t, "type")),
			Name:       genString().Draw(t, "name"),
			ID:         genString().Draw(t, "id"),
			ToolCallID: genString().Draw(t, "tool_call_id"),
			Status:     rapid.SampledFrom([]string{"", "success", "error"}).Draw(t, "status"),
		}
		if rapid.Bool().Draw(t, "list_content") {
			m.Content = engine.Blocks(rapid.SliceOfN(genJSON(depth), 0, 3).Draw(t, "blocks")...)
		} else {
			m.Content = engine.Text(genString().Draw(t, "text"))
		}
		switch rapid.IntRange(0, 2).Draw(t, "tool_calls") {
		case 1:
			m.ToolCalls = []engine.ToolCall{}
		case 2:
			m.ToolCalls = rapid.SliceOfN(genToolCall(depth), 1, 3).Draw(t, "calls")
		}
		if rapid.IntRange(0, 3).Draw(t, "invalid") == 0 {
			m.InvalidToolCalls = []engine.InvalidToolCall{{Name: genString().Draw(t, "iname"), Args: genString().Draw(t, "iargs"), ID: "x", Error: genString().Draw(t, "ierr")}}
		}
		if rapid.IntRange(0, 3).Draw(t, "artifact") == 0 {
			m.Artifact = genValue(depth).Draw(t, "artifact_value")
		}
		if rapid.IntRange(0, 3).Draw(t, "usage") == 0 {
			m.UsageMetadata = &engine.Usage{InputTokens: rapid.Int().Draw(t, "in"), OutputTokens: 3, TotalTokens: -1, InputTokenDetails: genObject(depth, genJSON(depth)).Draw(t, "in_details")}
		}
		m.AdditionalKwargs = genObject(depth, genJSON(depth)).Draw(t, "kwargs")
		m.ResponseMetadata = genObject(depth, genJSON(depth)).Draw(t, "metadata")
		return m
	})
}

func genState(depth int) *rapid.Generator[engine.State] {
	return rapid.Custom(func(t *rapid.T) engine.State {
		if rapid.IntRange(0, 5).Draw(t, "nil_state") == 0 {
			return nil
		}
		s := engine.State{}
		for range rapid.IntRange(0, 3).Draw(t, "state_keys") {
			s[genString().Draw(t, "state_key")] = genValue(depth).Draw(t, "state_value")
		}
		return s
	})
}

// genValue draws any value the engine writes to a channel or a pending
// write.
func genValue(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		if depth <= 0 {
			return genJSON(0).Draw(t, "leaf")
		}
		d := depth - 1
		switch rapid.IntRange(0, 17).Draw(t, "value_kind") {
		case 0, 1:
			return genJSON(depth).Draw(t, "json")
		case 2:
			return rapid.Int().Draw(t, "int")
		case 3:
			return rapid.Int64().Draw(t, "int64")
		case 4:
			f := rapid.Float64().Draw(t, "float64")
			if math.IsNaN(f) {
				f = math.Inf(-1)
			}
			return f
		case 5:
			if rapid.IntRange(0, 4).Draw(t, "nil_messages") == 0 {
				return []engine.Message(nil)
			}
			return rapid.SliceOfN(genMessage(d), 0, 3).Draw(t, "messages")
		case 6:
			return genMessage(d).Draw(t, "message")
		case 7:
			if rapid.Bool().Draw(t, "nil_message_pointer") {
				return (*engine.Message)(nil)
			}
			m := genMessage(d).Draw(t, "message_pointer")
			return &m
		case 8:
			return genState(d).Draw(t, "state")
		case 9:
			s := genState(d).Draw(t, "map")
			return map[string]any(s)
		case 10:
			return engine.Send{Node: genString().Draw(t, "node"), Arg: genValue(d).Draw(t, "arg")}
		case 11:
			return genToolCall(d).Draw(t, "tool_call")
		case 12:
			if rapid.Bool().Draw(t, "nil_tool_calls") {
				return []engine.ToolCall(nil)
			}
			return rapid.SliceOfN(genToolCall(d), 0, 3).Draw(t, "tool_calls")
		case 13:
			return engine.ToolCallWithContext{Call: genToolCall(d).Draw(t, "call"), State: genState(d).Draw(t, "call_state")}
		case 14:
			return engine.InterruptValue{Value: genValue(d).Draw(t, "interrupt_value"), ID: genString().Draw(t, "interrupt_id")}
		case 15:
			if rapid.Bool().Draw(t, "nil_interrupts") {
				return []engine.InterruptValue(nil)
			}
			return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) engine.InterruptValue {
				return engine.InterruptValue{Value: genValue(d).Draw(t, "value"), ID: genString().Draw(t, "id")}
			}), 0, 3).Draw(t, "interrupts")
		case 17:
			return engine.NewMessageList(rapid.SliceOfN(genMessage(d), 0, 3).Draw(t, "message_list")...)
		default:
			if rapid.Bool().Draw(t, "nil_strings") {
				return []string(nil)
			}
			return rapid.SliceOfN(genString(), 0, 3).Draw(t, "strings")
		}
	})
}

// TestPropSQLiteValueRoundTrip: every value the engine stores decodes to
// a value equal to it under checkpointtest.Equal (Go types, key order,
// number literals, nil versus empty, string bytes), and message lists
// that share a prefix with a stored list come back whole through the
// reference to it.
func TestPropSQLiteValueRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, propSQLiteValueRoundTrip)
}

// FuzzSQLiteValueRoundTrip feeds the same property from the fuzzer.
func FuzzSQLiteValueRoundTrip(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Add([]byte("\x05\x02\x01\x00\x03\x09\x10\x0a\x0d\x04\x07\x01\x02\x03\x0e\x0f"))
	f.Fuzz(rapid.MakeFuzz(propSQLiteValueRoundTrip))
}

func propSQLiteValueRoundTrip(t *rapid.T) {
	v := genValue(3).Draw(t, "value")
	msgs := rapid.SliceOfN(genMessage(1), 0, 8).Draw(t, "stored_list")
	// the stored list as a channel holds it: appended in pieces
	var base engine.MessageList
	for k := 0; k < len(msgs); {
		j := min(len(msgs), k+rapid.IntRange(1, 4).Draw(t, "piece"))
		base = base.Append(msgs[k:j]...)
		k = j
	}
	// values holding the stored list's first k messages and a tail: a
	// MessageList made from it (stored by reference when it shares
	// enough) and a plain slice
	k := rapid.IntRange(0, len(msgs)).Draw(t, "shared")
	tail := rapid.SliceOfN(genMessage(1), 0, 2).Draw(t, "tail")
	withRef := engine.Send{Node: "tools", Arg: engine.ToolCallWithContext{State: engine.State{"messages": base.Prefix(k).Append(tail...), "other": v}}}
	asSlice := engine.State{"messages": append(msgs[:k:k], tail...)}
	enc := &encoder{bases: []baseList{{id: 7, list: base}}}
	dec := &decoder{resolve: func(list int64, n int) (engine.MessageList, error) {
		if list != 7 || n > base.Len() {
			return engine.MessageList{}, fmt.Errorf("no stored list %d of %d messages", list, n)
		}
		return base.Prefix(n), nil
	}}
	for _, want := range []any{v, withRef, asSlice} {
		raw, err := enc.encode(want, "value")
		if err != nil {
			t.Fatalf("encode %#v: %v", want, err)
		}
		got, err := dec.decode(raw)
		if err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		if d := cmp.Diff(want, got, checkpointtest.Equal()); d != "" {
			t.Fatalf("value read back differs (-put +read):\n%s\nstored: %s", d, raw)
		}
	}
}

// FuzzSQLiteDecode: whatever bytes a database file holds, decoding them
// fails or succeeds but does not panic, and what decodes encodes again.
func FuzzSQLiteDecode(f *testing.F) {
	var e encoder
	for _, v := range checkpointtest.SampleValues() {
		raw, err := e.encode(v, "value")
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(raw))
	}
	f.Add([]byte(`{"t":"messages+","v":{"list":1,"n":3,"tail":[]}}`))
	f.Add([]byte(`{"t":"msglist+","v":{"list":1,"n":3,"tail":[]}}`))
	f.Add([]byte(`{"t":"msglist","v":[]}`))
	f.Add([]byte(`{"t":"object","v":[[{"b":"/w=="},{"t":"int","v":1}]]}`))
	f.Add([]byte(`{"t":"nope"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{resolve: func(int64, int) (engine.MessageList, error) {
			return engine.NewMessageList(engine.Message{Type: engine.TypeHuman}), nil
		}}
		v, err := d.decode(data)
		if err != nil {
			return
		}
		if _, err := e.encode(v, "value"); err != nil {
			t.Fatalf("decoded %#v from %q but cannot encode it again: %v", v, data, err)
		}
	})
}
