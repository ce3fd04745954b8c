// Package checkpoint holds agenteval's implementations of
// engine.Checkpointer (per-thread checkpoint history, LangGraph's
// BaseCheckpointSaver) and engine.Store (long-term memory shared across
// threads, LangGraph's BaseStore).
//
// Memory follows LangGraph's InMemorySaver and MemoryStore its
// InMemoryStore; SQLite (OpenSQLite, pure Go modernc.org/sqlite, WAL, one
// transaction per Put and per PutWrites, a versioned schema with
// migrations) is the durable checkpointer and, through SQLite.Store, the
// durable store. SQLite writes only what changed: a channel whose version
// did not change is not rewritten, and a message list stores only the
// messages a step added (Checkpoint.ListPrefix), so a step's cost stays flat
// as the thread grows. All are safe for concurrent use; the in-memory ones
// never block, so they ignore their context. The checkpointtest package is
// the conformance suite every implementation runs.
//
// # Memory
//
// Threads are keyed by thread ID and checkpoint namespace; an empty thread
// ID is an error. Put stores a copy of the checkpoint as a child of
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
// Stored data is copied on the way in and out: the maps of a checkpoint
// and its metadata are copied, so callers may keep changing their own.
// Channel values and write values are shared, since values are immutable
// by convention.
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
