package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestOpenMissingKey(t *testing.T) {
	tests := []struct{ spec, env string }{
		{"openai:gpt-4o-mini", "OPENAI_API_KEY"},
		{"anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"},
		{"google:gemini-2.5-flash", "GOOGLE_API_KEY or GEMINI_API_KEY"},
		{"gemini:gemini-2.5-flash", "GOOGLE_API_KEY or GEMINI_API_KEY"},
		{"mistral:mistral-large-latest", "MISTRAL_API_KEY"},
	}
	for _, tt := range tests {
		_, err := OpenWith(tt.spec, Options{Getenv: noEnv})
		if !errors.Is(err, ErrMissingKey) {
			t.Errorf("%s: err = %v, want ErrMissingKey", tt.spec, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.env) {
			t.Errorf("%s: error %q does not name %s", tt.spec, err, tt.env)
		}
	}
}

func TestOpenKeyFromEnvironment(t *testing.T) {
	env := map[string]string{"GEMINI_API_KEY": "g-key"}
	if _, err := OpenWith("google:gemini-2.5-flash", Options{Getenv: func(k string) string { return env[k] }}); err != nil {
		t.Fatalf("GEMINI_API_KEY alone should do: %v", err)
	}
	if _, err := OpenWith("ollama:llama3.1", Options{Getenv: noEnv}); err != nil {
		t.Fatalf("ollama needs no key: %v", err)
	}
}

func TestOpenBadSpecs(t *testing.T) {
	if _, err := OpenWith("cohere:command", Options{Getenv: noEnv}); !errors.Is(err, ErrUnknownProvider) || !strings.Contains(err.Error(), "openai") {
		t.Errorf("unknown provider: err = %v, want ErrUnknownProvider listing the known ones", err)
	}
	for _, spec := range []string{"openai", "openai:", "gpt-4o"} {
		if _, err := OpenWith(spec, Options{APIKey: "k", Getenv: noEnv}); err == nil {
			t.Errorf("%q: no error", spec)
		}
	}
}

func TestOllamaBaseURL(t *testing.T) {
	tests := map[string]string{
		"":                      "http://127.0.0.1:11434/v1",
		"127.0.0.1:11434":       "http://127.0.0.1:11434/v1",
		"http://gpu-box:11434/": "http://gpu-box:11434/v1",
		"https://x.example/v1":  "https://x.example/v1",
	}
	for in, want := range tests {
		if got := ollamaBaseURL(in); got != want {
			t.Errorf("ollamaBaseURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// The OpenAI-compatible providers reach their endpoints with the options
// each one needs, through langchaingo's OpenAI client.
func TestOpenAICompatibleProviders(t *testing.T) {
	tests := []struct {
		spec      string
		env       map[string]string
		auth      string
		maxField  string
		streamOpt bool
	}{
		{"google:gemini-2.5-flash", map[string]string{"GOOGLE_API_KEY": "g-key"}, "Bearer g-key", "max_tokens", true},
		{"mistral:mistral-small-latest", map[string]string{"MISTRAL_API_KEY": "m-key"}, "Bearer m-key", "max_tokens", false},
		{"ollama:llama3.1", nil, "Bearer ollama", "max_tokens", true},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			w := newWireServer(t, "/v1/chat/completions",
				wireReply{body: openaiJSON(`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`, "tool_calls")},
				wireReply{sse: []string{`data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, `data: [DONE]`}},
			)
			opts := Options{BaseURL: w.URL("/v1"), Getenv: func(k string) string { return tt.env[k] }}
			if strings.HasPrefix(tt.spec, "ollama:") {
				opts.BaseURL = ""
				host := strings.TrimPrefix(w.URL(""), "http://")
				opts.Getenv = func(k string) string {
					if k == "OLLAMA_HOST" {
						return host
					}
					return ""
				}
			}
			m, err := OpenWith(tt.spec, opts)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := m.Generate(context.Background(), Request{Messages: []Message{UserMessage("Hi")}, Tools: []Tool{weatherTool}, MaxTokens: 64})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "get_weather" {
				t.Errorf("resp = %+v", resp)
			}
			if got := w.header(0).Get("Authorization"); got != tt.auth {
				t.Errorf("Authorization = %q, want %q", got, tt.auth)
			}
			body := w.body(0)
			if body[tt.maxField] != float64(64) || body["max_completion_tokens"] != nil {
				t.Errorf("max tokens sent as %v / max_completion_tokens %v, want %s", body[tt.maxField], body["max_completion_tokens"], tt.maxField)
			}
			if body["model"] != strings.SplitN(tt.spec, ":", 2)[1] {
				t.Errorf("model = %v", body["model"])
			}
			if _, err := Stream(context.Background(), m, Request{Messages: []Message{UserMessage("Hi")}}, func(Chunk) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if _, has := w.body(1)["stream_options"]; has != tt.streamOpt {
				t.Errorf("stream_options present = %v, want %v", has, tt.streamOpt)
			}
		})
	}
}
