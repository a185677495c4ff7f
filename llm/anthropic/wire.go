package anthropic

import "encoding/json"

// The request and response shapes follow Anthropic's API reference,
// "Messages" (https://docs.anthropic.com/en/api/messages) and "Streaming
// Messages" (https://docs.anthropic.com/en/docs/build-with-claude/streaming),
// with extended thinking as "Building with extended thinking" documents it
// (thinking and redacted_thinking blocks, returned unchanged with tool use).

// request's fields are in the order the prompt cache reads the prompt
// (tools, system, messages), after the settings, so that the bodies of a
// run's requests begin alike byte for byte.
type request struct {
	Model       string    `json:"model"`
	MaxTokens   int       `json:"max_tokens"`
	Temperature *float64  `json:"temperature,omitempty"`
	TopP        *float64  `json:"top_p,omitempty"`
	Stream      bool      `json:"stream,omitempty"`
	Tools       []tool    `json:"tools,omitempty"`
	System      []block   `json:"system,omitempty"`
	Messages    []message `json:"messages"`
}

// cacheControl marks a cache breakpoint: the prompt up to and including
// the marked block is cached (Anthropic, "Prompt caching").
type cacheControl struct {
	Type string `json:"type"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

type tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// block is a content block of any type; only the fields of its type are set.
type block struct {
	Type string `json:"type"`
	// text
	Text string `json:"text,omitempty"`
	// thinking, redacted_thinking
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// tool_result
	ToolUseID string `json:"tool_use_id,omitempty"`
	Content   string `json:"content,omitempty"`
	// a cache breakpoint on a text, tool_use or tool_result block
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type response struct {
	Type       string    `json:"type"`
	Content    []block   `json:"content"`
	StopReason string    `json:"stop_reason"`
	Usage      usage     `json:"usage"`
	Error      *apiError `json:"error"`
}

// usage is a message's usage. When the server compacted the context first
// (context management's compaction), Iterations counts each model call
// apart, and the top-level fields count only the last.
type usage struct {
	InputTokens              int     `json:"input_tokens"`
	OutputTokens             int     `json:"output_tokens"`
	CacheCreationInputTokens int     `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int     `json:"cache_read_input_tokens"`
	Iterations               []usage `json:"iterations"`
}

type apiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// event is one server-sent event of a stream, any type.
type event struct {
	Type         string    `json:"type"`
	Message      *response `json:"message"`
	Index        int       `json:"index"`
	ContentBlock *block    `json:"content_block"`
	Delta        *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *usage    `json:"usage"`
	Error *apiError `json:"error"`
}
