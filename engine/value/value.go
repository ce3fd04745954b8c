package value

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Object is a JSON object that remembers the order its keys were set in.
// The zero value is an empty object ready to use.
//
// Keys and values live in two parallel slices; tool arguments and message
// dicts have a handful of keys, which a linear scan finds faster than a
// map and with fewer allocations. Objects with more than smallObject keys
// also keep an index. Reads never modify an Object, so concurrent reads
// are safe.
type Object struct {
	keys  []string
	vals  []any          // vals[i] is the value under keys[i]
	index map[string]int // position of every key; only above smallObject keys
}

// smallObject is the largest object looked up by linear scan.
const smallObject = 8

// NewObject returns an object from alternating keys and values:
// NewObject("city", "Paris", "days", 3).
// It panics if a key is not a string or a value is missing; it is meant for
// literals in code, not for outside input.
func NewObject(kv ...any) *Object {
	if len(kv)%2 != 0 {
		panic("engine.NewObject: odd number of arguments")
	}
	o := &Object{keys: make([]string, 0, len(kv)/2), vals: make([]any, 0, len(kv)/2)}
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			panic(fmt.Sprintf("engine.NewObject: key %v is not a string", kv[i]))
		}
		o.Set(k, kv[i+1])
	}
	return o
}

// NewObjectCap returns an empty Object with room for n keys, for callers
// that know how many keys they will Set. Up to four keys, the Object and
// its key and value arrays are one allocation.
func NewObjectCap(n int) *Object {
	switch {
	case n <= 2:
		s := new(struct {
			o Object
			k [2]string
			v [2]any
		})
		s.o.keys, s.o.vals = s.k[:0], s.v[:0]
		return &s.o
	case n <= 4:
		s := new(struct {
			o Object
			k [4]string
			v [4]any
		})
		s.o.keys, s.o.vals = s.k[:0], s.v[:0]
		return &s.o
	}
	return &Object{keys: make([]string, 0, n), vals: make([]any, 0, n)}
}

// NewObjects returns n empty Objects with room for c keys each, made in
// three allocations instead of n, for callers that make many small
// objects at once (a ToolNode's validated arguments, one per call). Each
// object's arrays are its own (an object that outgrows them moves to new
// ones); any one of them kept keeps all n in memory.
func NewObjects(n, c int) []Object {
	objs := make([]Object, n)
	keys := make([]string, n*c)
	vals := make([]any, n*c)
	for i := range objs {
		objs[i].keys = keys[i*c : i*c : (i+1)*c]
		objs[i].vals = vals[i*c : i*c : (i+1)*c]
	}
	return objs
}

// Len returns the number of keys.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Keys returns the keys in order. The caller must not modify the slice.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// find returns the position of key, or -1.
func (o *Object) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// Get returns the value under key and whether it is present.
func (o *Object) Get(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	if i := o.find(key); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Has reports whether key is present.
func (o *Object) Has(key string) bool {
	_, ok := o.Get(key)
	return ok
}

// Set sets key to v, keeping the key's position if it was already present.
func (o *Object) Set(key string, v any) {
	if i := o.find(key); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	switch {
	case o.index != nil:
		o.index[key] = len(o.keys) - 1
	case len(o.keys) > smallObject:
		o.reindex()
	}
}

// reindex rebuilds the index, or drops it when the object is small.
func (o *Object) reindex() {
	if len(o.keys) <= smallObject {
		o.index = nil
		return
	}
	o.index = make(map[string]int, len(o.keys))
	for i, k := range o.keys {
		o.index[k] = i
	}
}

// Delete removes key, if present.
func (o *Object) Delete(key string) {
	if o == nil {
		return
	}
	i := o.find(key)
	if i < 0 {
		return
	}
	// fresh slices: a Keys slice handed out before stays as it was
	o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i:i], o.vals[i+1:]...)
	o.reindex()
}

