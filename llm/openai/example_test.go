package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/openai"
)

// New builds a model for any chat completions endpoint; here a local server
// that answers with a refusal, which comes back as a stop reason and its
// text, not as an empty answer.
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":7}}`)
	}))
	defer srv.Close()
	m, err := openai.New(openai.Options{Config: llm.Config{Model: "gpt-4o-mini", BaseURL: srv.URL + "/v1", APIKey: "sk-test"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Something bad")}})
	fmt.Println(resp.StopReason, resp.Refusal, resp.Usage.Total(), err)
	// Output: refusal I can't help with that. 16 <nil>
}

// OpenRouter attributes calls to an app by two headers; a model opened as
// openrouter:<model> sends them from OPENROUTER_REFERER and
// OPENROUTER_TITLE, and Options.Header takes them in Go.
func ExampleOpenRouterHeader() {
	h := openai.OpenRouterHeader("https://example.com/my-agent", "My agent")
	fmt.Println(h.Get("HTTP-Referer"), "|", h.Get("X-Title"))
	// Output: https://example.com/my-agent | My agent
}
