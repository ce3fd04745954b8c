package grade

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// DefaultCommandTimeout is how long a command grader may run when its
// Timeout is not set.
const DefaultCommandTimeout = 30 * time.Second

// Command is a grader outside Go: a program that reads the run on stdin,
// as the JSON report shows a scenario (Env.Record), and writes one JSON
// object on stdout, {"score": <0 to 1>, "reason": "..."}. It runs in the
// scenario file's directory (Env.Dir). A program that exits with a
// status other than 0, runs out of time, or writes anything else is an
// error, not a score of 0.
type Command struct {
	// Run is the program and its arguments. A program path with a slash
	// is relative to the scenario file's directory; one without is looked
	// up in PATH ("sh", "node").
	Run []string `json:"run"`
	// Timeout is how long it may run, as a Go duration ("10s"); default
	// 30s.
	Timeout string `json:"timeout,omitempty"`
}

// timeout is the command's time limit.
func (c *Command) timeout() (time.Duration, error) {
	if c.Timeout == "" {
		return DefaultCommandTimeout, nil
	}
	d, err := time.ParseDuration(c.Timeout)
	if err != nil {
		return 0, fmt.Errorf("want a duration such as \"10s\": %w", err)
	}
	if d <= 0 {
		return 0, fmt.Errorf("want a positive duration, got %s", c.Timeout)
	}
	return d, nil
}

// command runs a command grader.
func (env Env) command(ctx context.Context, c *Command) (Score, error) {
	if len(c.Run) == 0 {
		return Score{}, errors.New("command: run names no program")
	}
	if env.Record == nil {
		return Score{}, errors.New("command: no run record to send (grade.Env.Record)")
	}
	limit, err := c.timeout()
	if err != nil {
		return Score{}, fmt.Errorf("command: timeout: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	prog := c.Run[0]
	if strings.ContainsRune(prog, '/') && !filepath.IsAbs(prog) {
		prog = filepath.Join(env.Dir, prog)
	}
	cmd := exec.CommandContext(ctx, prog, c.Run[1:]...)
	cmd.Dir = env.Dir
	cmd.Stdin = bytes.NewReader(env.Record)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// a child that keeps the pipes open does not hold the grader past
	// its time
	cmd.WaitDelay = time.Second
	name := strings.Join(c.Run, " ")
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return Score{}, fmt.Errorf("command %q: timed out after %s", name, limit)
	}
	if err != nil {
		msg := fmt.Sprintf("command %q: %v", name, err)
		if line := firstLine(stderr.String()); line != "" {
			msg += ": " + line
		}
		return Score{}, errors.New(msg)
	}
	s, err := ParseScoreJSON(bytes.TrimSpace(stdout.Bytes()))
	if err != nil {
		return Score{}, fmt.Errorf("command %q: stdout: %w, got %s", name, err, quoteText(stdout.String()))
	}
	return s, nil
}
