package azure_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/azure"
	"github.com/byref/byref/llm/llmtest"
)

const okChat = `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`

// Each endpoint form reaches its path, with the api-version where it takes
// one; a token goes as a bearer token, never with the api-key.
func TestEndpoints(t *testing.T) {
	calls := 0
	token := func(context.Context) (string, error) { calls++; return "entra-token", nil }
	for _, tc := range []struct {
		name      string
		opts      azure.Options
		responses bool
		path      string
	}{
		{"v1 chat", azure.Options{}, false, "/openai/v1/chat/completions"},
		{"v1 given whole", azure.Options{Config: llm.Config{BaseURL: "/openai/v1/"}}, false, "/openai/v1/chat/completions"},
		{"deployment chat", azure.Options{APIVersion: "2024-10-21"}, false, "/openai/deployments/my%20dep/chat/completions?api-version=2024-10-21"},
		{"v1 responses", azure.Options{}, true, "/openai/v1/responses"},
		{"versioned responses", azure.Options{APIVersion: "2025-04-01-preview"}, true, "/openai/responses?api-version=2025-04-01-preview"},
		{"token", azure.Options{Token: token}, false, "/openai/v1/chat/completions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			suffix, body := "/chat/completions", okChat
			if tc.responses {
				suffix, body = "/responses", `{"status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":1}}`
			}
			srv := llmtest.NewServer(t, suffix, llmtest.Reply{Body: body})
			o := tc.opts
			o.Model, o.BaseURL = "my dep", srv.URL()+o.BaseURL
			if o.Token == nil {
				o.APIKey = "k"
			}
			var m llm.Model
			var err error
			if tc.responses {
				m, err = azure.NewResponses(o)
			} else {
				m, err = azure.NewChat(o)
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}); err != nil {
				t.Fatal(err)
			}
			if got := srv.Path(0); got != tc.path {
				t.Errorf("path %s, want %s", got, tc.path)
			}
			h := srv.Header(0)
			if o.Token != nil {
				if h.Get("Authorization") != "Bearer entra-token" || h.Get("api-key") != "" || calls != 1 {
					t.Errorf("Authorization %q, api-key %q, %d token calls", h.Get("Authorization"), h.Get("api-key"), calls)
				}
			} else if h.Get("api-key") != "k" || h.Get("Authorization") != "" {
				t.Errorf("api-key %q, Authorization %q", h.Get("api-key"), h.Get("Authorization"))
			}
		})
	}
}

// A token that cannot be had fails the call with its reason; no request
// goes out.
func TestTokenFailure(t *testing.T) {
	srv := llmtest.NewServer(t, "/chat/completions", llmtest.Reply{Body: okChat})
	boom := errors.New("no managed identity")
	m, err := azure.NewChat(azure.Options{Config: llm.Config{Model: "d", BaseURL: srv.URL()}, Token: func(context.Context) (string, error) { return "", boom }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
	if !errors.Is(err, boom) || srv.Requests() != 0 {
		t.Errorf("err = %v, %d requests", err, srv.Requests())
	}
}

// Bad configurations fail at construction, naming the fix.
func TestBadOptions(t *testing.T) {
	for _, tc := range []struct {
		opts azure.Options
		want string
	}{
		{azure.Options{Config: llm.Config{BaseURL: "https://r.openai.azure.com", APIKey: "k"}}, "name the deployment"},
		{azure.Options{Config: llm.Config{Model: "d", APIKey: "k"}}, "AZURE_OPENAI_ENDPOINT"},
		{azure.Options{Config: llm.Config{Model: "d", BaseURL: "https://r.openai.azure.com"}}, "AZURE_OPENAI_API_KEY"},
		{azure.Options{Config: llm.Config{Model: "d", BaseURL: "https://r.openai.azure.com/openai/v1", APIKey: "k"}, APIVersion: "2024-10-21"}, "takes no api-version"},
	} {
		if _, err := azure.NewChat(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewChat(%+v) = %v, want an error saying %q", tc.opts, err, tc.want)
		}
	}
	_, err := llm.OpenWith("azure:d", llm.Config{BaseURL: "https://r.openai.azure.com", Getenv: func(string) string { return "" }})
	if !errors.Is(err, llm.ErrMissingKey) {
		t.Errorf("Open without a key: %v, want ErrMissingKey", err)
	}
	if want := "llm: missing API key for azure: set AZURE_OPENAI_API_KEY"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Open without a key: %v, want an error starting %q", err, want)
	}
}

// An answer Azure's content filter stops ends with StopContentFilter, on
// either API: chat's finish_reason content_filter (with the choice's
// content_filter_results), a Responses answer incomplete for
// content_filter.
func TestOutputContentFilter(t *testing.T) {
	chat := llmtest.NewServer(t, "/chat/completions", llmtest.Reply{Body: `{"id":"c","object":"chat.completion","choices":[{"index":0,"finish_reason":"content_filter","message":{"role":"assistant","content":"Here is how"},` +
		`"content_filter_results":{"violence":{"filtered":true,"severity":"high"}}}],"prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}],"usage":{"prompt_tokens":9,"completion_tokens":3}}`})
	resp := llmtest.NewServer(t, "/responses", llmtest.Reply{Body: `{"status":"incomplete","incomplete_details":{"reason":"content_filter"},"output":[],"usage":{"input_tokens":9,"output_tokens":0}}`})
	o := azure.Options{Config: llm.Config{Model: "d", BaseURL: chat.URL(), APIKey: "k"}}
	cm, err := azure.NewChat(o)
	if err != nil {
		t.Fatal(err)
	}
	o.BaseURL = resp.URL()
	rm, err := azure.NewResponses(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []llm.Model{cm, rm} {
		got, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
		if err != nil || got.StopReason != llm.StopContentFilter || !got.StopReason.Refused() {
			t.Errorf("%T: %+v, %v", m, got, err)
		}
	}
}

// AZURE_OPENAI_REASONING says a deployment reasons when its name does not:
// its requests then ask for encrypted reasoning; a value that is not a
// boolean is refused.
func TestReasoningFromEnv(t *testing.T) {
	srv := llmtest.NewServer(t, "/responses", llmtest.Reply{Body: `{"status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":1}}`})
	env := map[string]string{"AZURE_OPENAI_REASONING": "true"}
	getenv := func(k string) string { return env[k] }
	m, err := llm.OpenWith("azure-responses:prod-agent", llm.Config{APIKey: "k", BaseURL: srv.URL(), Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}); err != nil {
		t.Fatal(err)
	}
	if inc := srv.Body(0)["include"]; llmtest.Path(t, inc, 0) != "reasoning.encrypted_content" {
		t.Errorf("include = %v", inc)
	}
	env["AZURE_OPENAI_REASONING"] = "sometimes"
	if _, err := llm.OpenWith("azure-responses:prod-agent", llm.Config{APIKey: "k", BaseURL: srv.URL(), Getenv: getenv}); err == nil || !strings.Contains(err.Error(), "true or false") {
		t.Errorf("err = %v", err)
	}
}
