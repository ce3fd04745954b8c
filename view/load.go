package view

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agenteval/agenteval/report"
	"github.com/agenteval/agenteval/report/evalreport"
	"github.com/agenteval/agenteval/store"
)

// reportFiles are the JSON reports a report folder may hold: what
// "agenteval run --report-dir" and "agenteval eval --report-dir" write.
var reportFiles = []string{"agenteval.json", "eval.json"}

// LoadReports adds the JSON reports at paths to st (an in-memory store,
// so that the view shows a CI run's report folder without a store): a
// folder's agenteval.json and eval.json, or a report file itself. A file
// that is not a report of a known schema, or that holds a credential, is
// an error naming it. A run is dated by its report's timing, or else by
// the file's modification time.
func LoadReports(ctx context.Context, st *store.Store, paths ...string) error {
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("load reports: %w", err)
		}
		if !info.IsDir() {
			if err := loadReport(ctx, st, p); err != nil {
				return err
			}
			continue
		}
		found := false
		for _, name := range reportFiles {
			f := filepath.Join(p, name)
			if _, err := os.Stat(f); errors.Is(err, os.ErrNotExist) {
				continue
			}
			found = true
			if err := loadReport(ctx, st, f); err != nil {
				return err
			}
		}
		if !found {
			return fmt.Errorf("load reports: %s holds no agenteval.json or eval.json", p)
		}
	}
	return nil
}

func loadReport(ctx context.Context, st *store.Store, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("load reports: %w", err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("load reports: %w", err)
	}
	e := store.Entry{Started: info.ModTime().UTC().Truncate(time.Second)}
	head := data[:min(len(data), 200)]
	switch {
	case bytes.Contains(head, []byte(`"schema": "`+evalreport.Schema+`"`)):
		r, err := evalreport.ReadJSON(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("load reports: %s: %w", path, err)
		}
		e.Eval, e.Suite = r, r.Eval
	default:
		r, err := report.ReadJSON(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("load reports: %s: %w", path, err)
		}
		e.Run, e.Suite = r, filepath.Dir(path)
		if r.Timing != nil {
			if t, err := time.Parse(time.RFC3339, r.Timing.Started); err == nil {
				e.Started = t
			}
		}
	}
	if _, err := st.Add(ctx, e); err != nil {
		return fmt.Errorf("load reports: %s: %w", path, err)
	}
	return nil
}
