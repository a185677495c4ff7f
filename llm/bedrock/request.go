package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	smithydocument "github.com/aws/smithy-go/document"

	"github.com/byref/byref/llm"
)

// input builds the Converse input of req. System messages are joined into
// one system block; consecutive messages of one role share a message, as
// the API requires (the results of parallel calls go back together); an
// assistant message sends its reasoning blocks first, unchanged, then its
// text and its toolUse blocks. Cache points go where [CachePoints] says.
func (m *Model) input(req llm.Request) (*bedrockruntime.ConverseInput, error) {
	in := &bedrockruntime.ConverseInput{ModelId: aws.String(m.opts.Model)}
	inf := types.InferenceConfiguration{}
	if n := req.MaxTokens; n > 0 {
		inf.MaxTokens = aws.Int32(int32(n))
	} else if n := m.opts.MaxTokens; n > 0 {
		inf.MaxTokens = aws.Int32(int32(n))
	}
	if t := pick(req.Temperature, m.opts.Temperature); t != nil {
		inf.Temperature = aws.Float32(float32(*t))
	}
	if p := pick(req.TopP, m.opts.TopP); p != nil {
		inf.TopP = aws.Float32(float32(*p))
	}
	if inf.MaxTokens != nil || inf.Temperature != nil || inf.TopP != nil {
		in.InferenceConfig = &inf
	}
	if len(req.Tools) > 0 {
		tc := &types.ToolConfiguration{}
		for _, t := range req.Tools {
			schema := any(map[string]any{"type": "object", "properties": map[string]any{}})
			if len(bytes.TrimSpace(t.Parameters)) > 0 {
				v, err := decode(t.Parameters)
				if err != nil {
					return nil, fmt.Errorf("llm: %s: tool %q: Parameters is not valid JSON (%v); give a JSON Schema object", m.provider, t.Name, err)
				}
				schema = v
			}
			spec := types.ToolSpecification{Name: aws.String(t.Name), InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(numbers(schema))}}
			if t.Description != "" {
				spec.Description = aws.String(t.Description)
			}
			tc.Tools = append(tc.Tools, &types.ToolMemberToolSpec{Value: spec})
		}
		if m.cache.tools {
			tc.Tools = append(tc.Tools, &types.ToolMemberCachePoint{Value: cachePoint})
		}
		in.ToolConfig = tc
	}
	var system []string
	for i, msg := range req.Messages {
		switch msg.Role {
		case llm.RoleSystem:
			system = append(system, msg.Text)
		case llm.RoleUser:
			if msg.Text == "" {
				continue // Bedrock refuses an empty text block
			}
			in.Messages = appendBlocks(in.Messages, types.ConversationRoleUser, &types.ContentBlockMemberText{Value: msg.Text})
		case llm.RoleAssistant:
			blocks, err := m.assistantBlocks(msg)
			if err != nil {
				return nil, fmt.Errorf("llm: %s: message %d: %w", m.provider, i, err)
			}
			if len(blocks) == 0 {
				continue // an empty turn says nothing, and the API refuses it
			}
			in.Messages = appendBlocks(in.Messages, types.ConversationRoleAssistant, blocks...)
		case llm.RoleTool:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("llm: %s: message %d: a tool message needs the ToolCallID of the call it answers", m.provider, i)
			}
			text := msg.Text
			if text == "" {
				text = "(no output)" // Bedrock refuses an empty text block
			}
			in.Messages = appendBlocks(in.Messages, types.ConversationRoleUser, &types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{
				ToolUseId: aws.String(msg.ToolCallID), Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: text}}}})
		default:
			return nil, fmt.Errorf("llm: %s: message %d: unknown role %q; use system, user, assistant or tool", m.provider, i, msg.Role)
		}
	}
	if len(system) > 0 {
		in.System = []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: strings.Join(system, "\n\n")}}
		if m.cache.system {
			in.System = append(in.System, &types.SystemContentBlockMemberCachePoint{Value: cachePoint})
		}
	}
	if len(in.Messages) == 0 {
		return nil, fmt.Errorf("llm: %s: the request has no user or assistant message; Bedrock needs at least one", m.provider)
	}
	if m.cache.messages {
		last := &in.Messages[len(in.Messages)-1]
		last.Content = append(last.Content, &types.ContentBlockMemberCachePoint{Value: cachePoint})
	}
	return in, nil
}

// assistantBlocks rebuilds an assistant turn: its reasoning blocks
// (Claude's thinking, with signatures, or redacted), its text, its calls.
func (m *Model) assistantBlocks(msg llm.Message) ([]types.ContentBlock, error) {
	var blocks []types.ContentBlock
	for _, th := range msg.Thinking {
		switch {
		case th.Redacted != "":
			b, err := base64.StdEncoding.DecodeString(th.Redacted)
			if err != nil {
				return nil, fmt.Errorf("a redacted reasoning block is not base64: %w", err)
			}
			blocks = append(blocks, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberRedactedContent{Value: b}})
		case th.Text != "":
			r := types.ReasoningTextBlock{Text: aws.String(th.Text)}
			if th.Signature != "" {
				r.Signature = aws.String(th.Signature)
			}
			blocks = append(blocks, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{Value: r}})
		}
	}
	if msg.Text != "" {
		blocks = append(blocks, &types.ContentBlockMemberText{Value: msg.Text})
	}
	for _, c := range msg.ToolCalls {
		args, err := decode([]byte(c.Arguments))
		if _, isObject := args.(map[string]any); err != nil || !isObject {
			args = map[string]any{} // the API takes only an object
		}
		blocks = append(blocks, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String(c.ID), Name: aws.String(c.Name), Input: document.NewLazyDocument(numbers(args))}})
	}
	return blocks, nil
}

// appendBlocks adds blocks to the last message when it has the role (the
// API wants user and assistant to alternate), else as a new message.
func appendBlocks(msgs []types.Message, role types.ConversationRole, blocks ...types.ContentBlock) []types.Message {
	if n := len(msgs); n > 0 && msgs[n-1].Role == role {
		msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
		return msgs
	}
	return append(msgs, types.Message{Role: role, Content: blocks})
}

// decode reads JSON keeping numbers as written (json.Number), not
// rounded through float64.
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

// numbers replaces json.Number with smithy's document.Number throughout v,
// the number a document encodes as written (it would quote a json.Number).
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		return smithydocument.Number(x)
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}

func pick(a, b *float64) *float64 {
	if a != nil {
		return a
	}
	return b
}
