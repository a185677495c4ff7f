package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Reply is one scripted answer of a [Server].
type Reply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Header holds extra response headers, e.g. Retry-After.
	Header map[string]string
	// Body is a JSON (or deliberately broken) body.
	Body string
	// SSE are server-sent events, each written and flushed in turn; a
	// "data: …" line without the blank line after it gets one.
	SSE []string
	// Hang waits until the client gives up, and answers nothing.
	Hang bool
	// ContentType, when set, is the Content-Type of Body, which is then
	// written as it is (SSE text, binary event-stream bytes); empty means
	// a JSON body, or text/event-stream for SSE.
	ContentType string
}

// Server is an httptest server on 127.0.0.1 that answers POSTs to any path
// ending in Suffix with its replies in order, and records what it was sent.
// It is safe for concurrent use.
type Server struct {
	t      *testing.T
	srv    *httptest.Server
	suffix string

	mu      sync.Mutex
	replies []Reply
	bodies  []map[string]any
	raw     [][]byte
	headers []http.Header
	paths   []string
}

// NewServer starts a Server answering requests to paths ending in suffix
// ("/chat/completions", "/v1/messages") with replies; it is closed when the
// test ends. A request past the last reply gets HTTP 418.
func NewServer(t *testing.T, suffix string, replies ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, suffix: suffix, replies: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL returns the server's root URL, http://127.0.0.1:port.
func (s *Server) URL() string { return s.srv.URL }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, s.suffix) {
		http.Error(w, `{"error":{"message":"no route for `+r.Method+` `+r.URL.Path+`"}}`, http.StatusNotFound)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.raw = append(s.raw, b)
	s.headers = append(s.headers, r.Header.Clone())
	s.paths = append(s.paths, r.URL.RequestURI())
	if len(s.replies) == 0 {
		s.mu.Unlock()
		http.Error(w, `{"error":{"message":"script exhausted"}}`, http.StatusTeapot)
		return
	}
	reply := s.replies[0]
	s.replies = s.replies[1:]
	s.mu.Unlock()

	if reply.Hang {
		<-r.Context().Done()
		return
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	if reply.SSE != nil {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(status)
		f, _ := w.(http.Flusher)
		for _, ev := range reply.SSE {
			_, _ = io.WriteString(w, ev)
			if !strings.HasSuffix(ev, "\n\n") {
				_, _ = io.WriteString(w, "\n\n")
			}
			if f != nil {
				f.Flush()
			}
		}
		return
	}
	ct := reply.ContentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, reply.Body)
}

// Requests returns how many requests the server received.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// Body returns the decoded JSON body of request i, failing the test when
// there was no such request.
func (s *Server) Body(i int) map[string]any {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.bodies) {
		s.t.Fatalf("the server got %d requests, want at least %d", len(s.bodies), i+1)
	}
	return s.bodies[i]
}

// Raw returns the bytes of request i's body as the client sent them.
func (s *Server) Raw(i int) []byte {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.raw) {
		s.t.Fatalf("the server got %d requests, want at least %d", len(s.raw), i+1)
	}
	return s.raw[i]
}

// Header returns the headers of request i.
func (s *Server) Header(i int) http.Header {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.headers) {
		s.t.Fatalf("the server got %d requests, want at least %d", len(s.headers), i+1)
	}
	return s.headers[i]
}

// Path returns the path of request i, with its query, as the client sent
// it.
func (s *Server) Path(i int) string {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.paths) {
		s.t.Fatalf("the server got %d requests, want at least %d", len(s.paths), i+1)
	}
	return s.paths[i]
}

// Path walks a decoded JSON value by keys and indexes, e.g.
// Path(t, body, "messages", 2, "tool_calls", 0, "id"); it fails the test
// when the value has no such path.
func Path(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %T is not an object", p, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: %v is not an array with that index", p, v)
			}
			v = a[k]
		}
	}
	return v
}
