package checkpoint

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agenteval/agenteval/engine"
)

// SQLiteStore is the engine.Store kept in a SQLite checkpointer's database
// (SQLite.Store); it behaves as MemoryStore does. Values are stored in the
// checkpointer's exact encoding, so key order and number literals survive.
// Timestamps are kept to the nanosecond and read back in UTC. It is safe
// for concurrent use; it is closed with its SQLite.
type SQLiteStore struct {
	s     *SQLite
	clock engine.Clock
}

var _ engine.Store = (*SQLiteStore)(nil)

// namespaceKey encodes a namespace so that byte order is label-by-label
// order and a namespace prefix is a byte prefix: each label, with NUL
// escaped as NUL 0xff, is followed by NUL 0x01.
func namespaceKey(namespace []string) []byte {
	var b []byte
	for _, l := range namespace {
		b = append(b, strings.ReplaceAll(l, "\x00", "\x00\xff")...)
		b = append(b, 0, 1)
	}
	if b == nil {
		b = []byte{}
	}
	return b
}

// namespaceOf decodes namespaceKey.
func namespaceOf(key []byte) ([]string, error) {
	var out []string
	var label []byte
	for i := 0; i < len(key); i++ {
		if key[i] != 0 {
			label = append(label, key[i])
			continue
		}
		if i+1 >= len(key) {
			return nil, fmt.Errorf("bad namespace key %q", key)
		}
		i++
		switch key[i] {
		case 0xff:
			label = append(label, 0)
		case 1:
			out = append(out, string(label))
			label = label[:0]
		default:
			return nil, fmt.Errorf("bad namespace key %q", key)
		}
	}
	if len(label) > 0 {
		return nil, fmt.Errorf("bad namespace key %q", key)
	}
	return out, nil
}

// prefixWhere returns the condition that keeps the namespace keys under
// prefix, a byte range: from the prefix's key to the same key with its
// last terminator NUL 0x01 made NUL 0x02.
func prefixWhere(prefix []string) (string, []any) {
	if len(prefix) == 0 {
		return "", nil
	}
	lo := namespaceKey(prefix)
	hi := bytes.Clone(lo)
	hi[len(hi)-1]++
	return " WHERE ns_key >= ? AND ns_key < ?", []any{lo, hi}
}

func encodeItemValue(v *engine.Object) ([]byte, error) {
	var e encoder
	return e.encode(v, "value")
}

func decodeItemValue(b []byte) (*engine.Object, error) {
	var d decoder
	v, err := d.decode(b)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*engine.Object)
	if !ok {
		return nil, fmt.Errorf("stored item value is %T, not an object", v)
	}
	return o, nil
}

