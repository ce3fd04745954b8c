package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agenteval/agenteval/store"
)

// storeUsage is the --store flag's help.
const storeUsage = `append what ran to the results store DSN: --store alone is ` + store.DefaultPath + `, --store=PATH a SQLite file, --store=postgres://... a team's database (see agenteval view)`

// addStoreFlag adds --store to cmd: given alone it names the default
// SQLite file; a DSN must follow an "=" (--store=DSN).
func addStoreFlag(cmd *cobra.Command, dsn *string) {
	cmd.Flags().StringVar(dsn, "store", "", storeUsage)
	cmd.Flags().Lookup("store").NoOptDefVal = store.DefaultPath
}

// checkStoreArgs refuses "--store DSN" (with a space), where the DSN would
// be taken for a scenario path.
func checkStoreArgs(cmd *cobra.Command, name, dsn string, args []string) error {
	if dsn != store.DefaultPath {
		return nil
	}
	for _, a := range args {
		if strings.HasPrefix(a, "postgres://") || strings.HasPrefix(a, "postgresql://") || strings.HasSuffix(a, ".db") {
			return &usageError{err: fmt.Errorf("%s: %q follows --store: write --store=%s (a value of --store needs the \"=\")", name, a, a)}
		}
	}
	return nil
}

// clockKey carries the clock that dates a stored run (tests set it).
type clockKey struct{}

// nowOf is the command's clock: time.Now unless a test put one in the
// command's context.
func nowOf(cmd *cobra.Command) func() time.Time {
	if f, ok := ctxOf(cmd).Value(clockKey{}).(func() time.Time); ok {
		return f
	}
	return time.Now
}

// appendToStore opens the store dsn names and appends e, dated and given
// the work tree's git commit.
func appendToStore(cmd *cobra.Command, dsn string, e store.Entry) error {
	ctx := ctxOf(cmd)
	e.Commit, e.Dirty = gitCommit(ctx)
	s, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	id, err := s.Add(ctx, e)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "stored as %s %d in %s (agenteval view --store=%s)\n", e.Kind(), id, s.Name(), shellQuote(dsnForView(dsn)))
	return nil
}

// dsnForView is the DSN to show in a hint: a Postgres URL may hold a
// password, so it is replaced by a placeholder.
func dsnForView(dsn string) string {
	if strings.HasPrefix(dsn, "postgres") || strings.HasPrefix(dsn, "host=") {
		return "<the same DSN>"
	}
	return dsn
}

// gitCommit returns the commit of the work tree agenteval runs in and
// whether it has uncommitted changes; "" where git or a repository is
// missing.
func gitCommit(ctx context.Context) (string, bool) {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	commit := strings.TrimSpace(string(out))
	status, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output()
	return commit, err == nil && len(bytes.TrimSpace(status)) > 0
}
