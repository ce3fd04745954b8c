package grade

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agenteval/agenteval/internal/hostenv"
)

// DefaultCommandTimeout is how long a command grader may run when its
// Timeout is not set.
const DefaultCommandTimeout = 30 * time.Second

// MaxCommandOutputBytes caps what a command grader may write to its
// stdout, where its answer is one JSON object: 16 MiB. A program that
// writes more is killed and the grader errors naming the limit; nothing
// past the limit is held.
const MaxCommandOutputBytes = 16 << 20

// MaxCommandStderrBytes is how much of a command grader's stderr is
// kept for its error message (which shows its first line); the rest is
// read and dropped.
const MaxCommandStderrBytes = 64 << 10

// Command is a grader outside Go: a program that reads the run on stdin,
// as the JSON report shows a scenario (Env.Record), and writes one JSON
// object on stdout, {"score": <0 to 1>, "reason": "..."}. It runs in the
// scenario file's directory (Env.Dir). A program that exits with a
// status other than 0, runs out of time, or writes anything else is an
// error, not a score of 0, and so is one that writes more than
// MaxCommandOutputBytes to stdout. Its environment is the allow list of
// harmless variables of package hostenv (PATH, HOME, the locale, ...):
// no credential of agenteval's environment reaches it.
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
	cmd.Env = hostenv.Clean(os.Environ())
	cmd.Stdin = bytes.NewReader(env.Record)
	stdout := &cappedBuffer{max: MaxCommandOutputBytes, over: cancel}
	stderr := &cappedBuffer{max: MaxCommandStderrBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// a child that keeps the pipes open does not hold the grader past
	// its time
	cmd.WaitDelay = time.Second
	name := strings.Join(c.Run, " ")
	err = cmd.Run()
	if stdout.exceeded {
		return Score{}, fmt.Errorf("command %q: it wrote more than %s to its stdout, the limit of a command grader's answer (grade.MaxCommandOutputBytes); it was killed", name, mib(MaxCommandOutputBytes))
	}
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

// cappedBuffer holds what a program writes up to max bytes. Past max it
// holds nothing more: with over set, it calls over (which kills the
// program) and fails the write, which closes the pipe; without, it drops
// the rest quietly.
type cappedBuffer struct {
	buf      bytes.Buffer
	max      int
	over     func()
	exceeded bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	room := b.max - b.buf.Len()
	if len(p) <= room {
		return b.buf.Write(p)
	}
	b.buf.Write(p[:max(room, 0)])
	if b.over == nil {
		return len(p), nil
	}
	if !b.exceeded {
		b.exceeded = true
		b.over()
	}
	return 0, errOutputLimit
}

// errOutputLimit ends the copy of a program's output past its limit.
var errOutputLimit = errors.New("output limit reached")

// Bytes returns what was held.
func (b *cappedBuffer) Bytes() []byte { return b.buf.Bytes() }

// String returns what was held.
func (b *cappedBuffer) String() string { return b.buf.String() }

// mib writes a size in whole MiB ("16MiB"), in KiB below.
func mib(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}
