package responses

import "github.com/byref/byref/llm"

// init registers the provider openai-responses with [llm.Register]: OpenAI's
// Responses API, with the key, base URL and organization the openai
// provider reads, and the reasoning settings of [FromEnv].
func init() {
	llm.Register(llm.Provider{
		Name: Provider, KeyEnv: []string{"OPENAI_API_KEY"}, BaseURLEnv: "OPENAI_BASE_URL",
		Open: func(c llm.Config) (llm.Model, error) {
			o := FromEnv(c.Getenv)
			o.Config, o.Organization = c, c.Getenv("OPENAI_ORGANIZATION")
			return New(o)
		},
	})
}

// FromEnv returns the Options a model opened by name takes from the
// environment: OPENAI_REASONING_EFFORT and OPENAI_REASONING_SUMMARY as
// ReasoningEffort and ReasoningSummary.
func FromEnv(getenv func(string) string) Options {
	return Options{ReasoningEffort: getenv("OPENAI_REASONING_EFFORT"), ReasoningSummary: getenv("OPENAI_REASONING_SUMMARY")}
}
