package checkpoint

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agenteval/agenteval/engine"
	"modernc.org/sqlite"
)

// SQLiteOptions configures OpenSQLite. The zero value is ready to use: a
// five-second busy timeout, synchronous=NORMAL, the system clock for store
// timestamps and message lists chained at most 8 deep.
type SQLiteOptions struct {
	// BusyTimeout is how long a statement waits for a lock another
	// connection or process holds before failing; 0 means 5s.
	BusyTimeout time.Duration
	// SyncFull sets synchronous=FULL: a commit survives a power loss, at
	// the price of an fsync per superstep. With the default NORMAL a
	// commit survives the process being killed, and a power loss can only
	// lose the newest commits, never corrupt the file.
	SyncFull bool
	// Clock gives the store's item timestamps; nil means
	// engine.SystemClock{}.
	Clock engine.Clock
	// MaxListDepth bounds how many stored lists one message list may be
	// spread over (see SQLite); 0 means 8. Reading a checkpoint's list
	// takes one query per list.
	MaxListDepth int
	// DecodedMessages bounds how many decoded messages the checkpointer
	// keeps so that reading a long thread again decodes only what was
	// appended since; 0 means 50,000, and -1 keeps none.
	DecodedMessages int
}

// defaultDecodedMessages is DecodedMessages's default.
const defaultDecodedMessages = 50_000

// defaultMaxListDepth is MaxListDepth's default.
const defaultMaxListDepth = 8

// Validate reports options that cannot work.
func (o SQLiteOptions) Validate() error {
	var errs []error
	if o.BusyTimeout < 0 {
		errs = append(errs, fmt.Errorf("busy timeout %v is negative", o.BusyTimeout))
	}
	if o.MaxListDepth < 0 {
		errs = append(errs, fmt.Errorf("max list depth %d is negative", o.MaxListDepth))
	}
	if o.DecodedMessages < -1 {
		errs = append(errs, fmt.Errorf("decoded messages %d is invalid: expected -1 (none), 0 (the default) or a positive count", o.DecodedMessages))
	}
	return errors.Join(errs...)
}

// SQLite is a durable engine.Checkpointer in one SQLite database file
// (pure Go, modernc.org/sqlite), with the store that shares the file
// (Store). It behaves as Memory does — the same deterministic,
// put-ordered IDs, List order and options, pending-write slots, copies —
// so the conformance suite in checkpointtest holds for both, and a thread
// survives the process: a run killed after any superstep resumes from the
// file.
//
// The database runs in WAL mode with a busy timeout; every Put and every
// PutWrites is one transaction (BEGIN IMMEDIATE), so a checkpoint and its
// channel values are stored whole or not at all. Writes from one process
// are serialized; readers never wait for them. Several processes may share
// the file. The schema is versioned (table schema_version) and migrated on
// open; a file written by a newer agenteval is refused.
//
// # Values
//
// Channel values and pending-write values are stored in a tagged JSON
// envelope that keeps their Go types exactly (messages, JSON values with
// key order and number literals, Send, ToolCallWithContext, State,
// interrupts, ints, string lists, ...); a value of another type fails the
// Put with an error naming the channel and the Go type.
//
// # Incremental storage
//
// A step does not rewrite the thread. A channel whose version equals its
// version in the parent checkpoint is not written again: the checkpoint
// refers to the parent's copy (channel versions change whenever a value
// does; that is the engine's contract, as in LangGraph's savers). A list
// channel that Checkpoint.ListPrefix describes (the messages) is stored as
// rows, one per element: a checkpoint whose list extends its parent's adds
// only the new elements to the parent's stored list; one that keeps a
// shorter prefix (a replaced or removed message, a fork from an older
// checkpoint) starts a new list that refers to the kept prefix of the
// parent's, and once a list would be spread over more than MaxListDepth
// stored lists it is written whole. Values that contain the same messages
// again (the state inside the Sends of a version-2 agent's tool calls, in
// channel values and in pending writes) refer to the stored list instead
// of repeating it. The bytes written per superstep therefore do not grow
// with the thread; reading a checkpoint reads its whole list.
type SQLite struct {
	path     string
	db       *sql.DB
	maxDepth int
	store    *SQLiteStore

	// mu serializes writers; w is the one connection they use.
	mu     sync.Mutex
	w      *sql.Conn
	closed bool
	stats  SQLiteStats

	// cache remembers each thread's last checkpoint written or read, with
	// its message lists, so PutWrites can refer to them.
	cacheMu    sync.Mutex
	cache      map[threadKey]cachedCheckpoint
	cacheOrder []threadKey

	// decoded holds recently decoded message lists (see decodedLists).
	decoded decodedLists
}

