package gemini

import (
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

// DefaultBaseURL is the Gemini API's public endpoint, with its version.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"

// Options configures [New]: a provider configuration ([llm.Config]) and
// what only this adapter has. Model is required ("gemini-2.5-flash", with or
// without the "models/" prefix); the zero value of every other field works
// and sends nothing the user did not set. Of the configuration: APIKey is
// sent as the x-goog-api-key header; BaseURL is the API's base URL, with or
// without its version (/v1beta is added when it ends in neither /v1beta nor
// /v1), [DefaultBaseURL] when empty; Provider names the provider in errors,
// "gemini" when empty; MaxTokens, Temperature and TopP apply to requests
// that leave theirs unset; Getenv is not read.
type Options struct {
	llm.Config
	// IncludeThoughts asks thinking models for their thought summaries
	// (generationConfig.thinkingConfig.includeThoughts), which come back
	// as [llm.Response.Reasoning] and [llm.Response.Thinking].
	IncludeThoughts bool
	// CachedContent names an explicit context cache
	// ("cachedContents/..."), created beforehand with the API's
	// cachedContents.create, that every request reads; empty sends none.
	// Gemini also caches by prefix on its own (implicit caching).
	CachedContent string
}

// Model is a [llm.Model] and [llm.Streamer] over the Gemini API's
// generateContent and streamGenerateContent. It is safe for concurrent use.
type Model struct {
	opts      Options
	url       string
	streamURL string
	header    http.Header
	client    *http.Client
	provider  string
	ids       atomic.Uint64
	// strictSignatures is set for Gemini 3 models, which refuse a
	// function call of the current turn without its signature.
	strictSignatures bool
}

// New returns a Model for opts. It does no network I/O.
func New(opts Options) (*Model, error) {
	name := strings.TrimPrefix(strings.TrimSpace(opts.Model), "models/")
	if name == "" {
		return nil, errors.New("gemini: Options.Model is empty; name a model, e.g. gemini-2.5-flash")
	}
	base := strings.TrimSuffix(opts.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	if !strings.HasSuffix(base, "/v1beta") && !strings.HasSuffix(base, "/v1") {
		base += "/v1beta"
	}
	m := &Model{opts: opts, header: http.Header{}, client: opts.HTTPClient, provider: opts.Provider, strictSignatures: strings.HasPrefix(name, "gemini-3"),
		url: base + "/models/" + name + ":generateContent", streamURL: base + "/models/" + name + ":streamGenerateContent?alt=sse"}
	if m.client == nil {
		m.client = &http.Client{}
	}
	if m.provider == "" {
		m.provider = "gemini"
	}
	if opts.APIKey != "" {
		m.header.Set("x-goog-api-key", opts.APIKey)
	}
	return m, nil
}

// Generate implements [llm.Model].
func (m *Model) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	body, err := m.encode(req)
	if err != nil {
		return llm.Response{}, err
	}
	var r response
	if err := wire.PostJSON(ctx, m.client, m.provider, m.url, m.header, body, &r, "the response"); err != nil {
		return llm.Response{}, err
	}
	if r.Error != nil {
		return llm.Response{}, apiFailure(m.provider, r.Error)
	}
	if len(r.Candidates) == 0 && r.PromptFeedback == nil {
		return llm.Response{}, wire.BadResponse(m.provider, errors.New("the body has no candidates and no promptFeedback"))
	}
	var t turn
	if err := t.add(m, r, nil); err != nil {
		return llm.Response{}, err
	}
	return t.done(), nil
}

// turn assembles a response from a whole answer or from a stream's chunks:
// text parts join into the text, thought parts into the reasoning and its
// thinking blocks, and each functionCall part is one call with its
// signature.
type turn struct {
	out     llm.Response
	thought []llm.Thinking
	// textSig is the signature carried by a part that is not a thought
	// nor a call (the last text part, or an empty one).
	textSig  string
	finish   string
	feedback string
}

// add folds one GenerateContentResponse into t and reports its pieces to
// fn when fn is not nil.
func (t *turn) add(m *Model, r response, fn func(llm.Chunk) error) error {
	if r.UsageMetadata != nil {
		t.out.Usage = r.UsageMetadata.usage()
	}
	if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" {
		t.feedback = r.PromptFeedback.BlockReason
	}
	if len(r.Candidates) == 0 {
		return nil
	}
	c := r.Candidates[0]
	if c.FinishReason != "" {
		t.finish = c.FinishReason
	}
	if c.Content == nil {
		return nil
	}
	for _, p := range c.Content.Parts {
		var ch llm.Chunk
		switch {
		case p.FunctionCall != nil:
			call := llm.ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Arguments: string(p.FunctionCall.Args), Signature: p.ThoughtSignature}
			if call.ID == "" {
				call.ID = "call_" + strconv.FormatUint(m.ids.Add(1), 10)
			}
			if a := strings.TrimSpace(call.Arguments); a == "" || a == "null" {
				call.Arguments = "{}"
			}
			t.out.ToolCalls = append(t.out.ToolCalls, call)
			if fn != nil {
				if err := fn(llm.Chunk{ToolCall: &llm.ToolCall{ID: call.ID, Name: call.Name}}); err != nil {
					return err
				}
				ch = llm.Chunk{ToolCall: &llm.ToolCall{Arguments: call.Arguments}}
			}
		case p.Thought:
			n := len(t.thought)
			if n == 0 || t.thought[n-1].Signature != "" {
				t.thought = append(t.thought, llm.Thinking{})
				n++
			}
			if p.Text != nil {
				t.thought[n-1].Text += *p.Text
				t.out.Reasoning += *p.Text
				ch.Reasoning = *p.Text
			}
			t.thought[n-1].Signature = p.ThoughtSignature
		default:
			if p.Text != nil {
				t.out.Text += *p.Text
				ch.Text = *p.Text
			}
			if p.ThoughtSignature != "" {
				t.textSig = p.ThoughtSignature
			}
		}
		if fn != nil && (ch.Text != "" || ch.Reasoning != "" || ch.ToolCall != nil) {
			if err := fn(ch); err != nil {
				return err
			}
		}
	}
	return nil
}

