package openai_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/internal/recorded"
	"github.com/byref/byref/llm/llmtest"
	"github.com/byref/byref/variable"
)

// generateOnly hides a model's Stream, so that the run makes the
// non-streamed calls whose recorded JSON the test replays.
type generateOnly struct{ llm.Model }

// A run on OpenRouter, opened by name with its attribution variables set
// as a user would, against a server replaying recorded turns (the recorded
// tool call pointed at the run's variable, then the recorded answer with
// cached tokens and a cost), calls divide by reference and completes:
// every request goes to /api/v1/chat/completions with the bearer key and
// the HTTP-Referer and X-Title headers, and the outcome's usage has the
// recorded turns' tokens, cache reads and writes, and OpenRouter's cost.
func TestOpenRouterRunCallsByReference(t *testing.T) {
	recs := map[string]*recorded.Recording{}
	for _, r := range recorded.Load(t, "openrouter") {
		recs[r.Name] = r
	}
	decode := func(r *recorded.Recording) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(r.Response.Body), &m); err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		return m
	}
	call, answer := decode(recs["chat-tool-call"]), decode(recs["chat-cached-tokens-cost"])
	fn := llmtest.Path(t, call, "choices", 0, "message", "tool_calls", 0, "function").(map[string]any)
	fn["arguments"] = `{"numerator": "<<var:numerator>>", "denominator": 456}`
	b1, _ := json.Marshal(call)
	srv := llmtest.NewServer(t, "/chat/completions", llmtest.Reply{Body: string(b1)}, recs["chat-cached-tokens-cost"].Reply(t))

	env := map[string]string{"OPENROUTER_REFERER": "https://example.com/app", "OPENROUTER_TITLE": "byref test"}
	m, err := llm.OpenWith("openrouter:mistralai/mistral-small", llm.Config{APIKey: "or-key", BaseURL: srv.URL() + "/api/v1", Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	divide := action.MustNew(action.Spec{
		Name: "divide", Description: "Divide two numbers.",
		Func:   func(numerator, denominator float64) float64 { return numerator / denominator },
		Params: []action.Param{{Name: "numerator"}, {Name: "denominator"}},
	})
	rt, err := agent.New(agent.Options{Model: generateOnly{m}, Actions: action.MustSet(divide), DisableSnippets: true,
		Variables: []variable.Spec{{Name: "numerator", Value: 123.0}}})
	if err != nil {
		t.Fatal(err)
	}
	o, snap := recorded.Run(t, rt, "What is the numerator divided by 456?")
	if len(snap.ToolCalls) != 1 || snap.ToolCalls[0].Resolution == nil || snap.ToolCalls[0].Resolution.Args[0].Ref != "numerator" || !snap.ToolCalls[0].Success {
		t.Fatalf("divide was not called by reference: %+v", snap.ToolCalls)
	}
	var result string
	for _, v := range srv.Body(1)["messages"].([]any) {
		if msg := v.(map[string]any); msg["role"] == "tool" {
			result, _ = msg["content"].(string)
		}
	}
	if !strings.Contains(result, "0.269736") {
		t.Errorf("the tool result sent back is %q; want 123/456, the numerator passed by reference", result)
	}
	for i := range 2 {
		if p := srv.Path(i); p != "/api/v1/chat/completions" {
			t.Errorf("request %d went to %s", i, p)
		}
		h := srv.Header(i)
		if h.Get("Authorization") != "Bearer or-key" || h.Get("HTTP-Referer") != env["OPENROUTER_REFERER"] || h.Get("X-Title") != env["OPENROUTER_TITLE"] {
			t.Errorf("request %d: Authorization %q, HTTP-Referer %q, X-Title %q", i, h.Get("Authorization"), h.Get("HTTP-Referer"), h.Get("X-Title"))
		}
	}
	num := func(b map[string]any, path ...any) int { return int(llmtest.Path(t, b, path...).(float64)) }
	want := llm.Usage{
		InputTokens:      num(call, "usage", "prompt_tokens") + num(answer, "usage", "prompt_tokens"),
		OutputTokens:     num(call, "usage", "completion_tokens") + num(answer, "usage", "completion_tokens"),
		CacheReadTokens:  num(answer, "usage", "prompt_tokens_details", "cached_tokens"),
		CacheWriteTokens: num(answer, "usage", "prompt_tokens_details", "cache_write_tokens"),
		Cost:             llmtest.Path(t, answer, "usage", "cost").(float64),
	}
	got := o.Usage
	if math.Abs(got.Cost-want.Cost) > 1e-12 {
		t.Errorf("outcome cost %v; want OpenRouter's %v", got.Cost, want.Cost)
	}
	got.Cost = want.Cost
	if got != want {
		t.Errorf("outcome usage %+v; want the recorded turns' %+v", o.Usage, want)
	}
}
