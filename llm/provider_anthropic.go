package llm

import (
	"strings"

	"github.com/tmc/langchaingo/llms/anthropic"
)

// anthropicProvider reaches Anthropic's Messages API with langchaingo's
// Anthropic client. The base URL may be given with or without the trailing
// /v1 (ANTHROPIC_BASE_URL is usually without it).
var anthropicProvider = provider{
	keyEnv:  []string{"ANTHROPIC_API_KEY"},
	baseEnv: "ANTHROPIC_BASE_URL",
	build: func(model string, c providerConfig) (*Langchain, error) {
		base := strings.TrimSuffix(c.baseURL, "/")
		if base == "" {
			base = "https://api.anthropic.com/v1"
		}
		if !strings.HasSuffix(base, "/v1") {
			base += "/v1"
		}
		m, err := anthropic.New(
			anthropic.WithToken(c.key),
			anthropic.WithModel(model),
			anthropic.WithBaseURL(base),
			anthropic.WithHTTPClient(&recordingDoer{client: c.client}),
		)
		if err != nil {
			return nil, err
		}
		l := FromLangchain(m, c.opts)
		l.record = true
		return l, nil
	},
}
