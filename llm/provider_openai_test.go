package llm

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// These tests drive langchaingo's real OpenAI client against a server that
// speaks OpenAI's /chat/completions wire format.

func openOpenAI(t *testing.T, w *wireServer) Model {
	t.Helper()
	m, err := OpenWith("openai:gpt-4o-mini", Options{APIKey: "test-key", BaseURL: w.URL("/v1"), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func openaiJSON(message string, finish string) string {
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",
	"choices":[{"index":0,"message":` + message + `,"finish_reason":"` + finish + `"}],
	"usage":{"prompt_tokens":42,"completion_tokens":7,"total_tokens":49}}`
}

func TestOpenAISingleToolCall(t *testing.T) {
	w := newWireServer(t, "/v1/chat/completions", wireReply{body: openaiJSON(
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]}`,
		"tool_calls")})
	m := openOpenAI(t, w)

	resp, err := m.Generate(context.Background(), Request{
		Messages: []Message{SystemMessage("Be brief."), UserMessage("Weather in Paris?")},
		Tools:    []Tool{weatherTool},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{{ID: "call_abc", Name: "get_weather", Arguments: `{"city": "Paris"}`}}
	if !reflect.DeepEqual(resp.ToolCalls, want) {
		t.Errorf("ToolCalls = %+v, want %+v (arguments exactly as sent)", resp.ToolCalls, want)
	}
	if resp.StopReason != StopToolCalls {
		t.Errorf("StopReason = %q, want %q", resp.StopReason, StopToolCalls)
	}
	if resp.Usage != (Usage{InputTokens: 42, OutputTokens: 7}) {
		t.Errorf("Usage = %+v, want 42 in, 7 out", resp.Usage)
	}

	body := w.body(0)
	if got := jsonPath(t, body, "model"); got != "gpt-4o-mini" {
		t.Errorf("model = %v", got)
	}
	if got := jsonPath(t, body, "messages", 0, "role"); got != "system" {
		t.Errorf("messages[0].role = %v, want system", got)
	}
	if got := jsonPath(t, body, "tools", 0, "type"); got != "function" {
		t.Errorf("tools[0].type = %v", got)
	}
	if got := jsonPath(t, body, "tools", 0, "function", "name"); got != "get_weather" {
		t.Errorf("tools[0].function.name = %v", got)
	}
	var wantParams any
	_ = json.Unmarshal(weatherTool.Parameters, &wantParams)
	if got := jsonPath(t, body, "tools", 0, "function", "parameters"); !reflect.DeepEqual(got, wantParams) {
		t.Errorf("parameters = %v, want %v", got, wantParams)
	}
	if got := w.header(0).Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("Authorization = %q", got)
	}
}

