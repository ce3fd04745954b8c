package value

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// writeJSONStringReference is writeJSONString as it was first written,
// one rune at a time: the run of plain ASCII written at once must not
// change a byte of any JSON text (IDs and seeds hash these texts).
func writeJSONStringReference(b *bytes.Buffer, s string, py bool) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
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

// jsonNumberReference is jsonNumber's integer branch without the fast
// path for canonical integers.
func jsonNumberReference(s string, py bool) (string, error) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return "", fmt.Errorf("invalid JSON number %q", s)
	}
	if py {
		return n.String(), nil
	}
	return s, nil
}

// TestPropJSONFastPathsMatchReference: the fast paths of the JSON writer
// (runs of plain ASCII in strings, ints written without a json.Number,
// canonical integers not parsed into a big.Int) give the bytes and errors
// of the plain formulation, for strings of any bytes (invalid UTF-8,
// controls, quotes, U+2028) and for integers and integer-like texts.
func TestPropJSONFastPathsMatchReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		piece := rapid.SampledFrom([]string{"a", "Z", " ", "~", "\x7f", "\"", "\\", "\n", "\x00", "\x1f", "é", "\u2028", "\u2029", "\xff", "\xe2\x80", "😀", "0", "-"})
		var sb strings.Builder
		for range rapid.IntRange(0, 12).Draw(t, "pieces") {
			sb.WriteString(piece.Draw(t, "piece"))
		}
		s := sb.String()
		for _, py := range []bool{false, true} {
			var got, want bytes.Buffer
			writeJSONString(&got, s, py)
			writeJSONStringReference(&want, s, py)
			if got.String() != want.String() {
				t.Fatalf("writeJSONString(%q, py=%v) = %s, reference %s", s, py, got.String(), want.String())
			}
		}

		i := rapid.Int().Draw(t, "int")
		var got, want bytes.Buffer
		if err := WriteJSON(&got, i); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&want, json.Number(strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("WriteJSON(%d) = %s, as a json.Number %s", i, got.String(), want.String())
		}

		// integer-like texts: digits with signs and leading zeros, some
		// not numbers at all
		digit := rapid.SampledFrom([]string{"0", "1", "9", "-", "+", "x", " "})
		var nb strings.Builder
		for range rapid.IntRange(0, 6).Draw(t, "digits") {
			nb.WriteString(digit.Draw(t, "digit"))
		}
		n := nb.String()
		for _, py := range []bool{false, true} {
			got, gerr := jsonNumber(json.Number(n), py)
			want, werr := jsonNumberReference(n, py)
			if strings.ContainsAny(n, ".eE") {
				continue
			}
			if got != want || (gerr == nil) != (werr == nil) {
				t.Fatalf("jsonNumber(%q, py=%v) = %q, %v; reference %q, %v", n, py, got, gerr, want, werr)
			}
		}
	})
}