// Clone returns a deep copy of o.
func (o *Object) Clone() *Object {
	if o == nil {
		return nil
	}
	c := &Object{keys: append([]string(nil), o.keys...), vals: make([]any, len(o.vals))}
	for i, v := range o.vals {
		c.vals[i] = CloneValue(v)
	}
	if o.index != nil {
		c.index = maps.Clone(o.index)
	}
	return c
}

// CloneValue returns a deep copy of a JSON value. Values outside the closed
// set are returned as they are.
func CloneValue(v any) any {
	switch t := v.(type) {
	case *Object:
		return t.Clone()
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = CloneValue(e)
		}
		return c
	default:
		return v
	}
}

// MarshalJSON writes the object as compact JSON with its keys in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	if o == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	if err := writeJSON(&b, o, false); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object, keeping key order.
func (o *Object) UnmarshalJSON(data []byte) error {
	v, err := DecodeJSON(data)
	if err != nil {
		return err
	}
	obj, ok := v.(*Object)
	if !ok {
		return fmt.Errorf("expected a JSON object, got %s", PyTypeName(v))
	}
	*o = *obj
	return nil
}

// MaxJSONDepth bounds the nesting of arrays and objects DecodeJSON reads,
// as encoding/json bounds it: the decoder and every walk over a value are
// recursive, and 8 MB of "[" nested a million levels deep overflowed the
// goroutine stack (a fatal error, not a panic), 2 MB took 3 s and 500 MB.
const MaxJSONDepth = 10000

// DecodeJSON parses one JSON document into the value model
// (nil, bool, json.Number, string, []any, *Object). Trailing data is an
// error, and so is nesting deeper than MaxJSONDepth.
func DecodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, errors.New("invalid JSON: unexpected data after the value")
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, errors.New("invalid JSON: unexpected end of input")
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth == MaxJSONDepth && (t == '{' || t == '[') {
			return nil, fmt.Errorf("invalid JSON: nested deeper than %d levels", MaxJSONDepth)
		}
		switch t {
		case '{':
			o := &Object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("invalid JSON: %w", err)
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("invalid JSON: object key %v is not a string", kt)
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("invalid JSON: %w", err)
			}
			return o, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("invalid JSON: %w", err)
			}
			return arr, nil
		default:
			return nil, fmt.Errorf("invalid JSON: unexpected %q", t)
		}
	default:
		return t, nil // nil, bool, json.Number, string
	}
}

// ToValue converts a Go value into the JSON value model. Values
// already in the model are returned as they are; anything else goes through
// encoding/json (structs, maps, typed slices, numbers).
func ToValue(v any) (any, error) {
	switch t := v.(type) {
	case nil, bool, json.Number, string, *Object:
		return v, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, err := ToValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case int:
		return json.Number(strconv.Itoa(t)), nil
	case int64:
		return json.Number(strconv.FormatInt(t, 10)), nil
	case float64:
		return floatNumber(t), nil
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := &Object{}
		for _, k := range keys {
			c, err := ToValue(t[k])
			if err != nil {
				return nil, err
			}
			o.Set(k, c)
		}
		return o, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("convert %T to a JSON value: %w", v, err)
	}
	return DecodeJSON(b)
}

// floatNumber renders a float as a JSON number literal that Python would
// read back as a float (always with a fraction or exponent).
func floatNumber(f float64) json.Number {
	return json.Number(PyFloatRepr(f))
}

// WriteJSON appends v to b as compact JSON (object keys in order), exactly
// as MarshalValue writes it, for callers that stream JSON into a buffer of
// their own. On error, b may hold part of the text.
func WriteJSON(b *bytes.Buffer, v any) error {
	return writeJSON(b, v, false)
}

