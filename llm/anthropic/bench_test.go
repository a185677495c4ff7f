package anthropic

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/byref/byref/llm"
)

func BenchmarkEncode(b *testing.B) {
	m, _ := New(Options{Config: llm.Config{Model: "claude-sonnet-4-5"}})
	req := llm.Request{Messages: []llm.Message{llm.SystemMessage("You are terse."), llm.UserMessage("Go.")}}
	for i := range 10 {
		req.Tools = append(req.Tools, llm.Tool{Name: fmt.Sprint("tool_", i), Description: "A tool.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)})
	}
	for i := range 20 {
		call := llm.ToolCall{ID: fmt.Sprint("toolu_", i), Name: "tool_1", Arguments: `{"city":"<<var:home>>"}`}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}, Thinking: []llm.Thinking{{Text: "Look.", Signature: "sig"}}}, llm.ToolResultMessage(call, "sunny"))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.encode(req, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	body := []byte(`{"id":"m","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"Look it up.","signature":"c2ln"},{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","usage":{"input_tokens":20,"output_tokens":9}}`)
	m, _ := New(Options{Config: llm.Config{Model: "claude-sonnet-4-5"}})
	b.ReportAllocs()
	for b.Loop() {
		var r response
		if err := json.Unmarshal(body, &r); err != nil {
			b.Fatal(err)
		}
		var out llm.Response
		for _, bl := range r.Content {
			addBlock(&out, bl)
		}
		m.finish(&out, r.StopReason)
	}
}
