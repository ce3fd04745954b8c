package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
)

// Crash-and-resume: a run that stops right after any superstep's
// checkpoint, resumed from the checkpointer with nil input on the same
// thread, must end in the same transcript as a run that never stopped.
// crash_kill_test.go does it with a real process kill on SQLite; this
// file holds the scenarios and the in-process variant (the checkpointer
// fails the run after its k-th Put), for Memory and SQLite.

// crashScenario is a seeded ReAct run: a scripted model that calls
// deterministic tools over several supersteps, some calls in parallel,
// some failing, then answers.
type crashScenario struct {
	seed      uint64
	version   string
	responses []llm.Response
}

func newCrashScenario(seed uint64) crashScenario {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	sc := crashScenario{seed: seed, version: []string{"v1", "v2"}[r.IntN(2)]}
	turns := 1 + r.IntN(4)
	call := 0
	for range turns {
		n := 1 + r.IntN(3)
		var calls []engine.ToolCall
		for range n {
			call++
			id := fmt.Sprintf("call_%d_%d", seed, call)
			switch r.IntN(4) {
			case 0, 1:
				calls = append(calls, engine.ToolCall{Name: "add", Args: engine.NewObject("a", r.IntN(100), "b", r.IntN(100)), ID: id})
			case 2:
				calls = append(calls, engine.ToolCall{Name: "echo", Args: engine.NewObject("text", fmt.Sprintf("seed %d call %d", seed, call)), ID: id})
			default:
				calls = append(calls, engine.ToolCall{Name: "fail", Args: engine.NewObject("why", "boom"), ID: id})
			}
		}
		sc.responses = append(sc.responses, llm.Response{Message: engine.AIMessage(fmt.Sprintf("turn with %d calls", n), calls...)})
	}
	sc.responses = append(sc.responses, llm.Response{Message: engine.AIMessage(fmt.Sprintf("done (seed %d)", seed))})
	return sc
}

func crashTools() []engine.Tool {
	obj := func(props ...any) *engine.Object {
		return engine.NewObject("type", "object", "properties", engine.NewObject(props...))
	}
	integer := engine.NewObject("type", "integer")
	str := engine.NewObject("type", "string")
	return []engine.Tool{
		engine.NewTool(engine.ToolDef{Name: "add", Description: "Add two integers.", Parameters: obj("a", integer, "b", integer)}, func(_ context.Context, inv engine.ToolInvocation) (any, error) {
			a, _ := inv.Args().Get("a")
			b, _ := inv.Args().Get("b")
			x, _ := strconv.Atoi(fmt.Sprint(a))
			y, _ := strconv.Atoi(fmt.Sprint(b))
			return x + y, nil
		}),
		engine.NewTool(engine.ToolDef{Name: "echo", Description: "Echo a text.", Parameters: obj("text", str)}, func(_ context.Context, inv engine.ToolInvocation) (any, error) {
			t, _ := inv.Args().Get("text")
			return engine.NewObject("echo", t), nil
		}),
		engine.NewTool(engine.ToolDef{Name: "fail", Description: "Always fails.", Parameters: obj("why", str)}, func(_ context.Context, inv engine.ToolInvocation) (any, error) {
			w, _ := inv.Args().Get("why")
			return nil, engine.ToolException(fmt.Sprint(w))
		}),
	}
}

