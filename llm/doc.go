// Package llm is byref's boundary with language models: the small [Model]
// interface the agent loop drives, typed messages, tool schemas, tool calls and
// token usage, typed provider errors, a retry wrapper, a scripted model for
// tests and demos, and an adapter over langchaingo that reaches OpenAI,
// Anthropic, Google Gemini, Mistral and Ollama.
//
// # Models
//
// A [Model] takes a [Request] (the conversation and the tool schemas) and
// returns a [Response] (text, tool calls, usage). A Model must be safe for
// concurrent use: one value is shared by every run of a runtime. Streaming is
// an optional capability, the [Streamer] interface, probed with a type
// assertion; [Stream] does the probing and falls back to Generate.
//
// # Providers
//
// [Open] chooses a provider by a "provider:model" string and reads the API key
// from the provider's usual environment variable:
//
//	openai:gpt-4o-mini          OPENAI_API_KEY     (base URL: OPENAI_BASE_URL)
//	anthropic:claude-sonnet-4-5 ANTHROPIC_API_KEY  (base URL: ANTHROPIC_BASE_URL)
//	google:gemini-2.5-flash     GOOGLE_API_KEY or GEMINI_API_KEY
//	mistral:mistral-large-latest MISTRAL_API_KEY
//	ollama:llama3.1             no key; OLLAMA_HOST or http://127.0.0.1:11434
//
// OpenAI and Anthropic use langchaingo's own clients. Google, Mistral and
// Ollama use langchaingo's OpenAI client against each provider's
// OpenAI-compatible endpoint: langchaingo's Ollama client drops tools, its
// Google client drops anyOf, enum and $ref from tool schemas (the references
// byref offers the model), and its Mistral client drops tool_call_id from tool
// results and takes no context. [OpenWith] takes [Options] to override keys,
// base URLs and the HTTP client, for example to point at an httptest server.
// [FromLangchain] wraps any other langchaingo model.
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
