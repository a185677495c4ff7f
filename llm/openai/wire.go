package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/byref/byref/llm"
)

// The request and response shapes follow OpenAI's API reference, "Create
// chat completion" (https://platform.openai.com/docs/api-reference/chat/create)
// and "The chat completion object" and "chunk object", plus the variations
// OpenAI-compatible endpoints document or were recorded sending: content as
// an array of parts (Mistral's Magistral), reasoning_content or reasoning
// (vLLM, Ollama, DeepSeek), tool calls without "type" (Mistral) and Gemini's
// extra_content.google.thought_signature.

// request's fields are in the order the prompt cache reads the prompt
// (tools, then messages), after the settings, so that the bodies of a
// run's requests begin alike byte for byte.
type request struct {
	Model               string          `json:"model"`
	PromptCacheKey      string          `json:"prompt_cache_key,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
	Tools               []tool          `json:"tools,omitempty"`
	Messages            []message       `json:"messages"`
}

// responseFormat is response_format {"type":"json_schema"}, structured
// output.
type responseFormat struct {
	Type       string     `json:"type"`
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
	Strict      bool            `json:"strict,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content,omitempty"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

type tool struct {
	Type     string   `json:"type"`
	Function function `json:"function"`
}

type function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict,omitempty"`
}

type toolCall struct {
	Index        *int          `json:"index,omitempty"`
	ID           string        `json:"id,omitempty"`
	Type         string        `json:"type,omitempty"`
	Function     callFunction  `json:"function"`
	ExtraContent *extraContent `json:"extra_content,omitempty"`
}

type callFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type extraContent struct {
	Google *struct {
		ThoughtSignature string `json:"thought_signature,omitempty"`
	} `json:"google,omitempty"`
}

func (c toolCall) signature() string {
	if c.ExtraContent == nil || c.ExtraContent.Google == nil {
		return ""
	}
	return c.ExtraContent.Google.ThoughtSignature
}

func withSignature(sig string) *extraContent {
	if sig == "" {
		return nil
	}
	e := &extraContent{}
	e.Google = &struct {
		ThoughtSignature string `json:"thought_signature,omitempty"`
	}{sig}
	return e
}

type completion struct {
	Choices []choice  `json:"choices"`
	Usage   *usage    `json:"usage"`
	Error   *apiError `json:"error"`
}

// apiError is an error object sent in a 200 answer or a stream
// (OpenRouter's mid-stream errors), whose code may be an HTTP status.
type apiError struct {
	Message string `json:"message"`
	Code    any    `json:"code"`
}

type choice struct {
	Message      answer `json:"message"`
	Delta        answer `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

// answer is a choice's message, or a chunk's delta.
type answer struct {
	Content          content    `json:"content"`
	Refusal          string     `json:"refusal"`
	ReasoningContent string     `json:"reasoning_content"`
	Reasoning        string     `json:"reasoning"`
	ToolCalls        []toolCall `json:"tool_calls"`
	// FunctionCall is the single call of the legacy functions API
	// (finish_reason "function_call"), which older models and some
	// compatible servers still answer with.
	FunctionCall *callFunction `json:"function_call"`
}

// calls returns the answer's tool calls, or its legacy function call as
// the one call at index 0.
func (a answer) calls() []toolCall {
	if len(a.ToolCalls) > 0 || a.FunctionCall == nil {
		return a.ToolCalls
	}
	zero := 0
	return []toolCall{{Index: &zero, Function: *a.FunctionCall}}
}

func (a answer) reasoning() string { return a.ReasoningContent + a.Reasoning }

// usage is a completion's usage, with what OpenRouter adds: the tokens
// written to the prompt cache and the call's cost in dollars.
type usage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens     int `json:"cached_tokens"`
		CacheWriteTokens int `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	Cost float64 `json:"cost"`
}

func (u *usage) usage() llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	out := llm.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, Cost: u.Cost}
	if d := u.PromptTokensDetails; d != nil {
		out.CacheReadTokens, out.CacheWriteTokens = d.CachedTokens, d.CacheWriteTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ReasoningTokens = d.ReasoningTokens
	}
	return out
}

// content is a message's content: a string, null, or an array of parts
// ({"type":"text","text"}; Magistral's {"type":"thinking","thinking":[parts]}).
type content struct {
	text, reasoning string
}

type part struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

// UnmarshalJSON reads any of the content shapes.
func (c *content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		return nil
	case b[0] == '"':
		return json.Unmarshal(b, &c.text)
	case b[0] == '[':
		var parts []part
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		for _, p := range parts {
			switch p.Type {
			case "text", "":
				c.text += p.Text
			case "thinking", "reasoning":
				var inner content
				if err := inner.UnmarshalJSON(p.Thinking); err != nil {
					return err
				}
				c.reasoning += inner.text + inner.reasoning
			}
		}
		return nil
	}
	return fmt.Errorf("content is neither a string nor an array of parts: %.40s", b)
}
