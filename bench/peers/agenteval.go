package peers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/agenteval/agenteval/bench"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
)

// intParams is the JSON Schema of {"i": integer}, required.
func intParams() *engine.Object {
	return engine.NewObject("type", "object",
		"properties", engine.NewObject("i", engine.NewObject("type", "integer")),
		"required", []any{"i"})
}

// aeTrivialTool is bench's W1 tool: "t", one required integer, validated
// by the ToolNode like every call's, answering "ok".
func aeTrivialTool() engine.Tool {
	return engine.NewTool(engine.ToolDef{Name: "t", Description: "A trivial tool.", Parameters: intParams()},
		func(context.Context, engine.ToolInvocation) (any, error) { return "ok", nil })
}

// aeWaitTool is bench's W2 tool: "wait", waiting d (or until ctx is
// done) with a timer and a select.
func aeWaitTool(d time.Duration) engine.Tool {
	return engine.NewTool(engine.ToolDef{Name: "wait", Description: "Waits.", Parameters: intParams()},
		func(ctx context.Context, _ engine.ToolInvocation) (any, error) {
			if err := wait(ctx, d); err != nil {
				return nil, err
			}
			return "ok", nil
		})
}

// wait waits d or until ctx is done: the wait of every W2 tool.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}

// aeCalls returns n calls of tool name, call i with arguments {"i": i}.
func aeCalls(name string, n int) []engine.ToolCall {
	calls := make([]engine.ToolCall, n)
	for i := range calls {
		calls[i] = engine.ToolCall{Name: name, Args: engine.NewObject("i", i), ID: CallID(i)}
	}
	return calls
}

// aeLines renders agenteval messages as transcript lines.
func aeLines(msgs []engine.Message) ([]string, error) {
	var out []string
	for _, m := range msgs {
		switch m.Type {
		case engine.TypeHuman:
			out = append(out, humanLine(m.Content.String()))
		case engine.TypeAI:
			if len(m.ToolCalls) == 0 {
				out = append(out, aiLine(m.Content.String()))
			}
			for _, c := range m.ToolCalls {
				v, _ := c.Args.Get("i")
				i, ok := v.(int)
				if !ok {
					return nil, fmt.Errorf("call %s: argument i is %T", c.ID, v)
				}
				out = append(out, callLine(c.Name, c.ID, ArgsJSON(i)))
			}
		case engine.TypeTool:
			if m.Status != engine.StatusSuccess {
				return nil, fmt.Errorf("tool call %s failed: %s", m.ToolCallID, m.Content.String())
			}
			out = append(out, resultLine(m.ToolCallID, m.Content.String()))
		}
	}
	return out, nil
}

// aeToolNode is agenteval's ToolNode alone, invoked with one AI message
// of n calls of tool.
func aeToolNode(tool engine.Tool, n int) func(context.Context, string) (*Op, error) {
	return func(context.Context, string) (*Op, error) {
		tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{})
		if err != nil {
			return nil, err
		}
		input := engine.State{"messages": []engine.Message{engine.AIMessage("", aeCalls(tool.Definition().Name, n)...)}}
		return &Op{
			Units: float64(n),
			Run: func(ctx context.Context) error {
				_, err := tn.Invoke(ctx, input)
				return err
			},
			Transcript: func(ctx context.Context) ([]string, error) {
				out, err := tn.Invoke(ctx, input)
				if err != nil {
					return nil, err
				}
				st, ok := out.(engine.State)
				if !ok {
					return nil, fmt.Errorf("tool node returned %T", out)
				}
				return aeLines(st.Messages("messages"))
			},
		}, nil
	}
}

// aeToolGraph is the same ToolNode in a compiled graph START → tools →
// END whose state is a messages list (add_messages), invoked with the AI
// message as input.
func aeToolGraph(tool engine.Tool, n int) func(context.Context, string) (*Op, error) {
	return func(context.Context, string) (*Op, error) {
		tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{})
		if err != nil {
			return nil, err
		}
		g, err := engine.NewStateGraph(engine.MessagesField("messages")).
			AddNode("tools", tn.Node()).
			AddEdge(engine.Start, "tools").
			AddEdge("tools", engine.End).
			Compile(engine.CompileOptions{})
		if err != nil {
			return nil, err
		}
		input := engine.State{"messages": []engine.Message{engine.AIMessage("", aeCalls(tool.Definition().Name, n)...)}}
		return &Op{
			Units: float64(n),
			Run: func(ctx context.Context) error {
				_, err := g.Invoke(ctx, input, engine.Config{})
				return err
			},
			Transcript: func(ctx context.Context) ([]string, error) {
				res, err := g.Invoke(ctx, input, engine.Config{})
				if err != nil {
					return nil, err
				}
				msgs := res.Values.Messages("messages")
				if len(msgs) == 0 {
					return nil, fmt.Errorf("graph returned no messages")
				}
				return aeLines(msgs[1:]) // the input's AI message first
			},
		}, nil
	}
}

