package llm

// mistralProvider reaches Mistral through its OpenAI-compatible chat
// completions API with langchaingo's OpenAI client. langchaingo's mistral
// client is not used: it drops tool_call_id from tool results (which the API
// requires), takes no context, and accepts no HTTP client. Mistral refuses
// unknown request fields, so the adapter sends max_tokens rather than
// max_completion_tokens and removes stream_options.
var mistralProvider = provider{
	keyEnv: []string{"MISTRAL_API_KEY"},
	build: func(model string, c providerConfig) (*Langchain, error) {
		if c.baseURL == "" {
			c.baseURL = "https://api.mistral.ai/v1"
		}
		return newOpenAICompatible(model, c, "", true, []string{"stream_options"})
	},
}
