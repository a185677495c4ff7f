package responses_test

import (
	"context"
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/llmtest"
	"github.com/byref/byref/llm/openai/responses"
)

func TestReasons(t *testing.T) {
	for model, want := range map[string]bool{
		"gpt-5": true, "gpt-5-mini": true, "GPT-5.1-codex-max": true, "o3-mini": true, "o4-mini": true, "o1": true,
		"openai/gpt-5": true, "codex-mini-latest": true,
		"gpt-4o": false, "gpt-4.1-mini": false, "gpt-5-chat-latest": false, "my-deployment": false,
	} {
		if got := responses.Reasons(model); got != want {
			t.Errorf("Reasons(%q) = %v, want %v", model, got, want)
		}
	}
}

// What a request asks for, by model and options: encrypted reasoning only
// from a model that reasons and only when responses are not stored; the
// reasoning parameters only when set; a reasoning item without its
// encrypted_content goes back only to a provider that stored it, and none
// to a model that does not reason.
func TestStoreAndReasoning(t *testing.T) {
	yes, no := true, false
	back := llm.Request{Messages: []llm.Message{llm.UserMessage("Hi"),
		{Role: llm.RoleAssistant, Text: "Hello.", Thinking: []llm.Thinking{{Provider: responses.Provider, ID: "rs_1", Text: "plain"}}},
		{Role: llm.RoleAssistant, Text: "Again.", Thinking: []llm.Thinking{{Provider: responses.Provider, ID: "rs_2", Text: "sealed", Signature: "gAAAA"}}},
		llm.UserMessage("Again")}}
	for _, tc := range []struct {
		name      string
		opts      responses.Options
		include   bool
		reasoning any
		itemsBack int
	}{
		{"reasoning model", responses.Options{Config: llm.Config{Model: "gpt-5-mini"}}, true, nil, 5},
		{"plain model", responses.Options{Config: llm.Config{Model: "gpt-4o"}}, false, nil, 4},
		{"deployment said to reason", responses.Options{Config: llm.Config{Model: "prod"}, Reasoning: &yes, ReasoningEffort: "low", ReasoningSummary: "auto"}, true, map[string]any{"effort": "low", "summary": "auto"}, 5},
		{"reasoning model said not to", responses.Options{Config: llm.Config{Model: "o3"}, Reasoning: &no}, false, nil, 4},
		{"stored", responses.Options{Config: llm.Config{Model: "gpt-5"}, Store: true}, false, nil, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, "/responses", llmtest.Reply{Body: `{"status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":1}}`})
			o := tc.opts
			o.BaseURL = srv.URL()
			m, err := responses.New(o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Generate(context.Background(), back); err != nil {
				t.Fatal(err)
			}
			b := srv.Body(0)
			if _, ok := b["include"]; ok != tc.include {
				t.Errorf("include = %v", b["include"])
			}
			if b["store"] != o.Store {
				t.Errorf("store = %v", b["store"])
			}
			if r, ok := b["reasoning"]; ok != (tc.reasoning != nil) || (ok && llmtest.Path(t, r, "effort") != "low") {
				t.Errorf("reasoning = %v", r)
			}
			if n := len(b["input"].([]any)); n != tc.itemsBack {
				t.Errorf("%d input items %v, want %d", n, b["input"], tc.itemsBack)
			}
		})
	}
}

// Options.PromptCacheKey wins over the request's key.
func TestPromptCacheKey(t *testing.T) {
	srv := llmtest.NewServer(t, "/responses", llmtest.Reply{Body: `{"status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":1}}`})
	m, _ := responses.New(responses.Options{Config: llm.Config{Model: "gpt-5", BaseURL: srv.URL()}, PromptCacheKey: "mine"})
	if _, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}, CacheKey: "agent"}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Body(0)["prompt_cache_key"]; got != "mine" {
		t.Errorf("prompt_cache_key = %v", got)
	}
}

// A model opened by name takes its reasoning settings from the
// environment.
func TestReasoningFromEnv(t *testing.T) {
	srv := llmtest.NewServer(t, "/responses", llmtest.Reply{Body: `{"status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":1}}`})
	env := map[string]string{"OPENAI_REASONING_EFFORT": "high", "OPENAI_REASONING_SUMMARY": "detailed"}
	m, err := llm.OpenWith("openai-responses:o3", llm.Config{APIKey: "k", BaseURL: srv.URL(), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}}); err != nil {
		t.Fatal(err)
	}
	if r := srv.Body(0)["reasoning"]; llmtest.Path(t, r, "effort") != "high" || llmtest.Path(t, r, "summary") != "detailed" {
		t.Errorf("reasoning = %v", r)
	}
}
