package anthropic

import "github.com/byref/byref/llm"

// init registers the providers anthropic and claude (the same) with
// [llm.Register].
func init() {
	for _, name := range []string{"anthropic", "claude"} {
		llm.Register(llm.Provider{
			Name: name, KeyEnv: []string{"ANTHROPIC_API_KEY"}, BaseURLEnv: "ANTHROPIC_BASE_URL",
			Open: func(c llm.Config) (llm.Model, error) {
				return New(Options{Config: c})
			},
		})
	}
}
