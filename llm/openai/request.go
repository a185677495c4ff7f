package openai

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/wire"
)

// encode builds the JSON body of req. Only what the request or the options
// set is sent: no temperature, top_p or token cap by default.
func (m *Model) encode(req llm.Request, stream bool) ([]byte, error) {
	r := request{Model: m.opts.Model, Stream: stream, Temperature: req.Temperature, TopP: req.TopP}
	if r.Temperature == nil {
		r.Temperature = m.opts.Temperature
	}
	if r.TopP == nil {
		r.TopP = m.opts.TopP
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = m.opts.MaxTokens
	}
	if m.opts.Dialect.LegacyMaxTokens {
		r.MaxTokens = maxTokens
	} else {
		r.MaxCompletionTokens = maxTokens
	}
	if !m.opts.Dialect.NoPromptCacheKey {
		r.PromptCacheKey = m.opts.PromptCacheKey
		if r.PromptCacheKey == "" {
			r.PromptCacheKey = req.CacheKey
		}
	}
	if stream && !m.opts.Dialect.NoStreamOptions {
		r.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if f := req.ResponseFormat; f != nil {
		if !json.Valid(f.Schema) {
			return nil, fmt.Errorf("llm: %s: Request.ResponseFormat.Schema is not valid JSON; give a JSON Schema object", m.provider)
		}
		r.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{Name: cmp.Or(f.Name, "response"), Description: f.Description, Schema: f.Schema, Strict: f.Strict}}
	}
	for _, t := range req.Tools {
		params, err := wire.Parameters(m.provider, t)
		if err != nil {
			return nil, err
		}
		r.Tools = append(r.Tools, tool{Type: "function", Function: function{Name: t.Name, Description: t.Description, Parameters: params, Strict: t.Strict}})
	}
	r.Messages = make([]message, 0, len(req.Messages))
	for i, msg := range req.Messages {
		switch msg.Role {
		case llm.RoleSystem, llm.RoleUser:
			r.Messages = append(r.Messages, message{Role: string(msg.Role), Content: &msg.Text})
		case llm.RoleAssistant:
			out := message{Role: "assistant"}
			if msg.Text != "" || len(msg.ToolCalls) == 0 {
				out.Content = &msg.Text
			}
			for _, c := range msg.ToolCalls {
				args := c.Arguments
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				out.ToolCalls = append(out.ToolCalls, toolCall{ID: c.ID, Type: "function", Function: callFunction{Name: c.Name, Arguments: args}, ExtraContent: withSignature(c.Signature)})
			}
			r.Messages = append(r.Messages, out)
		case llm.RoleTool:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("llm: %s: message %d: a tool message needs the ToolCallID of the call it answers", m.provider, i)
			}
			out := message{Role: "tool", Content: &msg.Text, ToolCallID: msg.ToolCallID}
			if m.opts.Dialect.ToolResultName {
				out.Name = msg.ToolName
			}
			r.Messages = append(r.Messages, out)
		default:
			return nil, fmt.Errorf("llm: %s: message %d: unknown role %q; use system, user, assistant or tool", m.provider, i, msg.Role)
		}
	}
	return json.Marshal(r)
}
