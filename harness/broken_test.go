package harness_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
)

// lineOf is the 1-based number of the first line of file that starts with
// prefix, 0 when none does.
func lineOf(t *testing.T, file, prefix string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("%s: no line starts with %q", file, prefix)
	return 0
}

// TestRunTimeFailuresPointIntoTheFile runs the deliberately broken copies
// of corpus scenarios under testdata/broken, one per kind of run-time
// failure, and checks that each failure names the scenario file and the
// line of the expectation or turn it concerns.
func TestRunTimeFailuresPointIntoTheFile(t *testing.T) {
	const root = "testdata/broken/scenarios"
	tests := []struct {
		name   string
		reason string
		status report.Status
		at     string // the failure's line is the first line starting with this
	}{
		{"trajectory", "a wrong call is at its expectation's key", report.StatusFail, "  trajectory:"},
		{"final", "a wrong answer is at final's key", report.StatusFail, "  final:"},
		{"structured_response", "a wrong structured value is at structured_response's key", report.StatusFail, "  structured_response:"},
		{"interrupts", "a wrong interrupt value is at interrupts' key", report.StatusFail, "  interrupts:"},
		{"max_model_calls", "a limit is at its own key", report.StatusFail, "  max_model_calls:"},
		{"max_tool_calls", "a limit is at its own key", report.StatusFail, "  max_tool_calls:"},
		{"max_steps", "a limit is at its own key", report.StatusFail, "  max_steps:"},
		{"max_tokens", "a limit is at its own key", report.StatusFail, "  max_tokens:"},
		{"max_cost", "a limit is at its own key (a provider model, priced)", report.StatusFail, "  max_cost:"},
		{"error_expectation", "an expected error that did not happen is at error's key", report.StatusFail, "  error:"},
		{"exhausted_script", "a failed turn is at the turn: the script ran out during it", report.StatusFail, "  - user:"},
		{"golden_mismatch", "a transcript that differs from its golden file is at golden's key", report.StatusFail, "  golden:"},
		{"invariant", "an invariant is at the turn of its first violation, the update_state turn", report.StatusFail, "  - update_state:"},
		{"cassette_miss", "a cassette miss stops the scenario at the turn whose request is not recorded", report.StatusError, "  - user:"},
		{"tool_unmatched", "a call no scripted result answers is at the tool", report.StatusError, "  - name: get_weather"},
		{"streamed", "streamed chunks that break elsewhere than expected are at streamed's key", report.StatusFail, "  streamed:"},
	}
	opts := harness.Options{CassetteDir: "testdata/broken/cassettes", GoldenDir: "testdata/broken/golden", Transport: noNetwork{t}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(root, tt.name+".yaml")
			scenarios, err := harness.LoadDir(root, file)
			if err != nil {
				t.Fatal(err)
			}
			s := scenarios[0]
			res := harness.RunScenario(context.Background(), s, opts)
			if res.Status != tt.status {
				t.Fatalf("RunScenario(%s) (%s): status %s, want %s: %s", file, tt.reason, res.Status, tt.status, res.Message)
			}
			want := fmt.Sprintf("%s:%d", file, lineOf(t, file, tt.at))
			if got := res.Location(); got != want {
				t.Errorf("RunScenario(%s) (%s): located at %s, want %s\n%s", file, tt.reason, got, want, res.Message)
			}
			if res.Status == report.StatusError && !strings.HasPrefix(res.Message, want+": ") {
				t.Errorf("RunScenario(%s) (%s): error message does not start with %s: %s", file, tt.reason, want, res.Message)
			}
			for _, e := range res.Expectations {
				if !e.Passed && (e.File != file || e.Line == 0) {
					t.Errorf("RunScenario(%s): failed expectation %q has no place in the file: file %q line %d", file, e.Name, e.File, e.Line)
				}
				if e.Passed && (e.File != "" || e.Line != 0) {
					t.Errorf("RunScenario(%s): passing expectation %q is located (%s:%d): passing reports must not change with line numbers", file, e.Name, e.File, e.Line)
				}
			}
		})
	}
}
