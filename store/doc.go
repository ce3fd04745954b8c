// Package store is the results store behind "agenteval run --store",
// "agenteval eval --store" and "agenteval view": a history of what runs
// and evals found, appended one entry per run.
//
// # Engines
//
// Open takes a DSN. A path (DefaultPath, ".agenteval/results.db", when
// empty) is a SQLite file, created with its folder on first use, written
// through modernc.org/sqlite (pure Go, as the SQLite checkpointer): one
// file in the project. A "postgres://" or "postgresql://" URL, or a pgx
// key=value string starting with "host=", is a PostgreSQL database shared
// by a team (github.com/jackc/pgx/v5 through database/sql); its tables are
// named results_* so that the Postgres checkpointer's database can hold
// them too. Both engines have the same schema and every statement is
// written once; only the placeholders and the type of the entry ID differ.
// ":memory:" is a private in-memory SQLite store (the view loads report
// files into one).
//
// # What an entry holds
//
// An Entry is one run of scenarios (a report.Report) or one eval (an
// evalreport.Report), with when it started (the caller's clock), the git
// commit and whether the work tree was dirty, and the suite it belongs to
// (the scenario folders of a run, the eval's name), by which the view
// groups its trends. The store keeps what the report holds and nothing
// else: the report's JSON without its scenarios or cells (the header),
// and one row per scenario of a run or per scenario × variant cell of an
// eval, with its verdict, counts, cost and tokens in columns and its JSON
// record (expectations, diffs, trajectory, exchanges, usage; an eval
// cell's trials with their final answers and messages) beside them, plus
// a run's transcripts, which the JSON report leaves out. Reading an entry
// back gives the report that was added (Run, Eval); History gives one
// scenario's results across entries.
//
// Reports are scrubbed of credentials when harness writes them; Add
// refuses an entry that still holds one (cassette.FindCredential), naming
// the scenario, so that nothing put in a report by hand reaches the store.
//
// Add writes an entry in one transaction: the whole run is stored or
// nothing of it is.
//
// # Versions
//
// The schema has a version (SchemaVersion, in the results_schema table).
// Open migrates an older store in one transaction (on PostgreSQL under an
// advisory lock, so that CI jobs opening one database at once migrate it
// once); migrations are never edited once released, and a store of each
// older version is kept under testdata and opened by the tests. A store
// of a newer version is refused with an error wrapping ErrTooNew; a file
// that is not a SQLite database, or a SQLite database of another program,
// is refused with one wrapping ErrNotStore and is never written to.
//
// Version 1 held the entries and their rows; version 2 indexes rows by
// name for a scenario's history.
//
// A record written by a newer agenteval at the same schema version (a
// report that gained a field) is read without the fields this one does
// not know, rather than refused: the schema version, not the report's,
// says whether a store can be read.
package store
