package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// variantScenarios are the scenarios TestPrepareNoSilentNoOps loads: a
// scripted react agent, a command agent, a template and a provider model.
var variantScenarios = map[string]string{
	"weather.yaml": "tags: [smoke]\nscript: {responses: [{content: Sunny.}]}\nturns: [{user: Weather?}]\n",
	"program.yaml": "agent: {kind: command, command: [python3, agent.py]}\nscript: {responses: [{content: Hi.}]}\nturns: [{user: hi}]\n",
	"remote.yaml":  "agent: {model: \"openai:gpt-4.1-mini\"}\nturns: [{user: hi}]\n",
	"mw.yaml":      "agent:\n  kind: agent\n  middleware: [{type: ModelCallLimitMiddleware, options: {run_limit: 3}}]\nscript: {responses: [{content: ok}]}\nturns: [{user: hi}]\n",
	"capital.yaml": "script: {responses: [{content: \"{{capital}}\"}]}\nturns:\n  - user: Capital of {{country}}?\n",
}

// TestPrepareNoSilentNoOps checks that what an eval file sets and cannot
// apply is an error at load, at its file:line:col: each case ran before
// with the setting silently ignored.
func TestPrepareNoSilentNoOps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason, src string
		want        []string
	}{
		{
			"a misspelt scenario name under scenario_thresholds is a gate that never fires",
			"scenarios: [weather.yaml]\nvariants: [{name: a}]\nscenario_thresholds:\n  wether: {pass_rate: {min: 0.9}}\n",
			[]string{`e.yaml:4:3: scenario_thresholds.wether: no selected scenario is named "wether" (did you mean "weather"?)`},
		},
		{
			"a prompt for a command agent, whose program builds its agent itself, was dropped",
			"scenarios: [program.yaml]\nvariants:\n  - name: a\n  - name: b\n    prompt: Be brief.\n    recursion_limit: 3\n",
			[]string{
				`e.yaml:5:13: variants[1].prompt: scenario program runs a command agent, whose program builds its agent itself: a variant's prompt cannot reach it; pass it through the variant's env (env: {NAME: value}) and read it in the program`,
				`e.yaml:6:22: variants[1].recursion_limit: scenario program runs a command agent, whose program builds its agent itself: a variant's recursion limit cannot reach it;`,
			},
		},
		{
			"env for an engine agent, which is no program, was dropped",
			"scenarios: [weather.yaml]\nvariants:\n  - name: a\n    env: {STYLE: short}\n",
			[]string{`e.yaml:4:10: variants[0].env: scenario weather runs a react agent, not a program: env is for agent.kind command`},
		},
		{
			"a prompt over scripted models cannot change an answer: the variant could not differ from the control",
			"scenarios: [weather.yaml]\nvariants:\n  - name: a\n  - name: b\n    prompt: Be brief.\n    params: {temperature: 0}\n",
			[]string{
				`e.yaml:5:13: variants[1].prompt: every scenario variant b runs has a scripted model, which answers from its script whatever the prompt says`,
				`e.yaml:6:13: variants[1].params: every scenario variant b runs has a scripted model, which answers from its script whatever a model parameter says`,
			},
		},
		{
			"a base_url over a scripted model reaches nothing",
			"scenarios: [weather.yaml]\nvariants:\n  - name: a\n    base_url: http://127.0.0.1:9/v1\n",
			[]string{`e.yaml:4:15: variants[0].base_url: scenario weather has a scripted model under this variant, which calls no provider`},
		},
		{
			"an openai-compatible model with no base_url anywhere would be asked at no URL",
			"scenarios: [remote.yaml]\nvariants:\n  - name: a\n    model: \"openai-compatible:qwen3\"\n",
			[]string{`e.yaml:4:12: variants[0].model: scenario remote names no base_url for openai-compatible:qwen3`},
		},
		{
			"a middleware option the middleware does not take failed every trial instead of the load",
			"scenarios: [mw.yaml]\nvariants:\n  - name: a\n    middleware: [{type: ModelCallLimitMiddleware, options: {run_limt: 1}}]\n",
			[]string{`e.yaml:4:60: variants[0].middleware[0].options: scenario mw: run_limt: unknown option: expected thread_limit, run_limit or exit_behavior`},
		},
		{
			"a misspelt tag selected nothing, silently, when another tag selected something",
			"tags: [smoke, smokey]\nvariants: [{name: a}]\n",
			[]string{`e.yaml:1:15: tags[1]: no scenario has the tag "smokey" (did you mean "smoke"?)`},
		},
		{
			"a template no dataset fills ran with its {{placeholders}} as text",
			"scenarios: [capital.yaml]\nvariants: [{name: a}]\n",
			[]string{`capital.yaml:1:32: script.responses[0].content: scenario capital is a template ({{capital}}) and no dataset of`},
		},
		{
			"an unknown key under a scenario's thresholds",
			"scenarios: [weather.yaml]\nvariants: [{name: a}]\nscenario_thresholds:\n  weather: {pass_rat: {min: 0.9}}\n",
			[]string{`e.yaml:4:13: scenario_thresholds.weather.pass_rat: unknown field "pass_rat" (did you mean "pass_rate"?)`},
		},
		{
			"an unknown key in a variant and in a dataset, reported at once",
			"scenarios: [capital.yaml]\nvariants: [{name: a, promt: x}]\ndatasets: [{scenario: capital, rowz: []}]\n",
			[]string{`e.yaml:2:22: variants[0].promt: unknown field "promt" (did you mean "prompt"?)`, `e.yaml:3:32: datasets[0].rowz: unknown field "rowz" (did you mean "rows"?)`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			_, err := prepareFile(t, tc.src)
			if err == nil {
				t.Fatalf("%s\nno error, want:\n%s", tc.reason, strings.Join(tc.want, "\n"))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s\nthe error does not say\n%s\nit says:\n%s", tc.reason, w, err)
				}
			}
		})
	}
}

