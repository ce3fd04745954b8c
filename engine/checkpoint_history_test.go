package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/sebdah/goldie/v2"
)

// TestCheckpointHistoryGolden pins what runs store, checkpoint by
// checkpoint: IDs, channel versions, the versions each node saw, the
// updated channels, list prefixes, values, metadata and pending writes
// with their task IDs, for graphs that use every part of the superstep
// loop (Sends, join edges, routers, ephemeral and reducer channels,
// interrupt_before, interrupt() and Command resumes, UpdateState and
// forks, a subgraph). The superstep loop keeps versions in slices and
// makes these maps only for the saver: the golden file was written by the
// loop that kept them in maps, so a difference is a change of what a
// thread stores. go test ./engine -run TestCheckpointHistoryGolden -update
// rewrites it.
func TestCheckpointHistoryGolden(t *testing.T) {
	var out strings.Builder
	for _, c := range historyCases() {
		saver := checkpoint.NewMemory()
		nss, err := c.run(context.Background(), saver)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fmt.Fprintf(&out, "### %s\n", c.name)
		for _, ns := range append([]string{""}, nss...) {
			if err := dumpHistory(context.Background(), &out, saver, "t", ns); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
	}
	goldie.New(t, goldie.WithFixtureDir("testdata"), goldie.WithNameSuffix(".golden")).Assert(t, "checkpoint_history", []byte(out.String()))
}

type historyCase struct {
	name string
	// run runs the case and returns the namespaces of subgraph
	// checkpoints to list after the top level's
	run func(ctx context.Context, saver engine.Checkpointer) ([]string, error)
}

func historyCases() []historyCase {
	clock := fixedClock{}
	return []historyCase{
		{name: "react agent, two parallel calls then one", run: func(ctx context.Context, saver engine.Checkpointer) ([]string, error) {
			tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) { return "ok", nil })
			script := llm.Script{Responses: []llm.Response{
				{Message: engine.AIMessage("", callsOf("t", 2)...)},
				{Message: engine.AIMessage("", engine.ToolCall{Name: "t", Args: engine.NewObject("i", 9), ID: "c9"})},
				{Message: engine.AIMessage("done")},
			}}
			agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: llm.NewScripted("m", script), Tools: []engine.Tool{tool}, Checkpointer: saver, Clock: clock})
			if err != nil {
				return nil, err
			}
			_, err = agent.Invoke(ctx, engine.State{"messages": []any{"go"}}, engine.Config{ThreadID: "t"})
			return nil, err
		}},
		{name: "react agent v1, interrupt before tools, resume, update and fork", run: func(ctx context.Context, saver engine.Checkpointer) ([]string, error) {
			tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) { return "ok", nil })
			script := llm.Script{Responses: []llm.Response{
				{Message: engine.AIMessage("", callsOf("t", 2)...)},
				{Message: engine.AIMessage("done")},
				{Message: engine.AIMessage("again")},
			}}
			agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: llm.NewScripted("m", script), Tools: []engine.Tool{tool}, Checkpointer: saver, Clock: clock, InterruptBefore: []string{"tools"}, Version: "v1"})
			if err != nil {
				return nil, err
			}
			cfg := engine.Config{ThreadID: "t"}
			if _, err := agent.Invoke(ctx, engine.State{"messages": []any{"go"}}, cfg); err != nil {
				return nil, err
			}
			if _, err := agent.Invoke(ctx, nil, cfg); err != nil {
				return nil, err
			}
			hist, err := agent.GetStateHistory(ctx, cfg, engine.ListOptions{})
			if err != nil {
				return nil, err
			}
			first := hist[len(hist)-2].Config.CheckpointID
			if _, err := agent.UpdateState(ctx, engine.Config{ThreadID: "t", CheckpointID: first}, engine.State{"messages": []any{"more"}}, ""); err != nil {
				return nil, err
			}
			_, err = agent.Invoke(ctx, nil, cfg)
			return nil, err
		}},
		{name: "graph: Sends, join edge, router, reducers, ephemeral", run: func(ctx context.Context, saver engine.Checkpointer) ([]string, error) {
			g := engine.NewStateGraph(
				engine.Field{Name: "items", Reducer: listReducer()},
				engine.Field{Name: "total", Reducer: sumReducer()},
				engine.ValueField("last"),
				engine.Field{Name: "flash", Ephemeral: true},
			)
			g.AddNode("split", func(context.Context, engine.State) (any, error) {
				return engine.State{"last": "split", "flash": 1}, nil
			})
			g.AddNode("worker", func(_ context.Context, s engine.State) (any, error) {
				i := s["i"].(int)
				return engine.State{"items": []string{fmt.Sprint("item", i)}, "total": i}, nil
			})
			g.AddNode("a", func(context.Context, engine.State) (any, error) { return engine.State{"last": "a"}, nil })
			g.AddNode("b", func(context.Context, engine.State) (any, error) { return engine.State{"items": []string{"b"}}, nil })
			g.AddNode("join", func(context.Context, engine.State) (any, error) { return engine.State{"last": "join"}, nil })
			g.AddEdge(engine.Start, "split")
			g.AddConditionalEdges("split", func(context.Context, engine.State) (any, error) {
				return []any{engine.Send{Node: "worker", Arg: engine.State{"i": 1}}, engine.Send{Node: "worker", Arg: engine.State{"i": 2}}, "a", "b"}, nil
			})
			g.AddJoinEdge([]string{"a", "b"}, "join")
			g.AddEdge("worker", engine.End)
			g.AddEdge("join", engine.End)
			graph, err := g.Compile(engine.CompileOptions{Checkpointer: saver, Clock: clock})
			if err != nil {
				return nil, err
			}
			_, err = graph.Invoke(ctx, engine.State{"items": []string{"start"}}, engine.Config{ThreadID: "t"})
			return nil, err
		}},
		{name: "graph: interrupt() in two tasks, resumed by ID", run: func(ctx context.Context, saver engine.Checkpointer) ([]string, error) {
			g := engine.NewStateGraph(engine.Field{Name: "log", Reducer: listReducer()})
			ask := func(name string) engine.NodeFunc {
				return func(ctx context.Context, _ engine.State) (any, error) {
					v, err := engine.Interrupt(ctx, name+"?")
					if err != nil {
						return nil, err
					}
					return engine.State{"log": []string{fmt.Sprint(name, "=", v)}}, nil
				}
			}
			g.AddNode("x", ask("x")).AddNode("y", ask("y"))
			g.AddEdge(engine.Start, "x").AddEdge(engine.Start, "y")
			graph, err := g.Compile(engine.CompileOptions{Checkpointer: saver, Clock: clock})
			if err != nil {
				return nil, err
			}
			cfg := engine.Config{ThreadID: "t"}
			res, err := graph.Invoke(ctx, engine.State{"log": []string{}}, cfg)
			if err != nil {
				return nil, err
			}
			// by value: the interrupts come in the order their tasks
			// finished
			resume := map[string]any{}
			for _, in := range res.Interrupts {
				resume[in.ID] = fmt.Sprint("answer to ", in.Value)
			}
			_, err = graph.Invoke(ctx, engine.Command{Resume: resume}, cfg)
			return nil, err
		}},
		{name: "graph with a subgraph on the parent's saver", run: func(ctx context.Context, saver engine.Checkpointer) ([]string, error) {
			sg := engine.NewStateGraph(engine.Field{Name: "log", Reducer: listReducer()})
			sg.AddNode("inner", func(context.Context, engine.State) (any, error) { return engine.State{"log": []string{"inner"}}, nil })
			sg.AddEdge(engine.Start, "inner")
			sub, err := sg.Compile(engine.CompileOptions{})
			if err != nil {
				return nil, err
			}
			g := engine.NewStateGraph(engine.Field{Name: "log", Reducer: listReducer()})
			g.AddSubgraph("sub", sub)
			g.AddNode("after", func(context.Context, engine.State) (any, error) { return engine.State{"log": []string{"after"}}, nil })
			g.AddEdge(engine.Start, "sub").AddEdge("sub", "after")
			graph, err := g.Compile(engine.CompileOptions{Checkpointer: saver, Clock: clock})
			if err != nil {
				return nil, err
			}
			var nss []string
			for part, err := range graph.Stream(ctx, engine.State{"log": []string{"in"}}, engine.Config{ThreadID: "t", Subgraphs: true}, engine.StreamUpdates) {
				if err != nil {
					return nil, err
				}
				if len(part.Namespace) > 0 && !slices.Contains(nss, part.Namespace[0]) {
					nss = append(nss, part.Namespace[0])
				}
			}
			return nss, nil
		}},
	}
}

