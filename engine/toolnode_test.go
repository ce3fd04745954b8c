package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
	"github.com/google/go-cmp/cmp"
)

func cityTool(name string, fn engine.ToolFunc) engine.Tool {
	return engine.NewTool(engine.ToolDef{
		Name:        name,
		Description: "a test tool",
		Parameters: engine.NewObject("type", "object",
			"properties", engine.NewObject("i", engine.NewObject("type", "integer")),
			"required", []any{"i"}),
	}, fn)
}

func callsOf(name string, n int) []engine.ToolCall {
	calls := make([]engine.ToolCall, n)
	for i := range calls {
		calls[i] = engine.ToolCall{Name: name, Args: engine.NewObject("i", i), ID: fmt.Sprintf("call_%d", i)}
	}
	return calls
}

func toolMessages(t *testing.T, out any) []engine.Message {
	t.Helper()
	s, ok := out.(engine.State)
	if !ok {
		t.Fatalf("ToolNode.Invoke returned %T, want engine.State", out)
	}
	return s.Messages("messages")
}

func argI(inv engine.ToolInvocation) int {
	v, _ := inv.Args().Get("i")
	var n int
	fmt.Sscan(fmt.Sprint(v), &n)
	return n
}

// TestToolNodeRunsCallsInParallel: 64 calls that each wait until all 64
// have started can only finish if they really run at the same time.
func TestToolNodeRunsCallsInParallel(t *testing.T) {
	const n = 64
	var started atomic.Int32
	release := make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // safety net against a deadlock, never reached when correct
	defer cancel()
	barrier := cityTool("barrier", func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
		if started.Add(1) == n {
			close(release)
		}
		select {
		case <-release:
			return fmt.Sprintf("done %d", argI(inv)), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	tn, err := engine.NewToolNode([]engine.Tool{barrier}, engine.ToolNodeOptions{HandleToolErrors: engine.ToolErrors{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tn.Invoke(ctx, []engine.ToolCall{}) // empty batch is fine
	if err != nil {
		t.Fatalf("empty batch: %v", err)
	}
	if got := toolMessages(t, out); len(got) != 0 {
		t.Fatalf("empty batch gave %d messages", len(got))
	}
	msgs := engine.State{"messages": []engine.Message{engine.AIMessage("", callsOf("barrier", n)...)}}
	out, err = tn.Invoke(ctx, msgs)
	if err != nil {
		t.Fatalf("Invoke: %v (the calls did not all run at once)", err)
	}
	got := toolMessages(t, out)
	if len(got) != n {
		t.Fatalf("got %d tool messages, want %d", len(got), n)
	}
	for i, m := range got {
		if m.ToolCallID != fmt.Sprintf("call_%d", i) || m.Text() != fmt.Sprintf("done %d", i) {
			t.Errorf("message %d = %s %q, want call_%d %q", i, m.ToolCallID, m.Text(), i, fmt.Sprintf("done %d", i))
		}
	}
}

// TestToolNodeKeepsAnswersMadeAtOnce: calls that all answer with a
// Command (or fail) at the same moment, released together from a
// barrier, each keep theirs in call order. The slots for commands and
// errors are made by the first call that needs them, while the others
// may be making them too: a call whose slots were not the ones the batch
// kept loses its answer, which then reads as a plain tool message (or as
// no error). (Slots stored without a compare-and-swap fail it in some
// runs.)
func TestToolNodeKeepsAnswersMadeAtOnce(t *testing.T) {
	const n = 64
	// rounds: the calls meet in the making of the slots in some of them
	for round := range 40 {
		fail := round%4 == 3
		var started atomic.Int32
		release := make(chan struct{})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // safety net against a deadlock, never reached when correct
		barrier := cityTool("barrier", func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
			if started.Add(1) == n {
				close(release)
			}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			i := argI(inv)
			if fail {
				if i < n-1 {
					return "ok", nil
				}
				return nil, fmt.Errorf("call %d failed", i)
			}
			return &engine.Command{Update: engine.State{"n": i, "messages": []engine.Message{
				engine.ToolMessage(engine.Text("ok"), "barrier", inv.Call.ID)}}}, nil
		})
		tn, err := engine.NewToolNode([]engine.Tool{barrier}, engine.ToolNodeOptions{HandleToolErrors: engine.ToolErrors{Disabled: true}})
		if err != nil {
			t.Fatal(err)
		}
		out, err := tn.Invoke(ctx, engine.State{"messages": []engine.Message{engine.AIMessage("", callsOf("barrier", n)...)}})
		cancel()
		if fail {
			if err == nil || err.Error() != fmt.Sprintf("call %d failed", n-1) {
				t.Fatalf("the one failing call gave error %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got, ok := out.([]any)
		if !ok || len(got) != n {
			t.Fatalf("got %T of %d, want %d commands", out, len(got), n)
		}
		for i, x := range got {
			if c, ok := x.(*engine.Command); !ok || c.Update["n"] != i {
				t.Errorf("answer %d = %#v, want its command", i, x)
			}
		}
	}
}

// TestToolNodeOrderUnderReverseCompletion: each call finishes only after
// the next one did, so they finish last to first; the messages still come
// in call order.
func TestToolNodeOrderUnderReverseCompletion(t *testing.T) {
	const n = 16
	done := make([]chan struct{}, n+1)
	for i := range done {
		done[i] = make(chan struct{})
	}
	close(done[n])
	var mu sync.Mutex
	var finished []int
	chain := cityTool("chain", func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
		i := argI(inv)
		select {
		case <-done[i+1]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		mu.Lock()
		finished = append(finished, i)
		mu.Unlock()
		close(done[i])
		return fmt.Sprint(i), nil
	})
	tn, err := engine.NewToolNode([]engine.Tool{chain}, engine.ToolNodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := tn.Invoke(ctx, callsOf("chain", n))
	if err != nil {
		t.Fatal(err)
	}
	for i := range finished {
		if finished[i] != n-1-i {
			t.Fatalf("finish order %v is not reverse call order", finished)
		}
	}
	var ids []string
	for _, m := range toolMessages(t, out) {
		ids = append(ids, m.ToolCallID)
	}
	var want []string
	for i := 0; i < n; i++ {
		want = append(want, fmt.Sprintf("call_%d", i))
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("tool message order mismatch (-want +got):\n%s", diff)
	}
}

// TestToolNodeMaxConcurrency: with a cap of 3, exactly 3 of 10 calls run
// at once; each release lets one more start.
func TestToolNodeMaxConcurrency(t *testing.T) {
	const n, limit = 10, 3
	var running, peak atomic.Int32
	started := make(chan struct{}, n)
	gate := make(chan struct{})
	tool := cityTool("t", func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
		r := running.Add(1)
		for {
			p := peak.Load()
			if r <= p || peak.CompareAndSwap(p, r) {
				break
			}
		}
		started <- struct{}{}
		<-gate
		running.Add(-1)
		return "ok", nil
	})
	tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{MaxConcurrency: limit})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		seen := 0
		for ; seen < limit; seen++ {
			<-started
		}
		for released := 0; released < n; released++ {
			gate <- struct{}{}
			if seen < n {
				<-started
				seen++
			}
		}
	}()
	if _, err := tn.Invoke(context.Background(), callsOf("t", n)); err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p != limit {
		t.Errorf("peak concurrency %d, want %d", p, limit)
	}
}

// TestToolNodeHandlerPanicIsNotTheTools: in a batch of calls, a panic
// of the node's error handler, which runs after the tool returned its
// error, is not the tool's: it is not made into a tool message (which
// would call the handler again) but goes on to the caller, as an
// exception raised by handle_tool_errors's callable leaves ToolNode. The
// calls run on the caller's goroutine (MaxConcurrency 1), so the panic
// reaches the test. (A batch that took every panic during a call for the
// tool's calls the handler twice.)
func TestToolNodeHandlerPanicIsNotTheTools(t *testing.T) {
	var handled atomic.Int32
	handle := func(error) (string, bool) {
		handled.Add(1)
		panic("handler bug")
	}
	tool := cityTool("t", func(context.Context, engine.ToolInvocation) (any, error) {
		return nil, engine.NewError("ValueError", "bad")
	})
	tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{MaxConcurrency: 1, HandleToolErrors: engine.ToolErrors{Handle: handle}})
	if err != nil {
		t.Fatal(err)
	}
	var p any
	func() {
		defer func() { p = recover() }()
		_, _ = tn.Invoke(context.Background(), callsOf("t", 2))
	}()
	if p != "handler bug" {
		t.Errorf("Invoke panicked with %v, want the handler's panic", p)
	}
	if got := handled.Load(); got != 1 {
		t.Errorf("the handler ran %d times, want once (the first call's error; its panic ends the batch)", got)
	}
}

func TestToolNodeBadInput(t *testing.T) {
	ok := cityTool("ok", func(context.Context, engine.ToolInvocation) (any, error) { return "fine", nil })
	tests := []struct {
		reason string
		tools  []engine.Tool
		want   string
	}{
		{"two tools with one name are ambiguous", []engine.Tool{ok, ok}, `duplicate tool name "ok"`},
		{"a nil tool cannot be called", []engine.Tool{nil}, "tool 0 is nil"},
		{"a nameless tool cannot be called", []engine.Tool{engine.NewTool(engine.ToolDef{}, nil)}, "tool 0 has no name"},
		{"a bad schema is caught at build time", []engine.Tool{engine.NewTool(engine.ToolDef{Name: "x", Parameters: engine.NewObject("type", 5)}, nil)}, `tool "x": parameters`},
	}
	for _, tc := range tests {
		_, err := engine.NewToolNode(tc.tools, engine.ToolNodeOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: NewToolNode error = %v, want it to contain %q", tc.reason, err, tc.want)
		}
	}
}

func TestToolNodeErrorHandling(t *testing.T) {
	boom := cityTool("boom", func(context.Context, engine.ToolInvocation) (any, error) {
		return nil, engine.NewError("ValueError", "boom: bad input")
	})
	panics := cityTool("panics", func(context.Context, engine.ToolInvocation) (any, error) { panic("kaboom") })
	timeout := cityTool("slow", func(context.Context, engine.ToolInvocation) (any, error) {
		return nil, engine.NewError("TimeoutError", "too slow")
	})
	call := func(name string) []engine.ToolCall {
		return []engine.ToolCall{{Name: name, Args: engine.NewObject("i", 1), ID: "c1"}}
	}
	tests := []struct {
		reason  string
		opts    engine.ToolErrors
		tool    string
		want    string // tool message text, or error text when wantErr
		wantErr bool
	}{
		{"default handling shows the repr", engine.ToolErrors{}, "boom", "Error: ValueError('boom: bad input')\n Please fix your mistakes.", false},
		{"a fixed message replaces the text", engine.ToolErrors{Message: "Tool failed."}, "boom", "Tool failed.", false},
		{"disabled handling fails the run", engine.ToolErrors{Disabled: true}, "boom", "boom: bad input", true},
		{"a handler decides the text", engine.ToolErrors{Handle: func(err error) (string, bool) { return "handled: " + engine.ErrorMessage(err), true }}, "boom", "handled: boom: bad input", false},
		{"kinds limit what is handled", engine.ToolErrors{Kinds: []string{"TypeError"}}, "boom", "boom: bad input", true},
		{"kinds match subclasses", engine.ToolErrors{Kinds: []string{"OSError"}}, "slow", "Error: TimeoutError('too slow')\n Please fix your mistakes.", false},
		{"a panicking tool becomes an error message", engine.ToolErrors{}, "panics", "Error: Exception('tool \"panics\" panicked: kaboom", false},
	}
	for _, tc := range tests {
		tn, err := engine.NewToolNode([]engine.Tool{boom, panics, timeout}, engine.ToolNodeOptions{HandleToolErrors: tc.opts})
		if err != nil {
			t.Fatal(err)
		}
		out, err := tn.Invoke(context.Background(), call(tc.tool))
		if tc.wantErr {
			if err == nil || engine.ErrorMessage(err) != tc.want {
				t.Errorf("%s: error = %v, want %q", tc.reason, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: unexpected error %v", tc.reason, err)
			continue
		}
		msgs := toolMessages(t, out)
		if len(msgs) != 1 || !strings.HasPrefix(msgs[0].Text(), tc.want) || msgs[0].Status != engine.StatusError {
			t.Errorf("%s: got %+v, want an error message starting %q", tc.reason, msgs, tc.want)
		}
	}
}

func TestCreateReactAgentBadConfig(t *testing.T) {
	model := llm.NewScripted("m", llm.Script{})
	tool := cityTool("t", func(context.Context, engine.ToolInvocation) (any, error) { return "x", nil })
	noop := func(context.Context, engine.State) (any, error) { return nil, nil }
	tests := []struct {
		reason string
		cfg    engine.ReactAgentConfig
		want   string
	}{
		{"a nil model cannot answer", engine.ReactAgentConfig{}, "a model is required"},
		{"an unknown node cannot be interrupted", engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{tool}, InterruptBefore: []string{"nope"}}, `interrupt node "nope" not found`},
		{"duplicate tools are ambiguous", engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{tool, tool}}, `duplicate tool name "t"`},
		{"v1 with a post hook crashes in LangGraph", engine.ReactAgentConfig{Model: model, Version: "v1", PostModelHook: noop}, `post_model_hook needs version "v2"`},
		{"unknown versions are refused", engine.ReactAgentConfig{Model: model, Version: "v3"}, "Invalid version v3"},
		{"a structured response needs a titled schema", engine.ReactAgentConfig{Model: model, ResponseFormat: &engine.ResponseFormat{Schema: engine.NewObject("type", "object")}}, `needs a "title"`},
	}
	for _, tc := range tests {
		_, err := engine.CreateReactAgent(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CreateReactAgent error = %v, want it to contain %q", tc.reason, err, tc.want)
		}
	}
}

// TestAgentIgnoresInvalidToolCalls: a provider's malformed tool call lands
// in invalid_tool_calls; the agent does not run it and ends.
func TestAgentIgnoresInvalidToolCalls(t *testing.T) {
	bad := engine.AIMessage("")
	bad.ID = "ai1"
	bad.InvalidToolCalls = []engine.InvalidToolCall{{Name: "t", Args: `{"i": `, ID: "c1", Error: "unexpected end of JSON input"}}
	model := llm.NewScripted("m", llm.Script{Responses: []llm.Response{{Message: bad}}})
	tool := cityTool("t", func(context.Context, engine.ToolInvocation) (any, error) { return "x", nil })
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{tool}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := agent.Invoke(context.Background(), engine.State{"messages": []any{"go"}}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := res.Values.Messages("messages")
	if len(msgs) != 2 || len(msgs[1].InvalidToolCalls) != 1 {
		t.Fatalf("got %+v, want the human message and the AI message with its invalid call", msgs)
	}
}

func TestScriptExhaustionIsAnError(t *testing.T) {
	model := llm.NewScripted("m", llm.Script{Responses: []llm.Response{{Message: engine.AIMessage("", engine.ToolCall{Name: "t", Args: engine.NewObject("i", 1), ID: "c1"})}}})
	tool := cityTool("t", func(context.Context, engine.ToolInvocation) (any, error) { return "x", nil })
	agent, err := engine.CreateReactAgent(engine.ReactAgentConfig{Model: model, Tools: []engine.Tool{tool}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = agent.Invoke(context.Background(), engine.State{"messages": []any{"go"}}, engine.Config{})
	var ne *engine.NodeError
	if !errors.As(err, &ne) || ne.Node != "agent" || !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("error = %v, want the agent node failing with an exhausted script", err)
	}
}

// TestToolNodeMessageIDsInPlaceOrCopied: the tool messages of
// ToolNode.Node() in a graph get the same IDs whether the run gives them
// in the node's own list (no updates streamed) or in a copy (updates
// streamed); in a superstep of several tasks the update chunk shows them
// as the node wrote them, without IDs, and the list the node returned is
// not changed behind the chunk.
func TestToolNodeMessageIDsInPlaceOrCopied(t *testing.T) {
	tool := cityTool("t", func(_ context.Context, inv engine.ToolInvocation) (any, error) { return "ok", nil })
	tn, err := engine.NewToolNode([]engine.Tool{tool}, engine.ToolNodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := engine.NewStateGraph(engine.MessagesField("messages"))
	g.AddNode("tools", tn.Node())
	g.AddNode("other", func(context.Context, engine.State) (any, error) {
		return engine.State{"messages": []engine.Message{engine.HumanMessage("meanwhile")}}, nil
	})
	g.AddEdge(engine.Start, "tools").AddEdge(engine.Start, "other")
	graph := mustCompile(t, g, engine.CompileOptions{})
	input := engine.State{"messages": []engine.Message{{Type: engine.TypeAI, ID: "ai", ToolCalls: callsOf("t", 3)}}}
	ctx := context.Background()

	res, err := graph.Invoke(ctx, input, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(msgs []engine.Message) []string {
		var out []string
		for _, m := range msgs {
			out = append(out, string(m.Type)+":"+m.ID)
		}
		return out
	}
	invoked := ids(res.Values.Messages("messages"))

	var streamed []string
	var chunkIDs []string
	for part, err := range graph.Stream(ctx, input, engine.Config{}, engine.StreamUpdates, engine.StreamValues) {
		if err != nil {
			t.Fatal(err)
		}
		switch d := part.Data.(type) {
		case engine.State:
			streamed = ids(d.Messages("messages"))
		case map[string]any:
			if s, ok := d["tools"].(engine.State); ok {
				chunkIDs = ids(s.Messages("messages"))
			}
		}
	}
	if diff := cmp.Diff(invoked, streamed); diff != "" {
		t.Errorf("IDs of Invoke (in place) and Stream with updates (copied) differ (-invoke +stream):\n%s", diff)
	}
	for _, id := range invoked[1:] {
		if strings.HasSuffix(id, ":") {
			t.Errorf("message without an ID in the final state: %v", invoked)
		}
	}
	if want := []string{"tool:", "tool:", "tool:"}; !cmp.Equal(want, chunkIDs) {
		t.Errorf("tools update chunk = %v, want the messages as the node wrote them %v", chunkIDs, want)
	}
}
