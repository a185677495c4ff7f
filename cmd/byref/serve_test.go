package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver run/sqlite uses, for integrity_check

	"github.com/byref/byref/internal/syncbuf"
)

// served is a byref serve (or byref worker) process.
type served struct {
	t    *testing.T
	cmd  *exec.Cmd
	base string
	out  *syncbuf.Buffer
	done chan error

	mu    sync.Mutex
	lines []stamped // what it printed to stdout, as it came
}

// stamped is a line a process printed and when the test read it.
type stamped struct {
	at   time.Time
	text string
}

// serve starts byref serve with args on a free port of 127.0.0.1 and
// returns once its banner says it is bound.
func serve(t *testing.T, args ...string) *served {
	t.Helper()
	addr := freeAddr(t)
	s := launch(t, "", append([]string{"serve", "--addr", addr}, args...)...)
	s.base = "http://" + addr
	return s
}

// freeAddr returns an address of 127.0.0.1 whose port was free a moment
// ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// launch starts the byref command with args, in the working directory
// dir ("" for the test's), and returns once it prints the last line of
// its banner ("Ctrl-C stops"); the process is killed when the test ends.
func launch(t *testing.T, dir string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(byrefBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BYREF_DB=", "BYREF_STORE=", "BYREF_MODEL=", "OPENAI_API_KEY=", "BYREF_TOKEN=", "BYREF_TEMPORAL=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &served{t: t, cmd: cmd, out: &syncbuf.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bound, exited := make(chan struct{}), make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		once := sync.Once{}
		for sc.Scan() {
			s.mu.Lock()
			s.lines = append(s.lines, stamped{time.Now(), sc.Text()})
			s.mu.Unlock()
			fmt.Fprintln(s.out, sc.Text())
			if strings.Contains(sc.Text(), "Ctrl-C stops") { // the banner's last line
				once.Do(func() { close(bound) })
			}
		}
		err := cmd.Wait()
		close(exited)
		s.done <- err
	}()
	t.Cleanup(func() {
		// exited, not cmd.ProcessState: Wait writes that on the goroutine
		// above while a test that killed the process may still be ending.
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
		}
	})
	select {
	case <-bound:
	case err := <-s.done:
		t.Fatalf("byref %s exited before its banner: %v\n%s", args[0], err, s.out)
	case <-time.After(time.Minute):
		t.Fatalf("byref %s did not print its banner:\n%s", args[0], s.out)
	}
	return s
}

// printed returns the lines the process printed that contain text.
func (s *served) printed(text string) []stamped {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []stamped
	for _, l := range s.lines {
		if strings.Contains(l.text, text) {
			out = append(out, l)
		}
	}
	return out
}

// stop sends SIGTERM and waits for the process to exit, with code 0.
func (s *served) stop() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.t.Fatal(err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			s.t.Fatalf("byref serve after SIGTERM: %v\n%s", err, s.out)
		}
		if !strings.Contains(s.out.String(), "byref: stopped; runs awaiting") {
			s.t.Errorf("byref serve stopped without saying where awaiting runs are kept:\n%s", s.out)
		}
	case <-time.After(time.Minute):
		s.t.Fatalf("byref serve did not stop after SIGTERM:\n%s", s.out)
	}
}

