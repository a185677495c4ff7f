// Package bedrock is byref's client for Amazon Bedrock Runtime's Converse
// API: a [llm.Model] over Converse and a [llm.Streamer] over
// ConverseStream, built on the AWS SDK for Go v2, which signs the requests
// (SigV4), finds the credentials and decodes the event stream.
//
// It is the only byref package that imports the AWS SDK, and
// github.com/byref/byref/llm/providers does not import it: a program that
// wants Bedrock imports this package (usually with a blank import in
// package main), and one that does not never builds the SDK.
//
//	import _ "github.com/byref/byref/llm/bedrock"
//
//	model, err := llm.Open("bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0")
//
// # Credentials, region, endpoint
//
// The spec names a model ID, an inference profile or its ARN. Credentials
// come from the SDK's default chain: the environment (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), the shared config and
// credentials files with AWS_PROFILE (SSO, assumed roles, credential
// processes), web identity, and container and instance roles; or
// [Options.Credentials]. A Bedrock API key (AWS_BEARER_TOKEN_BEDROCK, or
// [llm.Config.APIKey]) is sent as a bearer token instead, over HTTPS only.
// The region is AWS_REGION (or the profile's, or [Options.Region]); opening
// a model without one fails and says so. AWS_ENDPOINT_URL_BEDROCK_RUNTIME
// or [llm.Config.BaseURL] overrides the endpoint (a VPC endpoint, a test
// server). The SDK makes a single attempt: retries are the caller's, with
// [llm.WithRetry] or a run's limits, as with every byref provider.
//
// # What is sent and read
//
// System messages join into one system block; tools are toolSpecs whose
// inputSchema.json is the tool's JSON Schema; an assistant turn goes back
// with its reasoning blocks first (Claude's thinking, with its signature,
// or redacted, as Bedrock requires with tool use), then its text and its
// toolUse blocks; the toolResult blocks of parallel calls share one user
// message. inferenceConfig is sent only when a token cap, temperature or
// top-p is set. Cache points ([CachePoints]) go after the tools, the
// system prompt and the last message for the Claude models that cache, and
// after the system prompt and the last message for Amazon Nova.
//
// usage.inputTokens leaves out the cached tokens: [llm.Usage.InputTokens]
// adds cacheReadInputTokens and cacheWriteInputTokens back, and keeps them
// apart as [llm.Usage.CacheReadTokens] and [llm.Usage.CacheWriteTokens].
// stopReason end_turn and stop_sequence are [llm.StopEnd], tool_use
// [llm.StopToolCalls], max_tokens and model_context_window_exceeded
// [llm.StopMaxTokens], guardrail_intervened and content_filtered
// [llm.StopContentFilter]; others are kept as sent. Failures are
// [*llm.ProviderError] values classified by the HTTP status (400
// ValidationException is [llm.ErrRequestRejected], 429 ThrottlingException
// [llm.ErrRateLimited]), or, for an exception inside a stream, by its name;
// missing credentials are [llm.ErrUnauthorized] and nothing is sent; a
// stream that ends before messageStop, or whose frames fail their CRC, is
// [llm.ErrBadResponse].
//
// # Not supported
//
// Guardrails, documents, images and other media, tool choice, additional
// model request fields (Claude's thinking budget: the model's reasoning is
// read and sent back when the model produces it), prompt management, and
// the InvokeModel API.
package bedrock
