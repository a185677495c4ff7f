package anthropic_test

import (
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/anthropic"
	"github.com/byref/byref/llm/llmtest"
)

// TestConformance runs llmtest's suite against the anthropic provider, opened
// by name as a user would, over a server speaking the Messages API.
func TestConformance(t *testing.T) {
	for _, name := range []string{"anthropic", "claude"} {
		t.Run(name, func(t *testing.T) {
			llmtest.Run(t, llmtest.Anthropic, func(t *testing.T, url string) llm.Model {
				m, err := llm.OpenWith(name+":claude-test", llm.Config{APIKey: "test-key", BaseURL: url, Getenv: func(string) string { return "" }})
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
		})
	}
}

func TestNewNeedsAModel(t *testing.T) {
	if _, err := anthropic.New(anthropic.Options{}); err == nil {
		t.Error("New without a model: no error")
	}
}

// The base URL may end in /v1 or not, as ANTHROPIC_BASE_URL usually does not.
func TestBaseURLWithV1(t *testing.T) {
	s := llmtest.NewServer(t, "/v1/messages", llmtest.Reply{Body: `{"type":"message","content":[],"stop_reason":"end_turn","usage":{}}`})
	m, err := anthropic.New(anthropic.Options{Config: llm.Config{Model: "m", BaseURL: s.URL() + "/v1/"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(t.Context(), llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}}); err != nil {
		t.Fatal(err)
	}
}
