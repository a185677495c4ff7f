package accounting_test

import (
	"math"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/anthropic"
	"github.com/byref/byref/llm/azure"
	"github.com/byref/byref/llm/bedrock"
	"github.com/byref/byref/llm/gemini"
	"github.com/byref/byref/llm/internal/recorded"
	"github.com/byref/byref/llm/llmtest"
	"github.com/byref/byref/llm/openai"
	"github.com/byref/byref/llm/openai/responses"
)

// The streamed answers of each wire format, "done" with a usage that has
// cache reads, and cache writes where the provider reports them.
var (
	// chatDone is a chat completions stream whose usage chunk carries
	// OpenAI's cached and reasoning tokens, and OpenRouter's cache writes
	// and cost.
	chatDone = llmtest.Reply{SSE: []string{
		`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1694268190,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"done"},"logprobs":null,"finish_reason":"stop"}]}`,
		`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1694268190,"model":"m","choices":[],"usage":{"prompt_tokens":3329,"completion_tokens":53,"total_tokens":3382,` +
			`"prompt_tokens_details":{"cached_tokens":3211,"cache_write_tokens":115},"completion_tokens_details":{"reasoning_tokens":20},"cost":0.00219855}}`,
		`data: [DONE]`,
	}}
	// responsesDone is a Responses API stream.
	responsesDone = llmtest.Reply{SSE: []string{
		"event: response.output_text.delta\n" + `data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"done"}`,
		"event: response.completed\n" + `data: {"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","store":false,` +
			`"output":[{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"done","annotations":[]}]}],` +
			`"usage":{"input_tokens":2087,"input_tokens_details":{"cached_tokens":2048},"output_tokens":1926,"output_tokens_details":{"reasoning_tokens":1792},"total_tokens":4013}}}`,
	}}
	// messagesDone is a Messages API stream; its input_tokens leave out
	// the cache's reads and writes.
	messagesDone = llmtest.Reply{SSE: []string{
		"event: message_start\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,` +
			`"usage":{"input_tokens":50,"cache_creation_input_tokens":1000,"cache_read_input_tokens":2000,"output_tokens":1}}}`,
		"event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"done"}}`,
		"event: content_block_stop\n" + `data: {"type":"content_block_stop","index":0}`,
		"event: message_delta\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":20}}`,
		"event: message_stop\n" + `data: {"type":"message_stop"}`,
	}}
	// geminiDone is a streamGenerateContent stream; promptTokenCount
	// includes the cached part.
	geminiDone = llmtest.Reply{SSE: []string{
		`data: {"candidates":[{"content":{"parts":[{"text":"done"}],"role":"model"},"finishReason":"STOP","index":0}],` +
			`"usageMetadata":{"promptTokenCount":3520,"cachedContentTokenCount":3512,"candidatesTokenCount":2,"thoughtsTokenCount":42,"totalTokenCount":3564},"modelVersion":"gemini-2.5-pro"}`,
	}}
	// converseDone is a ConverseStream; its inputTokens leave out the
	// cache's reads and writes.
	converseDone = llmtest.EventStream(
		[2]string{"messageStart", `{"p":"abcdefghijklmnopqr","role":"assistant"}`},
		[2]string{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"done"},"p":"abcdefghijklmn"}`},
		[2]string{"contentBlockStop", `{"contentBlockIndex":0,"p":"abcdefghijklmnop"}`},
		[2]string{"messageStop", `{"p":"abcdefghijklmno","stopReason":"end_turn"}`},
		[2]string{"metadata", `{"metrics":{"latencyMs":522},"p":"abcdefgh","usage":{"cacheReadInputTokens":2000,"cacheWriteInputTokens":1000,"inputTokens":50,"outputTokens":20,"totalTokens":3070}}`},
	)
)