// cachedCheckpoint is a checkpoint's stored message lists. The thread's
// row ID tells a thread from one deleted and made again with the same
// name (row IDs are never reused).
type cachedCheckpoint struct {
	tid   int64
	id    string
	bases []baseList
}

// maxCachedThreads bounds the cache of checkpoints PutWrites refers to.
const maxCachedThreads = 256

// SQLiteStats counts what a SQLite checkpointer wrote since it was opened.
type SQLiteStats struct {
	// Puts and PutWrites count the committed calls.
	Puts, PutWrites int64
	// PayloadBytes is the size of the encoded checkpoints, channel values,
	// list elements and pending writes handed to SQLite.
	PayloadBytes int64
	// PagesWritten counts the database pages the writer connection wrote
	// (SQLite's cache writes); PageSize is their size in bytes.
	PagesWritten, PageSize int64
}

var _ engine.Checkpointer = (*SQLite)(nil)

// sqliteSchemaVersion is the schema this code reads and writes.
const sqliteSchemaVersion = 2

// sqliteMigrations[i] moves a database from schema version i to i+1.
var sqliteMigrations = []string{
	// 1: checkpoints, their channel values, message lists and pending
	// writes, per thread; store items.
	`
CREATE TABLE threads (
	tid       INTEGER PRIMARY KEY AUTOINCREMENT,
	thread_id TEXT NOT NULL,
	ns        TEXT NOT NULL,
	puts      INTEGER NOT NULL,
	lists     INTEGER NOT NULL,
	UNIQUE (thread_id, ns)
);
CREATE TABLE checkpoints (
	tid           INTEGER NOT NULL,
	checkpoint_id TEXT NOT NULL,
	seq           INTEGER NOT NULL,
	parent_id     TEXT NOT NULL,
	source        TEXT NOT NULL,
	step          INTEGER NOT NULL,
	body          BLOB NOT NULL,
	PRIMARY KEY (tid, checkpoint_id)
) WITHOUT ROWID;
CREATE TABLE blobs (
	tid     INTEGER NOT NULL,
	seq     INTEGER NOT NULL,
	channel TEXT NOT NULL,
	value   BLOB NOT NULL,
	PRIMARY KEY (tid, seq, channel)
) WITHOUT ROWID;
CREATE TABLE lists (
	tid       INTEGER NOT NULL,
	list_id   INTEGER NOT NULL,
	kind      TEXT NOT NULL,
	base_list INTEGER NOT NULL,
	base_len  INTEGER NOT NULL,
	depth     INTEGER NOT NULL,
	tip       INTEGER NOT NULL,
	PRIMARY KEY (tid, list_id)
) WITHOUT ROWID;
CREATE TABLE list_items (
	tid     INTEGER NOT NULL,
	list_id INTEGER NOT NULL,
	idx     INTEGER NOT NULL,
	value   BLOB NOT NULL,
	PRIMARY KEY (tid, list_id, idx)
) WITHOUT ROWID;
CREATE TABLE write_tasks (
	tid           INTEGER NOT NULL,
	checkpoint_id TEXT NOT NULL,
	task_id       TEXT NOT NULL,
	ord           INTEGER NOT NULL,
	PRIMARY KEY (tid, checkpoint_id, task_id)
) WITHOUT ROWID;
CREATE TABLE writes (
	tid           INTEGER NOT NULL,
	checkpoint_id TEXT NOT NULL,
	task_id       TEXT NOT NULL,
	slot          INTEGER NOT NULL,
	pos           INTEGER NOT NULL,
	channel       TEXT NOT NULL,
	value         BLOB NOT NULL,
	PRIMARY KEY (tid, checkpoint_id, task_id, slot)
) WITHOUT ROWID;
CREATE TABLE items (
	ns_key  BLOB NOT NULL,
	key     TEXT NOT NULL,
	value   BLOB NOT NULL,
	created INTEGER NOT NULL,
	updated INTEGER NOT NULL,
	PRIMARY KEY (ns_key, key)
) WITHOUT ROWID;
CREATE INDEX items_by_update ON items (updated DESC, ns_key, key);
`,
	// 2: checkpoints by parent, for Put's conflict check.
	`
CREATE INDEX checkpoints_by_parent ON checkpoints (tid, parent_id);
`,
}

