package checkpoint

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/agenteval/agenteval/engine"
)

// checkpointRow is a row of the checkpoints table.
type checkpointRow struct {
	id, parent, source string
	step               int
	body               []byte
}

func scanCheckpoints(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]checkpointRow, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []checkpointRow
	for rows.Next() {
		var r checkpointRow
		if err := rows.Scan(&r.id, &r.parent, &r.source, &r.step, &r.body); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// reader reads checkpoints of one thread in one read transaction; stored
// lists it resolved are shared by the checkpoints it reads.
type reader struct {
	ctx   context.Context
	tx    *sql.Tx
	tid   int64
	lists map[int64]*listRow
	vals  map[int64][]any
	// decoded is the saver's cache of message lists, shared by readers
	decoded *decodedLists
}

func newReader(ctx context.Context, tx *sql.Tx, tid int64, decoded *decodedLists) *reader {
	return &reader{ctx: ctx, tx: tx, tid: tid, lists: map[int64]*listRow{}, vals: map[int64][]any{}, decoded: decoded}
}

// decodedLists keeps the message lists the saver decoded most recently,
// so reading a checkpoint of a long thread again (a run resuming or
// forking it) does not decode its messages again: only what was appended
// since. Stored list elements never change once written, and a thread's
// row ID is never reused, so an entry stays right until it is evicted.
// The lists handed out share these arrays; like every checkpoint value they
// are read only.
type decodedLists struct {
	max     int // messages it may hold; 0 keeps none
	mu      sync.Mutex
	entries map[listKey]engine.MessageList
	order   []listKey // least recently used first
	total   int       // messages held
}

type listKey struct{ tid, list int64 }

func (d *decodedLists) get(tid, list int64) engine.MessageList {
	if d == nil {
		return engine.MessageList{}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	k := listKey{tid, list}
	msgs, ok := d.entries[k]
	if ok {
		d.touch(k)
	}
	return msgs
}

// put remembers msgs as the first msgs.Len() elements of the list.
func (d *decodedLists) put(tid, list int64, msgs engine.MessageList) {
	if d == nil || msgs.Len() > d.max {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	k := listKey{tid, list}
	if old, ok := d.entries[k]; ok {
		if old.Len() >= msgs.Len() {
			d.touch(k)
			return
		}
		d.total -= old.Len()
	}
	if d.entries == nil {
		d.entries = map[listKey]engine.MessageList{}
	}
	d.entries[k] = msgs
	d.total += msgs.Len()
	d.touch(k)
	for d.total > d.max {
		oldest := d.order[0]
		d.order = d.order[1:]
		d.total -= d.entries[oldest].Len()
		delete(d.entries, oldest)
	}
}

func (d *decodedLists) touch(k listKey) {
	if i := slices.Index(d.order, k); i >= 0 {
		d.order = slices.Delete(d.order, i, i+1)
	}
	d.order = append(d.order, k)
}

// tuple reads a checkpoint with its values and pending writes; it also
// returns the checkpoint's message lists.
func (r *reader) tuple(key threadKey, row checkpointRow) (*engine.CheckpointTuple, []baseList, error) {
	var body checkpointBody
	if err := json.Unmarshal(row.body, &body); err != nil {
		return nil, nil, fmt.Errorf("checkpoint %q: %w", row.id, err)
	}
	cp := &engine.Checkpoint{V: body.V, ID: row.id, TS: string(body.TS), ChannelVersions: body.Versions, VersionsSeen: body.Seen, UpdatedChannels: body.Updated, ListPrefix: body.Prefix}
	var bases []baseList
	if body.Values != nil {
		cp.ChannelValues = make(map[string]any, len(body.Values))
		dec := &decoder{resolve: r.messages}
		for _, ch := range sortedNames(body.Values) {
			ref := body.Values[ch]
			var v any
			var err error
			switch {
			case ref.List != 0 && (ref.Kind == "msglist" || ref.Kind == "messages"):
				// a MessageList comes back as one; a []engine.Message
				// put as it was, as one slice
				var l engine.MessageList
				l, err = r.messages(ref.List, ref.N)
				v = l
				if ref.Kind == "messages" {
					v = l.Slice()
					if v.([]engine.Message) == nil {
						v = []engine.Message{}
					}
				}
				bases = append(bases, baseList{id: ref.List, list: l})
			case ref.List != 0 && ref.Kind == "list":
				v, err = resolveList(r, r.vals, decodeAnyElement, ref.List, ref.N)
			case ref.Blob != 0:
				var raw []byte
				err = r.tx.QueryRowContext(r.ctx, "SELECT value FROM blobs WHERE tid = ? AND seq = ? AND channel = ?", r.tid, ref.Blob, ch).Scan(&raw)
				if err == nil {
					v, err = dec.decode(raw)
				}
			default:
				err = fmt.Errorf("unknown reference %+v", ref)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("checkpoint %q: channel %q: %w", row.id, ch, err)
			}
			cp.ChannelValues[ch] = v
		}
	}
	t := &engine.CheckpointTuple{
		Config:     engine.CheckpointConfig{ThreadID: key.id, CheckpointNS: key.ns, CheckpointID: row.id},
		Checkpoint: cp,
		Metadata:   engine.CheckpointMetadata{Source: row.source, Step: row.step, Parents: body.Parents},
	}
	if row.parent != "" {
		t.ParentConfig = &engine.CheckpointConfig{ThreadID: key.id, CheckpointNS: key.ns, CheckpointID: row.parent}
	}
	writes, err := r.writes(row.id)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoint %q: %w", row.id, err)
	}
	t.PendingWrites = writes
	return t, bases, nil
}

// writes reads a checkpoint's pending writes, by task in first-write
// order.
func (r *reader) writes(id string) ([]engine.PendingWrite, error) {
	rows, err := r.tx.QueryContext(r.ctx, `SELECT w.task_id, w.channel, w.value FROM writes w
		JOIN write_tasks t ON t.tid = w.tid AND t.checkpoint_id = w.checkpoint_id AND t.task_id = w.task_id
		WHERE w.tid = ? AND w.checkpoint_id = ? ORDER BY t.ord, w.pos`, r.tid, id)
	if err != nil {
		return nil, err
	}
	type raw struct {
		task, channel string
		value         []byte
	}
	var raws []raw
	for rows.Next() {
		var w raw
		if err := rows.Scan(&w.task, &w.channel, &w.value); err != nil {
			rows.Close()
			return nil, err
		}
		raws = append(raws, w)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(raws) == 0 {
		return nil, nil
	}
	dec := &decoder{resolve: r.messages}
	out := make([]engine.PendingWrite, len(raws))
	for i, w := range raws {
		v, err := dec.decode(w.value)
		if err != nil {
			return nil, fmt.Errorf("write %d of task %q to channel %q: %w", i, w.task, w.channel, err)
		}
		out[i] = engine.PendingWrite{TaskID: w.task, Channel: w.channel, Value: v}
	}
	return out, nil
}

// messages returns the first n messages of stored list id, decoding
// only what the saver's cache does not hold: a list that extends another
// (a fork's) starts from that list's messages, and a list that grew in
// place since it was cached appends the new ones. The lists share their
// messages (MessageList), so a run reading a long thread's newest or
// forked checkpoint costs what the thread gained since.
func (r *reader) messages(id int64, n int) (engine.MessageList, error) {
	have := r.decoded.get(r.tid, id)
	if have.Len() >= n {
		return have.Prefix(n), nil
	}
	l, err := r.listRow(id)
	if err != nil {
		return engine.MessageList{}, err
	}
	if n > l.tip {
		return engine.MessageList{}, fmt.Errorf("stored list %d has %d elements, %d wanted", id, l.tip, n)
	}
	if l.base != 0 && have.Len() < min(n, l.baseLen) {
		if have, err = r.messages(l.base, min(n, l.baseLen)); err != nil {
			return engine.MessageList{}, err
		}
	}
	if from := have.Len(); from < n {
		raws, err := r.items(id, from, n)
		if err != nil {
			return engine.MessageList{}, err
		}
		msgs := make([]engine.Message, len(raws))
		for i, b := range raws {
			if msgs[i], err = decodeMessageElement(b); err != nil {
				return engine.MessageList{}, fmt.Errorf("stored list %d element %d: %w", id, from+i, err)
			}
		}
		have = have.Append(msgs...)
	}
	r.decoded.put(r.tid, id, have)
	return have, nil
}

// items returns the stored elements [from, to) of list id's own rows.
func (r *reader) items(id int64, from, to int) ([][]byte, error) {
	rows, err := r.tx.QueryContext(r.ctx, "SELECT idx, value FROM list_items WHERE tid = ? AND list_id = ? AND idx >= ? AND idx < ? ORDER BY idx", r.tid, id, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var raws [][]byte
	next := from
	for rows.Next() {
		var idx int
		var b []byte
		if err := rows.Scan(&idx, &b); err != nil {
			return nil, err
		}
		if idx != next {
			return nil, fmt.Errorf("stored list %d lacks element %d", id, next)
		}
		next++
		raws = append(raws, b)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if next != to {
		return nil, fmt.Errorf("stored list %d lacks element %d", id, next)
	}
	return raws, nil
}

func decodeMessageElement(b []byte) (engine.Message, error) {
	var rec messageRec
	if err := json.Unmarshal(b, &rec); err != nil {
		return engine.Message{}, err
	}
	return decodeMessage(rec)
}

func decodeAnyElement(b []byte) (any, error) {
	var d decoder
	return d.decode(b)
}

func (r *reader) listRow(id int64) (*listRow, error) {
	if l, ok := r.lists[id]; ok {
		return l, nil
	}
	l := &listRow{id: id}
	err := r.tx.QueryRowContext(r.ctx, "SELECT kind, base_list, base_len, depth, tip FROM lists WHERE tid = ? AND list_id = ?", r.tid, id).Scan(&l.kind, &l.base, &l.baseLen, &l.depth, &l.tip)
	if err != nil {
		return nil, fmt.Errorf("read stored list %d: %w", id, err)
	}
	r.lists[id] = l
	return l, nil
}

// resolveList returns the first n elements of stored list id, from memo
// when it has them; what it reads is memoized. The result's capacity is n,
// so appending to it never reaches the memo.
func resolveList[T any](r *reader, memo map[int64][]T, decode func([]byte) (T, error), id int64, n int) ([]T, error) {
	if n == 0 {
		return []T{}, nil
	}
	have := memo[id]
	if len(have) >= n {
		return have[:n:n], nil
	}
	l, err := r.listRow(id)
	if err != nil {
		return nil, err
	}
	if n > l.tip {
		return nil, fmt.Errorf("stored list %d has %d elements, %d wanted", id, l.tip, n)
	}
	out := make([]T, 0, n)
	out = append(out, have...)
	if l.base != 0 {
		if upto := min(n, l.baseLen); len(out) < upto {
			head, err := resolveList(r, memo, decode, l.base, upto)
			if err != nil {
				return nil, err
			}
			out = append(out, head[len(out):]...)
		}
	}
	if len(out) < n {
		rows, err := r.tx.QueryContext(r.ctx, "SELECT idx, value FROM list_items WHERE tid = ? AND list_id = ? AND idx >= ? AND idx < ? ORDER BY idx", r.tid, id, len(out), n)
		if err != nil {
			return nil, err
		}
		var raws [][]byte
		next := len(out)
		for rows.Next() {
			var idx int
			var b []byte
			if err := rows.Scan(&idx, &b); err != nil {
				rows.Close()
				return nil, err
			}
			if idx != next {
				rows.Close()
				return nil, fmt.Errorf("stored list %d lacks element %d", id, next)
			}
			next++
			raws = append(raws, b)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if next != n {
			return nil, fmt.Errorf("stored list %d lacks element %d", id, next)
		}
		for i, b := range raws {
			v, err := decode(b)
			if err != nil {
				return nil, fmt.Errorf("stored list %d element %d: %w", id, len(out)+i, err)
			}
			out = append(out, v)
		}
	}
	memo[id] = out
	return out[:n:n], nil
}
