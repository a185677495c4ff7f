package server_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

func TestMountedHandlers(t *testing.T) {
	s, err := server.New(server.Options{Agents: testAgents(nil), Token: "s3cret", MaxBody: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.HandlePublic("/public", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") }))
	s.Handle("/guarded", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		w.Write(b)
	}))
	do := func(method, path, token, body string) int {
		t.Helper()
		req, _ := http.NewRequest(method, path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := &recorder{header: http.Header{}}
		s.ServeHTTP(rec, req)
		return rec.status
	}
	for _, c := range []struct {
		method, path, token, body string
		want                      int
	}{
		{"GET", "/public", "", "", 200},
		{"POST", "/public", "", "", 405},
		{"POST", "/guarded", "", `{}`, 401},
		{"POST", "/guarded", "s3cret", `{}`, 200},
		{"POST", "/guarded", "s3cret", `{"x":"` + strings.Repeat("x", 100) + `"}`, 413},
	} {
		if got := do(c.method, c.path, c.token, c.body); got != c.want {
			t.Errorf("%s %s (token %q): %d, want %d", c.method, c.path, c.token, got, c.want)
		}
	}
}

// recorder is a minimal http.ResponseWriter.
type recorder struct {
	header http.Header
	status int
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return len(b), nil
}
func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func TestStartRunAndControl(t *testing.T) {
	s, _ := startServer(t, server.Options{})
	ctx := context.Background()
	if _, err := s.StartRun(ctx, "nobody", server.StartRequest{Task: "x"}); !errors.Is(err, server.ErrUnknownAgent) {
		t.Fatalf("unknown agent: %v", err)
	}
	id, err := s.StartRun(ctx, "awaiter", server.StartRequest{Task: "ask", Session: "s-1", Tags: map[string]string{"via": "test"}})
	if err != nil {
		t.Fatal(err)
	}
	for e, err := range s.Store().Events(ctx, id, 1) {
		if err != nil {
			t.Fatal(err)
		}
		if sc, ok := e.Payload.(run.StatusChanged); ok && sc.To == run.StatusAwaiting {
			break
		}
	}
	sum, err := s.Store().Get(ctx, id)
	if err != nil || sum.Session != "s-1" || sum.Tags["via"] != "test" || sum.Tags[server.TagAgent] != "awaiter" {
		t.Fatalf("run %+v %v", sum, err)
	}
	c, err := s.Control(ctx, id)
	if err != nil || c == nil {
		t.Fatalf("Control: %v %v", c, err)
	}
	if err := c.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Control(ctx, "no-such-run"); c != nil || err != nil {
		t.Fatalf("Control of an unknown run: %v %v", c, err)
	}
}
