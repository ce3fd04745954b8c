package harness_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agenteval/agenteval/harness"
)

// TestLoadExternalAgents checks the rules of the "go" and "command"
// kinds, each problem at its place in the file.
func TestLoadExternalAgents(t *testing.T) {
	tests := []struct {
		name, reason, yaml string
		want               []string
	}{
		{
			name:   "command without command",
			reason: "a command agent needs its program",
			yaml:   "agent:\n  kind: command\nscript: {responses: []}\nturns: [{user: hi}]\n",
			want:   []string{`s.yaml:2:9: agent.command: missing: a "command" agent needs the program to run, e.g. command: [node, agent.mjs]`},
		},
		{
			name:   "command fields on react",
			reason: "command, env, timeout and dir belong to kind command only",
			yaml:   "agent:\n  command: [node, a.mjs]\n  timeout: 5s\nscript: {responses: []}\nturns: [{user: hi}]\n",
			want: []string{
				`s.yaml:2:3: agent.command: only for agent.kind "command", not "react"`,
				`s.yaml:3:3: agent.timeout: only for agent.kind "command", not "react"`,
			},
		},
		{
			name:   "bad timeout",
			reason: "a timeout is a positive Go duration",
			yaml:   "agent:\n  kind: command\n  command: [node]\n  timeout: 0s\nscript: {responses: []}\nturns: [{user: hi}]\n",
			want:   []string{`s.yaml:4:12: agent.timeout: "0s" is not a positive duration such as "90s" or "2m"`},
		},
		{
			name:   "engine settings on a command",
			reason: "the program builds its agent: a prompt, tools or threads would be ignored",
			yaml: "agent:\n  kind: command\n  command: [node]\n  prompt: hi\nscript: {responses: []}\n" +
				"tools: [{name: t, go: true}]\nturns:\n  - {user: hi, thread: other}\n  - update_state: {x: 1}\n",
			want: []string{
				`s.yaml:4:3: agent.prompt: not for a "command" agent: the program builds its agent itself`,
				`s.yaml:6:1: tools: not for a "command" agent: its tools are the program's own (expect.trajectory checks the calls it makes)`,
				`s.yaml:8:16: turns[0].thread: a "command" agent runs one conversation: threads are the program's own`,
				`s.yaml:9:5: turns[1].update_state: a "command" agent takes user, resume and decisions turns, not update_state`,
			},
		},
		{
			name:   "replay and base_url on a scripted command",
			reason: "a scripted model has no cassette to replay by order and nothing to record from a base URL",
			yaml:   "agent:\n  kind: command\n  command: [node]\n  replay: by-order\n  base_url: http://127.0.0.1:8000/v1\nscript: {responses: []}\nturns: [{user: hi}]\n",
			want: []string{
				`s.yaml:4:3: agent.replay: a scripted model answers from script: replay says how a provider model's cassette is replayed`,
				`s.yaml:5:3: agent.base_url: a scripted model answers from script: base_url names the endpoint a provider model ("openai-compatible:NAME", "openai:...", "anthropic:...") records from`,
			},
		},
		{
			name:   "replay values, a bad base_url",
			reason: "by-order is the one opt-in; a base URL is an http(s) URL with a host",
			yaml:   "agent:\n  kind: command\n  command: [node]\n  model: openai:gpt-4.1-mini\n  replay: by-position\n  base_url: ftp://h/v1\nturns: [{user: hi}]\n",
			want: []string{
				`s.yaml:5:11: agent.replay: unknown replay "by-position": expected "by-order"`,
				`s.yaml:6:13: agent.base_url: "ftp://h/v1": expected an http or https URL with a host, such as "http://127.0.0.1:8000/v1"`,
			},
		},
		{
			name:   "openai-compatible command without base_url",
			reason: "an openai-compatible model has no public endpoint: a record run would have nowhere to go but a host the scenario does not name",
			yaml:   "agent:\n  kind: command\n  command: [node]\n  model: openai-compatible:qwen3\nturns: [{user: hi}]\n",
			want:   []string{`s.yaml:4:10: agent.base_url: missing: an "openai-compatible" model needs the server's base_url`},
		},
		{
			name:   "replay on react",
			reason: "replay is a command agent's field",
			yaml:   "agent:\n  model: openai:gpt-4.1-mini\n  replay: by-order\nturns: [{user: hi}]\n",
			want:   []string{`s.yaml:3:3: agent.replay: only for agent.kind "command", not "react"`},
		},
		{
			name:   "go without name",
			reason: "a Go agent is found by its name",
			yaml:   "agent:\n  kind: go\nscript: {responses: []}\nturns: [{user: hi}]\n",
			want:   []string{`s.yaml:2:9: agent.name: missing: a "go" agent names the agent the program registers (Options.Agents)`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := harness.Parse("s.yaml", []byte(tc.yaml))
			var le *harness.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("%s\nParse: %v, want a *LoadError", tc.reason, err)
			}
			var got []string
			for _, p := range le.Problems {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nParse mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
