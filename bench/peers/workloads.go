package peers

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Workloads returns W1 to W4 with their contenders and the ratios of
// interest.
func Workloads() []Workload {
	return []Workload{w1(), w2(), w3(), w4()}
}

// WorkloadNames lists the workloads in run order.
func WorkloadNames() []string { return []string{"W1", "W2", "W3", "W4"} }

func w1() Workload {
	const n = W1Calls
	return Workload{
		Name:  "W1",
		Title: fmt.Sprintf("one AI message with N=%d calls of a trivial tool taking one required integer", n),
		Unit:  "ns/call", Scale: 1,
		Contenders: []Contender{
			{"goroutines", "baseline", "N goroutines + WaitGroup, each writing \"ok\"", goroutines(n, 0)},
			{"agenteval/toolnode", "agenteval", "engine.ToolNode.Invoke (arguments validated against the schema)", aeToolNode(aeTrivialTool(), n)},
			{"agenteval/graph", "agenteval", "compiled StateGraph START → tools → END (add_messages state), Graph.Invoke", aeToolGraph(aeTrivialTool(), n)},
			{"eino/toolsnode", "eino", "compose.ToolsNode.Invoke (parallel; arguments decoded by utils.InferTool)", einoToolsNode(einoTrivialTool, n)},
			{"eino/chain", "eino", "compiled compose.Chain with the ToolsNode, Runnable.Invoke", einoChain(einoTrivialTool, n)},
			{"langchaingo/executor", "langchaingo", "agents.Executor + OpenAIFunctionsAgent: a model answer with N calls, the calls run one after another, then the final answer", langchainExecutor(Rule{K: n, Per: n}, n)},
		},
		Pairs: []Pair{
			{"agenteval/toolnode", "goroutines", "ToolNode alone vs goroutine per call"},
			{"agenteval/graph", "goroutines", ""},
			{"agenteval/toolnode", "eino/toolsnode", ""},
			{"agenteval/graph", "eino/chain", "in a graph vs eino's compiled chain"},
			{"agenteval/graph", "langchaingo/executor", ""},
		},
		Expect:   expectResults(n),
		ExpectOf: map[string][]string{"langchaingo/executor": expectSplit(n)},
		Note:     "langchaingo has no parallel tool node: its Executor runs one model answer's calls in a loop, so its figure includes two model calls and the prompt rebuilt from the steps; its transcript lists each call as its own AI message (the executor regroups steps by log line).",
	}
}

func w2() Workload {
	const n = W2Calls
	return Workload{
		Name:  "W2",
		Title: fmt.Sprintf("N=%d calls of a tool that waits %v", n, W2Wait),
		Unit:  "ms/invocation", Scale: 1e6, PerRun: true,
		Contenders: []Contender{
			{"goroutines", "baseline", "N goroutines + WaitGroup, each time.Sleep(10ms)", goroutines(n, W2Wait)},
			{"goroutines/wait", "baseline", "the same, each waiting as the tools do (a timer and a select on the context)", goroutinesWaiting(n, W2Wait)},
			{"agenteval/toolnode", "agenteval", "engine.ToolNode.Invoke; the tool waits on a timer and the context", aeToolNode(aeWaitTool(W2Wait), n)},
			{"agenteval/graph", "agenteval", "compiled StateGraph START → tools → END", aeToolGraph(aeWaitTool(W2Wait), n)},
			{"eino/toolsnode", "eino", "compose.ToolsNode.Invoke; same wait", einoToolsNode(func() (einoTool, error) { return einoWaitTool(W2Wait) }, n)},
			{"eino/chain", "eino", "compiled compose.Chain with the ToolsNode", einoChain(func() (einoTool, error) { return einoWaitTool(W2Wait) }, n)},
		},
		Pairs: []Pair{
			{"agenteval/toolnode", "goroutines", "alone vs goroutine per call"},
			{"agenteval/graph", "goroutines", "in the graph vs goroutine per call"},
			{"goroutines/wait", "goroutines", "the tools' wait vs time.Sleep, no engine"},
			{"agenteval/toolnode", "goroutines/wait", "alone vs goroutine per call, same wait"},
			{"agenteval/graph", "goroutines/wait", "in the graph vs goroutine per call, same wait"},
			{"agenteval/toolnode", "eino/toolsnode", ""},
			{"agenteval/graph", "eino/chain", ""},
		},
		Expect: expectResults(n),
		Note:   "langchaingo is left out: its Executor runs calls one after another (1,024 × 10 ms ≈ 10 s per invocation).",
	}
}

