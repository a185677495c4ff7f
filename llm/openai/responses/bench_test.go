package responses

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
)

// benchRequest is a conversation of a few dozen turns with ten tools, each
// turn with a reasoning item to send back.
func benchRequest() llm.Request {
	req := llm.Request{Messages: []llm.Message{llm.SystemMessage("You are terse."), llm.UserMessage("Go.")}}
	for i := range 10 {
		req.Tools = append(req.Tools, llm.Tool{Name: fmt.Sprint("tool_", i), Description: "A tool.", Strict: true,
			Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/city_possible_variables"}]}},"required":["city"],"additionalProperties":false,"$defs":{"city_possible_variables":{"type":"string","enum":["<<var:home>>","<<var:work>>"]}}}`)})
	}
	for i := range 20 {
		call := llm.ToolCall{ID: fmt.Sprint("call_", i), Name: "tool_1", Arguments: `{"city":"<<var:home>>"}`}
		thinking := []llm.Thinking{{Provider: Provider, ID: fmt.Sprint("rs_", i), Text: "**Plan** the next call.", Signature: strings.Repeat("gAAAAAB", 200)}}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Thinking: thinking, ToolCalls: []llm.ToolCall{call}},
			llm.ToolResultMessage(call, `{"success":true,"created":[{"name":"weather","type":"string","preview":"\"sunny\""}]}`))
	}
	return req
}

func BenchmarkEncode(b *testing.B) {
	m, _ := New(Options{Config: llm.Config{Model: "gpt-5-mini"}})
	req := benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.encode(req, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAssembleStream folds a streamed answer of 200 text deltas and a
// function call in 20 pieces, decoding each event as Stream does.
func BenchmarkAssembleStream(b *testing.B) {
	var events [][]byte
	for range 200 {
		events = append(events, []byte(`{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"word "}`))
	}
	events = append(events, []byte(`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"get_weather","arguments":""}}`))
	for range 20 {
		events = append(events, []byte(`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{\"a\":1}"}`))
	}
	events = append(events, []byte(`{"type":"response.completed","response":{"status":"completed","output":[],"usage":{"input_tokens":5,"output_tokens":5}}}`))
	fn := func(llm.Chunk) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		a := assembler{fn: fn, args: map[string]*strings.Builder{}}
		for _, ev := range events {
			var e event
			if err := json.Unmarshal(ev, &e); err != nil {
				b.Fatal(err)
			}
			if err := a.add(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}
