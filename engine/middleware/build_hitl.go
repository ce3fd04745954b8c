package middleware

import (
	"errors"
	"fmt"

	"github.com/agenteval/agenteval/engine"
)

// buildHITL builds HumanInTheLoopMiddleware from its options:
// interrupt_on {tool: true | false | {allowed_decisions, description,
// args_schema}} and description_prefix.
func buildHITL(opts *engine.Object, _ BuildOptions) (engine.Middleware, error) {
	var o HumanInTheLoopOptions
	err := readOptions(opts, func(k string, v any) (err error) {
		switch k {
		case "interrupt_on":
			o.InterruptOn, err = hitlInterruptOn(v)
		case "description_prefix":
			o.DescriptionPrefix, err = stringOption(k, v)
		default:
			err = unknownOption(k, "interrupt_on", "description_prefix")
		}
		return err
	})
	if !opts.Has("interrupt_on") {
		err = errors.Join(err, errors.New("interrupt_on: required"))
	}
	if err != nil {
		return nil, err
	}
	return NewHumanInTheLoop(o)
}

// hitlInterruptOn reads interrupt_on: a policy per tool name.
func hitlInterruptOn(v any) (map[string]InterruptOn, error) {
	obj, ok := v.(*engine.Object)
	if !ok {
		return nil, fmt.Errorf("interrupt_on: expected an object of tool names, got %s", engine.PyRepr(v))
	}
	var errs []error
	out := map[string]InterruptOn{}
	for _, name := range obj.Keys() {
		cfg, _ := obj.Get(name)
		switch c := cfg.(type) {
		case bool:
			if c {
				out[name] = InterruptOn{AllowedDecisions: AllDecisions()}
			} else {
				out[name] = InterruptOn{}
			}
		case *engine.Object:
			var p InterruptOn
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