// ErrSchemaTooNew is wrapped by OpenSQLite's error for a database whose
// schema a newer agenteval wrote.
var ErrSchemaTooNew = errors.New("database schema is newer than this agenteval supports")

// OpenSQLite opens (creating it if needed) the SQLite database at path and
// returns a checkpointer on it; Store returns the store in the same file.
// The schema is created or migrated to the current version; a database
// with a newer schema is refused with an error wrapping ErrSchemaTooNew.
// Close it when done.
func OpenSQLite(ctx context.Context, path string, opts SQLiteOptions) (*SQLite, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	if path == "" {
		return nil, errors.New("open sqlite: path is empty")
	}
	if path == ":memory:" || strings.HasPrefix(path, "file::memory:") {
		return nil, fmt.Errorf("open sqlite %s: an in-memory database is not durable; use checkpoint.NewMemory", path)
	}
	busy := opts.BusyTimeout
	if busy == 0 {
		busy = 5 * time.Second
	}
	syncMode := "NORMAL"
	if opts.SyncFull {
		syncMode = "FULL"
	}
	dsn := "file:" + uriPath(path) + fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(%s)&_txlock=immediate", busy.Milliseconds(), syncMode)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	w, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	s := &SQLite{path: path, db: db, w: w, maxDepth: opts.MaxListDepth, cache: map[threadKey]cachedCheckpoint{}}
	switch s.decoded.max = opts.DecodedMessages; s.decoded.max {
	case 0:
		s.decoded.max = defaultDecodedMessages
	case -1:
		s.decoded.max = 0
	}
	if s.maxDepth == 0 {
		s.maxDepth = defaultMaxListDepth
	}
	clock := opts.Clock
	if clock == nil {
		clock = engine.SystemClock{}
	}
	s.store = &SQLiteStore{s: s, clock: clock}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	if err := w.QueryRowContext(ctx, "PRAGMA page_size").Scan(&s.stats.PageSize); err != nil {
		s.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return s, nil
}

// uriPath escapes the characters a SQLite URI filename gives a meaning.
func uriPath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// migrate brings the schema to sqliteSchemaVersion in one transaction.
func (s *SQLite) migrate(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"); err != nil {
			return err
		}
		version := 0
		err := tx.QueryRowContext(ctx, "SELECT version FROM schema_version").Scan(&version)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, "INSERT INTO schema_version (version) VALUES (0)"); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		if version > sqliteSchemaVersion {
			return fmt.Errorf("%w: the file has schema version %d, this agenteval reads up to %d; open it with a newer agenteval", ErrSchemaTooNew, version, sqliteSchemaVersion)
		}
		for v := version; v < sqliteSchemaVersion; v++ {
			if _, err := tx.ExecContext(ctx, sqliteMigrations[v]); err != nil {
				return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
			}
		}
		if version < sqliteSchemaVersion {
			if _, err := tx.ExecContext(ctx, "UPDATE schema_version SET version = ?", sqliteSchemaVersion); err != nil {
				return err
			}
		}
		return nil
	})
}

