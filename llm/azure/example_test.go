package azure_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/azure"
)

// NewChat opens a deployment on a resource's endpoint; without an
// api-version the request goes to the v1 endpoint, with the key in the
// api-key header.
func ExampleNewChat() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(r.URL.Path, r.Header.Get("api-key"))
		io.WriteString(w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"4242"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2}}`)
	}))
	defer srv.Close()
	m, err := azure.NewChat(azure.Options{Config: llm.Config{Model: "gpt-4o-mini", BaseURL: srv.URL, APIKey: "azure-key"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("What is 4200 + 42?")}})
	fmt.Println(resp.Text, err)
	// Output:
	// /openai/v1/chat/completions azure-key
	// 4242 <nil>
}
