// Package gemini is byref's client for Google's Gemini API
// (generativelanguage.googleapis.com): a [llm.Model] and [llm.Streamer]
// over models.generateContent and models.streamGenerateContent?alt=sse,
// written directly over net/http, with no SDK.
//
// Importing the package registers the providers gemini and google with
// [llm.Register], so that llm.Open("gemini:gemini-2.5-flash") works; [New]
// builds a model without the registry. The key is read from GOOGLE_API_KEY,
// then GEMINI_API_KEY, and sent as the x-goog-api-key header; the base URL
// from GOOGLE_GEMINI_BASE_URL, else [DefaultBaseURL]. Gemini's
// OpenAI-compatible endpoint stays available as gemini-openai:<model>
// (package github.com/byref/byref/llm/openai), but it loses what only this
// API returns: thought signatures on every kind of part, cached-content
// token counts and the safety finish reasons.
//
// # Thought signatures
//
// Gemini's thinking models sign their turns, and Gemini 3 refuses a
// follow-up whose function calls come back without their signatures. Each
// functionCall part's thoughtSignature is kept in [llm.ToolCall.Signature];
// a thought part (thought: true, its text also in [llm.Response.Reasoning])
// is an [llm.Thinking] with its text and signature; the signature of a text
// part (or of the empty part a stream ends with) is an [llm.Thinking] with a
// signature and no text. [llm.Response.Message] keeps them all, a byref run
// records them in its log, and the next request sends the model turn back
// as it came: the thought parts, the text with its signature, then each call
// with its own (only the first of parallel calls has one). A call Gemini
// did not write (another model's, before a switch, or one the caller
// injected) has none; to a Gemini 3 model the first such call of each
// model turn since the last user text goes with
// "skip_thought_signature_validator", the value Google documents for them,
// which Gemini 3 would otherwise refuse.
//
// # What is sent
//
// Only what the caller set: no generationConfig unless the [llm.Request] or
// [Options] sets a token cap, temperature or top-p, or
// [Options.IncludeThoughts]. System messages are joined into
// systemInstruction; tools are functionDeclarations whose
// parametersJsonSchema is the tool's JSON Schema as it is ($defs, anyOf and
// $ref included). A tool result is a functionResponse with the call's name
// and ID and the response {"output": text}; the results of parallel calls
// share one user content, as the API requires. Gemini caches long prompts
// by prefix by itself; [Options.CachedContent] names an explicit cache.
//
// # What is read
//
// usageMetadata: promptTokenCount (with toolUsePromptTokenCount) is
// [llm.Usage.InputTokens], the cached part of it
// (cachedContentTokenCount) [llm.Usage.CacheReadTokens], and
// candidatesTokenCount plus thoughtsTokenCount [llm.Usage.OutputTokens],
// the thoughts also [llm.Usage.ReasoningTokens]; Gemini reports no cache
// writes. finishReason STOP is [llm.StopEnd]
// ([llm.StopToolCalls] when the turn has calls), MAX_TOKENS
// [llm.StopMaxTokens], SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT,
// SPII and the image ones [llm.StopContentFilter], as is a prompt blocked
// by promptFeedback.blockReason; others (MALFORMED_FUNCTION_CALL, OTHER)
// are kept as sent. Failures are [*llm.ProviderError] values: 404 NOT_FOUND
// is [llm.ErrRequestRejected], 429 RESOURCE_EXHAUSTED [llm.ErrRateLimited]
// with RetryAfter from the body's google.rpc.RetryInfo; an error sent
// inside a stream is classified by its code; a stream that ends before a
// finishReason is [llm.ErrBadResponse].
//
// # Not supported
//
// Vertex AI endpoints and their OAuth credentials (use Vertex's
// OpenAI-compatible endpoint through llm/openai), safety settings, response
// schemas (structured output), code execution and grounding tools, and
// media parts.
package gemini