// dumpHistory writes the checkpoints of a thread's namespace, oldest
// first.
func dumpHistory(ctx context.Context, out *strings.Builder, saver *checkpoint.Memory, thread, ns string) error {
	tuples, err := saver.List(ctx, engine.CheckpointConfig{ThreadID: thread, CheckpointNS: ns}, engine.ListOptions{})
	if err != nil {
		return err
	}
	slices.Reverse(tuples)
	fmt.Fprintf(out, "namespace %q\n", ns)
	for _, tp := range tuples {
		cp := tp.Checkpoint
		parent := ""
		if tp.ParentConfig != nil {
			parent = tp.ParentConfig.CheckpointID
		}
		fmt.Fprintf(out, "checkpoint %s parent %s %s step %d parents %v\n", cp.ID, parent, tp.Metadata.Source, tp.Metadata.Step, sortedMap(tp.Metadata.Parents))
		fmt.Fprintf(out, "  versions %v\n", sortedMap(cp.ChannelVersions))
		for _, node := range sortedKeysOf(cp.VersionsSeen) {
			fmt.Fprintf(out, "  seen %s %v\n", node, sortedMap(cp.VersionsSeen[node]))
		}
		fmt.Fprintf(out, "  updated %q prefix %v\n", cp.UpdatedChannels, sortedMap(cp.ListPrefix))
		for _, ch := range sortedKeysOf(cp.ChannelValues) {
			fmt.Fprintf(out, "  value %s = %s\n", ch, describe(cp.ChannelValues[ch]))
		}
		// the tasks of a superstep put their writes as they finish: by
		// task, each task's in its order
		writes := slices.Clone(tp.PendingWrites)
		slices.SortStableFunc(writes, func(a, b engine.PendingWrite) int { return strings.Compare(a.TaskID, b.TaskID) })
		for _, w := range writes {
			fmt.Fprintf(out, "  write %s %s = %s\n", w.TaskID, w.Channel, describe(w.Value))
		}
	}
	return nil
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sortedMap renders a map with sorted keys; nil and empty maps apart.
func sortedMap[V any](m map[string]V) string {
	if m == nil {
		return "nil"
	}
	var b strings.Builder
	b.WriteString("{")
	for i, k := range sortedKeysOf(m) {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s:%v", k, m[k])
	}
	b.WriteString("}")
	return b.String()
}

// describe renders a stored value: messages with their types and IDs,
// other values as JSON where they have one.
func describe(v any) string {
	if l, ok := v.(engine.MessageList); ok {
		v = l.Slice()
	}
	switch t := v.(type) {
	case []engine.Message:
		parts := make([]string, len(t))
		for i, m := range t {
			parts[i] = fmt.Sprintf("%s[%s]%q", m.Type, m.ID, m.Content.String())
			for _, c := range m.ToolCalls {
				parts[i] += fmt.Sprintf(" call %s %s", c.Name, c.ID)
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []engine.InterruptValue:
		parts := make([]string, len(t))
		for i, in := range t {
			parts[i] = fmt.Sprintf("%v(%s)", in.Value, in.ID)
		}
		return "interrupts[" + strings.Join(parts, ", ") + "]"
	}
	if b, err := engine.MarshalValue(engine.ValueForJSON(v)); err == nil {
		return string(b)
	}
	return fmt.Sprintf("%T %v", v, v)
}