func w3() Workload {
	const k = W3Cycles
	rule := Rule{K: k, Per: 1}
	return Workload{
		Name:  "W3",
		Title: fmt.Sprintf("ReAct agent, K=%d cycles of model → one tool call → model, stateless scripted model", k),
		Unit:  "us/cycle", Scale: 1e3,
		Contenders: []Contender{
			{"agenteval/react", "agenteval", "engine.CreateReactAgent, no checkpointer, Graph.Invoke", aeReact("none", k)},
			{"agenteval/react+memory", "agenteval", "the same with checkpoint.NewMemory(), a new thread per run (a checkpoint per superstep)", aeReact("memory", k)},
			{"agenteval/react+discard", "agenteval", "the same with a SnapshotSaver that keeps nothing: the engine's checkpointing without a saver's work", aeReact("discard", k)},
			{"eino/react", "eino", "flow/agent/react.NewAgent, Agent.Generate", einoReact(k, false)},
			{"eino/react+store", "eino", "the react agent's graph compiled with compose.WithCheckPointStore (in memory), a new checkpoint ID per run", einoReact(k, true)},
			{"langchaingo/executor", "langchaingo", "agents.Executor + OpenAIFunctionsAgent (native tool calls), chains.Call", langchainExecutor(rule, k)},
		},
		Pairs: []Pair{
			{"agenteval/react", "eino/react", "no checkpointer vs eino's react agent"},
			{"agenteval/react+memory", "eino/react+store", "Memory checkpointer vs eino with its checkpoint store"},
			{"agenteval/react+memory", "eino/react", ""},
			{"agenteval/react+discard", "eino/react", "the engine's checkpointing alone vs eino's react agent"},
			{"agenteval/react", "langchaingo/executor", ""},
		},
		Expect: expectAgent(rule),
		Note:   "eino's CheckPointStore is written only when a run is interrupted (compose/graph_run.go): a run that completes reads its checkpoint ID (a miss) and stores nothing, so eino/react+store persists nothing per step while agenteval/react+memory stores a checkpoint and the task writes of every superstep.",
	}
}

func w4() Workload {
	var cs []Contender
	var pairs []Pair
	kinds := [][2]string{{"none", "input"}, {"memory", "newest"}, {"memory", "fork"}, {"sqlite", "newest"}, {"sqlite", "fork"}}
	name := func(kind, from string, m int) string {
		if kind == "none" {
			return "agenteval/input@" + strconv.Itoa(m)
		}
		return "agenteval/" + kind + "-" + from + "@" + strconv.Itoa(m)
	}
	lengths := W4Lengths()
	lo, hi := lengths[0], lengths[len(lengths)-1]
	for _, kf := range kinds {
		for _, m := range lengths {
			what := fmt.Sprintf("one turn on a thread of %d messages: ", m)
			if kf[0] == "none" {
				what += "the thread and the question are the input, no checkpointer"
			} else {
				what += fmt.Sprintf("checkpoint %s, from=%s", kf[0], kf[1])
			}
			cs = append(cs, Contender{name(kf[0], kf[1], m), "agenteval", what, aeThread(kf[0], kf[1], m)})
		}
		pairs = append(pairs, Pair{name(kf[0], kf[1], hi), name(kf[0], kf[1], lo), "growth ≤ 2×"})
	}
	for _, m := range lengths {
		cs = append(cs, Contender{"eino/input@" + strconv.Itoa(m), "eino", fmt.Sprintf("react agent turn whose input is the thread of %d messages and the question", m), einoThread(m)})
	}
	pairs = append(pairs, Pair{"eino/input@" + strconv.Itoa(hi), "eino/input@" + strconv.Itoa(lo), "growth"})
	for _, m := range lengths {
		for _, kf := range kinds {
			pairs = append(pairs, Pair{name(kf[0], kf[1], m), "eino/input@" + strconv.Itoa(m), ""})
		}
	}
	return Workload{
		Name:  "W4",
		Title: fmt.Sprintf("one turn (question → tool call → result → answer) on a thread of %s messages", joinInts(lengths)),
		Unit:  "us/turn", Scale: 1e3,
		Contenders: cs,
		Pairs:      pairs,
		Expect:     []string{humanLine(Question), callLine("t", CallID(0), ArgsJSON(0)), resultLine(CallID(0), "ok"), aiLine(FinalAnswer)},
		Note:       "An agenteval turn is 4 supersteps (bench's us_per_step is a quarter of us/turn). With a checkpointer the thread is prefilled again every 16 turns off the clock (from=newest holds M to M+64 messages); eino keeps no thread between runs, so its turn takes the thread as input, like agenteval/input.",
	}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, " and ")
}

// setupChecked builds a contender's op and checks its transcript against
// want.
func setupChecked(ctx context.Context, c Contender, dir string, want []string) (*Op, error) {
	op, err := c.Setup(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: set up: %w", c.Name, err)
	}
	got, err := op.Transcript(ctx)
	if err == nil {
		err = diffLines(want, got)
	}
	if err != nil {
		if op.Close != nil {
			op.Close()
		}
		return nil, fmt.Errorf("%s: check: %w", c.Name, err)
	}
	if op.Reset != nil {
		if err := op.Reset(ctx); err != nil {
			return nil, fmt.Errorf("%s: reset: %w", c.Name, err)
		}
	}
	return op, nil
}

// diffLines reports the first difference between two transcripts.
func diffLines(want, got []string) error {
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Errorf("transcript line %d: got %q, want %q (%d lines, want %d)", i+1, g, w, len(got), len(want))
		}
	}
	return nil
}
