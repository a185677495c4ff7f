package llm

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// fakeLangchain is an llms.Model that records what it was given and returns a
// canned response.
type fakeLangchain struct {
	resp *llms.ContentResponse
	err  error
	msgs []llms.MessageContent
	opts llms.CallOptions
}

func (f *fakeLangchain) GenerateContent(_ context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	f.msgs = msgs
	f.opts = llms.CallOptions{}
	for _, o := range options {
		o(&f.opts)
	}
	return f.resp, f.err
}

func (f *fakeLangchain) Call(context.Context, string, ...llms.CallOption) (string, error) {
	return "", errors.New("not used")
}

func TestLangchainRequestMapping(t *testing.T) {
	f := &fakeLangchain{resp: &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "ok", StopReason: "stop"}}}}
	temp := 0.5
	m := FromLangchain(f, LangchainOptions{Model: "m1", MaxTokens: 99, Temperature: &temp})
	call := ToolCall{ID: "c1", Name: "get_weather", Arguments: ""}
	_, err := m.Generate(context.Background(), Request{
		Messages: []Message{
			SystemMessage("sys"),
			UserMessage("hi"),
			{Role: RoleAssistant, Text: "let me see", ToolCalls: []ToolCall{call}},
			ToolResultMessage(call, "sunny"),
			{Role: RoleAssistant}, // empty turns are dropped
		},
		Tools: []Tool{weatherTool, {Name: "noargs"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []llms.MessageContent{
		{Role: llms.ChatMessageTypeSystem, Parts: []llms.ContentPart{llms.TextContent{Text: "sys"}}},
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: "hi"}}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.TextContent{Text: "let me see"},
			llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: "{}"}},
		}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "c1", Name: "get_weather", Content: "sunny"}}},
	}
	if !reflect.DeepEqual(f.msgs, want) {
		t.Errorf("messages =\n%#v\nwant\n%#v", f.msgs, want)
	}
	if f.opts.Model != "m1" || f.opts.MaxTokens != 99 || f.opts.Temperature != 0.5 {
		t.Errorf("options = %+v", f.opts)
	}
	if len(f.opts.Tools) != 2 || f.opts.Tools[0].Function.Name != "get_weather" {
		t.Fatalf("tools = %+v", f.opts.Tools)
	}
	params, ok := f.opts.Tools[0].Function.Parameters.(map[string]any)
	if !ok || params["type"] != "object" {
		t.Errorf("parameters = %#v, want a decoded object", f.opts.Tools[0].Function.Parameters)
	}
	if p := f.opts.Tools[1].Function.Parameters.(map[string]any); p["type"] != "object" {
		t.Errorf("a tool without Parameters gets %v, want an empty object schema", p)
	}
}

func TestLangchainRequestErrors(t *testing.T) {
	m := FromLangchain(&fakeLangchain{}, LangchainOptions{})
	tests := map[string]Request{
		"tool message without ID":  {Messages: []Message{{Role: RoleTool, Text: "x"}}},
		"unknown role":             {Messages: []Message{{Role: "robot", Text: "x"}}},
		"parameters not an object": {Messages: []Message{UserMessage("x")}, Tools: []Tool{{Name: "t", Parameters: json.RawMessage(`[1]`)}}},
	}
	for name, req := range tests {
		if _, err := m.Generate(context.Background(), req); err == nil || IsRetryable(err) {
			t.Errorf("%s: err = %v, want a plain error", name, err)
		}
	}
}

func TestLangchainResponseMapping(t *testing.T) {
	f := &fakeLangchain{resp: &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{Content: "", GenerationInfo: map[string]any{"ThinkingContent": "hmm", "InputTokens": 10, "OutputTokens": 3}},
		{Content: "Here.", StopReason: "tool_use", GenerationInfo: map[string]any{"InputTokens": 10, "OutputTokens": 3}},
		{ToolCalls: []llms.ToolCall{{FunctionCall: &llms.FunctionCall{Name: "a", Arguments: `{"x":1}`}}}},
	}}}
	resp, err := FromLangchain(f, LangchainOptions{}).Generate(context.Background(), Request{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Here." || resp.Reasoning != "hmm" || resp.StopReason != StopToolCalls {
		t.Errorf("resp = %+v", resp)
	}
	if resp.Usage != (Usage{10, 3}) {
		t.Errorf("usage = %+v, want it once", resp.Usage)
	}
	if len(resp.ToolCalls) != 1 || !strings.HasPrefix(resp.ToolCalls[0].ID, "call_") {
		t.Errorf("tool calls = %+v, want a synthesized ID", resp.ToolCalls)
	}
}

