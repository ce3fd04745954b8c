package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// Summary is the outcome of a set of vectors.
type Summary struct {
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	Skipped int      `json:"skipped,omitempty"`
	Vectors []Result `json:"vectors"`
}

// RunAll runs the vectors whose API is in apis (all when apis is empty).
func RunAll(ctx context.Context, vectors []*Vector, apis map[string]bool, opts Options) Summary {
	var s Summary
	s.Vectors = []Result{}
	for _, v := range vectors {
		if len(apis) > 0 && !apis[v.API] {
			continue
		}
		r := Run(ctx, v, opts)
		switch r.Status {
		case StatusPass:
			s.Passed++
		case StatusFail:
			s.Failed++
		default:
			s.Skipped++
		}
		s.Vectors = append(s.Vectors, r)
	}
	return s
}

// WriteText prints one line per vector and the summary line
// "N passed, M failed".
func (s Summary) WriteText(w io.Writer) error {
	for _, r := range s.Vectors {
		var err error
		switch r.Status {
		case StatusPass:
			_, err = fmt.Fprintf(w, "PASS %s\n", r.Name)
		case StatusFail:
			_, err = fmt.Fprintf(w, "FAIL %s: %s\n", r.Name, r.Diff)
		default:
			_, err = fmt.Fprintf(w, "SKIP %s: %s\n", r.Name, r.Diff)
		}
		if err != nil {
			return err
		}
	}
	line := fmt.Sprintf("%d passed, %d failed", s.Passed, s.Failed)
	if s.Skipped > 0 {
		line += fmt.Sprintf(", %d skipped", s.Skipped)
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// WriteJSON prints {"passed","failed","vectors":[{"name","api","status","diff"}]}.
func (s Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
