// Package anthropic is byref's client for Anthropic's Messages API: a
// [llm.Model] and [llm.Streamer] written directly over net/http, with no SDK.
//
// Importing the package registers the providers anthropic and claude with
// [llm.Register], so that llm.Open("anthropic:claude-sonnet-4-5") works;
// [New] builds a model without the registry.
//
// Only what the caller set is sent, except max_tokens, which the API
// requires: the request's, else Options.MaxTokens (its [llm.Config]), else [DefaultMaxTokens].
// System messages are joined into the system prompt. Extended thinking comes
// back as [llm.Response.Thinking] (thinking and redacted_thinking blocks with
// their signatures) and is sent back, unchanged and first, with the assistant
// turn that wrote it, as Anthropic requires when thinking is used with tools.
// A refusal (stop_reason "refusal", with or without content blocks) is
// [llm.StopRefusal] with its text in [llm.Response.Refusal], not an error;
// "model_context_window_exceeded" is [llm.StopMaxTokens]. Failures are
// [*llm.ProviderError] values; a stream that ends before message_stop is
// [llm.ErrBadResponse].
//
// # Prompt caching
//
// Anthropic caches a prompt only where a request marks it. Each request
// carries two of the four cache_control breakpoints the API allows, both
// "ephemeral": one on the system prompt (or, with none, on the last tool),
// the end of the prefix every request of a byref run repeats, and one on
// the last block of the last message (not a thinking block), which moves
// with the conversation so that the next request reads all of this one
// from the cache. [Options.NoCacheControl] sends none. The body is written
// in the order the cache reads the prompt: tools, system, messages. The
// usage's cache_read_input_tokens and cache_creation_input_tokens are
// [llm.Usage.CacheReadTokens] and [llm.Usage.CacheWriteTokens], counted in
// InputTokens too.
package anthropic
