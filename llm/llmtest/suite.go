package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	goruntime "runtime"

	"github.com/byref/byref/llm"
)

// Flavor is a wire format, and the dialect of it, that the suite's servers
// speak.
type Flavor string

// The flavors the suite knows. The first five speak OpenAI's chat
// completions (POST …/chat/completions); Anthropic speaks the Messages API
// (POST …/v1/messages); [Responses], declared with its cases, speaks
// OpenAI's Responses API (POST …/responses); GeminiAPI speaks Gemini's own
// API; Bedrock speaks Bedrock's Converse API.
const (
	// OpenAI is OpenAI's own chat completions API.
	OpenAI Flavor = "openai"
	// Mistral is Mistral's chat completions: tool calls streamed without
	// "type", Magistral's content as an array of parts, max_tokens.
	Mistral Flavor = "mistral"
	// Gemini is Google's OpenAI-compatible endpoint: thought signatures in
	// extra_content.google, "stop" after tool calls.
	Gemini Flavor = "gemini"
	// Ollama is Ollama's OpenAI-compatible endpoint: reasoning in
	// "reasoning", calls without IDs from some models.
	Ollama Flavor = "ollama"
	// VLLM is vLLM's OpenAI-compatible server: reasoning_content, and the
	// split streamed calls recorded from a GLM model behind such a server.
	VLLM Flavor = "vllm"
	// Anthropic is Anthropic's Messages API.
	Anthropic Flavor = "anthropic"
	// GeminiAPI is Gemini's own API (POST …/models/{model}:generateContent
	// and :streamGenerateContent?alt=sse), with thought signatures on parts.
	GeminiAPI Flavor = "gemini-api"
	// Bedrock is AWS Bedrock Runtime's Converse API (POST
	// /model/{id}/converse and /converse-stream, the stream an AWS event
	// stream).
	Bedrock Flavor = "bedrock"
)

// Open returns the adapter under test talking to the suite's server at
// baseURL (http://127.0.0.1:port, with no path): the adapter appends the
// path its wire format uses, as it would to the provider's base URL.
type Open func(t *testing.T, baseURL string) llm.Model

// Case is one named conformance case.
type Case struct {
	// Name is the subtest's name, e.g. "calls_without_type".
	Name string
	// Run runs the case against the adapter open builds.
	Run func(t *testing.T, open Open)
}

// Cases returns the cases of flavor f, in the order [Run] runs them.
func Cases(f Flavor) []Case {
	switch f {
	case Anthropic:
		return anthropicCases()
	case Responses:
		return responsesCases()
	case GeminiAPI:
		return geminiCases()
	case Bedrock:
		return bedrockCases()
	}
	return openAICases(f)
}

// Run runs every case of flavor f as a subtest of t. Each case starts its
// own server, so cases are independent; none reads a clock.
func Run(t *testing.T, f Flavor, open Open) {
	t.Helper()
	cases := Cases(f)
	if len(cases) == 0 {
		t.Fatalf("llmtest: unknown flavor %q", f)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { c.Run(t, open) })
	}
}