// acpRun is the part of an ACP run the test reads.
type acpRun struct {
	RunID  string `json:"run_id"`
	Status string `json:"status"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Kind string `json:"kind"`
		} `json:"data"`
	} `json:"error"`
	Output []struct {
		Parts []struct {
			Content string `json:"content"`
		} `json:"parts"`
	} `json:"output"`
}

func (s *served) post(path, body string) acpRun {
	s.t.Helper()
	resp, err := http.Post(s.base+path, "application/json", strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	return s.decode(resp, path)
}

func (s *served) get(path string) acpRun {
	s.t.Helper()
	resp, err := http.Get(s.base + path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	return s.decode(resp, path)
}

func (s *served) decode(resp *http.Response, path string) acpRun {
	s.t.Helper()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		s.t.Fatalf("%s: %s: %s", path, resp.Status, b)
	}
	var r acpRun
	if err := json.Unmarshal(b, &r); err != nil {
		s.t.Fatalf("%s: %v: %s", path, err, b)
	}
	return r
}

func create(task, mode string) string {
	b, _ := json.Marshal(map[string]any{"agent_name": "byref", "mode": mode,
		"input": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"content_type": "text/plain", "content": task}}}}})
	return string(b)
}

// waitStatus polls the run until it has the status.
func (s *served) waitStatus(id, status string) {
	s.t.Helper()
	for range 600 {
		if s.get("/runs/"+id).Status == status {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("run %s never became %s", id, status)
}

// TestServeStopsWithoutLosingRuns sends SIGTERM to a byref serve process
// holding awaiting, running and streaming runs, restarts it on the same
// database, and checks that every awaiting run resumes to completed and
// every running run completed or was marked interrupted, with the SQLite
// log intact.
func TestServeStopsWithoutLosingRuns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	args := []string{"--db", db, "--model", "scripted:lifecycle", "--grace", "3s"}
	s := serve(t, args...)

	var awaiting []string
	for range 3 {
		r := s.post("/runs", create("compute the answer", "sync"))
		if r.Status != "awaiting" {
			t.Fatalf("run %s is %s, want awaiting", r.RunID, r.Status)
		}
		awaiting = append(awaiting, r.RunID)
	}
	// Steps that finish within the grace, and steps that do not.
	quick := []string{s.post("/runs", create("sleep 1s: quick", "async")).RunID}
	slow := []string{s.post("/runs", create("sleep 1h: slow", "async")).RunID}
	// A stream of each kind, read as the server stops.
	type streamed struct {
		events []string
		err    error
	}
	streams := map[string]chan streamed{}
	for _, task := range []string{"sleep 1500ms: quick stream", "sleep 1h: slow stream"} {
		resp, err := http.Post(s.base+"/runs", "application/json", strings.NewReader(create(task, "stream")))
		if err != nil {
			t.Fatal(err)
		}
		id := resp.Header.Get("Run-ID")
		if strings.HasPrefix(task, "sleep 1h") {
			slow = append(slow, id)
		} else {
			quick = append(quick, id)
		}
		ch := make(chan streamed, 1)
		streams[id] = ch
		go func() {
			defer resp.Body.Close()
			var st streamed
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if ev, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					var e struct{ Type string }
					_ = json.Unmarshal([]byte(ev), &e)
					st.events = append(st.events, e.Type)
				}
			}
			st.err = sc.Err()
			ch <- st
		}()
	}
	for _, id := range append(append([]string{}, quick...), slow...) {
		s.waitStatus(id, "in-progress")
	}

	s.stop()
	for id, ch := range streams {
		st := <-ch
		last := ""
		if len(st.events) > 0 {
			last = st.events[len(st.events)-1]
		}
		if last != "run.completed" && last != "run.failed" {
			t.Errorf("the stream of run %s ended with %q (%v), want its end: %v", id, last, st.err, st.events)
		}
	}

	// The log is intact.
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	var check string
	if err := conn.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
	conn.Close()

	s = serve(t, args...)
	for _, id := range awaiting {
		if r := s.get("/runs/" + id); r.Status != "awaiting" {
			t.Fatalf("after the restart, run %s is %s, want awaiting", id, r.Status)
		}
		r := s.post("/runs/"+id, `{"await_resume":{"type":"message","message":{"role":"user","parts":[{"content_type":"text/plain","content":"approve"}]}},"mode":"sync"}`)
		if r.Status != "completed" || len(r.Output) == 0 || r.Output[len(r.Output)-1].Parts[0].Content != "42" {
			t.Errorf("resumed after the restart, run %s: %+v", id, r)
		}
	}
	for _, id := range quick {
		if r := s.get("/runs/" + id); r.Status != "completed" {
			t.Errorf("run %s, whose step ends within the grace, is %s, want completed", id, r.Status)
		}
	}
	for _, id := range slow {
		r := s.get("/runs/" + id)
		if r.Status != "failed" || r.Error == nil || !strings.HasPrefix(r.Error.Message, "interrupted") || r.Error.Data.Kind != "interrupted" {
			t.Errorf("run %s, whose step outlasts the grace, is %+v, want failed as interrupted", id, r)
		}
	}
	s.stop()
	if out := s.out.String(); !strings.Contains(out, "3 runs awaiting before the restart go on") {
		t.Errorf("the restarted server does not say it restored the awaiting runs:\n%s", out)
	}
}