// MarshalValue writes v as compact JSON (object keys in order), the wire form
// used by model providers and files.
func MarshalValue(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v, false); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// PyJSON renders v as Python's json.dumps(v, ensure_ascii=False) does: ", "
// between items, ": " after keys, keys in order, floats in Python's repr.
// This is the layout LangGraph gives non-string tool results.
func PyJSON(v any) (string, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v, true); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeJSON(b *bytes.Buffer, v any, py bool) error {
	comma, colon := ",", ":"
	if py {
		comma, colon = ", ", ": "
	}
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		s, err := jsonNumber(t, py)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case string:
		writeJSONString(b, t, py)
	case int:
		// what ToValue's json.Number(strconv.Itoa(t)) writes, without it
		var digits [20]byte
		b.Write(strconv.AppendInt(digits[:0], int64(t), 10))
	case int64:
		var digits [20]byte
		b.Write(strconv.AppendInt(digits[:0], t, 10))
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteString(comma)
			}
			if err := writeJSON(b, e, py); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *Object:
		if t == nil {
			b.WriteString("null")
			return nil
		}
		b.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				b.WriteString(comma)
			}
			writeJSONString(b, k, py)
			b.WriteString(colon)
			if err := writeJSON(b, t.vals[i], py); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		c, err := ToValue(v)
		if err != nil {
			return err
		}
		if _, same := c.(*Object); !same && reflect.TypeOf(c) == reflect.TypeOf(v) {
			return fmt.Errorf("cannot encode %T as JSON", v)
		}
		return writeJSON(b, c, py)
	}
	return nil
}

func jsonNumber(n json.Number, py bool) (string, error) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if canonicalInt(s) {
			// what the big.Int below would give back, without it
			return s, nil
		}
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return "", fmt.Errorf("invalid JSON number %q", s)
		}
		if py {
			return n.String(), nil // Python reads -0 as the integer 0
		}
		return s, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return "", fmt.Errorf("invalid JSON number %q", s)
	}
	if !py {
		return s, nil
	}
	if math.IsInf(f, 0) {
		if f > 0 {
			return "Infinity", nil
		}
		return "-Infinity", nil
	}
	return PyFloatRepr(f), nil
}

// WriteJSONString appends s to b as a JSON string, exactly as WriteJSON(b,
// s) does, without boxing s in an interface.
func WriteJSONString(b *bytes.Buffer, s string) { writeJSONString(b, s, false) }

// canonicalInt reports whether s is an integer as strconv.Itoa writes
// one: an optional '-', then digits without a leading zero (or "0").
func canonicalInt(s string) bool {
	d := strings.TrimPrefix(s, "-")
	if d == "" || (d[0] == '0' && (len(d) > 1 || len(d) < len(s))) {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

func writeJSONString(b *bytes.Buffer, s string, py bool) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		// a run of printable ASCII other than '"' and '\\' is written as it is
		j := i
		for j < len(s) && s[j] >= 0x20 && s[j] < utf8.RuneSelf && s[j] != '"' && s[j] != '\\' {
			j++
		}
		if j > i {
			b.WriteString(s[i:j])
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// invalid UTF-8: Python would have a surrogate escape; keep the
			// replacement character so the output stays valid.
			b.WriteString(`\ufffd`)
			i++
			continue
		}
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20:
				fmt.Fprintf(b, `\u%04x`, r)
			case !py && (r == 0x2028 || r == 0x2029):
				fmt.Fprintf(b, `\u%04x`, r)
			default:
				b.WriteString(s[i : i+size])
			}
		}
		i += size
	}
	b.WriteByte('"')
}

// PyFloatRepr formats f as Python's repr(float) does: the shortest digits
// that round-trip, fixed notation for exponents in [-4, 16), otherwise
// scientific with at least two exponent digits, and always a '.0' or an
// exponent so the value reads back as a float. NaN and the infinities are
// "nan", "inf" and "-inf".
func PyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±xx
	sign := ""
	if strings.HasPrefix(e, "-") {
		sign, e = "-", e[1:]
	}
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	if exp >= -4 && exp < 16 {
		var s string
		if exp >= 0 {
			if len(digits) <= exp+1 {
				s = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
			} else {
				s = digits[:exp+1] + "." + digits[exp+1:]
			}
		} else {
			s = "0." + strings.Repeat("0", -exp-1) + digits
		}
		return sign + s
	}
	m := digits[:1]
	if len(digits) > 1 {
		m += "." + digits[1:]
	}
	es := "+"
	if exp < 0 {
		es, exp = "-", -exp
	}
	return fmt.Sprintf("%s%se%s%02d", sign, m, es, exp)
}

