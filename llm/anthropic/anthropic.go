package anthropic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/wire"
)

// DefaultMaxTokens is the max_tokens sent when neither the request nor the
// options set one: Anthropic's API requires the field, and every current
// Claude model can write at least this many tokens.
const DefaultMaxTokens = 4096

// Version is the anthropic-version header sent with every request.
const Version = "2023-06-01"

// Options configures [New]: a provider configuration ([llm.Config]) and
// what only this adapter has. Model is required ("claude-sonnet-4-5"); the
// zero value of every other field works and sends nothing the user did not
// set. Of the configuration: APIKey is sent as the x-api-key header;
// BaseURL is the base URL, with or without the trailing /v1,
// https://api.anthropic.com when empty; Provider names the provider in
// errors, "anthropic" when empty; MaxTokens is max_tokens for requests that
// leave theirs at 0, [DefaultMaxTokens] when 0; Temperature and TopP apply
// to requests that leave theirs nil (newer Claude models refuse the two
// together); Getenv is not read.
type Options struct {
	llm.Config
	// NoCacheControl sends no cache_control breakpoints. By default a
	// request carries two of Anthropic's four: one at the end of the
	// stable prefix (the system prompt, or the last tool when there is
	// none), which every request of a run repeats, and one on the last
	// block of the last message, which moves with the conversation so that
	// the next request reads all of this one from the cache.
	NoCacheControl bool
}

// Model is a [llm.Model] and [llm.Streamer] over Anthropic's Messages API.
// It is safe for concurrent use.
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
		return nil, errors.New("anthropic: Options.Model is empty; name a model, e.g. claude-sonnet-4-5")
	}
	base := strings.TrimSuffix(opts.BaseURL, "/")
	if base == "" {
		base = "https://api.anthropic.com"
	}
	base = strings.TrimSuffix(base, "/v1")
	m := &Model{opts: opts, url: base + "/v1/messages", header: http.Header{}, client: opts.HTTPClient, provider: opts.Provider}
	if m.client == nil {
		m.client = &http.Client{}
	}
	if m.provider == "" {
		m.provider = "anthropic"
	}
	m.header.Set("x-api-key", opts.APIKey)
	m.header.Set("anthropic-version", Version)
	return m, nil
}

// Generate implements [llm.Model].
func (m *Model) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	body, err := m.encode(req, false)
	if err != nil {
		return llm.Response{}, err
	}
	var r response
	if err := wire.PostJSON(ctx, m.client, m.provider, m.url, m.header, body, &r, "the message"); err != nil {
		return llm.Response{}, err
	}
	if r.Error != nil {
		return llm.Response{}, apiFailure(m.provider, r.Error)
	}
	if r.Type != "message" {
		return llm.Response{}, wire.BadResponse(m.provider, fmt.Errorf("the body is a %q, not a message", r.Type))
	}
	out := llm.Response{Usage: r.Usage.usage()}
	for _, bl := range r.Content {
		addBlock(&out, bl)
	}
	m.finish(&out, r.StopReason)
	return out, nil
}

// addBlock folds one complete content block into the response.
func addBlock(out *llm.Response, bl block) {
	switch bl.Type {
	case "text":
		out.Text += bl.Text
	case "thinking":
		out.Reasoning += bl.Thinking
		out.Thinking = append(out.Thinking, llm.Thinking{Text: bl.Thinking, Signature: bl.Signature})
	case "redacted_thinking":
		out.Thinking = append(out.Thinking, llm.Thinking{Redacted: bl.Data})
	case "tool_use":
		args := string(bytes.TrimSpace(bl.Input))
		if args == "" || args == "null" {
			args = "{}"
		}
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: bl.ID, Name: bl.Name, Arguments: args})
	}
}

// finish gives calls without an ID a unique one and maps the stop reason. A
// refusal keeps whatever text came with it as the Refusal; an empty refusal
// (no content blocks) is still a refusal.
func (m *Model) finish(out *llm.Response, reason string) {
	for i := range out.ToolCalls {
		if out.ToolCalls[i].ID == "" {
			out.ToolCalls[i].ID = "toolu_byref_" + strconv.FormatUint(m.ids.Add(1), 10)
		}
	}
	switch reason {
	case "end_turn", "stop_sequence":
		out.StopReason = llm.StopEnd
	case "tool_use":
		out.StopReason = llm.StopToolCalls
	case "max_tokens", "model_context_window_exceeded":
		out.StopReason = llm.StopMaxTokens
	case "refusal":
		out.StopReason = llm.StopRefusal
		out.Refusal, out.Text = out.Text, ""
		if out.Refusal == "" {
			out.Refusal = "the model declined to answer (Anthropic stop_reason refusal, no text)"
		}
	default:
		out.StopReason = llm.StopReason(reason)
	}
	if out.StopReason == "" && len(out.ToolCalls) > 0 {
		out.StopReason = llm.StopToolCalls
	}
}

// usage returns u as an llm.Usage: cache reads and writes are part of the
// input, and a compacted message's usage is the sum of its iterations.
func (u usage) usage() llm.Usage {
	if len(u.Iterations) > 0 {
		var sum llm.Usage
		for _, it := range u.Iterations {
			sum = sum.Add(it.usage())
		}
		return sum
	}
	return llm.Usage{
		InputTokens: u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens,
	}
}

// apiFailure turns an error object sent with a 200 status (or as a stream's
// error event) into an error: overloaded_error and api_error are retryable.
func apiFailure(provider string, e *apiError) error {
	switch e.Type {
	case "overloaded_error", "api_error":
		return &llm.ProviderError{Provider: provider, Retryable: true, Kind: llm.ErrProviderUnavailable, Err: fmt.Errorf("%s: %s", e.Type, e.Message)}
	case "rate_limit_error":
		return &llm.ProviderError{Provider: provider, Retryable: true, Kind: llm.ErrRateLimited, Err: fmt.Errorf("%s: %s", e.Type, e.Message)}
	}
	return wire.BadResponse(provider, fmt.Errorf("%s: %s", e.Type, e.Message))
}
