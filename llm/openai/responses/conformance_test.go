package responses_test

import (
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/llmtest"
	"github.com/byref/byref/llm/openai/responses"
)

// TestConformance runs llmtest's Responses suite against the provider
// opened by name, as a user would, with a reasoning model (so that
// requests ask for encrypted reasoning).
func TestConformance(t *testing.T) {
	llmtest.Run(t, llmtest.Responses, func(t *testing.T, url string) llm.Model {
		m, err := llm.OpenWith("openai-responses:gpt-5-mini", llm.Config{APIKey: "test-key", BaseURL: url + "/v1", Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}

func TestNewNeedsAModel(t *testing.T) {
	if _, err := responses.New(responses.Options{}); err == nil {
		t.Error("New without a model: no error")
	}
}
