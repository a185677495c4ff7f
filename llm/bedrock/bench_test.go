package bedrock

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/byref/byref/llm"
)

func benchModel(b *testing.B) *Model {
	m, err := New(Options{Config: llm.Config{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}, Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkInput builds a request's Converse input and serializes it as
// the SDK does, through its documents.
func BenchmarkInput(b *testing.B) {
	m := benchModel(b)
	req := llm.Request{Messages: []llm.Message{llm.SystemMessage("You are terse."), llm.UserMessage("Go.")}}
	for i := range 10 {
		req.Tools = append(req.Tools, llm.Tool{Name: fmt.Sprint("tool_", i), Description: "A tool.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)})
	}
	for i := range 20 {
		call := llm.ToolCall{ID: fmt.Sprint("tooluse_", i), Name: "tool_1", Arguments: `{"city":"<<var:home>>"}`}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}, Thinking: []llm.Thinking{{Text: "Look.", Signature: "sig"}}}, llm.ToolResultMessage(call, "sunny"))
	}
	b.ReportAllocs()
	for b.Loop() {
		in, err := m.input(req)
		if err != nil {
			b.Fatal(err)
		}
		for _, msg := range in.Messages {
			for _, c := range msg.Content {
				if tu, ok := c.(*types.ContentBlockMemberToolUse); ok {
					if _, err := tu.Value.Input.MarshalSmithyDocument(); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
}

// BenchmarkOutput reads an answer's content blocks into a response.
func BenchmarkOutput(b *testing.B) {
	m := benchModel(b)
	var input map[string]any
	_ = json.Unmarshal([]byte(`{"city":"<<var:home>>","days":3}`), &input)
	content := []types.ContentBlock{
		&types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{Value: types.ReasoningTextBlock{Text: aws.String("Look it up."), Signature: aws.String("Eu0CCkgIBxAB")}}},
		&types.ContentBlockMemberText{Value: "Checking."},
		&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String("tooluse_1"), Name: aws.String("get_weather"), Input: document.NewLazyDocument(input)}},
	}
	b.ReportAllocs()
	for b.Loop() {
		var resp llm.Response
		for _, c := range content {
			if err := m.addBlock(&resp, c); err != nil {
				b.Fatal(err)
			}
		}
		m.finish(&resp, types.StopReasonToolUse)
	}
}
