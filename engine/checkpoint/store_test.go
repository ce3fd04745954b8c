package checkpoint_test

import (
	"context"
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

func ns(labels ...string) []string { return labels }

func mustPut(t *testing.T, s *checkpoint.MemoryStore, namespace []string, key string, value *engine.Object) {
	t.Helper()
	if err := s.Put(t.Context(), namespace, key, value); err != nil {
		t.Fatalf("Put(%v, %q): %v", namespace, key, err)
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
