package emulator

import (
	"fmt"
	"slices"

	"github.com/agenteval/agenteval/engine"
)

// mergeSchemas combines two schemas that must both hold (allOf, or a
// $ref with keywords beside it) into one the generator can draw from:
// properties are joined (a property in both gets an allOf of the two),
// required lists are joined, types intersected, lower bounds raised and
// upper bounds lowered, enums intersected, items and additionalProperties
// combined. For any other keyword in both, a's is kept and b's is left to
// the final validation. a's keys come first.
func mergeSchemas(a, b any) (any, error) {
	switch bb := b.(type) {
	case bool:
		if !bb {
			return false, nil
		}
		return a, nil
	case nil:
		return a, nil
	case *engine.Object:
		switch aa := a.(type) {
		case bool:
			if !aa {
				return false, nil
			}
			return bb, nil
		case nil:
			return bb, nil
		case *engine.Object:
			return mergeObjects(aa, bb), nil
		}
	}
	return nil, fmt.Errorf("cannot combine schemas %T and %T", a, b)
}

// lowerBounds are raised to the larger value, upperBounds lowered to the
// smaller.
var (
	lowerBounds = []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"}
	upperBounds = []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"}
)

// mergeObjects merges two object schemas; see mergeSchemas.
func mergeObjects(a, b *engine.Object) *engine.Object {
	out := a.Clone()
	for _, k := range b.Keys() {
		bv := get(b, k)
		av, inA := a.Get(k)
		if !inA {
			out.Set(k, bv)
			continue
		}
		switch {
		case k == "properties":
			out.Set(k, mergeProperties(av, bv))
		case k == "required":
			al, _ := av.([]any)
			joined := slices.Clone(al)
			bl, _ := bv.([]any)
			for _, r := range bl {
				if !slices.Contains(joined, r) {
					joined = append(joined, r)
				}
			}
			out.Set(k, joined)
		case k == "type":
			out.Set(k, intersectTypes(av, bv))
		case slices.Contains(lowerBounds, k), slices.Contains(upperBounds, k):
			ar, br := ratOf(av), ratOf(bv)
			if ar == nil || br == nil {
				continue // a boolean draft-4 exclusive bound: keep a's
			}
			if c := br.Cmp(ar); c > 0 == slices.Contains(lowerBounds, k) && c != 0 {
				out.Set(k, bv)
			}
		case k == "enum":
			al, _ := av.([]any)
			bl, _ := bv.([]any)
			var both []any
			for _, x := range al {
				if slices.ContainsFunc(bl, func(y any) bool { return sameJSON(x, y) }) {
					both = append(both, x)
				}
			}
			out.Set(k, both)
		case k == "allOf":
			al, _ := av.([]any)
			bl, _ := bv.([]any)
			out.Set(k, append(slices.Clone(al), bl...))
		case k == "oneOf" || k == "anyOf" || k == "not":
			all, _ := get(out, "allOf").([]any)
			out.Set("allOf", append(slices.Clone(all), engine.NewObject(k, bv)))
		case k == "items" || k == "additionalProperties" || k == "additionalItems":
			if m, err := mergeSchemas(av, bv); err == nil {
				out.Set(k, m)
			}
		}
	}
	return out
}

// mergeProperties joins two "properties" objects.
func mergeProperties(a, b any) any {
	ao, ok1 := a.(*engine.Object)
	bo, ok2 := b.(*engine.Object)
	if !ok1 || !ok2 {
		return a
	}
	out := ao.Clone()
	for _, k := range bo.Keys() {
		if av, ok := ao.Get(k); ok {
			out.Set(k, engine.NewObject("allOf", []any{av, get(bo, k)}))
			continue
		}
		out.Set(k, get(bo, k))
	}
	return out
}

// intersectTypes is the types both allow ("integer" is a "number").
func intersectTypes(a, b any) any {
	list := func(v any) []string {
		switch v := v.(type) {
		case string:
			return []string{v}
		case []any:
			var out []string
			for _, x := range v {
				if s, ok := x.(string); ok {
					out = append(out, s)
				}
			}
			return out
		}
		return nil
	}
	al, bl := list(a), list(b)
	var both []any
	for _, t := range al {
		switch {
		case slices.Contains(bl, t):
			both = append(both, t)
		case t == "integer" && slices.Contains(bl, "number"):
			both = append(both, t)
		case t == "number" && slices.Contains(bl, "integer"):
			both = append(both, "integer")
		}
	}
	return both
}

// sameJSON says whether two values serialize alike.
func sameJSON(x, y any) bool {
	a, err1 := engine.MarshalValue(x)
	b, err2 := engine.MarshalValue(y)
	return err1 == nil && err2 == nil && string(a) == string(b)
}
