package anthropic_test

import (
	"strings"
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/recorded"
)

// TestRecorded plays every recorded Messages exchange to the client, opened
// by name: the text, the stop reason and the usage (cache reads and writes,
// and a compacted message's iterations summed) are what the recording
// says, and the request has the recorded shape.
func TestRecorded(t *testing.T) {
	for _, r := range recorded.Load(t, "anthropic") {
		t.Run(r.Name, func(t *testing.T) {
			req, stream := recorded.AnthropicRequest(t, r)
			srv := recorded.Serve(t, r)
			model := r.RequestBody(t)["model"].(string)
			m, err := llm.OpenWith("anthropic:"+model, llm.Config{APIKey: "key", BaseURL: srv.URL, Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			resp, chunks, err := recorded.Call(m, req, stream)
			exp := recorded.AnthropicExpected(t, r)
			recorded.CheckResult(t, resp, chunks, err, exp)
			for _, f := range []string{"usage.cache_read_input_tokens", "usage.cache_creation_input_tokens"} {
				want, ok := r.Feature(f)
				got := resp.Usage.CacheReadTokens
				if strings.Contains(f, "creation") {
					got = resp.Usage.CacheWriteTokens
				}
				if ok && got != want {
					t.Errorf("%s: %d, the recording states %d", f, got, want)
				}
			}
			// The recorded path may carry ?beta=true, which the client does
			// not send: the shape is checked, not the query.
			got, path, hdr := srv.Sent(t)
			if p, _, _ := strings.Cut(r.Request.Path, "?"); path != p || hdr.Get("x-api-key") != "key" {
				t.Errorf("path %s, x-api-key %q; recorded path %s", path, hdr.Get("x-api-key"), r.Request.Path)
			}
			for _, d := range recorded.CheckAnthropicRequest(got, r.RequestBody(t)) {
				t.Error(d)
			}
		})
	}
}
