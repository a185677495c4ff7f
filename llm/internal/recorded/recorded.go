// Package recorded plays the recorded provider exchanges of
// ../shared/recordings (real requests and the answers real provider servers
// gave, collected from other projects' test recordings) to byref's provider
// clients in tests. The recordings are not part of the repository: Dir
// finds them beside it, or where BYREF_RECORDINGS says; a test that needs
// them skips when they are absent, except in CI (CI=true), where it fails.
package recorded

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/byref/byref/llm"
)

// Recording is one recorded exchange, as its file holds it.
type Recording struct {
	Name     string   `json:"name"`
	Provider string   `json:"provider"`
	Features []string `json:"features"`
	TurnOf   string   `json:"turn_of"`
	Note     string   `json:"note"`
	Request  struct {
		Method  string            `json:"method"`
		Host    string            `json:"host"`
		Path    string            `json:"path"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"request"`
	Response struct {
		Status       int    `json:"status"`
		ContentType  string `json:"content_type"`
		Body         string `json:"body"`
		BodyEncoding string `json:"body_encoding"`
		// Events are a binary event stream's messages, decoded: each
		// {"headers": {...}, "payload": {...}} (Bedrock's ConverseStream).
		Events []json.RawMessage `json:"events"`
	} `json:"response"`
}

// answer returns the recorded answer's bytes, base64-decoded when the
// recording encoded them.
func (r *Recording) answer(t *testing.T) []byte {
	t.Helper()
	if r.Response.BodyEncoding != "base64" {
		return []byte(r.Response.Body)
	}
	b, err := base64.StdEncoding.DecodeString(r.Response.Body)
	if err != nil {
		t.Fatalf("%s: %v", r.Name, err)
	}
	return b
}

// RequestBody returns the recorded request's body decoded, nil when the
// recording kept none.
func (r *Recording) RequestBody(t *testing.T) map[string]any {
	t.Helper()
	var body map[string]any
	if len(r.Request.Body) > 0 && string(r.Request.Body) != "null" {
		if err := json.Unmarshal(r.Request.Body, &body); err != nil {
			t.Fatalf("%s: request body: %v", r.Name, err)
		}
	}
	return body
}

// Streamed reports whether the recorded answer is an event stream.
func (r *Recording) Streamed() bool {
	return strings.HasPrefix(r.Response.ContentType, "text/event-stream")
}

// Dir returns the recordings' directory: $BYREF_RECORDINGS, else the first
// shared/recordings found in the module root or a directory above it. It
// skips the test when there is none, and fails it in CI.
func Dir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("BYREF_RECORDINGS"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			root = wd
			break
		}
		root = parent
	}
	for d := root; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, "shared", "recordings")); err == nil && fi.IsDir() {
			return filepath.Join(d, "shared", "recordings")
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("the recorded exchanges are missing: CI must have ../shared/recordings beside the repository, or BYREF_RECORDINGS naming them")
	}
	t.Skip("no recorded exchanges (../shared/recordings or BYREF_RECORDINGS); skipping")
	return ""
}

// Load returns every recording of a provider directory ("openai-responses"),
// sorted by name; it skips or fails as Dir does when there are none.
func Load(t *testing.T, provider string) []*Recording {
	t.Helper()
	dir := filepath.Join(Dir(t), provider)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings in %s (%v)", dir, err)
	}
	sort.Strings(files)
	out := make([]*Recording, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := &Recording{}
		if err := json.Unmarshal(b, r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, r)
	}
	return out
}

// Server answers one request with a recording's answer, as the provider
// gave it, and keeps what the client sent.
type Server struct {
	*httptest.Server
	mu    sync.Mutex
	body  []byte
	path  string
	hdr   http.Header
	count int
}

// Serve starts a Server on 127.0.0.1 for r; it is closed when the test
// ends. Every request gets the recorded answer.
func Serve(t *testing.T, r *Recording) *Server {
	t.Helper()
	body := r.answer(t)
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		s.mu.Lock()
		s.body, s.path, s.hdr = b, req.URL.RequestURI(), req.Header.Clone()
		s.count++
		s.mu.Unlock()
		w.Header().Set("Content-Type", r.Response.ContentType)
		w.WriteHeader(r.Response.Status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

// Sent returns the last request's body decoded, its path with the query,
// and its headers; it fails the test when there was none.
func (s *Server) Sent(t *testing.T) (map[string]any, string, http.Header) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count == 0 {
		t.Fatal("the client sent no request")
	}
	var body map[string]any
	if err := json.Unmarshal(s.body, &body); err != nil {
		t.Fatalf("the client's body is not JSON: %v", err)
	}
	return body, s.path, s.hdr
}

// Keys returns the keys of a JSON object, sorted.
func Keys(v any) []string {
	m, _ := v.(map[string]any)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Unknown returns the keys of obj that allowed does not list: fields the
// provider would reject.
func Unknown(obj any, allowed ...string) []string {
	var out []string
	for _, k := range Keys(obj) {
		found := false
		for _, a := range allowed {
			if a == k {
				found = true
				break
			}
		}
		if !found {
			out = append(out, k)
		}
	}
	return out
}

// Missing returns the keys of required that obj lacks (or holds as null).
func Missing(obj any, required ...string) []string {
	m, _ := obj.(map[string]any)
	var out []string
	for _, k := range required {
		if v, ok := m[k]; !ok || v == nil {
			out = append(out, k)
		}
	}
	return out
}

// Feature returns the number a feature of the recording states
// ("usage.cached_tokens=3584" for "usage.cached_tokens"), and whether it
// states one.
func (r *Recording) Feature(name string) (int, bool) {
	for _, f := range r.Features {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			n, err := strconv.Atoi(v)
			return n, err == nil
		}
	}
	return 0, false
}

// CheckFeatures fails the test when the usage differs from the token
// counts the recording's features state (the README's coverage table).
func (r *Recording) CheckFeatures(t *testing.T, u llm.Usage) {
	t.Helper()
	for name, got := range map[string]int{
		"usage.cached_tokens": u.CacheReadTokens, "usage.prompt_tokens_details.cached_tokens": u.CacheReadTokens,
		"usage.reasoning_tokens": u.ReasoningTokens,
	} {
		if want, ok := r.Feature(name); ok && got != want {
			t.Errorf("%s: %d, the recording states %d", name, got, want)
		}
	}
}
