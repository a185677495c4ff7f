package responses_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/openai/responses"
)

// A reasoning model's reasoning item comes back in Response.Thinking, with
// its encrypted_content, and goes back to the provider on the next turn
// through the assistant message that records the response.
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"resp_1","object":"response","status":"completed","output":[`+
			`{"id":"rs_1","type":"reasoning","encrypted_content":"gAAAA-opaque","summary":[{"type":"summary_text","text":"Weather first."}]},`+
			`{"id":"fc_1","type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}],`+
			`"usage":{"input_tokens":40,"input_tokens_details":{"cached_tokens":0},"output_tokens":90,"output_tokens_details":{"reasoning_tokens":64}}}`)
	}))
	defer srv.Close()
	m, err := responses.New(responses.Options{Config: llm.Config{Model: "gpt-5-mini", APIKey: "sk-test", BaseURL: srv.URL + "/v1"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Weather in Paris?")}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StopReason, resp.ToolCalls[0].Name, resp.ToolCalls[0].Arguments)
	fmt.Println(resp.Reasoning, resp.Usage.ReasoningTokens)
	fmt.Println(resp.Thinking[0].ID, resp.Thinking[0].Signature, len(resp.Message().Thinking))
	// Output:
	// tool_calls get_weather {"city":"Paris"}
	// Weather first. 64
	// rs_1 gAAAA-opaque 1
}
