// Package azure opens Azure OpenAI deployments: chat completions through
// package github.com/byref/byref/llm/openai and the Responses API through
// github.com/byref/byref/llm/openai/responses, with Azure's endpoints and
// credentials.
//
// Importing the package registers the providers azure and
// azure-responses, opened by deployment name:
//
//	AZURE_OPENAI_ENDPOINT=https://my-resource.openai.azure.com
//	AZURE_OPENAI_API_KEY=...
//
//	model, err := llm.Open("azure:gpt-4o-mini")           // chat completions
//	model, err := llm.Open("azure-responses:gpt-5-mini")  // Responses API
//
// # Endpoints
//
// Without an api-version ([Options.APIVersion], AZURE_OPENAI_API_VERSION)
// requests go to the v1 endpoint, /openai/v1/chat/completions and
// /openai/v1/responses, with the deployment name as the model. With one,
// they go to the deployment endpoints,
// /openai/deployments/{deployment}/chat/completions?api-version=… and
// /openai/responses?api-version=….
//
// # Credentials
//
// The key goes in the api-key header. [Options.Token] sends a Microsoft
// Entra ID token as a bearer token instead (AZURE_OPENAI_AD_TOKEN for a
// fixed one); pass azidentity's credential there, e.g.
//
//	Token: func(ctx context.Context) (string, error) {
//		t, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{"https://cognitiveservices.azure.com/.default"}})
//		return t.Token, err
//	},
//
// # Content filtering
//
// A prompt Azure's content filter blocks fails with HTTP 400, code
// content_filter: an error of kind [llm.ErrRequestRejected] whose message
// begins "content filter:" and names the filtered categories. An answer the
// filter stops ends with [llm.StopContentFilter] (chat's finish_reason
// content_filter, a Responses answer incomplete for content_filter).
// Chat requests carry no prompt_cache_key: Azure caches by prefix.
package azure
