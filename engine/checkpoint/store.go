package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agenteval/agenteval/engine"
)

// defaultSearchLimit is LangGraph's default limit for BaseStore.search.
const defaultSearchLimit = 10

// MemoryStore is an in-memory engine.Store (LangGraph's InMemoryStore).
// The zero value is an empty store on the system clock, ready to use. It
// is safe for concurrent use.
type MemoryStore struct {
	clock engine.Clock

	mu    sync.Mutex
	items map[string]*engine.Item
}

var _ engine.Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty store that takes item timestamps from
// clock (engine.SystemClock{} when nil).
func NewMemoryStore(clock engine.Clock) *MemoryStore {
	if clock == nil {
		clock = engine.SystemClock{}
	}
	return &MemoryStore{clock: clock, items: map[string]*engine.Item{}}
}

// itemKey joins a namespace and key into one unambiguous map key: each
// part is length-prefixed.
func itemKey(namespace []string, key string) string {
	var b strings.Builder
	for _, l := range namespace {
		b.WriteString(strconv.Itoa(len(l)))
		b.WriteByte(':')
		b.WriteString(l)
	}
	b.WriteByte('/')
	b.WriteString(key)
	return b.String()
}

// checkAddress reports an empty namespace or key.
func checkAddress(namespace []string, key string) error {
	if len(namespace) == 0 {
		return errors.New("namespace is empty")
	}
	if key == "" {
		return errors.New("key is empty")
	}
	return nil
}

// validateNamespace applies LangGraph's checks on a namespace written to
// (BaseStore._validate_namespace), with its InvalidNamespaceError texts.
func validateNamespace(namespace []string) error {
	if len(namespace) == 0 {
		return engine.NewError("InvalidNamespaceError", "Namespace cannot be empty.")
	}
	for _, l := range namespace {
		if strings.Contains(l, ".") {
			return engine.Errorf("InvalidNamespaceError", "Invalid namespace label %s found in %s. Namespace labels cannot contain periods ('.').", engine.PyStrRepr(l), tupleRepr(namespace))
		}
		if l == "" {
			return engine.Errorf("InvalidNamespaceError", "Namespace labels cannot be empty strings. Got  in %s", tupleRepr(namespace))
		}
	}
	if namespace[0] == "langgraph" {
		return engine.Errorf("InvalidNamespaceError", `Root label for namespace cannot be "langgraph". Got: %s`, tupleRepr(namespace))
	}
	return nil
}

// tupleRepr is Python's repr of a tuple of strings: ('a', 'b'), ('a',).
func tupleRepr(labels []string) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = engine.PyStrRepr(l)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Put stores a deep copy of value under namespace and key, or deletes the
// item when value is nil. An update keeps the item's CreatedAt; UpdatedAt
// is the clock's time.
func (s *MemoryStore) Put(ctx context.Context, namespace []string, key string, value *engine.Object) error {
	if value == nil {
		return s.Delete(ctx, namespace, key)
	}
	if err := validateNamespace(namespace); err != nil {
		return fmt.Errorf("put item %q: %w", key, err)
	}
	if key == "" {
		return fmt.Errorf("put item in %s: key is empty", tupleRepr(namespace))
	}
	clock := s.clock
	if clock == nil {
		clock = engine.SystemClock{}
	}
	now := clock.Now()
	k := itemKey(namespace, key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.items == nil {
		s.items = map[string]*engine.Item{}
	}
	created := now
	if old := s.items[k]; old != nil {
		created = old.CreatedAt
	}
	s.items[k] = &engine.Item{Namespace: slices.Clone(namespace), Key: key, Value: value.Clone(), CreatedAt: created, UpdatedAt: now}
	return nil
}

// Get returns a copy of the item under namespace and key; nil, nil when
// there is none.
func (s *MemoryStore) Get(_ context.Context, namespace []string, key string) (*engine.Item, error) {
	if err := checkAddress(namespace, key); err != nil {
		return nil, fmt.Errorf("get item %q: %w", key, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.items[itemKey(namespace, key)]
	if it == nil {
		return nil, nil
	}
	c := copyItem(it)
	return &c, nil
}

// Delete removes the item under namespace and key; deleting a missing item
// is not an error.
func (s *MemoryStore) Delete(_ context.Context, namespace []string, key string) error {
	if err := checkAddress(namespace, key); err != nil {
		return fmt.Errorf("delete item %q: %w", key, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.items, itemKey(namespace, key))
	return nil
}

// Search returns copies of the items under the namespace prefix (all items
// for an empty prefix) that match opts.Filter and opts.Query, most
// recently updated first, then by namespace and key; opts.Offset items
// are skipped and at most opts.Limit returned (10 when 0).
func (s *MemoryStore) Search(_ context.Context, prefix []string, opts engine.SearchOptions) ([]engine.Item, error) {
	if opts.Limit < 0 || opts.Offset < 0 {
		return nil, fmt.Errorf("search items under %s: limit %d and offset %d must not be negative", tupleRepr(prefix), opts.Limit, opts.Offset)
	}
	limit := opts.Limit
	if limit == 0 {
		limit = defaultSearchLimit
	}
	query := strings.ToLower(opts.Query)
	s.mu.Lock()
	var found []*engine.Item
	for _, it := range s.items {
		if !hasPrefix(it.Namespace, prefix) || !matchesFilter(it.Value, opts.Filter) {
			continue
		}
		found = append(found, it)
	}
	// copy under the lock, match the query and sort outside it
	items := make([]engine.Item, len(found))
	for i, it := range found {
		items[i] = copyItem(it)
	}
	s.mu.Unlock()
	if query != "" {
		kept := items[:0]
		for _, it := range items {
			data, err := engine.MarshalValue(it.Value)
			if err != nil {
				return nil, fmt.Errorf("search items under %s: item %s %q: %w", tupleRepr(prefix), tupleRepr(it.Namespace), it.Key, err)
			}
			if strings.Contains(strings.ToLower(string(data)), query) {
				kept = append(kept, it)
			}
		}
		items = kept
	}
	slices.SortFunc(items, func(a, b engine.Item) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		if c := slices.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	if opts.Offset >= len(items) {
		return []engine.Item{}, nil
	}
	items = items[opts.Offset:]
	if len(items) > limit {
		items = items[:limit]
	}
	return items, nil
}

// ListNamespaces returns the distinct namespaces of the items under prefix
// (all of them for an empty prefix), sorted.
func (s *MemoryStore) ListNamespaces(_ context.Context, prefix []string) ([][]string, error) {
	s.mu.Lock()
	var out [][]string
	for _, it := range s.items {
		if hasPrefix(it.Namespace, prefix) {
			out = append(out, slices.Clone(it.Namespace))
		}
	}
	s.mu.Unlock()
	slices.SortFunc(out, slices.Compare)
	return slices.CompactFunc(out, slices.Equal), nil
}

// hasPrefix reports whether namespace starts with prefix.
func hasPrefix(namespace, prefix []string) bool {
	return len(prefix) <= len(namespace) && slices.Equal(namespace[:len(prefix)], prefix)
}

// matchesFilter reports whether every top-level key of filter has an equal
// value in value.
func matchesFilter(value, filter *engine.Object) bool {
	for _, k := range filter.Keys() {
		want, _ := filter.Get(k)
		got, ok := value.Get(k)
		if !ok || !engine.ValueEqual(want, got) {
			return false
		}
	}
	return true
}

// copyItem returns a deep copy of it.
func copyItem(it *engine.Item) engine.Item {
	c := *it
	c.Namespace = slices.Clone(it.Namespace)
	c.Value = it.Value.Clone()
	return c
}
