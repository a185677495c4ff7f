package llm

// googleProvider reaches Gemini through its OpenAI-compatible endpoint with
// langchaingo's OpenAI client. langchaingo's googleai client is not used: its
// tool-schema conversion drops anyOf, enum and $ref (the variable references
// byref offers the model) and refuses tools without properties, and it pulls
// the gRPC and Vertex AI modules into every build.
var googleProvider = provider{
	keyEnv: []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"},
	build: func(model string, c providerConfig) (*Langchain, error) {
		if c.baseURL == "" {
			c.baseURL = "https://generativelanguage.googleapis.com/v1beta/openai"
		}
		return newOpenAICompatible(model, c, "", true, nil)
	},
}
