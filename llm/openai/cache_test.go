package openai_test

import (
	"context"
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/llmtest"
	"github.com/byref/byref/llm/openai"
)

const okCompletion = `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`

// prompt_cache_key is the option's when set, else the request's (a byref
// run's, derived from its agent), and never sent where the dialect says
// the endpoint takes none.
func TestPromptCacheKey(t *testing.T) {
	for _, c := range []struct {
		name    string
		opts    openai.Options
		reqKey  string
		wantKey any
	}{
		{"request", openai.Options{}, "agent-1", "agent-1"},
		{"option wins", openai.Options{PromptCacheKey: "mine"}, "agent-1", "mine"},
		{"none", openai.Options{}, "", nil},
		{"dialect without", openai.Options{Dialect: openai.Dialect{NoPromptCacheKey: true}}, "agent-1", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := llmtest.NewServer(t, "/chat/completions", llmtest.Reply{Body: okCompletion})
			o := c.opts
			o.Model, o.BaseURL = "gpt-test", s.URL()
			m, err := openai.New(o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}, CacheKey: c.reqKey}); err != nil {
				t.Fatal(err)
			}
			if got := s.Body(0)["prompt_cache_key"]; got != c.wantKey {
				t.Errorf("prompt_cache_key = %v, want %v", got, c.wantKey)
			}
		})
	}
}

// The OpenAI-compatible providers other than OpenAI send no
// prompt_cache_key: Gemini caches by prefix, Mistral refuses unknown
// fields, OpenRouter routes by model.
func TestPromptCacheKeyOnlyForOpenAI(t *testing.T) {
	for _, p := range []string{"openai", "gemini-openai", "mistral", "openrouter", "ollama", "vllm"} {
		s := llmtest.NewServer(t, "/chat/completions", llmtest.Reply{Body: okCompletion})
		m, err := llm.OpenWith(p+":m", llm.Config{APIKey: "k", BaseURL: s.URL(), Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}, CacheKey: "agent-1"}); err != nil {
			t.Fatal(err)
		}
		_, sent := s.Body(0)["prompt_cache_key"]
		if sent != (p == "openai") {
			t.Errorf("%s: prompt_cache_key sent = %v", p, sent)
		}
	}
}
