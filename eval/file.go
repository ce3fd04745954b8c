package eval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/harness"
	"github.com/agenteval/agenteval/report/evalreport"
)

// SchemaID is the $id of the eval file's JSON Schema.
const SchemaID = "https://agenteval.dev/schema/eval/v1.json"

//go:embed eval.schema.json
var schemaJSON []byte

// SchemaJSON returns the JSON Schema (draft 2020-12) of eval files. Each
// call returns a fresh copy.
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }

// DefaultTrials is the trials per scenario, case and variant when the file
// gives none.
const DefaultTrials = 10

// File is one eval file, decoded. The zero value of every optional field
// means the documented default; Parse fills nothing in.
type File struct {
	// Name names the eval in reports; default the file's base name.
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// Root is the scenario root, relative to the file; default
	// "scenarios".
	Root string `json:"root,omitempty"`
	// Scenarios are scenario files or folders below Root; default Root.
	Scenarios []string `json:"scenarios,omitempty"`
	// Tags select scenarios that have one of them.
	Tags []string `json:"tags,omitempty"`
	// Cassettes is where trial cassettes live, relative to the file;
	// default "cassettes".
	Cassettes string `json:"cassettes,omitempty"`
	// Trials is the trials per scenario, case and variant; 0 means
	// DefaultTrials.
	Trials int `json:"trials,omitempty"`
	// Seed seeds the bootstrap intervals.
	Seed uint64 `json:"seed,omitempty"`
	// Control names the variant the others are compared with; default the
	// first.
	Control string `json:"control,omitempty"`
	// Thresholds apply to every scenario × variant unless
	// ScenarioThresholds names the scenario.
	Thresholds *evalreport.Thresholds `json:"thresholds,omitempty"`
	// ScenarioThresholds are thresholds by scenario name.
	ScenarioThresholds map[string]evalreport.Thresholds `json:"scenario_thresholds,omitempty"`
	// Variants are the variants, at least one.
	Variants []Variant `json:"variants"`
	// Datasets fill scenario templates with cases.
	Datasets []Dataset `json:"datasets,omitempty"`

	// Path is the file's path as given to Load; not read from the file.
	Path string `json:"-"`
	// Limits are the limits the file was loaded within (LoadWithin): they
	// also bound the scenario files Prepare loads and the trial cassettes
	// Run reads. Not read from the file.
	Limits harness.Limits `json:"-"`
	pos    map[string]Position
	keyPos map[string]Position
}

