package gemini

import "github.com/byref/byref/llm"

// init registers the providers gemini and google (one provider, two names)
// with [llm.Register]: the key from GOOGLE_API_KEY or GEMINI_API_KEY (in the order Google's SDKs read them), the
// base URL from GOOGLE_GEMINI_BASE_URL (the variable Google's own SDKs
// read), else [DefaultBaseURL].
func init() {
	for _, name := range []string{"gemini", "google"} {
		llm.Register(llm.Provider{
			Name: name, KeyEnv: []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}, BaseURLEnv: "GOOGLE_GEMINI_BASE_URL",
			Open: func(c llm.Config) (llm.Model, error) {
				return New(Options{Config: c})
			},
		})
	}
}
