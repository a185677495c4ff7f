// Package anthropic is byref's client for Anthropic's Messages API: a
// [llm.Model] and [llm.Streamer] written directly over net/http, with no SDK.
//
// Importing the package registers the providers anthropic and claude with
// [llm.Register], so that llm.Open("anthropic:claude-sonnet-4-5") works;
// [New] builds a model without the registry.
//
// Only what the caller set is sent, except max_tokens, which the API
// requires: the request's, else [Options.MaxTokens], else [DefaultMaxTokens].
// System messages are joined into the system prompt. Extended thinking comes
// back as [llm.Response.Thinking] (thinking and redacted_thinking blocks with
// their signatures) and is sent back, unchanged and first, with the assistant
// turn that wrote it, as Anthropic requires when thinking is used with tools.
// A refusal (stop_reason "refusal", with or without content blocks) is
// [llm.StopRefusal] with its text in [llm.Response.Refusal], not an error;
// "model_context_window_exceeded" is [llm.StopMaxTokens]. Failures are
// [*llm.ProviderError] values; a stream that ends before message_stop is
// [llm.ErrBadResponse].
package anthropic
