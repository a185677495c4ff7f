package responses_test

import (
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/recorded"
	"github.com/byref/byref/llm/openai/responses"
)

// TestRecorded plays every recorded exchange of OpenAI's Responses API to
// the client: its result is what the recording says (text, refusal,
// reasoning summary, calls, usage with cached and reasoning tokens, stop
// reason, error kind), its reasoning items are kept with their
// encrypted_content, and its request has the recorded request's shape (the
// same input items, tools and settings, nothing the API rejects).
func TestRecorded(t *testing.T) {
	for _, r := range recorded.Load(t, "openai-responses") {
		t.Run(r.Name, func(t *testing.T) {
			req, setup := recorded.ResponsesRequest(t, r)
			srv := recorded.Serve(t, r)
			m, err := responses.New(responses.Options{
				Config:          llm.Config{Model: model(t, r), APIKey: "sk-test", BaseURL: srv.URL + "/v1"},
				Reasoning:       &setup.Encrypted,
				ReasoningEffort: setup.Effort, ReasoningSummary: setup.Summary,
			})
			if err != nil {
				t.Fatal(err)
			}
			resp, chunks, err := recorded.Call(m, req, setup.Stream)
			exp := recorded.ResponsesExpected(t, r)
			recorded.CheckResult(t, resp, chunks, err, exp)
			checkThinking(t, resp, exp)
			r.CheckFeatures(t, resp.Usage)
			recorded.CheckSent(t, srv, r, recorded.CheckResponsesRequest, "Authorization", "Bearer sk-test")
		})
	}
}

// model is the recorded request's model, or one that reasons for a
// recording that kept no request.
func model(t *testing.T, r *recorded.Recording) string {
	if m, ok := r.RequestBody(t)["model"].(string); ok {
		return m
	}
	return "gpt-5.1-codex-max"
}

// checkThinking checks that every reasoning item is kept, as blocks of
// this provider with its ID, and with its encrypted_content when it had
// one.
func checkThinking(t *testing.T, resp llm.Response, exp recorded.Expected) {
	t.Helper()
	items, encrypted := map[string]bool{}, 0
	for _, b := range resp.Thinking {
		if b.Provider != responses.Provider || b.ID == "" {
			t.Errorf("a reasoning block %+v without its provider or ID", b)
		}
		items[b.ID] = true
		if b.Signature != "" {
			encrypted++
		}
	}
	if len(items) != exp.Thinking || encrypted != exp.Encrypted {
		t.Errorf("%d reasoning items kept, %d with encrypted_content; recorded %d, %d", len(items), encrypted, exp.Thinking, exp.Encrypted)
	}
}