// SchemaVersion returns the schema version of the open database.
func (s *SQLite) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.db.QueryRowContext(ctx, "SELECT version FROM schema_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version of %s: %w", s.path, err)
	}
	return v, nil
}

// Path returns the database file's path.
func (s *SQLite) Path() string { return s.path }

// Store returns the engine.Store kept in the same database.
func (s *SQLite) Store() *SQLiteStore { return s.store }

// Close closes the database; later calls fail. Closing twice is not an
// error.
func (s *SQLite) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.w.Close()
	return errors.Join(err, s.db.Close())
}

// Stats returns what the checkpointer wrote since it was opened.
func (s *SQLite) Stats() (SQLiteStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.stats, errors.New("sqlite stats: database is closed")
	}
	st := s.stats
	err := s.w.Raw(func(dc any) error {
		ds, ok := dc.(sqlite.DBStatus)
		if !ok {
			return fmt.Errorf("driver connection %T has no status counters", dc)
		}
		cur, _, err := ds.Status(sqlite.DBStatusCacheWrite, false)
		st.PagesWritten = int64(cur)
		return err
	})
	return st, err
}

// writeTx runs fn in an IMMEDIATE transaction on the writer connection;
// the caller holds s.mu.
func (s *SQLite) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.closed {
		return errors.New("database is closed")
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, ignoreDone(tx.Rollback()))
	}
	return tx.Commit()
}

// readTx runs fn in a read transaction: one consistent snapshot.
func (s *SQLite) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}

func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// checkUTF8 refuses names that JSON could not carry exactly.
func checkUTF8(what string, names ...string) error {
	for _, n := range names {
		if !utf8.ValidString(n) {
			return fmt.Errorf("%s %q is not valid UTF-8", what, n)
		}
	}
	return nil
}

// threadRow is a thread's row: its key and counters.
type threadRow struct {
	tid         int64
	puts, lists int64
}

// thread returns the thread's row; create makes it when missing (else
// nil, nil).
func sqliteThread(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}, key threadKey, create bool) (*threadRow, error) {
	var t threadRow
	err := q.QueryRowContext(ctx, "SELECT tid, puts, lists FROM threads WHERE thread_id = ? AND ns = ?", key.id, key.ns).Scan(&t.tid, &t.puts, &t.lists)
	if err == nil {
		return &t, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if !create {
		return nil, nil
	}
	res, err := q.ExecContext(ctx, "INSERT INTO threads (thread_id, ns, puts, lists) VALUES (?, ?, 0, 0)", key.id, key.ns)
	if err != nil {
		return nil, err
	}
	if t.tid, err = res.LastInsertId(); err != nil {
		return nil, err
	}
	return &t, nil
}

// remember caches a thread's checkpoint and its message lists.
func (s *SQLite) remember(key threadKey, tid int64, id string, bases []baseList) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	if _, ok := s.cache[key]; !ok {
		s.cacheOrder = append(s.cacheOrder, key)
		if len(s.cacheOrder) > maxCachedThreads {
			delete(s.cache, s.cacheOrder[0])
			s.cacheOrder = s.cacheOrder[1:]
		}
	}
	s.cache[key] = cachedCheckpoint{tid: tid, id: id, bases: bases}
}

// cached returns the message lists of checkpoint id, if cached.
func (s *SQLite) cached(key threadKey, tid int64, id string) []baseList {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	if c, ok := s.cache[key]; ok && c.tid == tid && c.id == id {
		return c.bases
	}
	return nil
}

