package llm

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// wireReply is one scripted answer of a wireServer.
type wireReply struct {
	status int               // 0 means 200
	header map[string]string // extra response headers
	body   string            // a JSON (or deliberately broken) body
	sse    []string          // server-sent events, each written and flushed in turn
	hang   bool              // wait until the client gives up
}

// wireServer is an httptest server that speaks a provider's wire format from
// a script, and records what the client sent.
type wireServer struct {
	t    *testing.T
	srv  *httptest.Server
	path string

	mu      sync.Mutex
	replies []wireReply
	bodies  []map[string]any
	raw     []string
	headers []http.Header
}

// newWireServer serves replies in order at path (e.g. "/v1/chat/completions").
func newWireServer(t *testing.T, path string, replies ...wireReply) *wireServer {
	t.Helper()
	w := &wireServer{t: t, path: path, replies: replies}
	w.srv = httptest.NewServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.srv.Close)
	return w
}

// URL returns the server's base URL plus suffix.
func (w *wireServer) URL(suffix string) string { return w.srv.URL + suffix }

func (w *wireServer) serve(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path != w.path {
		http.Error(rw, `{"error":{"message":"wrong path `+r.URL.Path+`"}}`, http.StatusNotFound)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	w.mu.Lock()
	w.bodies = append(w.bodies, body)
	w.raw = append(w.raw, string(b))
	w.headers = append(w.headers, r.Header.Clone())
	if len(w.replies) == 0 {
		w.mu.Unlock()
		http.Error(rw, `{"error":{"message":"script exhausted"}}`, http.StatusTeapot)
		return
	}
	reply := w.replies[0]
	w.replies = w.replies[1:]
	w.mu.Unlock()

	if reply.hang {
		<-r.Context().Done()
		return
	}
	for k, v := range reply.header {
		rw.Header().Set(k, v)
	}
	status := reply.status
	if status == 0 {
		status = http.StatusOK
	}
	if reply.sse != nil {
		rw.Header().Set("Content-Type", "text/event-stream")
		rw.WriteHeader(status)
		f, _ := rw.(http.Flusher)
		for _, ev := range reply.sse {
			_, _ = io.WriteString(rw, ev)
			if !strings.HasSuffix(ev, "\n\n") {
				_, _ = io.WriteString(rw, "\n\n")
			}
			if f != nil {
				f.Flush()
			}
		}
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	_, _ = io.WriteString(rw, reply.body)
}

// requests returns how many requests the server received.
func (w *wireServer) requests() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.bodies)
}

// body returns the decoded JSON body of request i.
func (w *wireServer) body(i int) map[string]any {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if i >= len(w.bodies) {
		w.t.Fatalf("server got %d requests, want at least %d", len(w.bodies), i+1)
	}
	return w.bodies[i]
}

// header returns the headers of request i.
func (w *wireServer) header(i int) http.Header {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if i >= len(w.headers) {
		w.t.Fatalf("server got %d requests, want at least %d", len(w.headers), i+1)
	}
	return w.headers[i]
}

// jsonPath walks a decoded JSON value by keys and indexes, e.g.
// jsonPath(body, "messages", 2, "tool_calls", 0, "id").
func jsonPath(t *testing.T, v any, path ...any) any {
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

// noEnv is a Getenv that sees an empty environment.
func noEnv(string) string { return "" }

// weatherTool is the tool most tests offer.
var weatherTool = Tool{
	Name:        "get_weather",
	Description: "Current weather for a city.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
}

// timeTool is the second tool of parallel-call tests.
var timeTool = Tool{
	Name:        "get_time",
	Description: "Current time in a city.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/city_possible_variables"}]}},"$defs":{"city_possible_variables":{"type":"string","enum":["<<var:home>>"]}}}`),
}
