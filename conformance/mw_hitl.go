package conformance

import (
	"errors"
	"fmt"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/engine/middleware"
)

// buildHITL builds HumanInTheLoopMiddleware from vector options:
// interrupt_on {tool: true | false | {allowed_decisions, description,
// args_schema}} and description_prefix.
func buildHITL(opts *engine.Object, _ map[string]engine.ChatModel) (engine.Middleware, error) {
	var errs []error
	var o middleware.HumanInTheLoopOptions
	for _, k := range opts.Keys() {
		v, _ := opts.Get(k)
		switch k {
		case "interrupt_on":
			on, err := hitlInterruptOn(v)
			if err != nil {
				errs = append(errs, err)
			}
			o.InterruptOn = on
		case "description_prefix":
			s, ok := v.(string)
			if !ok {
				errs = append(errs, fmt.Errorf("description_prefix: expected a string, got %s", engine.PyRepr(v)))
			}
			o.DescriptionPrefix = s
		default:
			errs = append(errs, fmt.Errorf("%s: unknown option: expected interrupt_on or description_prefix", k))
		}
	}
	if !opts.Has("interrupt_on") {
		errs = append(errs, errors.New("interrupt_on: required"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return middleware.NewHumanInTheLoop(o)
}

func hitlInterruptOn(v any) (map[string]middleware.InterruptOn, error) {
	obj, ok := v.(*engine.Object)
	if !ok {
		return nil, fmt.Errorf("interrupt_on: expected an object of tool names, got %s", engine.PyRepr(v))
	}
	var errs []error
	out := map[string]middleware.InterruptOn{}
	for _, name := range obj.Keys() {
		cfg, _ := obj.Get(name)
		switch c := cfg.(type) {
		case bool:
			if c {
				out[name] = middleware.InterruptOn{AllowedDecisions: middleware.AllDecisions()}
			} else {
				out[name] = middleware.InterruptOn{}
			}
		case *engine.Object:
			var p middleware.InterruptOn
			for _, k := range c.Keys() {
				x, _ := c.Get(k)
				switch k {
				case "allowed_decisions":
					l, ok := x.([]any)
					if !ok {
						errs = append(errs, fmt.Errorf("interrupt_on.%s.allowed_decisions: expected a list, got %s", name, engine.PyRepr(x)))
					}
					for _, d := range l {
						s, ok := d.(string)
						if !ok {
							errs = append(errs, fmt.Errorf("interrupt_on.%s.allowed_decisions: expected strings, got %s", name, engine.PyRepr(d)))
						}
						p.AllowedDecisions = append(p.AllowedDecisions, s)
					}
				case "description":
					s, ok := x.(string)
					if !ok && x != nil {
						errs = append(errs, fmt.Errorf("interrupt_on.%s.description: expected a string, got %s", name, engine.PyRepr(x)))
					}
					p.Description = s
				case "args_schema":
					s, ok := x.(*engine.Object)
					if !ok && x != nil {
						errs = append(errs, fmt.Errorf("interrupt_on.%s.args_schema: expected an object, got %s", name, engine.PyRepr(x)))
					}
					p.ArgsSchema = s
				default:
					errs = append(errs, fmt.Errorf("interrupt_on.%s.%s: unknown key: expected allowed_decisions, description or args_schema", name, k))
				}
			}
			out[name] = p
		default:
			errs = append(errs, fmt.Errorf("interrupt_on.%s: expected true, false or {allowed_decisions, description}, got %s", name, engine.PyRepr(cfg)))
		}
	}
	return out, errors.Join(errs...)
}
