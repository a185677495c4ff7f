package anthropic_test

import (
	"context"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/anthropic"
	"github.com/byref/byref/llm/llmtest"
)

const okMessage = `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`

func cacheRequest() llm.Request {
	call := llm.ToolCall{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}
	return llm.Request{
		Tools: []llm.Tool{{Name: "get_weather", Description: "Weather.", Parameters: []byte(`{"type":"object"}`)}},
		Messages: []llm.Message{llm.SystemMessage("Be brief."), llm.UserMessage("Weather?"),
			{Role: llm.RoleAssistant, Thinking: []llm.Thinking{{Text: "look", Signature: "sig"}}, ToolCalls: []llm.ToolCall{call}},
			llm.ToolResultMessage(call, "sunny")},
	}
}

// A request carries two cache breakpoints: the end of the system prompt
// (tools and system, which every request of a run repeats) and the last
// block of the last message; NoCacheControl sends none.
func TestCacheControl(t *testing.T) {
	for _, off := range []bool{false, true} {
		s := llmtest.NewServer(t, "/v1/messages", llmtest.Reply{Body: okMessage})
		m, err := anthropic.New(anthropic.Options{Config: llm.Config{Model: "claude-test", APIKey: "k", BaseURL: s.URL()}, NoCacheControl: off})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Generate(context.Background(), cacheRequest()); err != nil {
			t.Fatal(err)
		}
		raw := string(s.Raw(0))
		n := strings.Count(raw, `"cache_control":{"type":"ephemeral"}`)
		if off {
			if n != 0 {
				t.Errorf("NoCacheControl: %d breakpoints in %s", n, raw)
			}
			continue
		}
		b := s.Body(0)
		if n != 2 || llmtest.Path(t, b, "system", 0, "cache_control", "type") != "ephemeral" ||
			llmtest.Path(t, b, "messages", 2, "content", 0, "cache_control", "type") != "ephemeral" {
			t.Errorf("%d breakpoints, want one on the system prompt and one on the last tool result: %s", n, raw)
		}
		// The body reads in the cache's order: tools, system, messages.
		if !(strings.Index(raw, `"tools"`) < strings.Index(raw, `"system"`) && strings.Index(raw, `"system"`) < strings.Index(raw, `"messages"`)) {
			t.Errorf("body not in the order tools, system, messages: %s", raw)
		}
	}
}

// Without a system prompt the stable prefix ends with the last tool.
func TestCacheControlWithoutSystem(t *testing.T) {
	s := llmtest.NewServer(t, "/v1/messages", llmtest.Reply{Body: okMessage})
	m, _ := anthropic.New(anthropic.Options{Config: llm.Config{Model: "claude-test", APIKey: "k", BaseURL: s.URL()}})
	req := cacheRequest()
	req.Messages = req.Messages[1:]
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if llmtest.Path(t, s.Body(0), "tools", 0, "cache_control", "type") != "ephemeral" {
		t.Errorf("no breakpoint on the last tool: %s", s.Raw(0))
	}
}
