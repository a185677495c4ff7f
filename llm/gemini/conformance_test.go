package gemini_test

import (
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/gemini"
	"github.com/byref/byref/llm/llmtest"
)

// TestConformance runs llmtest's suite against the gemini provider, opened
// by name as a user would, over a server speaking Gemini's API.
func TestConformance(t *testing.T) {
	for _, name := range []string{"gemini", "google"} {
		t.Run(name, func(t *testing.T) {
			llmtest.Run(t, llmtest.GeminiAPI, func(t *testing.T, url string) llm.Model {
				m, err := llm.OpenWith(name+":gemini-test", llm.Config{APIKey: "test-key", BaseURL: url, Getenv: func(string) string { return "" }})
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
		})
	}
}

func TestNewNeedsAModel(t *testing.T) {
	if _, err := gemini.New(gemini.Options{}); err == nil {
		t.Error("New without a model: no error")
	}
}

// The base URL may carry the API version or not, and the model name its
// "models/" prefix or not.
func TestURLs(t *testing.T) {
	for _, c := range []struct{ base, model string }{{"", "gemini-2.5-flash"}, {"/v1beta", "models/gemini-2.5-flash"}, {"/v1beta/", "gemini-2.5-flash"}} {
		s := llmtest.NewServer(t, "", llmtest.Reply{Body: `{"candidates":[{"content":{"parts":[{"text":"ok"}],"role":"model"},"finishReason":"STOP"}]}`})
		m, err := gemini.New(gemini.Options{Config: llm.Config{Model: c.model, BaseURL: s.URL() + c.base}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Generate(t.Context(), llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}}); err != nil {
			t.Fatal(err)
		}
		if p := s.Path(0); p != "/v1beta/models/gemini-2.5-flash:generateContent" {
			t.Errorf("base %q, model %q: path %s", c.base, c.model, p)
		}
	}
}

// A missing key names both variables Google's SDKs read.
func TestMissingKey(t *testing.T) {
	_, err := llm.OpenWith("gemini:gemini-2.5-flash", llm.Config{Getenv: func(string) string { return "" }})
	if err == nil || err.Error() != "llm: missing API key for gemini: set GOOGLE_API_KEY or GEMINI_API_KEY in the environment (or Config.APIKey)" {
		t.Errorf("err = %v", err)
	}
}

// Gemini 3 refuses a function call of the current turn without a
// signature; one it did not write (another model's, an injected one) goes
// with the value Google documents for skipping the check, on the first
// call of each model turn since the last user text. Earlier turns, calls
// with their own signature and other models are left as they are.
func TestSkipSignatureForCallsGeminiDidNotWrite(t *testing.T) {
	a := llm.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}
	b := llm.ToolCall{ID: "call_2", Name: "get_time", Arguments: `{}`}
	signed := llm.ToolCall{ID: "call_3", Name: "get_time", Arguments: `{}`, Signature: "Sig_C"}
	req := llm.Request{Messages: []llm.Message{
		llm.UserMessage("Weather?"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{a}}, llm.ToolResultMessage(a, "sunny"),
		llm.UserMessage("And the time, twice?"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{b, b}}, llm.ToolResultMessage(b, "noon"), llm.ToolResultMessage(b, "noon"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{signed}}, llm.ToolResultMessage(signed, "noon"),
	}}
	for model, want := range map[string][]any{
		"gemini-3-flash-preview": {nil, "skip_thought_signature_validator", nil, "Sig_C"},
		"gemini-2.5-flash":       {nil, nil, nil, "Sig_C"},
	} {
		s := llmtest.NewServer(t, "", llmtest.Reply{Body: `{"candidates":[{"content":{"parts":[{"text":"ok"}],"role":"model"},"finishReason":"STOP"}]}`})
		m, _ := gemini.New(gemini.Options{Config: llm.Config{Model: model, BaseURL: s.URL()}})
		if _, err := m.Generate(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		var got []any
		for _, c := range s.Body(0)["contents"].([]any) {
			for _, p := range c.(map[string]any)["parts"].([]any) {
				if _, ok := p.(map[string]any)["functionCall"]; ok {
					got = append(got, p.(map[string]any)["thoughtSignature"])
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: signatures %v, want %v", model, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: signatures %v, want %v", model, got, want)
				break
			}
		}
	}
}
