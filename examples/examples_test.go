// Package examples_test runs the agents under examples/, each written
// with a library no one here wrote, offline against agenteval's model
// server: every example passes its scenarios, and its deliberately broken
// copies fail them with a readable diff. An example with recorded
// scenarios (a provider model, its cassette recorded from a local
// server) replays them by request content: each edit of its agent (the
// prompt, the tool list, a tool result) fails the replay with the
// closest recorded request and the body diff.
package examples_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/harness/harnesstest"
	"github.com/agenteval/agenteval/report"
)

// example is one folder under examples/.
type example struct {
	// dir is the folder; its scenarios are in dir/scenarios and their
	// golden transcripts in dir/golden.
	dir string
	// runtime is the program the scenarios' commands start: "node"
	// (with the folder's package-lock.json installed by npm ci) or
	// "python3".
	runtime string
	// agent is the agent's file, as the scenarios' commands name it.
	agent string
	// broken are the agent's broken copies, each run in place of agent
	// in every command of the scripted scenarios (dir/scenarios).
	broken []brokenCopy
	// edits are changes made to the agent that a replay by request
	// content must notice: each is run, written next to the agent, in
	// place of it in the recorded scenarios (dir/recorded, their
	// cassettes in dir/cassettes, recorded by TestRecordExampleCassettes).
	edits []agentEdit
}

// brokenCopy is a broken copy of an example's agent, committed next to
// it, and the texts its failures must show, each in some failed
// expectation's message or diff.
type brokenCopy struct {
	file string
	want []string
}

// nodeEdits are the edits of a JavaScript example's agent (the five
// share their prompt, tool and weather table): its prompt, its tool's
// description, the result its tool sends back for London. Each fails
// the replay of dir's recorded scenario; prompt, tools and result are
// what the failure shows for each edit, in the protocol the example's
// library speaks: where the body differs and the body diff's lines.
func nodeEdits(dir string, prompt, tools, result []string) []agentEdit {
	miss := "replay: no recorded request of cassette " + dir + "/cassettes/parallel.yaml matches it"
	rerecord := "record again: agenteval run --mode record --overwrite " + dir + "/recorded/parallel.yaml"
	with := func(lines []string) []string {
		return append([]string{miss, rerecord, "body (-recorded +requested):"}, lines...)
	}
	return []agentEdit{
		{name: "prompt", old: `"You are a helpful weather assistant.`, new: `"You are a weather assistant. Answer in one word.`, want: with(prompt)},
		{name: "tools", old: `"Get the current weather in a city."`, new: `"Get the weather."`, want: with(tools)},
		{name: "tool result", old: `London: "rainy, 14°C"`, new: `London: "foggy, 9°C"`, want: with(result)},
	}
}

// chatTools is how an edited tool description shows in a Chat
// Completions request.
var chatTools = []string{
	"differs in: body at tools[0].function.description",
	`-         "description": "Get the current weather in a city."`,
	`+         "description": "Get the weather."`,
}

// chatPrompt is how the edited prompt shows in a Chat Completions
// request.
var chatPrompt = []string{
	"differs in: body at messages[0].content[0].text",
	`-           "text": "You are a helpful weather assistant."`,
	`+           "text": "You are a weather assistant. Answer in one word."`,
}

// agentEdit is a change to an example's agent: old replaced by new in
// its source, and the texts the replay's failures must show.
type agentEdit struct {
	name, old, new string
	want           []string
}