// agent builds the scenario's agent answering with responses.
func (sc crashScenario) agent(t testing.TB, saver engine.Checkpointer, responses []llm.Response) *engine.Graph {
	t.Helper()
	g, err := engine.CreateReactAgent(engine.ReactAgentConfig{
		Model:        llm.NewScripted("model", llm.Script{Responses: responses}),
		Tools:        crashTools(),
		Checkpointer: saver,
		Version:      sc.version,
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func (sc crashScenario) input() engine.State {
	return engine.State{"messages": []any{fmt.Sprintf("scenario %d: compute things", sc.seed)}}
}

// finalTranscript is the thread's final messages as JSON.
func finalTranscript(ctx context.Context, g *engine.Graph, thread string) (string, error) {
	snap, err := g.GetState(ctx, engine.Config{ThreadID: thread})
	if err != nil {
		return "", err
	}
	b, err := engine.MarshalValue(engine.ValueForJSON(snap.Values["messages"]))
	return string(b), err
}

// remaining returns the responses the model has not given yet in the
// thread: one per AI message in its newest checkpoint.
func (sc crashScenario) remaining(ctx context.Context, saver engine.Checkpointer, thread string) ([]llm.Response, error) {
	tup, err := saver.GetTuple(ctx, engine.CheckpointConfig{ThreadID: thread})
	if err != nil || tup == nil {
		return nil, fmt.Errorf("newest checkpoint of %s: %v, %v", thread, tup, err)
	}
	msgs, err := engine.MessagesFromValue(tup.Checkpoint.ChannelValues["messages"])
	if err != nil {
		return nil, err
	}
	ai := 0
	for _, m := range msgs {
		if m.Type == engine.TypeAI {
			ai++
		}
	}
	return sc.responses[ai:], nil
}

// uninterrupted runs the scenario to the end on a fresh Memory and
// returns its transcript and how many checkpoints it took.
func (sc crashScenario) uninterrupted(t testing.TB) (string, int) {
	t.Helper()
	ctx := context.Background()
	counter := &countingSaver{Checkpointer: checkpoint.NewMemory()}
	g := sc.agent(t, counter, sc.responses)
	if _, err := g.Invoke(ctx, sc.input(), engine.Config{ThreadID: "t"}); err != nil {
		t.Fatalf("seed %d: uninterrupted run: %v", sc.seed, err)
	}
	tr, err := finalTranscript(ctx, g, "t")
	if err != nil {
		t.Fatal(err)
	}
	return tr, counter.count()
}

// countingSaver counts Puts.
type countingSaver struct {
	engine.Checkpointer
	mu   sync.Mutex
	puts int
}

func (c *countingSaver) Put(ctx context.Context, cfg engine.CheckpointConfig, cp *engine.Checkpoint, meta engine.CheckpointMetadata) (engine.CheckpointConfig, error) {
	c.mu.Lock()
	c.puts++
	c.mu.Unlock()
	return c.Checkpointer.Put(ctx, cfg, cp, meta)
}

func (c *countingSaver) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.puts
}

// errCrash is what stopAfter's Put returns once its checkpoint is stored.
var errCrash = errors.New("simulated crash after the checkpoint was stored")

// stopAfter stores k checkpoints, then fails every later call: the run
// ends right after its k-th checkpoint, as if the process died.
type stopAfter struct {
	engine.Checkpointer
	mu   sync.Mutex
	k    int
	puts int
}

func (s *stopAfter) Put(ctx context.Context, cfg engine.CheckpointConfig, cp *engine.Checkpoint, meta engine.CheckpointMetadata) (engine.CheckpointConfig, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.puts >= s.k {
		return engine.CheckpointConfig{}, errCrash
	}
	s.puts++
	out, err := s.Checkpointer.Put(ctx, cfg, cp, meta)
	if err == nil && s.puts == s.k {
		return out, errCrash
	}
	return out, err
}

func (s *stopAfter) PutWrites(ctx context.Context, cfg engine.CheckpointConfig, writes []engine.PendingWrite, taskID string) error {
	s.mu.Lock()
	done := s.puts >= s.k
	s.mu.Unlock()
	if done {
		return errCrash
	}
	return s.Checkpointer.PutWrites(ctx, cfg, writes, taskID)
}

// resume continues the thread on saver with the scenario's remaining
// responses and returns the final transcript.
func (sc crashScenario) resume(t testing.TB, saver engine.Checkpointer, thread string) string {
	t.Helper()
	ctx := context.Background()
	rest, err := sc.remaining(ctx, saver, thread)
	if err != nil {
		t.Fatalf("seed %d: %v", sc.seed, err)
	}
	g := sc.agent(t, saver, rest)
	if _, err := g.Invoke(ctx, nil, engine.Config{ThreadID: thread}); err != nil {
		t.Fatalf("seed %d: resume: %v", sc.seed, err)
	}
	tr, err := finalTranscript(ctx, g, thread)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestCrashResumeInProcess: for 40 seeded scenarios, stop the run after
// each of its checkpoints (the checkpointer fails the run) and resume; the
// transcript must equal the uninterrupted run's, on Memory and, for every
// fourth scenario, on SQLite. (TestCrashResumeSQLiteKill kills real
// processes.)
func TestCrashResumeInProcess(t *testing.T) {
	if raceEnabled {
		t.Skip("what a run stores, not concurrency: .ci/run runs it without -race (see race_test.go)")
	}
	t.Parallel()
	const seeds = 40
	sqlite, err := checkpoint.OpenSQLite(t.Context(), filepath.Join(t.TempDir(), "crash.db"), checkpoint.SQLiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sqlite.Close()
	for seed := range uint64(seeds) {
		sc := newCrashScenario(seed)
		want, puts := sc.uninterrupted(t)
		for k := 1; k <= puts; k++ {
			savers := map[string]engine.Checkpointer{"memory": checkpoint.NewMemory()}
			if seed%4 == 0 {
				savers["sqlite"] = sqlite
			}
			for name, saver := range savers {
				// the same thread name as the uninterrupted run: message
				// and checkpoint IDs are derived from it
				const thread = "t"
				if err := sqlite.DeleteThread(context.Background(), thread); err != nil {
					t.Fatal(err)
				}
				g := sc.agent(t, &stopAfter{Checkpointer: saver, k: k}, sc.responses)
				_, err := g.Invoke(context.Background(), sc.input(), engine.Config{ThreadID: thread})
				if k < puts && !errors.Is(err, errCrash) {
					t.Fatalf("seed %d, %s, stop after put %d of %d: run ended with %v, want the simulated crash", seed, name, k, puts, err)
				}
				if got := sc.resume(t, saver, thread); got != want {
					t.Errorf("seed %d (%s), %s, stopped after checkpoint %d of %d: resumed transcript differs: %s", seed, sc.version, name, k, puts, firstDifference(want, got))
				}
			}
		}
	}
}

// firstDifference shows where two transcripts part.
func firstDifference(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-80)
	return fmt.Sprintf("at byte %d:\nwant ...%s\n got ...%s", i, want[from:min(len(want), i+80)], got[from:min(len(got), i+80)])
}
