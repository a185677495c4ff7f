package llmtest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/llm"
)

// Recording is one recorded HTTP exchange with a provider's API, as the
// shared recordings folder (shared/recordings, beside the repository's
// checkout) keeps it: one request and the response a real server returned.
// The files are test data read where they lie, never copied into the
// repository.
type Recording struct {
	// Name is the file's name without .json ("function-call-thought-signature").
	Name string `json:"name"`
	// Provider is the folder: "gemini", "bedrock", "openai-responses", ...
	Provider string `json:"provider"`
	// RecordedBy is "real server" or "hand-written".
	RecordedBy string `json:"recorded_by"`
	// Request is what the client sent; Body is null when it was not kept.
	Request struct {
		Method  string            `json:"method"`
		Host    string            `json:"host"`
		Path    string            `json:"path"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"request"`
	// Response is what the server answered. Body is the JSON or SSE text,
	// or the base64 of binary bytes when BodyEncoding is "base64".
	Response struct {
		Status       int    `json:"status"`
		ContentType  string `json:"content_type"`
		Body         string `json:"body"`
		BodyEncoding string `json:"body_encoding"`
		// Events are a binary event stream's messages, decoded: each
		// {"headers": {...}, "payload": {...}}.
		Events []json.RawMessage `json:"events"`
	} `json:"response"`
	// Features lists what the exchange shows, for searching.
	Features []string `json:"features"`
	// TurnOf names the recording of the previous turn, on follow-ups.
	TurnOf string `json:"turn_of"`
	// Note says what the exchange shows.
	Note string `json:"note"`
}

// Reply returns the recorded response as a [Server]'s reply: its status,
// its content type and its body, base64-decoded when it was encoded.
func (r Recording) Reply(t *testing.T) Reply {
	t.Helper()
	body := r.Response.Body
	if r.Response.BodyEncoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			t.Fatalf("recording %s/%s: body: %v", r.Provider, r.Name, err)
		}
		body = string(b)
	}
	return Reply{Status: r.Response.Status, ContentType: r.Response.ContentType, Body: body}
}

// RecordingsDir returns the shared recordings folder: $BYREF_RECORDINGS
// when set, else the first shared/recordings found walking up from the
// working directory (a test's package directory). When there is none the
// test is skipped, except in CI (CI=true), where the folder is always laid
// beside the checkout and its absence fails the test.
func RecordingsDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("BYREF_RECORDINGS"); d != "" {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("BYREF_RECORDINGS=%s: %v", d, err)
		}
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		d := filepath.Join(dir, "shared", "recordings")
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no shared/recordings folder above the working directory, and BYREF_RECORDINGS is not set; CI lays shared/ beside the checkout")
	}
	t.Skip("no shared/recordings folder above the working directory (set BYREF_RECORDINGS to its path)")
	return ""
}

// LoadRecordings returns every recording of provider (a folder of the
// recordings: "gemini", "bedrock", ...), sorted by name; it skips the test
// as [RecordingsDir] does when the folder is absent, and fails it when the
// provider has no recording.
func LoadRecordings(t *testing.T, provider string) []Recording {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(RecordingsDir(t), provider, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings for %s (err %v)", provider, err)
	}
	sort.Strings(files)
	out := make([]Recording, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r Recording
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if r.Name == "" {
			r.Name = strings.TrimSuffix(filepath.Base(f), ".json")
		}
		out = append(out, r)
	}
	return out
}

// KeyPaths returns the key paths of a decoded JSON value, each a
// dot-joined list of object keys with "[]" for array elements
// ("contents[].parts[].functionCall.name"); the values under a key in
// opaque (a JSON Schema, a call's arguments) are not walked. Request-shape
// checks compare a client's paths with those of recorded requests: a path
// no recorded request has is a field the provider may reject.
func KeyPaths(v any, opaque map[string]bool) map[string]bool {
	out := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				out[p] = true
				if !opaque[k] {
					walk(p, e)
				}
			}
		case []any:
			for _, e := range x {
				walk(prefix+"[]", e)
			}
		}
	}
	walk("", v)
	return out
}

