package conformance

import (
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
)

func val(t *testing.T, s string) any {
	t.Helper()
	v, err := engine.DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("DecodeJSON(%s): %v", s, err)
	}
	return v
}

func TestMatch(t *testing.T) {
	tests := []struct {
		reason    string
		want, got string
		diff      string // substring of the difference, "" when they match
	}{
		{"a <uuid> placeholder takes any id", `{"id":"<uuid>"}`, `{"id":"0b3c"}`, ""},
		{"a <uuid> placeholder needs an id", `{"id":"<uuid>"}`, `{"id":""}`, `.id: want "<uuid>" got ""`},
		{"null ids are not generated ids", `{"id":"<uuid>"}`, `{"id":null}`, `want "<uuid>" got null`},
		{"placeholders inside strings match ids", `"[{\"id\": \"<uuid>\"}]"`, `"[{\"id\": \"abc-1\"}]"`, ""},
		{"$match uses the regexp", `{"$match":"^Error: \\d+ errors?$"}`, `"Error: 2 errors"`, ""},
		{"$match reports the miss", `{"$match":"^x$"}`, `"y"`, `want {"$match":"^x$"} got "y"`},
		{"object key order does not matter", `{"a":1,"b":2}`, `{"b":2,"a":1}`, ""},
		{"extra keys are differences", `{"a":1}`, `{"a":1,"b":2}`, `.b: want nothing got 2`},
		{"missing keys are differences", `{"a":1,"b":2}`, `{"a":1}`, `.b: want 2 got nothing`},
		{"list lengths must agree", `[1,2]`, `[1,2,3]`, `want 2 items`},
		{"numbers compare by value", `2.0`, `2`, ""},
		{"strings compare exactly", `"a"`, `"a "`, `want "a" got "a "`},
	}
	for _, tc := range tests {
		d := match("x", val(t, tc.want), val(t, tc.got))
		if tc.diff == "" && d != "" || tc.diff != "" && !strings.Contains(d, tc.diff) {
			t.Errorf("%s: match = %q, want %q", tc.reason, d, tc.diff)
		}
	}
}

func TestMatchUpdatesGroups(t *testing.T) {
	want := val(t, `[{"a":1},{"t":1},{"t":2},{"a":2}]`)
	groups := val(t, `[1,2,2,3]`)
	tests := []struct {
		reason      string
		got, groups string
		diff        string
	}{
		{"chunks of one group may come in any order", `[{"a":1},{"t":2},{"t":1},{"a":2}]`, `[1,2,2,3]`, ""},
		{"groups must come in order", `[{"a":2},{"t":1},{"t":2},{"a":1}]`, `[1,2,2,3]`, "group 1"},
		{"a chunk in the wrong group is a difference", `[{"a":1},{"t":1},{"t":2},{"a":2}]`, `[1,2,3,3]`, "group 2"},
		{"a missing chunk is a difference", `[{"a":1},{"t":1},{"a":2}]`, `[1,2,3]`, "want 2 chunks"},
	}
	for _, tc := range tests {
		d := matchUpdates("updates", want, groups, val(t, tc.got), val(t, tc.groups))
		if tc.diff == "" && d != "" || tc.diff != "" && !strings.Contains(d, tc.diff) {
			t.Errorf("%s: matchUpdates = %q, want %q", tc.reason, d, tc.diff)
		}
	}
}

func TestRelaxUUIDs(t *testing.T) {
	in := val(t, `{"c":"id='53b291d2-f133-4215-b44e-23686d347ae8' and ai1"}`)
	out := relaxUUIDs(in)
	if d := match("x", out, val(t, `{"c":"id='0b3c1d2e-0000-8000-8000-000000000001' and ai1"}`)); d != "" {
		t.Errorf("a relaxed UUID should match any UUID: %s", d)
	}
	if d := match("x", out, val(t, `{"c":"id='x' and ai2"}`)); d == "" {
		t.Error("the text around a relaxed UUID must still match exactly")
	}
}