// prepareFile writes the scenarios and an eval file, e.yaml, into a new
// folder and prepares it.
func prepareFile(t *testing.T, src string) (*Plan, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range variantScenarios {
		if err := os.WriteFile(filepath.Join(dir, "scenarios", name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "e.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		return nil, err
	}
	return Prepare(f)
}

// TestPrepareWarnsSameAsControl: a variant that runs every scenario as the
// control does is worth a warning (an A/A comparison is a real use), and
// only such a variant.
func TestPrepareWarnsSameAsControl(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason, src string
		want        []string // the warnings, after "<file>:"
	}{
		{"two variants alike over a provider model: an A/A comparison",
			"scenarios: [remote.yaml]\nvariants:\n  - name: a\n  - name: b\n    description: the same again\n",
			[]string{"4:5: variants[1]: variant b runs every scenario as the control a does: its trials sample the same agent: it can differ from a only by chance"}},
		{"a variant that sets the scenario's own model changes nothing",
			"scenarios: [remote.yaml]\nvariants:\n  - name: a\n  - name: b\n    model: \"openai:gpt-4.1-mini\"\n  - name: c\n    model: \"openai:gpt-4.1\"\n",
			[]string{"4:5: variants[1]: variant b runs every scenario as the control a does: its trials sample the same agent: it can differ from a only by chance"}},
		{"a command agent's variants alike but for their name, which the program sees",
			"scenarios: [program.yaml]\nvariants:\n  - name: a\n  - name: b\n  - name: c\n    env: {STYLE: short}\n",
			[]string{"4:5: variants[1]: variant b runs every scenario as the control a does: its trials sample the same agent: it can differ from a only by chance (or by a program that reads AGENTEVAL_VARIANT)"}},
		{"two variants alike but unlike the control",
			"scenarios: [remote.yaml]\nvariants:\n  - name: a\n  - name: b\n    params: {temperature: 0}\n  - name: c\n    params: {temperature: 0}\n",
			[]string{"6:5: variants[2]: variant c runs every scenario as variant b does: its trials sample the same agent: it can differ from b only by chance"}},
		{"variants that differ get no warning", "scenarios: [weather.yaml]\nvariants:\n  - name: a\n  - name: b\n    recursion_limit: 3\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			p, err := prepareFile(t, tc.src)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range p.Warnings() {
				_, after, _ := strings.Cut(w, ".yaml:")
				got = append(got, after)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nwarnings mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