func TestOpenAIParallelToolCalls(t *testing.T) {
	w := newWireServer(t, "/v1/chat/completions", wireReply{body: openaiJSON(
		`{"role":"assistant","content":"Checking both.","tool_calls":[
		{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
		{"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{\"city\":\"<<var:home>>\"}"}}]}`,
		"tool_calls")})
	m := openOpenAI(t, w)

	resp, err := m.Generate(context.Background(), Request{
		Messages: []Message{UserMessage("Weather and time?")},
		Tools:    []Tool{weatherTool, timeTool},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		{ID: "call_2", Name: "get_time", Arguments: `{"city":"<<var:home>>"}`},
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) {
		t.Errorf("ToolCalls = %+v, want %+v", resp.ToolCalls, want)
	}
	if resp.Text != "Checking both." {
		t.Errorf("Text = %q", resp.Text)
	}
	// The reference schema reaches the wire intact: anyOf, $ref and $defs.
	if got := jsonPath(t, w.body(0), "tools", 1, "function", "parameters", "$defs", "city_possible_variables", "enum", 0); got != "<<var:home>>" {
		t.Errorf("enum of references = %v", got)
	}
}

func TestOpenAIToolResultsSentBack(t *testing.T) {
	w := newWireServer(t, "/v1/chat/completions", wireReply{body: openaiJSON(
		`{"role":"assistant","content":"Sunny, and it is noon."}`, "stop")})
	m := openOpenAI(t, w)

	calls := []ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		{ID: "call_2", Name: "get_time", Arguments: `{"city":"Paris"}`},
	}
	resp, err := m.Generate(context.Background(), Request{
		Messages: []Message{
			SystemMessage("Be brief."),
			UserMessage("Weather and time in Paris?"),
			{Role: RoleAssistant, ToolCalls: calls},
			ToolResultMessage(calls[0], `{"sky":"sunny"}`),
			ToolResultMessage(calls[1], `"12:00"`),
		},
		Tools: []Tool{weatherTool, timeTool},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Sunny, and it is noon." || resp.StopReason != StopEnd {
		t.Errorf("resp = %+v", resp)
	}

	body := w.body(0)
	msgs := jsonPath(t, body, "messages").([]any)
	if len(msgs) != 5 {
		t.Fatalf("server got %d messages, want 5: %v", len(msgs), msgs)
	}
	if got := jsonPath(t, body, "messages", 2, "role"); got != "assistant" {
		t.Errorf("messages[2].role = %v", got)
	}
	for i, c := range calls {
		if got := jsonPath(t, body, "messages", 2, "tool_calls", i, "id"); got != c.ID {
			t.Errorf("assistant tool_calls[%d].id = %v, want %s", i, got, c.ID)
		}
		if got := jsonPath(t, body, "messages", 2, "tool_calls", i, "function", "arguments"); got != c.Arguments {
			t.Errorf("assistant tool_calls[%d].arguments = %v", i, got)
		}
		if got := jsonPath(t, body, "messages", 3+i, "role"); got != "tool" {
			t.Errorf("messages[%d].role = %v, want tool", 3+i, got)
		}
		if got := jsonPath(t, body, "messages", 3+i, "tool_call_id"); got != c.ID {
			t.Errorf("messages[%d].tool_call_id = %v, want %s", 3+i, got, c.ID)
		}
	}
	if got := jsonPath(t, body, "messages", 3, "content"); got != `{"sky":"sunny"}` {
		t.Errorf("tool result content = %v", got)
	}
}

func TestOpenAIPlainText(t *testing.T) {
	w := newWireServer(t, "/v1/chat/completions", wireReply{body: openaiJSON(
		`{"role":"assistant","content":"Hello there."}`, "stop")})
	m := openOpenAI(t, w)
	temp := 0.2
	resp, err := m.Generate(context.Background(), Request{Messages: []Message{UserMessage("Hi")}, MaxTokens: 100, Temperature: &temp})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello there." || len(resp.ToolCalls) != 0 || resp.StopReason != StopEnd {
		t.Errorf("resp = %+v", resp)
	}
	body := w.body(0)
	if _, ok := body["tools"]; ok {
		t.Errorf("request without tools sent tools: %v", body["tools"])
	}
	if got := body["max_completion_tokens"]; got != float64(100) {
		t.Errorf("max_completion_tokens = %v, want 100", got)
	}
	if got := body["temperature"]; got != 0.2 {
		t.Errorf("temperature = %v, want 0.2", got)
	}
}

