package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/serve"
)

func newServeCmd() *cobra.Command {
	var scenario, mode, addr, cassettePath string
	var limitArgs []string
	cmd := &cobra.Command{
		Use:   "serve --scenario FILE [flags]",
		Short: "Serve a scenario's model answers over the OpenAI and Anthropic wire protocols",
		Long: `serve runs a local model server that speaks OpenAI Chat Completions
(/v1/chat/completions), OpenAI Responses (/v1/responses), Anthropic Messages
(/v1/messages), Gemini (/v1beta/models/{model}:generateContent and
:streamGenerateContent) and /v1/models, JSON and streamed, so an agent written in any
language answers from the scenario instead of a real provider.

  --mode script   answers from the scenario's script: (the default when it has one)
  --mode replay   replays the scenario's cassette by request content: a request
                  the cassette does not record is refused (400) with the closest
                  recorded one and the body diff (agent.replay: by-order in the
                  scenario replays by order instead, for other tools' cassettes)
  --mode record   forwards to the provider (OPENAI_API_KEY, ANTHROPIC_API_KEY,
                  GEMINI_API_KEY) at the scenario's agent.base_url, or its
                  public endpoint without one, and records the scenario's
                  cassette, credentials scrubbed

Streamed answers go out event by event, each flushed as a provider sends it:
scripted ones in the real services' event order, replayed ones in the events
of the recording, and in record mode the provider's stream is relayed as it
comes and recorded whole, so a replay is the recorded stream.

It prints the base URLs on stdout and serves until interrupted (SIGINT or
SIGTERM); then it reports on stderr the requests it refused and how the client
answered tool calls, and exits 1 if either went wrong.

Point an existing agent at it:

  agenteval serve --scenario examples/langgraph-react/scenarios/parallel.yaml --addr 127.0.0.1:8089 &
  export OPENAI_BASE_URL=http://127.0.0.1:8089/v1 ANTHROPIC_BASE_URL=http://127.0.0.1:8089 GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8089 OPENAI_API_KEY=dummy ANTHROPIC_API_KEY=dummy GEMINI_API_KEY=dummy
  node agent.mjs   # or python agent.py: the agent, unchanged

To have "agenteval run" start the server, run the agent and check it (its
trajectory rebuilt from the traffic, the client's invariants, golden
transcripts), give the scenario agent: {kind: command, command: [node,
agent.mjs]}; the turn protocol is in the harness package doc.`,
		Example: `  agenteval serve --scenario examples/langgraph-react/scenarios/parallel.yaml
  agenteval serve --scenario scenarios/providers/openai_tool_call.yaml --mode replay --cassette cassettes/providers/openai_tool_call.yaml
  agenteval serve --scenario scenarios/providers/openai_tool_call.yaml --mode record --cassette new.yaml --addr 127.0.0.1:8089`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if scenario == "" {
				return &usageError{err: errors.New("serve: --scenario is required\nrun 'agenteval serve --help' for usage")}
			}
			limits, err := parseLimits("serve", limitArgs, false)
			if err != nil {
				return err
			}
			s, err := limits.Load(scenario)
			if err != nil {
				return &usageError{err: err}
			}
			if mode == "" {
				mode = "script"
				if s.Script == nil {
					mode = "replay"
				}
			}
			if cassettePath == "" {
				cassettePath = defaultCassette(scenario)
			}
			src, stop, err := serveSource(s, mode, cassettePath, limits.Cassette())
			if err != nil {
				return &usageError{err: err}
			}
			srv, err := serve.New(serve.Options{Source: src})
			if err != nil {
				return err
			}
			ctx, cancel := signal.NotifyContext(ctxOf(cmd), syscall.SIGTERM)
			defer cancel()
			l, err := serve.Listen(ctx, addr, srv)
			if err != nil {
				return &usageError{err: err}
			}
			out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
			fmt.Fprintf(out, "OPENAI_BASE_URL=%s/v1\nANTHROPIC_BASE_URL=%s\nGOOGLE_GEMINI_BASE_URL=%s\n", l.URL, l.URL, l.URL)
			if f, ok := out.(interface{ Sync() error }); ok {
				f.Sync()
			}
			fmt.Fprintf(errOut, "serving %s (%s) at %s; interrupt to stop\n", scenario, mode, l.URL)
			werr := l.Wait()
			if err := stop(); err != nil {
				return err
			}
			if werr != nil {
				return werr
			}
			if !serveSummary(errOut, srv) {
				setExit(cmd, 1)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&scenario, "scenario", "", "the scenario file")
	cmd.Flags().StringVar(&mode, "mode", "", "script, replay or record (default: script when the scenario has one, else replay)")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "the address to listen on (port 0: a free one)")
	cmd.Flags().StringVar(&cassettePath, "cassette", "", "the cassette for replay and record (default: the scenario's path with scenarios/ replaced by cassettes/)")
	addLimitFlag(cmd, &limitArgs, limitUsage)
	return cmd
}

