package engine_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/checkpoint"
	"github.com/agenteval/agenteval/engine/llm"
	"pgregory.net/rapid"
)

// completionScheduler permutes the order in which the tool calls of one
// tools step complete: it holds each call until every call that can run
// at once has arrived, then lets them run and return one at a time, in an
// order drawn from its seed and the step. The engine must merge their
// results in call order whatever order they complete in.
//
// A round is min(max_concurrency, calls left) calls; the calls that will
// reach a tool are those of the AI message's calls whose tool exists and
// whose arguments validate (the ToolNode answers the others itself).
type completionScheduler struct {
	seed    uint64
	maxConc int
	schemas map[string]*engine.Schema

	mu        sync.Mutex
	step      string // the AI message and superstep of the current round
	remaining int
	waiting   []*heldCall
	round     int
	// completed lists the calls' IDs in the order they returned.
	completed []string
}

type heldCall struct {
	id, key string
	release chan struct{}
	done    chan struct{}
}

// schedulerTimeout fails a call that waits too long: a deadlock in the
// scheduler, not a slow machine.
const schedulerTimeout = 20 * time.Second

func newCompletionScheduler(seed uint64, maxConc int, tools []engine.Tool) *completionScheduler {
	s := &completionScheduler{seed: seed, maxConc: maxConc, schemas: map[string]*engine.Schema{}}
	for _, t := range tools {
		def := t.Definition()
		if sch, err := engine.CompileSchema(def.Name, def.Parameters); err == nil {
			s.schemas[def.Name] = sch
		}
	}
	return s
}

// runnable counts the calls of the state's last AI message that reach a
// tool.
func (s *completionScheduler) runnable(st engine.State) (string, int) {
	msgs := st.Messages("messages")
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Type != engine.TypeAI {
			continue
		}
		n := 0
		for _, c := range m.ToolCalls {
			sch, ok := s.schemas[c.Name]
			if !ok {
				continue
			}
			var args any = engine.NewObject()
			if c.Args != nil {
				args = c.Args
			}
			if _, err := sch.Validate(args); err == nil {
				n++
			}
		}
		return m.ID, n
	}
	return "", 0
}

// hold blocks the call until its turn; done must be called when the tool
// has returned.
func (s *completionScheduler) hold(inv engine.ToolInvocation) (done func(), err error) {
	st, _ := inv.Injected["state"].(engine.State)
	msgID, n := s.runnable(st)
	step := fmt.Sprintf("%s@%d", msgID, inv.Runtime.Step)
	h := &heldCall{id: inv.Call.ID, key: inv.Call.ID + "\x00" + engine.PyRepr(inv.Call.Args), release: make(chan struct{}), done: make(chan struct{})}
	s.mu.Lock()
	if step != s.step {
		s.step, s.remaining, s.waiting, s.round = step, n, nil, 0
	}
	s.waiting = append(s.waiting, h)
	size := s.remaining
	if s.maxConc > 0 && s.maxConc < size {
		size = s.maxConc
	}
	if len(s.waiting) >= size {
		round := s.waiting
		s.waiting, s.remaining = nil, s.remaining-len(round)
		s.round++
		go s.releaseInOrder(s.order(step, s.round, round))
	}
	s.mu.Unlock()
	select {
	case <-h.release:
		return func() {
			s.mu.Lock()
			s.completed = append(s.completed, h.id)
			s.mu.Unlock()
			close(h.done)
		}, nil
	case <-time.After(schedulerTimeout):
		return nil, fmt.Errorf("completion scheduler: call %s of step %s never released", inv.Call.ID, step)
	}
}

// order draws the permutation of a round from the seed, the step and the
// round, over the calls sorted by ID and arguments (identical calls are
// interchangeable).
func (s *completionScheduler) order(step string, round int, calls []*heldCall) []*heldCall {
	out := slices.Clone(calls)
	slices.SortStableFunc(out, func(a, b *heldCall) int { return cmp.Compare(a.key, b.key) })
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", step, round)
	r := rand.New(rand.NewPCG(s.seed, h.Sum64()))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func (s *completionScheduler) releaseInOrder(order []*heldCall) {
	for _, h := range order {
		close(h.release)
		select {
		case <-h.done:
		case <-time.After(schedulerTimeout):
			return
		}
	}
}

// runScenarioScheduled runs sc from its input on a fresh Memory with the
// completions of its tool calls permuted by a scheduler seeded with seed.
func runScenarioScheduled(t *rapid.T, sc propScenario, maxConc int, seed uint64) *propRun {
	r := newPropRun(t, sc, sc.responses, checkpoint.NewMemory(), maxConc)
	r.sched = newCompletionScheduler(seed, maxConc, r.tools())
	r.invoke(t, engine.State{"messages": []any{"do the things"}}, "")
	return r
}

// TestCompletionSchedulerPermutes checks the scheduler itself: four
// parallel calls complete in different orders under different seeds, at
// any max_concurrency, and the state is the same every time.
func TestCompletionSchedulerPermutes(t *testing.T) {
	calls := []engine.ToolCall{
		{Name: "echo", Args: engine.NewObject("text", "a"), ID: "c1"},
		{Name: "echo", Args: engine.NewObject("text", "b"), ID: "c2"},
		{Name: "typed", Args: engine.NewObject("n", json.Number("3")), ID: "c3"},
		{Name: "echo", Args: engine.NewObject("text", "d"), ID: "c4"},
	}
	sc := propScenario{version: "v2", limit: 10, responses: []llm.Response{{Message: engine.AIMessage("", calls...)}}}
	for _, version := range []string{"v1", "v2"} {
		for _, maxConc := range []int{0, 2} {
			sc.version = version
			orders := map[string]bool{}
			var want string
			rapid.Check(t, func(rt *rapid.T) {
				seed := rapid.Uint64().Draw(rt, "seed")
				r := runScenarioScheduled(rt, sc, maxConc, seed)
				orders[strings.Join(r.sched.completed, ",")] = true
				got := stateJSON(rt, r.final)
				if want == "" {
					want = got
				} else if got != want {
					rt.Fatalf("%s, max_concurrency %d, seed %d: state differs: %s", version, maxConc, seed, firstDifference(want, got))
				}
			})
			if len(orders) < 2 {
				t.Errorf("%s, max_concurrency %d: completions came in one order only: %v", version, maxConc, orders)
			}
		}
	}
}
