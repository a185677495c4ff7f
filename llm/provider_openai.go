package llm

import (
	"strings"

	"github.com/tmc/langchaingo/llms/openai"
)

// openaiProvider reaches OpenAI with langchaingo's OpenAI client.
var openaiProvider = provider{
	keyEnv:  []string{"OPENAI_API_KEY"},
	baseEnv: "OPENAI_BASE_URL",
	build: func(model string, c providerConfig) (*Langchain, error) {
		if c.baseURL == "" {
			c.baseURL = "https://api.openai.com/v1"
		}
		return newOpenAICompatible(model, c, c.getenv("OPENAI_ORGANIZATION"), false, nil)
	},
}

// newOpenAICompatible builds langchaingo's OpenAI client for any endpoint that
// speaks OpenAI's chat completions. legacyMaxTokens sends max_tokens instead
// of max_completion_tokens; drop lists request fields the endpoint refuses.
func newOpenAICompatible(model string, c providerConfig, org string, legacyMaxTokens bool, drop []string) (*Langchain, error) {
	m, err := openai.New(
		openai.WithToken(c.key),
		openai.WithModel(model),
		openai.WithBaseURL(strings.TrimSuffix(c.baseURL, "/")),
		openai.WithOrganization(org),
		openai.WithHTTPClient(&recordingDoer{client: c.client, drop: drop}),
	)
	if err != nil {
		return nil, err
	}
	l := FromLangchain(m, c.opts)
	l.record = true
	l.legacyMaxTokens = legacyMaxTokens
	return l, nil
}