// PyRepr renders v as Python's repr() would render the equivalent Python
// value: dicts as {'k': 'v'}, True/False/None, strings quoted the way
// Python quotes them. Several LangGraph and LangChain texts embed such
// reprs (tool-call descriptions, structured-response confirmations).
func PyRepr(v any) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

func writeRepr(b *strings.Builder, v any) {
	switch t := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if t {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case json.Number:
		s, err := jsonNumber(t, true)
		if err != nil {
			s = string(t)
		}
		switch s {
		case "Infinity":
			s = "inf"
		case "-Infinity":
			s = "-inf"
		}
		b.WriteString(s)
	case string:
		b.WriteString(PyStrRepr(t))
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e)
		}
		b.WriteByte(']')
	case *Object:
		if t == nil {
			b.WriteString("None")
			return
		}
		b.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(PyStrRepr(k))
			b.WriteString(": ")
			writeRepr(b, t.vals[i])
		}
		b.WriteByte('}')
	case int:
		b.WriteString(strconv.Itoa(t))
	case int64:
		b.WriteString(strconv.FormatInt(t, 10))
	case float64:
		b.WriteString(PyFloatRepr(t))
	default:
		c, err := ToValue(v)
		if err != nil {
			fmt.Fprintf(b, "%v", v)
			return
		}
		if _, ok := c.(*Object); !ok && reflect.TypeOf(c) == reflect.TypeOf(v) {
			fmt.Fprintf(b, "%v", v)
			return
		}
		writeRepr(b, c)
	}
}

// PyStrRepr quotes s the way Python's repr(str) does: single quotes unless
// the text holds a single quote and no double quote, backslash escapes for
// control characters, and printable Unicode kept as it is.
func PyStrRepr(s string) string {
	quote := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(quote):
			b.WriteByte('\\')
			b.WriteByte(quote)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case isPyPrintable(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	b.WriteByte(quote)
	return b.String()
}

// isPyPrintable approximates Python's str.isprintable for one rune: letters,
// marks, numbers, punctuation and symbols are printable, as is the ASCII
// space; other separators and control/format characters are not.
func isPyPrintable(r rune) bool {
	if r == ' ' {
		return true
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

// PyTypeName names the Python type of a JSON value, as pydantic and
// LangGraph print it in error texts.
func PyTypeName(v any) string {
	switch t := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(t), ".eE") {
			return "float"
		}
		return "int"
	case string:
		return "str"
	case []any:
		return "list"
	case *Object:
		return "dict"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// ValueEqual reports whether two JSON values are equal: objects compare
// without regard to key order, numbers by value.
func ValueEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		if !strings.ContainsAny(string(x), ".eE") && !strings.ContainsAny(string(y), ".eE") {
			bx, ok1 := new(big.Int).SetString(string(x), 10)
			by, ok2 := new(big.Int).SetString(string(y), 10)
			return ok1 && ok2 && bx.Cmp(by) == 0
		}
		fx, e1 := strconv.ParseFloat(string(x), 64)
		fy, e2 := strconv.ParseFloat(string(y), 64)
		return e1 == nil && e2 == nil && fx == fy
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !ValueEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Object:
		y, ok := b.(*Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.Keys() {
			yv, ok := y.Get(k)
			if !ok {
				return false
			}
			xv, _ := x.Get(k)
			if !ValueEqual(xv, yv) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(a, b)
	}
}

// Truthy is Python's bool() of a value: false for None, False, 0, 0.0,
// "", [] and {}, true for anything else (a json.Number that does not
// parse is true, as its text is not zero).
func Truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case json.Number:
		f, err := t.Float64()
		return err != nil || f != 0
	case []any:
		return len(t) > 0
	case *Object:
		return t.Len() > 0
	}
	switch r := reflect.ValueOf(v); r.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return !r.IsZero()
	}
	return true
}
