package llm

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// These tests drive langchaingo's real Anthropic client against a server that
// speaks Anthropic's /v1/messages wire format.

func openAnthropic(t *testing.T, w *wireServer) Model {
	t.Helper()
	m, err := OpenWith("anthropic:claude-sonnet-4-5", Options{APIKey: "test-key", BaseURL: w.URL(""), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func anthropicJSON(content, stop string) string {
	return `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
	"content":` + content + `,"stop_reason":"` + stop + `","stop_sequence":null,
	"usage":{"input_tokens":120,"output_tokens":15}}`
}

func TestAnthropicSingleToolCall(t *testing.T) {
	w := newWireServer(t, "/v1/messages", wireReply{body: anthropicJSON(
		`[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]`, "tool_use")})
	m := openAnthropic(t, w)

	resp, err := m.Generate(context.Background(), Request{
		Messages: []Message{SystemMessage("Be brief."), UserMessage("Weather in Paris?")},
		Tools:    []Tool{weatherTool},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}
	if !reflect.DeepEqual(resp.ToolCalls, want) {
		t.Errorf("ToolCalls = %+v, want %+v", resp.ToolCalls, want)
	}
	if resp.StopReason != StopToolCalls || resp.Usage != (Usage{InputTokens: 120, OutputTokens: 15}) {
		t.Errorf("resp = %+v", resp)
	}

	body := w.body(0)
	if got := body["system"]; got != "Be brief." {
		t.Errorf("system = %v", got)
	}
	if got := jsonPath(t, body, "tools", 0, "name"); got != "get_weather" {
		t.Errorf("tools[0].name = %v", got)
	}
	if got := jsonPath(t, body, "tools", 0, "input_schema", "required", 0); got != "city" {
		t.Errorf("tools[0].input_schema.required = %v", got)
	}
	if got := body["model"]; got != "claude-sonnet-4-5" {
		t.Errorf("model = %v", got)
	}
	h := w.header(0)
	if h.Get("X-Api-Key") != "test-key" || h.Get("Anthropic-Version") == "" {
		t.Errorf("headers = %v", h)
	}
}

func TestAnthropicParallelToolCalls(t *testing.T) {
	w := newWireServer(t, "/v1/messages", wireReply{body: anthropicJSON(`[
		{"type":"text","text":"Checking both."},
		{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}},
		{"type":"tool_use","id":"toolu_2","name":"get_time","input":{"city":"<<var:home>>"}}]`, "tool_use")})
	m := openAnthropic(t, w)

	resp, err := m.Generate(context.Background(), Request{
		Messages: []Message{UserMessage("Weather and time?")},
		Tools:    []Tool{weatherTool, timeTool},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{
		{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		{ID: "toolu_2", Name: "get_time", Arguments: `{"city":"<<var:home>>"}`},
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) || resp.Text != "Checking both." {
		t.Errorf("resp = %+v, want text and %+v", resp, want)
	}
	if resp.Usage != (Usage{InputTokens: 120, OutputTokens: 15}) {
		t.Errorf("Usage = %+v: counted once, not once per content block", resp.Usage)
	}
	if got := jsonPath(t, w.body(0), "tools", 1, "input_schema", "properties", "city", "anyOf", 1, "$ref"); got != "#/$defs/city_possible_variables" {
		t.Errorf("reference schema = %v", got)
	}
}

func TestAnthropicToolResultsSentBack(t *testing.T) {
	w := newWireServer(t, "/v1/messages", wireReply{body: anthropicJSON(
		`[{"type":"text","text":"Sunny, noon."}]`, "end_turn")})
	m := openAnthropic(t, w)

	calls := []ToolCall{
		{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		{ID: "toolu_2", Name: "get_time", Arguments: `{"city":"Paris"}`},
	}
	resp, err := m.Generate(context.Background(), Request{
		Messages: []Message{
			SystemMessage("Be brief."),
			SystemMessage("Use tools."),
			UserMessage("Weather and time in Paris?"),
			{Role: RoleAssistant, Text: "Checking.", ToolCalls: calls},
			ToolResultMessage(calls[0], `{"sky":"sunny"}`),
			ToolResultMessage(calls[1], `"12:00"`),
		},
		Tools: []Tool{weatherTool, timeTool},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Sunny, noon." || resp.StopReason != StopEnd {
		t.Errorf("resp = %+v", resp)
	}

	body := w.body(0)
	if got := body["system"]; got != "Be brief.\n\nUse tools." {
		t.Errorf("system = %q", got)
	}
	// Every block of the assistant turn reaches the wire (langchaingo reads
	// one part per message, so each goes as its own assistant message, which
	// the API joins), and each result is a tool_result block.
	var toolUses, toolResults []map[string]any
	for _, msg := range jsonPath(t, body, "messages").([]any) {
		msg := msg.(map[string]any)
		for _, block := range msg["content"].([]any) {
			block := block.(map[string]any)
			switch block["type"] {
			case "tool_use":
				if msg["role"] != "assistant" {
					t.Errorf("tool_use in a %v message", msg["role"])
				}
				toolUses = append(toolUses, block)
			case "tool_result":
				if msg["role"] != "user" {
					t.Errorf("tool_result in a %v message", msg["role"])
				}
				toolResults = append(toolResults, block)
			}
		}
	}
	if len(toolUses) != 2 || len(toolResults) != 2 {
		t.Fatalf("server got %d tool_use and %d tool_result blocks, want 2 and 2: %v", len(toolUses), len(toolResults), body["messages"])
	}
	for i, c := range calls {
		if toolUses[i]["id"] != c.ID || toolUses[i]["name"] != c.Name {
			t.Errorf("tool_use %d = %v", i, toolUses[i])
		}
		if toolResults[i]["tool_use_id"] != c.ID {
			t.Errorf("tool_result %d = %v, want tool_use_id %s", i, toolResults[i], c.ID)
		}
	}
	if toolResults[0]["content"] != `{"sky":"sunny"}` {
		t.Errorf("tool_result content = %v", toolResults[0]["content"])
	}
}

func TestAnthropicPlainText(t *testing.T) {
	w := newWireServer(t, "/v1/messages", wireReply{body: anthropicJSON(`[{"type":"text","text":"Hello."}]`, "end_turn")})
	resp, err := openAnthropic(t, w).Generate(context.Background(), Request{Messages: []Message{UserMessage("Hi")}, MaxTokens: 300})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello." || resp.StopReason != StopEnd || len(resp.ToolCalls) != 0 {
		t.Errorf("resp = %+v", resp)
	}
	if got := w.body(0)["max_tokens"]; got != float64(300) {
		t.Errorf("max_tokens = %v", got)
	}
}

// anthropicEvent formats one server-sent event the way the API does.
func anthropicEvent(name, data string) string {
	return "event: " + name + "\ndata: " + data + "\n\n"
}

func TestAnthropicStreamText(t *testing.T) {
	w := newWireServer(t, "/v1/messages", wireReply{sse: []string{
		anthropicEvent("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":25,"output_tokens":1}}}`),
		anthropicEvent("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		anthropicEvent("ping", `{"type":"ping"}`),
		anthropicEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`),
		anthropicEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo."}}`),
		anthropicEvent("content_block_stop", `{"type":"content_block_stop","index":0}`),
		anthropicEvent("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":4}}`),
		anthropicEvent("message_stop", `{"type":"message_stop"}`),
	}})
	var chunks []string
	resp, err := Stream(context.Background(), openAnthropic(t, w), Request{Messages: []Message{UserMessage("Hi")}}, func(c Chunk) error {
		chunks = append(chunks, c.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(chunks, []string{"Hel", "lo."}) {
		t.Errorf("chunks = %q", chunks)
	}
	if resp.Text != "Hello." || resp.StopReason != StopEnd || resp.Usage != (Usage{InputTokens: 25, OutputTokens: 4}) {
		t.Errorf("resp = %+v", resp)
	}
	if got := w.body(0)["stream"]; got != true {
		t.Errorf("stream = %v", got)
	}
}

func TestAnthropicStreamToolCalls(t *testing.T) {
	w := newWireServer(t, "/v1/messages", wireReply{sse: []string{
		anthropicEvent("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":50,"output_tokens":1}}}`),
		anthropicEvent("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		anthropicEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking."}}`),
		anthropicEvent("content_block_stop", `{"type":"content_block_stop","index":0}`),
		anthropicEvent("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`),
		anthropicEvent("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": "}}`),
		anthropicEvent("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"Paris\"}"}}`),
		anthropicEvent("content_block_stop", `{"type":"content_block_stop","index":1}`),
		anthropicEvent("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_2","name":"get_time","input":{}}}`),
		anthropicEvent("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"Rome\"}"}}`),
		anthropicEvent("content_block_stop", `{"type":"content_block_stop","index":2}`),
		anthropicEvent("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":40}}`),
		anthropicEvent("message_stop", `{"type":"message_stop"}`),
	}})
	var text string
	var fragments int
	resp, err := Stream(context.Background(), openAnthropic(t, w), Request{
		Messages: []Message{UserMessage("Weather in Paris, time in Rome?")},
		Tools:    []Tool{weatherTool, timeTool},
	}, func(c Chunk) error {
		text += c.Text
		if c.ToolCall != nil {
			fragments++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if text != "Checking." {
		t.Errorf("streamed text = %q", text)
	}
	if fragments != 0 {
		t.Errorf("got %d tool-call fragments; langchaingo's Anthropic client streams none (update the docs if it now does)", fragments)
	}
	want := []ToolCall{
		{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		{ID: "toolu_2", Name: "get_time", Arguments: `{"city":"Rome"}`},
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) {
		t.Errorf("assembled ToolCalls = %+v, want %+v", resp.ToolCalls, want)
	}
	if resp.StopReason != StopToolCalls || resp.Usage != (Usage{InputTokens: 50, OutputTokens: 40}) {
		t.Errorf("resp = %+v", resp)
	}
}

func TestAnthropicProviderErrors(t *testing.T) {
	tests := []struct {
		name      string
		reply     wireReply
		kind      error
		status    int
		retryable bool
	}{
		{"rate limited", wireReply{status: 429, body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}`},
			ErrRateLimited, 429, true},
		{"server error", wireReply{status: 500, body: `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`},
			ErrProviderUnavailable, 500, true},
		{"overloaded", wireReply{status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
			ErrProviderUnavailable, 529, true},
		{"bad key", wireReply{status: 401, body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`},
			ErrUnauthorized, 401, false},
		{"malformed body", wireReply{body: `{"id":"msg_1","content":[{"type":"text","text":`}, ErrBadResponse, 200, false},
		{"no content", wireReply{body: anthropicJSON(`[]`, "end_turn")}, ErrBadResponse, 200, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWireServer(t, "/v1/messages", tt.reply)
			_, err := openAnthropic(t, w).Generate(context.Background(), Request{Messages: []Message{UserMessage("Hi")}})
			if !errors.Is(err, tt.kind) {
				t.Fatalf("err = %v, want errors.Is %v", err, tt.kind)
			}
			var pe *ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %T, want *ProviderError", err)
			}
			if pe.Provider != "anthropic" || pe.StatusCode != tt.status || pe.Retryable != tt.retryable {
				t.Errorf("ProviderError = %+v, want status %d, retryable %v", pe, tt.status, tt.retryable)
			}
		})
	}
}

func TestAnthropicStreamErrorEvent(t *testing.T) {
	w := newWireServer(t, "/v1/messages", wireReply{sse: []string{
		anthropicEvent("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}`),
		anthropicEvent("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
	}})
	_, err := Stream(context.Background(), openAnthropic(t, w), Request{Messages: []Message{UserMessage("Hi")}}, func(Chunk) error { return nil })
	var pe *ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a *ProviderError", err)
	}
}
