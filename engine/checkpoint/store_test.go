package checkpoint_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/google/go-cmp/cmp"
)

// tickClock is a fake engine.Clock: each Now is one second after the
// previous one, starting at Base.
type tickClock struct {
	mu   sync.Mutex
	next time.Time
}

var base = time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)

func newTickClock() *tickClock { return &tickClock{next: base} }

func (c *tickClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.next
	c.next = c.next.Add(time.Second)
	return t
}

func (c *tickClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// fixedClock always says base, so only namespace and key order items.
type fixedClock struct{}

func (fixedClock) Now() time.Time                                   { return base }
func (fixedClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

func at(sec int) time.Time { return base.Add(time.Duration(sec) * time.Second) }

var jsonOpt = cmp.Transformer("JSON", func(o *engine.Object) string {
	b, err := engine.MarshalValue(o)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
})

func ns(labels ...string) []string { return labels }

func mustPut(t *testing.T, s *checkpoint.MemoryStore, namespace []string, key string, value *engine.Object) {
	t.Helper()
	if err := s.Put(t.Context(), namespace, key, value); err != nil {
		t.Fatalf("Put(%v, %q): %v", namespace, key, err)
	}
}

func TestMemoryStorePutGetDelete(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := checkpoint.NewMemoryStore(newTickClock())
	mustPut(t, s, ns("users", "u1"), "prefs", engine.NewObject("theme", "dark"))  // t=0
	mustPut(t, s, ns("users", "u1"), "other", engine.NewObject("x", true))        // t=1
	mustPut(t, s, ns("users", "u1"), "prefs", engine.NewObject("theme", "light")) // t=2

	got, err := s.Get(ctx, ns("users", "u1"), "prefs")
	if err != nil {
		t.Fatal(err)
	}
	want := &engine.Item{Namespace: ns("users", "u1"), Key: "prefs", Value: engine.NewObject("theme", "light"), CreatedAt: at(0), UpdatedAt: at(2)}
	if d := cmp.Diff(want, got, jsonOpt); d != "" {
		t.Errorf("Get after an update mismatch (-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		reason string
		ns     []string
		key    string
	}{
		{"an unknown key", ns("users", "u1"), "nope"},
		{"a prefix of the namespace is another namespace", ns("users"), "prefs"},
		{"a longer namespace is another namespace", ns("users", "u1", "x"), "prefs"},
	} {
		got, err := s.Get(ctx, tc.ns, tc.key)
		if err != nil || got != nil {
			t.Errorf("Get(%v, %q) = %v, %v; want nil, nil (%s)", tc.ns, tc.key, got, err, tc.reason)
		}
	}

	if err := s.Delete(ctx, ns("users", "u1"), "prefs"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, ns("users", "u1"), "prefs"); err != nil {
		t.Errorf("deleting a missing item: %v, want nil", err)
	}
	if got, _ := s.Get(ctx, ns("users", "u1"), "prefs"); got != nil {
		t.Errorf("Get after Delete = %+v, want nil", got)
	}
	if err := s.Put(ctx, ns("users", "u1"), "other", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, ns("users", "u1"), "other"); got != nil {
		t.Errorf("Get after Put(nil) = %+v, want nil (a nil value deletes)", got)
	}
	// a re-created item is new: its CreatedAt starts again
	mustPut(t, s, ns("users", "u1"), "prefs", engine.NewObject("theme", "dark")) // t=3
	if got, _ := s.Get(ctx, ns("users", "u1"), "prefs"); got == nil || !got.CreatedAt.Equal(at(3)) {
		t.Errorf("re-created item = %+v, want CreatedAt %v", got, at(3))
	}
}

// TestMemoryStoreCopiesAreIndependent: neither the value put nor an item
// read can change what is stored.
func TestMemoryStoreCopiesAreIndependent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := checkpoint.NewMemoryStore(fixedClock{})
	namespace := ns("a", "b")
	value := engine.NewObject("list", []any{"x"}, "inner", engine.NewObject("k", "v"))
	mustPut(t, s, namespace, "k", value)
	namespace[0] = "changed"
	value.Set("list", []any{"changed"})
	inner, _ := value.Get("inner")
	inner.(*engine.Object).Set("k", "changed")

	got, err := s.Get(ctx, ns("a", "b"), "k")
	if err != nil || got == nil {
		t.Fatalf("Get = %v, %v", got, err)
	}
	got.Namespace[0] = "changed"
	got.Value.Set("new", 1)
	items, err := s.Search(ctx, nil, engine.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	items[0].Value.Set("new", 2)
	items[0].Namespace[1] = "changed"

	again, err := s.Get(ctx, ns("a", "b"), "k")
	if err != nil {
		t.Fatal(err)
	}
	want := &engine.Item{Namespace: ns("a", "b"), Key: "k", Value: engine.NewObject("list", []any{"x"}, "inner", engine.NewObject("k", "v")), CreatedAt: base, UpdatedAt: base}
	if d := cmp.Diff(want, again, jsonOpt); d != "" {
		t.Errorf("stored item changed through a caller's copy (-want +got):\n%s", d)
	}
}

type address struct {
	NS  []string
	Key string
}

func addressesOf(items []engine.Item) []address {
	out := []address{}
	for _, it := range items {
		out = append(out, address{it.Namespace, it.Key})
	}
	return out
}

func TestMemoryStoreSearch(t *testing.T) {
	t.Parallel()
	// puts at t=0..6, one second apart; "docs"/"b" is updated last
	s := checkpoint.NewMemoryStore(newTickClock())
	mustPut(t, s, ns("docs"), "b", engine.NewObject("kind", "note", "text", "Hello World", "n", json.Number("1")))
	mustPut(t, s, ns("docs", "x"), "a", engine.NewObject("kind", "note", "text", "goodbye", "n", json.Number("2")))
	mustPut(t, s, ns("docs", "y"), "c", engine.NewObject("kind", "todo", "text", "WORLD peace", "n", json.Number("1.0")))
	mustPut(t, s, ns("other"), "d", engine.NewObject("kind", "note", "tags", []any{"a", "b"}))
	mustPut(t, s, ns("docsx"), "e", engine.NewObject("kind", "note"))
	mustPut(t, s, ns("docs"), "b", engine.NewObject("kind", "note", "text", "Hello World", "n", json.Number("1")))
	tests := []struct {
		reason string
		prefix []string
		opts   engine.SearchOptions
		want   []address
	}{
		{"an empty prefix finds everything, most recently updated first", nil, engine.SearchOptions{},
			[]address{{ns("docs"), "b"}, {ns("docsx"), "e"}, {ns("other"), "d"}, {ns("docs", "y"), "c"}, {ns("docs", "x"), "a"}}},
		{"a prefix matches whole labels, not string prefixes", ns("docs"), engine.SearchOptions{},
			[]address{{ns("docs"), "b"}, {ns("docs", "y"), "c"}, {ns("docs", "x"), "a"}}},
		{"a full namespace is a prefix of itself", ns("docs", "x"), engine.SearchOptions{},
			[]address{{ns("docs", "x"), "a"}}},
		{"a prefix longer than any namespace finds nothing", ns("docs", "x", "z"), engine.SearchOptions{}, []address{}},
		{"a filter keeps items whose top-level values are equal", nil, engine.SearchOptions{Filter: engine.NewObject("kind", "note")},
			[]address{{ns("docs"), "b"}, {ns("docsx"), "e"}, {ns("other"), "d"}, {ns("docs", "x"), "a"}}},
		{"every filter key must match", ns("docs"), engine.SearchOptions{Filter: engine.NewObject("kind", "note", "n", json.Number("2"))},
			[]address{{ns("docs", "x"), "a"}}},
		{"numbers compare by value", ns("docs"), engine.SearchOptions{Filter: engine.NewObject("n", json.Number("1"))},
			[]address{{ns("docs"), "b"}, {ns("docs", "y"), "c"}}},
		{"lists compare as values", nil, engine.SearchOptions{Filter: engine.NewObject("tags", []any{"a", "b"})},
			[]address{{ns("other"), "d"}}},
		{"a filter key the item lacks does not match, even for null", nil, engine.SearchOptions{Filter: engine.NewObject("missing", nil)}, []address{}},
		{"a query is a case-insensitive substring of the value's JSON", nil, engine.SearchOptions{Query: "world"},
			[]address{{ns("docs"), "b"}, {ns("docs", "y"), "c"}}},
		{"a query matches keys in the JSON too", nil, engine.SearchOptions{Query: `"TAGS"`},
			[]address{{ns("other"), "d"}}},
		{"query and filter combine", nil, engine.SearchOptions{Query: "world", Filter: engine.NewObject("kind", "todo")},
			[]address{{ns("docs", "y"), "c"}}},
		{"Limit keeps the first items", nil, engine.SearchOptions{Limit: 2},
			[]address{{ns("docs"), "b"}, {ns("docsx"), "e"}}},
		{"Offset skips, then Limit counts", nil, engine.SearchOptions{Offset: 1, Limit: 2},
			[]address{{ns("docsx"), "e"}, {ns("other"), "d"}}},
		{"an Offset past the end finds nothing", nil, engine.SearchOptions{Offset: 5}, []address{}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			got, err := s.Search(t.Context(), tc.prefix, tc.opts)
			if err != nil {
				t.Fatalf("Search(%v, %+v): %v", tc.prefix, tc.opts, err)
			}
			if d := cmp.Diff(tc.want, addressesOf(got)); d != "" {
				t.Errorf("Search(%v, %+v) mismatch (-want +got):\n%s\n(%s)", tc.prefix, tc.opts, d, tc.reason)
			}
		})
	}
}

// TestMemoryStoreSearchTies: items updated at the same time come in
// namespace order, then key order, and Limit 0 means 10.
func TestMemoryStoreSearchTies(t *testing.T) {
	t.Parallel()
	s := checkpoint.NewMemoryStore(fixedClock{})
	var want []address
	for _, n := range []string{"b", "a"} {
		for i := 11; i >= 0; i-- {
			mustPut(t, s, ns("m", n), fmt.Sprintf("k%02d", i), engine.NewObject("i", i))
		}
	}
	for _, n := range []string{"a", "b"} {
		for i := range 12 {
			want = append(want, address{ns("m", n), fmt.Sprintf("k%02d", i)})
		}
	}
	got, err := s.Search(t.Context(), ns("m"), engine.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want[:10], addressesOf(got)); d != "" {
		t.Errorf("Search with equal timestamps and Limit 0 mismatch (-want +got):\n%s", d)
	}
	got, err = s.Search(t.Context(), ns("m"), engine.SearchOptions{Limit: 100, Offset: 10})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want[10:], addressesOf(got)); d != "" {
		t.Errorf("Search from offset 10 mismatch (-want +got):\n%s", d)
	}
}

func TestMemoryStoreListNamespaces(t *testing.T) {
	t.Parallel()
	s := checkpoint.NewMemoryStore(fixedClock{})
	mustPut(t, s, ns("users", "u2"), "a", engine.NewObject())
	mustPut(t, s, ns("users", "u1"), "a", engine.NewObject())
	mustPut(t, s, ns("users", "u1"), "b", engine.NewObject())
	mustPut(t, s, ns("users"), "a", engine.NewObject())
	mustPut(t, s, ns("docs"), "a", engine.NewObject())
	mustPut(t, s, ns("usersx"), "a", engine.NewObject())
	tests := []struct {
		reason string
		prefix []string
		want   [][]string
	}{
		{"all namespaces, sorted label by label, each once", nil,
			[][]string{ns("docs"), ns("users"), ns("users", "u1"), ns("users", "u2"), ns("usersx")}},
		{"a prefix keeps the namespaces under it, itself included", ns("users"),
			[][]string{ns("users"), ns("users", "u1"), ns("users", "u2")}},
		{"an unknown prefix has none", ns("nope"), nil},
	}
	for _, tc := range tests {
		got, err := s.ListNamespaces(t.Context(), tc.prefix)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("ListNamespaces(%v) mismatch (-want +got):\n%s\n(%s)", tc.prefix, d, tc.reason)
		}
	}
}

