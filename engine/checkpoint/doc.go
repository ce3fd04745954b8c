// Package checkpoint holds agenteval's implementations of
// engine.Checkpointer (per-thread checkpoint history, LangGraph's
// BaseCheckpointSaver) and engine.Store (long-term memory shared across
// threads, LangGraph's BaseStore).
//
// Memory follows LangGraph's InMemorySaver and MemoryStore its
// InMemoryStore; SQLite (OpenSQLite, pure Go modernc.org/sqlite, WAL, one
// transaction per Put and per PutWrites, a versioned schema with
// migrations) is the durable checkpointer and, through SQLite.Store, the
// durable store; Postgres (OpenPostgres, github.com/jackc/pgx/v5) is the
// checkpointer and store for threads shared by many workers. SQLite writes only what changed: a channel whose version
// did not change is not rewritten, and a message list stores only the
// messages a step added (Checkpoint.ListPrefix), so a step's cost stays flat
// as the thread grows. All are safe for concurrent use; the in-memory ones
// never block, so they ignore their context. The checkpointtest package is
// the conformance suite every implementation runs.
//
// # Memory
//
// Threads are keyed by thread ID and checkpoint namespace; an empty thread
// ID is an error. Put stores the checkpoint as a child of
// cfg.CheckpointID (its parent, possibly empty) and returns the config
// that addresses it. A checkpoint without an ID gets one that is
// deterministic and UUID-shaped (version 6 layout):
//
//	00000000-0003-603e-bc71-fe49acae0e66   third put of thread "t1"
//	00000000-0001-6a97-af5e-fda92cc9a0fe   first put of thread "t2"
//
// The first 48 bits (12 hex digits) count the thread's puts, so IDs of one
// thread sort in put order as strings; then come the version digit 6, the
// RFC 4122 variant and a hash of the thread ID and namespace, so IDs of
// different threads differ. The same sequence of
// puts always gives the same IDs. A checkpoint that comes with an ID keeps
// it (and replaces a stored one with the same ID).
//
// "Newest" means the greatest ID, as in InMemorySaver: GetTuple without a
// checkpoint ID returns it, and List returns checkpoints by descending ID,
// after the Before, Source and Limit options. PutWrites stores a task's
// writes against an existing checkpoint in LangGraph's slots (see
// engine.WriteSlot: error, interrupt and resume writes replace the task's
// earlier one, other writes keep the first value put); a tuple's PendingWrites are grouped by task in the order
// each task first wrote, each task's writes in their own order.
//
// Memory keeps the maps of the checkpoints it is handed (the caller
// changes them no more, engine.Checkpointer) and copies them on the way
// out, so callers may change what they get. A run hands it snapshots
// instead (engine.SnapshotSaver): a checkpoint in the run's own compact
// form, a few allocations where the public shape takes five maps, which
// Memory keeps as they are and turns into new maps when GetTuple or List
// returns them. Channel values and write values are shared, since values
// are immutable by convention. A thread keeps its checkpoints in a list
// sorted by ID, where a run's put finds its parent (the newest) without
// hashing; their records and IDs are cut from a few allocations per
// thread, sized by the last thread of the namespace, as the run cuts its
// snapshots from a few of its own. A record holds what a run's superstep
// needs (its parent as a pointer, its source as a code, the first writes
// of one task with their channels as numbers in the thread's table) in
// 112 bytes, and what few checkpoints have (a caller's maps, an unknown
// source, writes of several tasks) behind one pointer.
//
// # Concurrency: one head per branch
//
// A thread's checkpoints form a tree: each names its parent. Every
// checkpointer here enforces optimistic concurrency on it. A Put names as
// parent the checkpoint the writer read, and fails with a
// *engine.CheckpointConflictError (errors.Is engine.ErrCheckpointConflict),
// storing nothing, when the thread's namespace already holds another
// checkpoint with that parent ("" for a root): the parent is no longer the
// head of its branch, because another writer extended it since. The error
// names the thread, the namespace, the parent the writer expected, the
// child that took its place and the thread's newest checkpoint. A
// checkpoint put again under its own ID and parent is not its own sibling.
//
// Forks stay legal: CheckpointConfig.Fork lets a put add a sibling. The
// engine sets it on the first put of a run or UpdateState addressed by a
// checkpoint ID (LangGraph's time travel), and never on a run that
// continues the thread's head; every later step of a run names the
// checkpoint the run itself just put, so a fork's branch is checked like
// any other, and concurrent forks of one checkpoint do not conflict. Two
// workers resuming one thread from the same head: exactly one wins, the
// other's turn fails and nothing of it is stored; it may run again from the
// new head. The check and the insert are one atomic step: under Memory's
// mutex, in SQLite's IMMEDIATE write transaction (which also serializes
// processes sharing the file), under Postgres's row lock on the thread.
//
// # Postgres
//
// OpenPostgres(ctx, connString, PostgresOptions{}) connects through a pgx
// pool (PostgresOptions.MaxConns caps it; Clock gives store timestamps)
// to any database the connection string names — a URL or key=value
// string; add search_path=NAME to keep the tables in a schema of their
// own. Postgres.Store is the engine.Store in the same database. Close
// closes the pool.
//
// Schema. Tables are prefixed agenteval_, so they never collide with
// LangGraph's own PostgresSaver tables in a shared database:
//
//	agenteval_schema_version  one row: the schema version
//	agenteval_threads         (thread_id, ns) -> puts: the put counter IDs
//	                          come from, and the row a Put locks
//	agenteval_checkpoints     (thread_id, ns, checkpoint_id) -> seq,
//	                          parent_id, source, step, body (versions,
//	                          versions seen, updated channels, list
//	                          prefixes, parents, and where each channel's
//	                          value is)
//	agenteval_blobs           (thread_id, ns, seq, channel) -> value
//	agenteval_write_tasks     (thread_id, ns, checkpoint_id, task_id) -> ord
//	agenteval_writes          (..., task_id, slot) -> pos, channel, value
//	agenteval_items           (ns_key, key) -> value, created, updated
//
// Names, IDs and keys are TEXT COLLATE "C", so IDs sort byte by byte
// whatever the database's locale; a name with NUL or invalid UTF-8, which
// PostgreSQL text cannot hold, is refused. Values are BYTEA holding the
// same exact JSON envelope as SQLite's (not JSONB, which would reorder
// keys and normalize number literals). A channel whose version did not
// change refers to the parent's blob, so a step writes only the channels
// it changed; unlike SQLite, a changed message list is written whole (no
// per-message rows yet), so a step's bytes grow with the list.
//
// Migrations. OpenPostgres creates the schema or migrates it to the
// current version in one transaction under an advisory lock, so workers
// starting together migrate once; a database with a newer version is
// refused with ErrSchemaTooNew. Version 1: the tables above; version 2:
// the index on (thread_id, ns, parent_id) the conflict check uses (SQLite's
// schema version 2 adds the same index).
//
// Transactions. Each Put and PutWrites is one READ COMMITTED transaction;
// a Put first locks its thread's row (SELECT ... FOR UPDATE), so puts to a
// thread from any number of processes are serialized and atomic, and puts
// to different threads run in parallel; PutWrites locks its checkpoint's
// row. GetTuple and List read one REPEATABLE READ snapshot. A process
// killed at any point leaves each checkpoint whole or absent; a run
// resumes from the newest (TestCrashResumePostgresKill kills one after
// every superstep).
//
// Tests start a throwaway server per test binary (internal/pgtest: initdb
// and pg_ctl from PATH or /usr/lib/postgresql/*/bin, a Unix socket in a
// temporary directory, run as an unprivileged user when the tests run as
// root) and give each test a schema of its own; they skip where PostgreSQL
// is not installed.
//
// # MemoryStore
//
// Items are addressed by a non-empty namespace and key. Put stores a deep
// copy of the value (a nil value deletes the item), keeping CreatedAt on
// update and setting UpdatedAt from the store's Clock. Namespaces are
// checked the way LangGraph checks them on put, with its
// InvalidNamespaceError texts: not empty, no empty labels, no '.' in a
// label, and no "langgraph" root label.
//
// Search returns the items under a namespace prefix that match every
// top-level key of the filter (compared with engine.ValueEqual) and, when
// a query is given, whose value's JSON contains it (case-insensitively;
// there is no embedding index). Results are ordered by UpdatedAt, newest
// first, then by namespace and key, so equal timestamps still give a
// stable order; Offset is applied, then Limit (0 means LangGraph's default
// of 10).
package checkpoint
