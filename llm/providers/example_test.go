package providers_test

import (
	"errors"
	"fmt"

	"github.com/byref/byref/llm"
	_ "github.com/byref/byref/llm/providers"
)

// With the providers registered, Open chooses one by name; a missing key
// names the variable to set.
func Example() {
	_, err := llm.OpenWith("anthropic:claude-sonnet-4-5", llm.Config{
		Getenv: func(string) string { return "" }, // an empty environment
	})
	fmt.Println(errors.Is(err, llm.ErrMissingKey))
	fmt.Println(err)
	fmt.Println(llm.Providers())
	// Output:
	// true
	// llm: missing API key for anthropic: set ANTHROPIC_API_KEY in the environment (or Config.APIKey)
	// [anthropic azure azure-responses claude gemini gemini-openai google mistral ollama openai openai-responses openrouter vllm]
}
