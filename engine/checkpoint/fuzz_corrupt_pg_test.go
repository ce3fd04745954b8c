package checkpoint_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/value"
)

// pgCorruptTargets are the columns FuzzPostgresCorruptRows overwrites,
// each the input of a parser: the checkpoint body (JSON, read by
// GetTuple, List and Put of a child), the channel blobs and pending writes
// (the value codec) and the store's item values (the codec again).
var pgCorruptTargets = []string{
	"UPDATE agenteval_checkpoints SET body = $1 WHERE thread_id = $2",
	"UPDATE agenteval_blobs SET value = $1 WHERE thread_id = $2",
	"UPDATE agenteval_writes SET value = $1 WHERE thread_id = $2",
	"UPDATE agenteval_items SET value = $1 WHERE key = $2",
}

// FuzzPostgresCorruptRows is FuzzSQLiteCorrupt's counterpart for the
// Postgres checkpointer, whose file is the server's: each input is a
// thread of three checkpoints with writes and a store item whose rows of
// one kind were overwritten with the fuzzed bytes. Reading the thread
// back, putting a child of its head and reading the store return errors
// or values, never a panic or a hang. It skips without PostgreSQL.
func FuzzPostgresCorruptRows(f *testing.F) {
	p, dsn := openPostgres(f, checkpoint.PostgresOptions{})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { conn.Close(context.Background()) })
	var threads atomic.Int64
	newThread := func(tb testing.TB) string {
		tb.Helper()
		th := fmt.Sprintf("t%d", threads.Add(1))
		parent := ""
		for i := range 3 {
			cp := &engine.Checkpoint{V: 4, ChannelValues: map[string]any{"messages": []engine.Message{engine.HumanMessage(fmt.Sprint("hi ", i))}, "step": i}, ChannelVersions: map[string]int64{"messages": 1, "step": int64(i + 1)}}
			got, err := p.Put(ctx, cfg(th, parent), cp, loop(i))
			if err != nil {
				tb.Fatal(err)
			}
			parent = got.CheckpointID
			if err := p.PutWrites(ctx, got, []engine.PendingWrite{{Channel: "step", Value: i}}, "task"); err != nil {
				tb.Fatal(err)
			}
		}
		if err := p.Store().Put(ctx, []string{"ns"}, th, value.NewObject("calls", 1)); err != nil {
			tb.Fatal(err)
		}
		return th
	}
	// the seeds: each target's own valid bytes, cut and flipped, and
	// values that parse but say the wrong thing
	seedThread := newThread(f)
	for target, q := range []string{
		"SELECT body FROM agenteval_checkpoints WHERE thread_id = $1 ORDER BY seq LIMIT 1",
		"SELECT value FROM agenteval_blobs WHERE thread_id = $1 LIMIT 1",
		"SELECT value FROM agenteval_writes WHERE thread_id = $1 LIMIT 1",
		"SELECT value FROM agenteval_items WHERE key = $1",
	} {
		var good []byte
		if err := conn.QueryRow(ctx, q, seedThread).Scan(&good); err != nil {
			f.Fatalf("%s: %v", q, err)
		}
		f.Add(uint8(target), good)
		f.Add(uint8(target), good[:len(good)/2])
		flipped := append([]byte(nil), good...)
		flipped[len(flipped)/2] ^= 0xff
		f.Add(uint8(target), flipped)
	}
	for _, b := range []string{"", "null", "[]", "{}", `{"values":{"messages":{}}}`, `{"values":{"messages":{"b":999}}}`,
		`{"versions":{"step":"x"}}`, `{"v":1e400}`, `{"prefix":{"messages":-5},"values":{"messages":{"b":1,"n":-1,"k":"messages"}}}`} {
		f.Add(uint8(0), []byte(b))
	}
	f.Add(uint8(1), []byte{0xff, 0xff, 0xff, 0xff})
	f.Add(uint8(3), []byte("not a value"))
	f.Fuzz(func(t *testing.T, target uint8, data []byte) {
		// a generous bound that turns a hang into a failure with its input
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		th := newThread(t)
		if _, err := conn.Exec(ctx, pgCorruptTargets[int(target)%len(pgCorruptTargets)], data, th); err != nil {
			t.Fatal(err)
		}
		list, _ := p.List(ctx, engine.CheckpointConfig{ThreadID: th}, engine.ListOptions{})
		for _, tup := range list {
			_, _ = p.GetTuple(ctx, tup.Config)
		}
		if head, err := p.GetTuple(ctx, engine.CheckpointConfig{ThreadID: th}); err == nil && head != nil {
			cp := &engine.Checkpoint{V: 4, ChannelValues: map[string]any{"step": 9}, ChannelVersions: map[string]int64{"messages": 1, "step": 9}}
			_, _ = p.Put(ctx, head.Config, cp, loop(3))
		}
		_, _ = p.Store().Get(ctx, []string{"ns"}, th)
		_, _ = p.Store().Search(ctx, []string{"ns"}, engine.SearchOptions{})
		if ctx.Err() != nil {
			t.Errorf("reading a corrupted row of %d bytes did not end in 20s", len(data))
		}
	})
}
