package openai

import (
	"net/http"
	"strings"

	"github.com/byref/byref/llm"
)

// The providers this package registers with [llm.Register]: OpenAI itself,
// and the OpenAI-compatible endpoints of Google Gemini (gemini-openai),
// Mistral, OpenRouter, Ollama and vLLM. Each differs from OpenAI's request
// only as its [Dialect] says.
func init() {
	register := func(name string, keyEnv []string, keyOptional bool, baseEnv, defaultBase string, d Dialect, base func(string) string) {
		llm.Register(llm.Provider{
			Name: name, KeyEnv: keyEnv, KeyOptional: keyOptional, BaseURLEnv: baseEnv,
			Open: func(c llm.Config) (llm.Model, error) {
				if base != nil {
					c.BaseURL = base(c.BaseURL)
				}
				if c.BaseURL == "" {
					c.BaseURL = defaultBase
				}
				opts := Options{Config: c, Dialect: d}
				switch name {
				case "openai":
					opts.Organization = c.Getenv("OPENAI_ORGANIZATION")
				case "openrouter":
					opts.Header = OpenRouterHeader(c.Getenv("OPENROUTER_REFERER"), c.Getenv("OPENROUTER_TITLE"))
				}
				return New(opts)
			},
		})
	}
	// Only OpenAI routes by prompt_cache_key; the others cache by prefix,
	// if at all, and some refuse fields they do not know.
	compatible := Dialect{LegacyMaxTokens: true, NoPromptCacheKey: true}
	register("openai", []string{"OPENAI_API_KEY"}, false, "OPENAI_BASE_URL", "https://api.openai.com/v1", Dialect{}, nil)
	// Gemini's own API is llm/gemini's (gemini:, google:); its
	// OpenAI-compatible endpoint stays reachable under its own name.
	register("gemini-openai", []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}, false, "", "https://generativelanguage.googleapis.com/v1beta/openai", compatible, nil)
	register("mistral", []string{"MISTRAL_API_KEY"}, false, "", "https://api.mistral.ai/v1",
		Dialect{LegacyMaxTokens: true, NoStreamOptions: true, ToolResultName: true, NoPromptCacheKey: true}, nil)
	// OpenRouter takes OpenAI's request (the recorded exchanges send
	// max_completion_tokens and stream_options); it routes by model, not
	// by cache key.
	register("openrouter", []string{"OPENROUTER_API_KEY"}, false, "OPENROUTER_BASE_URL", "https://openrouter.ai/api/v1", Dialect{NoPromptCacheKey: true}, nil)
	register("ollama", nil, true, "OLLAMA_HOST", "", compatible, OllamaBaseURL)
	register("vllm", []string{"VLLM_API_KEY"}, true, "VLLM_BASE_URL", "http://127.0.0.1:8000/v1", compatible, nil)
}

// OpenRouterHeader returns OpenRouter's attribution headers for
// [Options.Header]: HTTP-Referer, the URL of the app making the calls, and
// X-Title, its name, which OpenRouter shows in its rankings and
// dashboards. An empty value sends no header.
func OpenRouterHeader(referer, title string) http.Header {
	h := http.Header{}
	if referer != "" {
		h.Set("HTTP-Referer", referer)
	}
	if title != "" {
		h.Set("X-Title", title)
	}
	return h
}

// OllamaBaseURL turns an OLLAMA_HOST value, as Ollama's own CLI reads it
// ("127.0.0.1:11434", "http://gpu-box:11434"), into the base URL of its
// OpenAI-compatible API; empty means http://127.0.0.1:11434/v1.
func OllamaBaseURL(host string) string {
	host = strings.TrimSuffix(strings.TrimSpace(host), "/")
	if host == "" {
		return "http://127.0.0.1:11434/v1"
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	if !strings.HasSuffix(host, "/v1") {
		host += "/v1"
	}
	return host
}
