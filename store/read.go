package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
)

const summaryColumns = `id, kind, suite, started, git_commit, dirty, passed, failed, errored, skipped, nrows, cost_usd, tokens`

func scanSummary(sc interface{ Scan(...any) error }) (Summary, error) {
	var s Summary
	var kind, started string
	var dirty int
	if err := sc.Scan(&s.ID, &kind, &s.Suite, &started, &s.Commit, &dirty, &s.Passed, &s.Failed, &s.Errored, &s.Skipped, &s.Rows, &s.CostUSD, &s.Tokens); err != nil {
		return s, err
	}
	s.Kind, s.Dirty = Kind(kind), dirty != 0
	t, err := time.Parse(time.RFC3339Nano, started)
	if err != nil {
		return s, fmt.Errorf("entry %d: started %q: %w", s.ID, started, err)
	}
	s.Started = t
	return s, nil
}

// List returns every entry, oldest first (by start, then by ID).
func (s *Store) List(ctx context.Context) ([]Summary, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+summaryColumns+` FROM results_runs ORDER BY started, id`)
	if err != nil {
		return nil, fmt.Errorf("list results store %s: %w", s.name, notStore(err))
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		sum, err := scanSummary(rows)
		if err != nil {
			return nil, fmt.Errorf("list results store %s: %w", s.name, err)
		}
		out = append(out, sum)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list results store %s: %w", s.name, notStore(err))
	}
	return out, nil
}

