package engine

import (
	"reflect"
	"runtime"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPropBoxAtIsAny: a value boxed in place (boxAt) is the value any(v)
// boxes: the same dynamic type, equal contents, the same result of a type
// assertion and of ==, and it survives a collection while the interface
// is the only reference to the struct it lives in. A wrong type word
// (boxMessages with typeAnys) fails the assertion; a data word pointing
// at a copy made on the stack would show other contents after the GC.
func TestPropBoxAtIsAny(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		msgs := make([]Message, rapid.IntRange(0, 4).Draw(t, "messages"))
		for i := range msgs {
			msgs[i] = drawMessage(t)
		}
		calls := make([]ToolCall, rapid.IntRange(1, 3).Draw(t, "calls"))
		for i := range calls {
			calls[i] = ToolCall{Name: rapid.StringN(0, 6, -1).Draw(t, "name"), ID: rapid.StringN(0, 6, -1).Draw(t, "id"), Args: NewObject("i", i)}
		}
		state := State{"messages": msgs}
		node := rapid.StringN(0, 8, -1).Draw(t, "node")
		boxed := func() []any {
			b := &struct {
				msgs []Message
				list []any
				send Send
				tc   ToolCallWithContext
			}{}
			b.msgs = slices.Clone(msgs)
			b.tc = ToolCallWithContext{Call: calls[0], State: state}
			b.send = Send{Node: node, Arg: boxToolCall(&b.tc)}
			b.list = []any{boxSend(&b.send), boxMessages(&b.msgs)}
			return []any{boxMessages(&b.msgs), boxAnys(&b.list), boxSend(&b.send), boxToolCall(&b.tc)}
		}()
		runtime.GC()
		tc := ToolCallWithContext{Call: calls[0], State: state}
		send := Send{Node: node, Arg: tc}
		want := []any{msgs, []any{send, msgs}, send, tc}
		for i := range want {
			if reflect.TypeOf(boxed[i]) != reflect.TypeOf(want[i]) {
				t.Fatalf("box %d has type %T, want %T", i, boxed[i], want[i])
			}
			if !reflect.DeepEqual(boxed[i], want[i]) {
				t.Fatalf("box %d = %#v, want %#v", i, boxed[i], want[i])
			}
		}
		if got, ok := boxed[0].([]Message); !ok || len(got) != len(msgs) {
			t.Fatalf("boxed messages assert to %T %v", boxed[0], ok)
		}
		if got, ok := boxed[2].(Send); !ok || got.Node != node {
			t.Fatalf("boxed Send asserts to %#v %v", got, ok)
		}
		if got, ok := boxed[3].(ToolCallWithContext); !ok || got.Call.ID != calls[0].ID {
			t.Fatalf("boxed call asserts to %#v %v", got, ok)
		}
		// == compares the contents, wherever they live
		plain := &struct{ send Send }{send: Send{Node: node, Arg: calls[0].ID}}
		if boxSend(&plain.send) != any(Send{Node: node, Arg: calls[0].ID}) {
			t.Fatalf("boxed Send != an equal Send")
		}
		sends, ok := toolSends(calls, state).([]any)
		if !ok || len(sends) != len(calls) {
			t.Fatalf("toolSends(%d calls) = %#v", len(calls), sends)
		}
		for i, s := range sends {
			want := Send{Node: "tools", Arg: ToolCallWithContext{Call: calls[i], State: state}}
			if !reflect.DeepEqual(s, any(want)) {
				t.Fatalf("send %d = %#v, want %#v", i, s, want)
			}
		}
	})
}

// TestBoxedOutputsAllocateOnce: the point of boxing in place, held: the
// router's Sends for one call, the model node's update and a topic of one
// packet take one allocation each (four, two and two boxed by any()).
func TestBoxedOutputsAllocateOnce(t *testing.T) {
	calls := []ToolCall{{Name: "t", ID: "c1", Args: NewObject("i", 1)}}
	state := State{"messages": []Message{HumanMessage("go")}}
	m := AIMessage("", calls...)
	var c topic
	packet := any(Send{Node: "tools"})
	for _, tc := range []struct {
		name string
		fn   func()
	}{
		{"toolSends of one call", func() { _ = toolSends(calls, state) }},
		{"messageUpdate", func() { _ = messageUpdate("messages", m) }},
		{"topic of one packet", func() { _, _ = c.update([]any{packet}) }},
	} {
		if n := testing.AllocsPerRun(100, tc.fn); n != 1 {
			t.Errorf("%s: %v allocations, want 1", tc.name, n)
		}
	}
}

// writeLog is a writeTarget that keeps what it is given.
type writeLog struct{ ws []write }

func (l *writeLog) read() (State, error) { return nil, nil }
func (l *writeLog) emit(w write)         { l.ws = append(l.ws, w) }
func (l *writeLog) emitAll(ws []write)   { l.ws = append(l.ws, ws...) }

// TestOneMessageWrites: the one-message output of the model node and of
// a ToolNode's single call writes what the nodeUpdate {key, [m], owned}
// it stands for writes, on its own and inside a list of outputs, and
// nothing under a key the node does not write.
func TestOneMessageWrites(t *testing.T) {
	m := AIMessage("hi")
	m.ID = "m1"
	want := []write{{channel: "messages", value: []Message{m}, owned: true}}
	keys := map[string]bool{"messages": true}
	for _, tc := range []struct {
		name   string
		output any
		keys   map[string]bool
		want   []write
	}{
		{"alone", messageUpdate("messages", m), keys, want},
		{"in a list", []any{messageUpdate("messages", m)}, keys, want},
		{"a key the node does not write", messageUpdate("other", m), keys, nil},
	} {
		var l writeLog
		if err := emitUpdates(tc.output, tc.keys, &l); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(l.ws, tc.want) {
			t.Errorf("%s: writes %#v, want %#v", tc.name, l.ws, tc.want)
		}
	}
}
