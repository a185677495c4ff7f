package openaitest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/internal/openaitest"
	"github.com/byref/byref/llm"
	_ "github.com/byref/byref/llm/providers"
)

func open(t *testing.T, srv *openaitest.Server) llm.Model {
	t.Helper()
	m, err := llm.OpenWith("openai:gpt-4o-mini", llm.Config{
		BaseURL: srv.BaseURL(), APIKey: "test-key", HTTPClient: srv.Client(),
		Getenv: func(string) string { return "" },
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var cityTool = llm.Tool{
	Name:        "get_weather",
	Description: "Weather in a city.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"anyOf":[{"type":"string"},{"type":"string","enum":["<<var:home>>"]}]}},"required":["city"],"additionalProperties":false}`),
	Strict:      true,
}

// A whole exchange through byref's OpenAI client: the request decoded
// into typed values, parallel tool calls and usage in the response.
func TestGenerateThroughTheClient(t *testing.T) {
	srv := openaitest.New(t, openaitest.Script(openaitest.Response{
		Text: "Checking both.",
		ToolCalls: []openaitest.ToolCall{
			{Name: "get_weather", Arguments: `{"city":"<<var:home>>"}`},
			{ID: "call_x", Name: "get_weather", Arguments: `{"city":"Lyon"}`},
		},
		Usage: openaitest.Usage{PromptTokens: 40, CompletionTokens: 9},
	}))
	m := open(t, srv)
	prior := llm.ToolCall{ID: "call_0", Name: "get_weather", Arguments: `{"city":"Nice"}`}
	resp, err := m.Generate(context.Background(), llm.Request{
		Messages: []llm.Message{
			llm.SystemMessage("Be brief."),
			llm.UserMessage("Weather?"),
			{Role: llm.RoleAssistant, Text: "First Nice.", ToolCalls: []llm.ToolCall{prior}},
			llm.ToolResultMessage(prior, `{"success":true}`),
		},
		Tools: []llm.Tool{cityTool},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: `{"city":"<<var:home>>"}`},
		{ID: "call_x", Name: "get_weather", Arguments: `{"city":"Lyon"}`},
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) || resp.Text != "Checking both." {
		t.Errorf("response = %+v", resp)
	}
	if resp.Usage != (llm.Usage{InputTokens: 40, OutputTokens: 9}) || resp.StopReason != llm.StopToolCalls {
		t.Errorf("usage %+v, stop %q", resp.Usage, resp.StopReason)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 || srv.Len() != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	req := reqs[0]
	if req.Model != "gpt-4o-mini" || req.Stream || req.Header.Get("Authorization") != "Bearer test-key" {
		t.Errorf("model %q, stream %v, auth %q", req.Model, req.Stream, req.Header.Get("Authorization"))
	}
	roles := []string{}
	for _, msg := range req.Messages {
		roles = append(roles, msg.Role)
	}
	if got := strings.Join(roles, " "); got != "system user assistant tool" {
		t.Fatalf("roles = %s", got)
	}
	if a := req.Messages[2]; a.Content != "First Nice." || len(a.ToolCalls) != 1 || a.ToolCalls[0] != (openaitest.ToolCall{ID: "call_0", Name: "get_weather", Arguments: `{"city":"Nice"}`}) {
		t.Errorf("assistant message = %+v", a)
	}
	if tm := req.Messages[3]; tm.ToolCallID != "call_0" || tm.Content != `{"success":true}` {
		t.Errorf("tool message = %+v", tm)
	}
	tool, ok := req.Tool("get_weather")
	if !ok || !tool.Strict || tool.Type != "function" || tool.Description != "Weather in a city." {
		t.Fatalf("tool = %+v", tool)
	}
	var params struct {
		Properties struct {
			City struct {
				AnyOf []struct {
					Enum []string `json:"enum"`
				} `json:"anyOf"`
			} `json:"city"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tool.Parameters, &params); err != nil || params.Properties.City.AnyOf[1].Enum[0] != "<<var:home>>" {
		t.Errorf("parameters = %s (%v)", tool.Parameters, err)
	}
	// json.Marshal escapes < and > on the wire; Parameters
	// reads as written.
	if !strings.Contains(string(req.Body), `\u003c\u003cvar:home\u003e\u003e`) || !strings.Contains(string(tool.Parameters), `"<<var:home>>"`) {
		t.Errorf("body %s\nparameters %s", req.Body, tool.Parameters)
	}
}

// Parameters undoes only the HTML escapes, not an escaped backslash that
// happens to precede "u003c".
func TestToolParametersUnescaped(t *testing.T) {
	srv := openaitest.New(t, openaitest.Script(openaitest.Text("ok")))
	body := `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":{"enum":["\\u003c","\u003cx\u003e \u0026 \n"]}}}]}`
	resp, err := srv.Client().Post(srv.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := string(srv.Requests()[0].Tools[0].Parameters)
	if want := `{"enum":["\\u003c","<x> & \n"]}`; got != want {
		t.Fatalf("parameters = %s, want %s", got, want)
	}
}

// Streaming: text and tool-call deltas reach the callback, and the client
// assembles the same response as without streaming.
func TestStreamThroughTheClient(t *testing.T) {
	srv := openaitest.New(t, openaitest.Script(openaitest.Response{
		Text:      "Let me look that up.",
		ToolCalls: []openaitest.ToolCall{{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Zürich, <<var:home>>"}`}},
		Usage:     openaitest.Usage{PromptTokens: 12, CompletionTokens: 5},
	}))
	var text strings.Builder
	var fragments []llm.ToolCall
	resp, err := llm.Stream(context.Background(), open(t, srv), llm.Request{
		Messages: []llm.Message{llm.UserMessage("Weather?")}, Tools: []llm.Tool{cityTool},
	}, func(c llm.Chunk) error {
		text.WriteString(c.Text)
		if c.ToolCall != nil {
			fragments = append(fragments, *c.ToolCall)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != "Let me look that up." || resp.Text != text.String() {
		t.Errorf("streamed %q, final %q", text.String(), resp.Text)
	}
	want := llm.ToolCall{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Zürich, <<var:home>>"}`}
	if len(resp.ToolCalls) != 1 || !reflect.DeepEqual(resp.ToolCalls[0], want) {
		t.Errorf("tool calls = %+v", resp.ToolCalls)
	}
	if len(fragments) < 2 || fragments[0].ID != "call_a" || fragments[0].Name != "get_weather" {
		t.Errorf("fragments = %+v", fragments)
	}
	if resp.Usage != (llm.Usage{InputTokens: 12, OutputTokens: 5}) {
		t.Errorf("usage = %+v", resp.Usage)
	}
	if req := srv.Requests()[0]; !req.Stream || req.StreamOptions == nil || !req.StreamOptions.IncludeUsage {
		t.Errorf("request = %+v", req)
	}
}

// The stream on the wire: data: lines of chunks, tool-call deltas with their
// index, then data: [DONE].
func TestStreamWireFormat(t *testing.T) {
	srv := openaitest.New(t, openaitest.Script(openaitest.Calls(
		openaitest.ToolCall{ID: "c1", Name: "a", Arguments: `{"x":1}`},
		openaitest.ToolCall{ID: "c2", Name: "b", Arguments: `{"y":2}`},
	)))
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"hi "},{"type":"text","text":"there"}]}]}`
	resp, err := srv.Client().Post(srv.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() != "" {
			lines = append(lines, sc.Text())
		}
	}
	if lines[len(lines)-1] != "data: [DONE]" {
		t.Fatalf("last line = %q", lines[len(lines)-1])
	}
	type delta struct {
		Choices []struct {
			Delta struct {
				ToolCalls []struct {
					Index    int    `json:"index"`
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
	}
	args := map[int]string{}
	ids := map[int]string{}
	finish := ""
	for _, l := range lines[:len(lines)-1] {
		data, ok := strings.CutPrefix(l, "data: ")
		if !ok {
			t.Fatalf("line %q is not a data line", l)
		}
		var d delta
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			t.Fatal(err)
		}
		for _, c := range d.Choices {
			for _, tc := range c.Delta.ToolCalls {
				args[tc.Index] += tc.Function.Arguments
				if tc.ID != "" {
					ids[tc.Index] = tc.ID + ":" + tc.Function.Name
				}
			}
			if c.FinishReason != nil {
				finish = *c.FinishReason
			}
		}
	}
	if args[0] != `{"x":1}` || args[1] != `{"y":2}` || ids[0] != "c1:a" || ids[1] != "c2:b" || finish != "tool_calls" {
		t.Errorf("args %v, ids %v, finish %q", args, ids, finish)
	}
	if got := srv.Requests()[0].Messages[0]; got.Content != "hi there" || len(got.Parts) != 2 {
		t.Errorf("content parts decoded as %+v", got)
	}
}

// Handler errors reach the client as HTTP errors, which llm
// classifies.
func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		kind error
	}{
		{"rate limit", openaitest.RateLimited(2 * time.Second), llm.ErrRateLimited},
		{"server error", openaitest.Error(http.StatusInternalServerError, "boom"), llm.ErrProviderUnavailable},
		{"plain error", errors.New("handler failed"), llm.ErrProviderUnavailable},
		{"bad key", openaitest.Error(http.StatusUnauthorized, "Incorrect API key provided"), llm.ErrUnauthorized},
		{"malformed", openaitest.Malformed(`{"choices":[{"message":`), llm.ErrBadResponse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t, func(context.Context, openaitest.Request) (openaitest.Response, error) {
				return openaitest.Response{}, tc.err
			})
			_, err := open(t, srv).Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
			var pe *llm.ProviderError
			if !errors.Is(err, tc.kind) || !errors.As(err, &pe) {
				t.Fatalf("err = %v, want %v", err, tc.kind)
			}
			if tc.name == "rate limit" && pe.RetryAfter != 2*time.Second {
				t.Errorf("RetryAfter = %v", pe.RetryAfter)
			}
		})
	}
}

func TestScriptExhaustedAndWrongPath(t *testing.T) {
	srv := openaitest.New(t, openaitest.Script(openaitest.Text("only one")))
	m := open(t, srv)
	req := llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}
	if resp, err := m.Generate(context.Background(), req); err != nil || resp.Text != "only one" || resp.StopReason != llm.StopEnd {
		t.Fatalf("first call: %+v, %v", resp, err)
	}
	if _, err := m.Generate(context.Background(), req); !errors.Is(err, llm.ErrRequestRejected) || !strings.Contains(err.Error(), "script exhausted") {
		t.Fatalf("second call: %v", err)
	}
	resp, err := srv.Client().Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || srv.Len() != 2 {
		t.Fatalf("status %d, %d requests recorded", resp.StatusCode, srv.Len())
	}
}

// A handler can hang until the client gives up.
func TestHandlerSeesClientCancel(t *testing.T) {
	srv := openaitest.New(t, func(ctx context.Context, _ openaitest.Request) (openaitest.Response, error) {
		<-ctx.Done()
		return openaitest.Response{}, ctx.Err()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := open(t, srv).Generate(ctx, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}
