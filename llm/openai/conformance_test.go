package openai_test

import (
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/llmtest"
	"github.com/byref/byref/llm/openai"
)

// TestConformance runs llmtest's suite for every provider this package
// registers, each opened by name as a user would, against a server speaking
// that provider's flavor of chat completions.
func TestConformance(t *testing.T) {
	flavors := map[string]llmtest.Flavor{
		"openai": llmtest.OpenAI, "mistral": llmtest.Mistral, "gemini-openai": llmtest.Gemini,
		"ollama": llmtest.Ollama, "vllm": llmtest.VLLM, "openrouter": llmtest.OpenAI,
	}
	for name, flavor := range flavors {
		t.Run(name, func(t *testing.T) {
			llmtest.Run(t, flavor, func(t *testing.T, url string) llm.Model {
				base := url + "/v1"
				switch name {
				case "gemini-openai":
					base = url + "/v1beta/openai"
				case "ollama":
					base = url // OLLAMA_HOST style: the adapter adds /v1
				case "openrouter":
					base = url + "/api/v1"
				}
				m, err := llm.OpenWith(name+":test-model", llm.Config{APIKey: "test-key", BaseURL: base, Getenv: func(string) string { return "" }})
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
		})
	}
}

func TestNewNeedsAModel(t *testing.T) {
	if _, err := openai.New(openai.Options{}); err == nil {
		t.Error("New without a model: no error")
	}
}

func TestOllamaBaseURL(t *testing.T) {
	tests := map[string]string{
		"":                      "http://127.0.0.1:11434/v1",
		"127.0.0.1:11434":       "http://127.0.0.1:11434/v1",
		"http://gpu-box:11434/": "http://gpu-box:11434/v1",
		"https://x.example/v1":  "https://x.example/v1",
	}
	for in, want := range tests {
		if got := openai.OllamaBaseURL(in); got != want {
			t.Errorf("OllamaBaseURL(%q) = %q, want %q", in, got, want)
		}
	}
}
