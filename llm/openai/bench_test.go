package openai

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/byref/byref/llm"
)

// benchRequest is a conversation of a few dozen turns with ten tools.
func benchRequest() llm.Request {
	req := llm.Request{Messages: []llm.Message{llm.SystemMessage("You are terse."), llm.UserMessage("Go.")}}
	for i := range 10 {
		req.Tools = append(req.Tools, llm.Tool{Name: fmt.Sprint("tool_", i), Description: "A tool.", Strict: true,
			Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/city_possible_variables"}]}},"required":["city"],"additionalProperties":false,"$defs":{"city_possible_variables":{"type":"string","enum":["<<var:home>>","<<var:work>>"]}}}`)})
	}
	for i := range 20 {
		call := llm.ToolCall{ID: fmt.Sprint("call_", i), Name: "tool_1", Arguments: `{"city":"<<var:home>>"}`}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}, llm.ToolResultMessage(call, `{"success":true,"created":[{"name":"weather","type":"string","preview":"\"sunny\""}]}`))
	}
	return req
}

func BenchmarkEncode(b *testing.B) {
	m, _ := New(Options{Config: llm.Config{Model: "gpt-4o-mini"}})
	req := benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.encode(req, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAssembleStream folds a streamed answer of 200 text deltas and a
// tool call in 20 pieces.
func BenchmarkAssembleStream(b *testing.B) {
	var chunks []completion
	for _, s := range []string{`{"choices":[{"index":0,"delta":{"content":"word "}}]}`} {
		var c completion
		if err := json.Unmarshal([]byte(s), &c); err != nil {
			b.Fatal(err)
		}
		for range 200 {
			chunks = append(chunks, c)
		}
	}
	var first, piece completion
	_ = json.Unmarshal([]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`), &first)
	_ = json.Unmarshal([]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]}}]}`), &piece)
	chunks = append(chunks, first)
	for range 20 {
		chunks = append(chunks, piece)
	}
	fn := func(llm.Chunk) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		var a assembler
		for _, c := range chunks {
			if err := a.add(c, fn); err != nil {
				b.Fatal(err)
			}
		}
	}
}
