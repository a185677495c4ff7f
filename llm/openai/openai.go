package openai

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/wire"
)

// Options configures [New]: a provider configuration ([llm.Config]) and
// what only this adapter has. Model is required; the zero value of every
// other field works and sends nothing the user did not set. Of the
// configuration: APIKey is sent as a bearer token, none when empty (local
// servers such as Ollama and vLLM need none); BaseURL is the base URL to
// which "/chat/completions" is appended, https://api.openai.com/v1 when
// empty; Provider names the provider in errors, "openai" when empty;
// MaxTokens, Temperature and TopP apply to requests that leave theirs unset;
// Getenv is not read.
type Options struct {
	llm.Config
	// Organization, when set, is sent as the OpenAI-Organization header.
	Organization string
	// Header holds more headers sent with every request (OpenRouter's
	// HTTP-Referer and X-Title, which attribute the calls to an app).
	Header http.Header
	// Dialect adapts the request to an OpenAI-compatible endpoint; the zero
	// value is OpenAI's own API.
	Dialect Dialect
	// PromptCacheKey is sent as prompt_cache_key with every request, so
	// that OpenAI routes them to the same prompt cache; empty means each
	// request's own llm.Request.CacheKey (a byref run sets one derived
	// from its agent), and none when that is empty too.
	PromptCacheKey string
}

// Dialect lists how an OpenAI-compatible endpoint's requests differ from
// OpenAI's. Responses need no dialect: every variation the adapter knows of
// is read whichever endpoint sends it.
type Dialect struct {
	// LegacyMaxTokens sends the cap as max_tokens rather than OpenAI's
	// max_completion_tokens (Mistral, Gemini, Ollama and vLLM document
	// max_tokens).
	LegacyMaxTokens bool
	// NoStreamOptions leaves out stream_options.include_usage, for
	// endpoints that refuse unknown fields (Mistral, which reports usage in
	// its last chunk anyway).
	NoStreamOptions bool
	// ToolResultName sends the tool's name in tool messages (Mistral
	// documents "name" there).
	ToolResultName bool
	// NoPromptCacheKey leaves out prompt_cache_key, for endpoints that
	// cache without a key (Gemini caches implicitly, by prefix) or refuse
	// unknown fields.
	NoPromptCacheKey bool
}

// Model is a [llm.Model] and [llm.Streamer] over an OpenAI chat completions
// endpoint. It is safe for concurrent use.
type Model struct {
	opts     Options
	url      string
	header   http.Header
	client   *http.Client
	provider string
	ids      atomic.Uint64
}

// New returns a Model for opts. It does no network I/O.
func New(opts Options) (*Model, error) {
	if strings.TrimSpace(opts.Model) == "" {
		return nil, errors.New("openai: Options.Model is empty; name a model, e.g. gpt-4o-mini")
	}
	m := &Model{opts: opts, provider: cmp.Or(opts.Provider, "openai")}
	m.url, m.header, m.client = wire.OpenAIEndpoint(opts.Config, "https://api.openai.com/v1", "/chat/completions", opts.Organization, opts.Header)
	return m, nil
}

// Generate implements [llm.Model].
func (m *Model) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	body, err := m.encode(req, false)
	if err != nil {
		return llm.Response{}, err
	}
	var c completion
	if err := wire.PostJSON(ctx, m.client, m.provider, m.url, m.header, body, &c, "the completion"); err != nil {
		return llm.Response{}, err
	}
	if c.Error != nil {
		return llm.Response{}, streamError(m.provider, c.Error)
	}
	if len(c.Choices) == 0 {
		return llm.Response{}, wire.BadResponse(m.provider, errors.New("no choices in the completion"))
	}
	ch := c.Choices[0]
	out := llm.Response{Refusal: ch.Message.Refusal, Usage: c.Usage.usage()}
	out.Text, out.Reasoning = ch.Message.Content.text, ch.Message.Content.reasoning
	out.Reasoning += ch.Message.reasoning()
	for _, tc := range ch.Message.calls() {
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments, Signature: tc.signature()})
	}
	m.finish(&out, ch.FinishReason)
	return out, nil
}

// finish fills in missing call IDs and maps the finish reason.
func (m *Model) finish(out *llm.Response, reason string) {
	for i := range out.ToolCalls {
		if out.ToolCalls[i].ID == "" {
			out.ToolCalls[i].ID = "call_" + strconv.FormatUint(m.ids.Add(1), 10)
		}
		if out.ToolCalls[i].Arguments == "" {
			out.ToolCalls[i].Arguments = "{}"
		}
	}
	out.StopReason = stopReason(reason)
	switch {
	case out.Refusal != "":
		out.StopReason = llm.StopRefusal
	case len(out.ToolCalls) > 0 && (out.StopReason == llm.StopEnd || out.StopReason == ""):
		// Some compatible endpoints (Gemini, Ollama) say "stop" after calls.
		out.StopReason = llm.StopToolCalls
	}
}

// stopReason maps a finish_reason to an [llm.StopReason]; an unknown one is
// kept as sent.
func stopReason(s string) llm.StopReason {
	switch s {
	case "":
		return ""
	case "stop", "eos":
		return llm.StopEnd
	case "tool_calls", "function_call":
		return llm.StopToolCalls
	case "length", "model_length":
		return llm.StopMaxTokens
	case "content_filter":
		return llm.StopContentFilter
	}
	return llm.StopReason(s)
}

// streamError turns an error object sent with a 200 status into an error:
// of the kind its code says when the code is an HTTP status (OpenRouter's
// upstream 429s), else a retryable unavailability.
func streamError(provider string, e *apiError) error {
	if code, ok := e.Code.(float64); ok && code >= 400 && code < 600 {
		return llm.StatusError(provider, int(code), 0, errors.New(e.Message))
	}
	return &llm.ProviderError{Provider: provider, Retryable: true, Kind: llm.ErrProviderUnavailable, Err: errors.New(e.Message)}
}