// Variant overrides parts of every scenario it runs. Unset fields leave the
// scenario as it is.
type Variant struct {
	// Name names the variant in reports and in trial cassette paths.
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Prompt replaces the system prompt.
	Prompt *string `json:"prompt,omitempty"`
	// Model replaces the agent's model ("scripted" or "provider:model");
	// BaseURL its base URL.
	Model   string `json:"model,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
	// Script replaces the scripted model's script.
	Script *Value `json:"script,omitempty"`
	// Params are model parameters set on every request of the agent's
	// model ("temperature": 0.2).
	Params *Value `json:"params,omitempty"`
	// RecursionLimit replaces the recursion limit.
	RecursionLimit int `json:"recursion_limit,omitempty"`
	// Tools replace tools' descriptions or parameter schemas.
	Tools []ToolOverride `json:"tools,omitempty"`
	// Middleware set options of the scenario's middleware, by type.
	Middleware []MiddlewareOverride `json:"middleware,omitempty"`
	// Stochastic makes the scripted model answer right only with a
	// probability (see Stochastic).
	Stochastic *Stochastic `json:"stochastic,omitempty"`
	// Env sets environment variables of a command agent's program,
	// merged key by key over the scenario's agent.env: the way to pass
	// a command agent what the fields above give the engine's agents
	// (a prompt, tool descriptions, options).
	Env map[string]string `json:"env,omitempty"`
}

// ToolOverride replaces a tool's description or parameters.
type ToolOverride struct {
	Name        string  `json:"name"`
	Description *string `json:"description,omitempty"`
	Parameters  *Value  `json:"parameters,omitempty"`
}

// MiddlewareOverride sets options of the scenario's middleware of Type.
type MiddlewareOverride struct {
	Type    string `json:"type"`
	Options *Value `json:"options,omitempty"`
}

// Stochastic is a seeded stochastic scripted model: trial t of a scenario
// answers with the scenario's script when u < P, and otherwise with one AI
// message whose content is Wrong (default "I don't know."), where u in
// [0, 1) is drawn from ChaCha8 seeded by SHA-256 of Seed and the trial's key.
// The same seed gives the same outcomes on every machine.
type Stochastic struct {
	P     float64 `json:"p"`
	Seed  uint64  `json:"seed,omitempty"`
	Wrong string  `json:"wrong,omitempty"`
}

// Dataset runs one scenario template over many cases: each row fills the
// template's {{variables}}.
type Dataset struct {
	// Scenario is the template's scenario name.
	Scenario string `json:"scenario"`
	// File is a .csv (a header row names the variables) or .jsonl (one
	// object per line) file, relative to the eval file.
	File string `json:"file,omitempty"`
	// Rows are rows given inline, after File's.
	Rows []*Value `json:"rows,omitempty"`
	// Name is the case name template; default "case-<n>", 1-based.
	Name string `json:"name,omitempty"`
}

// Value is free-form JSON held in the engine's value model (ordered
// objects, json.Number numbers).
type Value struct{ V any }

// UnmarshalJSON implements json.Unmarshaler.
func (v *Value) UnmarshalJSON(b []byte) error {
	x, err := engine.DecodeJSON(b)
	if err != nil {
		return fmt.Errorf("decode value: %w", err)
	}
	v.V = x
	return nil
}

// MarshalJSON implements json.Marshaler.
func (v Value) MarshalJSON() ([]byte, error) { return engine.MarshalValue(v.V) }

// Position is a place in a file, 1-based.
type Position struct{ Line, Col int }

// Problem is one thing wrong with an eval file.
type Problem struct {
	File      string
	Line, Col int
	// Field is the dotted path of the field ("variants[1].model").
	Field   string
	Message string
}

// String formats the problem as "file:line:col: field: message".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, p.Col)
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// LoadError lists every problem of an eval file, in file order.
type LoadError struct{ Problems []Problem }

// Error returns the problems, one per line.
func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Load reads and parses the eval file at path within the default limits
// (see Parse and LoadWithin).
func Load(path string) (*File, error) {
	return LoadWithin(path, harness.Limits{})
}

// LoadWithin reads and parses the eval file at path within limits: the
// file as harness.Limits bound a scenario file (a file larger than
// FileBytes is refused before it is read whole), and through File.Limits
// the scenario files Prepare loads and the trial cassettes Run reads.
func LoadWithin(path string, limits harness.Limits) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load eval: %w", err)
	}
	defer f.Close()
	max := limits.Resolved().FileBytes
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("load eval: %w", err)
	}
	return ParseWithin(path, data, limits)
}

// Parse parses an eval file's contents: YAML, checked against SchemaJSON
// and then against the rules the schema cannot state (unique variant names,
// a control that names a variant, stochastic only for scripted models). It
// returns a *LoadError with every problem, each at its file:line:col.
func Parse(path string, data []byte) (*File, error) {
	return ParseWithin(path, data, harness.Limits{})
}

// ParseWithin is Parse within limits (see LoadWithin).
func ParseWithin(path string, data []byte, limits harness.Limits) (*File, error) {
	r := newYAMLReader(path, limits)
	doc, ok := r.parse(data)
	if !ok {
		return nil, r.err()
	}
	if doc == nil {
		r.problem("", Position{Line: 1, Col: 1}, "the file is empty: an eval file is a mapping with at least variants")
		return nil, r.err()
	}
	if !r.validate(doc) {
		return nil, r.err()
	}
	raw, err := engine.MarshalValue(doc)
	if err != nil {
		return nil, fmt.Errorf("parse eval %s: %w", path, err)
	}
	f := &File{Path: path, Limits: limits, pos: r.pos, keyPos: r.keyPos}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(f); err != nil {
		// the schema admits only what decodes; this is a bug if reached
		r.problem("", Position{Line: 1, Col: 1}, "decode: %v", err)
		return nil, r.err()
	}
	r.check(f)
	if err := r.err(); err != nil {
		return nil, err
	}
	return f, nil
}

func (r *yamlReader) err() error {
	if len(r.problems) == 0 {
		return nil
	}
	ps := slices.Clone(r.problems)
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	return &LoadError{Problems: ps}
}

// check applies the rules the schema cannot state.
func (r *yamlReader) check(f *File) {
	seen := map[string]int{}
	for i, v := range f.Variants {
		field := joinIndex("variants", i)
		if j, dup := seen[v.Name]; dup {
			r.problem(field+".name", r.posOf(field+".name"), "variant %q is also variants[%d]", v.Name, j)
		} else {
			seen[v.Name] = i
		}
		if v.Stochastic != nil && v.Model != "" && v.Model != "scripted" {
			r.problem(field+".stochastic", r.keyPosOf(field+".stochastic"), "a stochastic model is scripted: it cannot run with model %q", v.Model)
		}
		if v.Script != nil && v.Model != "" && v.Model != "scripted" {
			r.problem(field+".script", r.keyPosOf(field+".script"), "a script is for the scripted model, not %q", v.Model)
		}
		tools := map[string]bool{}
		for j, t := range v.Tools {
			if tools[t.Name] {
				tf := joinIndex(field+".tools", j) + ".name"
				r.problem(tf, r.posOf(tf), "tool %q is overridden twice", t.Name)
			}
			tools[t.Name] = true
		}
	}
	if f.Control != "" {
		if _, ok := seen[f.Control]; !ok {
			names := make([]string, len(f.Variants))
			for i, v := range f.Variants {
				names[i] = strconv.Quote(v.Name)
			}
			r.problem("control", r.posOf("control"), "no variant is named %q: expected one of %s", f.Control, strings.Join(names, ", "))
		}
	}
	for i, d := range f.Datasets {
		if d.File == "" && len(d.Rows) == 0 {
			field := joinIndex("datasets", i)
			r.problem(field, r.posOf(field), "a dataset needs a file or rows")
		}
	}
}

// Pos is where a field of the loaded file is ("variants[1].model"), or of
// its nearest parent that has a place.
func (f *File) Pos(field string) Position {
	r := &yamlReader{pos: f.pos}
	return r.posOf(field)
}

// Dir is the folder the file's relative paths start from.
func (f *File) Dir() string { return filepath.Dir(f.Path) }

// EvalName is Name, or the file's base name without its extension.
func (f *File) EvalName() string {
	if f.Name != "" {
		return f.Name
	}
	base := filepath.Base(f.Path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// TrialsPerCell is Trials or DefaultTrials.
func (f *File) TrialsPerCell() int {
	if f.Trials > 0 {
		return f.Trials
	}
	return DefaultTrials
}

// ControlName is Control or the first variant's name.
func (f *File) ControlName() string {
	if f.Control != "" || len(f.Variants) == 0 {
		return f.Control
	}
	return f.Variants[0].Name
}

// ThresholdsFor returns the thresholds of the named scenario.
func (f *File) ThresholdsFor(scenario string) *evalreport.Thresholds {
	if t, ok := f.ScenarioThresholds[scenario]; ok {
		return &t
	}
	return f.Thresholds
}

var loadSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("eval schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, fmt.Errorf("eval schema: %w", err)
	}
	return c.Compile(SchemaID)
})

// validate checks doc against the schema, recording each violation at its
// place; it reports whether doc is valid.
func (r *yamlReader) validate(doc any) bool {
	sch, err := loadSchema()
	if err != nil {
		r.problem("", Position{}, "%v", err)
		return false
	}
	err = sch.Validate(plainJSON(doc))
	if err == nil {
		return true
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		r.problem("", Position{}, "%v", err)
		return false
	}
	r.schemaError(doc, ve)
	if len(r.problems) == 0 {
		r.problem("", Position{Line: 1, Col: 1}, "%v", ve)
	}
	return false
}

var english = message.NewPrinter(language.English)

func (r *yamlReader) schemaError(doc any, e *jsonschema.ValidationError) {
	switch e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf, *kind.AnyOf, *kind.OneOf:
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				r.schemaError(doc, c)
			}
			return
		}
	}
	field := instanceField(doc, e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		allowed := allowedKeys(e.SchemaURL)
		for _, p := range k.Properties {
			child := joinKey(field, p)
			msg := fmt.Sprintf("unknown field %q", p)
			if m := closest(p, allowed); m != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", m)
			}
			r.problem(child, r.keyPosOf(child), "%s", msg)
		}
	case *kind.Required:
		for _, m := range k.Missing {
			r.problem(joinKey(field, m), r.posOf(field), "missing required field")
		}
	default:
		r.problem(field, r.posOf(field), "%s", e.ErrorKind.LocalizedString(english))
	}
}

// instanceField turns a schema error's instance location into a field path.
func instanceField(doc any, loc []string) string {
	field, cur := "", doc
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return joinKey(field, tok)
			}
			field, cur = joinIndex(field, i), c[i]
		case *engine.Object:
			field = joinKey(field, tok)
			cur, _ = c.Get(tok)
		default:
			return joinKey(field, tok)
		}
	}
	return field
}

// plainJSON converts an engine value tree into the map-based model the
// schema validator reads.
func plainJSON(v any) any {
	switch v := v.(type) {
	case *engine.Object:
		m := make(map[string]any, v.Len())
		for _, k := range v.Keys() {
			e, _ := v.Get(k)
			m[k] = plainJSON(e)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plainJSON(e)
		}
		return out
	}
	return v
}

// allowedKeys are the properties of the object schema at a schema URL
// ("...v1.json#/$defs/variant").
func allowedKeys(url string) []string {
	var doc struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schemaJSON, &doc); err != nil {
		return nil
	}
	_, frag, _ := strings.Cut(url, "#")
	props := doc.Properties
	if name, ok := strings.CutPrefix(frag, "/$defs/"); ok {
		props = doc.Defs[name].Properties
	} else if frag != "" {
		return nil
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// closest is the candidate within edit distance 2 of word (the nearest;
// of equals, the one that shares the longest prefix with word, then the
// first), or "": "pass_rat" is "pass_rate" mistyped, not "pass_at".
func closest(word string, candidates []string) string {
	best, bestD, bestP := "", 3, -1
	for _, c := range candidates {
		d, p := levenshtein(word, c), commonPrefix(word, c)
		if d > 2 {
			continue
		}
		if d < bestD || d == bestD && p > bestP {
			best, bestD, bestP = c, d, p
		}
	}
	return best
}

// commonPrefix is the length in bytes of the prefix a and b share.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
