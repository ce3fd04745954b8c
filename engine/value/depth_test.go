package value

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDecodeJSONDepth: DecodeJSON reads what encoding/json reads, up to
// MaxJSONDepth levels, and refuses deeper nesting with an error. Before
// the bound, a million levels (8 MB of brackets, as a tool call's
// arguments in a cassette or a request to agenteval serve) overflowed the
// goroutine stack: a fatal error that no recover catches.
func TestDecodeJSONDepth(t *testing.T) {
	nested := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	tests := []struct {
		reason string
		doc    string
		ok     bool
	}{
		{"arrays exactly MaxJSONDepth deep are read", nested("[", "]", MaxJSONDepth), true},
		{"one level more is refused", nested("[", "]", MaxJSONDepth+1), false},
		{"objects count as arrays do", nested(`{"a":`, "}", MaxJSONDepth), true},
		{"objects one level too deep", nested(`{"a":`, "}", MaxJSONDepth+1), false},
		{"a million levels end in an error, not a crash", nested("[", "]", 1_000_000), false},
		{"an unterminated million levels too", strings.Repeat("[", 1_000_000), false},
	}
	for _, tc := range tests {
		_, err := DecodeJSON([]byte(tc.doc))
		if tc.ok != (err == nil) {
			t.Errorf("%s: DecodeJSON = %v, want ok %v", tc.reason, err, tc.ok)
		}
		if !tc.ok && err != nil && !strings.Contains(err.Error(), "nested deeper than 10000 levels") {
			t.Errorf("%s: DecodeJSON = %v, want the depth named", tc.reason, err)
		}
		// encoding/json draws the line at the same depth
		var v any
		if jerr := json.Unmarshal([]byte(tc.doc), &v); (jerr == nil) != tc.ok && !strings.HasPrefix(tc.reason, "an unterminated") {
			t.Errorf("%s: encoding/json = %v, DecodeJSON ok %v: the bounds differ", tc.reason, jerr, tc.ok)
		}
	}
}
