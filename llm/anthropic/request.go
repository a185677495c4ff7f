package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/wire"
)

// encode builds the JSON body of req. System messages are joined into the
// system prompt; consecutive tool results share one user message, as the API
// requires; an assistant message sends its thinking blocks first, unchanged
// (other providers' reasoning is left out), then its text and its tool_use
// blocks.
func (m *Model) encode(req llm.Request, stream bool) ([]byte, error) {
	if req.ResponseFormat != nil {
		return nil, fmt.Errorf("llm: %s: Request.ResponseFormat is not supported by the Messages API adapter; describe the JSON in the prompt, or offer a tool whose parameters are the schema", m.provider)
	}
	r := request{Model: m.opts.Model, MaxTokens: req.MaxTokens, Temperature: req.Temperature, TopP: req.TopP, Stream: stream}
	if r.MaxTokens == 0 {
		r.MaxTokens = m.opts.MaxTokens
	}
	if r.MaxTokens == 0 {
		r.MaxTokens = DefaultMaxTokens
	}
	if r.Temperature == nil {
		r.Temperature = m.opts.Temperature
	}
	if r.TopP == nil {
		r.TopP = m.opts.TopP
	}
	for _, t := range req.Tools {
		s, err := wire.Parameters(m.provider, t)
		if err != nil {
			return nil, err
		}
		r.Tools = append(r.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: s})
	}
	var system []string
	for i, msg := range req.Messages {
		switch msg.Role {
		case llm.RoleSystem:
			system = append(system, msg.Text)
		case llm.RoleUser:
			r.Messages = appendBlocks(r.Messages, "user", block{Type: "text", Text: msg.Text})
		case llm.RoleAssistant:
			var blocks []block
			for _, t := range msg.Thinking {
				if t.Provider != "" && t.Provider != "anthropic" {
					continue // another provider's reasoning, which Anthropic cannot read
				}
				if t.Redacted != "" {
					blocks = append(blocks, block{Type: "redacted_thinking", Data: t.Redacted})
				} else {
					blocks = append(blocks, block{Type: "thinking", Thinking: t.Text, Signature: t.Signature})
				}
			}
			if msg.Text != "" {
				blocks = append(blocks, block{Type: "text", Text: msg.Text})
			}
			for _, c := range msg.ToolCalls {
				blocks = append(blocks, block{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input(c.Arguments)})
			}
			if len(blocks) == 0 {
				continue // an empty turn says nothing, and the API refuses it
			}
			r.Messages = appendBlocks(r.Messages, "assistant", blocks...)
		case llm.RoleTool:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("llm: %s: message %d: a tool message needs the ToolCallID of the call it answers", m.provider, i)
			}
			r.Messages = appendBlocks(r.Messages, "user", block{Type: "tool_result", ToolUseID: msg.ToolCallID, Content: msg.Text})
		default:
			return nil, fmt.Errorf("llm: %s: message %d: unknown role %q; use system, user, assistant or tool", m.provider, i, msg.Role)
		}
	}
	if len(system) > 0 {
		r.System = []block{{Type: "text", Text: strings.Join(system, "\n\n")}}
	}
	if !m.opts.NoCacheControl {
		markCache(&r)
	}
	return json.Marshal(r)
}

// markCache sets the two cache breakpoints: at the end of the stable
// prefix (the system prompt, else the last tool), and on the last block of
// the last message that can carry one (not a thinking block).
func markCache(r *request) {
	switch {
	case len(r.System) > 0:
		r.System[len(r.System)-1].CacheControl = ephemeral
	case len(r.Tools) > 0:
		r.Tools[len(r.Tools)-1].CacheControl = ephemeral
	}
	if n := len(r.Messages); n > 0 {
		blocks := r.Messages[n-1].Content
		for i := len(blocks) - 1; i >= 0; i-- {
			if t := blocks[i].Type; t != "thinking" && t != "redacted_thinking" {
				blocks[i].CacheControl = ephemeral
				break
			}
		}
	}
}

// appendBlocks adds blocks to the last message when it has the role (the API
// wants user and assistant to alternate), else as a new message.
func appendBlocks(msgs []message, role string, blocks ...block) []message {
	if n := len(msgs); n > 0 && msgs[n-1].Role == role {
		msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
		return msgs
	}
	return append(msgs, message{Role: role, Content: blocks})
}

// input is a call's arguments as a tool_use input: the JSON object the model
// wrote, or {} when it was not one (the API accepts only an object).
func input(args string) json.RawMessage {
	b := bytes.TrimSpace([]byte(args))
	if len(b) == 0 || b[0] != '{' || !json.Valid(b) {
		return json.RawMessage("{}")
	}
	return b
}
