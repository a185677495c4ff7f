package llm

import "strings"

// ollamaProvider reaches a local Ollama server through its OpenAI-compatible
// endpoint with langchaingo's OpenAI client (langchaingo's Ollama client drops
// tools). It needs no key; OLLAMA_HOST, as Ollama's own CLI reads it
// ("127.0.0.1:11434", "http://gpu-box:11434"), chooses the server.
var ollamaProvider = provider{
	baseEnv: "OLLAMA_HOST",
	build: func(model string, c providerConfig) (*Langchain, error) {
		c.baseURL = ollamaBaseURL(c.baseURL)
		if c.key == "" {
			c.key = "ollama" // langchaingo's client insists on a token; Ollama ignores it
		}
		return newOpenAICompatible(model, c, "", true, nil)
	},
}

// ollamaBaseURL turns an OLLAMA_HOST value into the /v1 base URL.
func ollamaBaseURL(host string) string {
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
