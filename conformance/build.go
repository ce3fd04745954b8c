package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/llm"
)

func get(o *engine.Object, k string) any {
	v, _ := o.Get(k)
	return v
}

func getStr(o *engine.Object, k string) string {
	s, _ := get(o, k).(string)
	return s
}

func getObj(o *engine.Object, k string) *engine.Object {
	x, _ := get(o, k).(*engine.Object)
	return x
}

func getInt(o *engine.Object, k string) (int, bool) {
	n, ok := get(o, k).(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return int(i), err == nil
}

// buildModels reads "model" and "models" into scripted models.
func buildModels(v *Vector) (map[string]*llm.Scripted, []string, error) {
	models := map[string]*llm.Scripted{}
	var order []string
	add := func(name string, raw any) error {
		data, err := engine.MarshalValue(raw)
		if err != nil {
			return err
		}
		script, err := llm.ParseScript(data)
		if err != nil {
			return fmt.Errorf("model %q: %w", name, err)
		}
		models[name] = llm.NewScripted(name, script)
		order = append(order, name)
		return nil
	}
	if v.Model != nil {
		if err := add("model", v.Model); err != nil {
			return nil, nil, err
		}
	}
	if v.Models != nil {
		for _, k := range v.Models.Keys() {
			if err := add(k, get(v.Models, k)); err != nil {
				return nil, nil, err
			}
		}
	}
	return models, order, nil
}

// buildTools turns the vector's tool specs into engine tools with their
// scripted behaviours.
func buildTools(v *Vector) ([]engine.Tool, error) {
	var tools []engine.Tool
	for i, raw := range v.Tools {
		spec, ok := raw.(*engine.Object)
		if !ok {
			return nil, fmt.Errorf("tools[%d]: expected an object", i)
		}
		def := engine.ToolDef{Name: getStr(spec, "name"), Description: getStr(spec, "description"), Parameters: getObj(spec, "args_schema")}
		if rd, _ := get(spec, "return_direct").(bool); rd {
			def.ReturnDirect = true
		}
		switch h := get(spec, "handle_tool_error").(type) {
		case bool:
			def.HandleToolError.Enabled = h
		case string:
			def.HandleToolError = engine.ErrorHandler{Enabled: true, Message: h}
		}
		if inj, ok := get(spec, "inject").([]any); ok {
			for j, e := range inj {
				io, ok := e.(*engine.Object)
				if !ok {
					return nil, fmt.Errorf("tools[%d].inject[%d]: expected an object", i, j)
				}
				in := engine.Injection{Arg: getStr(io, "arg")}
				switch getStr(io, "kind") {
				case "state":
					in.Kind = engine.InjectState
				case "state_field":
					in.Kind, in.Field = engine.InjectState, getStr(io, "field")
				case "store":
					in.Kind = engine.InjectStore
				case "tool_call_id":
					in.Kind = engine.InjectToolCallID
				default:
					return nil, fmt.Errorf("tools[%d].inject[%d]: unknown kind %q", i, j, getStr(io, "kind"))
				}
				def.Inject = append(def.Inject, in)
			}
		}
		b, ok := get(spec, "behavior").(*engine.Object)
		if !ok {
			return nil, fmt.Errorf("tools[%d] (%s): missing behavior", i, def.Name)
		}
		fn, err := behavior(def.Name, b)
		if err != nil {
			return nil, fmt.Errorf("tools[%d] (%s): %w", i, def.Name, err)
		}
		tools = append(tools, engine.NewTool(def, fn))
	}
	return tools, nil
}

// behavior builds a tool function from a vector behaviour spec.
func behavior(name string, b *engine.Object) (engine.ToolFunc, error) {
	kind := getStr(b, "kind")
	switch kind {
	case "return":
		val := get(b, "value")
		return func(context.Context, engine.ToolInvocation) (any, error) { return engine.CloneValue(val), nil }, nil
	case "echo":
		return func(_ context.Context, inv engine.ToolInvocation) (any, error) { return inv.Args().Clone(), nil }, nil
	case "format":
		tmpl := getStr(b, "template")
		return func(_ context.Context, inv engine.ToolInvocation) (any, error) { return pyFormat(tmpl, inv.Args()) }, nil
	case "raise":
		kind, msg := getStr(b, "error"), getStr(b, "message")
		return func(context.Context, engine.ToolInvocation) (any, error) { return nil, engine.NewError(kind, msg) }, nil
	case "fail_times":
		return failTimes(name, b)
	case "injected":
		arg := getStr(b, "arg")
		return func(_ context.Context, inv engine.ToolInvocation) (any, error) { return inv.Injected[arg], nil }, nil
	case "state_summary":
		return stateSummary(getStr(b, "arg")), nil
	case "store_put", "store_get":
		return storeBehavior(kind, b), nil
	case "command":
		return commandBehavior(b), nil
	}
	return nil, fmt.Errorf("unknown behavior kind %q", kind)
}

// failTimes fails its first n calls with the given error, then behaves as
// "then" says.
func failTimes(name string, b *engine.Object) (engine.ToolFunc, error) {
	n, _ := getInt(b, "n")
	kind, msg := getStr(b, "error"), getStr(b, "message")
	then, ok := get(b, "then").(*engine.Object)
	if !ok {
		return nil, fmt.Errorf("fail_times: missing \"then\"")
	}
	next, err := behavior(name, then)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	attempts := 0
	return func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
		mu.Lock()
		attempts++
		a := attempts
		mu.Unlock()
		if a <= n {
			return nil, engine.NewError(kind, strings.ReplaceAll(msg, "{attempt}", strconv.Itoa(a)))
		}
		return next(ctx, inv)
	}, nil
}