// weather and clock are the tools the cases offer. clock's schema carries a
// variable reference, as byref's reference mode does.
var (
	weather = llm.Tool{
		Name: "get_weather", Description: "Current weather for a city.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`),
		Strict:     true,
	}
	clock = llm.Tool{
		Name: "get_time", Description: "Current time in a city.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/city_possible_variables"}]}},"$defs":{"city_possible_variables":{"type":"string","enum":["<<var:home>>"]}}}`),
	}
	tools = []llm.Tool{weather, clock}
)

func ask(text string) llm.Request {
	return llm.Request{Messages: []llm.Message{llm.SystemMessage("You are terse."), llm.UserMessage(text)}, Tools: tools}
}

// generate calls m once and fails the test on an error.
func generate(t *testing.T, m llm.Model, req llm.Request) llm.Response {
	t.Helper()
	resp, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return resp
}

// stream calls llm.Stream and returns the response and the chunks.
func stream(t *testing.T, m llm.Model, req llm.Request) (llm.Response, []llm.Chunk) {
	t.Helper()
	if _, ok := m.(llm.Streamer); !ok {
		t.Fatalf("%T does not implement llm.Streamer", m)
	}
	var chunks []llm.Chunk
	resp, err := llm.Stream(context.Background(), m, req, func(c llm.Chunk) error {
		chunks = append(chunks, c)
		return nil
	})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return resp, chunks
}

func text(chunks []llm.Chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString(c.Text)
	}
	return b.String()
}

func reasoning(chunks []llm.Chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString(c.Reasoning)
	}
	return b.String()
}

// fragments returns the tool-call fragments of chunks joined per call: a
// fragment with a name starts a call.
func fragments(chunks []llm.Chunk) []llm.ToolCall {
	var out []llm.ToolCall
	for _, c := range chunks {
		if c.ToolCall == nil {
			continue
		}
		if c.ToolCall.Name != "" || len(out) == 0 {
			out = append(out, llm.ToolCall{ID: c.ToolCall.ID, Name: c.ToolCall.Name})
		}
		out[len(out)-1].Arguments += c.ToolCall.Arguments
	}
	return out
}

func wantCalls(t *testing.T, got, want []llm.ToolCall) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tool calls:\n got %+v\nwant %+v", got, want)
	}
}

func wantStop(t *testing.T, resp llm.Response, want llm.StopReason) {
	t.Helper()
	if resp.StopReason != want {
		t.Errorf("StopReason = %q, want %q", resp.StopReason, want)
	}
}

func wantUsage(t *testing.T, resp llm.Response, in, out int) {
	t.Helper()
	wantCachedUsage(t, resp, llm.Usage{InputTokens: in, OutputTokens: out})
}

// wantCachedUsage checks the whole usage, prompt cache reads and writes
// included.
func wantCachedUsage(t *testing.T, resp llm.Response, want llm.Usage) {
	t.Helper()
	if resp.Usage != want {
		t.Errorf("Usage = %+v, want %+v", resp.Usage, want)
	}
}

// wantKind checks that err is a *llm.ProviderError of the kind, status and
// retryability.
func wantKind(t *testing.T, err error, kind error, status int, retryable bool) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("err = %v, want errors.Is %v", err, kind)
	}
	var pe *llm.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %T, want *llm.ProviderError", err)
	}
	if (status != 0 && pe.StatusCode != status) || pe.Retryable != retryable {
		t.Errorf("ProviderError = %+v, want status %d, retryable %v", pe, status, retryable)
	}
}

// httpErrorCase is a status an adapter must classify, with the kind and
// retryability byref promises.
type httpErrorCase struct {
	name      string
	status    int
	kind      error
	retryable bool
}

// httpErrorCases are the statuses every adapter must classify.
var httpErrorCases = []httpErrorCase{
	{"400_rejected", 400, llm.ErrRequestRejected, false},
	{"401_unauthorized", 401, llm.ErrUnauthorized, false},
	{"403_forbidden", 403, llm.ErrUnauthorized, false},
	{"404_unknown_model", 404, llm.ErrRequestRejected, false},
	{"429_rate_limited", 429, llm.ErrRateLimited, true},
	{"500_server_error", 500, llm.ErrProviderUnavailable, true},
	{"503_unavailable", 503, llm.ErrProviderUnavailable, true},
}

// serveFunc starts a flavor's server with the replies and opens the
// adapter under test against it.
type serveFunc func(t *testing.T, open Open, replies ...Reply) (*Server, llm.Model)

// sharedCases are the cases every flavor runs alike but for its bodies:
// each HTTP error (errorBody is the flavor's error body with the message
// "scripted failure") classified and with the provider's message, use
// from many goroutines (ok is a successful answer), and cancellation.
func sharedCases(serve serveFunc, statuses []httpErrorCase, errorBody string, ok Reply) []Case {
	var cases []Case
	for _, he := range statuses {
		cases = append(cases, Case{"http_error_" + he.name, func(t *testing.T, open Open) {
			_, m := serve(t, open, Reply{Status: he.status, Body: errorBody})
			_, err := m.Generate(context.Background(), ask("Hi"))
			wantKind(t, err, he.kind, he.status, he.retryable)
			if !strings.Contains(err.Error(), "scripted failure") {
				t.Errorf("err = %v; want the provider's message in it", err)
			}
		}})
	}
	return append(cases,
		Case{"concurrent_use", func(t *testing.T, open Open) {
			replies := make([]Reply, 16)
			for i := range replies {
				replies[i] = ok
			}
			_, m := serve(t, open, replies...)
			concurrentUse(t, m, len(replies))
		}},
		Case{"canceled", func(t *testing.T, open Open) {
			s, m := serve(t, open, Reply{Hang: true})
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() { _, err := m.Generate(ctx, ask("Hi")); errc <- err }()
			for s.Requests() == 0 {
				runtimeGosched()
			}
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) || llm.IsRetryable(err) {
				t.Errorf("err = %v, want context.Canceled, not retryable", err)
			}
		}},
	)
}

// callbackStops checks that an error from the callback stops a stream of
// two pieces of text after the first, and comes back wrapped.
func callbackStops(t *testing.T, m llm.Model) {
	t.Helper()
	stop := errors.New("enough")
	calls := 0
	_, err := llm.Stream(context.Background(), m, ask("Hi"), func(llm.Chunk) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("err = %v after %d callbacks; want the callback's error after 1", err, calls)
	}
}

// retry is the policy of the retry cases: no real waiting.
var retry = llm.RetryPolicy{Attempts: 3, Backoff: time.Microsecond, MaxBackoff: time.Microsecond}

func ptr(f float64) *float64 { return &f }

// absent fails the test for each key present in body.
func absent(t *testing.T, body map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if v, ok := body[k]; ok {
			t.Errorf("the request sends %s = %v, which the caller never set", k, v)
		}
	}
}

// runtimeGosched yields while a case waits for its server to see a request.
func runtimeGosched() { goruntime.Gosched() }

// concurrentUse calls m from n goroutines at once; with -race it shows the
// adapter is safe for concurrent use, as llm.Model requires.
func concurrentUse(t *testing.T, m llm.Model, n int) {
	t.Helper()
	errc := make(chan error, n)
	for range n {
		go func() {
			_, err := m.Generate(context.Background(), ask("Hi"))
			errc <- err
		}()
	}
	for range n {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}
