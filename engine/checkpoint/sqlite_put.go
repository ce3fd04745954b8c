package checkpoint

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// checkpointBody is a stored checkpoint without its channel values, which
// it refers to.
type checkpointBody struct {
	V        int                         `json:"v"`
	TS       xstr                        `json:"ts"`
	Versions map[string]int64            `json:"versions"`
	Seen     map[string]map[string]int64 `json:"seen"`
	Updated  []string                    `json:"updated"`
	Prefix   map[string]int              `json:"prefix"`
	Parents  map[string]string           `json:"parents"`
	Values   map[string]channelRef       `json:"values"`
}

// channelRef says where a channel's value is stored: in the blob a
// checkpoint of the thread wrote (Blob is its put number), or as the first
// N elements of a stored list (List, with Kind "msglist" for an
// engine.MessageList, "messages" for
// []engine.Message and "list" for []any).
type channelRef struct {
	Blob int64  `json:"b,omitempty"`
	List int64  `json:"l,omitempty"`
	N    int    `json:"n,omitempty"`
	Kind string `json:"k,omitempty"`
}

// listRow is a stored list: its elements are those of base's first
// baseLen (when base is set) followed by its own rows, up to tip.
type listRow struct {
	id      int64
	kind    string
	base    int64
	baseLen int
	depth   int
	tip     int
}

// putTx is one Put's transaction.
type putTx struct {
	ctx      context.Context
	tx       *sql.Tx
	th       *threadRow
	maxDepth int
	lists    map[int64]*listRow
	// bytes counts the payload written; bases are the checkpoint's
	// message lists.
	bytes int64
	bases []baseList
}

