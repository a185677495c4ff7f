package openai_test

import (
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/recorded"
)

// TestRecorded plays every recorded chat completions exchange of OpenAI
// and OpenRouter to the provider that speaks it, opened by name as a user
// would: its result is what the recording says (text, reasoning, calls,
// usage with cached, cache-write and reasoning tokens and OpenRouter's
// cost, stop reason, error kind), and its request has the recorded
// request's shape.
func TestRecorded(t *testing.T) {
	for _, p := range []struct{ dir, provider, base string }{
		{"openai-chat", "openai", "/v1"},
		{"openrouter", "openrouter", "/api/v1"},
	} {
		for _, r := range recorded.Load(t, p.dir) {
			t.Run(p.dir+"/"+r.Name, func(t *testing.T) {
				req, stream := recorded.ChatRequest(t, r)
				srv := recorded.Serve(t, r)
				env := map[string]string{"OPENROUTER_REFERER": "https://example.com/app", "OPENROUTER_TITLE": "byref test"}
				model := r.RequestBody(t)["model"].(string)
				m, err := llm.OpenWith(p.provider+":"+model, llm.Config{APIKey: "key", BaseURL: srv.URL + p.base, Getenv: func(k string) string { return env[k] }})
				if err != nil {
					t.Fatal(err)
				}
				resp, chunks, err := recorded.Call(m, req, stream)
				recorded.CheckResult(t, resp, chunks, err, recorded.ChatExpected(t, r))
				r.CheckFeatures(t, resp.Usage)
				recorded.CheckSent(t, srv, r, recorded.CheckChatRequest, "Authorization", "Bearer key")
				if p.provider == "openrouter" {
					_, _, hdr := srv.Sent(t)
					if hdr.Get("HTTP-Referer") != env["OPENROUTER_REFERER"] || hdr.Get("X-Title") != env["OPENROUTER_TITLE"] {
						t.Errorf("attribution headers %q, %q", hdr.Get("HTTP-Referer"), hdr.Get("X-Title"))
					}
				}
			})
		}
	}
}