// stateSummary answers with the keys of the injected state and the types
// of its messages.
func stateSummary(arg string) engine.ToolFunc {
	return func(_ context.Context, inv engine.ToolInvocation) (any, error) {
		st, _ := inv.Injected[arg].(engine.State)
		keys := make([]any, 0, len(st))
		names := make([]string, 0, len(st))
		for k := range st {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			keys = append(keys, k)
		}
		msgs := st.Messages("messages")
		types := make([]any, len(msgs))
		for i, m := range msgs {
			types[i] = string(m.Type)
		}
		return engine.NewObject("keys", keys, "n_messages", json.Number(strconv.Itoa(len(msgs))), "message_types", types), nil
	}
}

// storeBehavior puts an argument into the injected store or gets it back.
func storeBehavior(kind string, b *engine.Object) engine.ToolFunc {
	var ns []string
	if l, ok := get(b, "namespace").([]any); ok {
		for _, e := range l {
			s, _ := e.(string)
			ns = append(ns, s)
		}
	}
	keyArg, valArg := getStr(b, "key_arg"), getStr(b, "value_arg")
	return func(ctx context.Context, inv engine.ToolInvocation) (any, error) {
		var store engine.Store
		for _, v := range inv.Injected {
			if s, ok := v.(engine.Store); ok {
				store = s
			}
		}
		if store == nil {
			return nil, engine.NewError("ValueError", "no store injected")
		}
		key, _ := get(inv.Args(), keyArg).(string)
		if kind == "store_put" {
			if err := store.Put(ctx, ns, key, engine.NewObject("value", get(inv.Args(), valArg))); err != nil {
				return nil, err
			}
			return "stored", nil
		}
		item, err := store.Get(ctx, ns, key)
		if err != nil {
			return nil, err
		}
		if item == nil {
			return "not found", nil
		}
		return item.Value, nil
	}
}

// commandBehavior answers with a Command carrying a tool message, an
// update and a goto.
func commandBehavior(b *engine.Object) engine.ToolFunc {
	text := getStr(b, "tool_message")
	update := getObj(b, "update")
	gotoV := get(b, "goto")
	return func(_ context.Context, inv engine.ToolInvocation) (any, error) {
		id, _ := inv.Injected["tool_call_id"].(string)
		if id == "" {
			id = inv.Call.ID
		}
		upd := engine.State{"messages": []engine.Message{engine.ToolMessage(engine.Text(text), "", id)}}
		if update != nil {
			for _, k := range update.Keys() {
				upd[k] = get(update, k)
			}
		}
		cmd := &engine.Command{Update: upd}
		if gotoV != nil {
			cmd.Goto = gotoV
		}
		return cmd, nil
	}
}

