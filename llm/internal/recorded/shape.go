package recorded

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/llmtest"
)

// This file holds what the Gemini and Bedrock tests use beside Load and
// Serve: a recording's answer as an llmtest.Reply (for a server that
// plays several), request shapes walked to any depth, and results
// compared with what was read from a recording by hand.

// Reply returns the recorded answer as an llmtest.Server's reply: its
// status, content type and body (base64-decoded when it was encoded).
func (r *Recording) Reply(t *testing.T) llmtest.Reply {
	t.Helper()
	return llmtest.Reply{Status: r.Response.Status, ContentType: r.Response.ContentType, Body: string(r.answer(t))}
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

// ByHand is what a recording says a client's result is, read from its
// response by hand where [Expected] is derived from it by a parser: the
// text and reasoning as prefixes, the calls' arguments as JSON values.
type ByHand struct {
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

// CheckByHand fails t where the outcome of playing a recording (resp and
// err) differs from want.
func CheckByHand(t *testing.T, want ByHand, resp llm.Response, err error) {
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

// Shape is what a provider's recorded requests show of its API's request:
// the key paths one of them has, the paths under opaque keys aside, and
// the paths the API requires.
type Shape struct {
	accepted map[string]bool
	opaque   map[string]bool
	required []string
}

// NewShape returns the shape of recs' recorded requests (those that kept
// one); norm, when not nil, rewrites each recorded path (the snake_case
// some recorded clients sent into the camelCase a client sends).
func NewShape(t *testing.T, recs []*Recording, opaque map[string]bool, norm func(string) string, required ...string) *Shape {
	t.Helper()
	sh := &Shape{accepted: map[string]bool{}, opaque: opaque, required: required}
	for _, r := range recs {
		body := r.RequestBody(t)
		if body == nil {
			continue
		}
		for p := range KeyPaths(body, opaque) {
			if norm != nil {
				p = norm(p)
			}
			sh.accepted[p] = true
		}
	}
	return sh
}

// Check fails t for each key path of sent that no recorded request has (a
// field the provider may reject) and for each required path sent lacks.
func (sh *Shape) Check(t *testing.T, sent any) {
	t.Helper()
	for p := range KeyPaths(sent, sh.opaque) {
		if !sh.accepted[p] {
			t.Errorf("the request sends %s, which no recorded request has", p)
		}
	}
	if m := MissingRequired(sent, sh.required); len(m) > 0 {
		t.Errorf("the request lacks %v", m)
	}
}