func TestUsageFrom(t *testing.T) {
	tests := []struct {
		info map[string]any
		want Usage
	}{
		{map[string]any{"PromptTokens": 5, "CompletionTokens": 2}, Usage{5, 2}},
		{map[string]any{"InputTokens": 7, "OutputTokens": 1}, Usage{7, 1}},
		{map[string]any{"input_tokens": int32(4), "output_tokens": int32(9)}, Usage{4, 9}},
		{map[string]any{}, Usage{}},
	}
	for _, tt := range tests {
		if got, _ := usageFrom(tt.info); got != tt.want {
			t.Errorf("usageFrom(%v) = %+v, want %+v", tt.info, got, tt.want)
		}
	}
}

func TestParseToolCallChunk(t *testing.T) {
	tools := []Tool{weatherTool}
	tests := []struct {
		chunk string
		ok    bool
	}{
		{`[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":""}}]`, true},
		{`[{"type":"","function":{"name":"","arguments":"{\"ci"}}]`, true},
		{`[{"type":"function","function":{"name":"not_a_tool","arguments":""}}]`, false},
		{`[{"a":1}]`, false},
		{`Hello`, false},
		{`[1,2]`, false},
	}
	for _, tt := range tests {
		if _, ok := parseToolCallChunk([]byte(tt.chunk), tools); ok != tt.ok {
			t.Errorf("parseToolCallChunk(%s) = %v, want %v", tt.chunk, ok, tt.ok)
		}
	}
}

func TestUnescapeHTML(t *testing.T) {
	in := `{"city":"\u003c\u003cvar:home\u003e\u003e","n":12345678901234567890,"q":"a \u0026 b"}`
	want := `{"city":"<<var:home>>","n":12345678901234567890,"q":"a & b"}`
	if got := unescapeHTML(in); got != want {
		t.Errorf("unescapeHTML = %s, want %s", got, want)
	}
	if got := unescapeHTML(`{"a":"x"}`); got != `{"a":"x"}` {
		t.Errorf("unchanged input changed: %s", got)
	}
}

// benchRequest is a mid-sized step of an agent conversation.
func benchRequest() Request {
	call := ToolCall{ID: "c1", Name: "get_weather", Arguments: `{"city":"Paris"}`}
	return Request{
		Messages: []Message{
			SystemMessage(strings.Repeat("You are an agent. ", 50)),
			UserMessage("What is the weather in Paris and the time in Rome?"),
			{Role: RoleAssistant, ToolCalls: []ToolCall{call}},
			ToolResultMessage(call, `{"sky":"sunny","temp":21}`),
		},
		Tools: []Tool{weatherTool, timeTool},
	}
}

// BenchmarkLangchainMapping measures the adapter's own work per call: request
// mapping (messages, tool schemas) and response mapping, with no network.
func BenchmarkLangchainMapping(b *testing.B) {
	f := &fakeLangchain{resp: &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		StopReason:     "tool_calls",
		ToolCalls:      []llms.ToolCall{{ID: "c2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_time", Arguments: `{"city":"Rome"}`}}},
		GenerationInfo: map[string]any{"PromptTokens": 100, "CompletionTokens": 10},
	}}}}
	m := FromLangchain(f, LangchainOptions{})
	req := benchRequest()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Generate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLangchainMappingNoTools is the same without tool schemas.
func BenchmarkLangchainMappingNoTools(b *testing.B) {
	f := &fakeLangchain{resp: &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "done", StopReason: "stop"}}}}
	m := FromLangchain(f, LangchainOptions{})
	req := benchRequest()
	req.Tools = nil
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Generate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
