package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
)

// storeTool puts {"value": "blue"} under ("memories", "color") in the
// injected store and answers with the name of the store it used.
func storeTool(names map[engine.Store]string) engine.Tool {
	return engine.NewTool(engine.ToolDef{Name: "remember", Description: "Store a fact.",
		Parameters: engine.NewObject("type", "object", "properties", &engine.Object{}),
		Inject:     []engine.Injection{{Arg: "store", Kind: engine.InjectStore}}},
		func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
			s := inv.Injected["store"].(engine.Store)
			if err := s.Put(ctx, []string{"memories"}, "color", engine.NewObject("value", "blue")); err != nil {
				return nil, err
			}
			if rt := inv.Runtime; rt == nil || rt.Store != s {
				return nil, engine.NewError("ValueError", "the runtime holds another store than the injected one")
			}
			return "stored in " + names[s], nil
		})
}

// TestStoreAtInvoke follows the store LangGraph takes at invocation: the
// runtime's store in the run's config wins over the store the graph was
// compiled with (Pregel._defaults in pregel/main.py), tools get it
// injected, and a run given none uses the compiled one, or fails with
// _inject_store's ValueError when there is none either.
func TestStoreAtInvoke(t *testing.T) {
	t.Parallel()
	compiled := checkpoint.NewMemoryStore(engine.SystemClock{})
	given := checkpoint.NewMemoryStore(engine.SystemClock{})
	names := map[engine.Store]string{compiled: "compiled", given: "given"}
	const missing = "Cannot inject store into tools with InjectedStore annotations - please compile your graph with a store."
	cases := []struct {
		name, reason  string
		compiled, run engine.Store
		version       string
		want, wantErr string
	}{
		{name: "given only", reason: "a graph compiled without a store uses the one the run is given", run: given, want: "stored in given"},
		{name: "given only v1", reason: "v1 injects in the tools task as v2 does", run: given, version: "v1", want: "stored in given"},
		{name: "given wins", reason: "the run's store replaces the compiled one", compiled: compiled, run: given, want: "stored in given"},
		{name: "compiled", reason: "a run given no store uses the compiled one", compiled: compiled, want: "stored in compiled"},
		{name: "none", reason: "no store at all is _inject_store's ValueError", wantErr: missing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: callingModel("remember", &engine.Object{}),
				Tools: []engine.Tool{storeTool(names)}, Store: c.compiled, Version: c.version})
			if err != nil {
				t.Fatal(err)
			}
			res, err := g.Invoke(context.Background(), engine.State{"messages": []engine.Message{engine.HumanMessage("remember")}}, engine.Config{Store: c.run})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || engine.ErrorKind(err) != "ValueError" {
					t.Fatalf("Invoke error = %v (kind %q), want ValueError %q (%s)", err, engine.ErrorKind(err), c.wantErr, c.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Invoke: %v (%s)", err, c.reason)
			}
			if got := lastToolMessage(t, res).Text(); got != c.want {
				t.Errorf("tool message = %q, want %q (%s)", got, c.want, c.reason)
			}
		})
	}
}

// TestSubgraphUsesParentRunStore: a subgraph reads its store from its
// parent's runtime (Pregel._defaults with CONFIG_KEY_RUNTIME set by the
// parent), so the store given to the parent's run reaches a tool inside
// an agent used as a node, even one compiled with a store of its own.
func TestSubgraphUsesParentRunStore(t *testing.T) {
	t.Parallel()
	own := checkpoint.NewMemoryStore(engine.SystemClock{})
	given := checkpoint.NewMemoryStore(engine.SystemClock{})
	names := map[engine.Store]string{own: "own", given: "given"}
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: callingModel("remember", &engine.Object{}),
		Tools: []engine.Tool{storeTool(names)}, Store: own, Name: "helper"})
	if err != nil {
		t.Fatal(err)
	}
	g := engine.NewStateGraph(engine.MessagesField("messages"))
	g.AddSubgraph("helper", agent)
	g.AddEdge(engine.Start, "helper")
	parent := mustCompile(t, g, engine.CompileOptions{})
	res, err := parent.Invoke(context.Background(), engine.State{"messages": []engine.Message{engine.HumanMessage("remember")}}, engine.Config{Store: given})
	if err != nil {
		t.Fatal(err)
	}
	if got := lastToolMessage(t, res).Text(); got != "stored in given" {
		t.Errorf("tool message = %q, want the parent run's store", got)
	}
	item, err := own.Get(context.Background(), []string{"memories"}, "color")
	if err != nil || item != nil {
		t.Errorf("the subgraph's own store holds %v (err %v), want nothing", item, err)
	}
}
