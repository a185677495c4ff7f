package responses

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/byref/byref/llm"
)

// The request and response shapes follow OpenAI's API reference, "Create a
// model response" (https://platform.openai.com/docs/api-reference/responses/create),
// "The response object" and "Streaming events", as the recorded exchanges
// show them (OpenAI's, and Azure OpenAI's v1 endpoint, which answers alike
// and adds content_filters).

// request's fields are in the order the prompt cache reads the prompt
// (instructions, tools, then input), after the settings, so that the bodies
// of a run's requests begin alike byte for byte.
type request struct {
	Model           string      `json:"model"`
	Store           bool        `json:"store"`
	Include         []string    `json:"include,omitempty"`
	PromptCacheKey  string      `json:"prompt_cache_key,omitempty"`
	MaxOutputTokens int         `json:"max_output_tokens,omitempty"`
	Temperature     *float64    `json:"temperature,omitempty"`
	TopP            *float64    `json:"top_p,omitempty"`
	Reasoning       *reasoning  `json:"reasoning,omitempty"`
	Text            *textConfig `json:"text,omitempty"`
	Stream          bool        `json:"stream,omitempty"`
	Instructions    string      `json:"instructions,omitempty"`
	Tools           []tool      `json:"tools,omitempty"`
	Input           []item      `json:"input"`
}

type reasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
}

type textConfig struct {
	Format format `json:"format"`
}

// format is text.format {"type":"json_schema"}, structured output.
type format struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
	Strict      bool            `json:"strict"`
}

// tool is a function tool. Strict is always sent: the Responses API takes
// a missing strict as true, and would then refuse the schemas that are not
// written for strict mode.
type tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// item is one item of the input or the output: a message ("role" set, or
// type "message"), a reasoning item, a function_call or a
// function_call_output. Only the fields of its type are set.
type item struct {
	Type string `json:"type,omitempty"`
	ID   string `json:"id,omitempty"`
	Role string `json:"role,omitempty"`
	// Content is a string in the input's messages, and an array of parts
	// in the output's.
	Content          json.RawMessage `json:"content,omitempty"`
	Summary          *[]summaryPart  `json:"summary,omitempty"`
	EncryptedContent string          `json:"encrypted_content,omitempty"`
	CallID           string          `json:"call_id,omitempty"`
	Name             string          `json:"name,omitempty"`
	Arguments        *string         `json:"arguments,omitempty"`
	Output           *string         `json:"output,omitempty"`
}

// summaryPart is a part of a reasoning item's summary. A reasoning item
// sent back must carry its summary, [] when empty: item.Summary is a
// pointer, omitted only when nil.
type summaryPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (it item) summary() []summaryPart {
	if it.Summary == nil {
		return nil
	}
	return *it.Summary
}

// part is a part of an output message's content.
type part struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

// response is the response object, whole (Generate) or as the streaming
// events response.completed, response.incomplete and response.failed carry
// it.
type response struct {
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error  *apiError `json:"error"`
	Output []item    `json:"output"`
	Usage  *usage    `json:"usage"`
}

// apiError is the error of a failed response, or of an "error" event.
type apiError struct {
	Code    any    `json:"code"`
	Message string `json:"message"`
}

type usage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

func (u *usage) usage() llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	out := llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	if d := u.InputTokensDetails; d != nil {
		out.CacheReadTokens = d.CachedTokens
	}
	if d := u.OutputTokensDetails; d != nil {
		out.ReasoningTokens = d.ReasoningTokens
	}
	return out
}

// code returns an error's code as text ("rate_limit_exceeded", "429").
func (e *apiError) code() string {
	switch c := e.Code.(type) {
	case string:
		return c
	case float64:
		return strconv.FormatFloat(c, 'f', -1, 64)
	}
	return ""
}

// failure is the error of a response that failed, or of an "error" event:
// its kind follows its code (rate limits and server errors are retryable).
func failure(provider string, e *apiError) *llm.ProviderError {
	msg := e.Message
	if msg == "" {
		msg = "the response failed"
	}
	code := e.code()
	if code != "" {
		msg = code + ": " + msg
	}
	pe := &llm.ProviderError{Provider: provider, Kind: llm.ErrProviderUnavailable, Retryable: true, Err: errors.New(msg)}
	switch {
	case code == "rate_limit_exceeded" || code == "insufficient_quota" || code == "429":
		pe.Kind = llm.ErrRateLimited
		pe.Retryable = code != "insufficient_quota"
	case strings.HasPrefix(code, "invalid_") || code == "context_length_exceeded" || code == "content_filter" || code == "400":
		pe.Kind, pe.Retryable = llm.ErrRequestRejected, false
	}
	return pe
}
