package anthropic_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/anthropic"
)

// New builds a model for the Messages API; here a local server that answers
// with a thinking block and a tool call. Both go back with the assistant
// turn that Response.Message records.
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"m","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"Look it up.","signature":"c2ln"},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","usage":{"input_tokens":20,"output_tokens":9}}`)
	}))
	defer srv.Close()
	m, err := anthropic.New(anthropic.Options{Config: llm.Config{Model: "claude-sonnet-4-5", BaseURL: srv.URL, APIKey: "sk-ant-test"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Weather in Paris?")}})
	if err != nil {
		fmt.Println(err)
		return
	}
	turn := resp.Message()
	fmt.Println(resp.StopReason, turn.ToolCalls[0].Name, turn.ToolCalls[0].Arguments, turn.Thinking[0].Text)
	// Output: tool_calls get_weather {"city":"Paris"} Look it up.
}
