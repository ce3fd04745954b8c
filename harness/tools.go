package harness

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync/atomic"

	"github.com/agenteval/agenteval/emulator"
	"github.com/agenteval/agenteval/engine"
)

// scriptedTool is a tool answered from its results, with the place of its
// spec for errors.
type scriptedTool struct {
	index int
	spec  *Tool
	*emulator.Scripted
}

// toolFunc returns the function behind a scenario tool that the harness
// answers itself: scripted results or a schema-shaped value. A
// model-emulated tool gets a function that is never reached (the
// emulator's wrapper answers its calls first).
func (st *setup) toolFunc(i int, spec *Tool) (engine.ToolFunc, error) {
	switch {
	case spec.Emulate != nil && spec.Emulate.Output != nil:
		schema, ok := spec.Emulate.Output.(*engine.Object)
		if !ok {
			return nil, fmt.Errorf("tools[%d] (%s): emulate.output: expected a JSON Schema mapping", i, spec.Name)
		}
		seed := uint64(spec.Emulate.Seed)
		name := spec.Name
		return func(_ context.Context, inv engine.ToolInvocation) (any, error) {
			args, err := engine.PyJSON(argsValue(inv.Args()))
			if err != nil {
				return nil, err
			}
			v, err := emulator.Value(schema, seed^hash64(name+"\x00"+args))
			if err != nil {
				return nil, fmt.Errorf("emulate %s: %w", name, err)
			}
			return v, nil
		}, nil
	case spec.Emulate != nil:
		name := spec.Name
		return func(context.Context, engine.ToolInvocation) (any, error) {
			return nil, fmt.Errorf("tool %q is emulated by a model, but its call reached the tool", name)
		}, nil
	}
	sc, err := emulator.NewScripted(spec.Name, spec.Results)
	if err != nil {
		return nil, fmt.Errorf("tools[%d] (%s): results: %w", i, spec.Name, err)
	}
	st.tools = append(st.tools, &scriptedTool{index: i, spec: spec, Scripted: sc})
	return sc.Call, nil
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func argsValue(args *engine.Object) *engine.Object {
	if args == nil {
		return engine.NewObject()
	}
	return args
}

// withLatency delays every call of a tool by a latency drawn from the
// tool's distribution, on the run's clock. The draw depends on the
// scenario's seed, the tool and the call's arguments, not on the order in
// which parallel calls arrive.
func withLatency(fn engine.ToolFunc, name string, l emulator.Latency, seed uint64) engine.ToolFunc {
	return func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
		args, err := engine.PyJSON(argsValue(inv.Args()))
		if err != nil {
			return nil, err
		}
		if err := l.Sleep(ctx, emulator.NewRand(seed, name+"\x00"+args)); err != nil {
			return nil, err
		}
		return fn(ctx, inv)
	}
}

// countingTool counts the runs of a tool's function.
type countingTool struct {
	engine.Tool
	runs *atomic.Int64
}

// Invoke implements engine.Tool.
func (c countingTool) Invoke(ctx context.Context, inv engine.ToolInvocation) (any, error) {
	c.runs.Add(1)
	return c.Tool.Invoke(ctx, inv)
}
