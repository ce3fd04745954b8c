package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SchemaVersion is the version of the store's schema this agenteval
// writes and reads. Older stores are migrated on Open; newer ones are
// refused.
const SchemaVersion = 2

// dialect is what differs between SQLite and PostgreSQL: placeholders and
// the type of an auto-numbered key. Every statement is written once, with
// "?" placeholders.
type dialect struct {
	name   string
	serial string // the column type of results_runs.id
	dollar bool   // $1, $2, ... instead of ?
}

var (
	sqliteDialect = dialect{name: "sqlite", serial: "INTEGER PRIMARY KEY"}
	postgres      = dialect{name: "postgres", serial: "BIGSERIAL PRIMARY KEY", dollar: true}
)

// q rewrites the "?" placeholders of query for the dialect (no
// statement of this package has a "?" inside a string literal).
func (d dialect) q(query string) string {
	if !d.dollar {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// migrations[v-1] brings a store from version v-1 to v. A migration is
// never edited once released: a change of schema is a new one, and
// TestMigrateFromEveryVersion opens a store written at each older
// version (testdata/v1.sql holds one of version 1).
var migrations = []func(d dialect) []string{
	// 1: the entries and their rows (scenarios of a run, cells of an eval)
	func(d dialect) []string {
		return []string{
			`CREATE TABLE results_runs (
  id ` + d.serial + `,
  kind TEXT NOT NULL,
  suite TEXT NOT NULL,
  started TEXT NOT NULL,
  git_commit TEXT NOT NULL,
  dirty INTEGER NOT NULL,
  passed INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  errored INTEGER NOT NULL,
  skipped INTEGER NOT NULL,
  nrows INTEGER NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  tokens BIGINT NOT NULL,
  header TEXT NOT NULL
)`,
			`CREATE TABLE results_rows (
  run_id BIGINT NOT NULL REFERENCES results_runs (id),
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  variant TEXT NOT NULL,
  status TEXT NOT NULL,
  n INTEGER NOT NULL,
  passed INTEGER NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  tokens BIGINT NOT NULL,
  final TEXT NOT NULL,
  record TEXT NOT NULL,
  transcript TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
)`,
			`CREATE INDEX results_runs_suite ON results_runs (suite, started)`,
		}
	},
	// 2: a scenario's history (the trend page of one scenario) reads its
	// rows by name across entries
	func(d dialect) []string {
		return []string{`CREATE INDEX results_rows_name ON results_rows (name, run_id)`}
	},
}

// migrationLock is the PostgreSQL advisory lock held while migrating, so
// that CI jobs opening one database at once migrate it once.
const migrationLock = 0x61676e7473746f // "agntsto"

// migrate creates or upgrades the schema in one transaction.
func (s *Store) migrate(ctx context.Context) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if s.dialect.dollar {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
				return err
			}
		}
		version, err := s.version(ctx, tx)
		if err != nil {
			return err
		}
		if version > SchemaVersion {
			return fmt.Errorf("%w: its schema version is %d, this agenteval reads up to %d; open it with a newer agenteval", ErrTooNew, version, SchemaVersion)
		}
		for v := version; v < SchemaVersion; v++ {
			for _, stmt := range migrations[v](s.dialect) {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("migrate to version %d: %w", v+1, err)
				}
			}
		}
		if version == SchemaVersion {
			return nil
		}
		_, err = tx.ExecContext(ctx, s.dialect.q("UPDATE results_schema SET version = ?"), SchemaVersion)
		return err
	})
}

// version reads the schema version, creating the version table of an
// empty database (0: nothing yet). A database that has tables but no
// version table is another program's, and is refused.
func (s *Store) version(ctx context.Context, tx *sql.Tx) (int, error) {
	has, err := s.hasTable(ctx, tx, "results_schema")
	if err != nil {
		return 0, notStore(err)
	}
	if !has {
		others, err := s.hasTable(ctx, tx, "")
		if err != nil {
			return 0, notStore(err)
		}
		if others && !s.dialect.dollar {
			// a SQLite file is the store's alone; a PostgreSQL
			// database may well hold other tables (the checkpointer's)
			return 0, fmt.Errorf("%w: the database has tables but no results_schema table", ErrNotStore)
		}
		if _, err := tx.ExecContext(ctx, "CREATE TABLE results_schema (version INTEGER NOT NULL)"); err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO results_schema (version) VALUES (0)"); err != nil {
			return 0, err
		}
		return 0, nil
	}
	var v int
	err = tx.QueryRowContext(ctx, "SELECT version FROM results_schema").Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%w: its results_schema table is empty", ErrNotStore)
	}
	if err != nil {
		return 0, fmt.Errorf("%w: read its schema version: %v", ErrNotStore, err)
	}
	return v, nil
}

// hasTable reports whether the table exists; "" asks for any table.
func (s *Store) hasTable(ctx context.Context, tx *sql.Tx, name string) (bool, error) {
	var q string
	if s.dialect.dollar {
		q = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
	} else {
		q = "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
	}
	var args []any
	if name != "" {
		q += " AND table_name = ?"
		if !s.dialect.dollar {
			q = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
		}
		args = append(args, name)
	}
	var n int
	if err := tx.QueryRowContext(ctx, s.dialect.q(q), args...).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}
