package main

import (
	"strings"
	"testing"
)

func TestSchemaCommand(t *testing.T) {
	tests := []struct {
		reason string
		args   []string
		want   string
	}{
		{"the scenario files' schema by default", []string{"schema"}, `"$id": "https://agenteval.dev/schema/scenario/v1.json"`},
		{"the eval files' with --eval", []string{"schema", "--eval"}, `"$id": "https://agenteval.dev/schema/eval/v1.json"`},
	}
	for _, tc := range tests {
		code, out, _ := runCLI(tc.args...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%s: %v: exit %d, output %.200s", tc.reason, tc.args, code, out)
		}
	}
}
