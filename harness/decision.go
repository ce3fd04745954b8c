package harness

import (
	"fmt"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// ParseDecision reads a human-in-the-loop decision as a person types it
// on a command line:
//
//	approve
//	reject                      reject:<message to the model>
//	edit:{"name": "send_email", "args": {"to": "ann@example.com"}}
//
// and returns it as HumanInTheLoopMiddleware expects it in its resume
// value ({"type": "approve"}, {"type": "reject", "message": ...},
// {"type": "edit", "edited_action": {...}}).
func ParseDecision(s string) (any, error) {
	kind, rest, hasRest := strings.Cut(s, ":")
	switch strings.TrimSpace(kind) {
	case "approve":
		if hasRest {
			return nil, fmt.Errorf("decision %q: approve takes nothing after it", s)
		}
		return engine.NewObject("type", "approve"), nil
	case "reject":
		if !hasRest {
			return engine.NewObject("type", "reject"), nil
		}
		return engine.NewObject("type", "reject", "message", rest), nil
	case "edit":
		if !hasRest {
			return nil, fmt.Errorf(`decision %q: edit needs the edited call: edit:{"name": ..., "args": {...}}`, s)
		}
		v, err := engine.DecodeJSON([]byte(rest))
		if err != nil {
			return nil, fmt.Errorf("decision %q: the edited call is not JSON: %w", s, err)
		}
		action, ok := v.(*engine.Object)
		if !ok {
			return nil, fmt.Errorf(`decision %q: the edited call must be an object {"name": ..., "args": {...}}`, s)
		}
		name, _ := action.Get("name")
		if n, ok := name.(string); !ok || n == "" {
			return nil, fmt.Errorf(`decision %q: the edited call needs a "name" string`, s)
		}
		if args, ok := action.Get("args"); !ok {
			return nil, fmt.Errorf(`decision %q: the edited call needs "args"`, s)
		} else if _, ok := args.(*engine.Object); !ok {
			return nil, fmt.Errorf(`decision %q: the edited call's "args" must be an object`, s)
		}
		return engine.NewObject("type", "edit", "edited_action", action), nil
	}
	return nil, fmt.Errorf(`decision %q: expected approve, reject[:message] or edit:{"name": ..., "args": {...}}`, s)
}