// defaultCassette mirrors a scenario path under scenarios/ into
// cassettes/, as harness lays them out.
func defaultCassette(scenario string) string {
	p := filepath.ToSlash(scenario)
	if i := strings.LastIndex(p, "scenarios/"); i >= 0 {
		return filepath.FromSlash(p[:i] + "cassettes/" + p[i+len("scenarios/"):])
	}
	return strings.TrimSuffix(scenario, filepath.Ext(scenario)) + ".cassette.yaml"
}

// serveSource builds the answer source for a mode; stop ends it (writing
// the cassette in record mode). limits bound the cassette it reads and
// the bodies it records.
func serveSource(s *harness.Scenario, mode, cassettePath string, limits cassette.Limits) (serve.Source, func() error, error) {
	none := func() error { return nil }
	switch mode {
	case "script":
		if s.Script == nil {
			return nil, nil, fmt.Errorf("serve: %s has no script: use --mode replay or record", s.File)
		}
		data, err := engine.MarshalValue(s.Script)
		if err != nil {
			return nil, nil, fmt.Errorf("serve: %s: script: %w", s.File, err)
		}
		script, err := llm.ParseScript(data)
		if err != nil {
			return nil, nil, fmt.Errorf("serve: %s: script: %w", s.File, err)
		}
		return serve.NewScript(script), none, nil
	case "replay":
		c, _, err := limits.Import(cassettePath)
		if err != nil {
			return nil, nil, fmt.Errorf("serve: %w", err)
		}
		if s.Agent.Replay == harness.ReplayByOrder {
			return serve.NewReplayOrdered(c), none, nil
		}
		rerecord := fmt.Sprintf("delete %s, then agenteval serve --scenario %s --mode record", cassettePath, s.File)
		return serve.NewReplay(c, serve.ReplayOptions{BaseURL: harness.ReplayBaseURLs(s), Scenario: s.Name, Rerecord: rerecord}), none, nil
	case "record":
		// the environment's secret values are scrubbed from the recording,
		// as from a run's (harness.Options)
		rec, err := cassette.Open(cassettePath, cassette.Options{Mode: cassette.ModeRecord, Scenario: s.File, Limits: limits,
			Scrubbing: cassette.Scrubbing{Values: cassette.EnvSecretValues(os.Environ())}})
		if err != nil {
			return nil, nil, fmt.Errorf("serve: %w", err)
		}
		src := serve.NewRecorder(rec, serve.RecorderOptions{Upstreams: harness.RecordUpstreams(s, os.LookupEnv)})
		return src, rec.Stop, nil
	}
	return nil, nil, fmt.Errorf("serve: unknown --mode %q (want script, replay or record)", mode)
}

// serveSummary writes what the server refused and what the client broke;
// false when either is not empty (a dangling call alone is a warning: the
// run may have ended on an interrupt).
func serveSummary(w io.Writer, srv *serve.Server) bool {
	xs := srv.Exchanges()
	ok := true
	fmt.Fprintf(w, "%d requests\n", len(xs))
	if err := srv.Err(); err != nil {
		ok = false
		fmt.Fprintf(w, "refused:\n%s\n", harness.RedactText(err.Error()))
	}
	for _, v := range serve.CheckClient(xs) {
		if v.Kind == serve.Dangling {
			fmt.Fprintf(w, "warning: %s\n", harness.RedactText(v.String()))
			continue
		}
		ok = false
		fmt.Fprintf(w, "client: %s: %s\n", v.Kind, harness.RedactText(v.String()))
	}
	return ok
}
