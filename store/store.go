package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
)

// DefaultPath is the SQLite store "--store" opens when given no DSN.
const DefaultPath = ".agenteval/results.db"

// Kind tells a run of scenarios from an eval.
type Kind string

// The kinds of entry a store holds.
const (
	KindRun  Kind = "run"
	KindEval Kind = "eval"
)

// ErrTooNew is wrapped by Open's error when the store was written by a
// newer agenteval (its schema version is above SchemaVersion).
var ErrTooNew = errors.New("the results store was written by a newer agenteval")

// ErrNotStore is wrapped by Open's error when the file or database is not
// a results store: a corrupt file, another program's database.
var ErrNotStore = errors.New("not an agenteval results store")

// ErrNotFound is wrapped by the readers' errors when no entry has the ID.
var ErrNotFound = errors.New("no such entry in the results store")

// Store is an open results store. Its methods are safe for concurrent
// use. Close it when done.
type Store struct {
	db      *sql.DB
	dialect dialect
	name    string // the store's name for messages, without credentials
}

// Options tune Open; the zero value opens an existing store or creates one.
type Options struct {
	// MustExist refuses to create a SQLite file that does not exist (the
	// view reads a store; it never starts an empty one by mistake).
	MustExist bool
}

// memories numbers in-memory stores so that each is its own database.
var memories atomic.Int64

// Open opens the store dsn names: a "postgres://" or "postgresql://" URL,
// or a pgx key=value string with "host=", is a PostgreSQL database; ":memory:"
// is a private in-memory SQLite database (what the view loads report files
// into); anything else is the path of a SQLite file, created with its
// folder when missing unless opts.MustExist. The schema is created or
// migrated to SchemaVersion in one transaction. A store of a newer
// version is refused (ErrTooNew), and a file that is not a store
// (ErrNotStore) is never written to.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	if dsn == "" {
		dsn = DefaultPath
	}
	var s *Store
	var err error
	if isPostgres(dsn) {
		s, err = openPostgres(dsn)
	} else {
		s, err = openSQLite(dsn, opts)
	}
	if err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open results store %s: %w", s.name, err)
	}
	return s, nil
}

// isPostgres tells a PostgreSQL DSN from a SQLite path.
func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") || strings.HasPrefix(dsn, "host=")
}

func openPostgres(dsn string) (*Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's parse errors can quote the connection string, password
		// included: say only that it did not parse
		return nil, errors.New("open results store: the postgres connection string does not parse")
	}
	name := fmt.Sprintf("postgres %s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
	return &Store{db: stdlib.OpenDB(*cfg), dialect: postgres, name: name}, nil
}

func openSQLite(path string, opts Options) (*Store, error) {
	if path == ":memory:" {
		db, err := sql.Open("sqlite", fmt.Sprintf("file:agenteval-memory-%d?mode=memory&cache=shared", memories.Add(1)))
		if err != nil {
			return nil, fmt.Errorf("open results store in memory: %w", err)
		}
		// one connection: the database lives as long as it does
		db.SetMaxOpenConns(1)
		db.SetConnMaxIdleTime(0)
		db.SetConnMaxLifetime(0)
		return &Store{db: db, dialect: sqliteDialect, name: "in memory"}, nil
	}
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return nil, fmt.Errorf("open results store %s: is a folder, not a SQLite file", path)
	case errors.Is(err, os.ErrNotExist) && opts.MustExist:
		return nil, fmt.Errorf("open results store %s: no such file (agenteval run --store or agenteval eval --store creates it)", path)
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("open results store %s: %w", path, err)
		}
	case err != nil:
		return nil, fmt.Errorf("open results store %s: %w", path, err)
	}
	dsn := "file:" + uriPath(path) + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open results store %s: %w", path, err)
	}
	return &Store{db: db, dialect: sqliteDialect, name: path}, nil
}

// uriPath escapes the characters a SQLite URI filename gives a meaning.
func uriPath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// Name names the store for messages: its path, or the PostgreSQL user,
// host and database (never a password).
func (s *Store) Name() string { return s.name }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// notStore says that a SQLite error means the file is not a database.
func notStore(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 26, 11: // SQLITE_NOTADB, SQLITE_CORRUPT
			return fmt.Errorf("%w (the file is corrupt or not a SQLite database): %v", ErrNotStore, err)
		}
	}
	return err
}

// Entry is what Add appends: one run of scenarios (Run) or one eval
// (Eval), exactly one of them set.
type Entry struct {
	// Started is when the run started, from the caller's clock.
	Started time.Time
	// Commit is the git commit the run was made at ("" when unknown),
	// Dirty whether the work tree had changes.
	Commit string
	Dirty  bool
	// Suite names what ran: the scenario folders of a run ("scenarios"),
	// the eval's name; the trend pages group entries by it.
	Suite string
	Run   *report.Report
	Eval  *evalreport.Report
}

// Summary is one entry as the store lists it.
type Summary struct {
	ID      int64
	Kind    Kind
	Suite   string
	Started time.Time
	Commit  string
	Dirty   bool
	// Passed, Failed, Errored and Skipped count scenarios for a run and
	// trials for an eval; Rows counts scenarios or cells.
	Passed, Failed, Errored, Skipped int
	Rows                             int
	CostUSD                          float64
	Tokens                           int
}

