package gemini_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/gemini"
)

// New builds a model for Gemini's API; here a local server that answers
// with a function call and its thought signature, which Response.Message
// keeps for the next turn.
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"CpYEAXLI"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":57,"candidatesTokenCount":15,"thoughtsTokenCount":124}}`)
	}))
	defer srv.Close()
	m, err := gemini.New(gemini.Options{Config: llm.Config{Model: "gemini-2.5-flash", BaseURL: srv.URL, APIKey: "test-key"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Weather in Paris?")}})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := resp.Message().ToolCalls[0]
	fmt.Println(call.Name, call.Arguments, call.Signature)
	fmt.Println(resp.StopReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// get_weather {"city":"Paris"} CpYEAXLI
	// tool_calls 57 139
}
