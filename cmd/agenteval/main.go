// Command agenteval tests and evaluates tool-calling LLM agents against a
// deterministic reference ReAct engine that behaves like LangGraph.
//
// Usage:
//
//	agenteval run [--mode replay|record|replay-or-record|live] [--parallel N] [--shard k/n] [--update] [--watch] [--tag T] [--report-dir DIR] [--format text|json|junit|markdown] [PATH...]
//	agenteval resume --state-dir DIR (--decision D... | --resume JSON | --user TEXT | --continue) SCENARIO
//	agenteval report merge [--format json|text|junit|markdown] [--report-dir DIR] REPORT.json...
//	agenteval schema
//	agenteval conformance [--api create_react_agent,tool_node,create_agent] [--format text|json] [DIR...]
//	agenteval cassette import|check|usage FILE...
//	agenteval bench [--workload W1,...] [--quick] [--format text|json] [--out DIR]
//	agenteval bench compare [--threshold 'W1.ns_per_call<=600'] [--format text] OLD.json NEW.json
//
// The commands that print results (run, report merge, conformance, bench,
// bench compare, cassette usage) take --format; text is the default but
// for report merge, whose default is json.
//
// Run "agenteval <command> --help" for a command's flags and examples.
//
// # Exit codes
//
//	0    everything passed
//	1    a scenario, vector or comparison failed or could not run
//	2    usage, configuration or input error: a flag, or a scenario file,
//	     report or cassette that is wrong or over a limit (every problem
//	     printed as file:line:col: field: message). A Go runtime crash also
//	     exits 2, but prints "panic:" or "fatal error:" and a stack trace,
//	     and agenteval recovers from panics in scenarios, tools and graders
//	     and reports them as failures instead
//	130  interrupted by SIGINT; 143 interrupted by SIGTERM. The scenarios
//	     that were running end with the interrupt as their error (which
//	     turn was cut, what was committed) and the reports are written
//	     before exiting. A second signal exits at once.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := notifySignals(context.Background(), os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes (see the package doc).
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// SignalError is the cause of a context that a signal canceled.
type SignalError struct{ Signal os.Signal }

func (e *SignalError) Error() string { return fmt.Sprintf("interrupted by %v", e.Signal) }

// exitCode is the shell's code for a process killed by the signal: 128
// plus its number.
func (e *SignalError) exitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

// notifySignals returns a context that SIGINT or SIGTERM cancels with a
// *SignalError as its cause; after the first, the signals are no longer
// caught, so a second one ends the process at once.
func notifySignals(parent context.Context, stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			signal.Stop(ch)
			fmt.Fprintf(stderr, "agenteval: %v: finishing the reports (a second signal exits at once)\n", sig)
			cancel(&SignalError{Signal: sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(context.Canceled)
	}
}

// run is the testable entry point: it parses args, runs the command and
// returns the process exit code. When ctx was canceled by a signal (its
// cause a *SignalError), the code is the signal's, whatever the command
// returned.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	code := exitOK
	err := root.ExecuteContext(context.WithValue(ctx, exitCodeKey{}, &code))
	if err != nil {
		printErr(stderr, err)
	}
	var sig *SignalError
	switch {
	case errors.As(context.Cause(ctx), &sig):
		return sig.exitCode()
	case err == nil:
		return code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailed
}
