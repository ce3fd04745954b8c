package harness_test

import (
	"context"
	"testing"

	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
)

// TestTemplateSkipped checks that a scenario template (a {{name}} in a
// string value) is not run unfilled: run skips it, naming the
// placeholder and where it is. Before, it ran with "{{city}}" as text.
func TestTemplateSkipped(t *testing.T) {
	tests := []struct {
		name, reason, yaml string
		// want is the skip message, "" when the scenario runs
		want string
	}{
		{"turn", "a placeholder in a turn makes a template", "script: {responses: [{content: ok}]}\nturns:\n  - user: Weather in {{ city }}?\n",
			"a template: {{city}} at t.yaml:3:11 (turns[0].user) is filled by an eval's dataset (agenteval eval), and a template does not run unfilled"},
		{"expect", "a placeholder in an expectation too, found in file order", "script: {responses: [{content: ok}]}\nturns:\n  - user: hi\nexpect:\n  final: {equals: \"{{answer}}\"}\n",
			"a template: {{answer}} at t.yaml:5:19 (expect.final.equals) is filled by an eval's dataset (agenteval eval), and a template does not run unfilled"},
		{"braces", "braces that are not a placeholder (no name inside) do not make a template", "script: {responses: [{content: ok}]}\nturns:\n  - user: \"{{}} and {{ 1x }}\"\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := harness.Parse("t.yaml", []byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			res := harness.RunScenario(context.Background(), s, harness.Options{})
			if tc.want == "" {
				if res.Status == report.StatusSkip {
					t.Errorf("%s\nskipped: %s", tc.reason, res.Message)
				}
				return
			}
			if res.Status != report.StatusSkip || res.Message != tc.want {
				t.Errorf("%s\nstatus %s, message\n%s\nwant skip with\n%s", tc.reason, res.Status, res.Message, tc.want)
			}
		})
	}
}