func (s *SQLite) forget(threadID string) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	kept := s.cacheOrder[:0]
	for _, k := range s.cacheOrder {
		if k.id == threadID {
			delete(s.cache, k)
			continue
		}
		kept = append(kept, k)
	}
	s.cacheOrder = kept
}

// Put stores cp as a child of cfg.CheckpointID, in one transaction, and
// returns the config that addresses it. A checkpoint without an ID gets
// the thread's next one, as Memory's; cp itself is not changed.
func (s *SQLite) Put(ctx context.Context, cfg engine.CheckpointConfig, cp *engine.Checkpoint, meta engine.CheckpointMetadata) (engine.CheckpointConfig, error) {
	if cfg.ThreadID == "" {
		return engine.CheckpointConfig{}, errors.New("put checkpoint: thread ID is empty")
	}
	if cp == nil {
		return engine.CheckpointConfig{}, fmt.Errorf("put checkpoint in thread %q: checkpoint is nil", cfg.ThreadID)
	}
	key := threadKey{cfg.ThreadID, cfg.CheckpointNS}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out engine.CheckpointConfig
	var put *putTx
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		th, err := sqliteThread(ctx, tx, key, true)
		if err != nil {
			return err
		}
		if !cfg.Fork {
			if err := sqliteCheckTip(ctx, tx, key, th.tid, cfg.CheckpointID, cp.ID); err != nil {
				return err
			}
		}
		if th.puts >= maxPuts {
			return fmt.Errorf("the thread has taken %d checkpoints, the most IDs can count", th.puts)
		}
		th.puts++
		id := cp.ID
		if id == "" {
			id = checkpointID(key, uint64(th.puts))
		}
		put = &putTx{ctx: ctx, tx: tx, th: th, maxDepth: s.maxDepth}
		if err := put.checkpoint(id, cfg.CheckpointID, cp, meta); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE threads SET puts = ?, lists = ? WHERE tid = ?", th.puts, th.lists, th.tid); err != nil {
			return err
		}
		out = engine.CheckpointConfig{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS, CheckpointID: id}
		return nil
	})
	if err != nil {
		return engine.CheckpointConfig{}, fmt.Errorf("put checkpoint in thread %q: %w", cfg.ThreadID, err)
	}
	s.stats.Puts++
	s.stats.PayloadBytes += put.bytes
	s.remember(key, put.th.tid, out.CheckpointID, put.bases)
	for _, b := range put.bases {
		// the list's first b.list.Len() elements are these messages: a
		// run reading the checkpoint back need not decode them
		s.decoded.put(put.th.tid, b.id, b.list)
	}
	return out, nil
}

// sqliteCheckTip returns a *engine.CheckpointConflictError when a
// checkpoint other than self was put under parent. It runs in Put's write
// transaction, which holds the database's write lock, so no other writer
// can slip in between the check and the insert.
func sqliteCheckTip(ctx context.Context, tx *sql.Tx, key threadKey, tid int64, parent, self string) error {
	var child string
	err := tx.QueryRowContext(ctx, "SELECT checkpoint_id FROM checkpoints WHERE tid = ? AND parent_id = ? AND checkpoint_id <> ? ORDER BY checkpoint_id LIMIT 1", tid, parent, self).Scan(&child)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	conflict := &engine.CheckpointConflictError{ThreadID: key.id, Namespace: key.ns, Expected: parent, Child: child}
	if err := tx.QueryRowContext(ctx, "SELECT MAX(checkpoint_id) FROM checkpoints WHERE tid = ?", tid).Scan(&conflict.Head); err != nil {
		return err
	}
	return conflict
}

