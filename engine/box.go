package engine

import "unsafe"

// Boxing in place. Putting a slice or a struct in an interface (any(v))
// copies it into an allocation of its own: a superstep of W3 boxed the
// model's one-message list, the router's Send and its argument, and the
// list of Sends, four allocations of 24 to 48 bytes beside the structs
// that held the same values. boxAt makes the interface point at a value
// that already lives in a larger allocation instead, so a node's output
// and what it refers to take one allocation.
//
// The interface holds p itself: *p must not be written once boxed (an
// interface's value never changes, and whoever holds it reads *p).
// Every caller boxes fields of a struct it has just made, and writes them
// only before boxing them.

// eface is the layout of an interface value without methods
// (runtime.eface): the type word, then the data word, which points at the
// value for every type boxAt is used with (none is pointer-shaped).
type eface struct{ typ, data unsafe.Pointer }

// typeWord is the type word of the dynamic type of v.
func typeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

// The type words of the types boxAt boxes, taken once (a zero struct
// converted to any allocates).
var (
	typeMessages = typeWord([]Message(nil))
	typeAnys     = typeWord([]any(nil))
	typeSend     = typeWord(Send{})
)

// boxAt returns any(*p) without copying *p: the interface's data word is
// p. typ must be the type word of T (typeMessages for []Message, ...):
// the typed helpers below pair them.
func boxAt[T any](typ unsafe.Pointer, p *T) (v any) {
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = typ, unsafe.Pointer(p)
	return v
}

// boxMessages is any(*p) for a list of messages, without the copy.
func boxMessages(p *[]Message) any { return boxAt(typeMessages, p) }

// boxAnys is any(*p) for a list, without the copy.
func boxAnys(p *[]any) any { return boxAt(typeAnys, p) }

// boxSend is any(*p) for a Send, without the copy.
func boxSend(p *Send) any { return boxAt(typeSend, p) }
