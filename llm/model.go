package llm

import (
	"context"
	"encoding/json"

	"github.com/byref/byref/run"
)

// Model generates the next assistant turn of a conversation.
//
// Implementations must be safe for concurrent use by many goroutines: a
// runtime shares one Model among all of its runs. Generate must not retain or
// modify req, its messages or its tools after it returns, and the caller owns
// the returned Response. Generate returns promptly with ctx's error when ctx is
// done. Failures reported by a provider should be [*ProviderError] values so
// that callers can tell a rate limit from a malformed response.
type Model interface {
	Generate(ctx context.Context, req Request) (Response, error)
}

// Streamer is an optional interface a [Model] implements when it can deliver a
// response piece by piece. Callers probe for it with a type assertion, or call
// [Stream], which does so.
//
// Stream calls fn for every piece as it arrives, one call at a time (not
// necessarily on the goroutine that called Stream) and never after Stream
// returns, and then returns the complete Response, assembled the
// same way Generate would assemble it. The final Response is authoritative:
// the chunks are progress reports, and a provider may deliver some content
// (tool calls, most often) only in the final Response. An error returned by fn
// stops the stream; Stream then returns an error that wraps it.
type Streamer interface {
	Model
	Stream(ctx context.Context, req Request, fn func(Chunk) error) (Response, error)
}

// Stream generates a response with m, streaming pieces to fn when m is a
// [Streamer]. Otherwise it calls Generate and reports the whole text (and the
// reasoning, when there is some) as a single chunk before returning.
func Stream(ctx context.Context, m Model, req Request, fn func(Chunk) error) (Response, error) {
	if s, ok := m.(Streamer); ok {
		return s.Stream(ctx, req, fn)
	}
	resp, err := m.Generate(ctx, req)
	if err != nil {
		return resp, err
	}
	if resp.Text != "" || resp.Reasoning != "" {
		if err := fn(Chunk{Text: resp.Text, Reasoning: resp.Reasoning}); err != nil {
			return Response{}, err
		}
	}
	return resp, nil
}

// Chunk is one piece of a streamed response. Usually exactly one field is set.
type Chunk struct {
	// Text is the next piece of the answer text.
	Text string
	// Reasoning is the next piece of the model's stated reasoning, for
	// providers that report it separately.
	Reasoning string
	// ToolCall is a fragment of a tool call, for providers that stream them:
	// ID and Name are set on the first fragment of each call, and Arguments
	// holds the next piece of its JSON arguments. A call's pieces add up to
	// its arguments in the final Response: {} for a call without any.
	ToolCall *ToolCall
}

// Role says who wrote a [Message].
type Role string

// The roles of a conversation.
const (
	// RoleSystem is the system prompt: instructions from the host.
	RoleSystem Role = "system"
	// RoleUser is the user: the task and follow-up messages.
	RoleUser Role = "user"
	// RoleAssistant is the model: text and tool calls.
	RoleAssistant Role = "assistant"
	// RoleTool is the result of one tool call, sent back to the model.
	RoleTool Role = "tool"
)

// Message is one turn of a conversation.
//
// A system or user message carries Text. An assistant message carries Text,
// ToolCalls or both. A tool message carries the result of one call in Text and
// names the call it answers in ToolCallID (and ToolName, which some providers
// require); send one tool message per call, in the order of the calls.
type Message struct {
	// Role says who wrote the message.
	Role Role
	// Text is the message's text; for a tool message, the tool's result.
	Text string
	// ToolCalls are the calls an assistant message asked for.
	ToolCalls []ToolCall
	// ToolCallID is the ID of the call a tool message answers.
	ToolCallID string
	// ToolName is the name of the tool a tool message answers.
	ToolName string
	// Thinking are the reasoning blocks of an assistant message, sent back
	// to the provider that wrote them as its documentation requires
	// (Anthropic's extended thinking with tool use, the reasoning items of
	// OpenAI's Responses API); each names its provider (Thinking.Provider),
	// and other providers ignore them.
	Thinking []Thinking
}

// Thinking is one block of a model's reasoning that its provider wants back,
// unchanged, on the next turn: Anthropic's thinking and redacted_thinking
// blocks, the parts of a Responses reasoning item with its encrypted_content. A [Response] carries them in the order the model wrote them, and
// [Response.Message] puts them in the assistant message that records it.
// It is [run.Thinking], the type the log keeps them in.
type Thinking = run.Thinking

// SystemMessage returns a system message with the given text.
func SystemMessage(text string) Message { return Message{Role: RoleSystem, Text: text} }

// UserMessage returns a user message with the given text.
func UserMessage(text string) Message { return Message{Role: RoleUser, Text: text} }

// ToolResultMessage returns the tool message that answers call with result.
func ToolResultMessage(call ToolCall, result string) Message {
	return Message{Role: RoleTool, Text: result, ToolCallID: call.ID, ToolName: call.Name}
}

// Tool describes a function the model may call. It is [run.Tool], the
// one tool type the schemas build, the models take and the runtime offers.
type Tool = run.Tool

// ToolCall is the model's request to call a tool: its ID, the tool's Name,
// the Arguments object as text and the provider's Signature. It is
// [run.ToolCall], one type from the provider's answer to the run's log.
type ToolCall = run.ToolCall