var examples = []example{
	{
		dir: "python-agent", runtime: "python3", agent: "../agent.py",
		broken: []brokenCopy{{
			file: "../agent_broken.py",
			// it answers only the first call of an answer with two
			want: []string{`invariant: client answers tool calls: unanswered: request 2 (POST /v1/chat/completions, model gpt-4.1-mini): tool call "call_london" in the history has no result`},
		}},
		edits: []agentEdit{{
			name: "prompt", old: `"You are a helpful weather assistant."`, new: `"You are a weather assistant. Answer in one word."`,
			want: []string{
				"request 1 (POST /v1/chat/completions, model gpt-4.1-mini): replay: no recorded request of cassette python-agent/cassettes/parallel.yaml matches it",
				"differs in: body at messages[0].content[0].text",
				`-           "text": "You are a helpful weather assistant."`,
				`+           "text": "You are a weather assistant. Answer in one word."`,
			},
		}, {
			name: "tools", old: `"description": "Get the current weather in a city."`, new: `"description": "Get the weather."`,
			want: []string{
				"differs in: body at tools[0].function.description",
				`-         "description": "Get the current weather in a city."`,
				`+         "description": "Get the weather."`,
			},
		}, {
			name: "tool result", old: `"London": "rainy, 14°C"`, new: `"London": "foggy, 9°C"`,
			want: []string{
				"request 2 (POST /v1/chat/completions, model gpt-4.1-mini): replay: no recorded request of cassette python-agent/cassettes/parallel.yaml matches it",
				"differs in: body at messages[4].content[0].text",
				`-           "text": "rainy, 14°C"`,
				`+           "text": "foggy, 9°C"`,
			},
		}},
	},
	{
		dir: "langgraph-react", runtime: "node", agent: "../agent.mjs",
		edits: nodeEdits("langgraph-react", chatPrompt, chatTools, []string{
			"differs in: body at messages[4].content[0].text",
			`-           "text": "rainy, 14°C"`,
			`+           "text": "foggy, 9°C"`,
		}),
		broken: []brokenCopy{{
			file: "../agent.broken.mjs",
			// its tool answers every city with the weather of Paris
			want: []string{`+     + tool get_weather [-] ← call_london "sunny, 21°C"`},
		}},
	},
	{
		dir: "openai-agents", runtime: "node", agent: "../agent.mjs",
		// the Agents SDK speaks Responses
		edits: nodeEdits("openai-agents", []string{
			"differs in: body at instructions",
			`-   "instructions": "You are a helpful weather assistant."`,
			`+   "instructions": "You are a weather assistant. Answer in one word."`,
		}, []string{
			"differs in: body at tools[0].description",
			`-       "description": "Get the current weather in a city."`,
			`+       "description": "Get the weather."`,
		}, []string{
			"differs in: body at input[4].output",
			`-       "output": "rainy, 14°C"`,
			`+       "output": "foggy, 9°C"`,
		}),
		broken: []brokenCopy{{
			file: "../agent.broken.mjs",
			// its tool declares "location" where the model sends "city"
			want: []string{`-     + tool get_weather [-] ← call_london "rainy, 14°C"`},
		}},
	},
	{
		dir: "vercel-ai", runtime: "node", agent: "../agent.mjs",
		// the AI SDK sends a tool's result as JSON text
		edits: nodeEdits("vercel-ai", chatPrompt, chatTools, []string{
			"differs in: body at messages[4].content[0].text",
			`-           "text": "\"rainy, 14°C\""`,
			`+           "text": "\"foggy, 9°C\""`,
		}),
		broken: []brokenCopy{{
			file: "../agent.broken.mjs",
			// it forgets maxSteps: the tool results never reach the model
			want: []string{`invariant: client answers tool calls: dangling: request 1: tool call "call_london" of its answer was never answered`},
		}},
	},
	{
		dir: "langchain-agent", runtime: "node", agent: "../agent.mjs",
		// LangChain.js's Anthropic model speaks Messages
		edits: nodeEdits("langchain-agent", []string{
			"differs in: body at system[0].text",
			`-       "text": "You are a helpful weather assistant. You can email the weather."`,
			`+       "text": "You are a weather assistant. Answer in one word. You can email the weather."`,
		}, []string{
			"differs in: body at tools[0].description",
			`-       "description": "Get the current weather in a city."`,
			`+       "description": "Get the weather."`,
		}, []string{
			"differs in: body at messages[2].content[1].content[0].text",
			`-               "text": "rainy, 14°C"`,
			`+               "text": "foggy, 9°C"`,
		}),
		broken: []brokenCopy{{
			file: "../agent.broken.mjs",
			// it resumes the human-in-the-loop middleware with a bare list
			want: []string{`turns[1] failed: AgentError: Invalid HITLResponse: decisions must be a non-empty array`},
		}},
	},
	{
		dir: "google-adk", runtime: "node", agent: "../agent.mjs",
		// ADK puts the agent's name and description before its
		// instruction in Gemini's systemInstruction
		edits: nodeEdits("google-adk", []string{
			"differs in: body at systemInstruction.parts[0].text",
			`-         "text": "You are an agent. Your internal name is \"weather_agent\".\n\nThe description about you is \"Answers questions about the weather.\"\n\nYou are a helpful weather assistant."`,
			`+         "text": "You are an agent. Your internal name is \"weather_agent\".\n\nThe description about you is \"Answers questions about the weather.\"\n\nYou are a weather assistant. Answer in one word."`,
		}, []string{
			"differs in: body at tools[0].functionDeclarations[0].description",
			`-           "description": "Get the current weather in a city."`,
			`+           "description": "Get the weather."`,
		}, []string{
			"differs in: body at contents[2].parts[1].functionResponse.response.result",
			`-               "result": "rainy, 14°C"`,
			`+               "result": "foggy, 9°C"`,
		}),
		broken: []brokenCopy{{
			file: "../agent.broken.mjs",
			// its tool answers every city with the weather of Paris
			want: []string{`+     + tool get_weather [-] ← call_london "sunny, 21°C"`},
		}},
	},
}