// Add appends e in one transaction: the whole run is stored or nothing
// is. It refuses an entry that holds a credential (reports are scrubbed
// when written, so one found here was put there by hand) and returns the
// new entry's ID.
func (s *Store) Add(ctx context.Context, e Entry) (int64, error) {
	rows, sum, header, err := flatten(e)
	if err != nil {
		return 0, fmt.Errorf("add to results store %s: %w", s.name, err)
	}
	if err := refuseCredentials(header, rows); err != nil {
		return 0, fmt.Errorf("add to results store %s: %w", s.name, err)
	}
	var id int64
	err = s.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, s.dialect.q(`INSERT INTO results_runs
(kind, suite, started, git_commit, dirty, passed, failed, errored, skipped, nrows, cost_usd, tokens, header)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			string(sum.Kind), sum.Suite, sum.Started.UTC().Format(time.RFC3339Nano), sum.Commit, boolInt(sum.Dirty),
			sum.Passed, sum.Failed, sum.Errored, sum.Skipped, len(rows), sum.CostUSD, sum.Tokens, string(header)).Scan(&id)
		if err != nil {
			return err
		}
		ins, err := tx.PrepareContext(ctx, s.dialect.q(`INSERT INTO results_rows
(run_id, seq, name, variant, status, n, passed, cost_usd, tokens, final, record, transcript)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`))
		if err != nil {
			return err
		}
		defer ins.Close()
		for i, r := range rows {
			if _, err := ins.ExecContext(ctx, id, i, r.name, r.variant, r.status, r.n, r.passed, r.cost, r.tokens, r.final, string(r.record), r.transcript); err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("add to results store %s: %w", s.name, err)
	}
	return id, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// row is one scenario of a run or one cell of an eval, as stored.
type row struct {
	name, variant, status string
	n, passed, tokens     int
	cost                  float64
	final, transcript     string
	record                []byte
}

// flatten splits an entry into its summary, its header (the report's
// JSON without its scenarios or cells) and its rows.
func flatten(e Entry) ([]row, Summary, []byte, error) {
	sum := Summary{Started: e.Started, Commit: e.Commit, Dirty: e.Dirty, Suite: e.Suite}
	var rows []row
	var header []byte
	var err error
	switch {
	case (e.Run == nil) == (e.Eval == nil):
		return nil, sum, nil, errors.New("an entry holds a run or an eval, exactly one")
	case e.Run != nil:
		sum.Kind = KindRun
		h := *e.Run
		h.Scenarios = nil
		if header, err = marshal(h); err != nil {
			return nil, sum, nil, err
		}
		for i := range e.Run.Scenarios {
			sc := &e.Run.Scenarios[i]
			rec, err := marshal(sc)
			if err != nil {
				return nil, sum, nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
			}
			r := row{name: sc.Name, status: string(sc.Status), n: 1, cost: sc.Usage.CostUSD, tokens: sc.Usage.TotalTokens,
				final: sc.Final, transcript: sc.Transcript, record: rec}
			switch sc.Status {
			case report.StatusPass:
				sum.Passed++
				r.passed = 1
			case report.StatusFail:
				sum.Failed++
			case report.StatusError:
				sum.Errored++
			default:
				sum.Skipped++
				r.n = 0
			}
			sum.CostUSD += r.cost
			sum.Tokens += r.tokens
			rows = append(rows, r)
		}
	default:
		sum.Kind = KindEval
		h := *e.Eval
		h.Cells = nil
		if header, err = marshal(h); err != nil {
			return nil, sum, nil, err
		}
		for i := range e.Eval.Cells {
			c := &e.Eval.Cells[i]
			rec, err := marshal(c)
			if err != nil {
				return nil, sum, nil, fmt.Errorf("cell %s × %s: %w", c.ID, c.Variant, err)
			}
			r := row{name: c.ID, variant: c.Variant, status: c.Verdict, n: c.N, passed: c.Passed, record: rec}
			for _, t := range c.Trials {
				r.cost += t.Usage.CostUSD
				r.tokens += t.Usage.TotalTokens
			}
			sum.Passed += c.Passed
			sum.Errored += c.Errored
			sum.Failed += c.N - c.Passed - c.Errored
			sum.CostUSD += r.cost
			sum.Tokens += r.tokens
			rows = append(rows, r)
		}
	}
	return rows, sum, header, nil
}

// marshal writes v as compact JSON without HTML escaping (the view
// escapes what it shows). NaNs have no JSON form: the eval report writes
// them as null through its own MarshalJSON methods, where it has them.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// refuseCredentials returns an error naming the first row that holds a
// credential.
func refuseCredentials(header []byte, rows []row) error {
	if kind, _, ok := cassette.FindCredential(string(header)); ok {
		return fmt.Errorf("the report holds %s: a store never holds a credential", kind)
	}
	for _, r := range rows {
		for _, s := range []string{string(r.record), r.transcript} {
			if kind, _, ok := cassette.FindCredential(s); ok {
				return fmt.Errorf("%s holds %s: a store never holds a credential", r.name, kind)
			}
		}
	}
	return nil
}

// tx runs f in one transaction, committed when f returns nil.
func (s *Store) tx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return notStore(err)
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return notStore(err)
	}
	return notStore(tx.Commit())
}

// Kind is the entry's kind.
func (e Entry) Kind() Kind {
	if e.Eval != nil {
		return KindEval
	}
	return KindRun
}