func TestMemoryStoreErrors(t *testing.T) {
	t.Parallel()
	s := checkpoint.NewMemoryStore(fixedClock{})
	v := engine.NewObject("a", 1)
	tests := []struct {
		reason string
		call   func(ctx context.Context) error
		want   string
		kind   string // the engine.Error kind inside, if any
	}{
		{"a namespace is required (LangGraph's text)", func(ctx context.Context) error { return s.Put(ctx, nil, "k", v) },
			`put item "k": Namespace cannot be empty.`, "InvalidNamespaceError"},
		{"labels cannot hold periods (LangGraph's text)", func(ctx context.Context) error { return s.Put(ctx, ns("a", "b.c"), "k", v) },
			`put item "k": Invalid namespace label 'b.c' found in ('a', 'b.c'). Namespace labels cannot contain periods ('.').`, "InvalidNamespaceError"},
		{"labels cannot be empty (LangGraph's text)", func(ctx context.Context) error { return s.Put(ctx, ns("a", ""), "k", v) },
			`put item "k": Namespace labels cannot be empty strings. Got  in ('a', '')`, "InvalidNamespaceError"},
		{"the langgraph root is reserved (LangGraph's text)", func(ctx context.Context) error { return s.Put(ctx, ns("langgraph"), "k", v) },
			`put item "k": Root label for namespace cannot be "langgraph". Got: ('langgraph',)`, "InvalidNamespaceError"},
		{"a key is required to put", func(ctx context.Context) error { return s.Put(ctx, ns("a"), "", v) },
			`put item in ('a',): key is empty`, ""},
		{"a namespace is required to get", func(ctx context.Context) error { _, err := s.Get(ctx, nil, "k"); return err },
			`get item "k": namespace is empty`, ""},
		{"a key is required to get", func(ctx context.Context) error { _, err := s.Get(ctx, ns("a"), ""); return err },
			`get item "": key is empty`, ""},
		{"a namespace is required to delete", func(ctx context.Context) error { return s.Delete(ctx, ns(), "k") },
			`delete item "k": namespace is empty`, ""},
		{"a key is required to delete (also through Put(nil))", func(ctx context.Context) error { return s.Put(ctx, ns("a"), "", nil) },
			`delete item "": key is empty`, ""},
		{"a negative limit is a mistake", func(ctx context.Context) error {
			_, err := s.Search(ctx, ns("a"), engine.SearchOptions{Limit: -1})
			return err
		}, `search items under ('a',): limit -1 and offset 0 must not be negative`, ""},
		{"a negative offset is a mistake", func(ctx context.Context) error {
			_, err := s.Search(ctx, ns("a", "b"), engine.SearchOptions{Offset: -2})
			return err
		}, `search items under ('a', 'b'): limit 0 and offset -2 must not be negative`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			err := tc.call(t.Context())
			got := "<nil>"
			if err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("error mismatch (-want +got):\n%s\n(%s)", d, tc.reason)
			}
			gotKind := ""
			if ee := (*engine.Error)(nil); errors.As(err, &ee) {
				gotKind = ee.Kind
			}
			if gotKind != tc.kind {
				t.Errorf("error %q has engine.Error kind %q, want %q (%s)", got, gotKind, tc.kind, tc.reason)
			}
		})
	}
}