// Usage counts the tokens of one model call.
type Usage struct {
	// InputTokens is the number of tokens in the prompt, tools included:
	// those read from the provider's prompt cache and those written to it
	// are counted here too.
	InputTokens int
	// OutputTokens is the number of tokens the model generated, reasoning
	// included.
	OutputTokens int
	// CacheReadTokens is the part of InputTokens the provider read from
	// its prompt cache (Anthropic's cache_read_input_tokens, OpenAI's
	// prompt_tokens_details.cached_tokens), billed at a fraction of the
	// input price.
	CacheReadTokens int
	// CacheWriteTokens is the part of InputTokens the provider wrote to
	// its prompt cache (Anthropic's cache_creation_input_tokens), billed
	// above the input price; OpenAI reports none.
	CacheWriteTokens int
	// ReasoningTokens is the part of OutputTokens the model spent
	// reasoning (OpenAI's reasoning_tokens), for providers that count them
	// apart.
	ReasoningTokens int
	// Cost is what the provider says the call cost, in dollars
	// (OpenRouter's usage.cost); 0 when it says nothing. A runtime's
	// Options.Prices computes a cost of its own from the tokens.
	Cost float64
}

// Total returns InputTokens + OutputTokens.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens,
		CacheReadTokens: u.CacheReadTokens + v.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens: u.ReasoningTokens + v.ReasoningTokens, Cost: u.Cost + v.Cost,
	}
}

// StopReason says why the model stopped generating. Providers' own values are
// mapped to the constants below; a value with no equivalent is kept as the
// provider sent it.
type StopReason string

// The usual stop reasons.
const (
	// StopEnd means the model finished its turn.
	StopEnd StopReason = "end"
	// StopToolCalls means the model stopped to have tools called.
	StopToolCalls StopReason = "tool_calls"
	// StopMaxTokens means the output hit the token limit and is truncated.
	StopMaxTokens StopReason = "max_tokens"
	// StopContentFilter means the provider's safety filter stopped the output.
	StopContentFilter StopReason = "content_filter"
	// StopRefusal means the model declined to answer; [Response.Refusal]
	// holds what it said, when it said something.
	StopRefusal StopReason = "refusal"
)

// Truncated reports whether the output was cut by the token limit, so that
// its text or tool-call arguments are incomplete.
func (s StopReason) Truncated() bool { return s == StopMaxTokens }

// Refused reports whether the model or the provider's filter declined to
// answer (a refusal or a content-filter stop).
func (s StopReason) Refused() bool { return s == StopRefusal || s == StopContentFilter }

// Request is what a [Model] is asked to continue.
type Request struct {
	// Messages is the conversation so far, oldest first. System messages may
	// appear anywhere; providers with a single system prompt join them.
	Messages []Message
	// Tools are the tools the model may call; none means a plain chat.
	Tools []Tool
	// MaxTokens caps the output tokens; 0 means the model's default (for
	// models built by Open, Config.MaxTokens, and then the provider's: the
	// field is not sent, except to Anthropic, whose API requires it).
	MaxTokens int
	// Temperature sets the sampling temperature; nil means the model's
	// default, and then none is sent.
	Temperature *float64
	// TopP sets nucleus sampling; nil means the model's default, and then
	// none is sent.
	TopP *float64
	// CacheKey names the prompt cache the request belongs to: requests
	// with one key begin alike (one agent's), and providers that route by
	// a key (OpenAI's prompt_cache_key) send them to the same cache. Empty
	// sends none; a key set on the model's own options wins.
	CacheKey string
	// ResponseFormat, when set, asks for structured output: an answer
	// whose text is a JSON document valid against its schema (OpenAI's
	// response_format and text.format json_schema). nil asks for free
	// text. A provider that cannot honour it fails the call with an error
	// that says so, rather than answer in free text.
	ResponseFormat *ResponseFormat
}

// ResponseFormat describes the JSON document a [Request] asks the model to
// answer with.
type ResponseFormat struct {
	// Name names the format ([a-zA-Z0-9_-], at most 64 characters); empty
	// means "response".
	Name string
	// Description tells the model what the document is for.
	Description string
	// Schema is the JSON Schema of the answer, an object schema.
	Schema json.RawMessage
	// Strict asks providers that support it (OpenAI) to guarantee the
	// answer validates against Schema, which must then follow their
	// subset of JSON Schema (every property required, no additional
	// properties).
	Strict bool
}

// Response is one assistant turn.
type Response struct {
	// Text is the answer text; it may be empty when there are tool calls.
	Text string
	// Reasoning is the model's stated reasoning, for providers that report it
	// apart from the text (OpenAI-compatible reasoning_content, Anthropic
	// thinking blocks), for people to read.
	Reasoning string
	// Thinking are the reasoning blocks the provider wants back on the next
	// turn (Anthropic, OpenAI Responses); [Response.Message] carries them.
	Thinking []Thinking
	// Refusal is what the model said when it declined to answer (OpenAI's
	// message.refusal, or the text of an Anthropic refusal); StopReason is
	// then [StopRefusal].
	Refusal string
	// ToolCalls are the calls the model asks for, in order.
	ToolCalls []ToolCall
	// Usage counts the tokens of this call.
	Usage Usage
	// StopReason says why the model stopped.
	StopReason StopReason
}

// Message returns the assistant message that records r in the conversation.
func (r Response) Message() Message {
	return Message{Role: RoleAssistant, Text: r.Text, ToolCalls: r.ToolCalls, Thinking: r.Thinking}
}
