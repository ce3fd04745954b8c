package engine_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
)

// barrierSaver holds the first n GetTuple calls until all n have read, so
// n runs on one thread all start from the same head.
type barrierSaver struct {
	engine.Checkpointer
	mu      sync.Mutex
	waiting int
	release chan struct{}
}

func newBarrierSaver(inner engine.Checkpointer, n int) *barrierSaver {
	return &barrierSaver{Checkpointer: inner, waiting: n, release: make(chan struct{})}
}

func (b *barrierSaver) GetTuple(ctx context.Context, cfg engine.CheckpointConfig) (*engine.CheckpointTuple, error) {
	t, err := b.Checkpointer.GetTuple(ctx, cfg)
	b.mu.Lock()
	armed := b.waiting > 0
	if armed {
		b.waiting--
		if b.waiting == 0 {
			close(b.release)
		}
	}
	b.mu.Unlock()
	if armed {
		select {
		case <-b.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return t, err
}

// TestConcurrentTurnsOnOneThreadConflict: two runs that continue the same
// thread from the same head (two processes resuming one thread) cannot
// both succeed: exactly one fails with ErrCheckpointConflict, and the
// thread holds the winner's turn, whole, on a linear history. Before the
// conflict rule both returned without error and one reply was orphaned on
// a branch.
func TestConcurrentTurnsOnOneThreadConflict(t *testing.T) {
	savers := map[string]func(t *testing.T) engine.Checkpointer{
		"memory": func(t *testing.T) engine.Checkpointer { return checkpoint.NewMemory() },
		"sqlite": func(t *testing.T) engine.Checkpointer {
			s, err := checkpoint.OpenSQLite(t.Context(), filepath.Join(t.TempDir(), "state.db"), checkpoint.SQLiteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	for _, name := range []string{"memory", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			inner := savers[name](t)
			tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) {
				return fmt.Sprintf("r%d", argI(inv)), nil
			})
			build := func(s engine.Checkpointer) *engine.Graph {
				g, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: echoModel{}, Tools: []engine.Tool{tool}, Checkpointer: s})
				if err != nil {
					t.Fatal(err)
				}
				return g
			}
			cfg := engine.Config{ThreadID: "t"}
			if _, err := build(inner).Invoke(ctx, engine.State{"messages": []any{"q0"}}, cfg); err != nil {
				t.Fatal(err)
			}
			racing := build(newBarrierSaver(inner, 2))
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i := range 2 {
				wg.Go(func() {
					_, errs[i] = racing.Invoke(ctx, engine.State{"messages": []any{fmt.Sprintf("q%d", i+1)}}, cfg)
				})
			}
			wg.Wait()
			winner := -1
			for i, err := range errs {
				switch {
				case err == nil:
					winner = i
				case !errors.Is(err, engine.ErrCheckpointConflict):
					t.Errorf("run %d: %v, want nil or ErrCheckpointConflict", i+1, err)
				}
			}
			if winner < 0 || errs[1-winner] == nil {
				t.Fatalf("runs returned %v; want exactly one to succeed and the other to conflict", errs)
			}
			snap, err := build(inner).GetState(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			msgs := snap.Values.Messages("messages")
			n := winner + 1
			want := fmt.Sprintf("human:q0 ai: tool:r0 ai:done r0 human:q%d ai: tool:r%d ai:done r%d", n, n, n)
			if got := render(msgs); got != want {
				t.Errorf("thread after the race:\n got %s\nwant %s", got, want)
			}
			hist, err := build(inner).GetStateHistory(ctx, cfg, engine.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i+1 < len(hist); i++ {
				if p := hist[i].ParentConfig; p == nil || p.CheckpointID != hist[i+1].Config.CheckpointID {
					t.Errorf("history is not linear at %s: parent %+v, want %s", hist[i].Config.CheckpointID, p, hist[i+1].Config.CheckpointID)
				}
			}
		})
	}
}
