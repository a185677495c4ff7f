package responses

import "github.com/byref/byref/llm"

// init registers the provider openai-responses with [llm.Register]: OpenAI's
// Responses API, with the key, base URL and organization the openai
// provider reads.
func init() {
	llm.Register(llm.Provider{
		Name: Provider, KeyEnv: []string{"OPENAI_API_KEY"}, BaseURLEnv: "OPENAI_BASE_URL",
		Open: func(c llm.Config) (llm.Model, error) {
			return New(Options{Config: c, Organization: c.Getenv("OPENAI_ORGANIZATION")})
		},
	})
}
