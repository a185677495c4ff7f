package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/byref/byref/llm"
)

// encode builds the JSON body of req. System messages are joined into the
// system instruction; consecutive messages of one role share a content, so
// that the function responses of parallel calls go back together, as the
// API requires; an assistant message is sent back as the parts it came
// from, each with its thought signature: its thought parts, its text, then
// its function calls.
func (m *Model) encode(req llm.Request) ([]byte, error) {
	r := request{CachedContent: m.opts.CachedContent}
	gc := generationConfig{MaxOutputTokens: req.MaxTokens, Temperature: req.Temperature, TopP: req.TopP}
	if gc.MaxOutputTokens == 0 {
		gc.MaxOutputTokens = m.opts.MaxTokens
	}
	if gc.Temperature == nil {
		gc.Temperature = m.opts.Temperature
	}
	if gc.TopP == nil {
		gc.TopP = m.opts.TopP
	}
	if m.opts.IncludeThoughts {
		gc.ThinkingConfig = &thinkingConfig{IncludeThoughts: true}
	}
	if gc != (generationConfig{}) {
		r.GenerationConfig = &gc
	}
	if len(req.Tools) > 0 {
		decls := make([]functionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			s := t.Parameters
			if len(bytes.TrimSpace(s)) == 0 {
				s = nil
			} else if !json.Valid(s) {
				return nil, fmt.Errorf("llm: %s: tool %q: Parameters is not valid JSON; give a JSON Schema object", m.provider, t.Name)
			}
			decls = append(decls, functionDeclaration{Name: t.Name, Description: t.Description, ParametersJSONSchema: s})
		}
		r.Tools = []tools{{FunctionDeclarations: decls}}
	}
	var system []string
	names := map[string]string{} // call ID → tool name, for responses without ToolName
	for i, msg := range req.Messages {
		switch msg.Role {
		case llm.RoleSystem:
			system = append(system, msg.Text)
		case llm.RoleUser:
			r.Contents = appendParts(r.Contents, "user", part{Text: &msg.Text})
		case llm.RoleAssistant:
			parts := modelParts(msg)
			for _, c := range msg.ToolCalls {
				names[c.ID] = c.Name
			}
			if len(parts) == 0 {
				continue // an empty turn says nothing, and the API refuses an empty content
			}
			r.Contents = appendParts(r.Contents, "model", parts...)
		case llm.RoleTool:
			name := msg.ToolName
			if name == "" {
				name = names[msg.ToolCallID]
			}
			if name == "" {
				return nil, fmt.Errorf("llm: %s: message %d: a tool message needs the ToolName (or the ToolCallID of an earlier call) of the call it answers", m.provider, i)
			}
			out, _ := json.Marshal(struct {
				Output string `json:"output"`
			}{msg.Text})
			r.Contents = appendParts(r.Contents, "user", part{FunctionResponse: &functionResponse{ID: msg.ToolCallID, Name: name, Response: out}})
		default:
			return nil, fmt.Errorf("llm: %s: message %d: unknown role %q; use system, user, assistant or tool", m.provider, i, msg.Role)
		}
	}
	if len(system) > 0 {
		s := strings.Join(system, "\n\n")
		r.SystemInstruction = &content{Parts: []part{{Text: &s}}}
	}
	if len(r.Contents) == 0 {
		return nil, fmt.Errorf("llm: %s: the request has no user or assistant message; Gemini needs at least one", m.provider)
	}
	if m.strictSignatures {
		skipValidation(r.Contents)
	}
	return json.Marshal(r)
}

// skipSignature is the value Google documents for a function call Gemini
// 3 did not write (one from another model, or injected by the caller),
// which has no signature of its own: it tells the API not to check one.
const skipSignature = "skip_thought_signature_validator"

// skipValidation gives the first function call of each model content of
// the current turn (after the last user text) that has no signature the
// one Google documents for calls Gemini 3 did not write, which it would
// otherwise refuse. Calls Gemini wrote keep their own.
func skipValidation(cs []content) {
	start := 0
	for i, c := range cs {
		if c.Role != "user" {
			continue
		}
		for _, p := range c.Parts {
			if p.Text != nil {
				start = i + 1
			}
		}
	}
	for i := start; i < len(cs); i++ {
		if cs[i].Role != "model" {
			continue
		}
		for j := range cs[i].Parts {
			if p := &cs[i].Parts[j]; p.FunctionCall != nil {
				if p.ThoughtSignature == "" {
					p.ThoughtSignature = skipSignature
				}
				break
			}
		}
	}
}

// modelParts rebuilds the parts of an assistant turn: thinking blocks with
// text are thought parts; a block with only a signature is the signature
// of the text part (sent on an empty text part when the turn has no text);
// each call carries its own signature.
func modelParts(msg llm.Message) []part {
	var parts []part
	textSig := ""
	for _, th := range msg.Thinking {
		switch {
		case th.Text != "":
			text := th.Text
			parts = append(parts, part{Text: &text, Thought: true, ThoughtSignature: th.Signature})
		case th.Signature != "":
			textSig = th.Signature
		}
	}
	if msg.Text != "" || textSig != "" {
		text := msg.Text
		parts = append(parts, part{Text: &text, ThoughtSignature: textSig})
	}
	for _, c := range msg.ToolCalls {
		parts = append(parts, part{FunctionCall: &functionCall{ID: c.ID, Name: c.Name, Args: args(c.Arguments)}, ThoughtSignature: c.Signature})
	}
	return parts
}

// appendParts adds parts to the last content when it has the role, else as
// a new content.
func appendParts(cs []content, role string, parts ...part) []content {
	if n := len(cs); n > 0 && cs[n-1].Role == role {
		cs[n-1].Parts = append(cs[n-1].Parts, parts...)
		return cs
	}
	return append(cs, content{Role: role, Parts: parts})
}

// args is a call's arguments as functionCall.args: the JSON object the
// model wrote, or {} when it was not one (the API takes only an object).
func args(s string) json.RawMessage {
	b := bytes.TrimSpace([]byte(s))
	if len(b) == 0 || b[0] != '{' || !json.Valid(b) {
		return json.RawMessage("{}")
	}
	return b
}
