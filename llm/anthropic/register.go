package anthropic

import "github.com/byref/byref/llm"

// init registers the providers anthropic and claude (the same) with
// [llm.Register].
func init() {
	for _, name := range []string{"anthropic", "claude"} {
		llm.Register(llm.Provider{
			Name: name, KeyEnv: []string{"ANTHROPIC_API_KEY"}, BaseURLEnv: "ANTHROPIC_BASE_URL",
			Open: func(c llm.Config) (llm.Model, error) {
				return New(Options{
					Model: c.Model, APIKey: c.APIKey, BaseURL: c.BaseURL, HTTPClient: c.HTTPClient, Provider: c.Provider,
					MaxTokens: c.MaxTokens, Temperature: c.Temperature, TopP: c.TopP,
				})
			},
		})
	}
}