// done returns the assembled response with its stop reason.
func (t *turn) done() llm.Response {
	out := t.out
	for _, th := range t.thought {
		if th.Text != "" || th.Signature != "" {
			out.Thinking = append(out.Thinking, th)
		}
	}
	if t.textSig != "" {
		out.Thinking = append(out.Thinking, llm.Thinking{Signature: t.textSig})
	}
	out.StopReason = stopReason(t.finish)
	switch {
	case t.feedback != "" && t.finish == "":
		// The prompt itself was blocked: no candidate at all.
		out.StopReason = llm.StopContentFilter
	case len(out.ToolCalls) > 0 && (out.StopReason == llm.StopEnd || out.StopReason == ""):
		// Gemini says STOP after function calls.
		out.StopReason = llm.StopToolCalls
	}
	return out
}

// stopReason maps a finishReason to an [llm.StopReason]; one with no
// equivalent (MALFORMED_FUNCTION_CALL, OTHER, ...) is kept as sent.
func stopReason(s string) llm.StopReason {
	switch s {
	case "":
		return ""
	case "STOP":
		return llm.StopEnd
	case "MAX_TOKENS":
		return llm.StopMaxTokens
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT":
		return llm.StopContentFilter
	}
	return llm.StopReason(s)
}

// usage maps usageMetadata: the prompt count includes the cached part and
// the tool-use prompt is input too; thoughts are output, as llm.Usage
// counts reasoning, and its reasoning tokens.
func (u *usageMetadata) usage() llm.Usage {
	return llm.Usage{
		InputTokens:     u.PromptTokenCount + u.ToolUsePromptTokenCount,
		OutputTokens:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
		CacheReadTokens: u.CachedContentTokenCount,
		ReasoningTokens: u.ThoughtsTokenCount,
	}
}

// apiFailure turns an error object sent with a 200 status (in a stream)
// into an error classified by its code.
func apiFailure(provider string, e *apiError) error {
	err := fmt.Errorf("%s: %s", e.Status, e.Message)
	if e.Code >= 400 {
		return llm.StatusError(provider, e.Code, 0, err)
	}
	return wire.BadResponse(provider, err)
}