// TestCacheUsageReachesOutcome: for every provider client, a run against
// a server speaking the provider's wire format ends with the cache reads
// and writes, reasoning tokens and cost the provider reported in its
// Outcome.Usage, and its log's usage events (the snapshot) say the same,
// so that /ui, OTel and the protocols show them for all providers alike.
func TestCacheUsageReachesOutcome(t *testing.T) {
	recorded.AWSEnv(t) // Bedrock reads the AWS environment

	cfg := func(model, url string) llm.Config { return llm.Config{Model: model, APIKey: "k", BaseURL: url} }
	openRouter := openai.OpenRouterHeader("https://example.com/app", "Example")
	cases := []struct {
		name   string
		suffix string
		reply  llmtest.Reply
		open   func(url string) (llm.Model, error)
		want   llm.Usage
	}{
		{"openai", "/v1/chat/completions", chatDone, func(url string) (llm.Model, error) {
			return openai.New(openai.Options{Config: cfg("gpt-4o-mini", url+"/v1")})
		}, llm.Usage{InputTokens: 3329, OutputTokens: 53, CacheReadTokens: 3211, CacheWriteTokens: 115, ReasoningTokens: 20, Cost: 0.00219855}},
		{"openrouter", "/api/v1/chat/completions", chatDone, func(url string) (llm.Model, error) {
			return openai.New(openai.Options{Config: cfg("anthropic/claude-sonnet-4.5", url+"/api/v1"), Dialect: openai.Dialect{NoPromptCacheKey: true}, Header: openRouter})
		}, llm.Usage{InputTokens: 3329, OutputTokens: 53, CacheReadTokens: 3211, CacheWriteTokens: 115, ReasoningTokens: 20, Cost: 0.00219855}},
		{"azure", "/openai/deployments/gpt-4o-mini/chat/completions", chatDone, func(url string) (llm.Model, error) {
			return azure.NewChat(azure.Options{Config: cfg("gpt-4o-mini", url), APIVersion: "2024-10-21"})
		}, llm.Usage{InputTokens: 3329, OutputTokens: 53, CacheReadTokens: 3211, CacheWriteTokens: 115, ReasoningTokens: 20, Cost: 0.00219855}},
		{"openai-responses", "/v1/responses", responsesDone, func(url string) (llm.Model, error) {
			return responses.New(responses.Options{Config: cfg("gpt-5-mini", url+"/v1")})
		}, llm.Usage{InputTokens: 2087, OutputTokens: 1926, CacheReadTokens: 2048, ReasoningTokens: 1792}},
		{"azure-responses", "/openai/v1/responses", responsesDone, func(url string) (llm.Model, error) {
			return azure.NewResponses(azure.Options{Config: cfg("gpt-5-mini", url)})
		}, llm.Usage{InputTokens: 2087, OutputTokens: 1926, CacheReadTokens: 2048, ReasoningTokens: 1792}},
		{"anthropic", "/v1/messages", messagesDone, func(url string) (llm.Model, error) {
			return anthropic.New(anthropic.Options{Config: cfg("claude-sonnet-4-5", url)})
		}, llm.Usage{InputTokens: 3050, OutputTokens: 20, CacheReadTokens: 2000, CacheWriteTokens: 1000}},
		{"gemini", ":streamGenerateContent", geminiDone, func(url string) (llm.Model, error) {
			return gemini.New(gemini.Options{Config: cfg("gemini-2.5-pro", url)})
		}, llm.Usage{InputTokens: 3520, OutputTokens: 44, CacheReadTokens: 3512, ReasoningTokens: 42}},
		{"bedrock", "/converse-stream", converseDone, func(url string) (llm.Model, error) {
			c := cfg("us.anthropic.claude-sonnet-4-5-20250929-v1:0", url)
			c.APIKey = "" // a Bedrock API key goes over HTTPS only
			return bedrock.New(bedrock.Options{Config: c, Region: "us-east-1"})
		}, llm.Usage{InputTokens: 3050, OutputTokens: 20, CacheReadTokens: 2000, CacheWriteTokens: 1000}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, c.suffix, c.reply)
			m, err := c.open(srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			rt, err := agent.New(agent.Options{Model: m, DisableSnippets: true})
			if err != nil {
				t.Fatal(err)
			}
			o, snap := recorded.Run(t, rt, "Say done.")
			if !sameUsage(o.Usage, c.want) {
				t.Errorf("Outcome.Usage %+v; want %+v", o.Usage, c.want)
			}
			u := snap.Usage
			logged := llm.Usage{InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens), CacheReadTokens: int(u.CacheReadTokens),
				CacheWriteTokens: int(u.CacheWriteTokens), ReasoningTokens: int(u.ReasoningTokens), Cost: u.Cost}
			if !sameUsage(logged, c.want) {
				t.Errorf("the log's usage %+v; want %+v", u, c.want)
			}
		})
	}
}

// sameUsage compares usages, costs to a millionth of a cent.
func sameUsage(a, b llm.Usage) bool {
	ca, cb := a.Cost, b.Cost
	a.Cost, b.Cost = 0, 0
	return a == b && math.Abs(ca-cb) < 1e-8
}
