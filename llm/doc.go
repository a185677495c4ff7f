// Package llm is byref's boundary with language models: the small [Model]
// interface the agent loop drives, typed messages, tool schemas, tool calls,
// stop reasons and token usage, typed provider errors, a retry wrapper, a
// scripted model for tests and demos, and a registry of providers that
// [Open] picks from by name. It imports only the standard library and
// package run, whose [Tool], [ToolCall] and [Thinking] it names (a model's
// answer and the run's log share one type for each): a program that brings
// its own Model links no provider code.
//
// # Models
//
// A [Model] takes a [Request] (the conversation and the tool schemas) and
// returns a [Response] (text, tool calls, usage, stop reason). A Model must
// be safe for concurrent use: one value is shared by every run of an agent.
// Streaming is an optional capability, the [Streamer] interface, probed with
// a type assertion; [Stream] does the probing and falls back to Generate.
//
// Bringing your own model means implementing Generate: map the request to
// your provider's API, and fill in the Response. Report failures as
// [*ProviderError] values ([StatusError] builds one from an HTTP status) so
// that [WithRetry] and the runtime can tell a rate limit from a bad request;
// set [Response.StopReason] (a refusal is [StopRefusal] with its text in
// [Response.Refusal], an answer cut by the token limit [StopMaxTokens]); send
// back [Message.Thinking] and [ToolCall.Signature] if your provider wants
// them. Run [github.com/byref/byref/llm/llmtest]'s conformance suite against
// it if it speaks one of the wire formats the suite knows.
//
// # Providers
//
// Provider packages register themselves with [Register], the way
// database/sql drivers do; importing github.com/byref/byref/llm/providers
// registers every provider byref ships:
//
//	import _ "github.com/byref/byref/llm/providers"
//
//	model, err := llm.Open("openai:gpt-4o-mini")
//
// [Open] chooses a provider by a "provider:model" string and reads the API
// key from the provider's usual environment variable:
//
//	openai:gpt-4o-mini           OPENAI_API_KEY     (base URL: OPENAI_BASE_URL)
//	openai-responses:gpt-5-mini  OPENAI_API_KEY     (OpenAI's Responses API)
//	anthropic:claude-sonnet-4-5  ANTHROPIC_API_KEY  (base URL: ANTHROPIC_BASE_URL)
//	azure:<deployment>           AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_API_KEY (azure-responses: the Responses API)
//	openrouter:openai/gpt-4o     OPENROUTER_API_KEY
//	gemini:gemini-2.5-flash      GOOGLE_API_KEY or GEMINI_API_KEY (alias google:; base URL: GOOGLE_GEMINI_BASE_URL)
//	gemini-openai:gemini-2.5-flash  the same keys, through Gemini's OpenAI-compatible endpoint
//	mistral:mistral-large-latest MISTRAL_API_KEY
//	ollama:llama3.1              no key; OLLAMA_HOST or http://127.0.0.1:11434
//	vllm:<model>                 VLLM_API_KEY if set; VLLM_BASE_URL or http://127.0.0.1:8000/v1
//
// Package github.com/byref/byref/llm/openai speaks OpenAI's chat completions
// (OpenAI itself, and the OpenAI-compatible endpoints of Gemini, Mistral,
// OpenRouter, Ollama and vLLM); github.com/byref/byref/llm/openai/responses
// speaks OpenAI's Responses API; github.com/byref/byref/llm/azure opens
// Azure OpenAI deployments with either; github.com/byref/byref/llm/anthropic
// speaks Anthropic's Messages API; github.com/byref/byref/llm/gemini speaks
// Gemini's own API. All are written over net/http. AWS Bedrock's Converse
// API (bedrock:<model id>) is github.com/byref/byref/llm/bedrock, which the
// providers package leaves out because it brings the AWS SDK: import it
// yourself. [OpenWith] takes a [Config]
// to override keys, base URLs and the HTTP client, for example to point at
// an httptest server. No sampling parameter the caller did not set is sent.
//
// # Errors
//
// Failures that come from the provider are [*ProviderError] values that unwrap
// to one of the sentinels [ErrRateLimited], [ErrProviderUnavailable],
// [ErrBadResponse], [ErrUnauthorized] or [ErrRequestRejected], so both
// errors.Is and errors.As work. [WithRetry] retries the retryable ones with
// bounded, context-aware backoff.
//
// # Scripted models
//
// [Scripted] is not a language model: it plays back responses written in
// advance ([NewScripted]) or computed from the conversation
// ([NewScriptedFunc]), for tests, examples and demos. [CallTool], [CallTools]
// and [Text] build its responses briefly.
package llm
