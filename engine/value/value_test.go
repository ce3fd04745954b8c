package value

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kv is one entry of an *Object as cmp sees it: in order, so a diff shows
// both a wrong value and a wrong key order.
type kv struct {
	Key string
	Val any
}

// cmpValues compares values of the engine's value model: objects as ordered
// entries, json.Number by its literal.
var cmpValues = cmp.Transformer("Object", func(o *Object) []kv {
	if o == nil {
		return nil
	}
	out := make([]kv, 0, o.Len())
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		out = append(out, kv{k, v})
	}
	return out
})

// mustDecode decodes a JSON literal written in a test.
func mustDecode(t testing.TB, s string) any {
	t.Helper()
	v, err := DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("DecodeJSON(%q): %v", s, err)
	}
	return v
}

func TestPyRepr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     any
		want   string
		reason string
	}{
		{"dict", NewObject("to", "a@b.c", "body", "hi"), `{'to': 'a@b.c', 'body': 'hi'}`,
			"dicts print with single-quoted keys in insertion order, as tool-call descriptions show them"},
		{"true", true, "True", "Python spells booleans True/False"},
		{"false", false, "False", "Python spells booleans True/False"},
		{"none", nil, "None", "null is None"},
		{"nil object", (*Object)(nil), "None", "a nil *Object stands for None"},
		{"single quote", "it's", `"it's"`, "a string with ' and no \" switches to double quotes"},
		{"both quotes", `it's "x"`, `'it\'s "x"'`, "with both quotes Python keeps single quotes and escapes '"},
		{"newline", "a\nb", `'a\nb'`, "newlines are escaped"},
		{"tab", "tab\there", `'tab\there'`, "tabs are escaped"},
		{"backslash", `back\slash`, `'back\\slash'`, "backslashes are doubled"},
		{"unicode", "héllo ✓", `'héllo ✓'`, "printable non-ASCII is kept as it is"},
		{"emoji", "😀", `'😀'`, "printable astral characters are kept"},
		{"bell", "\x07", `'\x07'`, "control characters become \\x escapes"},
		{"delete", "\x7f", `'\x7f'`, "DEL is not printable"},
		{"nbsp", "\u00a0", `'\xa0'`, "a non-breaking space is not printable: \\x escape below 0x100"},
		{"zero width space", "\u200b", `'\u200b'`, "format characters get \\u escapes"},
		{"private use astral", "\U000e0001", `'\U000e0001'`, "unprintable astral characters get \\U escapes"},
		{"empty string", "", "''", "the empty string is two quotes"},
		{"list", mustDecode(t, `[1, "a", null, true, {"k": []}]`), `[1, 'a', None, True, {'k': []}]`, "lists and nested values"},
		{"empty dict", &Object{}, "{}", "empty dict"},
		{"empty list", []any{}, "[]", "empty list"},
		{"float literal", json.Number("2.50"), "2.5", "floats print as Python's repr, not as written"},
		{"float whole", json.Number("1.0"), "1.0", "a float keeps its .0"},
		{"float huge", json.Number("1e400"), "inf", "a literal beyond float range reads as inf in Python"},
		{"int literal", json.Number("12345678901234567890"), "12345678901234567890", "ints are arbitrary precision"},
		{"go int", 3, "3", "Go ints print as ints"},
		{"go float", 1.0, "1.0", "Go floats print as Python floats"},
		{"go negative zero", math.Copysign(0, -1), "-0.0", "the sign of zero survives"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, PyRepr(tt.in)); diff != "" {
				t.Errorf("PyRepr(%#v) mismatch (-want +got):\n%s\nreason: %s", tt.in, diff, tt.reason)
			}
		})
	}
}

func TestPyJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     any
		want   string
		reason string
		skip   string
	}{
		{"layout", mustDecode(t, `{"b":1,"a":[1,2],"s":"é"}`), `{"b": 1, "a": [1, 2], "s": "é"}`,
			"json.dumps puts a space after : and , keeps key order and, with ensure_ascii=False, non-ASCII", ""},
		{"float", json.Number("2.5"), "2.5", "floats keep their shortest repr", ""},
		{"float one", json.Number("1.0"), "1.0", "1.0 stays a float", ""},
		{"go float one", 1.0, "1.0", "a Go float64 is a Python float", ""},
		{"float 1e16", json.Number("1e16"), "1e+16", "exponent 16 switches to scientific notation with a sign", ""},
		{"float 1e-5", json.Number("1e-5"), "1e-05", "exponent -5 is scientific with two exponent digits", ""},
		{"float 1e-4", json.Number("0.0001"), "0.0001", "exponent -4 is still fixed notation", ""},
		{"float 100000", json.Number("100000.0"), "100000.0", "fixed notation below 1e16", ""},
		{"float exponent literal", json.Number("1E5"), "100000.0", "an exponent literal is a float in Python", ""},
		{"float trailing zeros", json.Number("2.50"), "2.5", "the literal is re-rendered as Python's repr", ""},
		{"infinity", json.Number("1e400"), "Infinity", "json.dumps writes inf as Infinity", ""},
		{"int", json.Number("12345678901234567890"), "12345678901234567890", "ints are written unchanged", ""},
		{"negative zero int", json.Number("-0"), "0", "json.loads('-0') is the int 0", ""},
		{"nested", mustDecode(t, `{"a":{"b":[{"c":null,"d":true}]}}`), `{"a": {"b": [{"c": null, "d": true}]}}`, "nesting uses the same separators", ""},
		{"empty object", &Object{}, "{}", "empty object", ""},
		{"empty list", []any{}, "[]", "empty list", ""},
		{"escapes", "q\"b\\n\n\x00\u2028", `"q\"b\\n\n\u0000` + "\u2028" + `"`, "json.dumps escapes quotes, backslashes and controls but keeps U+2028 with ensure_ascii=False", ""},
		{"nil object", (*Object)(nil), "null", "a nil *Object is null", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.skip != "" {
				t.Skip(tt.skip)
			}
			got, err := PyJSON(tt.in)
			if err != nil {
				t.Fatalf("PyJSON(%#v): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PyJSON(%#v) mismatch (-want +got):\n%s\nreason: %s", tt.in, diff, tt.reason)
			}
		})
	}
}

func TestPyJSONErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     any
		reason string
	}{
		{"bad number", json.Number("abc"), "a json.Number that is not a number cannot be written"},
		{"nan", math.NaN(), "NaN has no JSON form the engine accepts"},
		{"channel", make(chan int), "values outside JSON are refused, not printed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got, err := PyJSON(tt.in); err == nil {
				t.Errorf("PyJSON(%#v) = %q, want an error\nreason: %s", tt.in, got, tt.reason)
			}
		})
	}
}

func TestPyFloatRepr(t *testing.T) {
	t.Parallel()
	// The wanted texts are what CPython's repr(float) prints.
	tests := []struct {
		name   string
		in     float64
		want   string
		reason string
	}{
		{"tenth", 0.1, "0.1", "shortest digits that round-trip"},
		{"third", 1.0 / 3, "0.3333333333333333", "17 significant digits are not needed"},
		{"big int", 123456789012345678, "1.2345678901234568e+17", "above 1e16 the repr is scientific"},
		{"1e15", 1e15, "1000000000000000.0", "below 1e16 the repr is fixed with .0"},
		{"1e16", 1e16, "1e+16", "1e16 is the first scientific power"},
		{"1e22", 1e22, "1e+22", "a one-digit mantissa has no point"},
		{"negative zero", math.Copysign(0, -1), "-0.0", "the sign of zero is printed"},
		{"zero", 0, "0.0", "zero is 0.0"},
		{"smallest", 5e-324, "5e-324", "the smallest subnormal"},
		{"largest", math.MaxFloat64, "1.7976931348623157e+308", "the largest float"},
		{"1e-4", 0.0001, "0.0001", "exponent -4 is fixed"},
		{"1e-5", 0.00001, "1e-05", "exponent -5 is scientific with two exponent digits"},
		{"small mantissa", 1.5e-7, "1.5e-07", "scientific with a fraction"},
		{"2^53+1", 9007199254740993, "9007199254740992.0", "the nearest float is printed"},
		{"fraction", 123456789.123, "123456789.123", "fixed with a fraction"},
		{"negative", -123, "-123.0", "negative whole floats keep .0"},
		{"nan", math.NaN(), "nan", "repr(float('nan'))"},
		{"inf", math.Inf(1), "inf", "repr(float('inf'))"},
		{"minus inf", math.Inf(-1), "-inf", "repr(float('-inf'))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, PyFloatRepr(tt.in)); diff != "" {
				t.Errorf("PyFloatRepr(%v) mismatch (-want +got):\n%s\nreason: %s", tt.in, diff, tt.reason)
			}
		})
	}
}

func TestDecodeJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		want   any
		reason string
	}{
		{"key order", `{"b":1,"a":2,"c":3}`, NewObject("b", json.Number("1"), "a", json.Number("2"), "c", json.Number("3")),
			"keys keep the order they were written in, as Python dicts do"},
		{"numbers", `[1, 2.50, -0, 1e400, 12345678901234567890]`,
			[]any{json.Number("1"), json.Number("2.50"), json.Number("-0"), json.Number("1e400"), json.Number("12345678901234567890")},
			"numbers stay json.Number with their literal, so ints stay ints"},
		{"duplicate key", `{"a":1,"b":2,"a":3}`, NewObject("a", json.Number("3"), "b", json.Number("2")),
			"a repeated key keeps its first position and its last value, like json.loads"},
		{"scalars", `[null, true, false, "s"]`, []any{nil, true, false, "s"}, "scalars map to nil, bool and string"},
		{"top-level scalar", ` "x" `, "x", "any JSON value may be the document; whitespace around it is fine"},
		{"nested", `{"a":{"b":[]}}`, NewObject("a", NewObject("b", []any{})), "empty lists are non-nil"},
		{"unicode", `"\u00e9\ud83d\ude00"`, "é😀", "escapes and surrogate pairs are decoded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeJSON([]byte(tt.in))
			if err != nil {
				t.Fatalf("DecodeJSON(%q): %v\nreason: %s", tt.in, err, tt.reason)
			}
			if diff := cmp.Diff(tt.want, got, cmpValues); diff != "" {
				t.Errorf("DecodeJSON(%q) mismatch (-want +got):\n%s\nreason: %s", tt.in, diff, tt.reason)
			}
		})
	}
}

func TestDecodeJSONErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		reason string
	}{
		{"trailing value", `{"a":1}{}`, "a second document is trailing data"},
		{"trailing garbage", `{"a":1} x`, "garbage after the value is an error"},
		{"trailing bracket", `[1,2]]`, "an unbalanced close is an error"},
		{"empty", ``, "no value at all"},
		{"blank", `   `, "only whitespace"},
		{"truncated", `[1,`, "input ends inside a list"},
		{"trailing comma", `{"a":1,}`, "JSON has no trailing commas"},
		{"missing colon", `{"a" 1}`, "a key needs a colon"},
		{"close first", `}`, "a stray close"},
		{"bare word", `nul`, "not a literal"},
		{"single quotes", `{'a': 1}`, "Python syntax is not JSON"},
		{"nan", `NaN`, "Python's json accepts NaN, JSON does not"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeJSON([]byte(tt.in))
			if err == nil {
				t.Errorf("DecodeJSON(%q) = %#v, want an error\nreason: %s", tt.in, got, tt.reason)
				return
			}
			if !strings.HasPrefix(err.Error(), "invalid JSON") {
				t.Errorf("DecodeJSON(%q) error = %q, want it to start with \"invalid JSON\"", tt.in, err)
			}
		})
	}
}

func TestObjectOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		build  func() *Object
		want   []string
		reason string
	}{
		{"set order", func() *Object { return NewObject("b", 1, "a", 2) }, []string{"b", "a"},
			"keys come out in the order they were set"},
		{"overwrite keeps position", func() *Object {
			o := NewObject("a", 1, "b", 2)
			o.Set("a", 3)
			return o
		}, []string{"a", "b"}, "setting an existing key keeps its place, as in a Python dict"},
		{"delete", func() *Object {
			o := NewObject("a", 1, "b", 2, "c", 3)
			o.Delete("b")
			return o
		}, []string{"a", "c"}, "deleting removes the key from the order"},
		{"delete then set", func() *Object {
			o := NewObject("a", 1, "b", 2, "c", 3)
			o.Delete("a")
			o.Set("a", 4)
			return o
		}, []string{"b", "c", "a"}, "a key set again after deletion goes to the end"},
		{"delete missing", func() *Object {
			o := NewObject("a", 1)
			o.Delete("zz")
			return o
		}, []string{"a"}, "deleting an absent key changes nothing"},
		{"zero value", func() *Object {
			var o Object
			o.Set("x", 1)
			return &o
		}, []string{"x"}, "the zero Object is ready to use"},
		{"clone order", func() *Object { return NewObject("z", 1, "y", 2).Clone() }, []string{"z", "y"},
			"a clone keeps the order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.build().Keys()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Keys() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}

func TestObjectCloneIsDeep(t *testing.T) {
	t.Parallel()
	orig := mustDecode(t, `{"a":{"b":[1,{"c":2}]},"d":"x"}`).(*Object)
	before, _ := MarshalValue(orig)
	c := orig.Clone()
	inner, _ := c.Get("a")
	inner.(*Object).Set("new", true)
	list, _ := inner.(*Object).Get("b")
	list.([]any)[1].(*Object).Set("c", json.Number("99"))
	c.Delete("d")
	after, _ := MarshalValue(orig)
	if !bytes.Equal(before, after) {
		t.Errorf("changing a clone changed the original: before %s, after %s", before, after)
	}
}

func TestObjectNil(t *testing.T) {
	t.Parallel()
	var o *Object
	if o.Len() != 0 || o.Keys() != nil || o.Has("a") || o.Clone() != nil {
		t.Errorf("a nil *Object should read as empty")
	}
	if _, ok := o.Get("a"); ok {
		t.Errorf("nil.Get found a key")
	}
	o.Delete("a") // must not panic
	b, err := o.MarshalJSON()
	if err != nil || string(b) != "null" {
		t.Errorf("nil.MarshalJSON() = %q, %v; want null", b, err)
	}
}

func TestObjectJSONRoundTrip(t *testing.T) {
	t.Parallel()
	in := `{"z":1,"a":{"y":[true,null,"s"],"b":2.50}}`
	var o Object
	if err := json.Unmarshal([]byte(in), &o); err != nil {
		t.Fatalf("json.Unmarshal: %v", err)
	}
	out, err := json.Marshal(&o)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	if diff := cmp.Diff(in, string(out)); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
	var bad Object
	if err := json.Unmarshal([]byte(`[1]`), &bad); err == nil {
		t.Errorf("unmarshalling a list into an Object should fail")
	}
}

func TestValueEqual(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		a, b   string
		want   bool
		reason string
		skip   string
	}{
		{"key order", `{"a":1,"b":2}`, `{"b":2,"a":1}`, true, "objects compare without regard to key order", ""},
		{"int float", `1`, `1.0`, true, "numbers compare by value, as 1 == 1.0 in Python", ""},
		{"exponent", `100`, `1e2`, true, "numbers compare by value", ""},
		{"different numbers", `1`, `2`, false, "different values", ""},
		{"big ints", `12345678901234567890`, `12345678901234567891`, false, "Python ints are exact", ""},
		{"number string", `1`, `"1"`, false, "a number is not a string", ""},
		{"bool number", `true`, `1`, false, "JSON true is not the number 1", ""},
		{"nulls", `null`, `null`, true, "null equals null", ""},
		{"null false", `null`, `false`, false, "null is not false", ""},
		{"list order", `[1,2]`, `[2,1]`, false, "lists are ordered", ""},
		{"list length", `[1]`, `[1,1]`, false, "lists of different lengths differ", ""},
		{"nested", `{"a":[{"b":1.0}]}`, `{"a":[{"b":1}]}`, true, "equality recurses", ""},
		{"missing key", `{"a":1}`, `{"b":1}`, false, "same size, different keys", ""},
		{"extra key", `{"a":1}`, `{"a":1,"b":2}`, false, "different sizes", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.skip != "" {
				t.Skip(tt.skip)
			}
			a, b := mustDecode(t, tt.a), mustDecode(t, tt.b)
			if got := ValueEqual(a, b); got != tt.want {
				t.Errorf("ValueEqual(%s, %s) = %v, want %v\nreason: %s", tt.a, tt.b, got, tt.want, tt.reason)
			}
			if got := ValueEqual(b, a); got != tt.want {
				t.Errorf("ValueEqual(%s, %s) = %v, want %v (symmetry)\nreason: %s", tt.b, tt.a, got, tt.want, tt.reason)
			}
		})
	}
}

func TestToValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     any
		want   any
		reason string
	}{
		{"int", 3, json.Number("3"), "Go ints become int literals"},
		{"float", 2.0, json.Number("2.0"), "Go floats become float literals that read back as floats"},
		{"map", map[string]any{"b": 1, "a": "x"}, NewObject("a", "x", "b", json.Number("1")), "Go maps have no order: keys are sorted"},
		{"strings", []string{"x", "y"}, []any{"x", "y"}, "typed slices go through encoding/json"},
		{"model value", NewObject("k", true), NewObject("k", true), "values already in the model are kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ToValue(tt.in)
			if err != nil {
				t.Fatalf("ToValue(%#v): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got, cmpValues); diff != "" {
				t.Errorf("ToValue(%#v) mismatch (-want +got):\n%s\nreason: %s", tt.in, diff, tt.reason)
			}
		})
	}
}

// FuzzDecodeJSON checks that DecodeJSON never panics and that what it
// accepts survives MarshalValue and a second DecodeJSON unchanged, key order
// included.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"city":"Paris","days":3}`,
		`[1,2.5,-0,1e400,12345678901234567890,true,false,null]`,
		`{"a":{"b":[{"c":"é😀\u2028\n"}]},"a":1}`,
		`"\ud800"`,
		"\"\xff\"",
		`{"a":1} x`,
		`[[[[[[[[]]]]]]]]`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeJSON(data)
		if err != nil {
			return
		}
		b, err := MarshalValue(v)
		if err != nil {
			t.Fatalf("MarshalValue(DecodeJSON(%q)): %v", data, err)
		}
		v2, err := DecodeJSON(b)
		if err != nil {
			t.Fatalf("DecodeJSON(MarshalValue(...)) of %q: %v (marshalled %q)", data, err, b)
		}
		if !ValueEqual(v, v2) {
			t.Fatalf("round trip of %q changed the value: %q", data, b)
		}
		b2, err := MarshalValue(v2)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("second MarshalValue differs: %q vs %q (%v)", b, b2, err)
		}
		_ = PyRepr(v)
		_, _ = PyJSON(v)
	})
}

// TestTruthy pins Python's bool() of values: the JSON kinds and the Go
// numbers a value may hold before it is normalized.
func TestTruthy(t *testing.T) {
	tests := []struct {
		v      any
		want   bool
		reason string
	}{
		{nil, false, "None"},
		{false, false, "False"},
		{true, true, "True"},
		{"", false, "an empty string"},
		{"0", true, "a non-empty string, even \"0\""},
		{json.Number("0"), false, "the number 0"},
		{json.Number("0.0"), false, "0.0"},
		{json.Number("-2"), true, "a non-zero number"},
		{0, false, "a Go int 0"},
		{int64(3), true, "a Go int64"},
		{0.0, false, "a Go float 0"},
		{[]any{}, false, "an empty list"},
		{[]any{nil}, true, "a list with an element"},
		{NewObject(), false, "an empty dict"},
		{NewObject("a", 1), true, "a dict with a key"},
		{struct{}{}, true, "anything else is an object, true"},
	}
	for _, tc := range tests {
		if got := Truthy(tc.v); got != tc.want {
			t.Errorf("Truthy(%#v) = %v, want %v: %s", tc.v, got, tc.want, tc.reason)
		}
	}
}
