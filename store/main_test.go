package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/agenteval/agenteval/internal/pgtest"
)

// pg is the package's throwaway PostgreSQL server: started by the first
// test that needs one, stopped by TestMain.
var pg struct {
	once sync.Once
	srv  *pgtest.Server
	err  error
}

// pgDSN returns the DSN of a fresh schema on the package's server,
// starting it the first time; it skips the test where PostgreSQL is not
// installed.
func pgDSN(t testing.TB) string {
	t.Helper()
	pg.once.Do(func() { pg.srv, pg.err = pgtest.Start(context.Background()) })
	if errors.Is(pg.err, pgtest.ErrNotInstalled) {
		t.Skipf("skipping: %v; install PostgreSQL (apt-get install postgresql) to run the Postgres store's tests", pg.err)
	}
	if pg.err != nil {
		t.Fatalf("start a PostgreSQL server: %v", pg.err)
	}
	dsn, err := pg.srv.NewSchema(context.Background(), "store")
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// TestMain stops the PostgreSQL server after the tests and fails them if
// any goroutine outlives them.
func TestMain(m *testing.M) {
	code := m.Run()
	if pg.srv != nil {
		if err := pg.srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop the PostgreSQL server: %v\n", err)
			code = 1
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
