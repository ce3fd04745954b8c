package harness

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// Placeholder is one {{name}} in a scenario template's string values.
type Placeholder struct {
	// Name is the variable's name ("city").
	Name string
	// Field is the dotted path of the string that holds it
	// ("turns[0].user"); Pos is where that string is.
	Field string
	Pos   Position
}

// placeholderRE is a {{name}} placeholder as package eval's datasets fill
// it: a name of letters, digits and underscores, spaces around it allowed.
var placeholderRE = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// placeholders lists the placeholders in the string values of doc (keys
// are names, not text, and are not searched), in document order.
func (r *reader) placeholders(doc any, field string) []Placeholder {
	var out []Placeholder
	switch v := doc.(type) {
	case string:
		if !strings.Contains(v, "{{") {
			return nil
		}
		for _, m := range placeholderRE.FindAllStringSubmatch(v, -1) {
			out = append(out, Placeholder{Name: m[1], Field: field, Pos: r.posOf(field)})
		}
	case *engine.Object:
		for _, k := range v.Keys() {
			e, _ := v.Get(k)
			out = append(out, r.placeholders(e, joinKey(field, k))...)
		}
	case []any:
		for i, e := range v {
			out = append(out, r.placeholders(e, joinIndex(field, i))...)
		}
	}
	return out
}

// templateSkip is why run skips a template: it names the first
// placeholder and where it is.
func (s *Scenario) templateSkip() string {
	p := s.Placeholders[0]
	return fmt.Sprintf("a template: {{%s}} at %s:%d:%d (%s) is filled by an eval's dataset (agenteval eval), and a template does not run unfilled", p.Name, s.File, p.Pos.Line, p.Pos.Col, p.Field)
}
