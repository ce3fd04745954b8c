package checkpoint_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/agenteval/agenteval/internal/pgtest"
	"go.uber.org/goleak"
)

// pg is the package's throwaway PostgreSQL server: started by the first
// test that needs one, stopped by TestMain.
var pg struct {
	once    sync.Once
	srv     *pgtest.Server
	err     error
	elapsed time.Duration
}

// pgServer returns the package's server, starting it the first time; it
// skips the test where PostgreSQL is not installed.
func pgServer(t testing.TB) *pgtest.Server {
	t.Helper()
	pg.once.Do(func() {
		start := time.Now()
		pg.srv, pg.err = pgtest.Start(context.Background())
		pg.elapsed = time.Since(start)
	})
	if errors.Is(pg.err, pgtest.ErrNotInstalled) {
		t.Skipf("skipping: %v; install PostgreSQL (apt-get install postgresql) to run the Postgres checkpointer's tests", pg.err)
	}
	if pg.err != nil {
		t.Fatalf("start a PostgreSQL server: %v", pg.err)
	}
	return pg.srv
}

// TestMain stops the PostgreSQL server after the tests and fails them if
// any goroutine outlives them (pgx pools must be closed).
func TestMain(m *testing.M) {
	code := m.Run()
	if pg.srv != nil {
		if err := pg.srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop the PostgreSQL server: %v\n", err)
			code = 1
		}
		if testing.Verbose() {
			fmt.Fprintf(os.Stderr, "PostgreSQL server started in %v\n", pg.elapsed)
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