// Expected is what a recording says a client's result is, read from its
// response by hand.
type Expected struct {
	// Text and Reasoning are prefixes of the response's; "" wants none.
	Text, Reasoning string
	// Calls are the calls in order: names and signatures compared
	// exactly, arguments as JSON values, IDs when set (else any non-empty
	// one).
	Calls []llm.ToolCall
	// Thinking is how many thinking blocks the response has.
	Thinking int
	Usage    llm.Usage
	Stop     llm.StopReason
	// Err is the kind of a failure (llm.ErrRateLimited, ...), with its
	// HTTP status, retryability, wait and a part of its message.
	Err        error
	Status     int
	Retryable  bool
	RetryAfter time.Duration
	ErrText    string
}

// CheckResult fails t where the outcome of playing a recording (resp and
// err) differs from want.
func CheckResult(t *testing.T, want Expected, resp llm.Response, err error) {
	t.Helper()
	if want.Err != nil {
		var pe *llm.ProviderError
		if !errors.Is(err, want.Err) || !errors.As(err, &pe) {
			t.Fatalf("err = %v, want %v", err, want.Err)
		}
		if pe.StatusCode != want.Status || pe.Retryable != want.Retryable || pe.RetryAfter != want.RetryAfter || !strings.Contains(err.Error(), want.ErrText) {
			t.Errorf("error %v (%+v); want HTTP %d, retryable %v, retry after %v, saying %q", err, pe, want.Status, want.Retryable, want.RetryAfter, want.ErrText)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(resp.Text, want.Text) || (want.Text == "" && resp.Text != "") {
		t.Errorf("Text = %q, want %q…", resp.Text, want.Text)
	}
	if !strings.HasPrefix(resp.Reasoning, want.Reasoning) || (want.Reasoning == "" && resp.Reasoning != "") {
		t.Errorf("Reasoning = %q, want %q…", resp.Reasoning, want.Reasoning)
	}
	if len(resp.Thinking) != want.Thinking {
		t.Errorf("%d thinking blocks, want %d: %+v", len(resp.Thinking), want.Thinking, resp.Thinking)
	}
	if resp.Usage != want.Usage {
		t.Errorf("Usage = %+v, want %+v", resp.Usage, want.Usage)
	}
	if resp.StopReason != want.Stop {
		t.Errorf("StopReason = %q, want %q", resp.StopReason, want.Stop)
	}
	if len(resp.ToolCalls) != len(want.Calls) {
		t.Fatalf("calls %+v, want %+v", resp.ToolCalls, want.Calls)
	}
	for i, c := range resp.ToolCalls {
		w := want.Calls[i]
		var got, exp any
		errGot, errExp := json.Unmarshal([]byte(c.Arguments), &got), json.Unmarshal([]byte(w.Arguments), &exp)
		if c.Name != w.Name || c.Signature != w.Signature || c.ID == "" || (w.ID != "" && c.ID != w.ID) ||
			errGot != nil || errExp != nil || !reflect.DeepEqual(got, exp) {
			t.Errorf("call %d = %+v, want %+v", i, c, w)
		}
	}
}

// MissingRequired returns the required key paths (in [KeyPaths]' form,
// "contents[].parts") that some object of body lacks: for each path, every
// object its parent path reaches must have the last key. A path whose
// parent body does not have is not required of it ("tools[].name" in a
// request without tools).
func MissingRequired(body any, required []string) []string {
	var missing []string
	for _, path := range required {
		parent, key := "", path
		if i := strings.LastIndex(path, "."); i >= 0 {
			parent, key = path[:i], path[i+1:]
		}
		for _, obj := range reach(body, parent) {
			if m, ok := obj.(map[string]any); !ok || m[key] == nil {
				missing = append(missing, path)
				break
			}
		}
	}
	return missing
}

// reach returns the values at path in v, every element of each array
// marked [].
func reach(v any, path string) []any {
	vals := []any{v}
	if path == "" {
		return vals
	}
	for _, step := range strings.Split(path, ".") {
		key, each := strings.CutSuffix(step, "[]")
		var next []any
		for _, v := range vals {
			m, ok := v.(map[string]any)
			if !ok || m[key] == nil {
				continue
			}
			if !each {
				next = append(next, m[key])
				continue
			}
			if a, ok := m[key].([]any); ok {
				next = append(next, a...)
			}
		}
		vals = next
	}
	return vals
}
