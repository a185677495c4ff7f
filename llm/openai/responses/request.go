package responses

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/wire"
)

// encode builds the JSON body of req. Only what the request or the options
// set is sent: no temperature, top_p or token cap by default. The system
// messages before the first other message are joined into instructions;
// later ones are system messages of the input. An assistant message sends
// its reasoning items first (when the provider can read them back: with
// their encrypted_content, or when responses are stored), then its text,
// then its function calls.
func (m *Model) encode(req llm.Request, stream bool) ([]byte, error) {
	r := request{Model: m.opts.Model, Store: m.opts.Store, Stream: stream, Temperature: req.Temperature, TopP: req.TopP,
		MaxOutputTokens: cmp.Or(req.MaxTokens, m.opts.MaxTokens), PromptCacheKey: cmp.Or(m.opts.PromptCacheKey, req.CacheKey)}
	if r.Temperature == nil {
		r.Temperature = m.opts.Temperature
	}
	if r.TopP == nil {
		r.TopP = m.opts.TopP
	}
	if m.reasons && !m.opts.Store {
		r.Include = []string{"reasoning.encrypted_content"}
	}
	if m.opts.ReasoningEffort != "" || m.opts.ReasoningSummary != "" {
		r.Reasoning = &reasoning{Effort: m.opts.ReasoningEffort, Summary: m.opts.ReasoningSummary}
	}
	if f := req.ResponseFormat; f != nil {
		if !json.Valid(f.Schema) {
			return nil, fmt.Errorf("llm: %s: Request.ResponseFormat.Schema is not valid JSON; give a JSON Schema object", m.provider)
		}
		r.Text = &textConfig{Format: format{Type: "json_schema", Name: cmp.Or(f.Name, "response"), Description: f.Description, Schema: f.Schema, Strict: f.Strict}}
	}
	for _, t := range req.Tools {
		params, err := wire.Parameters(m.provider, t)
		if err != nil {
			return nil, err
		}
		r.Tools = append(r.Tools, tool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params, Strict: t.Strict})
	}
	var instructions []string
	r.Input = make([]item, 0, len(req.Messages))
	for i, msg := range req.Messages {
		switch msg.Role {
		case llm.RoleSystem:
			if len(r.Input) == 0 {
				instructions = append(instructions, msg.Text)
				continue
			}
			r.Input = append(r.Input, item{Role: "system", Content: text(msg.Text)})
		case llm.RoleUser:
			r.Input = append(r.Input, item{Role: "user", Content: text(msg.Text)})
		case llm.RoleAssistant:
			r.Input = m.appendReasoning(r.Input, msg.Thinking)
			if msg.Text != "" {
				r.Input = append(r.Input, item{Role: "assistant", Content: text(msg.Text)})
			}
			for _, c := range msg.ToolCalls {
				args := c.Arguments
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				r.Input = append(r.Input, item{Type: "function_call", CallID: c.ID, Name: c.Name, Arguments: &args})
			}
		case llm.RoleTool:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("llm: %s: message %d: a tool message needs the ToolCallID of the call it answers", m.provider, i)
			}
			out := msg.Text
			r.Input = append(r.Input, item{Type: "function_call_output", CallID: msg.ToolCallID, Output: &out})
		default:
			return nil, fmt.Errorf("llm: %s: message %d: unknown role %q; use system, user, assistant or tool", m.provider, i, msg.Role)
		}
	}
	r.Instructions = strings.Join(instructions, "\n\n")
	return json.Marshal(r)
}

// appendReasoning appends the reasoning items that blocks record: the
// consecutive blocks with one ID are one item, whose summary is their
// texts. Other providers' blocks are left out, and so is an item the
// provider could not read back: one without encrypted_content when
// responses are not stored (it would answer "Item not found"), and any
// item when the model does not reason (a conversation that changed
// models).
func (m *Model) appendReasoning(input []item, blocks []llm.Thinking) []item {
	if !m.reasons {
		return input // a model that does not reason reads no reasoning items
	}
	for i := 0; i < len(blocks); {
		b := blocks[i]
		j := i + 1
		for j < len(blocks) && blocks[j].Provider == b.Provider && blocks[j].ID == b.ID && b.ID != "" {
			j++
		}
		group := blocks[i:j]
		i = j
		if b.Provider != Provider || b.ID == "" {
			continue
		}
		summary := []summaryPart{}
		it := item{Type: "reasoning", ID: b.ID, Summary: &summary}
		for _, g := range group {
			it.EncryptedContent = cmp.Or(it.EncryptedContent, g.Signature)
			if g.Text != "" {
				summary = append(summary, summaryPart{Type: "summary_text", Text: g.Text})
			}
		}
		if it.EncryptedContent == "" && !m.opts.Store {
			continue
		}
		input = append(input, it)
	}
	return input
}

// text is a message's content as a JSON string.
func text(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
