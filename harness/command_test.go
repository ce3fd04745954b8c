package harness_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report"
)

// commandScript is the script the command agents below are answered
// from: two parallel calls, then a final answer.
const commandScript = `script:
  responses:
    - content: ""
      tool_calls:
        - {name: get_weather, args: {city: Paris}, id: call_1}
        - {name: get_weather, args: {city: London}, id: call_2}
    - content: Sunny in Paris, rainy in London.
`

// agentPrelude is a minimal Chat Completions agent in Python: post()
// sends a request, turns() yields the turns.
const agentPrelude = `import json, os, sys, urllib.request
def post(messages):
    req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps({"model": "m", "messages": messages}).encode(),
        headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})
    try:
        return json.load(urllib.request.urlopen(req))["choices"][0]["message"]
    except urllib.error.HTTPError as e:
        return {"content": "refused: %d" % e.code}
def say(v):
    print(json.dumps(v), flush=True)
`

// TestCommandAgents runs small Python programs as command agents, well
// and badly behaved, and checks what the run reports.
func TestCommandAgents(t *testing.T) {
	// A cleanup, not a defer: it runs after the parallel subtests end.
	t.Cleanup(func() { goleak.VerifyNone(t) })
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the command agents of this test are Python programs")
	}
	tests := []struct {
		name    string
		reason  string
		program string
		extra   string // more scenario lines
		timeout string // agent.timeout; default 20s
		status  report.Status
		// want are texts the result's message, or one failed
		// expectation's message, must contain
		want []string
	}{
		{
			name:   "good",
			reason: "an agent that answers both calls, in one request, passes",
			program: agentPrelude + `
for line in sys.stdin:
    msgs = [{"role": "user", "content": json.loads(line)["user"]}]
    ai = post(msgs)
    msgs.append(ai)
    for c in ai["tool_calls"]:
        msgs.append({"role": "tool", "tool_call_id": c["id"], "content": "ok"})
    say({"output": post(msgs)["content"]})
`,
			extra:  "expect:\n  final: {equals: \"Sunny in Paris, rainy in London.\"}\n  trajectory: {calls: [{name: get_weather, args: {city: Paris}}, {name: get_weather, args: {city: London}}]}\n  max_tool_calls: 2\n",
			status: report.StatusPass,
		},
		{
			name:   "drops a call",
			reason: "a call the client never answers breaks the client invariant",
			program: agentPrelude + `
for line in sys.stdin:
    msgs = [{"role": "user", "content": json.loads(line)["user"]}]
    ai = post(msgs)
    msgs.append(ai)
    msgs.append({"role": "tool", "tool_call_id": ai["tool_calls"][0]["id"], "content": "ok"})
    say({"output": post(msgs)["content"]})
`,
			status: report.StatusFail,
			want:   []string{`invariant: client answers tool calls: unanswered: request 2 (POST /v1/chat/completions, model m): tool call "call_2" in the history has no result`},
		},
		{
			name:   "bad input",
			reason: "a result for a call id no call carries is refused, as the provider would, and reported",
			program: agentPrelude + `
for line in sys.stdin:
    msgs = [{"role": "user", "content": json.loads(line)["user"]}, {"role": "tool", "tool_call_id": "nope", "content": "x"}]
    say({"output": post(msgs)["content"]})
`,
			status: report.StatusFail,
			want:   []string{`invariant: requests accepted: request 1 (POST /v1/chat/completions, model m): messages.[1].role: tool result for unknown call id "nope"`},
		},
		{
			name:   "malformed body",
			reason: "a body that is not JSON gets the provider's 400 at once, and the failure names the request",
			program: `import json, os, sys, urllib.request
sys.stdin.readline()
req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=b"{not json", headers={"Authorization": "Bearer x"})
try:
    urllib.request.urlopen(req)
except urllib.error.HTTPError as e:
    print(json.dumps({"output": "refused: %d %s" % (e.code, json.load(e)["error"]["type"])}), flush=True)
`,
			extra:  "expect:\n  final: {equals: \"refused: 400 invalid_request_error\"}\n",
			status: report.StatusFail,
			want:   []string{`invariant: requests accepted: request 1 (POST /v1/chat/completions): the body is not a request: `},
		},
		{
			name:    "hangs",
			reason:  "a program that never answers is killed at its timeout and the scenario is an error",
			program: "import sys, time\nsys.stdin.readline()\ntime.sleep(600)\n",
			timeout: "300ms",
			status:  report.StatusError,
			want:    []string{`agent.command "python3 agent.py": timed out after 300ms in turn 1, waiting for its answer line; killed`},
		},
		{
			name:    "never exits",
			reason:  "a program that answers but does not exit when stdin closes is killed too (the timeout leaves a loaded machine time to start python and answer)",
			program: "import sys, time\nsys.stdin.readline()\nprint('{\"output\": \"hi\"}', flush=True)\ntime.sleep(600)\n",
			timeout: "6s",
			status:  report.StatusError,
			want:    []string{`timed out after 6s waiting for it to exit after its last turn`},
		},
		{
			name:    "floods stdout",
			reason:  "a line past the 16 MiB bound of one stdout line is not held in memory: the turn fails naming the limit, and the program, still running, is killed",
			program: "import sys, time\nsys.stdin.readline()\nsys.stdout.write('{\"output\": \"' + 'x' * (17 << 20))\nsys.stdout.flush()\ntime.sleep(600)\n",
			status:  report.StatusFail,
			want:    []string{`AgentError: agent.command "python3 agent.py": in turn 1 it wrote a line of more than 16MiB to its stdout, the limit of one line`},
		},
		{
			name:    "crashes",
			reason:  "a program that dies before it answers fails the turn, with its stderr",
			program: "import sys\nsys.stdin.readline()\nsys.stderr.write('Traceback: boom\\n')\nsys.exit(3)\n",
			status:  report.StatusFail,
			want:    []string{`error: turns[0] failed: AgentError: agent.command "python3 agent.py": exit status 3 before it answered turn 1`, "its stderr ends:\nTraceback: boom"},
		},
		{
			name:    "reports an error",
			reason:  "an error line is the turn's error, which expect.error can expect",
			program: "import sys, json\nsys.stdin.readline()\nprint(json.dumps({'error': 'no model'}), flush=True)\n",
			extra:   "expect:\n  error: {type: AgentError, contains: no model}\n",
			status:  report.StatusPass,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "agent.py"), []byte(tc.program), 0o644); err != nil {
				t.Fatal(err)
			}
			timeout := tc.timeout
			if timeout == "" {
				timeout = "20s"
			}
			yaml := "agent:\n  kind: command\n  command: [python3, agent.py]\n  timeout: " + timeout + "\n" + commandScript + "turns:\n  - user: Weather in Paris and London?\n" + tc.extra
			path := filepath.Join(dir, "s.yaml")
			s, err := harness.Parse(path, []byte(yaml))
			if err != nil {
				t.Fatal(err)
			}
			s.Name = tc.name
			res := harness.RunScenario(context.Background(), s, harness.Options{GoldenDir: dir})
			got := res.Message + "\n"
			for _, e := range res.Expectations {
				if !e.Passed {
					got += e.Message + "\n"
				}
			}
			if res.Status != tc.status {
				t.Fatalf("%s\nstatus %s, want %s:\n%s", tc.reason, res.Status, tc.status, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s\nthe result does not say\n%s\nit says:\n%s", tc.reason, w, got)
				}
			}
		})
	}
}
