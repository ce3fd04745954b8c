package checkpointtest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/google/go-cmp/cmp"
)

// namespaceLister is implemented by stores that can list their namespaces.
type namespaceLister interface {
	ListNamespaces(ctx context.Context, prefix []string) ([][]string, error)
}

// RunStore runs the store conformance suite. newStore must return a fresh,
// empty store that takes item timestamps from clock; it may register
// cleanups on t. Subtests run in parallel.
func RunStore(t *testing.T, newStore func(t *testing.T, clock engine.Clock) engine.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, newStore func(t *testing.T, clock engine.Clock) engine.Store)
	}{
		{"PutGetDelete", testStorePutGetDelete},
		{"ValuesRoundTrip", testStoreValuesRoundTrip},
		{"CopiesAreIndependent", testStoreCopiesAreIndependent},
		{"NamespaceValidation", testStoreNamespaceValidation},
		{"Search", testStoreSearch},
		{"SearchTies", testStoreSearchTies},
		{"ListNamespaces", testStoreListNamespaces},
		{"Concurrent", testStoreConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore)
		})
	}
}

// TickClock is a fake engine.Clock: each Now is one second after the
// previous one, starting at Base. It is safe for concurrent use.
type TickClock struct {
	mu   sync.Mutex
	next time.Time
}

// Base is where a new TickClock starts: 2025-11-01 00:00:00 UTC.
var Base = time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)

// NewTickClock returns a clock at Base.
func NewTickClock() *TickClock { return &TickClock{next: Base} }

// Now returns the clock's time and advances it by one second.
func (c *TickClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.next
	c.next = c.next.Add(time.Second)
	return t
}

