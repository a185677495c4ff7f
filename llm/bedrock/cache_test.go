package bedrock_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/bedrock"
	"github.com/byref/byref/llm/internal/recorded"
	"github.com/byref/byref/llm/llmtest"
)

const okConverse = `{"output":{"message":{"content":[{"text":"ok"}],"role":"assistant"}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}`

func cacheRequest() llm.Request {
	call := llm.ToolCall{ID: "tooluse_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}
	return llm.Request{
		Tools: []llm.Tool{{Name: "get_weather", Description: "Weather.", Parameters: []byte(`{"type":"object"}`)}},
		Messages: []llm.Message{llm.SystemMessage("Be brief."), llm.UserMessage("Weather?"),
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}, llm.ToolResultMessage(call, "sunny")},
	}
}

// Cache points go to the models that take them: Claude after the tools,
// the system prompt and the last message; Nova after the system prompt and
// the last message (it caches no tools); older Claude models and other
// families none; CacheOff none, CacheAll all three.
func TestCachePoints(t *testing.T) {
	for _, c := range []struct {
		model                   string
		points                  bedrock.CachePoints
		tools, system, messages bool
	}{
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", bedrock.CacheAuto, true, true, true},
		{"arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-7-sonnet-20250219-v1:0", bedrock.CacheAuto, true, true, true},
		{"amazon.nova-micro-v1:0", bedrock.CacheAuto, false, true, true},
		{"anthropic.claude-3-5-sonnet-20240620-v1:0", bedrock.CacheAuto, false, false, false},
		{"meta.llama3-70b-instruct-v1:0", bedrock.CacheAuto, false, false, false},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", bedrock.CacheOff, false, false, false},
		{"meta.llama3-70b-instruct-v1:0", bedrock.CacheAll, true, true, true},
	} {
		s := llmtest.NewServer(t, "/converse", llmtest.Reply{Body: okConverse})
		m, err := bedrock.New(bedrock.Options{Config: llm.Config{Model: c.model, BaseURL: s.URL()}, Region: "us-east-1", Credentials: fakeCredentials, CachePoints: c.points})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Generate(context.Background(), cacheRequest()); err != nil {
			t.Fatal(err)
		}
		b := s.Body(0)
		got := [3]bool{
			isCachePoint(b, []any{"toolConfig", "tools", -1}),
			isCachePoint(b, []any{"system", -1}),
			isCachePoint(b, []any{"messages", -1, "content", -1}),
		}
		if got != [3]bool{c.tools, c.system, c.messages} || strings.Count(string(s.Raw(0)), "cachePoint") != countTrue(got) {
			t.Errorf("%s (%v): cache points after tools, system, last message = %v, want %v: %s", c.model, c.points, got, [3]bool{c.tools, c.system, c.messages}, s.Raw(0))
		}
	}
}

func countTrue(b [3]bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// A Bedrock API key goes as a bearer token, in place of a signature, and
// only over HTTPS, as the SDK insists.
func TestAPIKey(t *testing.T) {
	var auth string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, okConverse)
	}))
	defer srv.Close()
	m, err := bedrock.New(bedrock.Options{Config: llm.Config{Model: "amazon.nova-micro-v1:0", BaseURL: srv.URL, APIKey: "bedrock-api-key-test", HTTPClient: srv.Client()}, Region: "us-east-1", Credentials: fakeCredentials})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}}); err != nil {
		t.Fatal(err)
	}
	if auth != "Bearer bedrock-api-key-test" {
		t.Errorf("Authorization = %q", auth)
	}
	// Over plain HTTP the key is not sent, and the error says why.
	plain, _ := bedrock.New(bedrock.Options{Config: llm.Config{Model: "amazon.nova-micro-v1:0", BaseURL: "http://127.0.0.1:1", APIKey: "bedrock-api-key-test"}, Region: "us-east-1"})
	_, err = plain.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}})
	if !errors.Is(err, llm.ErrUnauthorized) || !strings.Contains(err.Error(), "HTTPS") {
		t.Errorf("err = %v; want ErrUnauthorized naming HTTPS", err)
	}
}

// Without a region the model does not open, and the error says what to
// set.
func TestNoRegion(t *testing.T) {
	recorded.AWSEnv(t)
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	_, err := llm.OpenWith("bedrock:amazon.nova-micro-v1:0", llm.Config{Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "set AWS_REGION") {
		t.Errorf("err = %v; want one that names AWS_REGION", err)
	}
}

// The endpoint comes from AWS_ENDPOINT_URL_BEDROCK_RUNTIME, as with the
// AWS CLI, and the credentials from the default chain: here a profile of
// the shared credentials file.
func TestEndpointAndProfileFromTheEnvironment(t *testing.T) {
	recorded.AWSEnv(t)
	s := llmtest.NewServer(t, "/converse", llmtest.Reply{Body: okConverse})
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_PROFILE", "work")
	writeFile(t, "AWS_SHARED_CREDENTIALS_FILE", "[work]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = secret\n")
	m, err := llm.OpenWith("bedrock:amazon.nova-micro-v1:0", llm.Config{Getenv: func(k string) string {
		if k == "AWS_ENDPOINT_URL_BEDROCK_RUNTIME" {
			return s.URL()
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}}); err != nil {
		t.Fatal(err)
	}
	if got := s.Header(0).Get("Authorization"); !strings.Contains(got, "Credential=AKIDPROFILE/") {
		t.Errorf("Authorization = %q; want the profile's key", got)
	}
}

// With no credentials anywhere in the chain nothing is sent, and the error
// is ErrUnauthorized naming what to configure.
func TestNoCredentials(t *testing.T) {
	recorded.AWSEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	s := llmtest.NewServer(t, "/converse", llmtest.Reply{Body: okConverse})
	m, err := llm.OpenWith("bedrock:amazon.nova-micro-v1:0", llm.Config{BaseURL: s.URL(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}})
	if !errors.Is(err, llm.ErrUnauthorized) || !strings.Contains(err.Error(), "configure AWS credentials") || s.Requests() != 0 {
		t.Errorf("err = %v after %d requests; want ErrUnauthorized naming the fix, and nothing sent", err, s.Requests())
	}
}

// A failure says what Bedrock said and unwraps to the SDK's typed
// exception as well as to byref's kind.
func TestFailureUnwrapsToTheException(t *testing.T) {
	s := llmtest.NewServer(t, "/converse", llmtest.Reply{Status: 429, Header: map[string]string{"x-amzn-ErrorType": "ThrottlingException"}, Body: `{"message":"Too many requests, please wait before trying again."}`})
	m, err := bedrock.New(bedrock.Options{Config: llm.Config{Model: "amazon.nova-micro-v1:0", BaseURL: s.URL()}, Region: "us-east-1", Credentials: fakeCredentials})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}})
	var throttled *types.ThrottlingException
	if !errors.Is(err, llm.ErrRateLimited) || !errors.As(err, &throttled) || !strings.Contains(err.Error(), "ThrottlingException: Too many requests") {
		t.Errorf("err = %v", err)
	}
}
