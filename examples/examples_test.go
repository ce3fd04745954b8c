// Package examples_test runs the agents under examples/, each written
// with a library no one here wrote, offline against agenteval's model
// server: every example passes its scenarios, and its deliberately broken
// copy fails them with a readable diff.
package examples_test

import (
	"bytes"
	"context"
	"fmt"
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
	// agent and broken are the agent's file and its broken copy: the
	// broken run replaces the one with the other in every command.
	agent, broken string
	// wantBroken are texts the broken copy's failures must show, each in
	// some failed expectation's message or diff.
	wantBroken []string
}

var examples = []example{
	{
		dir: "python-agent", runtime: "python3", agent: "../agent.py", broken: "../agent_broken.py",
		// it answers only the first call of an answer with two
		wantBroken: []string{`invariant: client answers tool calls: unanswered: request 2 (POST /v1/chat/completions, model gpt-4.1-mini): tool call "call_london" in the history has no result`},
	},
	{
		dir: "langgraph-react", runtime: "node", agent: "../agent.mjs", broken: "../agent.broken.mjs",
		// its tool answers every city with the weather of Paris
		wantBroken: []string{`+     + tool get_weather [-] ← call_london "sunny, 21°C"`},
	},
	{
		dir: "openai-agents", runtime: "node", agent: "../agent.mjs", broken: "../agent.broken.mjs",
		// its tool declares "location" where the model sends "city"
		wantBroken: []string{`-     + tool get_weather [-] ← call_london "rainy, 14°C"`},
	},
	{
		dir: "vercel-ai", runtime: "node", agent: "../agent.mjs", broken: "../agent.broken.mjs",
		// it forgets maxSteps: the tool results never reach the model
		wantBroken: []string{`invariant: client answers tool calls: dangling: request 1: tool call "call_london" of its answer was never answered`},
	},
	{
		dir: "langchain-agent", runtime: "node", agent: "../agent.mjs", broken: "../agent.broken.mjs",
		// it resumes the human-in-the-loop middleware with a bare list
		wantBroken: []string{`turns[1] failed: AgentError: Invalid HITLResponse: decisions must be a non-empty array`},
	},
	{
		dir: "google-adk", runtime: "node", agent: "../agent.mjs", broken: "../agent.broken.mjs",
		// its tool answers every city with the weather of Paris
		wantBroken: []string{`+     + tool get_weather [-] ← call_london "sunny, 21°C"`},
	},
}

func TestExamples(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.dir, func(t *testing.T) {
			ex.prepare(t)
			t.Run("passes", func(t *testing.T) {
				harnesstest.RunT(t, filepath.Join(ex.dir, "scenarios"), harness.Options{GoldenDir: filepath.Join(ex.dir, "golden")})
			})
			t.Run("broken copy fails", ex.testBroken)
		})
	}
}

// testBroken runs the example's scenarios with the broken copy of its
// agent and checks that they fail, and how.
func (ex example) testBroken(t *testing.T) {
	scenarios, err := harness.LoadDir(filepath.Join(ex.dir, "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	var failures strings.Builder
	failed := 0
	for _, s := range scenarios {
		s := *s
		i := slices.Index(s.Agent.Command, ex.agent)
		if i < 0 {
			t.Fatalf("%s: agent.command %q does not run %s", s.File, s.Agent.Command, ex.agent)
		}
		s.Agent.Command = slices.Clone(s.Agent.Command)
		s.Agent.Command[i] = ex.broken
		res := harness.RunScenario(context.Background(), &s, harness.Options{GoldenDir: filepath.Join(ex.dir, "golden")})
		switch res.Status {
		case report.StatusError:
			t.Errorf("%s: the broken copy could not run: %s", s.Name, res.Message)
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
		t.Fatalf("every scenario passed with %s: the broken copy went unnoticed", ex.broken)
	}
	t.Logf("%d of %d scenarios fail with %s:\n%s", failed, len(scenarios), ex.broken, failures.String())
	for _, want := range ex.wantBroken {
		if !strings.Contains(failures.String(), want) {
			t.Errorf("the failures of %s do not show\n%s\nthey are:\n%s", ex.broken, want, failures.String())
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