// Sleep returns at once (with ctx's error, if any).
func (c *TickClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// FixedClock always says Base.
type FixedClock struct{}

// Now returns Base.
func (FixedClock) Now() time.Time { return Base }

// Sleep returns at once (with ctx's error, if any).
func (FixedClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

func at(sec int) time.Time { return Base.Add(time.Duration(sec) * time.Second) }

func ns(labels ...string) []string { return labels }

func mustPutItem(t *testing.T, s engine.Store, namespace []string, key string, value *engine.Object) {
	t.Helper()
	if err := s.Put(t.Context(), namespace, key, value); err != nil {
		t.Fatalf("Put(%v, %q): %v", namespace, key, err)
	}
}

func testStorePutGetDelete(t *testing.T, newStore func(t *testing.T, clock engine.Clock) engine.Store) {
	ctx := t.Context()
	s := newStore(t, NewTickClock())
	mustPutItem(t, s, ns("users", "u1"), "prefs", engine.NewObject("theme", "dark"))  // t=0
	mustPutItem(t, s, ns("users", "u1"), "other", engine.NewObject("x", true))        // t=1
	mustPutItem(t, s, ns("users", "u1"), "prefs", engine.NewObject("theme", "light")) // t=2

	got, err := s.Get(ctx, ns("users", "u1"), "prefs")
	if err != nil {
		t.Fatal(err)
	}
	want := &engine.Item{Namespace: ns("users", "u1"), Key: "prefs", Value: engine.NewObject("theme", "light"), CreatedAt: at(0), UpdatedAt: at(2)}
	if d := cmp.Diff(want, got, Equal()); d != "" {
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
		{"labels are not joined strings", ns("usersu1"), "prefs"},
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
	mustPutItem(t, s, ns("users", "u1"), "prefs", engine.NewObject("theme", "dark")) // t=3
	if got, _ := s.Get(ctx, ns("users", "u1"), "prefs"); got == nil || !got.CreatedAt.Equal(at(3)) {
		t.Errorf("re-created item = %+v, want CreatedAt %v", got, at(3))
	}
	for _, tc := range []struct {
		reason string
		call   func() error
	}{
		{"Get needs a namespace", func() error { _, err := s.Get(ctx, nil, "k"); return err }},
		{"Get needs a key", func() error { _, err := s.Get(ctx, ns("a"), ""); return err }},
		{"Put needs a key", func() error { return s.Put(ctx, ns("a"), "", engine.NewObject()) }},
		{"Delete needs a namespace", func() error { return s.Delete(ctx, nil, "k") }},
		{"Search refuses a negative limit", func() error { _, err := s.Search(ctx, nil, engine.SearchOptions{Limit: -1}); return err }},
		{"Search refuses a negative offset", func() error { _, err := s.Search(ctx, nil, engine.SearchOptions{Offset: -1}); return err }},
	} {
		if err := tc.call(); err == nil {
			t.Errorf("%s: error = nil, want one", tc.reason)
		}
	}
}

func testStoreValuesRoundTrip(t *testing.T, newStore func(t *testing.T, clock engine.Clock) engine.Store) {
	s := newStore(t, FixedClock{})
	value := engine.NewObject(
		"z", json.Number("1.50"), "a", []any{json.Number("1e400"), nil, engine.NewObject()}, "s", "héllo \u2028",
		"empty", []any{}, "nested", engine.NewObject("k", engine.NewObject("deep", false)), "big", json.Number("123456789012345678901234567890"))
	mustPutItem(t, s, ns("a", "b"), "k", value)
	got, err := s.Get(t.Context(), ns("a", "b"), "k")
	if err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("Get = nil")
	}
	if d := cmp.Diff(value, got.Value, Equal()); d != "" {
		t.Errorf("value read back differs (-put +read):\n%s", d)
	}
	// a label with characters that a naive encoding would confuse
	odd := ns("with/slash", "with\x00nul", "with:colon", "")
	if err := s.Put(t.Context(), odd[:3], "k/ey", engine.NewObject("x", json.Number("1"))); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(t.Context(), odd[:3], "k/ey"); err != nil || got == nil || len(got.Namespace) != 3 || got.Namespace[1] != "with\x00nul" {
		t.Errorf("Get under namespace %q = %+v, %v", odd[:3], got, err)
	}
	if got, _ := s.Get(t.Context(), ns("with/slash", "with"), "k/ey"); got != nil {
		t.Errorf("a NUL inside a label was taken as a label boundary: %+v", got)
	}
}

func testStoreCopiesAreIndependent(t *testing.T, newStore func(t *testing.T, clock engine.Clock) engine.Store) {
	ctx := t.Context()
	s := newStore(t, FixedClock{})
	namespace := ns("a", "b")
	value := engine.NewObject("list", []any{"x"}, "inner", engine.NewObject("k", "v"))
	mustPutItem(t, s, namespace, "k", value)
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
	want := &engine.Item{Namespace: ns("a", "b"), Key: "k", Value: engine.NewObject("list", []any{"x"}, "inner", engine.NewObject("k", "v")), CreatedAt: Base, UpdatedAt: Base}
	if d := cmp.Diff(want, again, Equal()); d != "" {
		t.Errorf("stored item changed through a caller's copy (-want +got):\n%s", d)
	}
}

func testStoreNamespaceValidation(t *testing.T, newStore func(t *testing.T, clock engine.Clock) engine.Store) {
	s := newStore(t, FixedClock{})
	for _, tc := range []struct {
		reason string
		ns     []string
	}{
		{"an empty namespace", nil},
		{"an empty label", ns("a", "")},
		{"a period in a label", ns("a.b")},
		{"the langgraph root label", ns("langgraph", "x")},
	} {
		err := s.Put(t.Context(), tc.ns, "k", engine.NewObject())
		if engine.ErrorKind(err) != "InvalidNamespaceError" {
			t.Errorf("Put under %q: error %v (kind %s), want an InvalidNamespaceError (%s)", tc.ns, err, engine.ErrorKind(err), tc.reason)
		}
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

func testStoreSearch(t *testing.T, newStore func(t *testing.T, clock engine.Clock) engine.Store) {
	// puts at t=0..5, one second apart; "docs"/"b" is updated last
	s := newStore(t, NewTickClock())
	mustPutItem(t, s, ns("docs"), "b", engine.NewObject("kind", "note", "text", "Hello World", "n", json.Number("1")))
	mustPutItem(t, s, ns("docs", "x"), "a", engine.NewObject("kind", "note", "text", "goodbye", "n", json.Number("2")))
	mustPutItem(t, s, ns("docs", "y"), "c", engine.NewObject("kind", "todo", "text", "WORLD peace", "n", json.Number("1.0")))
	mustPutItem(t, s, ns("other"), "d", engine.NewObject("kind", "note", "tags", []any{"a", "b"}))
	mustPutItem(t, s, ns("docsx"), "e", engine.NewObject("kind", "note"))
	mustPutItem(t, s, ns("docs"), "b", engine.NewObject("kind", "note", "text", "Hello World", "n", json.Number("1")))
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
		{"Offset counts matching items only", nil, engine.SearchOptions{Offset: 1, Filter: engine.NewObject("kind", "note")},
			[]address{{ns("docsx"), "e"}, {ns("other"), "d"}, {ns("docs", "x"), "a"}}},
		{"an Offset past the end finds nothing", nil, engine.SearchOptions{Offset: 5}, []address{}},
	}
	for _, tc := range tests {
		got, err := s.Search(t.Context(), tc.prefix, tc.opts)
		if err != nil {
			t.Fatalf("Search(%v, %+v): %v", tc.prefix, tc.opts, err)
		}
		if d := cmp.Diff(tc.want, addressesOf(got)); d != "" {
			t.Errorf("Search(%v, %+v) mismatch (-want +got):\n%s\n(%s)", tc.prefix, tc.opts, d, tc.reason)
		}
	}
	// items carry their values and times
	got, err := s.Search(t.Context(), ns("docs", "x"), engine.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.Item{{Namespace: ns("docs", "x"), Key: "a", Value: engine.NewObject("kind", "note", "text", "goodbye", "n", json.Number("2")), CreatedAt: at(1), UpdatedAt: at(1)}}
	if d := cmp.Diff(want, got, Equal()); d != "" {
		t.Errorf("Search item mismatch (-want +got):\n%s", d)
	}
}

func testStoreSearchTies(t *testing.T, newStore func(t *testing.T, clock engine.Clock) engine.Store) {
	s := newStore(t, FixedClock{})
	var want []address
	for _, n := range []string{"b", "a"} {
		for i := 11; i >= 0; i-- {
			mustPutItem(t, s, ns("m", n), fmt.Sprintf("k%02d", i), engine.NewObject("i", i))
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

func testStoreListNamespaces(t *testing.T, newStore func(t *testing.T, clock engine.Clock) engine.Store) {
	s := newStore(t, FixedClock{})
	l, ok := s.(namespaceLister)
	if !ok {
		t.Skipf("%T has no ListNamespaces", s)
	}
	mustPutItem(t, s, ns("users", "u2"), "a", engine.NewObject())
	mustPutItem(t, s, ns("users", "u1"), "a", engine.NewObject())
	mustPutItem(t, s, ns("users", "u1"), "b", engine.NewObject())
	mustPutItem(t, s, ns("users"), "a", engine.NewObject())
	mustPutItem(t, s, ns("docs"), "a", engine.NewObject())
	mustPutItem(t, s, ns("usersx"), "a", engine.NewObject())
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
		got, err := l.ListNamespaces(t.Context(), tc.prefix)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("ListNamespaces(%v) mismatch (-want +got):\n%s\n(%s)", tc.prefix, d, tc.reason)
		}
	}
}

func testStoreConcurrent(t *testing.T, newStore func(t *testing.T, clock engine.Clock) engine.Store) {
	const workers, puts = 8, 20
	s := newStore(t, NewTickClock())
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			ctx := context.Background()
			for i := range puts {
				namespace := ns("w", fmt.Sprint(w%3))
				key := fmt.Sprint("k", w, "-", i)
				if err := s.Put(ctx, namespace, key, engine.NewObject("i", i)); err != nil {
					errs <- err
					return
				}
				if got, err := s.Get(ctx, namespace, key); err != nil || got == nil {
					errs <- fmt.Errorf("Get(%v, %s) after Put = %v, %v", namespace, key, got, err)
					return
				}
				if _, err := s.Search(ctx, ns("w"), engine.SearchOptions{Limit: 3}); err != nil {
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
	all, err := s.Search(t.Context(), ns("w"), engine.SearchOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != workers*puts {
		t.Errorf("%d items stored, want %d", len(all), workers*puts)
	}
}
