// Package pgtest gives tests a PostgreSQL server: the one named by
// $BYREF_POSTGRES_URL, or a throwaway one that the test binary starts from
// the installed binaries (initdb and postgres, found on PATH, then under
// /usr/lib/postgresql/*/bin, Debian's layout), in a temporary directory,
// listening on a unix socket only, and as the unprivileged user "nobody"
// when the tests run as root (PostgreSQL refuses to run as root).
//
// One server serves the whole test binary: it starts at the first
// [Start] and stops when [Main] returns.
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestX(t *testing.T) {
//		url := pgtest.Start(t).Database(t) // a new, empty database
//		…
//	}
//
// Without PostgreSQL a test that calls Start is skipped, except in CI
// (CI=true), where it fails.
//
// $BYREF_POSTGRES_URL, when set, is a postgres:// URL of a role that may
// create databases and end other sessions (a superuser on a disposable
// server): tests create databases there and drop them, and never stop or
// restart that server.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the environment variable of an existing server's URL.
const EnvURL = "BYREF_POSTGRES_URL"

// Server is a PostgreSQL server for tests.
type Server struct {
	url      string // of the maintenance database
	external bool   // from EnvURL: never stopped nor restarted
	bin      string // the directory of postgres and initdb
	dir      string // data directory and socket directory's parent
	cred     *syscall.Credential
	dbs      atomic.Int64 // databases made by Database

	mu     sync.Mutex
	cmd    *exec.Cmd  // the running postgres, nil when stopped
	exited chan error // gets cmd's exit
}

var (
	once    sync.Once
	server  *Server
	missing error // why there is no server
)

// Main runs the tests and stops the throwaway server if one was started.
// Call it from TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	if server != nil && !server.external {
		if err := server.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest: stopping the server:", err)
		}
		os.RemoveAll(server.dir)
	}
	return code
}

// Start returns the test binary's server, starting it on the first call.
// Without PostgreSQL it skips the test, or fails it in CI.
func Start(t testing.TB) *Server {
	t.Helper()
	once.Do(func() {
		server, missing = start()
	})
	if missing != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("this test needs PostgreSQL: %v", missing)
		}
		t.Skipf("skipping: %v", missing)
	}
	return server
}

// External reports whether the server is the one $BYREF_POSTGRES_URL
// names, which tests must not stop.
func (s *Server) External() bool { return s.external }

// URL returns the URL of the server's maintenance database ("postgres"),
// as a superuser.
func (s *Server) URL() string { return s.url }

// Database creates a new, empty database and returns its URL; the
// database is dropped when the test ends.
func (s *Server) Database(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("byreftest_%d_%d", os.Getpid(), s.dbs.Add(1))
	if err := s.exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating a test database: %v", err)
	}
	t.Cleanup(func() {
		if err := s.exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping the test database %s: %v", name, err)
		}
	})
	return WithDatabase(s.url, name)
}

// WithDatabase returns the URL u naming database db instead.
func WithDatabase(u, db string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u // Start checked it
	}
	p.Path = "/" + db
	return p.String()
}

// exec runs one statement on the maintenance database.
func (s *Server) exec(ctx context.Context, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// Stop stops the throwaway server (fast shutdown: sessions are ended).
// The test is skipped when the server is external.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if s.external {
		t.Skipf("skipping: the server of $%s is not stopped by tests", EnvURL)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("stopping PostgreSQL: %v", err)
	}
}

// Restart starts the server again after Stop, on the same data and
// socket, and waits until it accepts connections.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if s.external {
		t.Skipf("skipping: the server of $%s is not restarted by tests", EnvURL)
	}
	if err := s.run(); err != nil {
		t.Fatalf("restarting PostgreSQL: %v", err)
	}
}

// start makes the test binary's server.
func start() (*Server, error) {
	if u := os.Getenv(EnvURL); u != "" {
		if _, err := url.Parse(u); err != nil || !strings.HasPrefix(u, "postgres") {
			return nil, fmt.Errorf("$%s is not a postgres:// URL: %q", EnvURL, u)
		}
		s := &Server{url: u, external: true}
		if err := s.exec(context.Background(), "SELECT 1"); err != nil {
			return nil, fmt.Errorf("connecting to $%s: %w", EnvURL, err)
		}
		return s, nil
	}
	bin, err := binaries()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin}
	// As root, the server runs as nobody, who must reach the directory:
	// /tmp, not a $TMPDIR that may sit in root's home. It is short too,
	// as a unix socket's path must be.
	parent := ""
	if os.Geteuid() == 0 {
		parent = "/tmp"
	}
	if s.dir, err = os.MkdirTemp(parent, "byref-pg-"); err != nil {
		return nil, err
	}
	if err := s.initdb(); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	s.url = (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/postgres",
		RawQuery: url.Values{"host": {s.dir}, "sslmode": {"disable"}}.Encode()}).String()
	if err := s.run(); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	return s, nil
}

// binaries finds the directory holding initdb and postgres.
func binaries() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) }) // newest first
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	return "", errors.New("PostgreSQL is not installed (no initdb on PATH nor in /usr/lib/postgresql/*/bin); " +
		"install it (apt-get install postgresql) or set " + EnvURL + " to a server's URL")
}

// version is the major version in a /usr/lib/postgresql/N/bin path.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// initdb makes the data directory, owned by an unprivileged user when the
// tests run as root.
func (s *Server) initdb() error {
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			return fmt.Errorf("running as root, PostgreSQL needs an unprivileged user, and there is no user nobody: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(s.dir, uid, gid); err != nil {
			return err
		}
	}
	cmd := s.command("initdb", "-D", filepath.Join(s.dir, "data"), "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	return nil
}

// command is one of the server's binaries, run as the server's user.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	// The server dies with the test binary, however the binary ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGQUIT}
	return cmd
}

// run starts postgres and waits until it accepts connections.
func (s *Server) run() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("the server is running")
	}
	logf, err := os.OpenFile(filepath.Join(s.dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := s.command("postgres", "-D", filepath.Join(s.dir, "data"),
		"-c", "listen_addresses=", "-c", "unix_socket_directories="+s.dir,
		"-c", "max_connections=200", "-c", "shared_buffers=32MB")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		if err := s.exec(ctx, "SELECT 1"); err == nil {
			s.cmd, s.exited = cmd, exited
			return nil
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
			return fmt.Errorf("postgres exited: %v\n%s", err, log)
		case <-ctx.Done():
			cmd.Process.Kill()
			return errors.New("postgres did not accept connections within 2 minutes")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop stops postgres with a fast shutdown and waits for it to exit.
func (s *Server) stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil
	}
	cmd := s.cmd
	s.cmd = nil
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		return err
	}
	<-s.exited
	return nil
}