// PutWrites stores a task's writes against the checkpoint cfg names, in
// one transaction, slot by slot as Memory does (engine.WriteSlot): an
// ordinary write keeps the first value put at its index, an error,
// interrupt or resume write replaces the task's earlier one in place.
// Each write's TaskID is set to taskID.
func (s *SQLite) PutWrites(ctx context.Context, cfg engine.CheckpointConfig, writes []engine.PendingWrite, taskID string) error {
	if cfg.ThreadID == "" {
		return errors.New("put writes: thread ID is empty")
	}
	if cfg.CheckpointID == "" {
		return fmt.Errorf("put writes of task %q in thread %q: checkpoint ID is empty; writes belong to a checkpoint", taskID, cfg.ThreadID)
	}
	key := threadKey{cfg.ThreadID, cfg.CheckpointNS}
	var size int64
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		th, err := sqliteThread(ctx, tx, key, false)
		if err != nil {
			return err
		}
		exists := 0
		if th != nil {
			err = tx.QueryRowContext(ctx, "SELECT 1 FROM checkpoints WHERE tid = ? AND checkpoint_id = ?", th.tid, cfg.CheckpointID).Scan(&exists)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		if exists == 0 {
			return fmt.Errorf("no checkpoint %q", cfg.CheckpointID)
		}
		enc := &encoder{bases: s.cached(key, th.tid, cfg.CheckpointID)}
		values := make([][]byte, len(writes))
		for i, w := range writes {
			b, err := enc.encode(w.Value, "value")
			if err != nil {
				return fmt.Errorf("write %d to channel %q: %w", i, w.Channel, err)
			}
			values[i] = b
			size += int64(len(b))
		}
		_, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO write_tasks (tid, checkpoint_id, task_id, ord)
			VALUES (?1, ?2, ?3, (SELECT COALESCE(MAX(ord), -1) + 1 FROM write_tasks WHERE tid = ?1 AND checkpoint_id = ?2))`, th.tid, cfg.CheckpointID, taskID)
		if err != nil {
			return err
		}
		for i, w := range writes {
			slot := engine.WriteSlot(w.Channel, i)
			var pos int64
			err := tx.QueryRowContext(ctx, "SELECT pos FROM writes WHERE tid = ? AND checkpoint_id = ? AND task_id = ? AND slot = ?", th.tid, cfg.CheckpointID, taskID, slot).Scan(&pos)
			switch {
			case err == nil && slot >= 0:
				// a task's ordinary writes keep the first value put
			case err == nil:
				if _, err := tx.ExecContext(ctx, "UPDATE writes SET channel = ?, value = ? WHERE tid = ? AND checkpoint_id = ? AND task_id = ? AND slot = ?", w.Channel, values[i], th.tid, cfg.CheckpointID, taskID, slot); err != nil {
					return err
				}
			case errors.Is(err, sql.ErrNoRows):
				_, err := tx.ExecContext(ctx, `INSERT INTO writes (tid, checkpoint_id, task_id, slot, pos, channel, value)
					VALUES (?1, ?2, ?3, ?4, (SELECT COALESCE(MAX(pos), -1) + 1 FROM writes WHERE tid = ?1 AND checkpoint_id = ?2 AND task_id = ?3), ?5, ?6)`,
					th.tid, cfg.CheckpointID, taskID, slot, w.Channel, values[i])
				if err != nil {
					return err
				}
			default:
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put writes of task %q in thread %q: %w", taskID, cfg.ThreadID, err)
	}
	s.stats.PutWrites++
	s.stats.PayloadBytes += size
	return nil
}

// GetTuple returns the checkpoint cfg.CheckpointID names, or the thread's
// newest when it is empty; nil, nil when there is none.
func (s *SQLite) GetTuple(ctx context.Context, cfg engine.CheckpointConfig) (*engine.CheckpointTuple, error) {
	if cfg.ThreadID == "" {
		return nil, errors.New("get checkpoint: thread ID is empty")
	}
	key := threadKey{cfg.ThreadID, cfg.CheckpointNS}
	var out *engine.CheckpointTuple
	var bases []baseList
	var tid int64
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		th, err := sqliteThread(ctx, tx, key, false)
		if err != nil || th == nil {
			return err
		}
		q := "SELECT checkpoint_id, parent_id, source, step, body FROM checkpoints WHERE tid = ? ORDER BY checkpoint_id DESC LIMIT 1"
		args := []any{th.tid}
		if cfg.CheckpointID != "" {
			q = "SELECT checkpoint_id, parent_id, source, step, body FROM checkpoints WHERE tid = ? AND checkpoint_id = ?"
			args = append(args, cfg.CheckpointID)
		}
		rows, err := scanCheckpoints(ctx, tx, q, args...)
		if err != nil || len(rows) == 0 {
			return err
		}
		tid = th.tid
		r := newReader(ctx, tx, th.tid, &s.decoded)
		out, bases, err = r.tuple(key, rows[0])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get checkpoint of thread %q: %w", cfg.ThreadID, err)
	}
	if out != nil {
		s.remember(key, tid, out.Config.CheckpointID, bases)
	}
	return out, nil
}

// List returns the thread's checkpoints newest first: only the one
// cfg.CheckpointID names when it is set, only those older than
// opts.Before, only those whose metadata source is opts.Source, at most
// opts.Limit of them.
func (s *SQLite) List(ctx context.Context, cfg engine.CheckpointConfig, opts engine.ListOptions) ([]*engine.CheckpointTuple, error) {
	if cfg.ThreadID == "" {
		return nil, errors.New("list checkpoints: thread ID is empty")
	}
	if opts.Limit < 0 {
		return nil, fmt.Errorf("list checkpoints of thread %q: limit %d is negative", cfg.ThreadID, opts.Limit)
	}
	key := threadKey{cfg.ThreadID, cfg.CheckpointNS}
	var out []*engine.CheckpointTuple
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		th, err := sqliteThread(ctx, tx, key, false)
		if err != nil || th == nil {
			return err
		}
		q := "SELECT checkpoint_id, parent_id, source, step, body FROM checkpoints WHERE tid = ?"
		args := []any{th.tid}
		if cfg.CheckpointID != "" {
			q += " AND checkpoint_id = ?"
			args = append(args, cfg.CheckpointID)
		}
		if opts.Before != "" {
			q += " AND checkpoint_id < ?"
			args = append(args, opts.Before)
		}
		if opts.Source != "" {
			q += " AND source = ?"
			args = append(args, opts.Source)
		}
		q += " ORDER BY checkpoint_id DESC"
		if opts.Limit > 0 {
			q += " LIMIT ?"
			args = append(args, opts.Limit)
		}
		rows, err := scanCheckpoints(ctx, tx, q, args...)
		if err != nil {
			return err
		}
		r := newReader(ctx, tx, th.tid, &s.decoded)
		for _, row := range rows {
			t, _, err := r.tuple(key, row)
			if err != nil {
				return err
			}
			out = append(out, t)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list checkpoints of thread %q: %w", cfg.ThreadID, err)
	}
	return out, nil
}

// DeleteThread removes every checkpoint and write of the thread, in every
// namespace. Deleting a thread that has none is not an error.
func (s *SQLite) DeleteThread(ctx context.Context, threadID string) error {
	if threadID == "" {
		return errors.New("delete thread: thread ID is empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		for _, table := range []string{"checkpoints", "blobs", "lists", "list_items", "write_tasks", "writes"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE tid IN (SELECT tid FROM threads WHERE thread_id = ?)", threadID); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM threads WHERE thread_id = ?", threadID)
		return err
	})
	s.forget(threadID)
	if err != nil {
		return fmt.Errorf("delete thread %q: %w", threadID, err)
	}
	return nil
}

// Threads returns the IDs of the threads that have checkpoints (in any
// namespace), sorted.
func (s *SQLite) Threads(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT DISTINCT thread_id FROM threads ORDER BY thread_id")
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list threads: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	return ids, nil
}
