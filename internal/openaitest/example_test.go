package openaitest_test

import (
	"context"
	"fmt"

	"github.com/byref/byref/internal/openaitest"
	"github.com/byref/byref/llm"
	_ "github.com/byref/byref/llm/providers"
)

// A handler sees the request as typed values and answers with typed values;
// byref's OpenAI client, built by llm.OpenWith, talks to it over HTTP.
func Example() {
	srv := openaitest.Start(func(_ context.Context, req openaitest.Request) (openaitest.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			return openaitest.Text("It is " + last.Content + "."), nil
		}
		return openaitest.Call("get_weather", `{"city":"Paris"}`), nil
	})
	defer srv.Close()
	m, err := llm.OpenWith("openai:gpt-4o-mini", llm.Config{
		BaseURL: srv.BaseURL(), APIKey: "test-key", HTTPClient: srv.Client(),
		Getenv: func(string) string { return "" },
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	msgs := []llm.Message{llm.UserMessage("Weather in Paris?")}
	tools := []llm.Tool{{Name: "get_weather", Description: "Weather in a city."}}
	resp, err := m.Generate(ctx, llm.Request{Messages: msgs, Tools: tools})
	if err != nil {
		panic(err)
	}
	call := resp.ToolCalls[0]
	fmt.Println(call.ID, call.Name, call.Arguments)

	msgs = append(msgs, resp.Message(), llm.ToolResultMessage(call, "sunny"))
	resp, err = m.Generate(ctx, llm.Request{Messages: msgs, Tools: tools})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Text)
	for i, req := range srv.Requests() {
		fmt.Println(i, len(req.Messages), "messages,", req.ToolNames())
	}
	// Output:
	// call_1 get_weather {"city":"Paris"}
	// It is sunny.
	// 0 1 messages, [get_weather]
	// 1 3 messages, [get_weather]
}
