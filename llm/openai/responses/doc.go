// Package responses is byref's client for OpenAI's Responses API
// (POST /v1/responses), the API OpenAI recommends for new work and the one
// where its reasoning models keep their reasoning between turns: a
// [llm.Model] and [llm.Streamer] written directly over net/http, with no
// SDK. Azure OpenAI's Responses endpoints speak it too (package
// github.com/byref/byref/llm/azure opens them).
//
// Importing the package registers the provider openai-responses with
// [llm.Register], so that llm.Open("openai-responses:gpt-5-mini") works,
// with OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_ORGANIZATION as for the
// chat completions provider, and OPENAI_REASONING_EFFORT and
// OPENAI_REASONING_SUMMARY ([FromEnv]); [New] builds a model without the
// registry.
//
// # Reasoning between turns
//
// byref's run log is the conversation, so requests are stateless: "store":
// false (unless [Options.Store]) and no previous_response_id. A reasoning
// model's reasoning items are asked for with their encrypted_content
// (include ["reasoning.encrypted_content"]), kept in
// [llm.Response.Thinking] (one block per part of the summary, with the
// item's ID and, on the first, its encrypted_content as Signature, and
// Provider "openai-responses"), logged with the run, and sent back before
// the calls they led to on the next request, as OpenAI documents for
// stateless use: a run restored from its log continues its reasoning.
// Whether a model reasons is guessed from its name ([Reasons]), since
// other models refuse the include; [Options.Reasoning] says it outright.
// [Options.ReasoningEffort] and [Options.ReasoningSummary] set the
// reasoning parameters; the summary becomes [llm.Response.Reasoning].
//
// # What is sent
//
// Only what the caller set: no temperature, top_p or max_output_tokens
// unless the [llm.Request] or [Options] has one. Leading system messages
// become instructions; every tool is sent with its strict flag, since the
// API takes a missing one as true. [llm.Request.ResponseFormat] is sent as
// text.format {"type":"json_schema"}. prompt_cache_key is
// [Options.PromptCacheKey], else the request's [llm.Request.CacheKey].
//
// # What is read
//
// Output items in order: message text (output_text parts), refusals
// (refusal parts: [llm.StopRefusal], the text in [llm.Response.Refusal]),
// function calls (several in one response), reasoning items. Usage with
// input_tokens_details.cached_tokens as [llm.Usage.CacheReadTokens] and
// output_tokens_details.reasoning_tokens as [llm.Usage.ReasoningTokens].
// An incomplete response stops with [llm.StopMaxTokens] or
// [llm.StopContentFilter] as its incomplete_details say. HTTP failures, a
// failed response and an "error" event are [*llm.ProviderError] values (a
// rate limit is [llm.ErrRateLimited], retryable). Streams report
// output_text deltas, reasoning summary deltas and function-call argument
// deltas as [llm.Chunk] values; a stream that ends before
// response.completed is [llm.ErrBadResponse].
//
// Not supported: previous_response_id and conversations (the log is the
// conversation), built-in tools (web search, file search, code
// interpreter, computer use), images and files in the input.
package responses
