// Package pgtest starts a throwaway PostgreSQL server for tests: initdb
// and pg_ctl from the machine's PostgreSQL, a data directory and a Unix
// socket in a temporary directory, no TCP port, trust authentication,
// fsync off. A test binary starts one (Start, typically from the first
// test that needs it) and stops it in TestMain; each test takes a schema
// of its own (Server.NewSchema), which is much cheaper than a database.
//
// The binaries are looked up on PATH, then under
// /usr/lib/postgresql/*/bin (Debian's layout), the highest version first.
// Where none is installed Start returns an error wrapping ErrNotInstalled,
// on which tests skip.
//
// initdb and postgres refuse to run as root. When the test runs as root
// (CI containers), they run as an unprivileged user — "postgres" when the
// system has one, else "nobody" — through runuser (or setpriv), in a
// temporary directory that user owns.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// ErrNotInstalled is wrapped by Start's error when no PostgreSQL binaries
// are found.
var ErrNotInstalled = errors.New("PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql/*/bin)")

// Server is a running throwaway server.
type Server struct {
	dir  string // temporary directory: data/, the socket, log
	bin  string // directory of initdb, pg_ctl, postgres
	as   *user.User
	mu   sync.Mutex
	next int
}

// findBin returns the directory holding initdb and pg_ctl.
func findBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "pg_ctl")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", ErrNotInstalled
}

// Start initializes and starts a server. Stop it with Stop.
func Start(ctx context.Context) (*Server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	// a short path: a Unix socket's path is limited to about 100 bytes
	dir, err := os.MkdirTemp("", "pg")
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	s := &Server{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		if s.as, err = unprivileged(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("start postgres as root: %w", err)
		}
		uid, _ := strconv.Atoi(s.as.Uid)
		gid, _ := strconv.Atoi(s.as.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("start postgres as %s: %w", s.as.Username, err)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := s.run(ctx, "initdb", "-D", data, "-U", "agenteval", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	opts := fmt.Sprintf("-k %s -c listen_addresses= -F -c full_page_writes=off -c synchronous_commit=off -c max_connections=200", dir)
	if out, err := s.run(ctx, "pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	return s, nil
}

// unprivileged returns the user the server runs as when the test runs as
// root.
func unprivileged() (*user.User, error) {
	for _, name := range []string{"postgres", "nobody"} {
		if u, err := user.Lookup(name); err == nil {
			return u, nil
		}
	}
	return nil, errors.New("initdb refuses root, and there is no postgres or nobody user to run it as")
}

// run runs one of the server's programs, as the unprivileged user when
// there is one.
func (s *Server) run(ctx context.Context, prog string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, prog)
	var cmd *exec.Cmd
	switch {
	case s.as == nil:
		cmd = exec.CommandContext(ctx, path, args...)
	case haveCmd("runuser"):
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", s.as.Username, "--", path}, args...)...)
	case haveCmd("setpriv"):
		cmd = exec.CommandContext(ctx, "setpriv", append([]string{"--reuid=" + s.as.Uid, "--regid=" + s.as.Gid, "--clear-groups", path}, args...)...)
	default:
		return nil, errors.New("running as root needs runuser or setpriv to start PostgreSQL as an unprivileged user")
	}
	cmd.Dir = s.dir
	// pg_ctl -w waits for the server, not for its output: do not hold
	// pipes the server inherits
	f, err := os.CreateTemp("", "pgtest-out")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	err = cmd.Run()
	out, _ := os.ReadFile(f.Name())
	return out, err
}

func haveCmd(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// DSN returns the connection string of the server's postgres database,
// with search_path set to schema when it is not empty.
func (s *Server) DSN(schema string) string {
	dsn := fmt.Sprintf("host=%s port=5432 user=agenteval dbname=postgres sslmode=disable", s.dir)
	if schema != "" {
		dsn += " search_path=" + schema
	}
	return dsn
}

// NewSchema creates a fresh, empty schema and returns the connection
// string that uses it.
func (s *Server) NewSchema(ctx context.Context, prefix string) (string, error) {
	s.mu.Lock()
	s.next++
	name := fmt.Sprintf("%s_%d", strings.ToLower(prefix), s.next)
	s.mu.Unlock()
	if err := s.Exec(ctx, "", "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", err
	}
	return s.DSN(name), nil
}

// Exec runs SQL statements on one connection with search_path schema.
func (s *Server) Exec(ctx context.Context, schema, sql string, args ...any) error {
	conn, err := pgx.Connect(ctx, s.DSN(schema))
	if err != nil {
		return fmt.Errorf("connect to the test server: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("exec %q: %w", sql, err)
	}
	return nil
}

// Stop stops the server at once and removes its directory.
func (s *Server) Stop() error {
	_, err := s.run(context.Background(), "pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop")
	return errors.Join(err, os.RemoveAll(s.dir))
}
