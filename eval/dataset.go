package eval

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agenteval/agenteval/engine"
	"github.com/agenteval/agenteval/harness"
)

// Case is one row of a dataset: its name and the values of its variables.
type Case struct {
	Name string
	Vars map[string]string
	// At is where the row is: "cities.csv:3" for a file's row, the eval
	// file's "suite.yaml:12" for an inline one.
	At string
}

// datasetRow is a row read from a dataset, with where it is.
type datasetRow struct {
	vars map[string]string
	// file, line and col place the row; field is its field in the eval
	// file for an inline row, "" for a file's.
	file      string
	line, col int
	field     string
}

func (r datasetRow) at() string { return r.file + ":" + strconv.Itoa(r.line) }

// problem is a problem with the row, at its place.
func (r datasetRow) problem(format string, args ...any) Problem {
	return Problem{File: r.file, Line: r.line, Col: r.col, Field: r.field, Message: fmt.Sprintf(format, args...)}
}

// cases reads a dataset's rows, File's first, then the inline ones, and
// names them; every problem of the dataset is reported at once, each at
// its file:line.
func (f *File) cases(i int) ([]Case, []Problem) {
	d := f.Datasets[i]
	field := joinIndex("datasets", i)
	var rows []datasetRow
	var problems []Problem
	if d.File != "" {
		path := filepath.Join(f.Dir(), filepath.FromSlash(d.File))
		lim := f.Limits.Resolved()
		data, err := readDataset(path, lim.DatasetBytes)
		if err != nil {
			return nil, f.problem(field+".file", "%v", err).(*LoadError).Problems
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".csv":
			rows, problems = csvRows(path, data, lim.DatasetRows)
		case ".jsonl":
			rows, problems = jsonlRows(path, data, lim.DatasetRows)
		default:
			return nil, f.problem(field+".file", "%s: expected a .csv or .jsonl file", d.File).(*LoadError).Problems
		}
	}
	for j, r := range d.Rows {
		rf := joinIndex(field+".rows", j)
		at := f.Pos(rf)
		o, _ := r.V.(*engine.Object)
		row := datasetRow{vars: map[string]string{}, file: f.Path, line: at.Line, col: at.Col, field: rf}
		for _, k := range o.Keys() {
			v, _ := o.Get(k)
			row.vars[k] = scalarString(v)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 && len(problems) == 0 {
		problems = append(problems, f.problem(field, "the dataset has no rows").(*LoadError).Problems...)
	}
	var out []Case
	seen := map[string]datasetRow{}
	for j, row := range rows {
		name := "case-" + strconv.Itoa(j+1)
		if d.Name != "" {
			var missing []string
			name = substitute(d.Name, row.vars, &missing)
			if len(missing) > 0 {
				problems = append(problems, row.problem("the row has no %s for the case name (%s.name %q)", strings.Join(uniq(missing), ", "), field, d.Name))
				continue
			}
		}
		if !caseNameRE.MatchString(name) {
			problems = append(problems, row.problem("case name %q (%s.name): use letters, digits, '_', '.' and '-' (it names cassette folders)", name, field))
			continue
		}
		if first, dup := seen[name]; dup {
			problems = append(problems, row.problem("case name %q is also the row's at %s (%s.name)", name, first.at(), field))
			continue
		}
		seen[name] = row
		out = append(out, Case{Name: name, Vars: row.vars, At: row.at()})
	}
	return out, problems
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

// readDataset reads the dataset file at path, refusing one larger than
// max bytes before it is read whole.
func readDataset(path string, max int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %s", path, harness.Limits{DatasetBytes: max}.DatasetBytesMessage())
	}
	return data, nil
}

// maxDatasetProblems is how many problems a dataset file's reading
// reports before it stops: a file of a million bad lines gives a hundred
// messages, not a million.
const maxDatasetProblems = 100

// rowBudget counts a dataset file's rows and problems against their
// bounds; full reports whether reading must stop (it has then added the
// problem that says why).
type rowBudget struct {
	path     string
	maxRows  int
	problems *[]Problem
}

func (b rowBudget) full(rows, line int) bool {
	switch {
	case rows > b.maxRows:
		*b.problems = append(*b.problems, Problem{File: b.path, Line: line, Col: 1, Message: harness.Limits{DatasetRows: b.maxRows}.DatasetRowsMessage()})
		return true
	case len(*b.problems) >= maxDatasetProblems:
		*b.problems = append(*b.problems, Problem{File: b.path, Line: line, Col: 1, Message: fmt.Sprintf("%d problems: the rest of the file is not read", len(*b.problems))})
		return true
	}
	return false
}

// csvRows reads a CSV file whose first row names the variables (spaces
// around a name and a UTF-8 byte order mark are dropped). Every problem
// is at its line and column: a row with another number of fields than
// the header, a bad quote, an empty or repeated column name.
func csvRows(path string, data []byte, maxRows int) ([]datasetRow, []Problem) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	rd := csv.NewReader(bytes.NewReader(data))
	var (
		head     []string
		rows     []datasetRow
		problems []Problem
	)
	at := func(line, col int, field, format string, args ...any) {
		problems = append(problems, Problem{File: path, Line: line, Col: col, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	budget := rowBudget{path: path, maxRows: maxRows, problems: &problems}
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			at(pe.Line, max(pe.Column, 1), "", "%v", pe.Err)
			if !errors.Is(pe.Err, csv.ErrFieldCount) || budget.full(len(rows), pe.Line) {
				return nil, problems // the rest cannot be read reliably
			}
			continue
		}
		if err != nil {
			at(0, 0, "", "%v", err)
			return nil, problems
		}
		line, _ := rd.FieldPos(0)
		if head == nil {
			head = make([]string, len(rec))
			seen := map[string]int{}
			for i, h := range rec {
				h = strings.TrimSpace(h)
				head[i] = h
				_, col := rd.FieldPos(i)
				switch k, dup := seen[h]; {
				case h == "":
					at(line, col, "", "column %d has no name: the first row names the variables", i+1)
				case dup:
					at(line, col, h, "column %d has the name of column %d", i+1, k+1)
				default:
					seen[h] = i
				}
			}
			continue
		}
		if budget.full(len(rows)+1, line) {
			return nil, problems
		}
		row := datasetRow{vars: map[string]string{}, file: path, line: line, col: 1}
		for i, h := range head {
			row.vars[h] = rec[i]
		}
		rows = append(rows, row)
	}
	switch {
	case head == nil:
		at(0, 0, "", "no header row: the first row names the variables")
	case len(rows) == 0 && len(problems) == 0:
		at(0, 0, "", "no rows under the header")
	}
	return rows, problems
}

// jsonlRows reads a JSON Lines file: one JSON object per line, whose
// values are strings, numbers, booleans or null (a number keeps its
// text; null is ""); blank lines are skipped. Every problem is at its
// line and column, and names the key it concerns.
func jsonlRows(path string, data []byte, maxRows int) ([]datasetRow, []Problem) {
	var rows []datasetRow
	var problems []Problem
	budget := rowBudget{path: path, maxRows: maxRows, problems: &problems}
	for n := 0; len(data) > 0; n++ {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		line = bytes.TrimSuffix(line, []byte("\r"))
		if n == 0 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if budget.full(len(rows)+1, n+1) {
			return nil, problems
		}
		vars, ps := jsonlRow(line)
		for _, p := range ps {
			p.File, p.Line = path, n+1
			problems = append(problems, p)
		}
		if len(ps) == 0 {
			rows = append(rows, datasetRow{vars: vars, file: path, line: n + 1, col: 1})
		}
	}
	if len(rows) == 0 && len(problems) == 0 {
		problems = append(problems, Problem{File: path, Message: "no rows: a .jsonl dataset has one JSON object per line"})
	}
	return rows, problems
}

// jsonlRow reads one line of a JSON Lines dataset; its problems have a
// column and, when they concern a key, that key as Field.
func jsonlRow(line []byte) (map[string]string, []Problem) {
	col := func(off int64) int { return utf8.RuneCount(line[:min(int(off), len(line))]) + 1 }
	// start is where the next token begins, past spaces and a comma
	start := func(off int64) int {
		i := int(off)
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == ',' || line[i] == ':') {
			i++
		}
		return col(int64(i))
	}
	syntax := func(err error, off int64) []Problem {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return []Problem{{Col: col(int64(len(line))), Message: "the line ends inside its JSON object"}}
		}
		return []Problem{{Col: col(off), Message: "not JSON: " + strings.TrimPrefix(err.Error(), "json: ")}}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, syntax(err, dec.InputOffset())
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, []Problem{{Col: start(0), Message: fmt.Sprintf("a row is a JSON object, not %s", jsonKind(tok))}}
	}
	vars := map[string]string{}
	var problems []Problem
	for dec.More() {
		kc := start(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(err, dec.InputOffset())
		}
		key, _ := tok.(string)
		vc := start(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			ps := syntax(err, 0)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				ps[0].Col = vc // the bad value starts here
			}
			return nil, ps
		}
		if _, dup := vars[key]; dup {
			problems = append(problems, Problem{Col: kc, Field: key, Message: "the key is in the row twice"})
			continue
		}
		v, err := engine.DecodeJSON(raw)
		if err != nil {
			return nil, syntax(err, dec.InputOffset())
		}
		switch v.(type) {
		case *engine.Object, []any:
			problems = append(problems, Problem{Col: vc, Field: key, Message: fmt.Sprintf("values are strings, numbers, booleans or null, not %s", jsonKind(v))})
			continue
		}
		vars[key] = scalarString(v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntax(err, dec.InputOffset())
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return nil, []Problem{{Col: start(end), Message: "one JSON object per line: more follows the row's"}}
	}
	return vars, problems
}

// jsonKind names a JSON value's kind for messages.
func jsonKind(v any) string {
	switch v := v.(type) {
	case *engine.Object:
		return "an object"
	case []any:
		return "an array"
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
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
		return nil, fmt.Errorf("%s: case %s (%s): no value for {{%s}}", s.File, c.Name, c.At, strings.Join(uniq(missing), "}}, {{"))
	}
	filled := out.Interface().(*harness.Scenario)
	filled.Placeholders = nil // every one is filled: a case is not a template
	return filled, nil
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
