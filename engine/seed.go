package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
)

// seedOf distinguishes runs without a checkpointer so the IDs they make up
// do not collide with IDs in their own input. It is the first 32 hex
// digits of the SHA-256 of thread + "|" + the input's JSON (as
// MarshalValue(valueForJSON(input)) writes it, or fmt.Sprint(input) when
// that fails), computed once per run: the IDs made from it hash a short
// string however large the input is.
//
// The JSON is streamed into the hash one message (or scalar) at a time,
// so a long thread's input is never held as one JSON text or one value
// tree.
func seedOf(thread string, input any) string {
	h := sha256.New()
	h.Write([]byte(thread + "|"))
	var buf bytes.Buffer
	if err := hashJSON(h, &buf, input); err != nil {
		h.Reset()
		h.Write([]byte(thread + "|" + fmt.Sprint(input)))
	}
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:16])
}

// hashJSON writes writeJSON(valueForJSON(v)) to h. Containers valueForJSON
// only rebuilds (states, maps, lists, message lists) are walked here;
// anything else is encoded into buf and written.
func hashJSON(h hash.Hash, buf *bytes.Buffer, v any) error {
	object := func(keys []string, value func(k string) any) error {
		h.Write([]byte{'{'})
		for i, k := range keys {
			buf.Reset()
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, k, false)
			buf.WriteByte(':')
			h.Write(buf.Bytes())
			if err := hashJSON(h, buf, value(k)); err != nil {
				return err
			}
		}
		h.Write([]byte{'}'})
		return nil
	}
	list := func(n int, elem func(i int) error) error {
		h.Write([]byte{'['})
		for i := range n {
			if i > 0 {
				h.Write([]byte{','})
			}
			if err := elem(i); err != nil {
				return err
			}
		}
		h.Write([]byte{']'})
		return nil
	}
	switch t := v.(type) {
	case State:
		return object(sortedKeys(t), func(k string) any { return t[k] })
	case map[string]any:
		return object(sortedKeys(t), func(k string) any { return t[k] })
	case []any:
		return list(len(t), func(i int) error { return hashJSON(h, buf, t[i]) })
	case []Message:
		return list(len(t), func(i int) error {
			buf.Reset()
			if err := writeJSON(buf, t[i].ToValue(), false); err != nil {
				return err
			}
			h.Write(buf.Bytes())
			return nil
		})
	}
	buf.Reset()
	if err := writeJSON(buf, valueForJSON(v), false); err != nil {
		return err
	}
	h.Write(buf.Bytes())
	return nil
}
