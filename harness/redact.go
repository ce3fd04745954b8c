package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/grade"
	"github.com/agenteval/agenteval/report"
)

// redactor keeps credentials out of what a run writes (reports, golden
// transcripts, logs) and out of its cassettes, through one
// implementation (cassette.Scrubbing): the values it knows to be
// secrets, replaced wherever they appear, and every credential shape of
// cassette's table. The secrets are the provider keys the run reads
// (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, GOOGLE_API_KEY,
// through Options.LookupEnv) and the
// values of the process's variables whose names say they hold
// credentials (cassette.CredentialVariable: GITHUB_TOKEN,
// AWS_SECRET_ACCESS_KEY, ...), which a command agent may be passed
// (agent.pass_env) and print, and a tool may send to a provider. The nil
// *redactor applies the shapes only.
type redactor struct {
	scrubbing cassette.Scrubbing
}

// newRedactor collects the secrets of lookup and environ (KEY=value
// entries, as os.Environ returns them), and takes headers, the
// project's credential headers (Options.ScrubHeaders), for cassettes.
func newRedactor(lookup func(string) (string, bool), environ []string, headers []string) *redactor {
	vals := cassette.EnvSecretValues(environ)
	if lookup != nil {
		for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"} {
			if v, ok := lookup(k); ok {
				vals = append(vals, v)
			}
		}
	}
	vals = slices.DeleteFunc(vals, func(v string) bool { return v == DummyAPIKey })
	return &redactor{scrubbing: cassette.Scrubbing{Headers: headers, Values: cassette.SecretValues(vals...)}}
}

// RedactText returns s without credentials: the values of the process's
// credential variables and every credential shape, each replaced by
// REDACTED. The command line prints its diagnostics through it.
func RedactText(s string) string { return newRedactor(nil, os.Environ(), nil).text(s) }

// text returns s with its secrets and credential shapes replaced.
func (r *redactor) text(s string) string {
	if r == nil {
		return cassette.ScrubText(s)
	}
	return r.scrubbing.Text(s)
}

// cassetteScrubbing is what the run's cassettes are scrubbed of on top
// of cassette's table, and refused for holding when opened.
func (r *redactor) cassetteScrubbing() cassette.Scrubbing {
	if r == nil {
		return cassette.Scrubbing{}
	}
	return r.scrubbing
}

// scenario returns res with every string it holds redacted: messages,
// diffs, the transcript, trajectory, exchanges, interrupts, expectations.
// A result that holds no credential, as most do, is returned as it is,
// after a walk that allocates nothing.
func (r *redactor) scenario(res report.Scenario) report.Scenario {
	v := reflect.ValueOf(&res).Elem()
	if !r.holds(v) {
		return res
	}
	r.walk(v)
	return res
}

// holds reports whether v holds a string that text would change.
func (r *redactor) holds(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		return r.text(s) != s
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Field(i).CanSet() && r.holds(v.Field(i)) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if r.holds(v.Index(i)) {
				return true
			}
		}
	case reflect.Pointer:
		return !v.IsNil() && v.Elem().Kind() == reflect.Struct && r.holds(v.Elem())
	case reflect.Interface:
		return !v.IsNil() && r.holdsValue(v.Elem().Interface())
	}
	return false
}

// holdsValue is holds for a value of the JSON value model.
func (r *redactor) holdsValue(v any) bool {
	switch t := v.(type) {
	case string:
		return r.text(t) != t
	case []any:
		return slices.ContainsFunc(t, r.holdsValue)
	case *engine.Object:
		for _, k := range t.Keys() {
			e, _ := t.Get(k)
			if r.text(k) != k || r.holdsValue(e) {
				return true
			}
		}
	}
	return false
}

// walk redacts the strings of v in place; v is settable.
func (r *redactor) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); s != "" {
			if t := r.text(s); t != s {
				v.SetString(t)
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				r.walk(f)
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		// a copy: the slice may be shared (a scenario's tags, by every
		// trial of an eval)
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		for i := range c.Len() {
			r.walk(c.Index(i))
		}
		v.Set(c)
	case reflect.Array:
		for i := range v.Len() {
			r.walk(v.Index(i))
		}
	case reflect.Pointer:
		if !v.IsNil() && v.Elem().Kind() == reflect.Struct {
			c := reflect.New(v.Elem().Type())
			c.Elem().Set(v.Elem())
			r.walk(c.Elem())
			v.Set(c)
		}
	case reflect.Interface:
		if !v.IsNil() {
			v.Set(reflect.ValueOf(r.value(v.Elem().Interface())))
		}
	}
}

// value returns a redacted copy of a value of the JSON value model (an
// interrupt's payload); other values are returned as they are.
func (r *redactor) value(v any) any {
	switch t := v.(type) {
	case string:
		return r.text(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = r.value(e)
		}
		return out
	case *engine.Object:
		out := engine.NewObject()
		for _, k := range t.Keys() {
			e, _ := t.Get(k)
			out.Set(r.text(k), r.value(e))
		}
		return out
	}
	return v
}

// checkGolden compares the run's transcript, scrubbed, with the
// scenario's golden file. A golden file that holds a credential is
// refused, naming its line, unless updating rewrites it: golden files are
// committed, and agenteval writes none with a credential in it.
func checkGolden(s *Scenario, opts *Options, text string, res *report.Scenario) grade.Result {
	path := GoldenPath(opts.GoldenDir, s)
	if data, err := os.ReadFile(path); err == nil && !opts.Update {
		if kind, at, ok := cassette.FindCredential(string(data)); ok {
			res.Golden, res.GoldenStatus = filepath.ToSlash(path), grade.GoldenChanged
			line := 1 + strings.Count(string(data[:at]), "\n")
			return grade.Result{Name: "golden", Threshold: 1, Message: fmt.Sprintf(
				"golden file %s:%d holds %s: a golden file never holds a credential; remove it, or rewrite the file with --update (transcripts are written scrubbed)",
				filepath.ToSlash(path), line, kind)}
		}
	}
	g := grade.CheckGolden(path, []byte(opts.redact.text(text)), opts.Update)
	res.Golden, res.GoldenStatus = g.Path, g.Status
	return g.Result
}
