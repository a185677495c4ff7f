package gemini

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/byref/byref/llm"
)

func BenchmarkEncode(b *testing.B) {
	m, _ := New(Options{Config: llm.Config{Model: "gemini-2.5-flash"}})
	req := llm.Request{Messages: []llm.Message{llm.SystemMessage("You are terse."), llm.UserMessage("Go.")}}
	for i := range 10 {
		req.Tools = append(req.Tools, llm.Tool{Name: fmt.Sprint("tool_", i), Description: "A tool.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)})
	}
	for i := range 20 {
		call := llm.ToolCall{ID: fmt.Sprint("call_", i), Name: "tool_1", Arguments: `{"city":"<<var:home>>"}`, Signature: "CpYEAXLI2nxHJhy3F4oMijlAus2CPUEnTw16KkDpmU77"}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}, Thinking: []llm.Thinking{{Text: "Look.", Signature: "sig"}}}, llm.ToolResultMessage(call, "sunny"))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.encode(req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	body := []byte(`{"candidates":[{"content":{"parts":[{"text":"Look it up.","thought":true},{"text":"Checking."},{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"CpYEAXLI2nxH"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":57,"candidatesTokenCount":15,"thoughtsTokenCount":124}}`)
	m, _ := New(Options{Config: llm.Config{Model: "gemini-2.5-flash"}})
	b.ReportAllocs()
	for b.Loop() {
		var r response
		if err := json.Unmarshal(body, &r); err != nil {
			b.Fatal(err)
		}
		var t turn
		if err := t.add(m, r, nil); err != nil {
			b.Fatal(err)
		}
		t.done()
	}
}