// Put stores value under namespace and key, or deletes the item when value
// is nil. An update keeps the item's CreatedAt; UpdatedAt is the clock's
// time. Namespaces are checked as MemoryStore checks them.
func (st *SQLiteStore) Put(ctx context.Context, namespace []string, key string, value *engine.Object) error {
	if value == nil {
		return st.Delete(ctx, namespace, key)
	}
	if err := validateNamespace(namespace); err != nil {
		return fmt.Errorf("put item %q: %w", key, err)
	}
	if key == "" {
		return fmt.Errorf("put item in %s: key is empty", tupleRepr(namespace))
	}
	b, err := encodeItemValue(value)
	if err != nil {
		return fmt.Errorf("put item %s %q: %w", tupleRepr(namespace), key, err)
	}
	now := st.clock.Now().UnixNano()
	s := st.s
	s.mu.Lock()
	defer s.mu.Unlock()
	err = s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO items (ns_key, key, value, created, updated) VALUES (?1, ?2, ?3, ?4, ?4)
			ON CONFLICT (ns_key, key) DO UPDATE SET value = excluded.value, updated = excluded.updated`, namespaceKey(namespace), key, b, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("put item %s %q: %w", tupleRepr(namespace), key, err)
	}
	return nil
}

// Get returns the item under namespace and key; nil, nil when there is
// none.
func (st *SQLiteStore) Get(ctx context.Context, namespace []string, key string) (*engine.Item, error) {
	if err := checkAddress(namespace, key); err != nil {
		return nil, fmt.Errorf("get item %q: %w", key, err)
	}
	var b []byte
	var created, updated int64
	err := st.s.db.QueryRowContext(ctx, "SELECT value, created, updated FROM items WHERE ns_key = ? AND key = ?", namespaceKey(namespace), key).Scan(&b, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get item %s %q: %w", tupleRepr(namespace), key, err)
	}
	v, err := decodeItemValue(b)
	if err != nil {
		return nil, fmt.Errorf("get item %s %q: %w", tupleRepr(namespace), key, err)
	}
	return &engine.Item{Namespace: slices.Clone(namespace), Key: key, Value: v, CreatedAt: time.Unix(0, created).UTC(), UpdatedAt: time.Unix(0, updated).UTC()}, nil
}

// Delete removes the item under namespace and key; deleting a missing item
// is not an error.
func (st *SQLiteStore) Delete(ctx context.Context, namespace []string, key string) error {
	if err := checkAddress(namespace, key); err != nil {
		return fmt.Errorf("delete item %q: %w", key, err)
	}
	s := st.s
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM items WHERE ns_key = ? AND key = ?", namespaceKey(namespace), key)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete item %s %q: %w", tupleRepr(namespace), key, err)
	}
	return nil
}

// Search returns the items under the namespace prefix (all items for an
// empty prefix) that match opts.Filter and opts.Query, most recently
// updated first, then by namespace and key; opts.Offset items are skipped
// and at most opts.Limit returned (10 when 0), as MemoryStore does.
func (st *SQLiteStore) Search(ctx context.Context, prefix []string, opts engine.SearchOptions) ([]engine.Item, error) {
	if opts.Limit < 0 || opts.Offset < 0 {
		return nil, fmt.Errorf("search items under %s: limit %d and offset %d must not be negative", tupleRepr(prefix), opts.Limit, opts.Offset)
	}
	limit := opts.Limit
	if limit == 0 {
		limit = defaultSearchLimit
	}
	query := strings.ToLower(opts.Query)
	where, args := prefixWhere(prefix)
	q := "SELECT ns_key, key, value, created, updated FROM items" + where + " ORDER BY updated DESC, ns_key, key"
	out := []engine.Item{}
	err := st.s.readTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		skipped := 0
		for rows.Next() && len(out) < limit {
			var nsKey, b []byte
			var key string
			var created, updated int64
			if err := rows.Scan(&nsKey, &key, &b, &created, &updated); err != nil {
				return err
			}
			v, err := decodeItemValue(b)
			if err != nil {
				return fmt.Errorf("item %q: %w", key, err)
			}
			if !matchesFilter(v, opts.Filter) {
				continue
			}
			if query != "" {
				data, err := engine.MarshalValue(v)
				if err != nil {
					return fmt.Errorf("item %q: %w", key, err)
				}
				if !strings.Contains(strings.ToLower(string(data)), query) {
					continue
				}
			}
			if skipped < opts.Offset {
				skipped++
				continue
			}
			namespace, err := namespaceOf(nsKey)
			if err != nil {
				return err
			}
			out = append(out, engine.Item{Namespace: namespace, Key: key, Value: v, CreatedAt: time.Unix(0, created).UTC(), UpdatedAt: time.Unix(0, updated).UTC()})
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("search items under %s: %w", tupleRepr(prefix), err)
	}
	return out, nil
}

// ListNamespaces returns the distinct namespaces of the items under prefix
// (all of them for an empty prefix), sorted.
func (st *SQLiteStore) ListNamespaces(ctx context.Context, prefix []string) ([][]string, error) {
	where, args := prefixWhere(prefix)
	q := "SELECT DISTINCT ns_key FROM items" + where + " ORDER BY ns_key"
	rows, err := st.s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list namespaces under %s: %w", tupleRepr(prefix), err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		var k []byte
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("list namespaces under %s: %w", tupleRepr(prefix), err)
		}
		namespace, err := namespaceOf(k)
		if err != nil {
			return nil, err
		}
		out = append(out, namespace)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list namespaces under %s: %w", tupleRepr(prefix), err)
	}
	return out, nil
}