func TestOpenAIStreamText(t *testing.T) {
	w := newWireServer(t, "/v1/chat/completions", wireReply{sse: []string{
		`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
		`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
		`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"lo."}}]}`,
		`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		`data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":2,"total_tokens":13}}`,
		`data: [DONE]`,
	}})
	m := openOpenAI(t, w)

	var chunks []string
	resp, err := Stream(context.Background(), m, Request{Messages: []Message{UserMessage("Hi")}}, func(c Chunk) error {
		chunks = append(chunks, c.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(chunks, []string{"Hel", "lo."}) {
		t.Errorf("chunks = %q", chunks)
	}
	if resp.Text != "Hello." || resp.StopReason != StopEnd {
		t.Errorf("resp = %+v", resp)
	}
	if resp.Usage != (Usage{InputTokens: 11, OutputTokens: 2}) {
		t.Errorf("Usage = %+v", resp.Usage)
	}
	if got := w.body(0)["stream"]; got != true {
		t.Errorf("stream = %v, want true", got)
	}
}

func TestOpenAIStreamToolCalls(t *testing.T) {
	w := newWireServer(t, "/v1/chat/completions", wireReply{sse: []string{
		`data: {"id":"c","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`,
		`data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}`,
		`data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]}`,
		`data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"get_time","arguments":""}}]}}]}`,
		`data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":\"Rome\"}"}}]}}]}`,
		`data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`data: {"id":"c","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":20,"total_tokens":50}}`,
		`data: [DONE]`,
	}})
	m := openOpenAI(t, w)

	var fragments []ToolCall
	var text strings.Builder
	resp, err := Stream(context.Background(), m, Request{
		Messages: []Message{UserMessage("Weather in Paris, time in Rome?")},
		Tools:    []Tool{weatherTool, timeTool},
	}, func(c Chunk) error {
		text.WriteString(c.Text)
		if c.ToolCall != nil {
			fragments = append(fragments, *c.ToolCall)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if text.Len() != 0 {
		t.Errorf("tool-call deltas leaked into the text stream: %q", text.String())
	}
	wantFragments := []ToolCall{
		{ID: "call_1", Name: "get_weather"},
		{Arguments: `{"city":`},
		{Arguments: `"Paris"}`},
		{ID: "call_2", Name: "get_time"},
		{Arguments: `{"city":"Rome"}`},
	}
	if !reflect.DeepEqual(fragments, wantFragments) {
		t.Errorf("fragments = %+v\nwant %+v", fragments, wantFragments)
	}
	want := []ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		{ID: "call_2", Name: "get_time", Arguments: `{"city":"Rome"}`},
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) {
		t.Errorf("assembled ToolCalls = %+v, want %+v", resp.ToolCalls, want)
	}
	if resp.StopReason != StopToolCalls || resp.Usage != (Usage{InputTokens: 30, OutputTokens: 20}) {
		t.Errorf("resp = %+v", resp)
	}
}

func TestOpenAIStreamCallbackErrorStops(t *testing.T) {
	w := newWireServer(t, "/v1/chat/completions", wireReply{sse: []string{
		`data: {"id":"c","choices":[{"index":0,"delta":{"content":"one "}}]}`,
		`data: {"id":"c","choices":[{"index":0,"delta":{"content":"two"}}]}`,
		`data: [DONE]`,
	}})
	m := openOpenAI(t, w)
	stop := errors.New("enough")
	calls := 0
	_, err := Stream(context.Background(), m, Request{Messages: []Message{UserMessage("Count")}}, func(Chunk) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want it to wrap the callback's error", err)
	}
	if calls != 1 {
		t.Errorf("callback called %d times after returning an error, want 1", calls)
	}
}

func TestOpenAIProviderErrors(t *testing.T) {
	tests := []struct {
		name      string
		reply     wireReply
		kind      error
		status    int
		retryable bool
	}{
		{"rate limited", wireReply{status: 429, header: map[string]string{"Retry-After": "7"},
			body: `{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","code":"rate_limit_exceeded"}}`},
			ErrRateLimited, 429, true},
		{"server error", wireReply{status: 500, body: `{"error":{"message":"The server had an error","type":"server_error"}}`},
			ErrProviderUnavailable, 500, true},
		{"unavailable without body", wireReply{status: 503, body: `oops`}, ErrProviderUnavailable, 503, true},
		{"bad key", wireReply{status: 401, body: `{"error":{"message":"Incorrect API key provided"}}`}, ErrUnauthorized, 401, false},
		{"bad request", wireReply{status: 400, body: `{"error":{"message":"context_length_exceeded"}}`}, ErrRequestRejected, 400, false},
		{"malformed body", wireReply{body: `{"id":"chatcmpl-1","choices":[{"message":`}, ErrBadResponse, 200, false},
		{"no choices", wireReply{body: `{"id":"chatcmpl-1","choices":[]}`}, ErrBadResponse, 200, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWireServer(t, "/v1/chat/completions", tt.reply)
			m := openOpenAI(t, w)
			_, err := m.Generate(context.Background(), Request{Messages: []Message{UserMessage("Hi")}})
			if !errors.Is(err, tt.kind) {
				t.Fatalf("err = %v, want errors.Is %v", err, tt.kind)
			}
			var pe *ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %T, want *ProviderError", err)
			}
			if pe.Provider != "openai" || pe.StatusCode != tt.status || pe.Retryable != tt.retryable {
				t.Errorf("ProviderError = %+v, want provider openai, status %d, retryable %v", pe, tt.status, tt.retryable)
			}
			if tt.status == 429 && pe.RetryAfter != 7*time.Second {
				t.Errorf("RetryAfter = %v, want 7s", pe.RetryAfter)
			}
		})
	}
}

func TestOpenAIMalformedBodyUnwrapsToDecodeError(t *testing.T) {
	w := newWireServer(t, "/v1/chat/completions", wireReply{body: `{"choices": nope}`})
	_, err := openOpenAI(t, w).Generate(context.Background(), Request{Messages: []Message{UserMessage("Hi")}})
	var syn *json.SyntaxError
	if !errors.As(err, &syn) || !errors.Is(err, ErrBadResponse) {
		t.Fatalf("err = %v, want ErrBadResponse wrapping a *json.SyntaxError", err)
	}
}

func TestOpenAIRetryAfterRateLimit(t *testing.T) {
	w := newWireServer(t, "/v1/chat/completions",
		wireReply{status: 429, body: `{"error":{"message":"slow down"}}`},
		wireReply{status: 502, body: `bad gateway`},
		wireReply{body: openaiJSON(`{"role":"assistant","content":"ok"}`, "stop")},
	)
	m := WithRetry(openOpenAI(t, w), RetryPolicy{Attempts: 3, Backoff: time.Millisecond})
	resp, err := m.Generate(context.Background(), Request{Messages: []Message{UserMessage("Hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "ok" || w.requests() != 3 {
		t.Errorf("resp = %+v after %d requests, want ok after 3", resp, w.requests())
	}
}

func TestOpenAICanceledContext(t *testing.T) {
	w := newWireServer(t, "/v1/chat/completions", wireReply{hang: true})
	m := openOpenAI(t, w)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := m.Generate(ctx, Request{Messages: []Message{UserMessage("Hi")}})
		errc <- err
	}()
	for w.requests() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestOpenAIBrokenStreamIsBadResponse(t *testing.T) {
	w := newWireServer(t, "/v1/chat/completions", wireReply{sse: []string{`data: {not json`, `data: [DONE]`}})
	_, err := Stream(context.Background(), openOpenAI(t, w), Request{Messages: []Message{UserMessage("Hi")}}, func(Chunk) error { return nil })
	if !errors.Is(err, ErrBadResponse) {
		t.Fatalf("err = %v, want ErrBadResponse", err)
	}
}

func TestOpenAIConcurrentUse(t *testing.T) {
	const n = 32
	replies := make([]wireReply, n)
	for i := range replies {
		replies[i] = wireReply{body: openaiJSON(`{"role":"assistant","content":"ok"}`, "stop")}
	}
	w := newWireServer(t, "/v1/chat/completions", replies...)
	m := openOpenAI(t, w)
	errc := make(chan error, n)
	for range n {
		go func() {
			_, err := m.Generate(context.Background(), Request{Messages: []Message{UserMessage("Hi")}, Tools: []Tool{weatherTool}})
			errc <- err
		}()
	}
	for range n {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}
