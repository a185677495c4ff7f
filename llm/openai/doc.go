// Package openai is byref's client for OpenAI's chat completions API and the
// OpenAI-compatible endpoints of Google Gemini, Mistral, Ollama and vLLM: a
// [llm.Model] and [llm.Streamer] written directly over net/http, with no SDK.
//
// Importing the package registers the providers openai, gemini-openai
// (Gemini's OpenAI-compatible endpoint; gemini: and google: are Gemini's
// own API, package github.com/byref/byref/llm/gemini), mistral, openrouter,
// ollama and vllm with [llm.Register], so that
// llm.Open("openai:gpt-4o-mini") works; [New] builds a model without the
// registry. OpenRouter's attribution headers, HTTP-Referer and X-Title,
// come from OPENROUTER_REFERER and OPENROUTER_TITLE ([OpenRouterHeader]
// builds them for [Options.Header]).
//
// # What is sent
//
// Only what the caller set: no temperature, top_p or token cap unless the
// [llm.Request] or [Options] has one (reasoning models such as o1 and o4-mini
// refuse a temperature other than their default). A tool marked Strict is
// sent with "strict": true; checking that its schema meets OpenAI's limits is
// the caller's job (the runtime does it with schema.CheckOpenAIStrict).
// Gemini's thought signatures ([llm.ToolCall.Signature]) go back in
// extra_content.google.thought_signature, as Google documents for Gemini 3.
//
// OpenAI caches prompts over 1,024 tokens by itself, by prefix; requests
// carry a prompt_cache_key so that one agent's requests reach the same
// cache: [Options.PromptCacheKey], else the request's [llm.Request.CacheKey]
// (which a byref run derives from its tools and system prompt). The other
// endpoints get none ([Dialect.NoPromptCacheKey]): Gemini caches implicitly,
// by prefix, and Mistral refuses fields it does not know. The body is
// written in the order the cache reads the prompt: tools, then messages.
// prompt_tokens_details.cached_tokens is read as [llm.Usage.CacheReadTokens]
// (and OpenRouter's cache_write_tokens as CacheWriteTokens),
// completion_tokens_details.reasoning_tokens as ReasoningTokens, and
// OpenRouter's usage.cost as Cost. [llm.Request.ResponseFormat] is sent as
// response_format {"type":"json_schema"}.
//
// # What is read
//
// Content as a string or as an array of parts (Mistral's Magistral, whose
// thinking parts become [llm.Response.Reasoning]); reasoning_content and
// reasoning; refusal (the stop reason is then [llm.StopRefusal] and the text
// is kept in [llm.Response.Refusal]); tool calls with or without "type" and
// with or without IDs (a missing ID gets a unique "call_N"); in streams, tool
// calls split across chunks however the endpoint splits them (see the
// assembler's rules in stream.go). Failures are [*llm.ProviderError] values
// (an error object in a stream whose code is an HTTP status, as OpenRouter
// sends for an upstream rate limit, is of that status's kind);
// a stream that ends before a finish reason or [DONE] is [llm.ErrBadResponse].
package openai
