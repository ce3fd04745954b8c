package conformance

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agenteval/agenteval/engine"
)

// Placeholders in vectors for values LangGraph generates at random.
var placeholders = []string{"<uuid>", "<interrupt-id>"}

// compareStep compares one expected entry with what the step produced.
// Only keys the vector recorded are compared; updates are compared as
// per-group multisets, the groups in order.
func compareStep(path string, want, got *engine.Object) string {
	for _, k := range want.Keys() {
		w, _ := want.Get(k)
		g, ok := got.Get(k)
		p := path + "." + k
		if k == "updates" {
			wg, _ := want.Get("update_groups")
			gg, _ := got.Get("update_groups")
			if d := matchUpdates(p, w, wg, g, gg); d != "" {
				return d
			}
			continue
		}
		if k == "update_groups" {
			continue
		}
		if !ok {
			return fmt.Sprintf("%s: want %s got nothing", p, show(w))
		}
		if d := match(p, w, g); d != "" {
			return d
		}
	}
	return ""
}

func matchUpdates(path string, want, wantGroups, got, gotGroups any) string {
	wl, _ := want.([]any)
	gl, _ := got.([]any)
	wg, _ := wantGroups.([]any)
	gg, _ := gotGroups.([]any)
	if len(wg) != len(wl) || len(gg) != len(gl) {
		return fmt.Sprintf("%s: update_groups do not line up with updates", path)
	}
	groupOf := func(l []any, i int) string { return fmt.Sprint(l[i]) }
	// walk expected groups in order
	for i := 0; i < len(wl); {
		g := groupOf(wg, i)
		j := i
		for j < len(wl) && groupOf(wg, j) == g {
			j++
		}
		var got []any
		for k := range gl {
			if groupOf(gg, k) == g {
				got = append(got, gl[k])
			}
		}
		if len(got) != j-i {
			return fmt.Sprintf("%s (superstep group %s): want %d chunks %s got %d %s", path, g, j-i, show(wl[i:j]), len(got), show(got))
		}
		used := make([]bool, len(got))
		for _, w := range wl[i:j] {
			found := false
			for k, c := range got {
				if !used[k] && match("", w, c) == "" {
					used[k], found = true, true
					break
				}
			}
			if !found {
				// report against the closest candidate
				best := ""
				for k, c := range got {
					if !used[k] {
						best = match(path, w, c)
						break
					}
				}
				return fmt.Sprintf("%s (superstep group %s): no chunk matches %s: %s", path, g, show(w), best)
			}
		}
		i = j
	}
	// extra groups in got
	wantSet := map[string]bool{}
	for _, x := range wg {
		wantSet[fmt.Sprint(x)] = true
	}
	for k := range gl {
		if !wantSet[groupOf(gg, k)] {
			return fmt.Sprintf("%s: unexpected chunk %s in group %s", path, show(gl[k]), groupOf(gg, k))
		}
	}
	return ""
}

// match compares want (from a vector) with got, returning "" when they
// match or the first difference as "path: want X got Y".
func match(path string, want, got any) string {
	switch w := want.(type) {
	case string:
		g, ok := got.(string)
		if !ok {
			return diff(path, want, got)
		}
		for _, p := range placeholders {
			if w == p {
				if g == "" {
					return diff(path, want, got)
				}
				return ""
			}
		}
		if hasPlaceholder(w) {
			re, err := regexp.Compile("^" + placeholderPattern(w) + "$")
			if err != nil || !re.MatchString(g) {
				return diff(path, want, got)
			}
			return ""
		}
		if w != g {
			return diff(path, want, got)
		}
		return ""
	case *engine.Object:
		if w.Len() == 1 && w.Has("$match") {
			pat, _ := w.Get("$match")
			ps, _ := pat.(string)
			g, ok := got.(string)
			re, err := regexp.Compile(ps)
			if err != nil {
				return fmt.Sprintf("%s: bad $match pattern %q: %v", path, ps, err)
			}
			if !ok || !re.MatchString(g) {
				return diff(path, want, got)
			}
			return ""
		}
		g, ok := got.(*engine.Object)
		if !ok {
			return diff(path, want, got)
		}
		for _, k := range w.Keys() {
			wv, _ := w.Get(k)
			gv, ok := g.Get(k)
			if !ok {
				return fmt.Sprintf("%s.%s: want %s got nothing", path, k, show(wv))
			}
			if d := match(path+"."+k, wv, gv); d != "" {
				return d
			}
		}
		for _, k := range g.Keys() {
			if !w.Has(k) {
				gv, _ := g.Get(k)
				return fmt.Sprintf("%s.%s: want nothing got %s", path, k, show(gv))
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return diff(path, want, got)
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			if d := match(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); d != "" {
				return d
			}
		}
		if len(w) != len(g) {
			return fmt.Sprintf("%s: want %d items %s got %d %s", path, len(w), show(w), len(g), show(g))
		}
		return ""
	case json.Number:
		if !engine.ValueEqual(want, got) {
			return diff(path, want, got)
		}
		return ""
	default:
		if !engine.ValueEqual(want, got) {
			return diff(path, want, got)
		}
		return ""
	}
}

func hasPlaceholder(s string) bool {
	for _, p := range placeholders {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func placeholderPattern(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		next, which := -1, ""
		for _, p := range placeholders {
			if i := strings.Index(s, p); i >= 0 && (next < 0 || i < next) {
				next, which = i, p
			}
		}
		if next < 0 {
			b.WriteString(regexp.QuoteMeta(s))
			break
		}
		b.WriteString(regexp.QuoteMeta(s[:next]))
		b.WriteString(".+?")
		s = s[next+len(which):]
	}
	return b.String()
}

func diff(path string, want, got any) string {
	return fmt.Sprintf("%s: want %s got %s", path, show(want), show(got))
}

// show renders a value compactly for a diff line.
func show(v any) string {
	b, err := engine.MarshalValue(engine.ValueForJSON(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// relaxUUIDs turns every UUID inside the strings of an expected value into
// the "<uuid>" placeholder, for steps whose texts embed random IDs.
func relaxUUIDs(v any) any {
	switch t := v.(type) {
	case string:
		return uuidRE.ReplaceAllString(t, "<uuid>")
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = relaxUUIDs(e)
		}
		return out
	case *engine.Object:
		out := &engine.Object{}
		for _, k := range t.Keys() {
			x, _ := t.Get(k)
			out.Set(k, relaxUUIDs(x))
		}
		return out
	}
	return v
}
