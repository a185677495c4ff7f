package llm_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/byref/byref/llm"
)

// A scripted model plays a conversation written in advance: here, one tool
// call and then a final answer.
func ExampleNewScripted() {
	model := llm.NewScripted(
		llm.CallTool("get_weather", `{"city":"Paris"}`),
		llm.Text("It is sunny in Paris."),
	)
	ctx := context.Background()
	req := llm.Request{Messages: []llm.Message{llm.UserMessage("Weather in Paris?")}}

	resp, _ := model.Generate(ctx, req)
	call := resp.ToolCalls[0]
	fmt.Println(call.ID, call.Name, call.Arguments)

	req.Messages = append(req.Messages, resp.Message(), llm.ToolResultMessage(call, `{"sky":"sunny"}`))
	resp, _ = model.Generate(ctx, req)
	fmt.Println(resp.Text)

	_, err := model.Generate(ctx, req)
	fmt.Println(errors.Is(err, llm.ErrScriptExhausted))
	// Output:
	// call_1 get_weather {"city":"Paris"}
	// It is sunny in Paris.
	// true
}

// A scripted function answers from the conversation, which suits concurrent
// runs and scripts that react to tool results.
func ExampleNewScriptedFunc() {
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llm.RoleTool {
			return llm.Text("The tool said: " + last.Text), nil
		}
		return llm.CallTool("echo", `{"text":"hi"}`), nil
	})
	ctx := context.Background()
	msgs := []llm.Message{llm.UserMessage("Say hi through the tool.")}
	resp, _ := model.Generate(ctx, llm.Request{Messages: msgs})
	msgs = append(msgs, resp.Message(), llm.ToolResultMessage(resp.ToolCalls[0], "hi"))
	resp, _ = model.Generate(ctx, llm.Request{Messages: msgs})
	fmt.Println(resp.Text)
	// Output: The tool said: hi
}

// Stream uses a model's streaming when it has one.
func ExampleStream() {
	model := llm.NewScripted(llm.Text("one two three"))
	resp, _ := llm.Stream(context.Background(), model, llm.Request{}, func(c llm.Chunk) error {
		fmt.Printf("%q\n", c.Text)
		return nil
	})
	fmt.Println(resp.Text)
	// Output:
	// "one "
	// "two "
	// "three"
	// one two three
}

// A provider package registers itself with Register so that Open finds it by
// name, the way a database/sql driver does; here an echo model.
func ExampleRegister() {
	llm.Register(llm.Provider{
		Name:        "echo",
		KeyOptional: true,
		Open: func(c llm.Config) (llm.Model, error) {
			return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
				return llm.Text(c.Model + " heard: " + req.Messages[len(req.Messages)-1].Text), nil
			}), nil
		},
	})
	m, err := llm.Open("echo:parrot")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, _ := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("hello")}})
	fmt.Println(resp.Text)
	// Output: parrot heard: hello
}

// WithRetry retries rate limits and provider failures with backoff.
func ExampleWithRetry() {
	calls := 0
	flaky := llm.NewScriptedFunc(func(llm.Request) (llm.Response, error) {
		calls++
		if calls == 1 {
			return llm.Response{}, &llm.ProviderError{Provider: "demo", StatusCode: 429, Retryable: true, Kind: llm.ErrRateLimited}
		}
		return llm.Text("done"), nil
	})
	model := llm.WithRetry(flaky, llm.RetryPolicy{Attempts: 3, Backoff: 1})
	resp, err := model.Generate(context.Background(), llm.Request{})
	fmt.Println(resp.Text, err, calls)
	// Output: done <nil> 2
}

// Make a scripted model stream, as a provider does: its answer arrives in
// pieces.
func ExampleChunked() {
	m := llm.Chunked(llm.NewScripted(llm.Text("Hello, world")), 5, 0)
	resp, _ := m.Stream(context.Background(), llm.Request{}, func(c llm.Chunk) error {
		fmt.Printf("%q\n", c.Text)
		return nil
	})
	fmt.Println(resp.Text)
	// Output:
	// "Hello"
	// ", wor"
	// "ld"
	// Hello, world
}
