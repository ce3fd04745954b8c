package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/harness"
)

func newResumeCmd() *cobra.Command {
	var (
		root, cassettes, stateDir, mode, thread, resumeJSON, user string
		decisions, limitArgs                                      []string
		cont, newThread                                           bool
	)
	cmd := &cobra.Command{
		Use:   "resume [flags] SCENARIO",
		Short: "Continue an interrupted scenario thread kept by run --state-dir",
		Long: `resume runs one more turn on a thread that "agenteval run --state-dir DIR"
kept in DIR: a human's decisions for a human-in-the-loop interrupt
(--decision, once per interrupted call, in call order), a raw resume value
(--resume JSON), a new user message (--user) or a plain continue
(--continue). The scenario's scripted models go on from the answers they
had given; a provider model replays from the scenario's cassette. --thread
must name a thread the state holds (start a new one with --new-thread), and
an empty or corrupt state file is an error naming it. When another process
resumed the same thread first, the turn fails (exit 1) and none of it is
kept: resume again from the new head.

It prints the turn's transcript. It exits 0 when the turn ran (even if it
paused again at a new interrupt, which it prints), 1 when the turn failed
(a wrong number of decisions, for instance: the thread is left as it was,
so resume again with the right ones), and 2 on a usage error.

A decision is approve, reject, reject:<message> or
edit:{"name": <tool>, "args": {...}}.`,
		Example: `  agenteval run --root docs/examples --state-dir .agenteval/state docs/examples/hitl
  agenteval resume --root docs/examples --state-dir .agenteval/state --decision approve docs/examples/hitl/pending_approval.yaml
  agenteval resume --root docs/examples --state-dir .agenteval/state --decision 'reject:too expensive' --decision approve docs/examples/hitl/two_calls.yaml
  agenteval resume --root docs/examples --state-dir .agenteval/state --decision 'edit:{"name": "send_email", "args": {"to": "ann@example.com", "body": "Lunch at 1pm?"}}' docs/examples/hitl/pending_approval.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{err: errors.New("resume: give one scenario file\nrun 'agenteval resume --help' for usage")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if stateDir == "" {
				return &usageError{err: errors.New("resume: --state-dir is required: the folder agenteval run --state-dir kept the threads in")}
			}
			var turn harness.Turn
			kinds := 0
			if len(decisions) > 0 {
				kinds++
				for _, d := range decisions {
					v, err := harness.ParseDecision(d)
					if err != nil {
						return &usageError{err: fmt.Errorf("resume: --decision: %w", err)}
					}
					turn.Decisions = append(turn.Decisions, v)
				}
			}
			if resumeJSON != "" {
				kinds++
				v, err := engine.DecodeJSON([]byte(resumeJSON))
				if err != nil {
					return &usageError{err: fmt.Errorf("resume: --resume: not JSON: %w", err)}
				}
				turn.Resume = v
				if v == nil {
					return &usageError{err: errors.New("resume: --resume: null resumes nothing; use --continue")}
				}
			}
			if user != "" {
				kinds++
				turn.User = user
			}
			if cont {
				kinds++
				turn.Continue = true
			}
			if kinds != 1 {
				return &usageError{err: errors.New("resume: give exactly one of --decision (repeatable), --resume, --user or --continue")}
			}
			turn.Thread = thread
			m, err := cassette.ParseMode(mode)
			if err != nil {
				return &usageError{err: fmt.Errorf("resume: --mode: %w", err)}
			}
			limits, err := parseLimits("resume", limitArgs, false)
			if err != nil {
				return err
			}
			scenarios, err := limits.LoadDir(root, args[0])
			if err != nil {
				return &usageError{err: err}
			}
			res, err := harness.Resume(ctxOf(cmd), scenarios[0], turn, harness.Options{CassetteDir: cassettes, StateDir: stateDir, Mode: m, NewThread: newThread,
				CassetteLimits: limits.Cassette()})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprint(out, res.Transcript)
			if res.Err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "agenteval: the turn failed; the thread is unchanged: %s\n", harness.RedactText(engine.ErrorMessage(res.Err)))
				setExit(cmd, exitFailed)
				return nil
			}
			if len(res.Interrupts) > 0 {
				fmt.Fprintf(out, "\nthe thread is waiting: resume it with agenteval resume --state-dir %s --decision ... %s\n", stateDir, args[0])
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&root, "root", "scenarios", "the scenario root (scenario names and cassette/state paths are relative to it)")
	f.StringVar(&cassettes, "cassettes", "cassettes", "the cassette folder")
	f.StringVar(&stateDir, "state-dir", "", "the folder agenteval run --state-dir kept the threads in (required)")
	f.StringVar(&mode, "mode", "replay", "cassette mode for provider models: replay, record, replay-or-record or live")
	f.StringVar(&thread, "thread", "", "the thread to resume (default: main); it must exist unless --new-thread")
	f.BoolVar(&newThread, "new-thread", false, "start --thread as a new thread when the state does not hold it")
	f.StringArrayVar(&decisions, "decision", nil, "a HITL decision, once per interrupted call: approve, reject[:message], edit:{json}")
	f.StringVar(&resumeJSON, "resume", "", "a raw resume value, as JSON (Command(resume=...))")
	f.StringVar(&user, "user", "", "a new user message on the thread")
	f.BoolVar(&cont, "continue", false, "continue the thread from where it stopped (e.g. after interrupt_before)")
	addLimitFlag(cmd, &limitArgs, limitUsage)
	return cmd
}