// pyFormat is Python's str.format with named fields from args.
func pyFormat(tmpl string, args *engine.Object) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		switch {
		case c == '{' && i+1 < len(tmpl) && tmpl[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(tmpl) && tmpl[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(tmpl[i:], '}')
			if end < 0 {
				return "", engine.NewError("ValueError", "Single '{' encountered in format string")
			}
			field := tmpl[i+1 : i+end]
			v, ok := args.Get(field)
			if !ok {
				return "", engine.NewError("KeyError", field)
			}
			b.WriteString(pyStr(v))
			i += end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// pyStr is Python's str() of a JSON value.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return engine.PyRepr(v)
}

// hook builds a pre/post model hook from its vector spec.
func hook(spec *engine.Object) (engine.NodeFunc, error) {
	if spec == nil {
		return nil, nil
	}
	n, _ := getInt(spec, "n")
	switch kind := getStr(spec, "kind"); kind {
	case "noop":
		return func(context.Context, engine.State) (any, error) { return nil, nil }, nil
	case "llm_input_last_n":
		return func(_ context.Context, s engine.State) (any, error) {
			return engine.State{"llm_input_messages": lastN(s.Messages("messages"), n)}, nil
		}, nil
	case "overwrite_last_n":
		return func(_ context.Context, s engine.State) (any, error) {
			msgs := append([]engine.Message{engine.RemoveMessage(engine.RemoveAllMessages)}, lastN(s.Messages("messages"), n)...)
			return engine.State{"messages": msgs}, nil
		}, nil
	case "append_suffix_to_last_ai":
		suffix := getStr(spec, "suffix")
		return func(_ context.Context, s engine.State) (any, error) {
			msgs := s.Messages("messages")
			for i := len(msgs) - 1; i >= 0; i-- {
				if msgs[i].Type == engine.TypeAI {
					m := msgs[i].Clone()
					m.Content = engine.Text(m.Content.String() + suffix)
					return engine.State{"messages": []engine.Message{m}}, nil
				}
			}
			return nil, nil
		}, nil
	default:
		return nil, fmt.Errorf("unknown hook kind %q", kind)
	}
}

func lastN(msgs []engine.Message, n int) []engine.Message {
	if n >= len(msgs) {
		return append([]engine.Message(nil), msgs...)
	}
	return append([]engine.Message(nil), msgs[len(msgs)-n:]...)
}

// prompt reads "prompt": a string or {"kind": "str"|"system_message", "value"}.
func prompt(raw any) (engine.Prompt, error) {
	switch t := raw.(type) {
	case nil:
		return engine.Prompt{}, nil
	case string:
		return engine.PromptText(t), nil
	case *engine.Object:
		value := getStr(t, "value")
		switch getStr(t, "kind") {
		case "str":
			return engine.PromptText(value), nil
		case "system_message":
			return engine.PromptMessage(engine.SystemMessage(value)), nil
		}
		return engine.Prompt{}, fmt.Errorf("prompt: unknown kind %q", getStr(t, "kind"))
	}
	return engine.Prompt{}, fmt.Errorf("prompt: expected a string or an object, got %T", raw)
}

// toolErrors reads "handle_tool_errors".
func toolErrors(raw any) (engine.ToolErrors, error) {
	switch t := raw.(type) {
	case nil:
		return engine.ToolErrors{}, nil
	case bool:
		return engine.ToolErrors{Disabled: !t}, nil
	case string:
		return engine.ToolErrors{Message: t}, nil
	}
	return engine.ToolErrors{}, fmt.Errorf("handle_tool_errors: expected true, false or a string, got %T", raw)
}

func stringList(raw any) []string {
	l, _ := raw.([]any)
	var out []string
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// objectList reads a list of objects (config "provider_tools": tools given
// as plain dicts).
func objectList(raw any) []*engine.Object {
	l, _ := raw.([]any)
	var out []*engine.Object
	for _, e := range l {
		if o, ok := e.(*engine.Object); ok {
			out = append(out, o)
		}
	}
	return out
}