// checkpoint writes checkpoint id (put number p.th.puts) as a child of
// parentID.
func (p *putTx) checkpoint(id, parentID string, cp *engine.Checkpoint, meta engine.CheckpointMetadata) error {
	if err := checkNames(cp, meta); err != nil {
		return err
	}
	var parent *checkpointBody
	if parentID != "" {
		var raw []byte
		err := p.tx.QueryRowContext(p.ctx, "SELECT body FROM checkpoints WHERE tid = ? AND checkpoint_id = ?", p.th.tid, parentID).Scan(&raw)
		switch {
		case err == nil:
			parent = &checkpointBody{}
			if err := json.Unmarshal(raw, parent); err != nil {
				return fmt.Errorf("read parent checkpoint %q: %w", parentID, err)
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
	}
	body := checkpointBody{V: cp.V, TS: xstr(cp.TS), Versions: cp.ChannelVersions, Seen: cp.VersionsSeen, Updated: cp.UpdatedChannels, Prefix: cp.ListPrefix, Parents: meta.Parents}
	if cp.ChannelValues != nil {
		body.Values = make(map[string]channelRef, len(cp.ChannelValues))
		var blobs []string
		for _, ch := range sortedNames(cp.ChannelValues) {
			v := cp.ChannelValues[ch]
			ref, ok := p.reuse(parent, cp, ch, v)
			if !ok {
				// message lists are always stored as rows, so the next
				// checkpoint can extend them; other lists when ListPrefix
				// says how much of the parent's they keep
				n, has := cp.ListPrefix[ch]
				if isMessageList(v) && !has {
					n, has = 0, true
				}
				if has {
					var err error
					if ref, ok, err = p.list(parent, ch, v, n); err != nil {
						return fmt.Errorf("channel %q: %w", ch, err)
					}
				}
			}
			if !ok {
				blobs = append(blobs, ch)
				continue
			}
			body.Values[ch] = ref
			if l, isList := v.(engine.MessageList); isList && ref.Kind == "msglist" {
				p.bases = append(p.bases, baseList{id: ref.List, list: l})
			}
		}
		enc := &encoder{bases: p.bases}
		for _, ch := range blobs {
			b, err := enc.encode(cp.ChannelValues[ch], "value")
			if err != nil {
				return fmt.Errorf("channel %q: %w", ch, err)
			}
			if _, err := p.tx.ExecContext(p.ctx, "INSERT OR REPLACE INTO blobs (tid, seq, channel, value) VALUES (?, ?, ?, ?)", p.th.tid, p.th.puts, ch, b); err != nil {
				return err
			}
			p.bytes += int64(len(b))
			body.Values[ch] = channelRef{Blob: p.th.puts}
		}
	}
	raw, err := marshal(body)
	if err != nil {
		return err
	}
	_, err = p.tx.ExecContext(p.ctx, "INSERT OR REPLACE INTO checkpoints (tid, checkpoint_id, seq, parent_id, source, step, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
		p.th.tid, id, p.th.puts, parentID, meta.Source, meta.Step, raw)
	p.bytes += int64(len(raw))
	return err
}

// checkNames refuses channel, node and namespace names that JSON object
// keys could not carry exactly.
func checkNames(cp *engine.Checkpoint, meta engine.CheckpointMetadata) error {
	var names []string
	for ch := range cp.ChannelValues {
		names = append(names, ch)
	}
	for ch := range cp.ChannelVersions {
		names = append(names, ch)
	}
	for node, seen := range cp.VersionsSeen {
		names = append(names, node)
		for ch := range seen {
			names = append(names, ch)
		}
	}
	for ch := range cp.ListPrefix {
		names = append(names, ch)
	}
	names = append(names, cp.UpdatedChannels...)
	for k, v := range meta.Parents {
		names = append(names, k, v)
	}
	return checkUTF8("name", names...)
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// reuse returns the parent's reference for a channel whose version did
// not change.
func (p *putTx) reuse(parent *checkpointBody, cp *engine.Checkpoint, ch string, v any) (channelRef, bool) {
	if parent == nil {
		return channelRef{}, false
	}
	ref, ok := parent.Values[ch]
	if !ok {
		return channelRef{}, false
	}
	was, ok1 := parent.Versions[ch]
	now, ok2 := cp.ChannelVersions[ch]
	if !ok1 || !ok2 || was != now {
		return channelRef{}, false
	}
	if ref.List != 0 {
		// a list must still be the same list: kind and length
		kind, n, ok := listShape(v)
		if !ok || kind != ref.Kind || n != ref.N {
			return channelRef{}, false
		}
	}
	return ref, true
}

// listShape returns the kind and length of a list value that can be
// stored as rows.
func listShape(v any) (kind string, n int, ok bool) {
	switch t := v.(type) {
	case engine.MessageList:
		return "msglist", t.Len(), true
	case []engine.Message:
		return "messages", len(t), t != nil
	case []any:
		return "list", len(t), t != nil
	}
	return "", 0, false
}

// element encodes element i of a list value.
func element(v any, i int) ([]byte, error) {
	switch t := v.(type) {
	case engine.MessageList:
		rec, err := encodeMessage(t.At(i), fmt.Sprintf("value[%d]", i))
		if err != nil {
			return nil, err
		}
		return marshal(rec)
	case []engine.Message:
		rec, err := encodeMessage(t[i], fmt.Sprintf("value[%d]", i))
		if err != nil {
			return nil, err
		}
		return marshal(rec)
	case []any:
		var e encoder
		return e.encode(t[i], fmt.Sprintf("value[%d]", i))
	}
	return nil, fmt.Errorf("%T is not a list", v)
}

// list stores a list channel's value as rows, reusing the first prefix
// elements of the parent's stored list when it has one.
func (p *putTx) list(parent *checkpointBody, ch string, v any, prefix int) (channelRef, bool, error) {
	kind, n, ok := listShape(v)
	if !ok {
		return channelRef{}, false, nil
	}
	if parent != nil {
		if pref, has := parent.Values[ch]; has && pref.List != 0 && pref.Kind == kind && prefix >= 0 && prefix <= n && prefix <= pref.N {
			pl, err := p.listRow(pref.List)
			if err != nil {
				return channelRef{}, false, err
			}
			same, err := p.samePrefix(pl, prefix, v)
			if err != nil {
				return channelRef{}, false, err
			}
			switch {
			case !same:
				// ListPrefix did not describe the parent's stored list:
				// store the value whole
			case prefix == n:
				return channelRef{List: pl.id, N: n, Kind: kind}, true, nil
			case prefix == pref.N && pl.tip == pref.N:
				if err := p.rows(pl.id, v, prefix, n); err != nil {
					return channelRef{}, false, err
				}
				pl.tip = n
				if _, err := p.tx.ExecContext(p.ctx, "UPDATE lists SET tip = ? WHERE tid = ? AND list_id = ?", n, p.th.tid, pl.id); err != nil {
					return channelRef{}, false, err
				}
				return channelRef{List: pl.id, N: n, Kind: kind}, true, nil
			case pl.depth < p.maxDepth:
				l, err := p.newList(kind, pl.id, prefix, pl.depth+1, n)
				if err != nil {
					return channelRef{}, false, err
				}
				if err := p.rows(l.id, v, prefix, n); err != nil {
					return channelRef{}, false, err
				}
				return channelRef{List: l.id, N: n, Kind: kind}, true, nil
			}
		}
	}
	l, err := p.newList(kind, 0, 0, 0, n)
	if err != nil {
		return channelRef{}, false, err
	}
	if err := p.rows(l.id, v, 0, n); err != nil {
		return channelRef{}, false, err
	}
	return channelRef{List: l.id, N: n, Kind: kind}, true, nil
}

func (p *putTx) listRow(id int64) (*listRow, error) {
	if l, ok := p.lists[id]; ok {
		return l, nil
	}
	l := &listRow{id: id}
	err := p.tx.QueryRowContext(p.ctx, "SELECT kind, base_list, base_len, depth, tip FROM lists WHERE tid = ? AND list_id = ?", p.th.tid, id).Scan(&l.kind, &l.base, &l.baseLen, &l.depth, &l.tip)
	if err != nil {
		return nil, fmt.Errorf("read stored list %d: %w", id, err)
	}
	if p.lists == nil {
		p.lists = map[int64]*listRow{}
	}
	p.lists[id] = l
	return l, nil
}

func (p *putTx) newList(kind string, base int64, baseLen, depth, tip int) (*listRow, error) {
	p.th.lists++
	l := &listRow{id: p.th.lists, kind: kind, base: base, baseLen: baseLen, depth: depth, tip: tip}
	_, err := p.tx.ExecContext(p.ctx, "INSERT INTO lists (tid, list_id, kind, base_list, base_len, depth, tip) VALUES (?, ?, ?, ?, ?, ?, ?)", p.th.tid, l.id, kind, base, baseLen, depth, tip)
	if err != nil {
		return nil, err
	}
	if p.lists == nil {
		p.lists = map[int64]*listRow{}
	}
	p.lists[l.id] = l
	return l, nil
}

// rowsPerInsert is how many list elements one INSERT writes.
const rowsPerInsert = 128

// rows writes elements [from, to) of v as rows of list id.
func (p *putTx) rows(id int64, v any, from, to int) error {
	for from < to {
		n := min(to-from, rowsPerInsert)
		q := "INSERT INTO list_items (tid, list_id, idx, value) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", n), ", ")
		args := make([]any, 0, 4*n)
		for i := from; i < from+n; i++ {
			b, err := element(v, i)
			if err != nil {
				return err
			}
			args = append(args, p.th.tid, id, i, b)
			p.bytes += int64(len(b))
		}
		if _, err := p.tx.ExecContext(p.ctx, q, args...); err != nil {
			return err
		}
		from += n
	}
	return nil
}

// samePrefix spot-checks that the stored list l begins with v's first n
// elements: its first and its n-th element are compared.
func (p *putTx) samePrefix(l *listRow, n int, v any) (bool, error) {
	for _, i := range []int{0, n - 1} {
		if i < 0 {
			continue
		}
		stored, err := p.item(l, i)
		if err != nil || stored == nil {
			return false, err
		}
		mine, err := element(v, i)
		if err != nil {
			return false, err
		}
		if !bytes.Equal(stored, mine) {
			return false, nil
		}
	}
	return true, nil
}

// item returns element idx of stored list l, nil when it has none.
func (p *putTx) item(l *listRow, idx int) ([]byte, error) {
	for l.base != 0 && idx < l.baseLen {
		var err error
		if l, err = p.listRow(l.base); err != nil {
			return nil, err
		}
	}
	var b []byte
	err := p.tx.QueryRowContext(p.ctx, "SELECT value FROM list_items WHERE tid = ? AND list_id = ? AND idx = ?", p.th.tid, l.id, idx).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return b, err
}

// isMessageList reports whether v is a message list: a channel's
// MessageList, or a []engine.Message.
func isMessageList(v any) bool {
	switch v.(type) {
	case engine.MessageList, []engine.Message:
		return true
	}
	return false
}
