package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agenteval/agenteval/harness"
)

type exitCodeKey struct{}

// setExit records the exit code a command wants.
func setExit(cmd *cobra.Command, code int) {
	if p, ok := cmd.Context().Value(exitCodeKey{}).(*int); ok {
		*p = code
	}
}

// usageError marks an error as a usage or input problem (exit 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// printErr prints a command's error on w, scrubbed of credentials
// (harness.RedactText). A usageError prints as the error it wraps.
func printErr(w io.Writer, err error) {
	fmt.Fprintf(w, "agenteval: %s\n", harness.RedactText(err.Error()))
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "agenteval",
		Short:         "Test and evaluate tool-calling LLM agents against a deterministic LangGraph-compatible engine",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newRunCmd())
	root.AddCommand(newResumeCmd())
	root.AddCommand(newSchemaCmd())
	root.AddCommand(newReportCmd())
	root.AddCommand(newConformanceCmd())
	root.AddCommand(newBenchCmd())
	root.AddCommand(newCassetteCmd())
	root.AddCommand(newEvalCmd())
	root.AddCommand(newServeCmd())
	root.AddCommand(newViewCmd())
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{err: fmt.Errorf("%w\nrun '%s --help' for usage", err, cmd.CommandPath())}
	})
	return root
}

func ctxOf(cmd *cobra.Command) context.Context {
	if c := cmd.Context(); c != nil {
		return c
	}
	return context.Background()
}
