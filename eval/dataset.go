package eval

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/harness"
)

// Case is one row of a dataset: its name and the values of its variables.
type Case struct {
	Name string
	Vars map[string]string
}

// cases reads a dataset's rows: File's first, then the inline ones.
func (f *File) cases(i int) ([]Case, error) {
	d := f.Datasets[i]
	field := joinIndex("datasets", i)
	var rows []map[string]string
	if d.File != "" {
		path := filepath.Join(f.Dir(), filepath.FromSlash(d.File))
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, f.problem(field+".file", "%v", err)
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".csv":
			rows, err = csvRows(data)
		case ".jsonl":
			rows, err = jsonlRows(data)
		default:
			err = errors.New("expected a .csv or .jsonl file")
		}
		if err != nil {
			return nil, f.problem(field+".file", "%s: %v", d.File, err)
		}
	}
	for j, r := range d.Rows {
		o, _ := r.V.(*engine.Object)
		row := map[string]string{}
		for _, k := range o.Keys() {
			v, _ := o.Get(k)
			row[k] = scalarString(v)
		}
		_ = j
		rows = append(rows, row)
	}
	var out []Case
	seen := map[string]int{}
	for j, row := range rows {
		name := "case-" + strconv.Itoa(j+1)
		if d.Name != "" {
			var missing []string
			name = substitute(d.Name, row, &missing)
			if len(missing) > 0 {
				return nil, f.problem(field+".name", "row %d has no variable %s", j+1, strings.Join(missing, ", "))
			}
		}
		if !caseNameRE.MatchString(name) {
			return nil, f.problem(field+".name", "case name %q of row %d: use letters, digits, '_', '.' and '-' (it names cassette folders)", name, j+1)
		}
		if k, dup := seen[name]; dup {
			return nil, f.problem(field+".name", "rows %d and %d are both named %q", k+1, j+1, name)
		}
		seen[name] = j
		out = append(out, Case{Name: name, Vars: row})
	}
	return out, nil
}

var caseNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// problem is a *LoadError with one problem at field.
func (f *File) problem(field, format string, args ...any) error {
	at := f.Pos(field)
	return &LoadError{Problems: []Problem{{File: f.Path, Line: at.Line, Col: at.Col, Field: field, Message: fmt.Sprintf(format, args...)}}}
}

func scalarString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func csvRows(data []byte) ([]map[string]string, error) {
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, errors.New("no header row")
	}
	head := recs[0]
	var rows []map[string]string
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, h := range head {
			row[strings.TrimSpace(h)] = rec[i]
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func jsonlRows(data []byte) ([]map[string]string, error) {
	var rows []map[string]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	// the file is in memory already: a line may be as long as the file
	// (a 1 MiB cap refused long documents as "token too long")
	sc.Buffer(nil, len(data)+1)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		v, err := engine.DecodeJSON([]byte(text))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		o, ok := v.(*engine.Object)
		if !ok {
			return nil, fmt.Errorf("line %d: expected a JSON object", line)
		}
		row := map[string]string{}
		for _, k := range o.Keys() {
			e, _ := o.Get(k)
			switch e.(type) {
			case *engine.Object, []any:
				return nil, fmt.Errorf("line %d: %s: values are strings, numbers or booleans", line, k)
			}
			row[k] = scalarString(e)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}

var varRE = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// substitute replaces each {{name}} in s by vars[name], recording the names
// vars lacks.
func substitute(s string, vars map[string]string, missing *[]string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return varRE.ReplaceAllStringFunc(s, func(m string) string {
		name := varRE.FindStringSubmatch(m)[1]
		v, ok := vars[name]
		if !ok {
			*missing = append(*missing, name)
			return m
		}
		return v
	})
}

// instantiate returns a deep copy of the scenario template with every
// {{variable}} in its strings (turns, script, tools' results, expectations,
// ...) replaced by the case's value. It fails naming the variables the case
// lacks.
func instantiate(s *harness.Scenario, c Case) (*harness.Scenario, error) {
	var missing []string
	out := deepCopy(reflect.ValueOf(s), func(x string) string { return substitute(x, c.Vars, &missing) })
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: case %s: no value for {{%s}}", s.File, c.Name, strings.Join(uniq(missing), "}}, {{"))
	}
	return out.Interface().(*harness.Scenario), nil
}

func uniq(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

var objectType = reflect.TypeFor[*engine.Object]()

// deepCopy copies v, mapping every string through str. Unexported struct
// fields are copied as they are (shallowly).
func deepCopy(v reflect.Value, str func(string) string) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		out := reflect.New(v.Type()).Elem()
		out.SetString(str(v.String()))
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		if v.Type() == objectType {
			o := v.Interface().(*engine.Object)
			c := engine.NewObject()
			for _, k := range o.Keys() {
				e, _ := o.Get(k)
				c.Set(str(k), copyAny(e, str))
			}
			return reflect.ValueOf(c)
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(deepCopy(v.Elem(), str))
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(deepCopy(v.Elem(), str))
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(deepCopy(v.Index(i), str))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			out.SetMapIndex(iter.Key(), deepCopy(iter.Value(), str))
		}
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				out.Field(i).Set(deepCopy(v.Field(i), str))
			}
		}
		return out
	}
	return v
}

func copyAny(v any, str func(string) string) any {
	if v == nil {
		return nil
	}
	return deepCopy(reflect.ValueOf(v), str).Interface()
}

func reflectValue(s *harness.Scenario) reflect.Value { return reflect.ValueOf(s) }