func TestExamples(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.dir, func(t *testing.T) {
			ex.prepare(t)
			t.Run("passes", func(t *testing.T) {
				harnesstest.RunT(t, filepath.Join(ex.dir, "scenarios"), harness.Options{GoldenDir: filepath.Join(ex.dir, "golden")})
			})
			for _, b := range ex.broken {
				t.Run("broken copy "+filepath.Base(b.file)+" fails", func(t *testing.T) {
					ex.testFails(t, "scenarios", b.file, b.want)
				})
			}
			if len(ex.edits) == 0 {
				return
			}
			t.Run("recorded passes", func(t *testing.T) {
				harnesstest.RunT(t, filepath.Join(ex.dir, "recorded"), harness.Options{CassetteDir: filepath.Join(ex.dir, "cassettes"), Transport: offline{t}})
			})
			for _, e := range ex.edits {
				t.Run("edited "+e.name+" fails replay", func(t *testing.T) {
					ex.testFails(t, "recorded", ex.edit(t, e), e.want)
				})
			}
		})
	}
}

// offline fails every request: a replay never reaches a provider.
type offline struct{ t *testing.T }

func (o offline) RoundTrip(req *http.Request) (*http.Response, error) {
	o.t.Errorf("network used during replay: %s %s", req.Method, req.URL)
	return nil, os.ErrPermission
}

// edit writes the agent with e's change next to it (so a node agent
// finds its node_modules), removed when the test ends, and returns its
// path as the scenarios' commands name it.
func (ex example) edit(t *testing.T, e agentEdit) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(ex.dir, "scenarios", ex.agent))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(e.old)) {
		t.Fatalf("%s does not hold %s: update the edit %q", ex.agent, e.old, e.name)
	}
	ext := filepath.Ext(ex.agent)
	name := "agent.edited-" + strings.ReplaceAll(e.name, " ", "-") + ext
	path := filepath.Join(ex.dir, name)
	if err := os.WriteFile(path, bytes.Replace(src, []byte(e.old), []byte(e.new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(path) })
	return "../" + name
}

// testFails runs the example's scenarios in folder (scenarios, or
// recorded replayed from their cassettes, offline) with agent in place
// of the example's, and checks that they fail and show every text of
// want.
func (ex example) testFails(t *testing.T, folder, agent string, want []string) {
	scenarios, err := harness.LoadDir(filepath.Join(ex.dir, folder))
	if err != nil {
		t.Fatal(err)
	}
	opts := harness.Options{GoldenDir: filepath.Join(ex.dir, "golden"), CassetteDir: filepath.Join(ex.dir, "cassettes"), Transport: offline{t}}
	var failures strings.Builder
	failed := 0
	for _, s := range scenarios {
		s := *s
		i := slices.Index(s.Agent.Command, ex.agent)
		if i < 0 {
			t.Fatalf("%s: agent.command %q does not run %s", s.File, s.Agent.Command, ex.agent)
		}
		s.Agent.Command = slices.Clone(s.Agent.Command)
		s.Agent.Command[i] = agent
		res := harness.RunScenario(context.Background(), &s, opts)
		switch res.Status {
		case report.StatusError:
			t.Errorf("%s: the changed agent could not run: %s", s.Name, res.Message)
		case report.StatusFail:
			failed++
			fmt.Fprintf(&failures, "--- %s\n", s.Name)
			for _, e := range res.Expectations {
				if !e.Passed {
					fmt.Fprintf(&failures, "%s\n%s", e.Message, e.Diff)
				}
			}
		}
	}
	if failed == 0 {
		t.Fatalf("every scenario passed with %s: the change went unnoticed", agent)
	}
	t.Logf("%d of %d scenarios fail with %s:\n%s", failed, len(scenarios), agent, failures.String())
	for _, w := range want {
		if !strings.Contains(failures.String(), w) {
			t.Errorf("the failures with %s do not show\n%s\nthey are:\n%s", agent, w, failures.String())
		}
	}
}

// prepare skips the example when its runtime is missing, and installs a
// node example's packages from its package-lock.json (npm ci) when its
// node_modules is missing; a failed install (offline, say) skips.
func (ex example) prepare(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath(ex.runtime); err != nil {
		t.Skipf("%s is not installed: this example needs it (Debian: apt-get install %s)", ex.runtime, map[string]string{"node": "nodejs npm", "python3": "python3"}[ex.runtime])
	}
	if ex.runtime != "node" {
		return
	}
	out, err := exec.Command("node", "--version").Output()
	if major := nodeMajor(string(out)); err != nil || major < 20 {
		t.Skipf("node %s is too old: the examples need Node.js 20 or later", strings.TrimSpace(string(out)))
	}
	if _, err := os.Stat(filepath.Join(ex.dir, "node_modules")); err == nil {
		return
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skipf("npm is not installed: %s/node_modules is missing and npm ci installs it (Debian: apt-get install npm)", ex.dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = ex.dir
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		os.RemoveAll(filepath.Join(ex.dir, "node_modules"))
		t.Skipf("npm ci in %s failed (offline, without the npm registry?): %v\n%s", ex.dir, err, log.String())
	}
}

// nodeMajor reads the major version of "v20.11.1".
func nodeMajor(v string) int {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	major, _, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(major)
	return n
}
