package middleware

import (
	"github.com/agenteval/agenteval/engine"
)

// buildPII reads pii_type, strategy, detector (a regular expression; null:
// the built-in detector) and the apply_to_* switches.
func buildPII(opts *engine.Object, _ BuildOptions) (engine.Middleware, error) {
	o := DefaultPIIOptions("")
	err := readOptions(opts, func(k string, v any) (err error) {
		switch k {
		case "pii_type":
			o.PIIType, err = stringOption(k, v)
		case "strategy":
			o.Strategy, err = stringOption(k, v)
		case "detector":
			if v != nil {
				o.Pattern, err = stringOption(k, v)
			}
		case "apply_to_input":
			o.ApplyToInput, err = boolOption(k, v)
		case "apply_to_output":
			o.ApplyToOutput, err = boolOption(k, v)
		case "apply_to_tool_results":
			o.ApplyToToolResults, err = boolOption(k, v)
		default:
			err = unknownOption(k, "pii_type", "strategy", "detector", "apply_to_input", "apply_to_output", "apply_to_tool_results")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return NewPII(o)
}
