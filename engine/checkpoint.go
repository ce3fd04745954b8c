package engine

import (
	"context"
	"time"
)

// Checkpoint is the state of a thread after one superstep: channel values
// and versions, and which versions each node has seen. It mirrors
// LangGraph's Checkpoint dict.
type Checkpoint struct {
	V  int
	ID string
	// TS is the creation time from the graph's Clock, RFC 3339.
	TS              string
	ChannelValues   map[string]any
	ChannelVersions map[string]int64
	VersionsSeen    map[string]map[string]int64
	// UpdatedChannels lists the channels written in the step that made
	// this checkpoint, sorted.
	UpdatedChannels []string
	// ListPrefix tells, for list-valued channels (messages), how many
	// leading elements are the same as in the parent checkpoint's value,
	// when the engine knows it. A checkpointer may store only the rest, so
	// a step's cost does not grow with the thread.
	ListPrefix map[string]int
}

// CheckpointMetadata describes how a checkpoint came to be.
type CheckpointMetadata struct {
	// Source is "input", "loop", "update" or "fork".
	Source string
	// Step is -1 for the first input checkpoint, then 0, 1, ...
	Step int
	// Parents maps parent graph namespaces to checkpoint IDs (empty for a
	// top-level graph).
	Parents map[string]string
}

// ToValue returns {"source", "step", "parents"}.
func (m CheckpointMetadata) ToValue() *Object {
	parents := &Object{}
	for _, k := range sortedKeys(m.Parents) {
		parents.Set(k, m.Parents[k])
	}
	return NewObject("source", m.Source, "step", intNumber(m.Step), "parents", parents)
}

// CheckpointConfig addresses a thread, or one checkpoint of it when
// CheckpointID is set.
type CheckpointConfig struct {
	ThreadID     string
	CheckpointNS string
	CheckpointID string
	// Fork, on a Put, says the writer branches from a checkpoint it
	// addressed by ID, which may already have children (a run or
	// UpdateState from a past checkpoint). Without it a Put expects its
	// parent to be the tip of its branch and fails with
	// ErrCheckpointConflict when another checkpoint was put after it (see
	// CheckpointConflictError). Savers never set it in what they return.
	Fork bool
}

// PendingWrite is a write a task made against a checkpoint before the next
// one was taken: the results of finished tasks of an interrupted or failed
// superstep, so a resumed run does not redo them.
type PendingWrite struct {
	TaskID  string
	Channel string
	Value   any
}

// CheckpointTuple is a stored checkpoint with its metadata, parent and
// pending writes.
type CheckpointTuple struct {
	Config        CheckpointConfig
	Checkpoint    *Checkpoint
	Metadata      CheckpointMetadata
	ParentConfig  *CheckpointConfig
	PendingWrites []PendingWrite
}

// ListOptions narrows Checkpointer.List.
type ListOptions struct {
	// Before lists only checkpoints older than this one.
	Before string
	// Limit caps the number of checkpoints; 0 means no limit.
	Limit int
	// Source keeps only checkpoints with this metadata source.
	Source string
}

// Checkpointer stores checkpoints per thread (LangGraph's
// BaseCheckpointSaver). Implementations live in engine/checkpoint and must
// be safe for concurrent use.
//
// Put assigns the checkpoint's ID when it is empty; IDs of one thread must
// sort in the order the checkpoints were put, since List returns them
// newest first and a run resumes from the newest.
//
// Ownership: the caller of Put hands the checkpoint and metadata over,
// with their maps and slices, and changes none of them afterwards (a run
// makes new ones for every checkpoint, or passes again one of an earlier
// checkpoint's, which nothing changes either), so a saver may keep them
// as they are; it must not change them itself. PutWrites must not keep
// the writes slice (a run reuses its array for the next superstep), only
// the writes' values. What GetTuple and List return belongs to the
// caller, which may change it. Channel values themselves are never changed
// by either side, so a saver may share them. checkpointtest's
// CopiesAreIndependent checks this. A saver that keeps checkpoints in
// memory may also implement SnapshotSaver, and then takes a run's
// checkpoints in the run's compact form.
type Checkpointer interface {
	// GetTuple returns the checkpoint cfg names, or the thread's newest when
	// cfg.CheckpointID is empty; nil, nil when there is none.
	GetTuple(ctx context.Context, cfg CheckpointConfig) (*CheckpointTuple, error)
	// List returns the thread's checkpoints, newest first.
	List(ctx context.Context, cfg CheckpointConfig, opts ListOptions) ([]*CheckpointTuple, error)
	// Put stores a checkpoint as a child of cfg.CheckpointID (the parent)
	// and returns the config that addresses it. Unless cfg.Fork is set it
	// fails with a *CheckpointConflictError (wrapping
	// ErrCheckpointConflict), storing nothing, when the thread's namespace
	// already holds another checkpoint with the same parent: the parent
	// is no longer the head the writer read.
	Put(ctx context.Context, cfg CheckpointConfig, cp *Checkpoint, meta CheckpointMetadata) (CheckpointConfig, error)
	// PutWrites stores a task's writes against the checkpoint cfg names.
	// Each write has a slot (WriteSlot): the error, interrupt, resume and
	// scheduled writes of a task have one slot each, which a new write
	// replaces; its other writes keep the first value put at their index
	// (LangGraph's savers).
	PutWrites(ctx context.Context, cfg CheckpointConfig, writes []PendingWrite, taskID string) error
}

// WriteSlot is the slot of the idx-th write of a PutWrites call: a
// negative fixed slot for the special channels (error -1, scheduled -2,
// interrupt -3, resume -4), idx otherwise (LangGraph's WRITES_IDX_MAP).
func WriteSlot(channel string, idx int) int {
	switch channel {
	case chError:
		return -1
	case "__scheduled__":
		return -2
	case chInterrupt:
		return -3
	case chResume:
		return -4
	}
	return idx
}

// Item is a value in a Store.
type Item struct {
	Namespace []string
	Key       string
	Value     *Object
	CreatedAt time.Time
	UpdatedAt time.Time
}

// SearchOptions narrows Store.Search.
type SearchOptions struct {
	// Filter keeps items whose top-level values equal these.
	Filter *Object
	// Query is matched as a case-insensitive substring of the item's JSON;
	// stores without an embedding index do no semantic search.
	Query  string
	Limit  int
	Offset int
}

// Store is long-term memory shared across threads, addressed by namespace
// and key (LangGraph's BaseStore). Implementations live in engine/checkpoint
// and must be safe for concurrent use.
type Store interface {
	Get(ctx context.Context, namespace []string, key string) (*Item, error)
	Put(ctx context.Context, namespace []string, key string, value *Object) error
	Delete(ctx context.Context, namespace []string, key string) error
	// Search returns the items under a namespace prefix, most recently
	// updated first.
	Search(ctx context.Context, prefix []string, opts SearchOptions) ([]Item, error)
}