// Summary returns one entry's summary.
func (s *Store) Summary(ctx context.Context, id int64) (Summary, error) {
	sum, err := scanSummary(s.db.QueryRowContext(ctx, s.dialect.q(`SELECT `+summaryColumns+` FROM results_runs WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return sum, fmt.Errorf("results store %s: entry %d: %w", s.name, id, ErrNotFound)
	}
	if err != nil {
		return sum, fmt.Errorf("results store %s: entry %d: %w", s.name, id, notStore(err))
	}
	return sum, nil
}

// header reads an entry's kind and header JSON.
func (s *Store) header(ctx context.Context, id int64) (Kind, []byte, error) {
	var kind, header string
	err := s.db.QueryRowContext(ctx, s.dialect.q(`SELECT kind, header FROM results_runs WHERE id = ?`), id).Scan(&kind, &header)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, fmt.Errorf("results store %s: entry %d: %w", s.name, id, ErrNotFound)
	}
	if err != nil {
		return "", nil, fmt.Errorf("results store %s: entry %d: %w", s.name, id, notStore(err))
	}
	return Kind(kind), []byte(header), nil
}

// Run returns the report of run id, its scenarios in the order they were
// stored (by name) with their transcripts.
func (s *Store) Run(ctx context.Context, id int64) (*report.Report, error) {
	kind, header, err := s.header(ctx, id)
	if err != nil {
		return nil, err
	}
	if kind != KindRun {
		return nil, fmt.Errorf("results store %s: entry %d is an eval, not a run", s.name, id)
	}
	var r report.Report
	if err := decode(header, &r); err != nil {
		return nil, fmt.Errorf("results store %s: entry %d: %w", s.name, id, err)
	}
	err = s.rows(ctx, id, func(name string, record []byte, transcript string) error {
		var sc report.Scenario
		if err := decode(record, &sc); err != nil {
			return fmt.Errorf("scenario %s: %w", name, err)
		}
		sc.Transcript = transcript
		r.Scenarios = append(r.Scenarios, sc)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("results store %s: entry %d: %w", s.name, id, err)
	}
	return &r, nil
}

// Eval returns the report of eval id, its cells in the order they were
// stored.
func (s *Store) Eval(ctx context.Context, id int64) (*evalreport.Report, error) {
	kind, header, err := s.header(ctx, id)
	if err != nil {
		return nil, err
	}
	if kind != KindEval {
		return nil, fmt.Errorf("results store %s: entry %d is a run, not an eval", s.name, id)
	}
	var r evalreport.Report
	if err := decode(header, &r); err != nil {
		return nil, fmt.Errorf("results store %s: entry %d: %w", s.name, id, err)
	}
	err = s.rows(ctx, id, func(name string, record []byte, _ string) error {
		var c evalreport.Cell
		if err := decode(record, &c); err != nil {
			return fmt.Errorf("cell %s: %w", name, err)
		}
		r.Cells = append(r.Cells, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("results store %s: entry %d: %w", s.name, id, err)
	}
	return &r, nil
}

func (s *Store) rows(ctx context.Context, id int64, f func(name string, record []byte, transcript string) error) error {
	rows, err := s.db.QueryContext(ctx, s.dialect.q(`SELECT name, record, transcript FROM results_rows WHERE run_id = ? ORDER BY seq`), id)
	if err != nil {
		return notStore(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, record, transcript string
		if err := rows.Scan(&name, &record, &transcript); err != nil {
			return notStore(err)
		}
		if err := f(name, []byte(record), transcript); err != nil {
			return err
		}
	}
	return notStore(rows.Err())
}

// decode reads a stored record. Fields this agenteval does not know (a
// record written by a newer one through the same schema version) are
// ignored rather than refused: the store keeps what the report held, and
// a reader shows what it understands.
func decode(data []byte, v any) error {
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(v); err != nil {
		return fmt.Errorf("%w: a stored record does not decode: %v", ErrNotStore, err)
	}
	return nil
}

// Point is one scenario (or one cell of one variant) in one entry: what
// the trend of a scenario plots.
type Point struct {
	Entry   Summary
	Name    string
	Variant string
	Status  string
	// N and Passed are 1 and 0 or 1 for a scenario of a run, the trials
	// and passed trials of an eval's cell.
	N, Passed int
	CostUSD   float64
	Tokens    int
}

// History returns every stored result of the scenario (or cell ID) name,
// across entries of every suite, oldest entry first.
func (s *Store) History(ctx context.Context, name string) ([]Point, error) {
	q := `SELECT ` + prefixed("r.", summaryColumns) + `, w.name, w.variant, w.status, w.n, w.passed, w.cost_usd, w.tokens
FROM results_rows w JOIN results_runs r ON r.id = w.run_id
WHERE w.name = ? ORDER BY r.started, r.id, w.seq`
	rows, err := s.db.QueryContext(ctx, s.dialect.q(q), name)
	if err != nil {
		return nil, fmt.Errorf("results store %s: history of %s: %w", s.name, name, notStore(err))
	}
	defer rows.Close()
	var out []Point
	for rows.Next() {
		var p Point
		var kind, started string
		var dirty int
		e := &p.Entry
		if err := rows.Scan(&e.ID, &kind, &e.Suite, &started, &e.Commit, &dirty, &e.Passed, &e.Failed, &e.Errored, &e.Skipped, &e.Rows, &e.CostUSD, &e.Tokens,
			&p.Name, &p.Variant, &p.Status, &p.N, &p.Passed, &p.CostUSD, &p.Tokens); err != nil {
			return nil, fmt.Errorf("results store %s: history of %s: %w", s.name, name, notStore(err))
		}
		e.Kind, e.Dirty = Kind(kind), dirty != 0
		if e.Started, err = time.Parse(time.RFC3339Nano, started); err != nil {
			return nil, fmt.Errorf("results store %s: entry %d: started %q: %w", s.name, e.ID, started, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("results store %s: history of %s: %w", s.name, name, notStore(err))
	}
	return out, nil
}

// prefixed puts prefix before each of a comma-separated column list.
func prefixed(prefix, columns string) string {
	var b bytes.Buffer
	for i, c := range bytes.Split([]byte(columns), []byte(",")) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(prefix)
		b.Write(bytes.TrimSpace(c))
	}
	return b.String()
}

// EvalHeader returns the report of eval id without its cells: the
// variants, each variant's macro pass rate over the suite, the
// comparisons and thresholds.
func (s *Store) EvalHeader(ctx context.Context, id int64) (*evalreport.Report, error) {
	kind, header, err := s.header(ctx, id)
	if err != nil {
		return nil, err
	}
	if kind != KindEval {
		return nil, fmt.Errorf("results store %s: entry %d is a run, not an eval", s.name, id)
	}
	var r evalreport.Report
	if err := decode(header, &r); err != nil {
		return nil, fmt.Errorf("results store %s: entry %d: %w", s.name, id, err)
	}
	return &r, nil
}

// Row is one scenario of a run (or one cell of an eval) as a list shows
// it: its columns, and its JSON record only when it did not pass (a
// failure's message and diff), so that a list of a large run reads little
// more than its columns.
type Row struct {
	Name, Variant, Status string
	N, Passed, Tokens     int
	CostUSD               float64
	// Record is the report's JSON of the scenario or cell when its status
	// is neither "pass" nor "skip"; nil otherwise.
	Record []byte
}

// Rows returns the rows of entry id in the order they were stored.
func (s *Store) Rows(ctx context.Context, id int64) ([]Row, error) {
	rows, err := s.db.QueryContext(ctx, s.dialect.q(`SELECT name, variant, status, n, passed, tokens, cost_usd,
CASE WHEN status IN ('pass', 'skip') THEN '' ELSE record END FROM results_rows WHERE run_id = ? ORDER BY seq`), id)
	if err != nil {
		return nil, fmt.Errorf("results store %s: entry %d: %w", s.name, id, notStore(err))
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		var record string
		if err := rows.Scan(&r.Name, &r.Variant, &r.Status, &r.N, &r.Passed, &r.Tokens, &r.CostUSD, &record); err != nil {
			return nil, fmt.Errorf("results store %s: entry %d: %w", s.name, id, notStore(err))
		}
		if record != "" {
			r.Record = []byte(record)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("results store %s: entry %d: %w", s.name, id, notStore(err))
	}
	return out, nil
}

// Scenario returns one scenario of run id, with its transcript.
func (s *Store) Scenario(ctx context.Context, id int64, name string) (*report.Scenario, error) {
	var record, transcript string
	err := s.db.QueryRowContext(ctx, s.dialect.q(`SELECT record, transcript FROM results_rows WHERE run_id = ? AND name = ? AND variant = ''`), id, name).Scan(&record, &transcript)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("results store %s: entry %d has no scenario %q: %w", s.name, id, name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("results store %s: entry %d: %w", s.name, id, notStore(err))
	}
	var sc report.Scenario
	if err := decode([]byte(record), &sc); err != nil {
		return nil, fmt.Errorf("results store %s: entry %d: scenario %s: %w", s.name, id, name, err)
	}
	sc.Transcript = transcript
	return &sc, nil
}
