package harness_test

import (
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/harness"
)

func TestParseDecision(t *testing.T) {
	tests := []struct {
		reason, in, want, wantErr string
	}{
		{"approve alone", "approve", `{"type": "approve"}`, ""},
		{"reject without a message", "reject", `{"type": "reject"}`, ""},
		{"a reject message keeps its colons", "reject:no: not today", `{"type": "reject", "message": "no: not today"}`, ""},
		{"edit carries the whole call", `edit:{"name": "send", "args": {"to": "ann"}}`, `{"type": "edit", "edited_action": {"name": "send", "args": {"to": "ann"}}}`, ""},
		{"approve takes no argument", "approve:yes", "", "approve takes nothing after it"},
		{"edit needs a call", "edit", "", "edit needs the edited call"},
		{"edit needs JSON", "edit:{name}", "", "is not JSON"},
		{"edit needs a name", `edit:{"args": {}}`, "", `needs a "name" string`},
		{"edit args must be an object", `edit:{"name": "x", "args": [1]}`, "", `"args" must be an object`},
		{"unknown kinds list the known ones", "accept", "", "expected approve, reject[:message] or edit:"},
	}
	for _, tc := range tests {
		got, err := harness.ParseDecision(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: ParseDecision(%q) error %v, want %q", tc.reason, tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: ParseDecision(%q): %v", tc.reason, tc.in, err)
			continue
		}
		if s, _ := engine.PyJSON(got); s != tc.want {
			t.Errorf("%s: ParseDecision(%q) = %s, want %s", tc.reason, tc.in, s, tc.want)
		}
	}
}

func FuzzParseDecision(f *testing.F) {
	for _, s := range []string{"approve", "reject:why", `edit:{"name": "a", "args": {}}`, "edit:[", "edit:null", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := harness.ParseDecision(s)
		if err == nil && v == nil {
			t.Fatalf("ParseDecision(%q) = nil, nil", s)
		}
	})
}
