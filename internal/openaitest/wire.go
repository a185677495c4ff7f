package openaitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Request is one chat completions request as the server received it.
type Request struct {
	// Model is the model the client asked for.
	Model string `json:"model"`
	// Messages is the conversation, oldest first.
	Messages []Message `json:"messages"`
	// Tools are the functions the model may call.
	Tools []Tool `json:"tools,omitempty"`
	// ToolChoice is the tool_choice field as sent ("auto", an object...).
	ToolChoice json.RawMessage `json:"tool_choice,omitempty"`
	// ParallelToolCalls is the parallel_tool_calls field; nil when absent.
	ParallelToolCalls *bool `json:"parallel_tool_calls,omitempty"`
	// Stream asks for server-sent events.
	Stream bool `json:"stream,omitempty"`
	// StreamOptions are the stream_options; IncludeUsage asks for a final
	// usage chunk.
	StreamOptions *StreamOptions `json:"stream_options,omitempty"`
	// Temperature is nil when the client sent none.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens and MaxCompletionTokens are the output caps (0 when absent).
	MaxTokens           int `json:"max_tokens,omitempty"`
	MaxCompletionTokens int `json:"max_completion_tokens,omitempty"`
	// ResponseFormat is the response_format field as sent.
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`

	// Header holds the HTTP headers (Authorization, OpenAI-Organization...).
	Header http.Header `json:"-"`
	// Body is the request body exactly as sent.
	Body []byte `json:"-"`
}

// StreamOptions is the stream_options field of a streaming request.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage,omitempty"`
}

// Tool returns the tool of the request named name, and whether there is one.
func (r Request) Tool(name string) (Tool, bool) {
	for _, t := range r.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// ToolNames returns the names of the request's tools, in order.
func (r Request) ToolNames() []string {
	names := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		names[i] = t.Name
	}
	return names
}

// Message is one message of a request's conversation.
type Message struct {
	// Role is "system", "user", "assistant", "tool" (or "developer",
	// "function" as sent).
	Role string
	// Content is the message's text: the content string, or the text parts
	// of a content array joined with no separator.
	Content string
	// Parts are the parts of a content array as sent; nil when the content
	// was a string or null.
	Parts []ContentPart
	// Name is the optional name field.
	Name string
	// ToolCalls are the calls of an assistant message.
	ToolCalls []ToolCall
	// ToolCallID names the call a tool message answers.
	ToolCallID string
	// ReasoningContent is the reasoning_content some compatible APIs accept.
	ReasoningContent string
}

// ContentPart is one element of a content array.
type ContentPart struct {
	// Type is "text", "image_url", ...
	Type string `json:"type"`
	// Text is the text of a text part.
	Text string `json:"text,omitempty"`
	// Raw is the whole part as sent.
	Raw json.RawMessage `json:"-"`
}

type wireMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content,omitempty"`
	Name             string          `json:"name,omitempty"`
	ToolCalls        []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
}

// UnmarshalJSON decodes a message whose content is a string, null or an
// array of parts.
func (m *Message) UnmarshalJSON(b []byte) error {
	var w wireMessage
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = Message{Role: w.Role, Name: w.Name, ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID, ReasoningContent: w.ReasoningContent}
	content := bytes.TrimSpace(w.Content)
	switch {
	case len(content) == 0 || string(content) == "null":
	case content[0] == '"':
		return json.Unmarshal(content, &m.Content)
	case content[0] == '[':
		var raws []json.RawMessage
		if err := json.Unmarshal(content, &raws); err != nil {
			return fmt.Errorf("content: %w", err)
		}
		var text strings.Builder
		for _, raw := range raws {
			var p ContentPart
			if err := json.Unmarshal(raw, &p); err != nil {
				return fmt.Errorf("content part: %w", err)
			}
			p.Raw = raw
			if p.Type == "text" {
				text.WriteString(p.Text)
			}
			m.Parts = append(m.Parts, p)
		}
		m.Content = text.String()
	default:
		return fmt.Errorf("content is neither a string, null nor an array: %s", content)
	}
	return nil
}

// MarshalJSON encodes the message in the wire format, content as a string
// (or as its parts when it had some).
func (m Message) MarshalJSON() ([]byte, error) {
	w := wireMessage{Role: m.Role, Name: m.Name, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, ReasoningContent: m.ReasoningContent}
	if len(m.Parts) > 0 {
		raws := make([]json.RawMessage, len(m.Parts))
		for i, p := range m.Parts {
			raws[i] = p.Raw
			if len(raws[i]) == 0 {
				b, err := marshal(p)
				if err != nil {
					return nil, err
				}
				raws[i] = b
			}
		}
		b, err := marshal(raws)
		if err != nil {
			return nil, err
		}
		w.Content = b
	} else {
		b, err := marshal(m.Content)
		if err != nil {
			return nil, err
		}
		w.Content = b
	}
	return marshal(w)
}

