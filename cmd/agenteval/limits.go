package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agenteval/agenteval/harness"
)

// limitUsage is the help of --limit on the commands that read scenarios,
// eval files and cassettes; cassetteLimitUsage on those that read only
// cassettes. Both list each limit with its default; docs/limits.md has
// the whole list and TestLimitFlagHelp keeps these in step with it.
const (
	limitUsage = "raise or lower a limit on the files read, name=N (-1: none; N may end in KiB, MiB or GiB), repeatable: " +
		"file_bytes (4MiB), depth (200), values (262144), value_bytes (16MiB), recursion_limit (100000) bound scenario and eval files; " +
		"cassette_file_bytes (256MiB), cassette_body_bytes (64MiB) bound cassettes; " +
		"dataset_bytes (64MiB), dataset_rows (10000) bound an eval's dataset files (see docs/limits.md)"
	cassetteLimitUsage = "raise or lower a limit on the cassettes read, name=N (-1: none; N may end in KiB, MiB or GiB), repeatable: " +
		"cassette_file_bytes (256MiB), cassette_body_bytes (64MiB) (see docs/limits.md)"
)

// addLimitFlag declares --limit on cmd, into args.
func addLimitFlag(cmd *cobra.Command, args *[]string, usage string) {
	cmd.Flags().StringArrayVar(args, "limit", nil, usage)
}

// parseLimits reads the --limit values of the command named cmd. With
// cassettesOnly, only the limits on cassettes are accepted: the command
// reads no scenario file for the others to bound.
func parseLimits(cmd string, args []string, cassettesOnly bool) (harness.Limits, error) {
	var l harness.Limits
	for _, a := range args {
		if cassettesOnly {
			if name, _, _ := strings.Cut(a, "="); !strings.HasPrefix(name, "cassette_") {
				return l, &usageError{err: fmt.Errorf("%s: --limit %s: %s reads only cassettes: use cassette_file_bytes or cassette_body_bytes", cmd, a, cmd)}
			}
		}
		if err := l.Set(a); err != nil {
			return l, &usageError{err: fmt.Errorf("%s: --limit: %w", cmd, err)}
		}
	}
	return l, nil
}