// TestMemoryStoreSystemClock: a nil clock, and the zero MemoryStore, use
// the wall clock.
func TestMemoryStoreSystemClock(t *testing.T) {
	t.Parallel()
	for name, s := range map[string]*checkpoint.MemoryStore{"NewMemoryStore(nil)": checkpoint.NewMemoryStore(nil), "zero MemoryStore": {}} {
		before := time.Now()
		mustPut(t, s, ns("a"), "k", engine.NewObject())
		got, err := s.Get(t.Context(), ns("a"), "k")
		if err != nil || got == nil {
			t.Fatalf("%s: Get = %v, %v", name, got, err)
		}
		if got.UpdatedAt.Before(before) || got.UpdatedAt.After(time.Now()) {
			t.Errorf("%s: UpdatedAt = %v, want the wall clock time of the put", name, got.UpdatedAt)
		}
	}
}

// TestMemoryStoreConcurrentUse: puts, gets, searches and deletes from many
// goroutines (run with -race); every surviving item is readable.
func TestMemoryStoreConcurrentUse(t *testing.T) {
	t.Parallel()
	const workers, items = 8, 40
	s := checkpoint.NewMemoryStore(newTickClock())
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			ctx := context.Background()
			namespace := ns("w", fmt.Sprint(w%3))
			for i := range items {
				key := fmt.Sprintf("k%d-%d", w, i)
				if err := s.Put(ctx, namespace, key, engine.NewObject("i", i)); err != nil {
					errs <- err
					return
				}
				if _, err := s.Get(ctx, namespace, key); err != nil {
					errs <- err
					return
				}
				if _, err := s.Search(ctx, ns("w"), engine.SearchOptions{Query: "1", Limit: 5}); err != nil {
					errs <- err
					return
				}
				if i%2 == 1 {
					if err := s.Delete(ctx, namespace, key); err != nil {
						errs <- err
						return
					}
				}
				if _, err := s.ListNamespaces(ctx, nil); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := s.Search(t.Context(), nil, engine.SearchOptions{Limit: workers * items})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != workers*items/2 {
		t.Errorf("%d items left, want %d", len(got), workers*items/2)
	}
}