// Tool is one function a request offers the model. On the wire it is
// {"type":"function","function":{"name",...}}; Tool flattens it.
type Tool struct {
	// Type is "function".
	Type string
	// Name is the function's name.
	Name string
	// Description is the function's description.
	Description string
	// Parameters is the JSON Schema of the arguments as sent, except that
	// the \u003c, \u003e and \u0026 escapes Go's encoding/json writes are
	// undone, so that references read <<var:NAME>> (the same JSON value;
	// Request.Body keeps the bytes as sent).
	Parameters json.RawMessage
	// Strict is the function's strict flag.
	Strict bool
}

type wireFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      bool            `json:"strict,omitempty"`
}

type wireTool struct {
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

// UnmarshalJSON decodes the wire form.
func (t *Tool) UnmarshalJSON(b []byte) error {
	var w wireTool
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = Tool{Type: w.Type, Name: w.Function.Name, Description: w.Function.Description, Parameters: unescapeHTML(w.Function.Parameters), Strict: w.Function.Strict}
	return nil
}

// unescapeHTML replaces the escapes \u003c, \u003e and \u0026 in the
// strings of a JSON text with the characters they stand for.
func unescapeHTML(b json.RawMessage) json.RawMessage {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch strings.ToLower(string(b[i+2 : i+6])) {
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		out, i = append(out, b[i], b[i+1]), i+1 // any other escape, kept whole
	}
	return out
}

// MarshalJSON encodes the wire form.
func (t Tool) MarshalJSON() ([]byte, error) {
	typ := t.Type
	if typ == "" {
		typ = "function"
	}
	return marshal(wireTool{Type: typ, Function: wireFunction{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Strict: t.Strict}})
}

// ToolCall is a call of a tool: in an assistant message of a request, or in
// a [Response]. On the wire it is {"id","type":"function","function":{"name",
// "arguments"}}; ToolCall flattens it.
type ToolCall struct {
	// ID identifies the call; a Response's call without one gets a unique
	// "call_N".
	ID string
	// Name is the tool's name.
	Name string
	// Arguments is the JSON object of arguments as text, sent as is (it
	// may be invalid JSON on purpose).
	Arguments string
}

type wireCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// UnmarshalJSON decodes the wire form.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	var w wireCall
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = ToolCall{ID: w.ID, Name: w.Function.Name, Arguments: w.Function.Arguments}
	return nil
}

// MarshalJSON encodes the wire form.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	w := wireCall{ID: c.ID, Type: "function"}
	w.Function.Name, w.Function.Arguments = c.Name, c.Arguments
	return marshal(w)
}

// Response is the server's answer to one request, written as a chat
// completion or, when the request streams, as chunks.
type Response struct {
	// Text is the assistant's text; empty means null content.
	Text string
	// Reasoning is sent as reasoning_content, as OpenAI-compatible
	// reasoning models do.
	Reasoning string
	// ToolCalls are the calls the model makes, in order (several make
	// parallel tool calls).
	ToolCalls []ToolCall
	// Usage is the token usage reported.
	Usage Usage
	// FinishReason is the finish_reason; empty means "tool_calls" when
	// there are tool calls and "stop" otherwise.
	FinishReason string
}

// Usage is a response's token usage; total_tokens is their sum.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Text returns a response that answers with text.
func Text(text string) Response { return Response{Text: text} }

// Call returns a response that calls one tool with arguments given as JSON
// text.
func Call(name, arguments string) Response {
	return Response{ToolCalls: []ToolCall{{Name: name, Arguments: arguments}}}
}

// Calls returns a response that calls several tools in parallel.
func Calls(calls ...ToolCall) Response { return Response{ToolCalls: calls} }

func (r Response) finishReason() string {
	switch {
	case r.FinishReason != "":
		return r.FinishReason
	case len(r.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

// The wire shapes of responses.

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func (u Usage) wire() *wireUsage {
	return &wireUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens}
}

type wireCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage,omitempty"`
}

type wireChoice struct {
	Index        int              `json:"index"`
	Message      *wireOutMessage  `json:"message,omitempty"`
	Delta        *wireDelta       `json:"delta,omitempty"`
	FinishReason *string          `json:"finish_reason"`
	Logprobs     *json.RawMessage `json:"logprobs"`
}

type wireOutMessage struct {
	Role             string     `json:"role"`
	Content          *string    `json:"content"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	Refusal          *string    `json:"refusal"`
}

type wireDelta struct {
	Role             string     `json:"role,omitempty"`
	Content          *string    `json:"content,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []wireCall `json:"tool_calls,omitempty"`
}

type wireError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// marshal encodes v without escaping <, > and &, as OpenAI does, so that
// references such as <<var:city>> read as written.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
