package bedrock

import "github.com/byref/byref/llm"

// init registers the provider bedrock with [llm.Register]: the spec names
// a model ID or inference profile (bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0);
// no key is required, as the AWS SDK's default chain finds the
// credentials; a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK is sent as a
// bearer token instead; AWS_ENDPOINT_URL_BEDROCK_RUNTIME overrides the
// endpoint.
func init() {
	llm.Register(llm.Provider{
		Name: "bedrock", KeyEnv: []string{"AWS_BEARER_TOKEN_BEDROCK"}, KeyOptional: true, BaseURLEnv: "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
		Open: func(c llm.Config) (llm.Model, error) {
			return New(Options{Config: c})
		},
	})
}
