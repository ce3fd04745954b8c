package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/agenteval/agenteval/store"
	"github.com/agenteval/agenteval/view"
)

func newViewCmd() *cobra.Command {
	var storeDSN, addr string
	cmd := &cobra.Command{
		Use:   "view [flags] [REPORT-DIR|REPORT.json...]",
		Short: "Look at stored runs and evals, and report folders, in a local web page",
		Long: `view serves a local web application over a results store (what
"agenteval run --store" and "agenteval eval --store" appended) or over
report folders (a CI run's reports/, with agenteval.json or eval.json):

  /                       each suite's runs over time: pass rates with their
                          95% intervals, plotted, and every entry
  /run/ID                 one run: failures first, filter and search
  /run/ID/scenario?name=  one scenario: expectations, (-want +got) diffs,
                          sequence diagram, final answer, transcript
  /eval/ID                one eval: the scenario × variant grid with intervals,
                          each variant over the suite, the comparisons
  /eval/ID/cell?id=       one scenario's trials, every variant side by side
  /scenario?name=         one scenario across runs and evals
  /compare?a=ID&b=ID      two runs or two evals: what flipped, final answers
                          that changed, the statistics

Every page has its URL. The view only reads: the store (an older store's
schema is migrated when opened, as any agenteval opening it does) and the
report files, which are loaded into memory. It listens on 127.0.0.1 unless
--addr says otherwise. Report paths and --store exclude each other; with
neither, it shows .agenteval/results.db.`,
		Example: `  agenteval view                                   # .agenteval/results.db on http://127.0.0.1:8484
  agenteval view --store=ci-results.db --addr 127.0.0.1:9000
  agenteval view --store=postgres://me@db.internal/results
  agenteval view reports/                          # a CI run's report folder, no store`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := ctxOf(cmd)
			if storeDSN != "" && len(args) > 0 {
				return &usageError{err: errors.New("view: give report paths or --store, not both")}
			}
			var st *store.Store
			var err error
			if len(args) > 0 {
				if st, err = store.Open(ctx, ":memory:", store.Options{}); err != nil {
					return err
				}
				defer st.Close()
				if err := view.LoadReports(ctx, st, args...); err != nil {
					return &usageError{err: fmt.Errorf("view: %w", err)}
				}
			} else {
				if st, err = store.Open(ctx, storeDSN, store.Options{MustExist: true}); err != nil {
					return &usageError{err: fmt.Errorf("view: %w", err)}
				}
				defer st.Close()
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return &usageError{err: fmt.Errorf("view: --addr: %w", err)}
			}
			srv := &http.Server{Handler: view.New(st), ReadHeaderTimeout: 10 * time.Second}
			fmt.Fprintf(cmd.ErrOrStderr(), "agenteval view of %s on http://%s/ (Ctrl-C to stop)\n", st.Name(), ln.Addr())
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			select {
			case <-ctx.Done():
				shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				srv.Shutdown(shutdown)
				<-done
				return nil
			case err := <-done:
				return fmt.Errorf("view: %w", err)
			}
		},
	}
	cmd.Flags().StringVar(&storeDSN, "store", "", "the results store: a SQLite file (default "+store.DefaultPath+") or postgres://...")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8484", "where to listen (host:port); 127.0.0.1 keeps the view on this machine")
	return cmd
}
