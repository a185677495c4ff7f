package bedrock_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/bedrock"
)

// New builds a model for Bedrock's Converse API; here a local server that
// answers from a Claude model's prompt cache, and static credentials that
// sign the request.
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"output":{"message":{"content":[{"text":"21"}],"role":"assistant"}},"stopReason":"end_turn","usage":{"cacheReadInputTokens":1322,"cacheWriteInputTokens":0,"inputTokens":2,"outputTokens":5,"totalTokens":1329}}`)
	}))
	defer srv.Close()
	m, err := bedrock.New(bedrock.Options{
		Config:      llm.Config{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", BaseURL: srv.URL},
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.SystemMessage("Answer with a number."), llm.UserMessage("What is 10 + 11?")}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text, resp.StopReason)
	u := resp.Usage
	fmt.Println(u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens)
	// Output:
	// 21 end
	// 1324 1322 0 5
}