// aeModel is bench's cycle model in Rule's terms: stateless, it answers
// from the messages after the last human message.
type aeModel struct{ rule Rule }

// Generate answers one call.
func (m aeModel) Generate(_ context.Context, req engine.ModelRequest) (engine.Message, error) {
	done := 0
	for _, m := range req.Messages.Backward() {
		t := m.Type
		if t == engine.TypeHuman {
			break
		}
		if t == engine.TypeTool {
			done++
		}
	}
	from, to := m.rule.Next(done)
	if from == to {
		return engine.AIMessage(FinalAnswer), nil
	}
	calls := make([]engine.ToolCall, 0, to-from)
	for i := from; i < to; i++ {
		calls = append(calls, engine.ToolCall{Name: "t", Args: engine.NewObject("i", i), ID: CallID(i)})
	}
	return engine.AIMessage("", calls...), nil
}

// saver is a checkpointer that can forget a thread.
type saver interface {
	engine.Checkpointer
	DeleteThread(ctx context.Context, threadID string) error
}

// discardSaver is a SnapshotSaver that keeps nothing: every put returns
// a new checkpoint ID (as long as Memory's) and no thread has a
// checkpoint. A run with it takes every checkpoint and task write it
// would give Memory, so W3 with it is what the engine's checkpointing
// costs by itself, without a saver's own work or what a saver keeps.
type discardSaver struct{ puts *atomic.Uint64 }

// id returns the next checkpoint ID, in one allocation as Memory's.
func (d discardSaver) id() string {
	b := []byte("00000000-0000-0000-0000-000000000000")
	n := d.puts.Add(1)
	for i := len(b) - 1; n > 0 && b[i] != '-'; i-- {
		b[i] = "0123456789abcdef"[n&15]
		n >>= 4
	}
	return string(b)
}

func (discardSaver) GetTuple(context.Context, engine.CheckpointConfig) (*engine.CheckpointTuple, error) {
	return nil, nil
}

func (discardSaver) List(context.Context, engine.CheckpointConfig, engine.ListOptions) ([]*engine.CheckpointTuple, error) {
	return nil, nil
}

func (d discardSaver) Put(_ context.Context, cfg engine.CheckpointConfig, _ *engine.Checkpoint, _ engine.CheckpointMetadata) (engine.CheckpointConfig, error) {
	return engine.CheckpointConfig{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS, CheckpointID: d.id()}, nil
}

func (d discardSaver) PutSnapshot(_ context.Context, cfg engine.CheckpointConfig, _ *engine.CheckpointSnapshot, _ engine.CheckpointMetadata) (engine.CheckpointConfig, error) {
	return engine.CheckpointConfig{ThreadID: cfg.ThreadID, CheckpointNS: cfg.CheckpointNS, CheckpointID: d.id()}, nil
}

func (discardSaver) PutWrites(context.Context, engine.CheckpointConfig, []engine.PendingWrite, string) error {
	return nil
}

func (discardSaver) DeleteThread(context.Context, string) error { return nil }

// openSaver opens the named checkpointer ("none", "discard", "memory",
// "sqlite"): nil for none, and a closer.
func openSaver(ctx context.Context, kind, dir string) (saver, func() error, error) {
	switch kind {
	case "none":
		return nil, nil, nil
	case "discard":
		return discardSaver{puts: new(atomic.Uint64)}, nil, nil
	case "memory":
		return checkpoint.NewMemory(), nil, nil
	case "sqlite":
		sub, err := os.MkdirTemp(dir, "sqlite-")
		if err != nil {
			return nil, nil, err
		}
		db, err := checkpoint.OpenSQLite(ctx, filepath.Join(sub, "peers.db"), checkpoint.SQLiteOptions{})
		if err != nil {
			return nil, nil, err
		}
		return db, db.Close, nil
	}
	return nil, nil, fmt.Errorf("unknown checkpointer %q", kind)
}

