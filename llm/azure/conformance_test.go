package azure_test

import (
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/llmtest"
)

// TestConformance runs llmtest's suites against both providers, opened by
// name on the v1 endpoint and on the deployment endpoints: chat
// completions as OpenAI speaks them, and the Responses API.
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name, spec, version string
		flavor              llmtest.Flavor
	}{
		{"chat_v1", "azure:gpt-4o-mini", "", llmtest.OpenAI},
		{"chat_deployment", "azure:gpt-4o-mini", "2024-10-21", llmtest.OpenAI},
		{"responses_v1", "azure-responses:gpt-5-mini", "", llmtest.Responses},
		{"responses_versioned", "azure-responses:gpt-5-mini", "2025-04-01-preview", llmtest.Responses},
	} {
		t.Run(tc.name, func(t *testing.T) {
			llmtest.Run(t, tc.flavor, func(t *testing.T, url string) llm.Model {
				env := map[string]string{"AZURE_OPENAI_API_VERSION": tc.version}
				m, err := llm.OpenWith(tc.spec, llm.Config{APIKey: "k", BaseURL: url, Getenv: func(k string) string { return env[k] }})
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
		})
	}
}
