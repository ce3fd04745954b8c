package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Param is one parameter of a measured case, such as n=256. Value is an
// int, a float64 or a string.
type Param struct {
	Key   string
	Value any
}

// Params are a case's parameters in the order the workload declares them.
// They serialize as a JSON object with the keys in that order.
type Params []Param

// String returns "key=value/key=value", the case's name in tables and in
// go test -bench lines.
func (p Params) String() string {
	parts := make([]string, len(p))
	for i, kv := range p {
		parts[i] = kv.Key + "=" + formatParam(kv.Value)
	}
	return strings.Join(parts, "/")
}

// Get returns the value of key.
func (p Params) Get(key string) (any, bool) {
	for _, kv := range p {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Int returns the value of key as an int (0 when it is absent or not a
// whole number).
func (p Params) Int(key string) int {
	v, _ := p.Get(key)
	switch t := v.(type) {
	case int:
		return t
	case float64:
		if t == math.Trunc(t) {
			return int(t)
		}
	}
	return 0
}

// Str returns the value of key formatted as in String.
func (p Params) Str(key string) string {
	v, ok := p.Get(key)
	if !ok {
		return ""
	}
	return formatParam(v)
}

func formatParam(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case int:
		return strconv.Itoa(t)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// MarshalJSON writes the parameters as an object, keys in order.
func (p Params) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("param %s: %w", kv.Key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object of strings and numbers, keeping the key
// order; whole numbers become ints.
func (p *Params) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*p = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("params: expected an object, got %v", tok)
	}
	var out Params
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key := kt.(string)
		vt, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := vt.(type) {
		case string:
			out = append(out, Param{key, v})
		case json.Number:
			if i, err := strconv.Atoi(v.String()); err == nil {
				out = append(out, Param{key, i})
			} else if f, err := v.Float64(); err == nil {
				out = append(out, Param{key, f})
			} else {
				return fmt.Errorf("params: %s: %w", key, err)
			}
		default:
			return fmt.Errorf("params: %s: expected a string or a number, got %v", key, vt)
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*p = out
	return nil
}