// aeReact is W3 for agenteval: one create_react_agent run of K cycles on
// input "go", with the named checkpointer (a new thread per run; the
// threads are deleted off the clock every 1,000 runs).
func aeReact(kind string, k int) func(context.Context, string) (*Op, error) {
	return func(ctx context.Context, dir string) (*Op, error) {
		sv, closeSaver, err := openSaver(ctx, kind, dir)
		if err != nil {
			return nil, err
		}
		cfg := engine.ReactAgentConfig{Model: aeModel{Rule{K: k, Per: 1}}, Tools: []engine.Tool{aeTrivialTool()}}
		if sv != nil {
			cfg.Checkpointer = sv
		}
		agent, err := engine.CreateReactAgent(cfg)
		if err != nil {
			return nil, err
		}
		input := engine.State{"messages": []any{"go"}}
		var threads []string
		n := 0
		invoke := func(ctx context.Context) (*engine.Result, error) {
			c := engine.Config{RecursionLimit: 2*k + 5}
			if sv != nil {
				n++
				c.ThreadID = "w3-" + strconv.Itoa(n)
				threads = append(threads, c.ThreadID)
			}
			return agent.Invoke(ctx, input, c)
		}
		op := &Op{
			Units: float64(k),
			Close: closeSaver,
			Run: func(ctx context.Context) error {
				res, err := invoke(ctx)
				if err != nil {
					return err
				}
				if got := res.Values.List("messages").Len(); got != 2*k+2 {
					return fmt.Errorf("agent run ended with %d messages, want %d", got, 2*k+2)
				}
				return nil
			},
			Transcript: func(ctx context.Context) ([]string, error) {
				res, err := invoke(ctx)
				if err != nil {
					return nil, err
				}
				return aeLines(res.Values.Messages("messages"))
			},
		}
		if sv != nil {
			op.ResetEvery = 1000
			op.Reset = func(ctx context.Context) error {
				for _, t := range threads {
					if err := sv.DeleteThread(ctx, t); err != nil {
						return err
					}
				}
				threads = threads[:0]
				return nil
			}
		}
		return op, nil
	}
}

// Question is the human message that starts every W4 turn.
const Question = "And tomorrow?"

// w4Turns is how many turns W4 runs with a checkpointer before its
// thread is prefilled again, off the clock (bench's w4Turns).
const w4Turns = 16

// aeThread is W4 for agenteval, as bench's ThreadGrowthOp: one turn on a
// thread of m messages (bench.History). Without a checkpointer ("none")
// the thread and the question are the input; with one, the thread is
// prefilled with UpdateState and every turn either forks from that
// checkpoint (from "fork") or continues from the newest one (from
// "newest").
func aeThread(kind, from string, m int) func(context.Context, string) (*Op, error) {
	return func(ctx context.Context, dir string) (*Op, error) {
		sv, closeSaver, err := openSaver(ctx, kind, dir)
		if err != nil {
			return nil, err
		}
		cfg := engine.ReactAgentConfig{Model: aeModel{Rule{K: 1, Per: 1}}, Tools: []engine.Tool{aeTrivialTool()}}
		if sv != nil {
			cfg.Checkpointer = sv
		}
		agent, err := engine.CreateReactAgent(cfg)
		if err != nil {
			return nil, err
		}
		hist := bench.History(m)
		// the prefill hands the thread over as one MessageList, built
		// once: the run takes it as it is, so prefilling leaves no
		// garbage whose collection would run during the timed turns
		histList := engine.NewMessageList(hist...)
		question := engine.HumanMessage(Question)
		op := &Op{Units: 1, Close: closeSaver}
		check := func(res *engine.Result, want int) error {
			if got := res.Values.List("messages").Len(); got != want {
				return fmt.Errorf("turn ended with %d messages, want %d", got, want)
			}
			return nil
		}
		transcript := func(res *engine.Result, err error) ([]string, error) {
			if err != nil {
				return nil, err
			}
			msgs := res.Values.Messages("messages")
			return aeLines(msgs[len(msgs)-4:]) // the question and the turn
		}
		if sv == nil {
			// the thread as a MessageList, as a caller that keeps it
			// between turns holds it: the run adds to it without copying
			input := engine.State{"messages": histList.Append(question)}
			op.Run = func(ctx context.Context) error {
				res, err := agent.Invoke(ctx, input, engine.Config{})
				if err != nil {
					return err
				}
				return check(res, m+4)
			}
			op.Transcript = func(ctx context.Context) ([]string, error) {
				return transcript(agent.Invoke(ctx, input, engine.Config{}))
			}
			return op, nil
		}
		const thread = "w4"
		var base string
		turns := 0
		op.Reset = func(ctx context.Context) error {
			if err := sv.DeleteThread(ctx, thread); err != nil {
				return err
			}
			c, err := agent.UpdateState(ctx, engine.Config{ThreadID: thread}, engine.State{"messages": histList}, "agent")
			if err != nil {
				return fmt.Errorf("prefill %d messages: %w", m, err)
			}
			base, turns = c.CheckpointID, 0
			return nil
		}
		op.ResetEvery = w4Turns
		if err := op.Reset(ctx); err != nil {
			return nil, err
		}
		input := engine.State{"messages": []engine.Message{question}}
		cfg2 := func() engine.Config {
			if from == "fork" {
				return engine.Config{ThreadID: thread, CheckpointID: base}
			}
			return engine.Config{ThreadID: thread}
		}
		op.Run = func(ctx context.Context) error {
			res, err := agent.Invoke(ctx, input, cfg2())
			if err != nil {
				return err
			}
			if from == "fork" {
				return check(res, m+4)
			}
			turns++
			return check(res, m+4*turns)
		}
		op.Transcript = func(ctx context.Context) ([]string, error) {
			if err := op.Reset(ctx); err != nil {
				return nil, err
			}
			return transcript(agent.Invoke(ctx, input, cfg2()))
		}
		return op, nil
	}
}
